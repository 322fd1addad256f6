"""A store that never lies: a full disk refuses the move (and pauses the match) instead of
losing it; a stalled disk pauses only the matches waiting on it.

Faults without root tricks: ``PRAGMA max_page_count`` on the writer's connection makes
SQLite fail with SQLITE_FULL ("database or disk is full"), as a full disk does; a job
that blocks the writer thread on an Event is a stalled disk.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import threading
import time

import pytest

from engine.errors import IllegalActionError
from engine.highvoltage import rules as H
from engine.voltage import rules as V
from server.host import common as M
from server.host.common import Seat
from server.host.highvoltage import HVMatch
from server.host.voltage import Match
from server.lobby.core import Lobby
from server.store import persist as P
from server.store.db import Store
from server.store.persist import export_json
from tests.support.wait import until
from tests.support.words import notice_of, refused

A, B = "SHA256:alice", "SHA256:bob"
FILLER = 10**6  # filler rows sit right after a match's real actions, on the same pages


def failed_probes(monkeypatch, rec) -> list[Exception]:
    """The store probes of ``rec`` (a recorder) that fail from now on, as they fail: a paused match probes
    the store until a write succeeds."""
    failures: list[Exception] = []
    probe = rec.probe

    async def counted() -> None:
        try:
            await probe()
        except Exception as e:
            failures.append(e)
            raise

    monkeypatch.setattr(rec, "probe", counted)
    return failures


def in_writer(store: Store, fn):
    """Run ``fn`` on the store's writer connection, in order with its writes."""
    if hasattr(store, "in_writer"):
        return store.in_writer(fn).result(10)
    return fn(store._conn)  # a store without a writer thread (the code before it)


def fill(store: Store, match_id: int) -> None:
    """Make the database full: no page can be added (max_page_count), and the pages that
    hold ``match_id``'s log have no room left (packed with filler rows after it)."""

    def job(c: sqlite3.Connection) -> int:
        pages = c.execute("PRAGMA page_count").fetchone()[0]
        c.execute(f"PRAGMA max_page_count = {pages}")
        n = 0
        while True:
            try:
                c.execute("INSERT INTO actions (match_id, idx, action) VALUES (?, ?, '')", (match_id, FILLER + n))
            except sqlite3.OperationalError as e:
                assert "full" in str(e)
                return n
            n += 1

    assert in_writer(store, job) > 0


def make_room(store: Store, match_id: int) -> None:
    """Space comes back: the fillers go and the page limit is lifted."""

    def job(c: sqlite3.Connection) -> None:
        c.execute("DELETE FROM actions WHERE match_id = ? AND idx >= ?", (match_id, FILLER))
        c.execute("PRAGMA max_page_count = 1073741823")

    in_writer(store, job)


def stored(store: Store, match_id: int) -> tuple[str, ...]:
    record = store.match_record(match_id)
    assert record is not None and record.actions is not None
    return tuple(record.actions)


def real_actions(store: Store, match_id: int) -> list[str]:
    rows = store._q("SELECT action FROM actions WHERE match_id = ? AND idx < ? ORDER BY idx", (match_id, FILLER))
    return [r["action"] for r in rows]


def move(m: Match, rng: random.Random) -> tuple[int, V.Action]:
    seat = m.state.to_move
    return seat, rng.choice([a for a in m.view(seat).legal if not isinstance(a, V.Resign)])


async def test_a_full_disk_refuses_the_move_pauses_the_match_and_it_resumes_with_nothing_lost(tmp_path, monkeypatch):
    monkeypatch.setattr(M, "RETRY_SECONDS", (0.05,))
    rng = random.Random(3)
    with Store.open(tmp_path) as store:
        store.upsert_player(A, "Alice")
        store.upsert_player(B, "Bob")
        m = Match([Seat("Alice", A), Seat("Bob", B)], seed=21, bot_delay=0)
        rec = P.attach(store, m)
        failures = failed_probes(monkeypatch, rec)
        updates: list[M.Update] = []
        m.handle(0).subscribe(updates.append)
        for _ in range(5):
            seat, action = move(m, rng)
            await m.handle(seat).submit(action)
        mid = rec.match_id
        fill(store, mid)

        # The next move cannot be committed: it is refused, and nothing changes.
        state, n = m.state, len(m.actions)
        seat, action = move(m, rng)
        with refused("the server cannot save moves right now", IllegalActionError, "voltage"):
            await m.handle(seat).submit(action)
        assert m.state == state and len(m.actions) == n
        assert real_actions(store, mid) == [a.text() for a in m.actions]
        assert m.paused and "cannot save moves" in notice_of(m.notice)
        assert "cannot save moves" in notice_of(updates[-1].notice)  # every screen is told
        # Paused: anything else is refused the same way (a resignation too), and stays so.
        with refused("cannot save moves", IllegalActionError, "voltage"):
            await m.handle(1 - seat).resign()
        await until(lambda: len(failures) >= 3, what="three failed probes of the store")
        assert m.paused and len(m.actions) == n

        # Space comes back: the match resumes by itself, and the same move now goes through.
        make_room(store, mid)
        await until(lambda: not m.paused, what="the match to resume")
        assert m.notice == () and updates[-1].notice == ()
        await m.handle(seat).submit(action)
        assert len(m.actions) == n + 1
        await m.handle(0).resign()
        r = store.match_record(mid)
        assert r.finished and r.actions == tuple(a.text() for a in m.actions)
        assert set(store.rating_changes(mid)) == {0, 1}
        assert json.loads(export_json(store, mid))["actions"] == [a.text() for a in m.actions]


async def test_a_bot_waits_while_the_store_is_full_and_plays_on_after(tmp_path, monkeypatch):
    monkeypatch.setattr(M, "RETRY_SECONDS", (0.05,))
    with Store.open(tmp_path) as store:
        m = Match([Seat("Alice", A), Seat("Bot", bot="random")], seed=8, bot_delay=0)
        rec = P.attach(store, m)
        failures = failed_probes(monkeypatch, rec)
        mid = rec.match_id
        fill(store, mid)
        m.start()
        rng = random.Random(1)
        # Whoever moves first, the first committed move is refused and the match pauses.
        if m.state.to_move == 0:
            with refused("cannot save moves", IllegalActionError, "voltage"):
                await m.handle(0).submit(move(m, rng)[1])
        await until(lambda: m.paused, what="the pause")
        # While the store stays full the bot does not move: probes fail, and still no action is taken.
        await until(lambda: len(failures) >= 3, what="three failed probes of the store")
        assert m.actions == [] and real_actions(store, mid) == []
        make_room(store, mid)
        await until(lambda: not m.paused, what="the resume")
        for _ in range(6):
            if m.state.to_move == 0:
                await m.handle(0).submit(move(m, rng)[1])
            else:
                n = len(m.actions)
                await until(lambda n=n: len(m.actions) > n, what="the bot's move")
        # The bot may be moving (its move is stored, then applied): compare once its turn is over.
        await until(lambda: m.state.to_move == 0 or m.over, what="the bot's turn to end")
        assert real_actions(store, mid) == [a.text() for a in m.actions]
        m.close()


async def test_high_voltage_waits_for_the_store_before_go_and_keeps_its_log_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(M, "RETRY_SECONDS", (0.05,))
    with Store.open(tmp_path) as store:
        m = HVMatch([Seat("Alice", A), Seat("Bob", B)], seed=4, countdown_seconds=0.03)
        rec = P.attach(store, m)
        mid = rec.match_id
        fill(store, mid)
        m.start()
        await until(lambda: m.paused, what="go to be refused")
        assert m.state.phase == H.COUNTDOWN and m.actions == []
        with refused("cannot save moves", IllegalActionError, "voltage"):
            await m.handle(0).resign()
        make_room(store, mid)
        await until(lambda: m.state.phase == H.PLAY, what="go after the resume")
        assert not m.paused
        assert real_actions(store, mid) == [a.text() for a in m.actions]
        m.close()


async def test_a_result_is_never_stored_on_an_incomplete_log(tmp_path):
    with Store.open(tmp_path) as store:
        mid = store.create_match("voltage", 1, [{"name": "a", "identity": A}, {"name": "b", "identity": B}])
        store.append_action(mid, 0, "draw")
        with pytest.raises(Exception, match="1 of its 3 actions"):
            store.finish_match(mid, [1, 2], "resignation", actions=3)
        assert store.match_record(mid).status == "running"
        store.finish_match(mid, [1, 2], "resignation", actions=1)
        assert store.match_record(mid).finished


async def test_a_result_that_cannot_be_rated_is_still_finished_with_its_whole_log(tmp_path, caplog):
    with Store.open(tmp_path) as store:
        store.upsert_player(A, "Alice")
        m = Match([Seat("Alice", A), Seat("Alice again", A)], seed=2, bot_delay=0)
        rec = P.attach(store, m)
        rng = random.Random(2)
        for _ in range(4):
            seat, action = move(m, rng)
            await m.handle(seat).submit(action)
        await m.handle(0).resign()
        r = store.match_record(rec.match_id)
        assert r.finished and r.actions == tuple(a.text() for a in m.actions)
        assert store.rating(A, "voltage") is None and rec.changes == []
        assert f"match {rec.match_id}: finished but not rated" in caplog.text


async def test_a_result_the_store_cannot_take_is_retried_until_it_is_stored(tmp_path, monkeypatch):
    monkeypatch.setattr(P, "FINISH_RETRY_SECONDS", 0.05, raising=False)
    with Store.open(tmp_path) as store:
        store.upsert_player(A, "Alice")
        store.upsert_player(B, "Bob")
        m = Match([Seat("Alice", A), Seat("Bob", B)], seed=9, bot_delay=0)
        rec = P.attach(store, m)
        real = store.finish_match_async
        calls = []

        def flaky(*args, **kw):
            calls.append(args)
            if len(calls) == 1:
                raise sqlite3.OperationalError("disk I/O error")
            return real(*args, **kw)

        monkeypatch.setattr(store, "finish_match_async", flaky)
        await m.handle(1).resign()
        assert m.over
        await until(lambda: store.match_record(rec.match_id).finished, what="the result to be stored")
        assert store.match_record(rec.match_id).actions == ("resign 1",)
        assert set(store.rating_changes(rec.match_id)) == {0, 1}


class Stall:
    """A stalled disk: the writer thread blocks until released."""

    def __init__(self, store: Store) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()

        def job(c):
            self.entered.set()
            self.release.wait(30)

        self.done = store.in_writer(job)
        assert self.entered.wait(5)


async def test_a_stalled_store_pauses_only_the_match_waiting_on_it(tmp_path, monkeypatch):
    monkeypatch.setattr(M, "SLOW_SAVE_SECONDS", 0.05)
    rng = random.Random(7)
    with Store.open(tmp_path) as store:
        lobby = Lobby(None, store=store)
        recorded = Match([Seat("Alice", A), Seat("Bob", B)], seed=5, bot_delay=0)
        rec = P.attach(store, recorded)
        mid = rec.match_id
        other = Match([Seat("Carol"), Seat("Dan")], seed=6, bot_delay=0)  # keeps nothing on disk
        stall = Stall(store)
        try:
            seat, action = move(recorded, rng)
            first = asyncio.ensure_future(recorded.handle(seat).submit(action))
            second = asyncio.ensure_future(recorded.handle(1 - seat).resign())  # queued behind it
            t0 = time.monotonic()
            # Meanwhile the lobby and the other match go on as if nothing happened.
            player = lobby.connect("SHA256:erin", "erin")
            assert lobby.claim_name(player, "erin") == "erin"
            assert store.player("SHA256:erin").name == "erin"
            assert not store.name_free_for("erin", None)
            for _ in range(5):
                s, a = move(other, rng)
                await other.handle(s).submit(a)
            assert len(other.actions) == 5
            assert time.monotonic() - t0 < 10.0  # (held back, they would wait for the release: for ever)
            await until(lambda: "disk" in notice_of(recorded.notice), what="the slow-disk notice")
            assert not first.done() and not second.done() and recorded.actions == []
        finally:
            stall.release.set()
        await asyncio.wait_for(asyncio.gather(first, second), 30)
        # In order: the move, then the resignation; both stored, the match finished.
        assert [type(a) for a in recorded.actions] == [type(action), V.Resign]
        r = store.match_record(mid)
        assert r.finished and r.actions == tuple(a.text() for a in recorded.actions)
        assert recorded.notice == ()
        assert store.player("SHA256:erin").name == "erin"
        await asyncio.wrap_future(store.touch_player("SHA256:erin"))


def test_arriving_in_the_lobby_never_waits_for_the_disk(tmp_path):
    """A frozen file system holds reads too (a WAL reader writes its read mark into the
    mmapped -shm file): with the writer stalled *and* every read held, a key player
    still arrives, has their name checked and claimed, and is recognised."""
    with Store.open(tmp_path) as store:
        store.upsert_player(A, "alice")
        lobby = Lobby(None, store=store)
        stall = Stall(store)
        held, release_reads = threading.Event(), threading.Event()

        def stuck_reader():
            with store._mutex:
                held.set()
                release_reads.wait(30)

        reader = threading.Thread(target=stuck_reader)
        reader.start()
        assert held.wait(5)
        results: dict = {}

        def arrive():
            p = lobby.connect(A, "alice")
            results["suggested"] = lobby.suggest_name("alice", p)
            results["claimed"] = lobby.claim_name(p, "alice")
            q = lobby.connect("SHA256:newcomer", "newcomer")
            results["new"] = lobby.claim_name(q, "newcomer")
            results["taken"] = store.name_free_for("alice", "SHA256:newcomer")

        worker = threading.Thread(target=arrive)
        try:
            worker.start()
            worker.join(5)
            assert not worker.is_alive(), "arriving waited for the disk"
        finally:
            release_reads.set()
            stall.release.set()
            reader.join(5)
            worker.join(5)
        assert results == {"suggested": "alice", "claimed": "alice", "new": "newcomer", "taken": False}
        stall.done.result(5)
        store.touch_player(A).result(5)  # everything queued lands
    with Store.open(tmp_path) as store:
        assert store.player("SHA256:newcomer").name == "newcomer"
        assert store.name_owner("NEWCOMER") == "SHA256:newcomer"


async def test_a_move_whose_sender_gives_up_mid_commit_is_still_applied_and_stored(tmp_path):
    """A screen closed (its task cancelled) while its move was being written: the row
    lands, so the move must be applied too, or the next move's row would collide."""
    rng = random.Random(11)
    with Store.open(tmp_path) as store:
        m = Match([Seat("Alice", A), Seat("Bob", B)], seed=12, bot_delay=0)
        rec = P.attach(store, m)
        mid = rec.match_id
        stall = Stall(store)
        seat, action = move(m, rng)
        sent = asyncio.ensure_future(m.handle(seat).submit(action))
        await until(lambda: store._writer._queue.qsize() > 0, what="the move's write queued behind the stall")
        sent.cancel()
        stall.release.set()
        await until(lambda: len(m.actions) == 1, what="the move to be applied")
        assert real_actions(store, mid) == [action.text()]
        seat, action = move(m, rng)
        await m.handle(seat).submit(action)
        assert real_actions(store, mid) == [a.text() for a in m.actions] and len(m.actions) == 2
        assert not m.paused


async def test_the_player_s_cannot_save_line_goes_when_the_match_resumes(tmp_path, monkeypatch):
    # After a full disk was freed the match resumed, but the player's line "the server cannot save
    # moves right now" stayed on the screen until their next key.
    from tests.tui.helpers import FixedBackend, match_screen, screen_text
    from tui.app import make_app
    from tui.pacing import FAST

    monkeypatch.setattr(M, "RETRY_SECONDS", (0.05,))
    rng = random.Random(3)
    with Store.open(tmp_path) as store:
        store.upsert_player(A, "Alice")
        store.upsert_player(B, "Bob")
        m = Match([Seat("Alice", A), Seat("Bob", B)], seed=21, bot_delay=0)
        rec = P.attach(store, m)
        seat = m.state.to_move
        app = make_app(FixedBackend([m.handle(seat)]), player_name="Alice", pacing=FAST)
        async with app.run_test(size=(120, 40)):
            await until(lambda: match_screen(app) is not None and match_screen(app).is_mounted)
            screen = match_screen(app)
            assert screen is not None
            fill(store, rec.match_id)
            _, action = move(m, rng)
            await screen.submit(action)  # as the player's keys send it
            await until(lambda: "the server cannot save moves right now" in screen_text(app),
                             what="the refusal shown")
            assert m.paused
            make_room(store, rec.match_id)
            await until(lambda: not m.paused, what="the match to resume")
            await until(lambda: "cannot save moves" not in screen_text(app),
                             what=lambda: f"the line to go:\n{screen_text(app)}")
            assert not m.actions  # the move was not made: the player makes it again
        m.close()
