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


def online(lobby: Lobby, *names: str):
    out = []
    for name in names:
        p = lobby.connect(f"key-{name}", name)
        lobby.claim_name(p, name)
        out.append(p)
    return out


def test_every_engine_game_has_the_servers_part_under_the_same_id():
    assert tuple(games.GAMES) == tuple(ENGINE_GAMES) == games.IDS
    for gid, g in games.GAMES.items():
        assert g.info is ENGINE_GAMES[gid] and g.title == ENGINE_GAMES[gid].title
        assert g.replay().game == gid  # its replay class replays that game
        assert g.default_bot in g.bot_levels()
        assert g.info.min_seats <= g.quick_seats <= g.info.max_seats
    assert set(persist.RESTORERS) == set(games.GAMES)
    assert games.HOME == "voltage" and games.title("high-voltage") == "High Voltage"


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
    ann, bob = online(lobby, "ann", "bob")
    a = asyncio.ensure_future(tables.quick_match(ann))
    await asyncio.sleep(0)
    assert ann.status == "waiting" and ann.where == "duel"
    (hb,) = await asyncio.wait_for(tables.quick_match(bob), 2)
    (ha,) = await asyncio.wait_for(a, 2)
    assert ha.match is hb.match and ha.match.names == ("ann", "bob") and tables.starts_in(ann) is None
    try:
        tables.create_room(ann, 3)
    except ValueError as e:
        assert str(e) == "a Duel table has 2 to 2 seats"
    else:  # pragma: no cover
        raise AssertionError("a room of 3 at a 2-seat game")
    ha.match.close()
