"""Local High Voltage: how many players (you and 1-3 bots), each bot's level, practice.

:func:`start_high_voltage` is what the start screen calls when High Voltage is
chosen: it asks with :class:`HVSetupScreen`, starts the match through the
backend (``backend.start_match(game, "medium,fast", name)``: the
opponent is the bots' levels, comma-separated) and shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Static

from engine.highvoltage.bots import HV_BOT_NAMES, REACTION_SECONDS
from tui.i18n import N_, _, ngettext, pgettext
from tui.widgets.keybar import KeyBar
from tui.widgets.prompt import ActionButton

#: The bots' levels as the setup shows them (the engine's names, worded).
LEVELS = {"slow": N_("slow"), "medium": N_("medium"), "fast": N_("fast")}
DEFAULT_LEVELS = ("medium", "slow", "fast")


@dataclass
class HVSetup:
    """What the setup screen gives back."""

    bots: list[str] = field(default_factory=lambda: ["medium"])
    practice: bool = False

    @property
    def opponent(self) -> str:
        """The bots' levels as the backend's ``opponent`` argument: ``medium,fast``."""
        return ",".join(self.bots)


class SetupRow(Static):
    """One line of the setup: clicking it moves its choice on."""

    class Clicked(Message):
        def __init__(self, row: int) -> None:
            super().__init__()
            self.row = row

    def __init__(self, row: int) -> None:
        super().__init__(classes="setup-row")
        self.row = row

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.row))


class HVSetupScreen(ModalScreen[HVSetup]):
    """Players (2-4: you and bots), each bot's reaction level, and practice mode."""

    BINDINGS = [
        Binding("up", "row(-1)", N_("row"), show=False),
        Binding("down", "row(1)", N_("row"), key_display="↑↓"),
        Binding("left", "change(-1)", N_("change"), show=False),
        Binding("right", "change(1)", N_("change"), key_display="←→"),
        Binding("2", "players(2)", N_("players"), show=False),
        Binding("3", "players(3)", N_("players"), show=False),
        Binding("4", "players(4)", N_("players"), show=False),
        Binding("p", "practice", N_("practice")),
        Binding("enter", "start", N_("start"), key_display="⏎"),
        Binding("escape", "back", N_("back"), key_display="esc"),
    ]
    DEFAULT_CSS = """
    HVSetupScreen { align: center middle; }
    HVSetupScreen #hv-setup-box { width: 62; height: auto; padding: 1 2; border: double $accent; background: $surface; }
    HVSetupScreen #hv-setup-title { text-style: bold; margin-bottom: 1; }
    HVSetupScreen .setup-row { height: 1; }
    HVSetupScreen .setup-row.-current { background: $accent 30%; text-style: bold; }
    HVSetupScreen #hv-setup-note { color: $text-muted; margin-top: 1; }
    HVSetupScreen #hv-setup-buttons { height: 1; align: center middle; margin-top: 1; }
    HVSetupScreen ActionButton { background: $primary-muted; }
    """

    def __init__(self, first_bot: str | None = None, *, practice: bool = False) -> None:
        super().__init__()
        levels = list(DEFAULT_LEVELS)
        if first_bot in HV_BOT_NAMES:
            levels[0] = first_bot
        self.levels = levels  # a level for each of the three possible bots
        self.players = 2
        self.practice = practice
        self.current = 0

    # rows: 0 players, 1..3 bots (only as many as there are), then practice
    @property
    def rows(self) -> list[str]:
        return ["players"] + [f"bot{i}" for i in range(self.players - 1)] + ["practice"]

    def compose(self):
        with Vertical(id="hv-setup-box"):
            yield Static(Text(_("High Voltage: you against bots")), id="hv-setup-title")
            for i in range(5):
                yield SetupRow(i)
            yield Static(
                Text(
                    _("Real time: play a card whose value is the top card's value plus or "
                      "minus its modifier (10 wraps to 1).  Practice marks the cards that fit.")
                ),
                id="hv-setup-note",
            )
            with Horizontal(id="hv-setup-buttons"):
                yield ActionButton(_("start") + " [⏎]", "start")
                yield ActionButton(_("back") + " [esc]", "back")
        yield KeyBar()

    def on_mount(self) -> None:
        self._show()

    def _line(self, name: str) -> Text:
        t = Text(no_wrap=True, overflow="ellipsis")
        if name == "players":
            heading = _("Players")
            t.append(f"{heading:<10}")
            t.append(f"◀ {self.players} ▶", "bold")
            bots = self.players - 1
            t.append("   " + ngettext("you and %(n)d bot", "you and %(n)d bots", bots) % {"n": bots}
                     + "  " + _("(keys 2, 3, 4)"), "dim")
        elif name.startswith("bot"):
            i = int(name[3:])
            heading = _("Bot %(n)d") % {"n": i + 1}
            t.append(f"{heading:<10}")
            for level in HV_BOT_NAMES:
                chosen = level == self.levels[i]
                word = _(LEVELS.get(level, level))
                t.append(f" {word} " if not chosen else f"[{word}]", "bold reverse" if chosen else "dim")
                t.append(" ")
            t.append(" " + _("reacts in about %(seconds)s s") % {"seconds": f"{REACTION_SECONDS[self.levels[i]]:g}"},
                     "dim")
        else:
            heading = _("Practice")
            t.append(f"{heading:<10}")
            t.append("[x] " + pgettext("switch", "on") + " " if self.practice else "[ ] " + pgettext("switch", "off"),
                     "bold")
            t.append("   " + _("mark the cards that fit  (key p)"), "dim")
        return t

    def _show(self) -> None:
        rows = self.rows
        self.current = min(self.current, len(rows) - 1)
        for w in self.query(SetupRow):
            if w.row < len(rows):
                w.display = True
                w.update(self._line(rows[w.row]))
                w.set_class(w.row == self.current, "-current")
            else:
                w.display = False

    def action_row(self, delta: int) -> None:
        self.current = (self.current + delta) % len(self.rows)
        self._show()

    def _change(self, row: int, delta: int) -> None:
        name = self.rows[row]
        if name == "players":
            self.players = (self.players - 2 + delta) % 3 + 2
        elif name.startswith("bot"):
            i = int(name[3:])
            names = list(HV_BOT_NAMES)
            self.levels[i] = names[(names.index(self.levels[i]) + delta) % len(names)]
        else:
            self.practice = not self.practice
        self._show()

    def action_change(self, delta: int) -> None:
        self._change(self.current, delta)

    def action_players(self, n: int) -> None:
        self.players = n
        self._show()

    def action_practice(self) -> None:
        self.practice = not self.practice
        self._show()

    def on_setup_row_clicked(self, message: SetupRow.Clicked) -> None:
        self.current = message.row
        self._change(message.row, 1)

    def result(self) -> HVSetup:
        return HVSetup(bots=self.levels[: self.players - 1], practice=self.practice)

    def action_start(self) -> None:
        self.dismiss(self.result())

    def action_back(self) -> None:
        self.dismiss(None)

    def on_action_button_pressed(self, message: ActionButton.Pressed) -> None:
        if message.action == "start":
            self.action_start()
        else:
            self.action_back()


def start_high_voltage(app: Any, backend: Any, player_name: str, *, game: str, first_bot: str | None = None) -> None:
    """Ask how to play (:class:`HVSetupScreen`), then start the match of ``game`` (the id
    the registry knows High Voltage by) and show it."""
    from tui.games.highvoltage.match import HVMatchScreen

    def go(setup: HVSetup | None) -> None:
        if setup is None:
            return
        handles = backend.start_match(game, setup.opponent, player_name)
        app.push_screen(HVMatchScreen(handles, backend, practice=setup.practice))

    app.push_screen(HVSetupScreen(first_bot), go)
