"""High Voltage tables in the lobby: quick match fills a table, rooms of 2-4 started early
with bots, bots at once, watching, dropped players, rematch."""

from __future__ import annotations

import asyncio

import pytest

from engine.highvoltage import rules as H
from server.games import GAMES as SERVER_GAMES
from server.lobby.core import Lobby
from server.lobby.models import LobbyError
from server.lobby.tables import Tables
from tests.support.words import notice_of, refused


def online(lobby: Lobby, *names: str):
    out = []
    for name in names:
        p = lobby.connect(f"key-{name}", name)
        lobby.claim_name(p, name)
        out.append(p)
    return out


def setup(**kw):
    lobby = Lobby(grace=0.05, rematch_wait=2.0, seed=1)
    tables = Tables(lobby, SERVER_GAMES["high-voltage"], countdown_seconds=0.01, bot_speed=1000.0, **kw)
    return lobby, tables


async def settle():
    for _ in range(5):
        await asyncio.sleep(0)


async def test_quick_match_starts_when_four_are_seated():
    lobby, tables = setup(fill_seconds=30)
    people = online(lobby, "ann", "bob", "cy", "di")
    waits = [asyncio.ensure_future(tables.quick_match(p)) for p in people]
    got = await asyncio.wait_for(asyncio.gather(*waits), 30)
    match = got[0][0].match
    assert match.game == "high-voltage" and match.names == ("ann", "bob", "cy", "di")
    assert sorted(h[0].seat for h in got) == [0, 1, 2, 3] and all(h[0].match is match for h in got)
    assert lobby.matches[match.code].match is match
    assert {p.status for p in people} == {"playing"} and not tables.open_tables()
    match.close()


async def test_quick_match_with_two_starts_after_the_fill_time_without_bots():
    lobby, tables = setup(fill_seconds=0.05)
    ann, bob = online(lobby, "ann", "bob")
    a = asyncio.ensure_future(tables.quick_match(ann))
    await settle()
    assert not a.done() and ann.status == "waiting" and len(tables.open_tables()) == 1
    got = await asyncio.wait_for(asyncio.gather(a, tables.quick_match(bob)), 30)
    match = got[0][0].match
    assert match.names == ("ann", "bob") and not any(s.is_bot for s in match.seats)
    match.close()


async def test_a_quick_table_of_two_says_when_it_starts():
    lobby, tables = setup(fill_seconds=30)
    ann, bob, cy = online(lobby, "ann", "bob", "cy")
    a = asyncio.ensure_future(tables.quick_match(ann))
    await settle()
    assert tables.starts_in(ann) is None  # alone: no start time yet
    b = asyncio.ensure_future(tables.quick_match(bob))
    await settle()
    left = tables.starts_in(ann)
    assert left is not None and 29 < left <= 30 and tables.starts_in(bob) == pytest.approx(left, abs=0.5)
    assert tables.starts_in(cy) is None  # not at the table
    for f in (a, b):
        f.cancel()
    await settle()


async def test_leaving_the_queue():
    lobby, tables = setup(fill_seconds=30)
    ann, bob = online(lobby, "ann", "bob")
    a = asyncio.ensure_future(tables.quick_match(ann))
    await settle()
    a.cancel()
    await settle()
    assert not tables.open_tables()
    b = asyncio.ensure_future(tables.quick_match(bob))
    await settle()
    assert [t.names for t in tables.open_tables()] == [("bob",)]
    b.cancel()
    await settle()


async def test_a_room_started_early_fills_the_empty_seats_with_bots():
    lobby, tables = setup()
    ann, bob = online(lobby, "ann", "bob")
    room = tables.create_room(ann, size=4)
    assert ann.status == "room" and len(room.code) == 4
    owner = asyncio.ensure_future(tables.wait(room, ann))
    friend = asyncio.ensure_future(tables.join_room(bob, room.code.lower()))
    await settle()
    assert not owner.done() and room.names == ("ann", "bob")
    tables.start(room, bot="fast")
    (a,), (b,) = await asyncio.wait_for(asyncio.gather(owner, friend), 30)
    match = a.match
    assert match.names == ("ann", "bob", "Bot (fast)", "Bot (fast)") and (a.seat, b.seat) == (0, 1)
    with refused("no High Voltage room", LobbyError):
        await tables.join_room(bob, room.code)
    # a spectator watches it like any match
    cy, = online(lobby, "cy")
    (w,) = lobby.watch(cy, match.code)
    assert w.spectator and w.view().hand is None
    match.close()


async def test_a_full_room_starts_by_itself():
    lobby, tables = setup()
    ann, bob = online(lobby, "ann", "bob")
    room = tables.create_room(ann, size=2)
    owner = asyncio.ensure_future(tables.wait(room, ann))
    (b,) = await asyncio.wait_for(tables.join_room(bob, room.code), 30)
    (a,) = await owner
    assert a.match is b.match and a.match.names == ("ann", "bob")
    a.match.close()


async def test_bots_at_once_and_a_dropped_seat_goes_to_a_bot():
    lobby, tables = setup()
    (ann,) = online(lobby, "ann")
    (h,) = tables.play_bots(ann, "slow,fast")
    m = h.match
    assert m.names == ("ann", "Bot (slow)", "Bot (fast)")
    with pytest.raises(LobbyError):
        tables.play_bots(ann, "slow,nobody")
    lobby.leave(ann)  # the session ended: a grace period, then a bot plays ann's seat
    await asyncio.wait_for(_until(lambda: m.seats[0].bot is not None), 30)
    done = asyncio.Event()
    m.on_end.append(lambda _m: done.set())
    await asyncio.wait_for(done.wait(), 30)
    assert m.over and H.replay(m.seed, 3, m.actions) == m.state


async def _until(cond):
    while not cond():
        await asyncio.sleep(0.005)


async def test_rematch_when_everyone_asks():
    lobby, tables = setup()
    ann, bob = online(lobby, "ann", "bob")
    room = tables.create_room(ann, size=3)
    owner = asyncio.ensure_future(tables.wait(room, ann))
    friend = asyncio.ensure_future(tables.join_room(bob, room.code))
    await settle()
    tables.start(room, bot="slow")
    (a,), (b,) = await asyncio.gather(owner, friend)
    await a.resign()
    await b.resign()
    assert a.match.over
    first = asyncio.ensure_future(tables.rematch(ann, [a]))
    await settle()
    assert not first.done() and notice_of(a.match.notice) == "ann wants a rematch"
    (b2,) = await asyncio.wait_for(tables.rematch(bob, [b]), 30)
    (a2,) = await first
    assert a2.match is b2.match and a2.match is not a.match
    assert a2.match.names == ("ann", "bob", "Bot (slow)")
    a2.match.close()
