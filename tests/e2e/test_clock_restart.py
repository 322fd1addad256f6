"""The clock survives a kill -9: a real ``voltage serve`` is killed mid-match and started
again; each seat's bank comes back as the control less the time its stored actions
used (with the increments), the waiting seat's exactly, and the time the server was
down is not charged to the seat to move.

The database is read (read-only) only as an oracle, as in ``test_restart``.
"""

from __future__ import annotations

import asyncio
import re
import signal
import time

import asyncssh

from engine import clock as CL
from tests.e2e.test_restart import Oracle, pair, play, servers  # noqa: F401  (a fixture)
from tests.support.e2e import top_line
from tests.support.terminal import Terminal
from tests.support.wait import until

BANK = re.compile(r"\b(\d+):(\d\d)\b")
DOWN = 3.0  # seconds the server stays dead


def banks(term: Terminal) -> list[int]:
    """The banks in a screen's top bar, in seconds: (the opponent's, one's own)."""
    return [int(m) * 60 + int(s) for m, s in BANK.findall(top_line(term))]


async def test_the_clock_survives_a_kill_9_with_the_time_used_so_far(servers, tmp_path):  # noqa: F811
    ka, kb = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    srv = await servers()
    oracle = Oracle(tmp_path / "data")
    alice = bob = None
    try:
        alice, bob = await pair(srv.port, ka, kb)
        mid = oracle.match_id()
        terms = {0: alice, 1: bob}
        await play(oracle, mid, terms, moves=3)
        # The mover thinks for a while, then moves: that time is stored with the move.
        mover = oracle.match(mid).state.to_move
        await asyncio.sleep(1.5)
        await play(oracle, mid, terms, moves=1)
        rec = oracle.record(mid)
        assert rec.time_control == CL.DEFAULT.text
        assert all(u is not None for u in rec.used_ms) and max(rec.used_ms) >= 1400
        before = oracle.match(mid)  # the clock folded from the stored actions
        expected = {s: before.remaining_ms(s) for s in (0, 1)}
        assert expected[mover] <= 300_000 + 5_000 - 1_400  # the thinking was charged
        to_move = before.state.to_move

        await srv.stop(signal.SIGKILL)
        for t in (alice, bob):
            await asyncio.wait_for(t.closed.wait(), 30)
        await asyncio.sleep(DOWN)
        restarted = time.monotonic()  # (the server restores and starts the match before it listens)
        srv = await servers()
        oracle.reopen()
        assert oracle.match(mid).state == before.state

        alice = await Terminal(100, 32).connect(srv.port, "alice", client_keys=[ka])
        bob = await Terminal(100, 32).connect(srv.port, "bob", client_keys=[kb])
        terms = {0: alice, 1: bob}
        for t in terms.values():
            await t.wait_for("VOLTAGE")
        waiting = 1 - to_move
        # The waiting seat's bank, as both screens show it: exactly what its stored actions left.
        want = CL.format_ms(expected[waiting])
        for seat, t in terms.items():
            await until(lambda t=t: len(banks(t)) == 2, what=lambda t=t: t.text())
            own, opp = banks(t)[1], banks(t)[0]
            shown = own if seat == waiting else opp
            assert CL.format_ms(shown * 1000) == want, t.text()
        # The mover's bank resumed from its stored value: the down time is not charged.
        t = terms[to_move]
        left = banks(t)[1] * 1000  # (whole seconds, rounded up)
        since = (time.monotonic() - restarted) * 1000
        assert expected[to_move] - since - 1000 <= left < expected[to_move] + 1000, (left, expected, since)
        # The next move's stored time counts from the restart, never the time the server was down.
        await play(oracle, mid, terms, moves=1)
        rec2 = oracle.record(mid)
        assert len(rec2.actions) == len(rec.actions) + 1
        assert rec2.used_ms[-1] <= (time.monotonic() - restarted) * 1000  # the DOWN seconds before are not in it
    finally:
        oracle.close()
        for t in (alice, bob):
            if t is not None:
                await t.close()
