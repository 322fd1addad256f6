"""Learn Voltage from ``voltage play``'s start screen: a wrong move explained and the position
back, the right one praised, every lesson in turn, then a match against Easy with the coach
showing a hint by itself."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from engine.voltage.lessons import LESSONS, solution
from server import coach as C
from tests.support.wait import until
from tests.tui.helpers import local_app, screen_text
from tui.games.voltage.lesson import LessonScreen
from tui.games.voltage.match import MatchScreen


@pytest.fixture
def coach():
    pool = ThreadPoolExecutor(max_workers=1)
    C.use(C.Coach(executor=pool, hint_iterations=30))
    yield
    C.use(None)
    pool.shutdown(wait=True)


async def test_learn_voltage_from_the_start_screen_to_a_match_with_hints(coach):
    app, backend = local_app(seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("l")
        await until(lambda: isinstance(app.screen, LessonScreen))
        screen = app.screen
        assert "Lesson 1 of 7" in screen_text(app) and "win the green set" in screen_text(app)
        # Green is -: the 3 on your own side gives the set away; explained, and the position comes back.
        start = screen.view
        await pilot.press("1")  # the green 3 is the first card of the hand
        await pilot.pause()
        await pilot.press("d")  # on my side
        await until(lambda: "Try again" in screen.error, what=lambda: screen.error)
        assert "Green ends 6-2" in screen.error and screen.view == start
        for n in range(len(LESSONS)):
            assert screen.lesson_handle.index == n
            for action in solution(LESSONS[n]):
                await screen.submit(action)
            await until(lambda: screen.lesson_handle.solved)
            await pilot.pause()
            assert "✓" in screen_text(app)
            await pilot.press("n")
        await until(lambda: type(app.screen) is MatchScreen)
        match = app.screen
        assert match.coach_on and backend.matches and backend.matches[-1].seats[1].bot == "easy"
        await until(lambda: match.view.my_turn)
        await until(lambda: match.hint_line.startswith("Hint:"), what=lambda: match.hint_line)
        assert backend.matches[-1].hinted
    backend.close()


async def test_the_lobby_offers_learn_voltage_and_its_match_against_easy(tmp_path, coach):
    from server.backend import SSHBackend
    from server.lobby.core import Lobby
    from server.store.db import Store
    from tests.server.test_commands import KA
    from tui.app import make_app
    from tui.widgets.menu import Menu

    with Store.open(tmp_path) as store:
        store.upsert_player(KA, "Alice")
        lobby = Lobby(store=store, seed=1)
        backend = SSHBackend(lobby, lobby.connect(KA, "alice"))
        app = make_app(backend, player_name="alice")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            await pilot.pause()
            menu = app.screen.query_one("#choices", Menu)
            assert "learn:voltage" in [item for item, _text in menu.items]
            menu.post_message(Menu.Chosen(menu, "learn:voltage"))
            await until(lambda: isinstance(app.screen, LessonScreen))
            screen = app.screen
            screen.lesson_handle.load(len(LESSONS) - 1)
            screen.refresh_match()
            for action in solution(LESSONS[-1]):
                await screen.submit(action)
            await pilot.press("n")
            await until(lambda: type(app.screen) is MatchScreen)
            assert app.screen.coach_on and app.screen.viewer.match.seats[1].bot == "easy"
            for m in list(lobby.matches.values()):
                m.match.close()
