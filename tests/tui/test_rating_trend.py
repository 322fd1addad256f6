""""Your matches" shows each game's rating over the last rated matches as a sparkline."""

from __future__ import annotations

from server.backend import SSHBackend
from server.lobby.core import Lobby
from server.store.db import Store
from tests.server.test_commands import KA, KB, finished_match
from tui.app import make_app
from tui.text import sparkline
from tui.widgets.menu import Menu


def test_a_sparkline_spans_low_to_high_and_keeps_the_last_values():
    assert sparkline([1000, 1010, 1020], 10) == "▁▅█"
    assert sparkline(range(100), 5) == "▁▃▅▆█" and sparkline([], 5) == "" and sparkline([7, 7], 3) == "▁▁"


async def test_your_matches_shows_a_rating_sparkline_per_game(tmp_path):
    with Store.open(tmp_path) as store:
        store.upsert_player(KA, "Alice")
        store.upsert_player(KB, "Bob")
        for seed in (11, 12, 13, 14):
            finished_match(store, seed)
        lobby = Lobby(store=store, seed=1)
        backend = SSHBackend(lobby, lobby.connect(KA, "alice"))
        points = [p.shown for p in store.rating_history(KA, "voltage") if p.match_id is not None]
        assert await backend.rating_trends() == [("Voltage", tuple(points))] and len(points) == 4
        app = make_app(backend, player_name="alice")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            await pilot.pause()
            subtitle = str(app.screen.query_one("#history", Menu).border_subtitle)
            assert subtitle == "Voltage " + sparkline(points, 50)
