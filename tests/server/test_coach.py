"""The coach on the server: hints only against a bot, a hinted match stored as such and never
rated, an analysis made once and kept, one per player at a time, and never in a live
match's bots' way."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from engine.errors import IllegalActionError
from engine.voltage import rules as V
from server import coach as C
from server.host.common import Seat
from server.host.voltage import Match
from server.store import persist as P
from server.store.db import Store
from tests.server.test_commands import finished_match
from tui.ports import Note

A, B = "SHA256:alice", "SHA256:bob"


@pytest.fixture
def coach():
    """The process's coach on a thread, with a small search (the figures are not the point)."""
    pool = ThreadPoolExecutor(max_workers=1)
    c = C.Coach(executor=pool, hint_iterations=40, analysis_iterations=20)
    C.use(c)
    yield c
    C.use(None)
    pool.shutdown(wait=True)


def _first_seed(player: int) -> int:
    return next(seed for seed in range(100) if V.new_match(seed).first_player == player)


def against_bot(seed: int | None = None) -> Match:
    """Alice (seat 0, to move first) against a bot."""
    seed = _first_seed(0) if seed is None else seed
    return Match([Seat("Alice", A), Seat("Easy bot", bot="easy")], seed=seed, bot_delay=0, control=None)


async def test_a_hinted_match_is_stored_as_such_and_never_rated(tmp_path, coach):
    with Store.open(tmp_path) as store:
        store.upsert_player(A, "Alice")
        store.upsert_player(B, "Bob")
        m = against_bot()
        rec = P.attach(store, m)
        handle = m.handle(0)
        assert handle.may_hint and not handle.hinted
        hint = await handle.hint()
        assert hint.action in m.view(0).legal
        assert handle.hinted and Note.of("hint_used", name="Alice") in m.log
        await handle.resign()
        assert rec.changes == [] and store.rating_changes(rec.match_id) == {}
        record = store.match_record(rec.match_id)
        assert record.finished and record.hinted
        item = P.history_item(record, A)
        assert item.hinted and item.delta is None
        assert P.export(store, rec.match_id)["hinted"] is True
        # The mark alone keeps a result unrated (as a restored hinted match has it), where the
        # same result between two people is rated.
        plain, marked = (Match([Seat("Alice", A), Seat("Bob", B)], seed=_first_seed(0), bot_delay=0)
                         for _ in range(2))
        rec_plain, rec_marked = P.attach(store, plain), P.attach(store, marked)
        marked.hinted = True
        await plain.handle(1).resign()
        await marked.handle(1).resign()
        assert rec_plain.changes and rec_marked.changes == []


async def test_a_restored_hinted_match_stays_unrated(tmp_path, coach):
    with Store.open(tmp_path) as store:
        store.upsert_player(A, "Alice")
        m = against_bot()
        rec = P.attach(store, m)
        await m.handle(0).hint()
        await m.handle(0).submit(m.view(0).legal[0])
        store.probe()  # (the writer has done what was queued before)
        restored = P.restore(store)
        assert len(restored) == 1 and restored[0].match.hinted
        await restored[0].match.handle(0).resign()
        assert restored[0].changes == [] and store.match_record(rec.match_id).hinted


async def test_no_hints_between_people_nor_out_of_turn(coach):  # (set_bot needs a running loop)
    people = Match([Seat("Alice", A), Seat("Bob", B)], seed=_first_seed(0), bot_delay=0)
    assert not people.handle(0).may_hint and not people.handle(1).may_hint
    with pytest.raises(IllegalActionError) as e:
        await people.handle(0).hint()
    assert e.value.code == "no_hints_vs_people" and not people.hinted
    people.set_bot(1, "medium")  # Bob dropped and a bot keeps his seat: still a match between people
    assert not people.handle(0).may_hint
    people.close()
    m = Match([Seat("Easy bot", bot="easy"), Seat("Alice", A)], seed=_first_seed(0), bot_delay=0)
    with pytest.raises(IllegalActionError) as e:
        await m.handle(1).hint()  # the bot is to move
    assert e.value.code == "not_your_turn" and not m.hinted


async def test_an_analysis_is_made_once_and_kept_with_the_match(tmp_path, coach):
    with Store.open(tmp_path) as store:
        store.upsert_player(A, "Alice")
        store.upsert_player(B, "Bob")
        mid = finished_match(store, 21)
        record = store.match_record(mid)
        seen: list[tuple[int, int]] = []
        kept = C.Coach(store, coach.executor, analysis_iterations=20)
        first = await kept.analysis(record, A, lambda done, total: seen.append((done, total)))
        assert len(first.moves) == len(record.actions) and seen[-1] == (len(record.actions),) * 2
        started = time.monotonic()  # another coach (a restart), whose search would take the Expert's full budget
        again = await C.Coach(store, coach.executor, analysis_iterations=None).analysis(record, B)
        assert again.to_json() == first.to_json()  # read back (as stored), not searched again
        assert time.monotonic() - started < 5.0


async def test_one_analysis_per_player_at_a_time(tmp_path):
    gate = threading.Event()
    pool = ThreadPoolExecutor(max_workers=1)

    class Held(C.Coach):
        async def _run(self, record, progress):
            await asyncio.get_running_loop().run_in_executor(pool, gate.wait)
            return []

    with Store.open(tmp_path) as store:
        one, two = finished_match(store, 31), finished_match(store, 32)
        coach = Held(store, pool)
        first = asyncio.ensure_future(coach.analysis(store.match_record(one), A))
        await asyncio.sleep(0)
        with pytest.raises(C.CoachError) as e:
            await coach.analysis(store.match_record(two), A)
        assert e.value.code == "analysis_busy"
        other = asyncio.ensure_future(coach.analysis(store.match_record(two), B))  # another player may
        gate.set()
        assert (await first).moves == () and (await other).moves == ()
        await coach.analysis(store.match_record(two), A)  # and Alice again, once hers is done
    pool.shutdown(wait=True)


async def test_analysis_never_delays_a_live_matchs_bot_beyond_its_cap(tmp_path):
    """Analyses keep the coach's worker busy the whole time; a live match's Hard bot, in
    the bots' own pool, still moves within its think cap every time."""
    from engine.voltage.bots import THINK_CAPS

    bots = ThreadPoolExecutor(max_workers=1)
    coach = C.Coach(executor=ThreadPoolExecutor(max_workers=1), analysis_iterations=400)
    with Store.open(tmp_path) as store:
        records = [store.match_record(finished_match(store, seed)) for seed in (41, 42, 43)]
        busy = [asyncio.ensure_future(coach.analysis(r, f"player{i}")) for i, r in enumerate(records)]
        m = Match([Seat("Hard bot", bot="hard"), Seat("Medium bot", bot="medium")], seed=5, bot_delay=0,
                  executor=bots, control=None)
        waits: list[float] = []
        last = [time.monotonic()]

        def moved(_update: object) -> None:
            now = time.monotonic()
            waits.append(now - last[0])
            last[0] = now

        m.handle(None).subscribe(moved)
        m.start()
        await wait_until_moves(m, 12)
        assert not all(f.done() for f in busy), "the analyses were running all along"
        m.close()
        for f in busy:
            f.cancel()
    cap = THINK_CAPS["hard"]
    assert waits and max(waits) < cap + 1.0, f"a bot move waited {max(waits):.2f} s (cap {cap} s)"
    coach.close()
    coach.executor.shutdown(wait=False, cancel_futures=True)
    bots.shutdown(wait=False, cancel_futures=True)


async def wait_until_moves(m: Match, n: int, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while len(m.actions) < n and not m.over:
        assert time.monotonic() < end, "the bots stopped moving"
        await asyncio.sleep(0.01)


async def test_a_hint_is_not_kept_waiting_by_an_analysis(tmp_path):
    """A hint (a second's search for a player at the table) has a worker of its own: one waited
    behind a minute-long analysis on the only worker and timed out on the split server."""
    gate = threading.Event()
    analyses = ThreadPoolExecutor(max_workers=1)
    analyses.submit(gate.wait)  # the analyses' worker busy, for as long as the test says
    hints = ThreadPoolExecutor(max_workers=1)
    coach = C.Coach(executor=analyses, hint_executor=hints, hint_iterations=40, analysis_iterations=20)
    try:
        with Store.open(tmp_path) as store:
            record = store.match_record(finished_match(store, 41))
            analysing = asyncio.ensure_future(coach.analysis(record, A))
            s = V.new_match(3)
            hint = await asyncio.wait_for(coach.hint(V.view(s, s.to_move)), 30)
            assert hint.action in V.view(s, s.to_move).legal
            assert not analysing.done()  # (still queued behind the busy worker)
            gate.set()
            assert (await asyncio.wait_for(analysing, 60)).match_id == record.id
    finally:
        gate.set()
        analyses.shutdown(wait=True)
        hints.shutdown(wait=True)


def test_a_coach_of_its_own_has_one_worker_for_hints_and_another_for_analyses():
    coach = C.Coach()
    try:
        assert coach.hint_executor is not coach.executor
    finally:
        coach.close()
