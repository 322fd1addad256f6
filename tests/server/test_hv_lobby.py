"""High Voltage in the lobby.  Its tables (driven directly): quick match fills a table, rooms of 2-4
started early with bots, bots at once, watching, dropped players, rematch.  Through the lobby:
quick match, rooms (joined by code, started early), bots, watching, `who` and the lobby's lists
with 2 to 4 seats, rematch."""

from __future__ import annotations

import asyncio

import pytest

from engine.highvoltage import rules as H
from server.games import GAMES as SERVER_GAMES
from server.games import IDS
from server.lobby.core import Lobby
from server.lobby.models import LobbyError
from server.lobby.tables import Tables
from tests.support.lobby import everyone_online
from tests.support.wait import settle, until
from tests.support.words import notice_of, refused

HV = "high-voltage"


def on_tables(**kw):
    """A lobby and its High Voltage tables, driven directly."""
    lobby = Lobby(grace=0.05, rematch_wait=2.0, seed=1)
    tables = Tables(lobby, SERVER_GAMES["high-voltage"], countdown_seconds=0.01, bot_speed=1000.0, **kw)
    return lobby, tables


async def test_quick_match_starts_when_four_are_seated():
    lobby, tables = on_tables(fill_seconds=30)
    people = everyone_online(lobby, "ann", "bob", "cy", "di")
    waits = [asyncio.ensure_future(tables.quick_match(p)) for p in people]
    got = await asyncio.wait_for(asyncio.gather(*waits), 30)
    match = got[0][0].match
    assert match.game == "high-voltage" and match.names == ("ann", "bob", "cy", "di")
    assert sorted(h[0].seat for h in got) == [0, 1, 2, 3] and all(h[0].match is match for h in got)
    assert lobby.matches[match.code].match is match
    assert {p.status for p in people} == {"playing"} and not tables.open_tables()
    match.close()


async def test_quick_match_with_two_starts_after_the_fill_time_without_bots():
    lobby, tables = on_tables(fill_seconds=0.05)
    ann, bob = everyone_online(lobby, "ann", "bob")
    a = asyncio.ensure_future(tables.quick_match(ann))
    await settle()
    assert not a.done() and ann.status == "waiting" and len(tables.open_tables()) == 1
    got = await asyncio.wait_for(asyncio.gather(a, tables.quick_match(bob)), 30)
    match = got[0][0].match
    assert match.names == ("ann", "bob") and not any(s.is_bot for s in match.seats)
    match.close()


async def test_a_quick_table_of_two_says_when_it_starts():
    lobby, tables = on_tables(fill_seconds=30)
    ann, bob, cy = everyone_online(lobby, "ann", "bob", "cy")
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
    lobby, tables = on_tables(fill_seconds=30)
    ann, bob = everyone_online(lobby, "ann", "bob")
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
    lobby, tables = on_tables()
    ann, bob = everyone_online(lobby, "ann", "bob")
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
    cy, = everyone_online(lobby, "cy")
    (w,) = lobby.watch(cy, match.code)
    assert w.spectator and w.view().hand is None
    match.close()


async def test_a_full_room_starts_by_itself():
    lobby, tables = on_tables()
    ann, bob = everyone_online(lobby, "ann", "bob")
    room = tables.create_room(ann, size=2)
    owner = asyncio.ensure_future(tables.wait(room, ann))
    (b,) = await asyncio.wait_for(tables.join_room(bob, room.code), 30)
    (a,) = await owner
    assert a.match is b.match and a.match.names == ("ann", "bob")
    a.match.close()


async def test_bots_at_once_and_a_dropped_seat_goes_to_a_bot():
    lobby, tables = on_tables()
    (ann,) = everyone_online(lobby, "ann")
    (h,) = tables.play_bots(ann, "slow,fast")
    m = h.match
    assert m.names == ("ann", "Bot (slow)", "Bot (fast)")
    with pytest.raises(LobbyError):
        tables.play_bots(ann, "slow,nobody")
    lobby.leave(ann)  # the session ended: a grace period, then a bot plays ann's seat
    await until(lambda: m.seats[0].bot is not None, "a bot to take the seat")
    done = asyncio.Event()
    m.on_end.append(lambda _m: done.set())
    await asyncio.wait_for(done.wait(), 30)
    assert m.over and H.replay(m.seed, 3, m.actions) == m.state


async def test_rematch_when_everyone_asks():
    lobby, tables = on_tables()
    ann, bob = everyone_online(lobby, "ann", "bob")
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


# -- through the lobby ------------------------------------------------------------------------------


def in_lobby():
    """A lobby with fast High Voltage tables, driven through the lobby."""
    lobby = Lobby(grace=0.05, rematch_wait=2.0, seed=3)
    lobby.tables["high-voltage"].countdown_seconds = 0.01
    lobby.tables["high-voltage"].bot_speed = 1000.0
    lobby.tables["high-voltage"].fill_seconds = 0.05
    return lobby


async def test_quick_match_of_high_voltage_shows_in_the_snapshot_and_who():
    lobby = in_lobby()
    assert HV in IDS
    ann, bob = everyone_online(lobby, "ann", "bob")
    a = asyncio.ensure_future(lobby.quick_match(ann, HV))
    await settle()
    assert lobby.snapshot().waiting[HV] == 1 and ann.status == "waiting"
    got = await asyncio.wait_for(asyncio.gather(a, lobby.quick_match(bob, HV)), 30)
    match = got[0][0].match
    assert match.game == HV and match.names == ("ann", "bob")
    snap = lobby.snapshot()
    (info,) = snap.matches
    assert info.game == HV and info.names == ("ann", "bob") and len(info.scores) == 2
    who = lobby.who_text()
    assert f"{match.code}  High Voltage: ann " in who and "cards left" in who
    assert "ann  (playing" in who
    match.close()


async def test_a_room_for_three_joined_by_code_and_started_early_gets_a_bot():
    lobby = in_lobby()
    ann, bob, cy = everyone_online(lobby, "ann", "bob", "cy")
    room = lobby.create_room(ann, HV, 3)
    assert room.game == HV and room.size == 3 and lobby.room_game(room.code.lower()) == HV
    with refused("not started", LobbyError):
        lobby.watch(cy, room.code)
    with refused("High Voltage room", LobbyError):
        lobby.join_room(bob, room.code)  # the sync join is Voltage's
    b = asyncio.ensure_future(lobby.join(bob, room.code.lower()))
    await settle()
    assert not b.done() and room.names == ("ann", "bob")
    lobby.start_room(room)
    hb = await asyncio.wait_for(b, 30)
    ha = await asyncio.wait_for(room.future, 30)
    match = ha[0].match
    assert hb[0].match is match and match.names[:2] == ("ann", "bob") and match.seats[2].is_bot
    (w,) = lobby.watch(cy, room.code)
    assert w.seat is None and w.view().hand is None
    assert lobby.snapshot().matches[0].spectators == 1
    match.close()


async def test_closing_a_room_and_leaving_a_queue():
    lobby = in_lobby()
    ann, bob = everyone_online(lobby, "ann", "bob")
    room = lobby.create_room(ann, HV, 2)
    lobby.close_room(room)
    await settle()
    assert ann.status == "lobby" and lobby.room_game(room.code) is None and room.future.cancelled()
    a = asyncio.ensure_future(lobby.quick_match(ann, HV))
    await settle()
    lobby.enter_lobby(ann)
    await settle()
    assert a.cancelled() and lobby.snapshot().waiting[HV] == 0


async def test_bots_at_once_then_a_rematch_through_the_lobby():
    lobby = in_lobby()
    (ann,) = everyone_online(lobby, "ann")
    (h,) = lobby.play_bot(ann, "medium,fast", HV)
    match = h.match
    assert match.game == HV and len(match.seats) == 3
    await h.resign()
    for _ in range(500):  # the two bots play on
        if match.over:
            break
        await asyncio.sleep(0.01)
    assert match.over
    (n,) = await asyncio.wait_for(lobby.rematch(ann, [h]), 30)
    assert n.match is not match and n.match.game == HV and len(n.match.seats) == 3
    n.match.close()
    match.close()


async def test_a_rematch_of_two_people_ends_when_the_other_goes_home():
    lobby = in_lobby()
    ann, bob = everyone_online(lobby, "ann", "bob")
    got = await asyncio.wait_for(asyncio.gather(lobby.quick_match(ann, HV), lobby.quick_match(bob, HV)), 30)
    (ha,), (hb,) = got
    await ha.resign()
    await settle()
    assert ha.match.over
    asking = asyncio.ensure_future(lobby.rematch(ann, [ha]))
    await settle()
    lobby.enter_lobby(bob)
    assert await asyncio.wait_for(asking, 30) is None
    ha.match.close()
