"""Whole matches through the screens: by keys alone, and by mouse clicks alone."""

import time

from tests.support.wait import until
from tests.tui.helpers import local_app, match_screen, play_match
from tui.games.voltage.match import MatchScreen
from tui.games.voltage.results import ResultsScreen
from tui.screens.start import StartScreen


async def test_a_full_match_by_keys_against_a_seeded_bot():
    app, backend = local_app(seed=19)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        await pilot.press("enter")  # the defaults: Voltage against a medium bot
        await until(lambda: isinstance(app.screen, MatchScreen))
        assert app.screen.names[1] == "Medium bot"
        t0 = time.monotonic()
        n = await play_match(pilot, app, by="keys", seed=5)
        assert isinstance(app.screen, ResultsScreen)
        m = match_screen(app)
        assert m is not None and m.view.over and max(m.view.scores) == 4 or m.view.reason
        assert n > 5, n
        print(f"{n} actions by keys in {time.monotonic() - t0:.1f}s")
        # back to the start screen with b
        await pilot.press("b")
        await until(lambda: isinstance(app.screen, StartScreen))
    backend.close()


async def test_a_full_match_by_mouse_clicks_alone():
    app, backend = local_app(seed=24)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.click("#button-start")
        await until(lambda: isinstance(app.screen, MatchScreen))
        n = await play_match(pilot, app, by="mouse", seed=4)
        assert isinstance(app.screen, ResultsScreen)
        assert n > 5
        # rematch by clicking: a fresh match screen against the same bot
        old = match_screen(app)
        await pilot.click("#button-rematch")
        await until(lambda: isinstance(app.screen, MatchScreen) and app.screen is not old)
        assert app.screen.names == old.names
    backend.close()
