"""The start screen: choose the game and the opponent; Enter alone starts the defaults.

The opponents listed are the chosen game's (``backend.opponents(game)``): choosing another
game lists its own, keeping the opponent chosen if that game has it too."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static

from tui import words as W
from tui.i18n import N_, _
from tui.ports import HomeBackend
from tui.screens.base import SizedScreen, TooSmall
from tui.text import TERMINAL_FG
from tui.widgets.keybar import KeyBar
from tui.widgets.prompt import ActionButton

LOGO = (
    "█ █ █▀█ █   ▀█▀ ▄▀█ █▀▀ █▀▀",
    "▀▄▀ █▄█ █▄▄  █  █▀█ █▄█ ██▄",
)


def logo() -> Text:
    t = Text(justify="center")
    for i, row in enumerate(LOGO):
        if i:
            t.append("\n")
        for j, letter in enumerate(row[k : k + 4] for k in range(0, len(row), 4)):
            t.append(letter, style=f"bold {TERMINAL_FG[j % 4]}")
    return t


class ChoiceRow(Static):
    """One line of a choice list: a marker, a label and a short description."""

    class Picked(Message):
        def __init__(self, column: str, index: int) -> None:
            super().__init__()
            self.column = column
            self.index = index

    def __init__(self, column: str, index: int, label: str, description: str, *, enabled: bool = True) -> None:
        super().__init__(classes="choice" + ("" if enabled else " -disabled"))
        self.column, self.index = column, index
        self.label, self.description, self.enabled = label, description, enabled

    def show(self, selected: bool, focused: bool) -> None:
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append("▶ " if selected else "  ", style="bold")
        t.append(f"{self.label:<14}", style="bold" if self.enabled else "dim")
        if self.description:
            t.append(f" {self.description}", style="dim")
        self.set_class(selected, "-selected")
        self.set_class(selected and focused, "-focused")
        self.update(t)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if self.enabled:
            self.post_message(self.Picked(self.column, self.index))


class StartScreen(SizedScreen):
    """Game and opponent; the defaults (Voltage against a medium bot) start with Enter alone."""

    BINDINGS = [
        Binding("enter", "start", N_("start"), key_display="⏎"),
        Binding("up", "move(-1)", "choose", show=False),
        Binding("down", "move(1)", N_("choose"), key_display="↑↓"),
        Binding("left", "column(-1)", "column", show=False),
        Binding("right", "column(1)", "column", show=False),
        Binding("tab", "column(1)", N_("game/opponent"), key_display="tab"),
        Binding("t", "theme", N_("light/dark")),
        Binding("l", "learn", N_("learn Voltage")),
    ]
    CSS = """
    StartScreen { align: center middle; }
    StartScreen #start { width: 76; height: auto; }
    StartScreen #columns { layout: vertical; }
    StartScreen #logo { width: 1fr; margin-bottom: 0; text-align: center; }
    StartScreen #tagline { width: 1fr; content-align: center middle; color: $text-muted; margin-bottom: 1; }
    StartScreen #columns { height: auto; }
    StartScreen .column { width: 1fr; height: auto; border: round $foreground 30%; padding: 0 1; }
    StartScreen .column.-focused { border: heavy $accent; }
    StartScreen #game-column { width: 1fr; }
    StartScreen .choice { height: 1; }
    StartScreen .choice.-selected { background: $boost; }
    StartScreen .choice.-focused { background: $accent 30%; text-style: bold; }
    StartScreen .choice.-disabled { color: $text-disabled; }
    StartScreen #start-row { height: 1; align: center middle; margin-top: 1; }
    StartScreen #start-hint { width: 1fr; content-align: center middle; color: $text-muted; margin-top: 1; }
    StartScreen ActionButton { background: $accent; color: $text; }
    StartScreen.-narrow #start, StartScreen.-short #start { display: none; }
    StartScreen.-narrow TooSmall, StartScreen.-short TooSmall { display: block; }
    """

    def __init__(self, backend: HomeBackend) -> None:
        super().__init__()
        self.backend = backend
        # (id, label, description, playable): the backend's ids, worded here
        self.games: list[tuple[str, str, str, bool]] = [(gid, *W.game_choice(gid), ok) for gid, ok in backend.games()]
        self.game = next((i for i, g in enumerate(self.games) if g[3]), 0)
        self.opponents: list[tuple[str, str, str]] = []
        self.opponent = 0
        self._list_opponents(getattr(backend, "default_opponent", "medium"))
        self.column = "opponent"

    def _list_opponents(self, keep: str) -> None:
        """The chosen game's opponents, worded; the one chosen is ``keep`` if listed, else the default."""
        gid = self.games[self.game][0] if self.games else ""
        self.opponents = [(oid, *W.opponent_choice(oid, label, desc))
                          for oid, label, desc in self.backend.opponents(gid)]
        ids = [o[0] for o in self.opponents]
        default = getattr(self.backend, "default_opponent", "medium")
        self.opponent = ids.index(keep) if keep in ids else ids.index(default) if default in ids else 0

    def _opponent_rows(self) -> list[ChoiceRow]:
        return [ChoiceRow("opponent", i, label, desc.split(" (")[0])
                for i, (_oid, label, desc) in enumerate(self.opponents)]

    def compose(self):
        yield TooSmall()
        with Vertical(id="start"):
            yield Static(logo(), id="logo")
            yield Static(_("card games in the terminal"), id="tagline")
            with Vertical(id="columns"):
                with Vertical(id="game-column", classes="column"):
                    for i, (_gid, label, desc, ok) in enumerate(self.games):
                        yield ChoiceRow("game", i, label, desc, enabled=ok)
                with Vertical(id="opponent-column", classes="column"):
                    yield from self._opponent_rows()
            with Horizontal(id="start-row"):
                yield ActionButton(_("start the match [⏎]"), "start")
            yield Static(_("? rules at any time   ·   mouse: click a choice, then start"), id="start-hint")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#game-column").border_title = _("game")
        self.query_one("#opponent-column").border_title = _("opponent")
        self._show()

    def _show(self) -> None:
        for row in self.query(ChoiceRow):
            selected = row.index == (self.game if row.column == "game" else self.opponent)
            row.show(selected, row.column == self.column)
        self.query_one("#game-column").set_class(self.column == "game", "-focused")
        self.query_one("#opponent-column").set_class(self.column == "opponent", "-focused")

    def _choose_game(self, index: int) -> None:
        """Choose the game at ``index``: its own opponents are listed."""
        if index == self.game:
            return
        kept = self.opponents[self.opponent][0] if self.opponents else ""
        self.game = index
        before = [o[0] for o in self.opponents]
        self._list_opponents(kept)
        if [o[0] for o in self.opponents] != before and self.is_mounted:
            column = self.query_one("#opponent-column")
            column.remove_children()
            column.mount_all(self._opponent_rows())

    def action_move(self, delta: int) -> None:
        if self.column == "game":
            ok = [i for i, g in enumerate(self.games) if g[3]]
            if ok:
                pos = ok.index(self.game) if self.game in ok else 0
                self._choose_game(ok[(pos + delta) % len(ok)])
        else:
            self.opponent = (self.opponent + delta) % len(self.opponents)
        self._show()

    def action_column(self, delta: int) -> None:
        self.column = "game" if self.column == "opponent" else "opponent"
        self._show()

    def action_theme(self) -> None:
        self.app.theme = "textual-light" if self.app.current_theme.dark else "textual-dark"

    def on_choice_row_picked(self, message: ChoiceRow.Picked) -> None:
        self.column = message.column
        if message.column == "game":
            self._choose_game(message.index)
        else:
            self.opponent = message.index
        self._show()

    def on_action_button_pressed(self, message: ActionButton.Pressed) -> None:
        self.action_start()

    def action_learn(self) -> None:
        """The first lesson of the chosen game, or of the first game that has one."""
        from tui.games.registry import GAMES

        chosen = self.games[self.game][0]
        learn = GAMES[chosen].learn if chosen in GAMES else None
        learn = learn or next((g.learn for g in GAMES.values() if g.learn is not None), None)
        if learn is not None:
            learn(self.app, self.backend)

    def action_start(self) -> None:
        """Start the chosen game against the chosen opponent: the game's own start hook
        (:mod:`tui.games.registry`) starts it, or first asks how."""
        from tui.games.registry import screens

        game = self.games[self.game][0]
        opponent = self.opponents[self.opponent][0]
        player = getattr(self.app, "player_name", "You")
        screens(game).start(self.app, self.backend, player, opponent)
