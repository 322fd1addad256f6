"""A split server for tests: a private redis-server, the host in the test's own process
(its lobby is the oracle the e2e helpers read, as with the one-process server), and edge
processes (real ``voltage edge`` subprocesses, each on a port of its own so a test can
send each client to the edge it wants; in production they share one port).

The host runs in-process on purpose: a test can read its matches directly, and a
``kill -9`` of an edge is a real one.  Restarting the host is :meth:`Cluster.restart_host`
(the host's state is only what the store keeps, as after a kill -9).
"""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import asyncssh
import pytest

from server.bus.redis import RedisBus
from server.bus.rpc import HostCalls
from server.cluster.host import HostService
from server.lobby.core import Lobby
from tests.support.redis import redis_server, redis_url  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parents[2]
_SERVING = re.compile(rb"edge (\w+) serving on port (\d+)")
START_DEADLINE = 120.0  # seconds an edge process may take to serve (a new interpreter on a loaded machine)


class EdgeProcess:
    """One ``voltage edge`` subprocess (``port`` read back from its first line)."""

    def __init__(self, url: str, key_file: Path, log: Path) -> None:
        self.url, self.key_file, self.log = url, key_file, log
        self.proc: asyncio.subprocess.Process | None = None
        self.port = 0
        self.id = ""

    async def start(self) -> EdgeProcess:
        self._err = open(self.log, "ab")
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "voltage", "edge", "--redis", self.url, "--host-key", str(self.key_file),
            "--host", "127.0.0.1", "--port", "0", "--fast",
            cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=self._err,
        )
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), START_DEADLINE)
        m = _SERVING.match(line)
        assert m, (line, self.log.read_text())
        self.id, self.port = m.group(1).decode(), int(m.group(2))
        return self

    def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)

    async def stop(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), 10)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        self._err.close()


class Cluster:
    """The host (in-process: ``lobby``, ``service``) and its edges."""

    def __init__(self, url: str, tmp: Path, *, grace: float = 2.0, keep: bool = False) -> None:
        self.url, self.tmp, self.grace = url, tmp, grace
        self.data = tmp / "data" if keep else None  # a store (players, ratings, match logs)
        self.key_file = tmp / "host_key"
        self.key_file.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key())
        self.executor = ThreadPoolExecutor(max_workers=2)
        self.edges: list[EdgeProcess] = []
        self.lobby: Any = None
        self.service: HostService | None = None
        self.store: Any = None

    async def start_host(self) -> None:
        if self.data is not None:
            from server.store.db import Store

            self.store = Store.open(self.data)
        self.bus = await RedisBus.connect(self.url, consumer="host")
        self.calls = HostCalls(self.url, bus=self.bus)
        await self.calls.start()
        self.lobby = Lobby(self.executor, grace=self.grace, bot_offer_after=0.5, bot_delay=0.0, store=self.store)
        if self.store is not None:
            self.lobby.restore()
        self.service = HostService(self.lobby, self.bus, self.calls)
        await self.service.start()

    async def stop_host(self) -> None:
        if self.service is not None:
            await self.service.close()
            for h in list(self.lobby.matches.values()):
                h.match.close()
            await self.calls.close()
            await self.bus.close()
            self.service = None
        if self.store is not None:
            self.store.close()
            self.store = None

    async def kill_host(self) -> None:
        """As a kill -9 would: the host's tasks and connections stop where they are; only
        what the store committed is left (nothing is finished or said)."""
        assert self.service is not None
        for task in self.service._tasks:
            task.cancel()
        for h in list(self.lobby.matches.values()):
            for grace in h.grace.values():
                grace.cancel()
            h.match.recorder = None  # nothing more reaches the store from this host
            h.match.close()
        self.lobby.presence.close()
        await self.calls.close()
        await self.bus.close()
        if self.store is not None:
            self.store.close()
            self.store = None
        self.service = None
        self.lobby = None

    async def add_edge(self, url: str | None = None) -> EdgeProcess:
        """An edge on the cluster's Redis (or at ``url``: through a :class:`tests.support.partition.Relay`)."""
        edge = await EdgeProcess(url or self.url, self.key_file, self.tmp / f"edge{len(self.edges)}.log").start()
        self.edges.append(edge)
        return edge

    async def close(self) -> None:
        for edge in self.edges:
            await edge.stop()
        await self.stop_host()
        self.executor.shutdown(wait=False, cancel_futures=True)

    def logs(self) -> str:
        return "\n".join(f"--- {e.log.name}\n{e.log.read_text(errors='replace')}" for e in self.edges)


@pytest.fixture
async def cluster(redis_server, tmp_path):  # noqa: F811
    c = Cluster(redis_server.url, tmp_path)
    c.redis = redis_server
    await c.start_host()
    yield c
    await c.close()


@pytest.fixture
async def kept_cluster(redis_url, tmp_path):  # noqa: F811
    """A cluster whose host keeps a store (it can be killed and restarted)."""
    c = Cluster(redis_url, tmp_path, keep=True)
    await c.start_host()
    yield c
    await c.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test's report carries its cluster's edge logs (each edge is a process of its own: what it
    logged is otherwise lost with its temporary directory)."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    funcargs = getattr(item, "funcargs", {})
    for name in ("cluster", "kept_cluster"):
        c = funcargs.get(name)
        if isinstance(c, Cluster):
            report.sections.append((f"edge logs ({name})", c.logs()))


def wait_deadline(timeout: float) -> float:
    return time.monotonic() + timeout
