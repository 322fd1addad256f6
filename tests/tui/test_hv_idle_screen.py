"""High Voltage idling on screen: the idle mark in the players' list,
the vote key shown only while someone else is idle, the seat handed to a bot, and the
idle person's screen telling them and taking the seat back with ``t``."""

from __future__ import annotations

from engine.highvoltage import rules as H
from server.host.common import Seat
from server.host.highvoltage import HVMatch, bot_seat
from tests.support.wait import until
from tests.tui.test_hv_screen import SIZE, Host, text_of, wait_text
from tui.games.highvoltage import present as P
from tui.games.highvoltage.match import HVMatchScreen


def table(idle_seconds: float = 0.2) -> HVMatch:
    """Alice and Bob, and a bot too slow to end the match meanwhile."""
    seats = [Seat("Alice", "alice"), Seat("Bob", "bob"), bot_seat("fast")]
    return HVMatch(seats, seed=5, countdown_seconds=0.03, bot_speed=0.0001, idle_seconds=idle_seconds)


async def test_the_others_see_the_mark_and_the_key_and_continue_without_them():
    m = table()
    app = Host([m.handle(0)])
    async with app.run_test(size=SIZE) as pilot:
        # (before the start: nobody can be idle yet, however slow the machine)
        await wait_text(pilot, app, "Bob")
        assert "continue without" not in text_of(app)  # the key shows only when someone is idle
        m.start()
        await until(lambda: isinstance(app.screen, HVMatchScreen) and app.screen.view.can_act)
        screen = app.screen
        await wait_text(pilot, app, "Bob (idle)")
        text = await wait_text(pilot, app, "Bob is idle: press K to continue without Bob")
        await wait_text(pilot, app, "K continue without idle")  # the key bar has it too
        await pilot.press("K")
        await until(lambda: m.seats[1].is_bot)
        await until(lambda: "Continuing without Bob: a bot (fast) plays their seat." in screen.lines)
        text = text_of(app)
        assert "Bob (bot play" in text and "Bob (idle)" not in text
        assert "press K" not in text and not screen.can_vote
    m.close()


async def test_the_idle_person_is_told_and_takes_the_seat_back():
    m = table()
    app = Host([m.handle(0)])
    async with app.run_test(size=SIZE) as pilot:
        m.start()
        await until(lambda: m.state.phase == H.PLAY)
        await m.submit(1, H.Stuck(1))  # Bob cannot play: he is not idle
        await until(lambda: 0 in m.idle)
        text = await wait_text(pilot, app, "Alice (idle)")  # (her own screen shows it too)
        assert "press K" not in text and 1 not in m.idle  # nobody else is idle: nothing to vote on
        await m.handle(1).continue_without()
        screen = app.screen
        text = await wait_text(pilot, app, "You were idle; a bot plays your seat.")
        assert "A bot plays your seat.  t take it back" in text
        await wait_text(pilot, app, "t take my seat back")
        await pilot.press("1")  # a card's key: refused, with the way back
        assert screen.error == "A bot plays your seat now: press t to take it back."
        await pilot.press("t")
        await until(lambda: not m.seats[0].is_bot)
        await until(lambda: "Alice takes their seat back from the bot." in screen.lines)
        await until(lambda: "A bot plays your seat.  t take it back" not in text_of(app))
        await until(lambda: "take my seat back" not in text_of(app))
        await pilot.press("d")  # she plays again
        await until(lambda: any(isinstance(a, H.Draw) and a.seat == 0 for a in m.actions))
    m.close()


def test_the_idle_line_words():
    v = H.view(H.new_match(5, 3), 0)
    names = ("Alice", "Bob", "Cleo")
    line = P.idle_line(v, names, (1,), can_vote=True)
    assert line == "Bob is idle: press K to continue without Bob (a bot plays on)."
    line = P.idle_line(v, names, (1, 2), can_vote=True)
    assert line.startswith("Bob and Cleo are idle: press K to continue without them")
    assert P.idle_line(v, names, (0,), can_vote=True) == ""  # only oneself
    assert P.idle_line(v, names, (1,), can_vote=False) == ""
    assert P.idle_line(H.view(H.new_match(5, 3), None), names, (1,), can_vote=True) == ""  # a spectator
