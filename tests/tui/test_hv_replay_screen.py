"""The High Voltage replay screen: a finished match from the store, stepped through by
keys, showing the top card, the counts, the feed and (for a player) their own hand as
they were at each step."""

from __future__ import annotations

import pytest

from engine import highvoltage as H
from server.replay import Replay
from server.store import Store
from tests.server.test_hv_replay_model import C, store_hv_match
from tui.app import make_app
from tui.screens.replay import HVReplayScreen, ReplayBackend
from tui.widgets.hv_card import HVTopCard
from tui.widgets.hv_table import HVFeed, HVHand
from tui.widgets.prompt import ActionButton


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    d = tmp_path_factory.mktemp("hv-replay")
    with Store.open(d) as store:
        mid, _, _ = store_hv_match(store)
    ro = Store.open(d, readonly=True)
    yield ro, mid
    ro.close()


def agrees(screen: HVReplayScreen, replay: Replay, step: int) -> None:
    view = replay.view(step)
    assert screen.step_no == step and screen.view == view
    top = screen.query_one(HVTopCard)
    assert (top.face, top.top_no) == (view.top, view.top_no)
    assert screen.query_one(HVFeed).lines == replay.lines(step)
    hand = screen.query_one(HVHand)
    if view.hand is None:
        assert [f for f in hand.slots if f is not None] == []
    else:
        assert sorted(f for f in hand.slots if f is not None) == sorted(view.hand)
    prompt = str(screen.query_one("#hv-prompt").render())
    assert screen.step_text()[:20] in prompt
    assert str(screen.query_one("#replay-bar").render()) == str(screen.bar_text())


async def test_step_through_rounds_as_a_spectator(stored):
    store, mid = stored
    replay = Replay.load(store, mid)
    app = make_app(ReplayBackend(replay))
    app.results_delay = 0.0  # a live match's end would open the results at once
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HVReplayScreen)
        assert not screen.query(ActionButton)  # nothing to press in a replay
        agrees(screen, replay, 0)
        bar = str(screen.bar_text())
        assert "REPLAY" in bar and "Alice v Bob v Carol" in bar and "round 1 of" in bar and "spectator" in bar
        await pilot.press("right", "right", "right")
        await pilot.pause()
        agrees(screen, replay, 3)
        await pilot.press("left")
        await pilot.pause()
        agrees(screen, replay, 2)
        await pilot.press("right_square_bracket")  # the next round: just after the first flip
        await pilot.pause()
        agrees(screen, replay, replay.set_steps[0])
        assert screen.has_class("-counting") and "round 2 of" in str(screen.bar_text())
        assert "stuck" in str(screen.query_one("#hv-countdown").render())
        await pilot.press("pagedown", "pageup")
        await pilot.pause()
        agrees(screen, replay, replay.set_steps[0])
        await pilot.press("end")
        await pilot.pause()
        agrees(screen, replay, replay.last)
        await pilot.pause()
        assert screen.view.over and app.screen is screen  # no results panel: the end is a step
        # The play keys do nothing here.
        await pilot.press("home", "1", "d", "s")
        await pilot.pause()
        agrees(screen, replay, 0)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code in (0, None)


async def test_a_player_sees_their_own_hand_once_revealed(stored):
    store, mid = stored
    replay = Replay.load(store, mid, viewer=C)
    app = make_app(ReplayBackend(replay))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert "as Carol" in str(screen.bar_text())
        for step in (0, 1, 9, replay.set_steps[0] + 1):
            screen.go(step)
            await pilot.pause()
            agrees(screen, replay, step)
            want = tuple(H.CARD_FACE[c] for c in replay.state(step).hands[2])
            view = replay.view(step)
            assert view.hand == (None if view.counting_down else want)
