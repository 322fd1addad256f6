"""Requests with replies over Redis: an edge's lobby calls to the host, per session.

The seat intents and updates have their own channels (:class:`server.bus.Bus`); what
is left is the lobby: a name claim, a quick match, a room, a bot, watching, a
rematch, the leaderboard.  Each is a request naming its session and carrying a
correlation id (a :class:`~server.bus.frames.RequestFrame` around the declared call);
the host answers each once.  Every call is awaited: the edge's event loop never waits
on Redis, so one session's lobby call never holds up another's screen.  Keys, under
the bus's namespace:

- ``NS:req``: a list; edges ``RPUSH`` requests, the host ``BLMPOP``\\s them (one reader,
  requests are short: the host runs each in a task, so a slow one, a quick match, waits
  there).
- ``NS:inbox:EDGE``: a list per edge for the answers to its calls, the results of its
  seats' intents, and what the host pushes to a session (a room filled, "superseded",
  "follow"), each an :class:`~server.bus.frames.InboxFrame`.  One reader task per edge
  ``BLMPOP``\\s it, so nothing depends on pub/sub's at-most-once delivery; the host gives
  each inbox a TTL, so a dead edge's inbox goes away.  A host that does not answer within
  a call's timeout (it is restarting) is :class:`NoReply` (the screens say "not answering").

A timeout measures the host's silence, not the edge's own lateness: an edge starved of CPU
(a burst of arrivals drawing their screens) may read its inbox seconds after the host
answered, so when a call's time is up the edge first reads its inbox once more (a read that
began after that moment) and says "not answering" only if the answer is not there.

A request carries its ``deadline`` (wall clock): the host drops a request whose
caller has given up, so a restarted host never acts on a call nobody waits for.  A frame
an older or newer peer sent that cannot be read is logged and dropped (a request that
cannot be read is answered with a failure by the host, one layer up).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from server.bus import BusUnavailable, wire
from server.bus.frames import FRAMES, InboxFrame, RequestFrame
from server.wire.codec import CodecError

if TYPE_CHECKING:
    from server.bus.redis import RedisBus

log = logging.getLogger(__name__)
INBOX_TTL = 120  # seconds: an inbox nobody reads (its edge died) is dropped by Redis
LATE_READ = 5.0  # seconds at most, past a call's time, for one more read of the inbox (Redis away: no answer)


class NoReply(Exception):
    """The host did not answer in time (or Redis is unreachable)."""


async def pop_batch(client: aioredis.Redis, key: str, timeout: float, count: int) -> list[Any]:
    """Up to ``count`` items from the head of the list ``key``, waiting at most ``timeout`` s
    for the first ([] then): one round trip (``BLMPOP``, Redis 7)."""
    got: Any = await client.blmpop(timeout, 1, key, direction="LEFT", count=count)
    return list(got[1]) if got else []


def _one_connection(url: str) -> aioredis.Redis:
    """A client of one connection: its commands wait their turn (never a new connection
    per command opened at once, as a plain client's pool does under a burst)."""
    return aioredis.Redis.from_pool(aioredis.BlockingConnectionPool.from_url(
        url, max_connections=1, timeout=None, decode_responses=True, socket_connect_timeout=3.0))


class EdgeCalls:
    """An edge's side: its calls (awaited), and the inbox of answers and pushes.

    What an edge asks at one moment goes in one ``RPUSH`` on one connection (a burst of
    arrivals, 120 people pressing quick match within a second, is a few round trips, not
    120 connections opened at once on a starved edge, each of which could time out), and
    the inbox is read a batch a round trip (:func:`pop_batch`).  The requests leave in the
    order they were made."""

    READ_BATCH = 100  # inbox messages read in one round trip after the first

    def __init__(self, url: str, edge: str, *, namespace: str = "voltage") -> None:
        self.url = url
        self.edge = edge
        self.ns = namespace
        self._ids = itertools.count(1)
        # one connection for the requests, one for the inbox's blocking read (each waits its turn)
        self._write = _one_connection(url)
        self._read = _one_connection(url)
        self._waiting: dict[str, asyncio.Future[Any]] = {}
        self._push: Callable[[Any], None] = lambda payload: None
        self._reader: asyncio.Task[None] | None = None
        self._outgoing: list[tuple[str | bytes, asyncio.Future[None]]] = []
        self._sender: asyncio.Task[None] | None = None
        self.inbox = f"{namespace}:inbox:{edge}"
        self._read_from = float("-inf")  # when the latest delivered read of the inbox began (loop time)
        self._read_done: asyncio.Event | None = None  # set at each delivered read, then replaced
        self._closing = False

    async def start(self, on_push: Callable[[Any], None]) -> None:
        try:
            await self._write.ping()
            await self._read.ping()
        except (RedisError, OSError) as error:
            raise BusUnavailable(f"cannot reach Redis at {self.url}: {error}") from None
        self._push = on_push
        self._reader = asyncio.get_running_loop().create_task(self._read_inbox(), name="edge-inbox")

    def _request(self, session: str, payload: Any, reply: str, timeout: float, rid: str) -> str | bytes:
        frame = RequestFrame(rid, self.edge, session, time.time() + timeout, reply, payload)
        return wire.dumps(FRAMES.encode(frame))

    def expect(self, rid: str) -> asyncio.Future[Any]:
        """A future for the payload of the inbox frame with id ``rid`` (an intent's result)."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = future

        def done(f: asyncio.Future[Any]) -> None:
            if self._waiting.get(rid) is f:  # (not a later one for the same id: a retry's)
                del self._waiting[rid]

        future.add_done_callback(done)
        return future

    def new_id(self) -> str:
        return f"{self.edge}:{next(self._ids)}"

    async def call(self, session: str, payload: Any, timeout: float | None = None) -> Any:
        """Send a request and await its answer's payload in the inbox (``timeout`` None: as
        long as it takes); :class:`NoReply` when Redis refuses it or the host does not answer."""
        rid = self.new_id()
        future = self.expect(rid)
        # the host drops it after the longest this call may wait (its time, then one more read)
        deadline = timeout + max(timeout, LATE_READ) if timeout is not None else 24 * 3600.0
        try:
            await self._send(self._request(session, payload, self.inbox, deadline, rid))
        except NoReply:
            future.cancel()
            raise
        return await self.answer(future, timeout)

    async def answer(self, future: asyncio.Future[Any], timeout: float | None) -> Any:
        """The payload ``future`` (from :meth:`expect`) receives; :class:`NoReply` if the host
        had not answered ``timeout`` seconds from now (None: wait as long as it takes).  When the
        time is up, the inbox is read once more before saying so: an answer the host gave in
        time but that this edge, busy, has not read yet still counts."""
        if timeout is None:
            return await future
        try:
            try:
                return await asyncio.wait_for(asyncio.shield(future), timeout)
            except TimeoutError:
                pass
            try:
                late = asyncio.get_running_loop().time()
                await asyncio.wait_for(self._read_after(late, future), max(timeout, LATE_READ))
            except TimeoutError:
                pass  # the inbox cannot be read (Redis away): no answer either way
            if future.done() and not future.cancelled():
                return future.result()
        finally:
            future.cancel()  # (done: a no-op; else nobody waits for it any more)
        raise NoReply(f"no reply within {timeout:g} s")

    async def _read_after(self, moment: float, future: asyncio.Future[Any]) -> None:
        """Return once a read of the inbox that began after ``moment`` has been delivered
        (or ``future`` has its answer)."""
        while self._read_from < moment and not future.done():
            if self._read_done is None:
                self._read_done = asyncio.Event()
            await self._read_done.wait()

    def _send(self, data: str | bytes) -> asyncio.Future[None]:
        """Queue ``data`` for the next ``RPUSH``; done once Redis took it."""
        loop = asyncio.get_running_loop()
        sent: asyncio.Future[None] = loop.create_future()
        self._outgoing.append((data, sent))
        if self._sender is None or self._sender.done():
            self._sender = loop.create_task(self._send_all(), name="edge-requests")
        return sent

    async def _send_all(self) -> None:
        while self._outgoing:
            await asyncio.sleep(0)  # the rest of this moment's requests join
            batch, self._outgoing = self._outgoing, []
            try:
                await self._write.rpush(f"{self.ns}:req", *(data for data, _ in batch))
            except (RedisError, OSError) as error:
                for _, sent in batch:
                    if not sent.done():
                        sent.set_exception(NoReply(str(error)))
                continue
            for _, sent in batch:
                if not sent.done():
                    sent.set_result(None)

    async def _read_inbox(self) -> None:
        delay = 0.05
        loop = asyncio.get_running_loop()
        while not self._closing:
            began = loop.time()
            try:
                got = await pop_batch(self._read, self.inbox, 1, self.READ_BATCH)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError):
                await asyncio.sleep(delay)
                delay = min(2.0, delay * 2)
                continue
            delay = 0.05
            for data in got:
                self._deliver(data)
            self._read_from = began
            if self._read_done is not None:
                self._read_done.set()
                self._read_done = None

    def _deliver(self, data: str | bytes) -> None:
        try:
            frame = FRAMES.decode(wire.loads(data))
        except (CodecError, ValueError) as error:  # an older or newer host's: said, and dropped
            log.warning("dropped an inbox message that cannot be read: %s", error)
            return
        future = self._waiting.get(frame.id) if frame.id is not None else None
        if future is not None:
            if not future.done():
                future.set_result(frame.payload)
        elif frame.id is None:
            try:
                self._push(frame.payload)
            except Exception:  # pragma: no cover - a session's handler failed
                log.exception("push handler failed")

    async def close(self) -> None:
        self._closing = True
        for task in (self._reader, self._sender):
            if task is not None:
                await stop_task(task)  # (the reader also stops after its current read)
        for future in list(self._waiting.values()):
            future.cancel()
        for _, sent in self._outgoing:
            sent.cancel()
        await self._write.aclose()
        await self._read.aclose()


async def stop_task(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and wait until it has ended.  A cancel that lands in a blocking read
    may be swallowed by the Redis client (the read goes on, its loop with it): so it is
    cancelled again every half second until it ends, a read's block (a second) at most."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=0.5)
    if not task.cancelled():
        task.exception()  # (said: it ended; nothing to report now)


class HostCalls:
    """The host's side: the feed of requests, replies, pushes to an edge's inbox.

    Replies and pushes go in the host ``bus``'s pipeline of the moment
    (:meth:`~server.bus.redis.RedisBus.push_list`): a seat intent's result then
    travels with the updates and the ack of the same action, one round trip."""

    def __init__(self, url: str, *, bus: RedisBus, namespace: str = "voltage") -> None:
        self.url = url
        self.ns = namespace
        self._bus = bus
        self._read = aioredis.Redis.from_url(url, decode_responses=True, socket_connect_timeout=3.0)

    async def start(self) -> None:
        try:
            await self._read.ping()
        except (RedisError, OSError) as error:
            raise BusUnavailable(f"cannot reach Redis at {self.url}: {error}") from None

    async def requests(self) -> AsyncIterator[RequestFrame]:
        """Every request still wanted (its deadline not passed), in arrival order (a batch a
        round trip: :func:`pop_batch`); one that cannot be read (an older or newer edge's) is
        said in the log and dropped."""
        delay = 0.05
        key = f"{self.ns}:req"
        while True:
            try:
                got = await pop_batch(self._read, key, 1, EdgeCalls.READ_BATCH)
            except (RedisError, OSError):
                await asyncio.sleep(delay)
                delay = min(2.0, delay * 2)
                continue
            delay = 0.05
            for data in got:
                try:
                    request = FRAMES.decode(wire.loads(data))
                except (CodecError, ValueError) as error:
                    log.warning("dropped a request that cannot be read: %s", error)
                    continue
                if request.deadline < time.time():
                    continue  # its caller gave up
                yield request

    async def reply(self, request: RequestFrame, payload: Any) -> None:
        """The answer to ``request``, where it asked for it."""
        await self._send(request.reply, InboxFrame(request.id, payload))

    async def result(self, edge: str, rid: str, payload: Any) -> None:
        """The answer to ``edge``'s intent ``rid``, in its inbox."""
        await self._send(f"{self.ns}:inbox:{edge}", InboxFrame(rid, payload))

    async def push(self, edge: str, payload: Any) -> None:
        """Something for one of ``edge``'s sessions, in its inbox."""
        await self._send(f"{self.ns}:inbox:{edge}", InboxFrame(None, payload))

    async def _send(self, key: str, frame: InboxFrame) -> None:
        try:  # (the bus retries a lost connection itself, until it is closed)
            await self._bus.push_list(key, wire.dumps(FRAMES.encode(frame)), INBOX_TTL)
        except (RedisError, OSError, BusUnavailable):
            pass  # the bus closed, or Redis refused it: the caller's wait times out

    async def close(self) -> None:
        await self._read.aclose()


class PresenceBeat:
    """Keeps ``NS:edge:NAME`` alive from a thread of its own (the bus's presence key).

    The heartbeat says the *process* is alive, so it must not wait on the event loop:
    an edge drawing a burst of arrivals, or a host busy for a few seconds, would miss
    its beats and be declared dead, and its players' seats would enter the grace while
    they play.  A thread with an event loop and a Redis connection of its own beats every
    ``every`` seconds whatever the main loop is doing (and never blocks it: the main loop
    makes no Redis call here); it stops with the process (kill -9 included) or with
    :meth:`stop`.  Redis errors are retried at the next beat."""

    def __init__(self, url: str, name: str, ttl: float, *, namespace: str = "voltage", every: float = 1.0) -> None:
        self.url = url
        self.key = f"{namespace}:edge:{name}"
        self.ttl_ms = max(1, int(ttl * 1000))
        self.every = every
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"presence-{name}", daemon=True)
        # Times the key had expired when a beat came (Redis unreachable from here, or restarted empty,
        # for longer than ``ttl``): the host may have judged the process gone meanwhile.
        self.lapses = 0

    def start(self) -> PresenceBeat:
        """Start beating (from the thread: the first beat follows at once)."""
        self._thread.start()
        return self

    def _run(self) -> None:
        asyncio.run(self._beat_until_stopped())

    async def _beat_until_stopped(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        client = aioredis.Redis.from_url(self.url, socket_connect_timeout=2.0, socket_timeout=2.0)
        beaten = False
        try:
            while not self._stop.is_set():
                try:
                    before = await client.set(self.key, "1", px=self.ttl_ms, get=True)
                    if before is None and beaten:
                        self.lapses += 1  # (read by the owner's loop: a plain int, one writer)
                    beaten = True
                except (RedisError, OSError):
                    pass  # Redis away: the next beat tries again
                try:
                    await asyncio.wait_for(self._stopping.wait(), self.every)
                except TimeoutError:
                    continue
            try:
                await client.delete(self.key)  # gone at once, not after a ttl
            except (RedisError, OSError):
                pass
        finally:
            await client.aclose()

    def stop(self) -> None:
        """Stop beating and remove the key (waits for the thread, a few seconds at most)."""
        self._stop.set()
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None:
            try:
                loop.call_soon_threadsafe(stopping.set)
            except RuntimeError:  # its loop has just ended
                pass
        if self._thread.is_alive():
            self._thread.join(timeout=5)
