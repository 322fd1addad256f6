"""One bad match never stops the server: a real ``voltage serve`` on a data directory
holding a match that cannot be restored starts, logs that match's id and the reason,
leaves its rows exactly as they were, restores the rest and serves a client."""

from __future__ import annotations

import random
import sqlite3

from engine.voltage import rules as V
from server.host.common import Seat
from server.host.voltage import Match
from server.store import persist as P
from server.store.db import Store
from tests.support.process import ServerProcess
from tests.support.terminal import Terminal

A, B, C = "SHA256:alice", "SHA256:bob", "SHA256:carol"


def rows(db, mid):
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return (
            c.execute("SELECT * FROM matches WHERE id = ?", (mid,)).fetchall(),
            c.execute("SELECT * FROM seats WHERE match_id = ? ORDER BY seat", (mid,)).fetchall(),
            c.execute("SELECT * FROM actions WHERE match_id = ? ORDER BY idx", (mid,)).fetchall(),
        )
    finally:
        c.close()


async def played(store, seats, seed, n):
    """A recorded match of ``n`` random legal moves (never a resignation), left running."""
    m = Match(seats, seed=seed, bot_delay=0)
    rec = P.attach(store, m)
    rng = random.Random(seed)
    for _ in range(n):
        seat = m.state.to_move
        await m.handle(seat).submit(rng.choice([a for a in m.view(seat).legal if not isinstance(a, V.Resign)]))
    return rec.match_id, m


async def test_a_match_that_cannot_be_restored_never_stops_the_server(tmp_path):
    d = tmp_path / "data"
    with Store.open(d) as store:
        for ident, name in ((A, "alice"), (B, "bob"), (C, "carol")):
            store.upsert_player(ident, name)
        damaged, _ = await played(store, [Seat("alice", A), Seat("bob", B)], 1, 4)
        # One identity in both seats (what an old server let happen): ended, but never stored.
        twice = store.create_match("voltage", 2, [{"name": "carol", "identity": C}, {"name": "carol2", "identity": C}])
        store.append_action(twice, 0, "resign 0")
        healthy, m = await played(store, [Seat("alice", A), Seat("bob", B)], 3, 5)
        both, _ = await played(store, [Seat("carol", C), Seat("carol2", C)], 4, 3)  # one key, two seats
    db = d / "voltage.db"
    c = sqlite3.connect(db)
    c.execute("UPDATE actions SET action = 'zap 9' WHERE match_id = ? AND idx = 2", (damaged,))  # damaged
    c.commit()
    c.close()
    before = rows(db, damaged)

    srv = await ServerProcess(d).start()
    term = None
    try:
        out = "".join(srv.out)
        assert f"match {damaged} cannot be restored" in out and "does_not_replay" in out, out
        assert "Restored 2 unfinished matches" in out, out
        # It serves: a client reaches the lobby.
        term = await Terminal(100, 30).connect(srv.port, "dave")
        await term.wait_for("Your name")
        assert rows(db, damaged) == before  # nothing deleted, nothing marked
        with Store.open(d, readonly=True) as ro:
            assert ro.match_record(healthy).status == ro.match_record(both).status == "running"
            r = ro.match_record(twice)
            assert r.finished and r.actions == ("resign 0",) and r.winners == (1,)
            assert ro.rating(C, "voltage") is None  # it could not be rated: finished unrated
    finally:
        if term is not None:
            await term.close()
        await srv.kill()
    # and again: the damaged match is still there, still untouched, still not in the way
    srv = await ServerProcess(d).start()
    try:
        assert f"match {damaged} cannot be restored" in "".join(srv.out)
        assert rows(db, damaged) == before
    finally:
        await srv.kill()
