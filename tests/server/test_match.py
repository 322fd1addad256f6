"""The match host: one state, views per seat, intents checked, bots off the loop."""

import asyncio

from engine.errors import IllegalActionError
from engine.voltage import rules as V
from server.host.common import Seat
from server.host.voltage import Match
from tests.support.words import log_of, notice_of, refused, update_lines
from tui import ports
from tui.ports import Note


def humans(seed=5):
    return Match([Seat("Alice", "a"), Seat("Bob", "b")], seed=seed, bot_delay=0)


async def test_every_screen_gets_the_accepted_action_and_its_own_view():
    m = humans()
    got = {0: [], 1: [], None: []}
    for seat in got:
        m.handle(seat).subscribe(lambda u, s=seat: got[s].append(u))
    mover = m.state.to_move
    action = m.view(mover).legal[0]
    await m.handle(mover).submit(action)
    for seat, updates in got.items():
        assert len(updates) == 1
        u = updates[0]
        assert u.view.seat == seat
        assert u.entries and any(name in update_lines(u, "voltage")[0] for name in ("Alice", "Bob"))
    assert got[None][0].view.hand is None
    assert got[mover][0].view.hand is not None


async def test_an_update_carries_the_matchs_version_and_the_host_satisfies_the_seams():
    m = humans()
    assert isinstance(m, ports.Host) and isinstance(m.handle(0), ports.SeatHandle)
    got: list[ports.Update] = []
    h = m.handle(None)
    h.subscribe(got.append)
    assert h.version == 0 and h.countdown is None
    for _ in range(3):
        mover = m.state.to_move
        await m.handle(mover).submit(m.view(mover).legal[0])
    m.set_notice(Note.of("back", name="Bob"))
    assert [u.version for u in got] == [1, 2, 3, 3] and h.version == 3
    assert all(isinstance(u, ports.Update) and u.countdown is None for u in got)
    assert notice_of(got[-1].notice) == "Bob is back." and got[-1].entries == ()


async def test_out_of_turn_and_illegal_intents_are_refused_with_a_reason():
    m = humans()
    other = 1 - m.state.to_move
    with refused("not your turn", IllegalActionError, "voltage"):
        await m.handle(other).submit(V.DRAW)
    with refused("spectators", IllegalActionError, "voltage"):
        await m.handle(None).submit(V.DRAW)
    assert m.actions == []


async def test_a_bot_seat_plays_its_turns_to_the_end():
    m = Match([Seat("Alice", bot="random"), Seat("Bob", bot="random")], seed=3, bot_delay=0)
    done = asyncio.Event()
    m.on_end.append(lambda _m: done.set())
    m.start()
    await asyncio.wait_for(done.wait(), 30)
    assert m.over and m.winner in (0, 1)
    assert V.replay(m.seed, m.actions) == m.state


async def test_a_search_bot_is_asked_for_its_move_by_a_deadline(monkeypatch):
    """The host gives a search bot until now + its cap, counted from when it asks (time
    queued for a busy worker included); a greedy bot gets none."""
    import time

    import server.host.voltage as hosting
    from engine.voltage.bots import THINK_CAPS

    asked = []

    def choose(bot, seed, view, deadline=None):
        asked.append((bot, time.time(), deadline))
        return view.legal[0]

    monkeypatch.setattr(hosting, "_bot_choose", choose)
    m = Match([Seat("Hal", bot="expert"), Seat("Meg", bot="medium")], seed=3, bot_delay=0)
    m.start()
    for _ in range(500):  # until both bots have moved
        if {b for b, _, _ in asked} == {"expert", "medium"}:
            break
        await asyncio.sleep(0.01)
    m.close()
    by_bot = {bot: (at, deadline) for bot, at, deadline in asked}
    at, deadline = by_bot["expert"]
    assert deadline is not None and 0 < deadline - at <= THINK_CAPS["expert"]
    assert deadline - at > THINK_CAPS["expert"] - 1
    assert by_bot["medium"][1] is None


async def test_resignation_out_of_turn_ends_the_match():
    m = humans()
    other = 1 - m.state.to_move
    await m.handle(other).resign()
    assert m.over and m.winner == 1 - other
    assert "resigned" in " ".join(log_of(m))
