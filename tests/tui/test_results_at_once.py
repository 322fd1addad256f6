"""The results open a moment after the match ends (the last move is seen first), and a
key pressed in that moment opens them at once instead of being lost; the match screen
only says the match ended, and the app opens the game's results."""

from __future__ import annotations

from dataclasses import replace

from textual.app import App

from server.local import LocalBackend
from tests.support.wait import until
from tests.tui.helpers import local_app, match_screen
from tui.dialogs.confirm import ConfirmScreen
from tui.games.voltage.match import MatchScreen
from tui.games.voltage.results import ResultsScreen
from tui.pacing import FAST
from tui.screens.base import PlayScreen


async def resign_a_match(app, pilot) -> None:
    """From the start screen: a match begun (Enter), then resigned (ctrl+r, y)."""
    await pilot.pause()
    await pilot.press("enter")
    await until(lambda: isinstance(app.screen, MatchScreen))
    await pilot.press("ctrl+r")
    await until(lambda: isinstance(app.screen, ConfirmScreen))
    await pilot.press("y")


async def test_a_key_during_the_pause_after_the_end_opens_the_results_at_once():
    # results_delay: far longer than the test, so only the key can open them
    app, backend = local_app(seed=8, pacing=replace(FAST, results_delay=60.0))
    async with app.run_test(size=(80, 24)) as pilot:
        await resign_a_match(app, pilot)
        await until(lambda: match_screen(app).view.over)
        await pilot.pause()
        assert isinstance(app.screen, MatchScreen)  # the final board shows first
        await pilot.press("x")  # any key
        await until(lambda: isinstance(app.screen, ResultsScreen), what="the results at once")
        # The key opened them and did nothing else: a second key goes to the results.
        await pilot.press("v")
        await until(lambda: isinstance(app.screen, MatchScreen))
    backend.close()


async def test_the_same_in_high_voltage():
    from engine.highvoltage import rules as H
    from tui.games.highvoltage.match import HVMatchScreen
    from tui.games.highvoltage.results import HVResultsScreen

    app, backend = local_app(seed=5, pacing=replace(FAST, results_delay=60.0))
    backend.hv_options = dict(countdown_seconds=0.02, bot_speed=50.0)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        handles = backend.start_match("high-voltage", "fast", "You")
        app.push_screen(HVMatchScreen(handles, backend))
        await until(lambda: isinstance(app.screen, HVMatchScreen) and app.screen.view.can_act)
        await handles[0].match.submit(1, H.Resign(1))
        await until(lambda: app.screen.view.over)
        await pilot.pause()
        assert isinstance(app.screen, HVMatchScreen)
        await pilot.press("x")
        await until(lambda: isinstance(app.screen, HVResultsScreen), what="the results at once")
    backend.close()


async def test_the_match_screen_says_the_match_ended_and_whoever_composes_the_screens_opens_the_results() -> None:
    """The match screen names no results screen (its game's is the registry's): it posts
    ``PlayScreen.Ended``, which an app composing its own screens receives in its place."""
    backend = LocalBackend(seed=8, bot_delay=0)
    handles = backend.start_match("voltage", "random", "Ann")
    ended: list[PlayScreen.Ended] = []

    class Host(App[None]):
        pacing = FAST

        def on_mount(self) -> None:
            self.push_screen(MatchScreen(handles, backend))

        def on_play_screen_ended(self, message: PlayScreen.Ended) -> None:
            ended.append(message)

    app = Host()
    async with app.run_test(size=(80, 24)):
        await until(lambda: isinstance(app.screen, MatchScreen))
        await handles[0].resign()
        await until(lambda: bool(ended), what="the match's end, as a message")
        assert ended[0].game == "voltage" and ended[0].view.over and ended[0].screen is app.screen
        assert isinstance(app.screen, MatchScreen)  # no results screen of its own making
    backend.close()


async def test_the_results_take_their_keys_while_the_rating_change_is_still_being_asked():
    # a backend slow to say the rating change (a busy host, a wire): the results' keys work meanwhile
    import asyncio

    app, backend = local_app(seed=8, pacing=replace(FAST, results_delay=0.0))
    answered = asyncio.Event()
    asked: list[object] = []

    async def slow_rating_change(handles):
        asked.append(handles)
        await answered.wait()
        return None

    backend.rating_change = slow_rating_change
    async with app.run_test(size=(80, 24)) as pilot:
        await resign_a_match(app, pilot)
        await until(lambda: isinstance(app.screen, ResultsScreen) and asked, what="the results, asking")
        await pilot.press("v")
        await until(lambda: isinstance(app.screen, MatchScreen), what="the board, the results closed by their key")
        answered.set()
    backend.close()
