"""The server's registry (server/games.py) and the one table policy it parametrises.

Every game the engine registers has the server's part under the same id; the lobby
reaches a game only through it, so a game whose seat bounds differ gets tables of
its own size without a line of the lobby changing."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from engine.registry import GAMES as ENGINE_GAMES
from server import games
from server.lobby.core import Lobby
from server.lobby.tables import Tables
from server.store import persist
from tests.support.lobby import everyone_online
from tests.support.wait import settle
from tests.support.words import said


def test_every_engine_game_has_the_servers_part_under_the_same_id():
    assert tuple(games.GAMES) == tuple(ENGINE_GAMES) == games.IDS
    for gid, g in games.GAMES.items():
        assert g.info is ENGINE_GAMES[gid] and g.title == ENGINE_GAMES[gid].title
        assert g.default_bot in g.bot_levels()
        assert g.info.min_seats <= g.quick_seats <= g.info.max_seats
    assert set(games.restorers()) == set(games.GAMES)
    assert games.HOME == "voltage" and games.title("high-voltage") == "High Voltage"


def test_the_oracle_bots_which_see_the_true_state_are_never_offered_to_players():
    from engine.voltage.bots import ORACLE_BOTS

    voltage = games.game("voltage")
    offered = set(voltage.bot_levels()) | {bot for _, bot in voltage.bot_strengths()}
    assert offered and not offered & set(ORACLE_BOTS)


def test_a_game_unknown_to_the_registry_is_named_by_its_id():
    assert games.title("some-game") == "Some Game"
    assert persist.game_title("high-voltage") == "High Voltage"


async def test_a_games_seat_bounds_size_its_quick_table():
    """A game of exactly two seats, its table policy the same class as High Voltage's:
    its quick table starts the moment the second player sits, with no fill timer."""
    hv = games.GAMES["high-voltage"]
    duel = replace(hv, info=replace(hv.info, id="duel", title="Duel", min_seats=2, max_seats=2), quick_seats=2)
    lobby = Lobby(seed=1)
    tables = Tables(lobby, duel, fill_seconds=30, countdown_seconds=0.01, bot_speed=1000.0)
    ann, bob = everyone_online(lobby, "ann", "bob")
    a = asyncio.ensure_future(tables.quick_match(ann))
    await asyncio.sleep(0)
    assert ann.status == "waiting" and ann.where == "duel"
    (hb,) = await asyncio.wait_for(tables.quick_match(bob), 30)
    (ha,) = await asyncio.wait_for(a, 30)
    assert ha.match is hb.match and ha.match.names == ("ann", "bob") and tables.starts_in(ann) is None
    try:
        tables.create_room(ann, 3)
    except ValueError as e:
        assert said(e) == "a Duel table has 2 to 2 seats"
    else:  # pragma: no cover
        raise AssertionError("a room of 3 at a 2-seat game")
    ha.match.close()


async def test_voltages_quick_match_is_a_two_seat_table_of_the_same_policy():
    lobby = Lobby(seed=1, bot_delay=0)
    ann, bob = everyone_online(lobby, "ann", "bob")
    assert type(lobby.tables["voltage"]) is type(lobby.tables["high-voltage"]) is Tables
    a = asyncio.ensure_future(lobby.quick_match(ann))
    await asyncio.sleep(0)
    table = lobby.tables["voltage"].table_of(ann)
    assert table is not None and table.size == 2 and lobby.snapshot().waiting == {"voltage": 1, "high-voltage": 0}
    (hb,) = await asyncio.wait_for(lobby.quick_match(bob), 30)
    (ha,) = await asyncio.wait_for(a, 30)
    assert ha.match is hb.match and (ha.seat, hb.seat) == (0, 1) and lobby.snapshot().waiting["voltage"] == 0
    ha.match.close()


def hv_lobby() -> Lobby:
    lobby = Lobby(grace=0.05, rematch_wait=2.0, seed=3)
    lobby.tables["high-voltage"].countdown_seconds = 0.01
    lobby.tables["high-voltage"].bot_speed = 1000.0
    return lobby


async def test_a_rematch_keeps_everyones_seat_whoever_asks_first():
    """(High Voltage's rematch seated people in the order they asked; Voltage's kept the
    seats: one policy now, the seats kept for both.)"""
    for game in games.IDS:
        lobby = hv_lobby()
        ann, bob = everyone_online(lobby, "ann", "bob")
        ha, hb = (hs[0] for hs in lobby.tables[game].play_people([ann, bob]))
        assert (ha.seat, hb.seat) == (0, 1)
        await ha.resign()
        await settle()
        assert ha.match.over
        asking = asyncio.ensure_future(lobby.rematch(bob, [hb]))  # bob, in seat 1, asks first
        await settle()
        (na,) = await asyncio.wait_for(lobby.rematch(ann, [ha]), 30)
        (nb,) = await asyncio.wait_for(asking, 30)
        assert na.match is nb.match and (na.seat, nb.seat) == (0, 1), game
        assert na.match.names == ("ann", "bob") and ha.match.notice == ()
        na.match.close()
        ha.match.close()


async def test_a_rematch_with_nobody_else_left_is_none_at_once_in_every_game():
    """(High Voltage's used to seat a bot in the place of the person gone.)"""
    for game in games.IDS:
        lobby = hv_lobby()
        ann, bob = everyone_online(lobby, "ann", "bob")
        ha, hb = (hs[0] for hs in lobby.tables[game].play_people([ann, bob]))
        await ha.resign()
        await settle()
        lobby.enter_lobby(bob)
        assert await asyncio.wait_for(lobby.rematch(ann, [ha]), 2) is None, game
        ha.match.close()
