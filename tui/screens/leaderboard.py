"""The leaderboard: the top players of a game, each with their rating history as a
sparkline.  ``←``/``→`` (or Tab) switch games (when another game has rated players: the
key shows only then), ``q``/Esc go back.

It awaits the backend's ``leaderboard_games()`` (``(game, title)`` pairs) and
``leaderboard(game)`` (:class:`tui.ports.LeaderEntry`: ``place``, ``name``, ``rating``,
``games``, ``history`` and ``me``); names are shown as plain text, never markup.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Sparkline, Static

from engine.registry import GAMES as REGISTERED
from tui import words as W
from tui.i18n import N_, _
from tui.ports import LobbyBackend
from tui.text import safe
from tui.widgets.keybar import KeyBar

SPARK_WIDTH = 24


class LeaderboardScreen(Screen):
    BINDINGS = [
        Binding("left", "game(-1)", "game", show=False),
        Binding("right,tab", "game(1)", N_("other game"), key_display="←→"),
        Binding("q,escape", "back", N_("back"), key_display="q"),
    ]

    DEFAULT_CSS = """
    LeaderboardScreen { layout: vertical; }
    LeaderboardScreen #lb-title { height: 1; background: $accent; color: $text; padding: 0 1; }
    LeaderboardScreen #lb-head { height: 1; padding: 0 1; text-style: bold; margin-top: 1; }
    LeaderboardScreen #lb-rows { height: 1fr; padding: 0 1; }
    LeaderboardScreen .lb-row { height: 1; }
    LeaderboardScreen .lb-row.-me { background: $foreground 8%; text-style: bold; }
    LeaderboardScreen .lb-text { width: 46; height: 1; }
    LeaderboardScreen .lb-spark { height: 1; max-width: 24; }
    LeaderboardScreen #lb-empty { padding: 1 2; color: $text-muted; }
    """

    def __init__(self, backend: LobbyBackend, game: str | None = None) -> None:
        super().__init__()
        self.backend = backend
        self.wanted = game
        self.games: list[tuple[str, str]] = [(first.id, first.title) for first in list(REGISTERED.values())[:1]]
        self.index = 0
        self.entries: list[Any] = []

    @property
    def game(self) -> str:
        return self.games[self.index][0]

    def compose(self):
        yield Static("", id="lb-title")
        yield Static(self._head(), id="lb-head")
        yield VerticalScroll(id="lb-rows")
        yield KeyBar()

    @staticmethod
    def _columns() -> tuple[str, str, str, int, int]:
        """The heads of the player, rating and games columns, and the widths of the last two
        (a language's word may be wider than the numbers under it)."""
        player, rating, games = _("Player"), _("Rating"), _("Games")
        return player, rating, games, max(6, len(rating)), max(5, len(games))

    def _head(self) -> Text:
        player, rating, games, rating_w, games_w = self._columns()
        return Text(f"{'#':>3}  {player:<20}  {rating:>{rating_w}}  {games:>{games_w}}   " + _("History"))

    async def on_mount(self) -> None:
        try:
            self.games = list(await self.backend.leaderboard_games()) or self.games
        except Exception:  # never crash on a storage (or a host's) problem: the first game's board
            pass
        ids = [g for g, _ in self.games]
        self.index = ids.index(self.wanted) if self.wanted in ids else 0
        await self.show_game()

    async def show_game(self) -> None:
        game, title = self.games[self.index]
        others = "   ".join(t for g, t in self.games if g != game)
        head = Text(no_wrap=True)
        head.append(_("Leaderboard: %(title)s") % {"title": title}, style="bold")
        if others:
            head.append(f"    (←/→: {others})", style="dim")
        self.query_one("#lb-title", Static).update(head)
        try:
            self.entries = list(await self.backend.leaderboard(game))
        except Exception as error:  # never crash on a storage problem
            self.entries = []
            rows_error = _("the leaderboard could not be read: %(error)s") % {"error": W.refusal(error)}
        else:
            rows_error = ""
        rows = self.query_one("#lb-rows", VerticalScroll)
        await rows.remove_children()
        if not self.entries:
            link = self.backend.ssh_command("link", tty=False)
            await rows.mount(Static(Text(rows_error or W.no_rated_players(link)), id="lb-empty"))
            return
        widgets = []
        *_heads, rating_w, games_w = self._columns()
        for e in self.entries:
            t = Text(no_wrap=True, overflow="ellipsis")
            t.append(f"{e.place:>3}  ")
            name = safe(e.name)[:20]
            t.append(f"{name:<20}")
            t.append(f"  {e.rating:>{rating_w}}  {e.games:>{games_w}}   ")
            points = list(e.history)[-SPARK_WIDTH:]
            spark = Sparkline(points or [e.rating], classes="lb-spark")
            spark.styles.width = max(1, len(points))
            row = Horizontal(Static(t, classes="lb-text"), spark, classes="lb-row" + (" -me" if e.me else ""))
            widgets.append(row)
        await rows.mount_all(widgets)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "game":  # (shown, and working, only when there is another game to see)
            return len(self.games) > 1
        return True

    async def action_game(self, delta: int) -> None:
        if len(self.games) > 1:
            self.index = (self.index + delta) % len(self.games)
            await self.show_game()

    def action_back(self) -> None:
        self.app.pop_screen()
