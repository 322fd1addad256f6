"""Persistence glue: every accepted action stored before the screens see it,
results rated, unfinished matches restored after a stop or a kill."""

import json
import random
import subprocess
import sys
import textwrap

from engine.voltage import rules as V
from server.host.common import Seat
from server.host.voltage import Match
from server.store import persist as P
from server.store.db import Store

A, B = "SHA256:alice", "SHA256:bob"


def humans(seed=11):
    return Match([Seat("Alice", A), Seat("Bob", B)], seed=seed, bot_delay=0)


async def play(match, n, rng):
    """``n`` legal actions by whoever is to move (never a resignation)."""
    for _ in range(n):
        if match.over:
            return
        seat = match.state.to_move
        await match.handle(seat).submit(rng.choice(match.view(seat).legal))


async def test_each_action_is_stored_before_the_screens_are_told(tmp_path):
    with Store.open(tmp_path) as store:
        m = humans()
        rec = P.attach(store, m)
        seen = []

        def screen(update):
            # when a screen hears of an action, the store already holds it
            seen.append(len(store.match_record(rec.match_id).actions) == len(m.actions))

        m.handle(None).subscribe(screen)
        await play(m, 10, random.Random(1))
        assert seen and all(seen)
        assert store.match_record(rec.match_id).actions == tuple(a.text() for a in m.actions)


async def test_the_end_is_stored_and_rated(tmp_path):
    with Store.open(tmp_path) as store:
        store.upsert_player(A, "Alice")
        store.upsert_player(B, "Bob")
        m = humans()
        rec = P.attach(store, m)
        await play(m, 6, random.Random(2))
        loser = m.state.to_move
        await m.handle(loser).resign()
        r = store.match_record(rec.match_id)
        assert r.finished and r.winners == (1 - loser,) and r.reason == "resignation"
        assert {c.seat: c.delta > 0 for c in rec.changes} == {loser: False, 1 - loser: True}
        assert set(store.rating_changes(rec.match_id)) == {0, 1}
        assert store.rating(A, "voltage")[2] == 1
        assert store.unfinished_matches() == []


async def test_guests_and_bots_are_not_rated_but_their_matches_are_kept(tmp_path):
    with Store.open(tmp_path) as store:
        store.upsert_player(A, "Alice")
        m = Match([Seat("Alice", A), Seat("guest", "guest:7")], seed=3, bot_delay=0)
        rec = P.attach(store, m)
        await m.handle(1).resign()
        assert rec.changes == [] and store.rating(A, "voltage") is None
        assert store.player("guest:7") is None
        assert store.match_record(rec.match_id).finished


async def test_restore_rebuilds_the_same_position_and_hands(tmp_path):
    rng = random.Random(5)
    with Store.open(tmp_path) as store:
        m = humans(seed=123)
        m.code = "QX7"
        rec = P.attach(store, m)
        await play(m, 25, rng)
        assert not m.over
        state, views, log = m.state.copy(), [m.view(0), m.view(1), m.view(None)], list(m.log)
        match_id = rec.match_id
        del m, rec
    with Store.open(tmp_path) as store:  # a new server
        [rec] = P.restore(store, bot_delay=0)
        m = rec.match
        assert rec.match_id == match_id
        assert m.state == state
        assert [m.view(0), m.view(1), m.view(None)] == views
        assert m.log == log
        assert m.code == "QX7" and [s.identity for s in m.seats] == [A, B]
        assert not any(s.connected for s in m.seats)  # their grace period starts now
        # and it goes on being recorded
        await play(m, 3, rng)
        assert store.match_record(match_id).actions == tuple(a.text() for a in m.actions)


async def test_a_match_whose_end_was_not_recorded_is_finished_on_restore(tmp_path):
    with Store.open(tmp_path) as store:
        store.upsert_player(A, "Alice")
        store.upsert_player(B, "Bob")
        m = humans()
        mid = store.create_match("voltage", m.seed, [{"name": "Alice", "identity": A}, {"name": "Bob", "identity": B}])
        store.append_action(mid, 0, "resign 0")  # killed before the result was written
        assert P.restore(store) == []
        r = store.match_record(mid)
        assert r.finished and r.winners == (1,)
        assert store.rating(B, "voltage")[2] == 1


def rows(db, mid):
    """Every stored row of match ``mid`` (its match, seats and actions), read by plain SQLite."""
    import sqlite3

    c = sqlite3.connect(db)
    try:
        return (
            c.execute("SELECT * FROM matches WHERE id = ?", (mid,)).fetchall(),
            c.execute("SELECT * FROM seats WHERE match_id = ? ORDER BY seat", (mid,)).fetchall(),
            c.execute("SELECT * FROM actions WHERE match_id = ? ORDER BY idx", (mid,)).fetchall(),
        )
    finally:
        c.close()


async def test_a_match_that_cannot_be_restored_is_logged_and_left_untouched(tmp_path, caplog):
    seats = [{"name": "Alice", "identity": A}, {"name": "Bob", "identity": B}]
    with Store.open(tmp_path) as store:
        illegal = store.create_match("voltage", 1, seats)
        store.append_action(illegal, 0, "flip orange")  # never legal at the start
        garbled = store.create_match("voltage", 2, seats)
        store.append_action(garbled, 0, "%%% not an action")
        gap = store.create_match("voltage", 3, seats)
        store.append_action(gap, 0, "draw")
        store.append_action(gap, 2, "draw")  # action 1 is missing
        good = store.create_match("voltage", 4, seats)
        other = store.create_match("no-such-game", 1, [{"name": "x"}, {"name": "y"}])
    bad = (illegal, garbled, gap)
    before = {mid: rows(tmp_path / "voltage.db", mid) for mid in (*bad, other)}
    with Store.open(tmp_path) as store:
        restored = P.restore(store)
        assert [r.match_id for r in restored] == [good]  # the others do not stop it
    for mid in bad:
        assert rows(tmp_path / "voltage.db", mid) == before[mid]  # nothing deleted, nothing marked
        assert any(f"match {mid} cannot be restored" in r.getMessage() for r in caplog.records)
    assert "does_not_replay" in caplog.text and "gap" in caplog.text
    assert rows(tmp_path / "voltage.db", other) == before[other]  # no restorer yet: left alone


KILLED = textwrap.dedent(
    """
    import asyncio, os, random, signal, sys
    from server.store import persist as P
    from server.host.common import Seat
    from server.host.voltage import Match
    from server.store.db import Store

    async def main():
        store = Store.open(sys.argv[1])
        m = Match([Seat("Alice", "SHA256:alice"), Seat("Bob", "SHA256:bob")], seed=77, bot_delay=0)
        P.attach(store, m)
        rng = random.Random(9)
        for _ in range(30):
            seat = m.state.to_move
            await m.handle(seat).submit(rng.choice(m.view(seat).legal))
        print(repr(m.state.key()), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

    asyncio.run(main())
    """
)


async def test_restore_after_sigkill(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", KILLED, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == -9, out.stderr
    key = out.stdout.strip()
    with Store.open(tmp_path) as store:  # the dead server's lock is gone with it
        [rec] = P.restore(store)
        assert repr(rec.match.state.key()) == key


def test_text_leaderboard_lists_the_top_players_per_game(tmp_path):
    with Store.open(tmp_path) as store:
        assert "no rated players yet" in P.text_leaderboard(store)
        ids = [f"SHA256:p{i}" for i in range(25)]
        for i, ident in enumerate(ids):
            store.upsert_player(ident, f"player{i:02d}\x1b[31m")
        for i in range(24):  # a chain: each beats the next
            pair = [{"name": "a", "identity": ids[i]}, {"name": "b", "identity": ids[i + 1]}]
            mid = store.create_match("voltage", i, pair)
            store.finish_match(mid, [1, 2], "four sets", [4, 0])
        seats = [{"name": n, "identity": ids[i]} for i, n in enumerate("abc")]
        mid = store.create_match("high-voltage", 0, seats)
        store.finish_match(mid, [2, 1, 3], "last card")
        text = P.text_leaderboard(store)
    assert "\x1b" not in text
    voltage, high = text.split("\n\n")
    assert voltage.startswith("Voltage: top 20") and high.startswith("High Voltage: top 20")
    rows = voltage.splitlines()[2:]
    assert len(rows) == 20
    shown = [int(r.split()[2]) for r in rows]
    assert shown == sorted(shown, reverse=True)
    assert rows[0].split()[0] == "1"
    assert len(high.splitlines()[2:]) == 3


async def test_export_command_round_trips_through_replay(tmp_path):
    with Store.open(tmp_path) as store:
        m = humans(seed=31337)
        rec = P.attach(store, m)
        await play(m, 400, random.Random(4))
        if not m.over:
            await m.handle(0).resign()
        status, text = P.export_command(store, str(rec.match_id))
        assert status == 0
        data = json.loads(text)
        final = V.replay(data["seed"], [V.parse_action(a) for a in data["actions"]])
        assert final == m.state
        assert data["result"]["reason"] == m.state.reason
        assert data["result"]["scores"] == list(m.state.scores)
        assert P.export_command(store, "999")[0] == 1
        assert P.export_command(store, "x")[0] == 2
        assert P.export_command(store, None)[0] == 2


def test_the_stored_reasons_read_back_as_the_shared_endings_or_the_games_own():
    """The strings the ``reason`` column has always held stay as they are: a shared ending
    reads back as its termination, any other as the game's own (its detail)."""
    from engine.game import Outcome, Termination

    for reason in ("resignation", "time", "aborted", "agreement"):
        assert Outcome.ending(reason) == (Termination(reason), "")
    for reason in ("four sets", "neither player can act", "last card", "blocked"):
        termination, detail = Outcome.ending(reason)
        assert termination is Termination.RULES and detail == reason
        assert Outcome(termination, None, (1, 1), detail).reason == reason
