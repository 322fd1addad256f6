"""High Voltage idling: a person who does nothing while they could act
is marked idle; the others vote to continue without them; a bot takes the seat; the
person may take it back.  The idle limit is shortened (``idle_seconds``); every wait is
on a condition."""

from __future__ import annotations

import asyncio
import time

from engine.errors import IllegalActionError
from engine.highvoltage import rules as H
from server.host.common import Seat
from server.host.highvoltage import HVMatch, bot_seat
from tests.support.wait import until
from tests.support.words import log_of, refused, update_lines

FAST = dict(countdown_seconds=0.03, bot_speed=500.0)
NAMES = ["Alice", "Bob", "Cleo", "Dan"]


def people(n=3, seed=5, bots=(), **kw) -> HVMatch:
    seats = [Seat(name, name.lower()) for name in NAMES[:n]] + [bot_seat(b) for b in bots]
    return HVMatch(seats, seed=seed, **{**FAST, **kw})


async def started(m: HVMatch) -> HVMatch:
    m.start()
    await until(lambda: m.state.phase == H.PLAY)
    return m


def seed_where(players, test) -> int:
    for seed in range(2000):
        if test(H.new_match(seed, players)):
            return seed
    raise AssertionError("no such seed")


async def play_on(m: HVMatch, seat: int) -> None:
    """Play ``seat`` like an attentive person until the match ends: a card that fits, else
    a draw, else "stuck"."""
    while not m.over:
        v = m.view(seat)
        action: H.Action | None = None
        if v.can_act and not v.stuck[seat]:
            assert v.hand is not None  # a seat's view
            card = next((c for c in v.hand if H.fits(c, v.top)), None)
            action = v.aim(card) if card else H.Draw(seat) if v.pile_counts[seat] else H.Stuck(seat)
        if action is not None:
            try:
                await m.submit(seat, action)
            except IllegalActionError:
                pass
        await asyncio.sleep(0.001)


class TestMarked:
    async def test_a_person_holding_a_card_that_fits_is_marked_after_the_limit(self):
        seed = seed_where(3, lambda s: H.has_fitting_card(s, 0))
        m = people(3, seed=seed, idle_seconds=0.3)
        got = []
        m.subscribe(1, got.append)
        try:
            t0 = time.monotonic()
            await started(m)
            assert m.idle == ()
            await until(lambda: 0 in m.idle)
            assert time.monotonic() - t0 >= 0.3  # not before the limit (counted from "go")
            assert "Alice is idle: nothing done for 0.3 s." in log_of(m)
            # every screen hears of it: the other seats' updates carry the mark
            assert 0 in got[-1].extras["idle"] and m.handle(None).extras["idle"] == m.idle
        finally:
            m.close()

    async def test_the_idle_clock_stands_still_while_the_match_is_held(self):
        # A split server's players cut off from the host (a Redis outage): nobody could act.
        seed = seed_where(3, lambda s: H.has_fitting_card(s, 0))
        m = people(3, seed=seed, idle_seconds=0.4)
        try:
            await started(m)
            go = time.monotonic()
            m.hold(True)
            held = time.monotonic()
            await asyncio.sleep(0.6)  # longer than the idle limit, the match held (a duration, not a wait)
            m.check_idle()
            assert m.idle == ()
            m.hold(False)
            resumed = time.monotonic()
            await until(lambda: 0 in m.idle)
            assert time.monotonic() - resumed >= 0.4 - (held - go) - 0.05  # the time held not counted
        finally:
            m.close()

    async def test_any_action_clears_the_mark(self):
        m = await started(people(3, idle_seconds=0.0))
        try:
            await until(lambda: 0 in m.idle)
            await m.submit(0, H.Draw(0))
            assert 0 not in m.idle and log_of(m)[-1] == "Alice is playing again."
        finally:
            m.close()

    async def test_a_person_who_cannot_play_is_not_idle(self):
        # Bob holds nothing that fits and has no pile (stuck in the engine's sense); his
        # pile goes to Cleo's before the start (the 73 cards stay the same).
        seed = seed_where(3, lambda s: H.has_fitting_card(s, 0) and not H.has_fitting_card(s, 1))
        m = people(3, seed=seed, idle_seconds=0.0)
        m.state.piles[2].extend(m.state.piles[1])
        m.state.piles[1].clear()
        assert H.is_stuck(m.state, 1) and not H.is_stuck(m.state, 0)
        try:
            await started(m)
            await until(lambda: 0 in m.idle and 2 in m.idle)
            m.check_idle()
            assert 1 not in m.idle
        finally:
            m.close()

    async def test_declaring_stuck_is_not_idling(self):
        m = await started(people(3, idle_seconds=0.0))
        try:
            await m.submit(1, H.Stuck(1))
            m.check_idle()
            assert 0 in m.idle and 2 in m.idle and 1 not in m.idle
        finally:
            m.close()

    async def test_alone_against_bots_nobody_marks_you(self):
        m = await started(people(1, bots=["fast"], idle_seconds=0.0, bot_speed=0.0001))
        try:
            m.check_idle()
            assert m.idle == () and 0 in m._idle_since  # the clock ran out; nobody waits on it
        finally:
            m.close()

    async def test_the_clock_waits_for_the_countdown(self):
        m = people(3, idle_seconds=0.0, countdown_seconds=30.0)
        m.start()
        try:
            await until(lambda: m.countdown == 3)
            m.check_idle()
            assert m.idle == ()  # hands face down: nobody can act yet
        finally:
            m.close()


class TestVote:
    async def test_a_majority_of_the_others_continues_without_them(self):
        m = await started(people(4, idle_seconds=0.2))
        got: list = []
        m.subscribe(0, got.append)
        try:
            for seat in (1, 2, 3):  # they cannot play (declared stuck): never idle
                await m.submit(seat, H.Stuck(seat))
            await until(lambda: 0 in m.idle)
            # Bob, Cleo and Dan may vote: two of three are enough
            await m.handle(1).continue_without(0)
            assert "Bob votes to continue without Alice (1 of 2)." in log_of(m)
            assert not m.seats[0].is_bot and m.idle[0] == 0
            await m.handle(2).continue_without()
            assert m.seats[0].bot == "medium"  # no table bots: Medium
            assert m.names[0] == "Alice (bot playing)" and m.bot_playing == (0,)
            assert 0 not in m.idle
            assert "Continuing without Alice: a bot (medium) plays their seat." in log_of(m)
            # Alice's own screen is told, and only hers
            mine = [line for u in got for line in update_lines(u, "high-voltage")]
            assert "You were idle; a bot plays your seat. Press t to take it back." in mine
            assert "You were idle" not in " ".join(log_of(m)) and got[-1].extras["bot_playing"] == (0,)
            with refused("a bot is playing", IllegalActionError, "high-voltage"):
                await m.handle(0).submit(H.Draw(0))
        finally:
            m.close()

    async def test_with_only_bots_besides_one_vote_is_enough_and_the_match_goes_on_to_an_end(self):
        m = await started(people(2, bots=["fast"], idle_seconds=0.05))
        try:
            await until(lambda: 0 in m.idle)
            await m.handle(1).continue_without()
            assert m.seats[0].bot == "fast"  # the table's bots' level
            voted = len(m.actions)
            await asyncio.wait_for(play_on(m, 1), 60)
            assert m.over and m.winner is not None
            assert any(getattr(a, "seat", None) == 0 for a in m.actions[voted:])  # the bot played Alice's seat
        finally:
            m.close()

    async def test_refused_votes(self):
        m = await started(people(3, idle_seconds=30.0))
        try:
            with refused("nobody is idle", IllegalActionError, "high-voltage"):
                await m.handle(1).continue_without()
            with refused("Alice is not idle", IllegalActionError, "high-voltage"):
                await m.handle(1).continue_without(0)
            with refused("spectators", IllegalActionError, "high-voltage"):
                await m.handle(None).continue_without()
        finally:
            m.close()

    async def test_an_idle_person_takes_the_seat_back(self):
        m = await started(people(2, bots=["fast"], idle_seconds=0.0, bot_speed=0.0001))
        try:
            await until(lambda: 0 in m.idle)
            with refused("no bot is playing", IllegalActionError, "high-voltage"):
                await m.handle(0).take_seat_back()
            await m.handle(1).continue_without()
            assert m.bot_playing == (0,)
            await m.handle(0).take_seat_back()
            assert not m.seats[0].is_bot and m.bot_playing == () and m.names[0] == "Alice"
            assert log_of(m)[-1] == "Alice takes their seat back from the bot."
            await m.handle(0).submit(H.Draw(0))  # plays again
        finally:
            m.close()

    async def test_a_dropped_seat_is_not_taken_back_here(self):
        m = await started(people(2, idle_seconds=30.0))
        try:
            m.seats[0].connected = False
            m.set_bot(0, "medium")  # the lobby's grace ran out
            with refused("no bot is playing", IllegalActionError, "high-voltage"):
                await m.handle(0).take_seat_back()
        finally:
            m.close()


class TestInTheLobby:
    async def test_a_lobby_table_marks_hands_over_and_gives_the_seat_back_on_resume(self, monkeypatch):
        import server.host.highvoltage as host
        from server.lobby.core import Lobby

        monkeypatch.setattr(host, "IDLE_SECONDS", 0.05)  # (the lobby's tables read it per match)
        lobby = Lobby(grace=0.05, rematch_wait=2.0, seed=3)
        lobby.tables["high-voltage"].countdown_seconds = 0.01
        lobby.tables["high-voltage"].fill_seconds = 0.05
        ann, bob = (lobby.connect(f"key-{n}", n) for n in ("ann", "bob"))
        for p, n in ((ann, "ann"), (bob, "bob")):
            lobby.claim_name(p, n)
        got = await asyncio.wait_for(asyncio.gather(lobby.quick_match(ann, "high-voltage"),
                                                    lobby.quick_match(bob, "high-voltage")), 5)
        (ha,), (hb,) = got
        m = ha.match
        try:
            assert m.idle_seconds == 0.05
            await until(lambda: ha.seat in m.idle)
            await hb.continue_without()
            assert m.seats[ha.seat].bot == "medium" and m.bot_playing == (ha.seat,)
            # Ann's session ends while the bot plays for her: the bot plays on; back, she has her seat.
            lobby.leave(ann)
            with refused("no bot is playing", IllegalActionError, "high-voltage"):
                await ha.take_seat_back()  # (not connected: the lobby's resume gives it back)
            ann2 = lobby.connect("key-ann", "ann")
            (back,) = lobby.resume(ann2)
            assert back.seat == ha.seat and not m.seats[ha.seat].is_bot and m.bot_playing == ()
        finally:
            m.close()
