"""A server's log shows no traceback in normal use, its shutdown included: a real ``voltage serve``
process, a replay left with ``q`` (twice), a player who leaves the lobby, one in a match against a bot
when SIGTERM comes right after another session ended."""

from __future__ import annotations

import asyncio
import signal

from server.store.db import Store
from tests.server.test_commands import KA, KB, finished_match
from tests.support.process import ServerProcess
from tests.support.terminal import Terminal

# One address per session: the server's budget of new sessions (2 at once from an address, then
# one per 5 s) is not what this test is about.
ADDRESSES = ((f"127.0.0.{i}", 0) for i in range(10, 250))
BAD = ("Traceback", "Task exception", "never awaited", "never retrieved", "ERROR", "Task was destroyed")


async def test_replays_sessions_and_a_shutdown_leave_no_traceback_in_the_log(tmp_path):
    d = tmp_path / "data"
    with Store.open(d) as store:
        store.upsert_player(KA, "Alice")
        store.upsert_player(KB, "Bob")
        mid = finished_match(store, 11)
    srv = await ServerProcess(d).start()
    terminals: list[Terminal] = []
    try:
        for _ in range(2):
            t = await Terminal(100, 32).connect(srv.port, "carol", command=f"replay {mid}", local_addr=next(ADDRESSES))
            terminals.append(t)
            await t.wait_for(r"every hand")
            t.send("q")
            await asyncio.wait_for(t.closed.wait(), 10)
        playing = await Terminal(100, 32).connect(srv.port, "dave", local_addr=next(ADDRESSES))
        terminals.append(playing)
        await playing.wait_for("Your name")
        playing.press("enter")
        await playing.wait_for("you: dave")
        playing.press("down", "down", "down", "enter")  # the first "Play a bot" choice
        await playing.wait_for("VOLTAGE")
        leaving = await Terminal(100, 32).connect(srv.port, "erin", local_addr=next(ADDRESSES))
        terminals.append(leaving)
        await leaving.wait_for("Your name")
        leaving.press("enter")
        await leaving.wait_for("you: erin")
        await leaving.close()
        assert await srv.stop(signal.SIGTERM) == 0
    finally:
        for t in terminals:
            await t.close()
        await srv.kill()
    assert srv.proc is not None and srv.proc.stdout is not None
    log = "".join(srv.out) + (await srv.proc.stdout.read()).decode()
    assert not [bad for bad in BAD if bad in log], log
