"""A lobby screen pays for what it shows (a real lobby and backend, driven by a Pilot):
with 300 players online it builds only the rows of its window, an arrival moves one row
and redraws at most a window, a hidden list is not drawn until it shows again, and the
window follows the cursor down a long list.  Counted through the lists' seams (lines
built, renders), never timed."""

from __future__ import annotations

from server.backend import SSHBackend
from server.lobby.core import Lobby
from tests.support.wait import until
from tests.tui.test_lobby_screen import lines_of
from tui.app import make_app
from tui.screens.lobby import LobbyScreen
from tui.widgets.rows import RowMenu


def crowded_lobby(n: int) -> tuple[Lobby, SSHBackend]:
    lobby = Lobby(seed=1)
    lobby.notify_delay = 0.01
    for i in range(n):
        lobby.claim_name(lobby.connect(None, f"u{i}"), f"player{i:03}")
    return lobby, SSHBackend(lobby, lobby.connect(None, "alice"))


def arrive(lobby: Lobby, name: str) -> None:
    lobby.claim_name(lobby.connect(None, name.lower()), name)


async def test_a_lobby_of_300_builds_only_the_rows_it_shows_and_an_arrival_at_most_a_window() -> None:
    lobby, backend = crowded_lobby(300)
    app = make_app(backend, player_name="alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")  # the suggested name
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        await until(lambda: any("Online (301)" in line for line in lines_of(app)))
        players = screen.query_one("#players", RowMenu)
        rows = screen.lists.players
        window = players.content_size.height
        assert 0 < window < 20 and len(rows) == 301
        assert rows.built <= players.renders * window  # (not 301 a render)
        assert any("player000" in line for line in lines_of(app))

        # One arrives at the top of the list: one row moves in, a window at most is built again.
        built, renders = rows.built, players.renders
        version = screen.lists.version
        arrive(lobby, "aaron")
        await until(lambda: any("Online (302)" in line for line in lines_of(app)))
        assert any("aaron" in line for line in lines_of(app))
        deltas = backend.lobby_changes(version or 0)
        assert deltas is not None and sum(len(d.players) + len(d.gone) for d in deltas) == 1
        assert rows.built - built <= (players.renders - renders) * window

        # One arrives far below the window: none of its rows changes, only the count.
        built, renders = rows.built, players.renders
        arrive(lobby, "zz-last")
        await until(lambda: any("Online (303)" in line for line in lines_of(app)))
        assert rows.built - built <= (players.renders - renders) * window
        assert not any("zz-last" in line for line in lines_of(app))
    lobby.presence.close()


async def test_a_hidden_list_is_not_drawn_until_it_shows_again() -> None:
    lobby, backend = crowded_lobby(40)
    app = make_app(backend, player_name="alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        await until(lambda: any("Online (41)" in line for line in lines_of(app)))
        await pilot.press("c")  # the chat, in place of the lists
        await pilot.pause()
        players = screen.query_one("#players", RowMenu)
        renders, built = players.renders, screen.lists.players.built
        for i in range(5):
            arrive(lobby, f"aa{i}")
        await until(lambda: len(screen.lists.players) == 46)  # (the lists took the arrivals)
        await pilot.pause()
        assert players.renders == renders and screen.lists.players.built == built
        await pilot.press("escape", "o")  # the lists back
        await until(lambda: any("Online (46)" in line for line in lines_of(app)))
        # (the window follows the cursor, still on the player it was on, below the arrivals)
        assert players.renders > renders and any("aa4" in line for line in lines_of(app))
        assert any("> player000" in line for line in lines_of(app))
    lobby.presence.close()


async def test_the_window_follows_the_cursor_down_a_long_list() -> None:
    lobby, backend = crowded_lobby(60)
    app = make_app(backend, player_name="alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        await until(lambda: any("Online (61)" in line for line in lines_of(app)))
        await pilot.press("o")
        for _ in range(30):
            await pilot.press("down")
        await pilot.pause()
        assert any("> player030" in line for line in lines_of(app))
        assert not any("player000" in line for line in lines_of(app))
        await pilot.press("home")
        await pilot.pause()
        assert any("> player000" in line for line in lines_of(app))
    lobby.presence.close()
