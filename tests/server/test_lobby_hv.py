"""The lobby offers High Voltage: quick match, rooms (joined by code, started early),
bots, watching, `who` and the lobby's lists with 2 to 4 seats, rematch."""

from __future__ import annotations

import asyncio

from server.games import IDS
from server.lobby.core import Lobby
from server.lobby.models import LobbyError
from tests.support.words import refused

HV = "high-voltage"


def online(lobby: Lobby, *names: str):
    out = []
    for name in names:
        p = lobby.connect(f"key-{name}", name)
        lobby.claim_name(p, name)
        out.append(p)
    return out


def setup():
    lobby = Lobby(grace=0.05, rematch_wait=2.0, seed=3)
    lobby.tables["high-voltage"].countdown_seconds = 0.01
    lobby.tables["high-voltage"].bot_speed = 1000.0
    lobby.tables["high-voltage"].fill_seconds = 0.05
    return lobby


async def settle():
    for _ in range(5):
        await asyncio.sleep(0)


async def test_quick_match_of_high_voltage_shows_in_the_snapshot_and_who():
    lobby = setup()
    assert HV in IDS
    ann, bob = online(lobby, "ann", "bob")
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
    lobby = setup()
    ann, bob, cy = online(lobby, "ann", "bob", "cy")
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
    lobby = setup()
    ann, bob = online(lobby, "ann", "bob")
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
    lobby = setup()
    (ann,) = online(lobby, "ann")
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
    lobby = setup()
    ann, bob = online(lobby, "ann", "bob")
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
