"""An SSH connection's input, paced by its budget (:mod:`server.session.budget`): what the socket brings
is handed to asyncssh a slice per turn of the loop, and the packets and bytes each slice held are
charged to the connection's :class:`~server.session.budget.ConnectionBudget`.  Over budget, the
socket is not read until the tokens are due (the client's TCP then waits on its side); over it for
``close_after`` seconds, the connection is closed.

asyncssh decodes everything a read brings in one call, each packet cut from the front of one bytes
buffer (a copy of the rest per packet): 256 KB of one-byte packets (some 4,000 of them) took the loop
for a quarter of a second, every read.  The slices keep that buffer small and each turn short.

This reaches into asyncssh (pinned to 2.24.x in pyproject for that reason, as the packet-size guard
does): the connection's ``data_received`` is replaced on the instance (the transport calls it by
name), its ``_recv_seq`` counts the packets decoded, its ``_recv_handler`` and ``_inpbuf`` say
whether it holds what it was given undecoded, and its ``_transport`` is paused and resumed.  Where
those are missing, packets are estimated from the bytes (one per 64).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from server.session.budget import ConnectionBudget

log = logging.getLogger(__name__)

BYTES_PER_PACKET_GUESS = 64


def _held(conn: Any) -> bool:
    """Is asyncssh handling a packet in a task (its receive handler a placeholder meanwhile)?"""
    return getattr(getattr(conn, "_recv_handler", None), "__name__", "") == "<lambda>"


class PacedInput:
    """Feeds one asyncssh connection what its socket reads, paced by ``budget``; ``over()`` is called
    (once) when the connection stayed over its budget for too long."""

    def __init__(self, conn: Any, budget: ConnectionBudget, over: Callable[[], None]) -> None:
        self.conn = conn
        self.budget = budget
        self._over = over
        self._feed: Callable[[bytes], None] = conn.data_received  # asyncssh's own
        self._backlog = bytearray()
        self._handle: asyncio.Handle | None = None
        self._paused = False
        self._closed = False
        self.packets = 0  # decoded so far
        conn.data_received = self.data_received  # the transport calls the connection's by name

    def data_received(self, data: bytes, datatype: Any = None) -> None:
        if self._closed:
            return
        self._backlog += data
        if self._handle is None:
            self._step()

    def close(self) -> None:
        self._closed = True
        self._backlog.clear()
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _step(self) -> None:
        self._handle = None
        if self._closed:
            return
        if not self._backlog:
            self._pause(False)
            return
        conn = self.conn
        limit = self.budget.limits.slice
        if _held(conn) and len(getattr(conn, "_inpbuf", b"")) >= limit:
            # asyncssh keeps what it is given, undecoded, while a packet is handled in a task (the
            # key exchange, some logins), then decodes it all at once: give it no more meanwhile
            self._later(0.01)
            return
        chunk = bytes(self._backlog[:limit])
        del self._backlog[:limit]
        before = getattr(conn, "_recv_seq", None)
        self._feed(chunk)
        after = getattr(conn, "_recv_seq", None)
        if isinstance(before, int) and isinstance(after, int):
            packets = after - before if after >= before else after + 1  # (strict kex starts again at 0)
        else:
            packets = len(chunk) // BYTES_PER_PACKET_GUESS + 1
        self.packets += packets
        delay = self.budget.spend(packets, len(chunk))
        if delay is None:
            self.close()
            self._over()
            return
        if delay > 0 or self._backlog:
            self._later(delay)
        else:
            self._pause(False)

    def _later(self, delay: float) -> None:
        self._pause(True)
        loop = asyncio.get_running_loop()
        self._handle = loop.call_later(delay, self._step) if delay > 0 else loop.call_soon(self._step)

    def _pause(self, paused: bool) -> None:
        if paused == self._paused:
            return
        transport = getattr(self.conn, "_transport", None)
        if transport is None:
            return
        try:
            if paused:
                transport.pause_reading()
            else:
                transport.resume_reading()
            self._paused = paused
        except (RuntimeError, AttributeError):  # closing
            pass
