"""The results panel both games' results screens derive from (each game's own words and
body in ``tui/games/<game>/results.py``): the headline, the rating change of a rated match,
a status line, and rematch / back / look at the board.

Here, not in one game's package: the tui's games are independent of each other (the
``tui-games`` import contract), so what they share lives beside the other shared screens.
``r`` asks the backend for a rematch (``await backend.rematch(handles)``), ``b``/``esc``
goes back to the home screen, ``v`` closes the panel to look at the final board.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from tui import words as W
from tui.i18n import N_, _
from tui.ports import Backend
from tui.text import name_text
from tui.widgets.keybar import KeyBar
from tui.widgets.prompt import ActionButton

log = logging.getLogger(__name__)


class ResultsBase(ModalScreen[tuple[str, Any]]):
    """The results panel both games share: a body of the game's own, the rating
    change of a rated match, a status line, and rematch / back / look at the board."""

    BINDINGS = [
        Binding("r", "rematch", N_("rematch")),
        # One of the two shows, by where home is (the lobby over SSH, the start screen offline).
        Binding("b,escape", "home", N_("back to start"), key_display="b/esc"),
        Binding("b,escape", "home_lobby", N_("back to the lobby"), key_display="b/esc"),
        Binding("v", "board", N_("see the board")),
    ]
    DEFAULT_CSS = """
    ResultsBase { align: center middle; background: $background 60%; }
    ResultsBase #results-box {
        width: 56; height: auto; padding: 1 2; border: double $accent; background: $surface;
    }
    ResultsBase #results-box > Static { width: 1fr; }
    ResultsBase #winner { text-align: center; text-style: bold; }
    ResultsBase #body { margin: 1 0; }
    ResultsBase #results-status { color: $text-muted; }
    ResultsBase #rating-change { display: none; }
    ResultsBase #rating-change.-shown { display: block; }
    ResultsBase #results-buttons { height: 1; align: center middle; margin-top: 1; }
    ResultsBase ActionButton { background: $primary-muted; }
    """
    # (each label, and each game's words below, marked where it is set and worded where shown)
    HOME_LABEL = N_("back to start [b]")
    LOBBY_LABEL = N_("back to the lobby [b]")
    BOARD_LABEL = N_("board [v]")

    def __init__(self, handles: Sequence[Any], backend: Backend | None, view: Any, names: Sequence[str]) -> None:
        super().__init__()
        self.handles = list(handles)
        self.backend = backend
        self.final = view
        self.names = tuple(names)
        self._asking = False

    @property
    def home_is_lobby(self) -> bool:
        return self.backend is not None and self.backend.online

    @property
    def can_rematch(self) -> bool:
        return self.backend is not None and self.final.seat is not None

    # -- what each game says --------------------------------------------------

    NOBODY = N_("Nobody wins")  # the headline when nobody won
    WINS = N_(" wins")  # after the winner's name
    REASONS: dict[str, str] = {}  # the engine's reason -> the words shown under the headline

    def you_won(self) -> bool:
        v = self.final
        return v.seat is not None and v.winner == v.seat

    def winner_text(self) -> Text:
        v = self.final
        t = Text(justify="center")
        if v.winner is None:
            t.append(_(self.NOBODY), style="bold")
        else:
            if self.you_won():
                t.append(_("You win!"), style="bold reverse")
                t.append("\n")
            t.append_text(name_text(self.names[v.winner], "bold"))
            t.append(_(self.WINS), style="bold")
        reason = _(self.REASONS[v.reason]) if v.reason in self.REASONS else v.reason
        if reason:
            t.append(f"\n({reason})", style="dim")
        return t

    def body_text(self) -> Text:
        raise NotImplementedError

    def status_text(self) -> str:
        raise NotImplementedError

    # -- the panel --------------------------------------------------------------

    def compose(self):
        with Vertical(id="results-box"):
            yield Static(self.winner_text(), id="winner")
            yield Static(self.body_text(), id="body")
            yield Static("", id="rating-change")  # (a rated match's "rating 1012 (+12)": on mount)
            yield Static(Text(self.status_text(), style="dim"), id="results-status")
            with Horizontal(id="results-buttons"):
                if self.can_rematch:
                    yield ActionButton(_("rematch [r]"), "rematch")
                yield ActionButton(_(self.LOBBY_LABEL if self.home_is_lobby else self.HOME_LABEL), "home")
                yield ActionButton(_(self.BOARD_LABEL), "board")
        yield KeyBar()

    def on_mount(self) -> None:
        # (asked beside the screen's own messages: a key pressed meanwhile is taken at once, however
        # long the backend takes to answer; the worker ends with the screen)
        self.run_worker(self._show_rating_change(), group="rating-change")

    async def _show_rating_change(self) -> None:
        """A rated match's rating changes, asked of the backend (a host, over a wire)."""
        try:
            changes = await self.backend.rating_change(self.handles) if self.backend is not None else None
        except Exception:  # never crash on a backend problem: the line is left out
            log.exception("the rating changes could not be read")
            changes = None
        if changes:
            line = self.query_one("#rating-change", Static)
            line.update(Text(W.rating_changes(changes)))
            line.add_class("-shown")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rematch":
            return self.can_rematch and not self._asking
        if action in ("home", "home_lobby"):
            return (action == "home_lobby") == self.home_is_lobby
        return True

    async def action_rematch(self) -> None:
        if not self.can_rematch or self._asking or self.backend is None:
            return
        self._asking = True
        self.refresh_bindings()
        status = self.query_one("#results-status", Static)
        status.update(Text(_("Asking for a rematch…"), style="bold"))
        try:
            handles = await self.backend.rematch(self.handles)
            why = _("No rematch this time.")
        except Exception as e:  # never crash on a backend problem
            log.exception("rematch failed")
            handles, why = None, _("No rematch: %(why)s") % {"why": W.refusal(e)}
        self._asking = False
        self.refresh_bindings()
        if handles:
            self.dismiss(("rematch", handles))
        else:
            status.update(Text(why, style="bold"))

    def action_home(self) -> None:
        self.dismiss(("home", None))

    def action_home_lobby(self) -> None:
        self.action_home()

    def action_board(self) -> None:
        self.dismiss(("board", None))

    async def on_action_button_pressed(self, message: ActionButton.Pressed) -> None:
        if message.action == "rematch":
            await self.action_rematch()
        elif message.action == "home":
            self.action_home()
        else:
            self.action_board()
