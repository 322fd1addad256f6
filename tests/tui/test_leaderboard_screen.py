"""The leaderboard screen offers another game (←→) only when there is another game with
rated players: a key is shown only when it works."""

from __future__ import annotations

from types import SimpleNamespace

from tests.support.wait import until
from tui.app import make_app
from tui.screens.leaderboard import LeaderboardScreen
from tui.widgets.keybar import KeyBar


class Board:
    online = True

    def __init__(self, games: list[tuple[str, str]]) -> None:
        self.games = games

    def home_screen(self) -> LeaderboardScreen:
        return LeaderboardScreen(self)

    async def leaderboard_games(self) -> list[tuple[str, str]]:
        return self.games

    async def leaderboard(self, game: str, n: int = 20) -> list[SimpleNamespace]:
        return [SimpleNamespace(place=1, name=f"best at {game}", rating=1100, games=3, history=[1000, 1100], me=False)]


async def test_other_game_is_offered_only_when_another_game_has_rated_players():
    for games, offered in (([("voltage", "Voltage")], False),
                           ([("voltage", "Voltage"), ("high-voltage", "High Voltage")], True)):
        app = make_app(Board(games))
        async with app.run_test(size=(80, 24)) as pilot:
            await until(lambda app=app: isinstance(app.screen, LeaderboardScreen)
                             and "best at voltage" in str(app.screen.query_one("#lb-rows").query("Static").first()
                                                          .render()))
            screen = app.screen
            keys = screen.query_one(KeyBar).text.plain
            assert ("other game" in keys) == offered, keys
            assert ("←/→" in str(screen.query_one("#lb-title").render())) == offered
            await pilot.press("right")
            await pilot.pause()
            assert screen.game == ("high-voltage" if offered else "voltage")
