"""Budgets of what clients cost the shared event loop, for any transport: token buckets, and the
penalties of a client over them.

Two budgets are each client's:

- a **session's input** (the driver's :class:`~server.session.driver.InputLimits`): bytes and keys
  per second, counted where the app gets them;
- a **connection's traffic** (:class:`ConnectionLimits`, kept by a :class:`ConnectionBudget`):
  messages (SSH packets, a WebSocket's frames) and bytes per second, counted where the transport
  reads them, before anything is decoded for a session.  Every message costs the loop its decoding
  and dispatch whatever it holds: 100,000 one-byte SSH packets stalled everyone's keys by up to
  2.3 s although the key budget held, since a 256 KB read of them was handled in one go.

The penalties are OpenSSH's idea: a client over its budget is first **slowed** (the transport stops
reading its socket until the tokens are due again, so the kernel's flow control holds the client
back and nothing piles up in the server), and one still over it after ``close_after`` seconds without
a break is **closed**.  A transport also hands what it read to the protocol at most ``slice`` bytes
per turn of the loop, so that one read of a socket's buffer is never decoded in one go.

A transport keeps one :class:`ConnectionBudget` per connection (:mod:`server.ssh.connection` for
SSH) and calls :meth:`ConnectionBudget.spend` with what it has just handled.

Two are the process's, kept by :class:`~server.session.sessions.Sessions` for every transport:

- **whole-screen frames** of every session (:class:`RedrawBudget`), in cells: a big one waits its
  turn, a usual terminal's never does;
- **new sessions** per address and overall (:class:`StartLimits`, a :class:`KeyedBudget`).  Each
  new session starts an app (~0.1 s of the loop); an address that opens sessions in a loop, within
  the caps of connections, would otherwise buy a tenth of the loop per session.  SSH refuses a
  session over it at once, with a line saying when to try again; the web holds the page's hello
  until its turn (the page cannot be told to retry as a person can).
"""

from __future__ import annotations

import time
from dataclasses import dataclass


class Bucket:
    """A token bucket: ``take(n)`` says how long to wait before those ``n`` are due."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = max(rate, 1e-6)
        self.burst = burst
        self.tokens = burst
        self._t = time.monotonic()

    def take(self, n: float) -> float:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self._t) * self.rate)
        self._t = now
        self.tokens -= n
        return 0.0 if self.tokens >= 0 else -self.tokens / self.rate

    def try_take(self, n: float) -> bool:
        """Take ``n`` if they are there now; never goes into debt."""
        if self.take(0) == 0 and self.tokens >= n:
            self.tokens -= n
            return True
        return False

    @property
    def rested(self) -> bool:
        return self.tokens >= self.burst / 2


@dataclass(frozen=True)
class StartLimits:
    """New sessions (an app each): per address, ``per_address_burst`` at once, then one every
    ``per_address_every`` seconds; overall, ``overall_burst`` at once, then ``overall_per_second``.
    A person opens a session or two at a time (a second terminal, a replay, coming back after a
    drop); the overall budget bounds many addresses at once (see the module's notes)."""

    per_address_burst: float = 2.0
    per_address_every: float = 5.0
    overall_burst: float = 100.0
    overall_per_second: float = 20.0


class AddressBuckets:
    """A token bucket per key (an address), made full at its first use; past ``MAX_KEYS`` keys, those
    whose buckets are full again are forgotten, and the oldest down to nine tenths of it (so that
    the next few thousand new keys do not look again)."""

    MAX_KEYS = 10_000

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.buckets: dict[str, Bucket] = {}

    def __call__(self, key: str) -> Bucket:
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= self.MAX_KEYS:
                self._forget_rested()
            bucket = self.buckets[key] = Bucket(self.rate, self.burst)
        return bucket

    def get(self, key: str) -> Bucket | None:
        """``key``'s bucket, if it has one (none made)."""
        return self.buckets.get(key)

    def _forget_rested(self) -> None:
        for key, bucket in list(self.buckets.items()):
            bucket.take(0)
            if bucket.tokens >= bucket.burst:
                del self.buckets[key]
        for key in list(self.buckets)[: max(0, len(self.buckets) - self.MAX_KEYS * 9 // 10)]:
            del self.buckets[key]


class KeyedBudget:
    """A token bucket per key (an address) and one for everyone: :meth:`take` is False when either
    is empty (and then takes nothing), :meth:`due` says when it would be True."""

    def __init__(self, burst: float, rate: float, overall_burst: float, overall_rate: float) -> None:
        self.burst, self.rate = burst, max(rate, 1e-6)
        self.overall = Bucket(overall_rate, overall_burst)
        self._bucket = AddressBuckets(self.rate, self.burst)

    @classmethod
    def of(cls, limits: StartLimits) -> KeyedBudget:
        return cls(limits.per_address_burst, 1 / max(limits.per_address_every, 1e-6), limits.overall_burst,
                   limits.overall_per_second)

    def due(self, key: str) -> float:
        """Seconds until ``take(key)`` would succeed (0: now)."""
        mine = self._bucket.get(key)
        waits = [0.0]
        for bucket in (mine, self.overall):
            if bucket is not None:
                bucket.take(0)
                waits.append((1 - bucket.tokens) / bucket.rate)
        return max(waits)

    def charge(self, key: str, n: float = 1.0) -> None:
        """Spend ``n`` of ``key``'s tokens whether they are there or not (a penalty: its debt at most
        ``burst``, everyone's budget untouched)."""
        mine = self._bucket(key)
        mine.take(n)
        mine.tokens = max(mine.tokens, -mine.burst)

    def debt(self, key: str) -> float:
        """Seconds until ``key`` is out of debt (0: it is not in debt)."""
        mine = self._bucket.get(key)
        if mine is None:
            return 0.0
        mine.take(0)
        return max(0.0, -mine.tokens / mine.rate)

    def take(self, key: str) -> bool:
        mine = self._bucket(key)
        if self.due(key) > 0:
            return False
        mine.tokens -= 1
        self.overall.tokens -= 1
        return True


@dataclass(frozen=True)
class RedrawLimits:
    """Whole-screen frames (a session's first, a resize's, a repaint's) of every session of a
    process: ``cells_per_second`` (~2 us of the loop a cell: 100,000 a second is a fifth of it),
    ``cells_burst`` at once (one 400x200 frame: a burst of several took a loaded loop for seconds);
    a frame of at most ``free_cells`` (a usual terminal) never waits."""

    cells_per_second: float = 100_000.0
    cells_burst: float = 100_000.0
    free_cells: int = 200 * 60


class RedrawBudget:
    """One budget of whole-screen frames for every session of a process, each costing its cells:
    fifty 400x200 sessions resizing at once drew 4 million cells in one go (the loop's for ~10 s,
    a new login's name screen with it); a big frame over the budget waits its turn (the driver
    keeps the latest size asked for), a small one never waits (an 80x24 login is not queued
    behind big frames) but counts, and so does a first frame."""

    def __init__(self, limits: RedrawLimits | None = None) -> None:
        self.limits = limits = limits or RedrawLimits()
        self.cells = Bucket(limits.cells_per_second, limits.cells_burst)
        self.held = 0  # frames made to wait so far

    def charge(self, cells: int) -> None:
        """``cells`` drawn whatever the budget says (a session's first frame)."""
        self.cells.take(cells)
        self.cells.tokens = max(self.cells.tokens, -self.cells.burst)  # (a debt of at most a burst)

    def ask(self, cells: int) -> float:
        """0: draw these ``cells`` now (charged); else the seconds to wait before asking again."""
        bucket = self.cells
        bucket.take(0)
        if cells <= self.limits.free_cells or bucket.tokens >= 0:
            self.charge(cells)
            return 0.0
        self.held += 1
        return -bucket.tokens / bucket.rate


@dataclass(frozen=True)
class ConnectionLimits:
    """What one connection may send, whatever it carries (see the module's notes).  A person's
    session sends tens of packets a second (keys, a mouse, a window dragged to a new size)."""

    messages_per_second: float = 250.0
    messages_burst: float = 1000.0
    bytes_per_second: float = 256 * 1024
    bytes_burst: float = 1024 * 1024
    close_after: float = 10.0  # seconds over budget without a break: closed
    slice: int = 8 * 1024  # bytes handed to the protocol per turn of the loop


class ConnectionBudget:
    """One connection's budget of messages and bytes, and how long it has been over it."""

    def __init__(self, limits: ConnectionLimits | None = None) -> None:
        self.limits = limits = limits or ConnectionLimits()
        self.messages = Bucket(limits.messages_per_second, limits.messages_burst)
        self.bytes = Bucket(limits.bytes_per_second, limits.bytes_burst)
        self.over_since: float | None = None
        self.slowed = 0  # how many times the connection was held back

    def spend(self, messages: int, nbytes: int) -> float | None:
        """Charge what was just handled: how many seconds to stop reading the connection for (0:
        read on), or None: it has been over its budget for ``close_after`` seconds, close it."""
        wait = max(self.messages.take(messages), self.bytes.take(nbytes))
        now = time.monotonic()
        if wait <= 0:
            if self.over_since is not None and self.messages.rested and self.bytes.rested:
                self.over_since = None
            return 0.0
        if self.over_since is None:
            self.over_since = now
        elif now - self.over_since >= self.limits.close_after:
            return None
        self.slowed += 1
        return min(wait, self.limits.close_after)

    @property
    def over_for(self) -> float:
        """Seconds the connection has been over its budget without a break (0: it is not)."""
        return 0.0 if self.over_since is None else time.monotonic() - self.over_since
