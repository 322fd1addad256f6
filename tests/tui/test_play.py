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


async def test_enter_draws_two_when_drawing_is_the_only_move():
    """Enter picks the highlighted choice, also when that is the draw pile alone."""
    import random

    from engine.voltage import rules as V
    from server.host.common import Seat
    from server.host.voltage import Match
    from tests.tui.helpers import FixedBackend
    from tui.app import make_app
    from tui.pacing import FAST

    m = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=0, bot_delay=0)
    rng = random.Random(0)
    for _ in range(44):  # (a seeded walk to a turn of Ann's with an empty hand)
        seat = m.state.to_move
        await m.handle(seat).submit(rng.choice(m.view(seat).legal))
    assert m.view(0).legal == (V.DRAW,) and m.view(0).hand == ()
    app = make_app(FixedBackend([m.handle(0)]), player_name="Ann", pacing=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: match_screen(app) is not None and match_screen(app).is_mounted)
        prompt = match_screen(app).query_one("PromptBar")
        assert "draw two" in prompt.render().plain
        await pilot.press("enter")
        await until(lambda: len(m.actions) == 45, what="Enter to draw two")
        assert m.actions[-1] == V.DRAW
    m.close()


async def test_a_two_card_turn_keeps_the_keys_of_the_cards_left():
    """After the first card of a turn, the others keep their places and their keys: the 4
    read before the first card still picks that card, and 3 (now a gap) picks nothing."""
    from engine.voltage import rules as V
    from engine.voltage.cards import Card
    from server.host.common import Seat
    from server.host.voltage import Match
    from tests.tui.helpers import FixedBackend
    from tui.app import make_app
    from tui.games.voltage.hand import HandView
    from tui.pacing import FAST

    m = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=0, bot_delay=0)
    first, fourth = Card(0), Card(8, transformer=True)
    assert m.view(0).my_turn and m.view(0).hand[2] == first and m.view(0).hand[3] == fourth
    app = make_app(FixedBackend([m.handle(0)]), player_name="Ann", pacing=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: match_screen(app) is not None and match_screen(app).is_mounted)
        screen = match_screen(app)
        hand = screen.query_one(HandView)
        assert [s.card for s in hand.slots][2:4] == [first, fourth]
        await pilot.press("3", "down")  # the 0 on my side of its terminal
        await until(lambda: screen.view.phase == "second", what=lambda: screen.step)
        assert m.actions[-1] == V.Play(first, 0, 0)
        await until(lambda: hand.slots[2].card is None, what=lambda: hand.slots)
        assert hand.slots[3].card == fourth and hand.slots[3].key == "4"  # where it was, keyed as it was
        await pilot.press("3")  # a gap now: nothing chosen
        await pilot.pause()
        assert screen.sel.card is None
        await pilot.press("4")
        await until(lambda: screen.sel.card == fourth, what=lambda: screen.step)
    m.close()


def test_the_hand_keeps_its_places_and_closes_up_between_turns():
    from engine.voltage.cards import Card
    from tui.games.voltage.hand import keep_places

    a, b, c, d = Card(1), Card(2), Card(3), Card(3)
    assert keep_places((a, b, c)) == (0, 1, 2, None, None, None)  # a new turn: in order
    assert keep_places((a, c, d), (a, b, c, d)) == (0, None, 1, 2, None, None)  # b played: its gap stays
    assert keep_places((a, c, d, b), (a, None, c, d)) == (0, 3, 1, 2, None, None)  # a drawn card fills it
