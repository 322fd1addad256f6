"""The end of a High Voltage match: the ranking, then rematch or back.

Like :class:`tui.screens.results.ResultsScreen` (whose keys it shares): ``r``
asks the backend for a rematch (``await backend.rematch(handles)``),
``b``/``esc`` goes back to the home screen, ``v`` closes the panel to look at
the final table (``enter`` there brings it back).
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from engine.highvoltage import HighVoltageView

from ..text import name_text
from ..widgets.prompt import ActionButton

log = logging.getLogger(__name__)

REASONS = {
    "last card": "laid the last card",
    "resignation": "everyone else left",
    "blocked": "nobody could play any more",
}


def place_word(place: int) -> str:
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place, 'th') }"


def ranking(view: HighVoltageView, names: Sequence[str]) -> Text:
    """One line per seat, best place first: place, name, cards left (hand plus pile)."""
    places = view.places or tuple(1 if s == view.winner else 2 for s in range(view.players))
    order = sorted(range(view.players), key=lambda s: (places[s], s))
    width = min(max([len(n) for n in names[: view.players]] + [6]), 20)
    t = Text(no_wrap=True)
    for i, s in enumerate(order):
        if i:
            t.append("\n")
        first = places[s] == 1
        t.append(f"{place_word(places[s]):>4}  ", "bold" if first else "")
        n = name_text(names[s][:20], "bold" if first else "")
        n.pad_right(width - n.cell_len + 2)
        t.append_text(n)
        left = view.cards_left(s)
        t.append(f"{left:>3} card{'s' if left != 1 else ' '} left", "dim" if not first else "")
        if view.out[s]:
            t.append("  (left)", "dim")
        if s == view.seat:
            t.append("  ◀ you", "bold")
    return t


class HVResultsScreen(ModalScreen[tuple[str, Any]]):
    BINDINGS = [
        Binding("r", "rematch", "rematch"),
        Binding("b,escape", "home", "back to start", key_display="b/esc"),
        Binding("v", "board", "see the table"),
    ]
    DEFAULT_CSS = """
    HVResultsScreen { align: center middle; background: $background 60%; }
    HVResultsScreen #hv-results-box {
        width: 60; height: auto; padding: 1 2; border: double $accent; background: $surface;
    }
    HVResultsScreen #hv-results-box > Static { width: 1fr; }
    HVResultsScreen #hv-winner { content-align: center middle; text-style: bold; }
    HVResultsScreen #hv-ranking { margin: 1 0; }
    HVResultsScreen #hv-results-status { color: $text-muted; }
    HVResultsScreen #hv-results-buttons { height: 1; align: center middle; margin-top: 1; }
    HVResultsScreen ActionButton { background: $primary-muted; }
    """

    def __init__(self, handles: Sequence[Any], backend: Any, view: HighVoltageView, names: Sequence[str]) -> None:
        super().__init__()
        self.handles = list(handles)
        self.backend = backend
        self.final = view
        self.names = tuple(names)
        self._asking = False

    @property
    def can_rematch(self) -> bool:
        return self.backend is not None and hasattr(self.backend, "rematch") and self.final.seat is not None

    def compose(self):
        v, names = self.final, self.names
        with Vertical(id="hv-results-box"):
            t = Text(justify="center")
            if v.winner is None:
                t.append("Nobody wins: the table is blocked", style="bold")
            else:
                if v.seat is not None and v.winner == v.seat:
                    t.append("You win!", style="bold reverse")
                    t.append("\n")
                t.append_text(name_text(names[v.winner], "bold"))
                t.append(" wins High Voltage", style="bold")
            reason = REASONS.get(v.reason, v.reason)
            if reason:
                t.append(f"\n({reason})", style="dim")
            yield Static(t, id="hv-winner")
            yield Static(ranking(v, names), id="hv-ranking")
            rating_change = getattr(self.backend, "rating_change", None)  # rated matches: "rating 1012 (+12)"
            change = rating_change(self.handles) if rating_change is not None else None
            if change:
                yield Static(Text(change), id="rating-change")
            flips = f", {v.flips} flip{'s' if v.flips != 1 else ''}" if v.flips else ""
            yield Static(Text(f"{v.plays} cards played{flips}", style="dim"), id="hv-results-status")
            with Horizontal(id="hv-results-buttons"):
                if self.can_rematch:
                    yield ActionButton("rematch [r]", "rematch")
                yield ActionButton("back [b]", "home")
                yield ActionButton("table [v]", "board")
        yield Footer()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "rematch":
            return self.can_rematch and not self._asking
        return True

    async def action_rematch(self) -> None:
        if not self.can_rematch or self._asking:
            return
        self._asking = True
        self.refresh_bindings()
        status = self.query_one("#hv-results-status", Static)
        status.update(Text("Asking for a rematch…", style="bold"))
        try:
            handles = await self.backend.rematch(self.handles)
        except Exception as e:  # never crash on a backend problem
            log.exception("rematch failed")
            handles = None
            status.update(Text(f"No rematch: {e}", style="bold"))
        self._asking = False
        self.refresh_bindings()
        if handles:
            self.dismiss(("rematch", handles))
        else:
            status.update(Text("No rematch this time.", style="bold"))

    def action_home(self) -> None:
        self.dismiss(("home", None))

    def action_board(self) -> None:
        self.dismiss(("board", None))

    async def on_action_button_pressed(self, message: ActionButton.Pressed) -> None:
        if message.action == "rematch":
            await self.action_rematch()
        elif message.action == "home":
            self.action_home()
        else:
            self.action_board()
