"""The High Voltage host: arrival order, too-slow refusals, the shared countdown, bots."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from engine.errors import IllegalActionError
from engine.highvoltage import rules as H
from server.host.common import Seat
from server.host.highvoltage import HVMatch, HVUpdate, bot_seat, restore
from server.host.voltage import SeatHandle
from tests.support.wait import until
from tests.support.words import log_of, refused, said, update_lines
from tui import ports

FAST = dict(countdown_seconds=0.03, bot_speed=500.0)


def people(n=2, seed=5, **kw) -> HVMatch:
    names = ["Alice", "Bob", "Cleo", "Dan"][:n]
    return HVMatch([Seat(name, name.lower()) for name in names], seed=seed, **{**FAST, **kw})


async def started(m: HVMatch) -> HVMatch:
    m.start()
    await until(lambda: m.state.phase == H.PLAY)
    return m


def both_fit_seed(players: int = 2) -> int:
    """A deal where seats 0 and 1 each hold a card that fits the first top."""
    for seed in range(500):
        s = H.new_match(seed, players)
        if H.has_fitting_card(s, 0) and H.has_fitting_card(s, 1):
            return seed
    raise AssertionError("no such seed")


def fitting(view: H.HighVoltageView) -> H.Face:
    assert view.hand is not None  # a seat's view
    return next(c for c in view.hand if H.fits(c, view.top))


class TestShape:
    def test_like_a_voltage_match(self):
        m = people(3)
        assert m.game == "high-voltage" and m.names == ("Alice", "Bob", "Cleo")
        assert m.actions == [] and log_of(m) == ["Cards dealt to 3 players; four each in hand, face down."]
        assert not m.over and m.winner is None and m.notice == ()
        assert m.scores == (24, 24, 24)  # cards left: 72 dealt to three
        h = m.handle(1)
        # Both games' hosts and handles satisfy the tui's seams; neither handle derives
        # from the other (Voltage's handle is typed by Voltage's view).
        assert isinstance(m, ports.Host) and isinstance(h, ports.SeatHandle)
        assert not isinstance(h, SeatHandle)
        assert h.game == "high-voltage" and h.seat == 1 and h.version == 0
        assert h.names == m.names and h.view().seat == 1 and h.countdown is None
        assert m.handle(None).spectator
        with pytest.raises(ValueError):
            m.handle(3)

    @pytest.mark.parametrize("n", [1, 5])
    def test_two_to_four_seats(self, n):
        with refused("2 to 4", ValueError):
            HVMatch([Seat(str(i)) for i in range(n)])


class TestArrivalOrder:
    async def test_two_plays_on_the_same_top_exactly_one_is_accepted(self):
        m = await started(people(2, seed=both_fit_seed()))
        a, b = m.view(0), m.view(1)
        card_a, card_b = fitting(a), fitting(b)
        results = await asyncio.gather(
            m.handle(0).submit(a.aim(card_a)), m.handle(1).submit(b.aim(card_b)), return_exceptions=True
        )
        assert results[0] is None  # arrived first
        assert isinstance(results[1], H.TooSlowError)
        article = "an" if card_a.value == 8 else "a"
        assert said(results[1], "high-voltage") == (
            f"too slow: the {a.top.value} was covered by {article} {card_a.value} a moment ago")
        # the refused card is still in hand; the pile has the winner's card on top
        assert m.view(1).hand == b.hand and m.view(1).top == card_a
        assert m.view(0).hand_sizes[0] == len(a.hand) - 1
        assert m.state.plays == 1 and sum(isinstance(x, H.Play) for x in m.actions) == 1

    async def test_in_reverse_order_the_other_one_wins(self):
        m = await started(people(2, seed=both_fit_seed()))
        a, b = m.view(0), m.view(1)
        results = await asyncio.gather(
            m.handle(1).submit(b.aim(fitting(b))), m.handle(0).submit(a.aim(fitting(a))), return_exceptions=True
        )
        assert results[0] is None and isinstance(results[1], H.TooSlowError)
        assert m.view(0).hand == a.hand

    async def test_the_slow_line_goes_to_the_sender_only(self):
        m = await started(people(3, seed=both_fit_seed(3)))
        got: dict[int | None, list[HVUpdate]] = {0: [], 1: [], 2: [], None: []}
        for seat in got:
            m.handle(seat).subscribe(lambda u, s=seat: got[s].append(u))
        a, b = m.view(0), m.view(1)
        await asyncio.gather(
            m.handle(0).submit(a.aim(fitting(a))), m.handle(1).submit(b.aim(fitting(b))), return_exceptions=True
        )
        slow = [line for u in got[1] for line in update_lines(u, "high-voltage") if "too slow" in line]
        won = fitting(a).value
        assert slow == [f"Bob: too slow — the {a.top.value} was covered by {'an' if won == 8 else 'a'} {won}."]
        for seat in (0, 2, None):
            assert not any("too slow" in line for u in got[seat] for line in update_lines(u, "high-voltage"))
        assert any("too slow" in line for line in log_of(m.handle(1)))
        assert not any("too slow" in line for line in log_of(m.handle(0)) + log_of(m))
        assert m.too_slow == 1
        # The refusal changed nothing: its update has the version of the accepted play.
        assert [u.version for u in got[1] if u.entries and "too slow" in update_lines(u, "high-voltage")[0]] == [
            len(m.actions)]

    async def test_a_refused_play_loses_nothing_and_is_not_logged(self):
        m = await started(people(2))
        v = m.view(0)
        wrong = next((c for c in v.hand if not H.fits(c, v.top)), None)
        if wrong is None:
            pytest.skip("every card fits")
        before = m.state.key()
        with refused("does not fit", IllegalActionError, "high-voltage"):
            await m.handle(0).submit(v.aim(wrong))
        assert m.state.key() == before and m.actions == [H.GO]

    async def test_a_flood_of_plays_aimed_at_a_covered_top_is_told_once(self):
        # Each one kept a "too slow" line in the seat's feed and sent it an update: 20,000 of
        # them held 20,000 lines and made the feed cost its whole length each time it was read.
        m = await started(people(4, seed=both_fit_seed(4)))
        a, b = m.view(0), m.view(1)
        await m.handle(0).submit(a.aim(fitting(a)))
        got: list[HVUpdate] = []
        m.handle(1).subscribe(got.append)
        feed = len(m.feed(1))
        stale = b.aim(fitting(b))
        for _ in range(2000):
            with pytest.raises(H.TooSlowError):
                await m.handle(1).submit(stale)
        assert m.too_slow == 2000 and m.view(1).hand == b.hand
        assert len(m.feed(1)) == feed + 1 and len(got) == 1
        assert any("too slow" in line for line in update_lines(got[0], "high-voltage"))
        # once the table moves on, a play aimed at a covered top is told again
        c = m.view(2)
        if H.has_fitting_card(m.state, 2):
            await m.handle(2).submit(c.aim(fitting(c)))
            with pytest.raises(H.TooSlowError):
                await m.handle(1).submit(stale)
            assert len(m.feed(1)) == feed + 2
        m.close()

    async def test_spectators_and_other_seats_cannot_act(self):
        m = await started(people(2))
        with refused("spectators", IllegalActionError, "high-voltage"):
            await m.handle(None).submit(H.Draw(0))
        with refused("your own seat", IllegalActionError, "high-voltage"):
            await m.handle(1).submit(H.Draw(0))


class TestCountdown:
    async def test_shared_by_every_seat_then_go(self):
        m = people(3, countdown_seconds=0.09)
        seen: dict[int | None, list[int | None]] = {0: [], 1: [], 2: [], None: []}
        for seat in seen:
            m.handle(seat).subscribe(lambda u, s=seat: seen[s].append(u.countdown))
        m.start()
        await until(lambda: m.state.phase == H.PLAY)
        for seat, numbers in seen.items():
            assert numbers == [3, 2, 1, None], seat
        assert m.actions == [H.GO] and log_of(m)[-1] == "Un, dos, tres! Hands up: play!"
        assert m.handle(0).countdown is None

    async def test_input_before_go_is_refused_with_a_message_and_costs_nothing(self):
        m = people(2, countdown_seconds=0.3)
        m.start()
        await until(lambda: m.countdown == 3)
        assert m.view(0).hand is None  # hands are face down
        before = m.state.key()
        for action in (H.Draw(0), H.Stuck(0), H.Play(0, H.Face(1, 1), m.view(0).top, 0)):
            with refused("wait for the countdown", IllegalActionError, "high-voltage"):
                await m.handle(0).submit(action)
        assert m.state.key() == before and m.actions == []
        await until(lambda: m.state.phase == H.PLAY)
        await m.handle(0).submit(H.Draw(0))
        assert m.actions == [H.GO, H.Draw(0)]

    async def test_a_flip_runs_a_new_countdown(self):
        m = await started(people(2, countdown_seconds=0.06))
        counts: list[int | None] = []
        m.handle(None).subscribe(lambda u: counts.append(u.countdown))
        top = m.view(0).top
        await m.handle(0).submit(H.Stuck(0))
        await m.handle(1).submit(H.Stuck(1))  # everyone is stuck: the bottom card goes on top
        assert m.state.phase == H.COUNTDOWN and m.state.flips == 1
        assert any("Everyone is stuck" in line for line in log_of(m))
        with refused("wait for the countdown", IllegalActionError, "high-voltage"):
            await m.handle(0).submit(H.Draw(0))
        await until(lambda: m.state.phase == H.PLAY)
        assert [c for c in counts if c is not None] == [3, 2, 1]
        assert m.actions[-1] == H.GO and m.actions.count(H.GO) == 2
        assert m.view(0).top_no == 1 and (m.view(0).top != top or m.view(0).discard_count == 1)

    async def test_not_started_means_no_countdown(self):
        m = people(2)
        await asyncio.sleep(0.05)  # a "nothing happens" check: no countdown starts in 0.05 s (FAST counts 0.03 s)
        assert m.countdown is None and m.actions == []


class TestBots:
    async def test_bots_finish_a_match_and_every_screen_agrees(self):
        seats = [bot_seat("slow"), bot_seat("medium"), bot_seat("fast")]
        m = HVMatch(seats, seed=11, countdown_seconds=0.01, bot_speed=2000.0)
        last: dict[int | None, HVUpdate] = {}
        for seat in (0, 1, 2, None):
            m.handle(seat).subscribe(lambda u, s=seat: last.__setitem__(s, u))
        done = asyncio.Event()
        m.on_end.append(lambda _m: done.set())
        m.start()
        await asyncio.wait_for(done.wait(), 30)
        assert m.over and m.winner is not None and m.state.places[m.winner] == 1
        assert H.replay(m.seed, 3, m.actions) == m.state
        for u in last.values():
            assert u.view.over and u.view.winner == m.winner and u.view.top == m.view(None).top
            assert u.view.places == m.state.places
        assert log_of(m)[-1].startswith(f"{m.names[m.winner]} wins")
        await until(lambda: not m._bot_tasks)  # every bot has stopped

    async def test_a_human_against_a_bot_and_the_bot_seat_refuses_people(self):
        m = HVMatch([Seat("Alice", "a"), bot_seat("fast")], seed=3, countdown_seconds=0.01, bot_speed=50.0)
        m.start()
        await until(lambda: any(isinstance(a, (H.Play, H.Draw)) and a.seat == 1 for a in m.actions))
        with refused("a bot is playing", IllegalActionError, "high-voltage"):
            await m.submit(1, H.Draw(1))
        await m.handle(0).resign()
        assert m.over and m.winner == 1 and m.state.reason == "resignation"
        m.close()

    async def test_a_dropped_seat_is_handed_to_a_bot_and_back(self):
        m = await started(people(2, bot_speed=2000.0))
        m.set_bot(1, "greedy")  # a Voltage bot's name: the host picks a High Voltage level
        assert m.seats[1].bot == "medium" and m.names[1] == "Bob (bot playing)"
        await until(lambda: any(getattr(a, "seat", None) == 1 for a in m.actions))
        bot = m._bot_tasks[1]
        m.set_bot(1, None)
        await until(bot.done)  # its move in flight, if any, has landed or been dropped
        n = len(m.actions)
        await asyncio.sleep(0.05)  # "nothing happens" check: a bot thinking 2000x faster would have moved
        assert all(getattr(a, "seat", None) != 1 for a in m.actions[n:])
        m.close()

    async def test_close_stops_the_clock_and_the_bots(self):
        m = HVMatch([bot_seat("fast"), bot_seat("fast")], seed=1, countdown_seconds=0.01, bot_speed=100.0)
        m.start()
        await until(lambda: len(m.actions) > 3)
        m.close()
        n = len(m.actions)
        await asyncio.sleep(0.1)  # "nothing happens" check: bots thinking 100x faster would have moved
        assert len(m.actions) == n and not m.over


class TestHooksAndRestore:
    async def test_hooks_see_every_accepted_action_including_go(self):
        m = people(2)
        seen: list[str] = []
        ended: list[HVMatch] = []
        m.on_action.append(lambda _m, a: seen.append(a.text()))
        m.on_end.append(ended.append)
        await started(m)
        await m.handle(1).resign()
        assert seen == ["go", "resign 1"] and ended == [m]

    async def test_restore_replays_a_stored_log(self):
        m = await started(people(3, seed=8))
        await m.handle(0).submit(H.Draw(0))
        await m.handle(2).submit(H.Stuck(2))
        record = SimpleNamespace(
            seats=[SimpleNamespace(name=s.name, identity=s.identity, bot=s.bot) for s in m.seats],
            seed=m.seed,
            code="ABCD",
            actions=[a.text() for a in m.actions],
            started=123.0,
        )
        r = restore(record)
        assert r.state == m.state and r.actions == m.actions and r.log == m.log
        assert r.code == "ABCD" and r.started_at == 123.0 and not r.seats[0].connected
