"""The High Voltage replay screen: a finished match from the store, stepped through by
keys, showing the top card, the counts, the feed and every hand as they were at each
step (or one seat's own view, ``s``)."""

from __future__ import annotations

import pytest

from engine.highvoltage import rules as H
from server.replay import Replay
from server.store.db import Store
from tests.server.test_hv_replay_model import C, store_hv_match
from tests.support.words import lines
from tui.app import make_app
from tui.games.highvoltage.card import HVTopCard, chip
from tui.games.highvoltage.replay import HVReplayScreen
from tui.games.highvoltage.table import HVFeed, HVHand, feed_line
from tui.pacing import FAST
from tui.screens.replay import ReplayBackend
from tui.widgets.prompt import ActionButton


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    d = tmp_path_factory.mktemp("hv-replay")
    with Store.open(d) as store:
        mid, _, _ = store_hv_match(store)
    ro = Store.open(d, readonly=True)
    yield ro, mid
    ro.close()


def hands_panel(screen: HVReplayScreen):
    """Every hand, face up (tui.games.highvoltage.replay.OpenHands), if the screen has it."""
    found = screen.query("#replay-hands")
    assert found, "no panel of every hand"
    return found.first()


def agrees(screen: HVReplayScreen, replay: Replay, step: int, seat: int | None = None) -> None:
    """The screen shows ``step`` with every hand (``seat`` None) or as ``seat`` saw it."""
    view = replay.view(step) if seat is None else replay.seat_view(step, seat)
    assert screen.step_no == step and screen.view == view
    top = screen.query_one(HVTopCard)
    assert (top.face, top.top_no) == (view.top, view.top_no)
    feed = screen.query_one(HVFeed)
    assert feed.lines == lines("high-voltage", replay.entries(step), replay.names)
    # The feed is on screen at every step, a countdown's included: its newest line shows.
    assert feed.display and feed.region.height >= 3
    newest = feed_line(feed.lines[-1], newest=True).plain
    assert newest[:20] in str(feed.render())
    hand = screen.query_one(HVHand)
    if seat is None:  # every seat's cards, each as the feed's chip, under its name
        assert not hand.display
        panel = hands_panel(screen)
        assert panel.display and panel.region.height >= 1 + view.players
        text = str(panel.render())
        rows = panel.rows(panel.content_size.width)
        for s, cards in enumerate(replay.hands(step)):
            assert replay.names[s] in text
            row = next(r.plain for r in rows if replay.names[s] in r.plain)
            assert all(chip(f).plain in text for f in cards) and f" {len(cards)} " in row
    elif view.hand is None:
        assert hand.display and [f for f in hand.slots if f is not None] == []
        assert not hands_panel(screen).display
    else:
        assert hand.display and sorted(f for f in hand.slots if f is not None) == sorted(view.hand)
        assert not hands_panel(screen).display
    prompt = str(screen.query_one("#hv-prompt").render())
    assert screen.step_text()[:20] in prompt
    assert str(screen.query_one("#replay-bar").render()) == str(screen.bar_text())


async def test_step_through_rounds_as_a_spectator(stored):
    store, mid = stored
    replay = Replay.load(store, mid)
    app = make_app(ReplayBackend(replay), pacing=FAST)  # (a live match's end would open the results at once)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, HVReplayScreen)
        assert not screen.query(ActionButton)  # nothing to press in a replay
        agrees(screen, replay, 0)
        bar = str(screen.bar_text())
        assert all(part in bar for part in ("REPLAY", "Alice v Bob v Carol", "round 1", "spectator", "every hand"))
        await pilot.press("right", "right", "right")
        await pilot.pause()
        agrees(screen, replay, 3)
        await pilot.press("left")
        await pilot.pause()
        agrees(screen, replay, 2)
        await pilot.press("right_square_bracket")  # the next round: just after the first flip
        await pilot.pause()
        agrees(screen, replay, replay.set_steps[0])
        assert screen.has_class("-counting") and "round 2" in str(screen.bar_text())
        assert "stuck" in str(screen.query_one("#hv-countdown").render())
        await pilot.press("pagedown", "pageup")
        await pilot.pause()
        agrees(screen, replay, replay.set_steps[0])
        await pilot.press("end")
        await pilot.pause()
        agrees(screen, replay, replay.last)
        await pilot.pause()
        assert screen.view.over and app.screen is screen  # no results panel: the end is a step
        # The play keys do nothing here (s, "stuck" in a live match, is the seat view).
        await pilot.press("home", "1", "d")
        await pilot.pause()
        agrees(screen, replay, 0)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code in (0, None)


async def test_a_spectator_sees_every_hand_and_the_feed_and_s_switches_seats(stored):
    """Issue 14: a spectator's replay showed only the top card; now every hand and the
    feed, at a countdown too, and ``s`` cycles Alice's, Bob's, Carol's view, then all."""
    store, mid = stored
    replay = Replay.load(store, mid)
    app = make_app(ReplayBackend(replay))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        counting = replay.set_steps[0]  # just after a flip: a countdown, hands dealt face down
        playing = counting + 3
        assert replay.view(counting).counting_down and not replay.view(playing).counting_down
        for step in (0, counting, playing):
            screen.go(step)
            await pilot.pause()
            agrees(screen, replay, step)
        screen.go(counting)
        await pilot.pause()
        assert "face down" in str(hands_panel(screen).border_title)
        screen.go(playing)
        await pilot.pause()
        for seat in (0, 1, 2):
            await pilot.press("s")
            await pilot.pause()
            agrees(screen, replay, playing, seat)
            assert f"s  {replay.names[seat]}'s view" in str(screen.bar_text())
        await pilot.press("s")
        await pilot.pause()
        agrees(screen, replay, playing)
        assert "s  every hand" in str(screen.bar_text())


async def test_a_player_sees_their_own_hand_once_revealed(stored):
    store, mid = stored
    replay = Replay.load(store, mid, viewer=C)
    app = make_app(ReplayBackend(replay))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert "s  every hand" in str(screen.bar_text())
        await pilot.press("s", "s", "s")  # Alice's, Bob's, then Carol's own view
        await pilot.pause()
        assert "s  your view  ·  Alice v Bob v Carol" in str(screen.bar_text())
        for step in (0, 1, 9, replay.set_steps[0] + 1):
            screen.go(step)
            await pilot.pause()
            agrees(screen, replay, step, 2)
            want = tuple(H.CARD_FACE[c] for c in replay.state(step).hands[2])
            view = replay.view(step)
            assert view.hand == (None if view.counting_down else want)


def test_long_hands_keep_to_their_share_of_lines_and_say_what_is_left_out():
    """Four big hands take at most eight lines (the top card keeps its room); a hand cut
    short ends in +N, never silently."""
    from tui.games.highvoltage.replay import OpenHands

    faces = [H.Face(v, m) for v in range(1, 11) for m in (1, 2, 3)][:20]
    panel = OpenHands()
    panel.show(["Alice", "Bob", "Carol", "Dan"], [faces, faces[:3], faces, faces[:12]], me=1, face_down=False)
    rows = [r.plain for r in panel.rows(78)]
    assert len(rows) <= 8 and all(len(r) <= 78 for r in rows)
    groups: dict[str, list[str]] = {}
    for r in rows:  # a seat's first line names it; its other lines are indented under it
        if r[2:].strip() and not r[:3].isspace():
            groups[r[2:].split()[0]] = [r]
        else:
            groups[list(groups)[-1]].append(r)
    for name, n in (("Alice", 20), ("Bob", 3), ("Carol", 20), ("Dan", 12)):
        lines = groups[name]
        shown = sum(line.count("±") for line in lines)
        last = lines[-1].split()
        more = int(last[-1][1:]) if last[-1].startswith("+") else 0
        assert shown + more == n and (more == 0) == (n <= shown), (name, lines)
    assert len(groups["Alice"]) == 2 and groups["Alice"][-1].rstrip().split()[-1].startswith("+")
    assert rows[[i for i, r in enumerate(rows) if "Bob" in r][0]].startswith("▸ Bob")
