"""The bus between the host (lobby, matches, clocks, store) and the edges (SSH + Textual).

One small async interface, two implementations: :class:`server.bus.local.LocalBus`
(in-process, asyncio queues; what ``voltage serve`` without options uses) and
:class:`server.bus.redis.RedisBus` (``redis.asyncio``; ``voltage serve --redis URL``).
Both pass one contract suite (``tests/bus/test_bus_contract.py``), so the host and
edge code is written once against :class:`Bus`.

What crosses it, and the guarantees (decisions, with reasons):

- **Intents** (edge -> host): :class:`Intent` = match, seat, session, seq, payload.
  ``send_intent`` returns once the intent is accepted by the bus; the host reads
  them with ``intents()`` in the order they were accepted and calls ``ack`` once it
  has applied one.  A retried intent with the same ``(session, seq)`` is delivered
  **once** (the edge may retry blindly after a timeout or a lost connection; the
  check is made where the intent is accepted, atomically with accepting it, and
  lasts ``dedupe_ttl`` seconds).  On Redis an intent read but not acked is
  delivered again to a restarted host (the consumer group's pending list), so the
  host must ack only what it has committed; what it acked is never needed again.
  ``request_full(match, seat)`` travels on the same ordered channel as a
  :class:`FullRequest`, so the host answers it after every intent sent before it.
- **Updates** (host -> edge): per seat channel ``(match, seat)``; spectators use a
  seat of their own choosing the host agrees on (e.g. ``-1``).  Only per-seat
  views cross the bus, never a state: payloads are JSON-able dicts.  Every update
  carries the match's ``version`` (its action count); updates may be lost (Redis
  pub/sub is at most once, and a subscriber that reconnects misses what was sent
  meanwhile), so a subscriber checks :func:`gap` and calls ``request_full``; the
  host answers with a ``full=True`` update.  A subscriber never receives another
  seat's channel.
- **A seat's second stream** (host -> edge): :class:`SeatMessage` on the channel
  ``(match, seat)`` beside its updates, for everything that is not a move (a status
  notice, chat lines; presence next).  A message carries no version, never enters
  the game's log and is never refetched: ``publish_message`` sends it to whoever listens
  now.  ``subscribe_seat(match, seat)`` gives both streams of a seat in one subscription,
  in the order they were published (a notice said after an update is read after it);
  ``subscribe_updates`` gives the updates alone.  Who may read a message is who
  subscribes to its seat: a seat's channel reaches only the edges drawing that seat, so a
  message for the players' seats never reaches a spectator's edge (seat ``-1``).
- **Lobby snapshot** (host -> every edge): ``publish_lobby`` coalesces: at most one
  publish per ``lobby_interval`` (1 s), the latest snapshot wins, and the last one
  is never dropped (it is published at the end of the interval).  ``lobby()``
  yields the latest known snapshot first (a new edge needs no wait), then each
  published one.
- **Presence**: ``heartbeat(edge_id, ttl)`` marks an edge alive for ``ttl``
  seconds; ``alive_edges()`` is the set not expired, so the host sees an edge that
  died (kill -9) within one ttl and starts its players' reconnect grace.
  ``presence_age()`` says how long the marks have been kept: a Redis restarted empty
  has lost them all, and the set proves nothing until the edges had a ttl to beat again.
- **Lobby calls** (an edge session's name claim, quick match, room...) are requests
  with replies, outside this interface: :mod:`server.bus.rpc` (Redis lists: a
  request feed for the host, an inbox per edge for the answers and pushes).
- **Connection state**: ``state`` is ``"connected"``, ``"reconnecting"`` or
  ``"closed"``; ``on_state(callback)`` is called on each change so an edge can tell
  its players.  Operations on a lost connection are retried with backoff until it
  returns; they do not raise.  Only connecting at start raises, with one clear
  :class:`BusUnavailable`, and so does any send after ``close()``.
"""

from __future__ import annotations

import abc
import asyncio
import math
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

__all__ = [
    "Bus",
    "BusUnavailable",
    "FullRequest",
    "Intent",
    "LobbyCoalescer",
    "SeatMessage",
    "Subscription",
    "Update",
    "gap",
]

JSON = dict[str, Any]


class BusUnavailable(ConnectionError):
    """The bus's backend cannot be reached at start: ``cannot reach Redis at URL: reason``."""


@dataclass(frozen=True)
class Intent:
    """A player's action for the host: ``(session, seq)`` identifies it across retries."""

    match: str
    seat: int
    session: str
    seq: int
    payload: JSON = field(default_factory=dict)
    #: The bus's own delivery tag (the Redis stream entry id); the host passes the
    #: intent back to ``ack``.  Not part of equality.
    tag: str = field(default="", compare=False)


@dataclass(frozen=True)
class FullRequest:
    """An edge asks the host for the full view of ``(match, seat)`` (it saw a gap)."""

    match: str
    seat: int
    tag: str = field(default="", compare=False)


@dataclass(frozen=True)
class Update:
    """A per-seat view (or change) of a match at ``version`` (its action count)."""

    match: str
    seat: int
    version: int
    payload: JSON
    full: bool = False


@dataclass(frozen=True)
class SeatMessage:
    """A message on the second stream of ``(match, seat)``: not a move, no version."""

    match: str
    seat: int
    payload: JSON


def gap(last_version: int | None, update: Update) -> bool:
    """True when ``update`` cannot be applied after ``last_version``: ask for the full view.

    A full update always applies.  Without a baseline (``None``) only a full update
    applies.  Otherwise the update must be the next version or the same one (a
    match may publish several updates at one action count, e.g. a clock or an
    offer); an older version is stale and a newer-than-next one means something
    was missed.
    """
    if update.full:
        return False
    if last_version is None:
        return True
    return update.version not in (last_version, last_version + 1)


StateCallback = Callable[[str], None]
T = TypeVar("T")


class Subscription(Generic[T]):
    """A live subscription: ``async for item in sub`` until ``await sub.close()``.

    Items wait in a bounded queue (``maxsize``); when a slow reader lets it fill,
    the oldest item is dropped, which a subscriber of updates sees as a version
    :func:`gap` (so one stuck screen costs memory of at most ``maxsize`` views).
    """

    def __init__(self, on_close: Callable[[Subscription[T]], Any] | None = None, maxsize: int = 256) -> None:
        self._queue: asyncio.Queue[T | _Closed] = asyncio.Queue()
        self._maxsize = maxsize
        self._on_close = on_close
        self.closed = False

    def put(self, item: T) -> None:
        """Deliver ``item`` (called by the bus, never blocks)."""
        if self.closed:
            return
        if self._queue.qsize() >= self._maxsize:
            self._queue.get_nowait()
        self._queue.put_nowait(item)

    def __aiter__(self) -> Subscription[T]:
        return self

    async def __anext__(self) -> T:
        if self.closed and self._queue.empty():
            raise StopAsyncIteration
        item = await self._queue.get()
        if isinstance(item, _Closed):
            raise StopAsyncIteration
        return item

    async def get(self, timeout: float | None = None) -> T:
        """The next item, waiting at most ``timeout`` seconds (``TimeoutError``)."""
        return await asyncio.wait_for(self.__anext__(), timeout)

    def end(self) -> None:
        """Stop the iteration after the items already queued (the bus is closing)."""
        if not self.closed:
            self.closed = True
            self._queue.put_nowait(_Closed())

    async def close(self) -> None:
        """Unsubscribe and drop what is queued; an ``async for`` over it ends."""
        if self.closed:
            return
        while not self._queue.empty():
            self._queue.get_nowait()
        self.end()
        if self._on_close is not None:
            result = self._on_close(self)
            if asyncio.iscoroutine(result):
                await result


class _Closed:
    """The end marker in a subscription's queue."""


class Bus(abc.ABC):
    """The interface; see the module docstring for the guarantees."""

    def __init__(self, *, lobby_interval: float = 1.0) -> None:
        self.state = "connected"
        self._state_callbacks: list[StateCallback] = []
        self._lobby = LobbyCoalescer(self._publish_lobby_now, lobby_interval)

    # -- connection state ---------------------------------------------------------
    def on_state(self, callback: StateCallback) -> None:
        """Call ``callback(state)`` on every change of ``state``."""
        self._state_callbacks.append(callback)

    def _check_open(self) -> None:
        if self.state == "closed":
            raise BusUnavailable(f"the bus is closed ({type(self).__name__})")

    def _set_state(self, state: str) -> None:
        if state == self.state or self.state == "closed":
            return
        self.state = state
        for callback in list(self._state_callbacks):
            callback(state)

    # -- intents (edge -> host) -----------------------------------------------------
    @abc.abstractmethod
    async def send_intent(self, intent: Intent) -> bool:
        """Hand ``intent`` to the host; False when ``(session, seq)`` was already accepted."""

    @abc.abstractmethod
    async def request_full(self, match: str, seat: int) -> None:
        """Ask the host to publish the full view of ``(match, seat)``."""

    @abc.abstractmethod
    def intents(self) -> AsyncIterator[Intent | FullRequest]:
        """The host's ordered feed of intents and full-view requests (one host reads it)."""

    @abc.abstractmethod
    async def ack(self, item: Intent | FullRequest) -> None:
        """The host has applied ``item``: it is never delivered again."""

    # -- updates (host -> edge) -----------------------------------------------------
    @abc.abstractmethod
    async def publish_update(self, match: str, seat: int, version: int, payload: JSON, *, full: bool = False) -> None:
        """Send a per-seat view to whoever subscribes to ``(match, seat)`` now."""

    async def publish_updates(self, updates: Sequence[tuple[str, int, int, JSON, bool]]) -> None:
        """Several per-seat views, each ``(match, seat, version, payload, full)``, in order
        (as :meth:`publish_update` each; a bus may send them in one go)."""
        for match, seat, version, payload, full in updates:
            await self.publish_update(match, seat, version, payload, full=full)

    @abc.abstractmethod
    async def subscribe_updates(self, match: str, seat: int) -> Subscription[Update]:
        """Updates of ``(match, seat)`` published from the return of this call on."""

    # -- a seat's second stream (host -> edge) -----------------------------------------
    async def publish_message(self, match: str, seat: int, payload: JSON) -> None:
        """Send a message (not a move: no version) to whoever subscribes to ``(match, seat)`` now."""
        await self.publish([SeatMessage(match, seat, payload)])

    async def publish(self, items: Sequence[Update | SeatMessage]) -> None:
        """Updates and messages, each to its seat, in this order (a bus may send them in one go)."""
        for item in items:
            if isinstance(item, SeatMessage):
                await self._publish_messages([item])
            else:
                await self.publish_update(item.match, item.seat, item.version, item.payload, full=item.full)

    @abc.abstractmethod
    async def _publish_messages(self, messages: Sequence[SeatMessage]) -> None:
        """Send each message to its seat's subscribers, in order."""

    @abc.abstractmethod
    async def subscribe_seat(self, match: str, seat: int) -> Subscription[Update | SeatMessage]:
        """Both streams of ``(match, seat)``, updates and messages, in the order they were
        published, from the return of this call on."""

    # -- lobby (host -> every edge) -------------------------------------------------
    async def publish_lobby(self, snapshot: JSON | Callable[[], JSON]) -> None:
        """Publish the lobby snapshot, coalesced: at most one per interval, latest wins.

        ``snapshot`` may be a function that makes it: called only when a snapshot goes
        out, so a lobby that changes at every move is not encoded at every move."""
        await self._lobby.offer(snapshot)

    @abc.abstractmethod
    async def _publish_lobby_now(self, snapshot: JSON) -> None:
        """Publish one snapshot to every lobby subscriber (called by the coalescer)."""

    @abc.abstractmethod
    async def lobby(self) -> Subscription[JSON]:
        """The latest snapshot (if any), then every one published from this call on."""

    # -- presence -------------------------------------------------------------------
    @abc.abstractmethod
    async def heartbeat(self, edge_id: str, ttl: float) -> None:
        """``edge_id`` is alive for ``ttl`` more seconds."""

    @abc.abstractmethod
    async def alive_edges(self) -> set[str]:
        """The edges whose last heartbeat has not expired."""

    async def presence_age(self) -> float:
        """Seconds the presence marks have been kept (``inf``: as long as this bus lived).  A
        store that restarted empty lost every edge's mark: until a ttl has passed since, an
        edge missing from :meth:`alive_edges` may only not have beaten again yet."""
        return math.inf

    # -- lifetime -------------------------------------------------------------------
    async def close(self) -> None:
        """Flush a pending lobby snapshot, stop every feed, release the connection."""
        await self._lobby.close()
        self._set_state("closed")

    async def __aenter__(self) -> Bus:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class LobbyCoalescer:
    """At most one ``publish`` per ``interval``; the latest offered snapshot wins.

    The first snapshot after a quiet interval goes out at once (a lobby change shows
    without delay); later ones within the interval replace each other and the last
    goes out when the interval ends, so the final state is never lost.  A snapshot
    offered as a function is made when it goes out (the ones replaced never are).
    """

    def __init__(self, publish: Callable[[JSON], Any], interval: float) -> None:
        self._publish = publish
        self.interval = interval
        self._last = float("-inf")
        self._pending: JSON | Callable[[], JSON] | None = None
        self._timer: asyncio.Task[None] | None = None

    async def offer(self, snapshot: JSON | Callable[[], JSON]) -> None:
        now = time.monotonic()
        if self._timer is None and now - self._last >= self.interval:
            self._last = now
            await self._publish(_made(snapshot))
            return
        self._pending = snapshot
        if self._timer is None:
            self._timer = asyncio.get_running_loop().create_task(self._flush_later())

    async def _flush_later(self) -> None:
        try:
            await asyncio.sleep(max(0.0, self._last + self.interval - time.monotonic()))
            snapshot = self._pending
            self._last = time.monotonic()
            if snapshot is not None:
                await self._publish(_made(snapshot))
            if self._pending is snapshot:  # cleared only once out: close() may still send it
                self._pending = None
        finally:
            self._timer = None

    async def close(self) -> None:
        """Publish what is pending now (a host stopping says its last word)."""
        timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
            try:
                await timer
            except asyncio.CancelledError:
                pass
        snapshot, self._pending = self._pending, None
        if snapshot is not None:
            await self._publish(_made(snapshot))


def _made(snapshot: JSON | Callable[[], JSON]) -> JSON:
    return snapshot() if callable(snapshot) else snapshot
