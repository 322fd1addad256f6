"""Nothing lost: a real ``voltage serve`` process, killed mid-match (SIGKILL, or stopped
with SIGTERM) and started again on the same data directory.  Both players reconnect with
their keys and find the same board and the same hands, and play goes on to the end.

The tests read the server's database (read-only, as ``voltage replay`` does) only as an
oracle: whose turn it is and what they hold, to decide which keys to press.
"""

from __future__ import annotations

import asyncio
import re
import signal
import time
from pathlib import Path

import asyncssh
import pytest

from server.host.voltage import restore as restore_voltage
from server.store.db import Store
from tests.support.e2e import hands_of, keys_for, totals
from tests.support.process import ServerProcess
from tests.support.terminal import Terminal
from tui.games.voltage import choices


@pytest.fixture
async def servers(tmp_path):
    """``await servers()`` -> a server on ``tmp_path / "data"``; a second call restarts it on the port the first got."""
    made: list[ServerProcess] = []

    async def start() -> ServerProcess:
        port = made[0].port if made else 0
        srv = await ServerProcess(tmp_path / "data", port).start()
        made.append(srv)
        return srv

    yield start
    for srv in made:
        await srv.kill()


class Oracle:
    """The running match, read from the database."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.store: Store | None = None

    def _store(self) -> Store:
        if self.store is None:
            self.store = Store.open(self.data_dir, readonly=True)
        return self.store

    def reopen(self) -> None:
        if self.store is not None:
            self.store.close()
            self.store = None

    def match_id(self) -> int:
        (rec,) = self._store().unfinished_matches()
        return rec.id

    def record(self, mid: int):
        return self._store().match_record(mid)

    def match(self, mid: int):
        return restore_voltage(self.record(mid))

    def close(self) -> None:
        self.reopen()


async def enter(port: int, username: str, key) -> Terminal:
    t = await Terminal(100, 32).connect(port, username, client_keys=[key])
    await t.wait_for("Your name")
    t.press("enter")
    await t.wait_for(f"you: {username}")
    return t


async def quiet(term: Terminal, since: float, for_: float = 0.15, timeout: float = 30.0) -> None:
    """Wait until ``term`` has drawn nothing for ``for_`` seconds (counting from ``since``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() - max(since, term.last_output) < for_:
        if time.monotonic() > deadline:
            raise AssertionError(f"the screen never settled:\n{term.text()}")
        await asyncio.sleep(0.02)


def offered(term: Terminal, view, names) -> bool:
    """The screen offers ``view``'s move: its prompt (``▶ ...``) and turn number are shown."""
    lines = term.screen.display
    want = choices.step_for(view, choices.NOTHING, names).prompt[:30]
    prompt = any(re.match(r"\s*▶ ", line) and want in line for line in lines[-8:])
    return prompt and any(re.search(rf"turn {view.turn}\b", line) for line in lines[:2])


async def play(oracle: Oracle, mid: int, terms: dict[int, Terminal], *, moves: int | None = None) -> int:
    """Play by keys (each step's first option, as test_e2e does) until the end or ``moves``."""
    n = 0
    seen = time.monotonic()
    while moves is None or n < moves:
        rec = oracle.record(mid)
        if rec.status != "running":
            return n
        m = restore_voltage(rec)
        if m.over:  # the last action is stored; its result follows in a moment
            await asyncio.sleep(0.02)
            continue
        seat = m.state.to_move
        term, view = terms[seat], m.view(seat)
        deadline = time.monotonic() + 15
        while not offered(term, view, m.names):
            if time.monotonic() > deadline:
                raise AssertionError(f"seat {seat} was never offered its move:\n{term.text()}")
            await asyncio.sleep(0.01)
        await quiet(term, seen, for_=0.05)
        before = len(rec.actions)
        keys = keys_for(view, m.names, app_mode=bool(n % 2), hands=hands_of(term))
        term.press(*keys)
        deadline = time.monotonic() + 10
        while True:
            rec2 = oracle.record(mid)
            if len(rec2.actions) > before or rec2.status != "running":
                break
            if time.monotonic() > deadline:
                raise AssertionError(f"{keys} from seat {seat} did nothing:\n{term.text()}")
            await asyncio.sleep(0.01)
        seen = time.monotonic()
        n += 1
    return n


def hand_rows(term: Terminal) -> list[str]:
    """The player's own hand, as drawn (the rows under the prompt line, left of the piles)."""
    lines = term.screen.display
    at = next(i for i, line in enumerate(lines) if re.search(r"[╭┏][─━] draw", line))
    return [line[:70].rstrip() for line in lines[at: at + 4]]


async def pair(port: int, ka, kb) -> tuple[Terminal, Terminal]:
    alice = await enter(port, "alice", ka)
    bob = await enter(port, "bob", kb)
    alice.press("enter")  # quick match
    await alice.wait_for("Waiting for an opponent")
    bob.press("enter")
    await alice.wait_for("VOLTAGE")
    await bob.wait_for("VOLTAGE")
    return alice, bob


CLOCK = re.compile(r"\b\d+:\d\d\b")  # a bank in the top bar ("4:32"): it ticks every second


def masked(term: Terminal) -> str:
    """The screen with the clocks' figures masked (they run on; everything else must match)."""
    return CLOCK.sub("#:##", term.text())


async def snapshot(terms: dict[int, Terminal], for_: float = 2.0, timeout: float = 15.0) -> dict[int, str]:
    """Every screen (clocks masked), once the rest has been still long enough for any
    flash to have ended (the clock repaints the top bar every second meanwhile)."""
    shown = {s: masked(t) for s, t in terms.items()}
    since = start = time.monotonic()
    while time.monotonic() - since < for_:
        if time.monotonic() - start > timeout:
            raise AssertionError(f"the screens never settled:\n{shown}")
        await asyncio.sleep(0.05)
        now = {s: masked(t) for s, t in terms.items()}
        if now != shown:
            shown, since = now, time.monotonic()
    return shown


async def test_kill_9_mid_match_then_restart_and_both_players_finish_it(servers, tmp_path):
    ka, kb = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    srv = await servers()
    oracle = Oracle(tmp_path / "data")
    alice = bob = None
    try:
        alice, bob = await pair(srv.port, ka, kb)
        mid = oracle.match_id()
        terms = {0: alice, 1: bob}
        await play(oracle, mid, terms, moves=8)
        while oracle.match(mid).view(None).phase in ("second", "flip"):
            # to the turn's end: within a turn a hand keeps its places (a gap, a drawn card in
            # it), which a new session's screen closes up
            await play(oracle, mid, terms, moves=1)
        before = oracle.match(mid)
        shown = await snapshot(terms)
        hands = {s: hand_rows(t) for s, t in terms.items()}
        for seat in (0, 1):  # each sees their own cards' faces (never backs)
            assert bool(before.view(seat).hand) == any(row.strip() for row in hands[seat])
            assert not any("▒" in row for row in hands[seat])

        await srv.stop(signal.SIGKILL)
        for t in (alice, bob):
            await asyncio.wait_for(t.closed.wait(), 30)

        srv = await servers()
        assert any("Restored 1 unfinished match" in line for line in srv.out), srv.out
        oracle.reopen()
        assert oracle.match(mid).state == before.state and oracle.record(mid).status == "running"

        # Both come back with their keys, straight into their seats.
        alice = await Terminal(100, 32).connect(srv.port, "alice", client_keys=[ka])
        await alice.wait_for("VOLTAGE")
        await alice.wait_for("waiting for bob to reconnect")
        bob = await Terminal(100, 32).connect(srv.port, "bob", client_keys=[kb])
        await bob.wait_for("VOLTAGE")
        await alice.wait_gone("waiting for bob")
        terms = {0: alice, 1: bob}
        again = await snapshot(terms)
        for seat in (0, 1):
            assert hand_rows(terms[seat]) == hands[seat]
            assert again[seat] == shown[seat], f"seat {seat} before:\n{shown[seat]}\nafter:\n{again[seat]}"
        v = before.view(None)
        if v.phase == "flip":  # the flip buttons cover the bottom totals row: check the top one
            top = [list(map(int, re.findall(r"Σ (\d+)", line))) for line in alice.screen.display if "Σ" in line]
            assert top[0] == [v.total(t, 1) for t in range(4)], alice.text()
        else:
            assert totals(alice) == [(v.total(t, 1), v.total(t, 0)) for t in range(4)]

        # Play on to the end; the match is stored as finished and rated.
        await play(oracle, mid, terms)
        rec = oracle.record(mid)
        assert rec.finished and len(rec.actions) > 8
        for t in terms.values():
            await t.wait_for(r"wins the match|drawn")
            await t.wait_for(r"alice: rating \d+ \([+-]\d+\)")
        store = oracle._store()
        changes = store.rating_changes(mid)
        assert set(changes) == {0, 1}
        assert {c.identity for c in changes.values()} == {ka.get_fingerprint("sha256"), kb.get_fingerprint("sha256")}
    finally:
        oracle.close()
        for t in (alice, bob):
            if t is not None:
                await t.close()


async def test_sigterm_stops_cleanly_and_the_match_comes_back(servers, tmp_path):
    ka, kb = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    srv = await servers()
    oracle = Oracle(tmp_path / "data")
    alice = bob = None
    try:
        alice, bob = await pair(srv.port, ka, kb)
        mid = oracle.match_id()
        await play(oracle, mid, {0: alice, 1: bob}, moves=3)
        before = oracle.match(mid)
        oracle.reopen()  # (the last connection to close removes the WAL file)
        assert await srv.stop(signal.SIGTERM) == 0
        assert not (tmp_path / "data" / "voltage.db-wal").exists()  # closed cleanly
        srv = await servers()
        oracle.reopen()
        alice = await Terminal(100, 32).connect(srv.port, "alice", client_keys=[ka])
        bob = await Terminal(100, 32).connect(srv.port, "bob", client_keys=[kb])
        for t in (alice, bob):
            await t.wait_for("VOLTAGE")
        assert oracle.match(mid).state == before.state
        await play(oracle, mid, {0: alice, 1: bob}, moves=2)
        assert len(oracle.record(mid).actions) == len(before.actions) + 2
    finally:
        oracle.close()
        for t in (alice, bob):
            if t is not None:
                await t.close()
