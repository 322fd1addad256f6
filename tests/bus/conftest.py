"""Fixtures for the bus contract: a host side and an edge side over each implementation.

On the in-process bus host and edge share the one instance (as in ``voltage
serve``); on Redis each side has its own connection (as separate processes do),
in a namespace of its own per test.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from server.bus import Bus
from server.bus.local import LocalBus
from tests.support.redis import redis_server, redis_url  # noqa: F401  (fixtures)


@dataclass
class Sides:
    kind: str
    host: Bus
    edge: Bus
    url: str | None = None
    namespace: str = ""
    opened: list[Bus] = field(default_factory=list)

    async def another(self, **options: Any) -> Bus:
        """One more party on the same bus (a second edge, a restarted host)."""
        if self.kind == "local":
            return self.host
        from server.bus.redis import RedisBus

        assert self.url is not None  # a Redis side has its server's URL
        bus = await RedisBus.connect(self.url, namespace=self.namespace, **options)
        self.opened.append(bus)
        return bus


@pytest.fixture(params=["local", "redis"])
async def sides(request) -> AsyncIterator[Sides]:
    if request.param == "local":
        bus = LocalBus(strict=True)
        yield Sides("local", bus, bus)
        await bus.close()
        return
    s = await _redis_sides(request.getfixturevalue("redis_url"))
    yield s
    for opened in s.opened:
        await opened.close()


@pytest.fixture
async def redis_sides(request) -> AsyncIterator[Sides]:
    """Host and edge over Redis only (for Redis's own faults)."""
    s = await _redis_sides(request.getfixturevalue("redis_url"))
    yield s
    for bus in s.opened:
        await bus.close()


async def _redis_sides(url: str) -> Sides:
    from server.bus.redis import RedisBus

    ns = f"t{uuid.uuid4().hex[:8]}"  # a namespace per test: nothing leaks between tests
    host = await RedisBus.connect(url, namespace=ns)
    edge = await RedisBus.connect(url, namespace=ns)
    return Sides("redis", host, edge, url, ns, [host, edge])


class HostPump:
    """Reads the host's intent feed in a task into a queue, so tests can wait with a deadline."""

    def __init__(self, bus: Bus, *, ack: bool = True) -> None:
        self.bus = bus
        self.ack = ack
        self.items: asyncio.Queue[Any] = asyncio.Queue()
        self.task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        async for item in self.bus.intents():
            self.items.put_nowait(item)
            if self.ack:
                await self.bus.ack(item)

    async def take(self, n: int, timeout: float = 30.0) -> list[Any]:
        return [await asyncio.wait_for(self.items.get(), timeout) for _ in range(n)]

    async def stop(self) -> None:
        self.task.cancel()
        try:
            await self.task
        except asyncio.CancelledError:
            pass


@pytest.fixture
async def pump():
    """``pump(bus, ack=True)`` -> a running :class:`HostPump`; stopped at the end."""
    pumps: list[HostPump] = []

    def make(bus: Bus, **kw: Any) -> HostPump:
        p = HostPump(bus, **kw)
        pumps.append(p)
        return p

    yield make
    for p in pumps:
        await p.stop()
