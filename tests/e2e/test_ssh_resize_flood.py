"""A flood of resizes leaves nothing behind: each window-change request reaches the session as an
exception asyncssh raises, whose traceback made a reference cycle with it; the server's collector
policy freezes what survives, so each one stayed for good (13-15 MB per 10,000, measured in
``benchmarks/attack.py``).  Here the collector is off and everything frozen, as the policy leaves
the server: only reference counts can free them."""

from __future__ import annotations

import asyncio
import gc

import asyncssh
import pytest

from tests.support.terminal import Terminal

SIZES = [(0, 0), (100000, 100000), (65535, 65535), (80, 24), (1, 1), (120, 40)]


@pytest.fixture
def frozen_collector():
    gc.collect()
    gc.freeze()
    gc.disable()
    yield
    gc.enable()
    gc.unfreeze()
    gc.collect()


def left_behind() -> int:
    return sum(isinstance(o, asyncssh.TerminalSizeChanged) for o in gc.get_objects())


async def test_resizes_leave_no_garbage_for_a_collector_that_never_comes(start_server, echo_app, frozen_collector):
    srv = await start_server(echo_app)
    t = await Terminal(100, 32).connect(srv.port, "bob")
    try:
        await t.wait_for("hello bob")
        before = left_behind()
        for i in range(600):
            t.chan.change_terminal_size(*SIZES[i % len(SIZES)])
            if i % 50 == 0:
                await asyncio.sleep(0.01)
        t.resize(91, 31)
        await t.wait_for("size 91x31")
        assert left_behind() - before < 10
        assert not t.closed.is_set()
    finally:
        await t.close()
