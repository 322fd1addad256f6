"""The Redis bus (``redis.asyncio``): host and edges in several processes or machines.

Keys, all under ``namespace`` (default ``voltage``) so several servers or tests can
share one Redis:

- ``NS:intents``: a stream; every party creates the consumer group ``host`` at id 0
  (``XGROUP CREATE ... MKSTREAM``), so intents added before the host first reads
  are kept.  The host reads with ``XREADGROUP`` under a fixed consumer name: a
  restarted host first reads its own pending list (read, never acked: it crashed
  before committing them), then new entries; ``ack`` is ``XACK``.  The stream is
  trimmed approximately to ``stream_maxlen`` entries.
- ``NS:seen:SESSION:SEQ``: the dedupe of retried intents.  One Lua script does
  ``SET NX PX`` and ``XADD`` together, so an intent is either accepted with its
  key or not at all: a retry after a lost reply finds the key and is dropped, a
  retry after a lost request is added.  (A per-session high-water mark would also
  drop an older seq sent after a newer one; the key per intent does not care about
  order.)
- ``NS:u:MATCH:SEAT``: a pub/sub channel per seat; an edge subscribes only to the
  seats it renders, so a hand never reaches a process drawing another seat.  All
  of a bus's subscriptions share one pub/sub connection and one reader task.
- ``NS:m:MATCH:SEAT``: the seat's second stream (messages, not moves), beside its
  updates' channel; a seat's subscription takes both channels on that one connection,
  so it reads them in the order they were published.  Nothing is resent after an outage
  (a message is of the moment; the full view the seat asks for then has the notice).
- ``NS:lobby`` (pub/sub) and ``NS:lobby:latest`` (a key holding the last snapshot,
  read by a new subscriber); snapshots carry the publisher's ``time_ns`` so a
  subscriber never goes back to an older one.
- ``NS:edge:ID``: presence, ``SET PX ttl``; expiry is Redis's.

Faults.  Connecting at start raises one :class:`BusUnavailable` ("cannot reach
Redis at URL: reason").  Afterwards a lost connection never raises: every command
is retried with exponential backoff (``backoff`` .. ``backoff_max``), ``state``
goes to ``"reconnecting"`` and back to ``"connected"`` (``on_state`` callbacks let
an edge tell its players).  redis-py's own retries are off so there is one policy.
After Redis restarts empty (no persistence: the store, not Redis, is the record)
the group is created again on ``NOGROUP``; what the host acked is gone and never
needed; updates published during the outage are lost, so on resubscribing each
update channel the bus sends ``request_full`` itself and each lobby subscription
re-reads the latest key.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from functools import partial
from typing import Any, TypeVar, cast

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.bus import JSON, Bus, BusUnavailable, FullRequest, Intent, SeatMessage, Subscription, Update, wire
from server.bus.frames import FRAMES, FullFrame, IntentFrame, LobbyFrame, MessageFrame, UpdateFrame
from server.wire.codec import CodecError

T = TypeVar("T")
log = logging.getLogger(__name__)
LOST = (RedisConnectionError, RedisTimeoutError, OSError)

# One stream's entries as XREADGROUP returns them to this client: RESP2 (redis-py's default protocol) with
# decode_responses=True, so ``[[stream, [(id, fields), ...]]]`` in str, fields None for an entry trimmed while
# pending.  redis-py types the reply as the union over RESP2/RESP3 and bytes/str; _entries narrows it.
Entries = list[tuple[str, dict[str, str] | None]]


def _entries(reply: object) -> Entries:
    if not reply:
        return []
    if not isinstance(reply, list):
        raise TypeError(f"XREADGROUP answered {type(reply).__name__}, not a RESP2 list")
    return cast(Entries, reply[0][1])

# KEYS[1] dedupe key, KEYS[2] stream; ARGV[1] dedupe ttl (ms), ARGV[2] maxlen, ARGV[3] data
_ACCEPT = """
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then
  return redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'k', 'i', 'd', ARGV[3])
end
return false
"""


class RedisBus(Bus):
    """Use :meth:`connect` (it checks Redis answers); one instance per process."""

    GROUP = "host"

    def __init__(
        self,
        client: aioredis.Redis,
        url: str,
        *,
        namespace: str = "voltage",
        consumer: str = "host",
        dedupe_ttl: float = 600.0,
        stream_maxlen: int = 100_000,
        lobby_interval: float = 1.0,
        backoff: float = 0.05,
        backoff_max: float = 2.0,
        block_ms: int = 500,
    ) -> None:
        super().__init__(lobby_interval=lobby_interval)
        self._client = client
        self.url = url
        self.ns = namespace
        self.consumer = consumer
        self.dedupe_ttl = dedupe_ttl
        self.stream_maxlen = stream_maxlen
        self.backoff = backoff
        self.backoff_max = backoff_max
        self.block_ms = block_ms
        self._stream = f"{namespace}:intents"
        self._accept = client.register_script(_ACCEPT)
        # pub/sub: channel -> subscriptions; channel -> (match, seat) for update and message channels
        self._routes: dict[str, set[Subscription[Any]]] = {}
        self._seats: dict[str, tuple[str, int]] = {}
        self._said: dict[str, tuple[str, int]] = {}
        self._live: set[str] = set()  # channels whose subscribe Redis confirmed
        self._confirmed: dict[str, asyncio.Event] = {}
        self._resync: set[str] = set()  # channels to resync once subscribed again
        self._lobby_seen: dict[Subscription[Any], int] = {}
        self._pubsub: Any = None
        self._pubsub_lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        # this moment's writes, not sent yet (see _soon): (commands or None, tag, done)
        self._moment: list[tuple[Callable[[Any], Any] | None, str, asyncio.Future[None]]] | None = None
        self._moment_task: asyncio.Task[None] | None = None

    @classmethod
    async def connect(cls, url: str, **options: Any) -> RedisBus:
        """A bus on the Redis at ``url`` (``redis://host:port/db``, ``unix:///path``).

        Raises :class:`BusUnavailable` with one clear line when Redis does not answer.
        """
        try:
            client = aioredis.Redis.from_url(
                url,
                decode_responses=True,
                retry=Retry(NoBackoff(), 0),
                socket_connect_timeout=options.pop("connect_timeout", 3.0),
                # No read timeout: redis-py wraps reads in asyncio.timeout(), which on
                # 3.11 can swallow a task's cancel (a host could not stop its intent
                # reader).  A dead peer is seen by EOF or TCP keepalive (on by default).
                socket_timeout=None,
            )
        except ValueError as error:
            raise BusUnavailable(f"cannot reach Redis at {url}: {error}") from None
        bus = cls(client, url, **options)
        try:
            await client.ping()
            await bus._create_group()
        except (RedisError, OSError) as error:
            await client.aclose()
            raise BusUnavailable(f"cannot reach Redis at {url}: {error}") from None
        return bus

    # -- the one retry policy -------------------------------------------------------
    async def _call(self, op: Callable[[], Awaitable[T]]) -> T:
        delay = self.backoff
        while True:
            if self.state == "closed":
                raise BusUnavailable(f"the bus to Redis at {self.url} is closed")
            try:
                result = await op()
            except LOST:
                if self.state == "closed":
                    raise BusUnavailable(f"the bus to Redis at {self.url} is closed") from None
                task = asyncio.current_task()
                if task is not None and task.cancelling():
                    raise asyncio.CancelledError from None  # redis-py turned our cancel into a lost read
                self._set_state("reconnecting")
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.backoff_max)
                continue
            self._set_state("connected")
            return result

    async def _create_group(self) -> None:
        try:
            await self._client.xgroup_create(self._stream, self.GROUP, id="0", mkstream=True)
        except ResponseError as error:
            if "BUSYGROUP" not in str(error):
                raise

    # -- intents --------------------------------------------------------------------
    async def send_intent(self, intent: Intent) -> bool:
        data = wire.dumps(FRAMES.encode(IntentFrame(intent.match, intent.seat, intent.session, intent.seq,
                                                    intent.payload)))
        key = f"{self.ns}:seen:{intent.session}:{intent.seq}"
        ttl = str(int(self.dedupe_ttl * 1000))
        added = await self._call(lambda: self._accept(keys=[key, self._stream], args=[ttl, self.stream_maxlen, data]))
        return bool(added)

    async def request_full(self, match: str, seat: int) -> None:
        data = wire.dumps(FRAMES.encode(FullFrame(match, seat)))
        await self._call(
            lambda: self._client.xadd(self._stream, {"k": "f", "d": data}, maxlen=self.stream_maxlen, approximate=True)
        )

    async def intents(self) -> AsyncIterator[Intent | FullRequest]:
        last = "0"  # our pending list first (read before a crash, never acked), then ">": new ones
        while self.state != "closed":
            block = self.block_ms if last == ">" else None
            try:
                # partial, not a lambda: it binds this round's ``last`` and ``block`` (the call is awaited at once,
                # but a closure over loop variables is the bug bugbear's B023 looks for).
                reply = await self._call(
                    partial(
                        self._client.xreadgroup, self.GROUP, self.consumer, {self._stream: last}, count=100, block=block
                    )
                )
            except BusUnavailable:
                return
            except ResponseError as error:
                if "NOGROUP" not in str(error):
                    raise
                await self._call(self._create_group)  # Redis restarted empty
                last = "0"
                continue
            entries = _entries(reply)
            if last != ">":
                if not entries:
                    last = ">"
                    continue
                last = entries[-1][0]  # page on through the pending list
            for tag, fields in entries:
                if not fields:  # trimmed away while pending
                    await self._call(partial(self._client.xack, self._stream, self.GROUP, tag))
                    continue
                try:
                    d = FRAMES.decode(wire.loads(fields["d"]))
                except (CodecError, ValueError, KeyError) as error:  # an older or newer edge's: dropped, said
                    log.warning("dropped an intent that cannot be read: %s", error)
                    await self._call(partial(self._client.xack, self._stream, self.GROUP, tag))
                    continue
                if isinstance(d, FullFrame):
                    yield FullRequest(d.match, d.seat, tag=tag)
                elif isinstance(d, IntentFrame):
                    yield Intent(d.match, d.seat, d.session, d.seq, d.payload, tag=tag)

    async def ack(self, item: Intent | FullRequest) -> None:
        """Acknowledged in one XACK with every other ack of the same moment, in that
        moment's pipeline (see :meth:`_soon`); returns once it is committed."""
        if not item.tag:
            return
        await asyncio.shield(self._soon(tag=item.tag))

    # -- what goes out at one moment ------------------------------------------------
    def _soon(self, commands: Callable[[Any], Any] | None = None, *, tag: str = "") -> asyncio.Future[None]:
        """Queue ``commands(pipeline)`` (or the ack of ``tag``) for this moment's pipeline.

        An accepted action's updates, its reply to the edge and its ack were a round
        trip each, most of the host's cost per action: now whatever is queued before
        the loop's next turn goes in one pipeline, the acks in one XACK.  The future is
        done when Redis has run this caller's commands (or with their error)."""
        loop = asyncio.get_running_loop()
        done = loop.create_future()
        done.add_done_callback(lambda f: f.cancelled() or f.exception())  # (read, whoever waits)
        if self._moment is None:
            self._moment = []
            self._moment_task = loop.create_task(self._send_moment())
        self._moment.append((commands, tag, done))
        return done

    async def _send_moment(self) -> None:
        await asyncio.sleep(0)  # the rest of this moment joins
        moment, self._moment = self._moment or [], None
        writes = [(commands, done) for commands, _tag, done in moment if commands is not None]
        tags = [tag for commands, tag, _done in moment if commands is None]
        spans: list[tuple[int, int]] = []

        async def op() -> list[Any]:
            spans.clear()
            async with self._client.pipeline(transaction=False) as pipe:
                for commands, _done in writes:
                    start = len(pipe)
                    commands(pipe)
                    spans.append((start, len(pipe)))
                if tags:
                    pipe.xack(self._stream, self.GROUP, *tags)
                return list(await pipe.execute(raise_on_error=False))

        try:
            results = await self._call(op)
        except BaseException as error:
            for _commands, _tag, done in moment:
                if not done.done():
                    done.cancel() if isinstance(error, asyncio.CancelledError) else done.set_exception(error)
            if isinstance(error, asyncio.CancelledError):
                raise
            return
        for (_commands, done), (start, end) in zip(writes, spans, strict=True):
            failed = next((r for r in results[start:end] if isinstance(r, Exception)), None)
            done.set_exception(failed) if failed is not None else done.set_result(None)
        acked = results[-1] if tags else None
        for commands, _tag, done in moment:
            if commands is None:
                done.set_exception(acked) if isinstance(acked, Exception) else done.set_result(None)

    async def push_list(self, key: str, data: str | bytes, ttl: float) -> None:
        """``RPUSH key data`` and an expiry of ``ttl`` s, in this moment's pipeline: the
        host's replies to an edge's inbox (:mod:`server.bus.rpc`) ride with the updates."""
        await asyncio.shield(self._soon(lambda pipe: pipe.rpush(key, data).expire(key, int(ttl))))

    # -- updates --------------------------------------------------------------------
    def _channel(self, match: str, seat: int) -> str:
        return f"{self.ns}:u:{match}:{seat}"

    async def publish_update(self, match: str, seat: int, version: int, payload: JSON, *, full: bool = False) -> None:
        data = wire.dumps(FRAMES.encode(UpdateFrame(version, full, payload)))
        channel = self._channel(match, seat)
        await self._call(lambda: self._client.publish(channel, data))

    async def publish_updates(self, updates: Sequence[tuple[str, int, int, JSON, bool]]) -> None:
        """In this moment's pipeline (see :meth:`_soon`): an action's updates to its seats
        and its spectators were a round trip each, a quarter of the host's CPU."""
        await self.publish([Update(match, seat, version, payload, full) for match, seat, version, payload, full
                            in updates])

    async def subscribe_updates(self, match: str, seat: int) -> Subscription[Update]:
        channel = self._channel(match, seat)
        self._seats[channel] = (match, seat)
        return await self._subscribe([channel])

    async def publish(self, items: Sequence[Update | SeatMessage]) -> None:
        """Updates and messages in this moment's pipeline, in their order."""
        encode = FRAMES.encode
        out = []
        for item in items:
            if isinstance(item, SeatMessage):
                data = wire.dumps(encode(MessageFrame(item.payload)))
                out.append((self._message_channel(item.match, item.seat), data))
            else:
                out.append((self._channel(item.match, item.seat),
                            wire.dumps(encode(UpdateFrame(item.version, item.full, item.payload)))))

        def commands(pipe: Any) -> None:
            for channel, data in out:
                pipe.publish(channel, data)

        await asyncio.shield(self._soon(commands))

    # -- a seat's second stream -----------------------------------------------------
    def _message_channel(self, match: str, seat: int) -> str:
        return f"{self.ns}:m:{match}:{seat}"

    async def _publish_messages(self, messages: Sequence[SeatMessage]) -> None:
        await self.publish(messages)

    async def subscribe_seat(self, match: str, seat: int) -> Subscription[Update | SeatMessage]:
        updates, said = self._channel(match, seat), self._message_channel(match, seat)
        self._seats[updates] = (match, seat)
        self._said[said] = (match, seat)
        return await self._subscribe([updates, said])

    # -- lobby ----------------------------------------------------------------------
    async def _publish_lobby_now(self, snapshot: JSON) -> None:
        data = wire.dumps(FRAMES.encode(LobbyFrame(time.time_ns(), snapshot)))

        async def op() -> None:
            async with self._client.pipeline(transaction=True) as pipe:
                pipe.set(f"{self.ns}:lobby:latest", data)
                pipe.publish(f"{self.ns}:lobby", data)
                await pipe.execute()

        await self._call(op)

    async def lobby(self) -> Subscription[JSON]:
        sub: Subscription[JSON] = await self._subscribe([f"{self.ns}:lobby"])
        self._lobby_seen.setdefault(sub, 0)  # a message may have come in since the subscribe
        await self._read_latest_lobby(sub)
        return sub

    async def _read_latest_lobby(self, sub: Subscription[JSON]) -> None:
        data = await self._call(lambda: self._client.get(f"{self.ns}:lobby:latest"))
        if data is not None:
            self._deliver_lobby(sub, data)

    def _deliver_lobby(self, sub: Subscription[JSON], data: str | bytes) -> None:
        try:
            frame = FRAMES.decode(wire.loads(data))
        except (CodecError, ValueError) as error:
            log.warning("dropped a lobby snapshot that cannot be read: %s", error)
            return
        if frame.time_ns > self._lobby_seen.get(sub, 0):
            self._lobby_seen[sub] = frame.time_ns
            sub.put(frame.payload)

    # -- presence -------------------------------------------------------------------
    async def heartbeat(self, edge_id: str, ttl: float) -> None:
        key = f"{self.ns}:edge:{edge_id}"
        await self._call(lambda: self._client.set(key, "1", px=max(1, int(ttl * 1000))))

    async def alive_edges(self) -> set[str]:
        prefix = f"{self.ns}:edge:"

        async def op() -> set[str]:
            return {key[len(prefix) :] async for key in self._client.scan_iter(match=prefix + "*", count=1000)}

        return await self._call(op)

    async def presence_age(self) -> float:
        """Redis's uptime: a restart (no persistence) dropped every presence key."""
        try:
            info = await self._call(lambda: self._client.info("server"))
        except ResponseError:  # INFO refused (a managed Redis): the keys are all there is to go by
            return math.inf
        return float(info.get("uptime_in_seconds", math.inf))

    # -- pub/sub plumbing -----------------------------------------------------------
    async def _subscribe(self, channels: list[str]) -> Subscription[Any]:
        """One subscription to every channel of ``channels`` (a seat's two: its items in the
        order Redis delivers them, on the one pub/sub connection)."""

        async def unsubscribe(s: Subscription[Any]) -> None:
            for channel in channels:
                await self._unsubscribe(channel, s)

        sub: Subscription[Any] = Subscription(unsubscribe)
        for channel in channels:
            subs = self._routes.get(channel)
            if subs:
                subs.add(sub)
                continue
            self._routes[channel] = {sub}
            self._confirmed[channel] = asyncio.Event()
            await self._send_subscribe(channel)
        self._ensure_reader()
        for channel in channels:
            event = self._confirmed.get(channel)
            if event is not None:
                await event.wait()  # from here on, nothing published on the channel is missed
        return sub

    async def _send_subscribe(self, channel: str) -> None:
        async with self._pubsub_lock:
            try:
                if self._pubsub is None:  # first, or the reader is between connections: all routes
                    self._pubsub = self._client.pubsub()
                    await self._pubsub.subscribe(*self._routes)
                else:
                    await self._pubsub.subscribe(channel)
            except LOST:
                self._set_state("reconnecting")  # the reader reconnects and subscribes all routes
            self._wake.set()

    async def _unsubscribe(self, channel: str, sub: Subscription[Any]) -> None:
        self._lobby_seen.pop(sub, None)
        subs = self._routes.get(channel)
        if subs is None:
            return
        subs.discard(sub)
        if subs:
            return
        del self._routes[channel]
        self._seats.pop(channel, None)
        self._said.pop(channel, None)
        self._live.discard(channel)
        self._resync.discard(channel)
        event = self._confirmed.pop(channel, None)
        if event is not None:
            event.set()
        if self._pubsub is not None and self.state != "closed":
            try:
                await self._pubsub.unsubscribe(channel)
            except LOST:
                pass  # the reader resubscribes only the routes left

    def _ensure_reader(self) -> None:
        if self._reader is None or self._reader.done():
            self._reader = asyncio.get_running_loop().create_task(self._read_pubsub(), name="redis-bus-pubsub")

    async def _read_pubsub(self) -> None:
        delay = self.backoff
        while self.state != "closed":
            if not self._routes:
                self._wake.clear()
                await self._wake.wait()
                continue
            try:
                if self._pubsub is None:  # after a lost connection: everything again
                    async with self._pubsub_lock:
                        self._pubsub = self._client.pubsub()
                        await self._pubsub.subscribe(*self._routes)
                message = await self._pubsub.get_message(timeout=1.0)
            except (*LOST, RuntimeError):  # RuntimeError: a pubsub whose subscribe never got through
                if self.state == "closed":
                    return
                self._set_state("reconnecting")
                self._resync |= self._live
                self._live.clear()
                await self._drop_pubsub()
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.backoff_max)
                continue
            delay = self.backoff
            if message is not None:
                self._set_state("connected")
                self._dispatch(message)

    def _dispatch(self, message: dict[str, Any]) -> None:
        channel = message["channel"]
        kind = message["type"]
        if kind == "subscribe":
            if channel not in self._routes:
                return
            self._live.add(channel)
            event = self._confirmed.pop(channel, None)
            if event is not None:
                event.set()
            if channel in self._resync:
                self._resync.discard(channel)
                asyncio.get_running_loop().create_task(self._resync_channel(channel))
            return
        if kind != "message":
            return
        subs = self._routes.get(channel)
        if not subs:
            return
        if channel == f"{self.ns}:lobby":
            for sub in list(subs):
                self._deliver_lobby(sub, message["data"])
            return
        seat = self._seats.get(channel) or self._said.get(channel)
        if seat is None:
            return
        try:
            d = FRAMES.decode(wire.loads(message["data"]))
        except (CodecError, ValueError) as error:
            log.warning("dropped a seat's message that cannot be read: %s", error)
            return
        item: Update | SeatMessage
        if isinstance(d, UpdateFrame) and channel in self._seats:
            item = Update(seat[0], seat[1], d.version, d.payload, d.full)
        elif isinstance(d, MessageFrame) and channel in self._said:
            item = SeatMessage(seat[0], seat[1], d.payload)
        else:
            log.warning("dropped a %s on the channel %s", type(d).__name__, channel)
            return
        for sub in list(subs):
            sub.put(item)

    async def _resync_channel(self, channel: str) -> None:
        """Subscribed again after a lost connection: get what was missed."""
        try:
            if channel in self._seats:
                await self.request_full(*self._seats[channel])
            elif channel in self._said:
                pass  # (messages are of the moment: the full view asked for on the updates has the notice)
            else:
                for sub in list(self._routes.get(channel, ())):
                    await self._read_latest_lobby(sub)
        except BusUnavailable:
            pass

    async def _drop_pubsub(self) -> None:
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            try:
                await pubsub.aclose()
            except (RedisError, OSError):
                pass

    # -- lifetime -------------------------------------------------------------------
    async def close(self) -> None:
        if self.state == "closed":
            return
        try:
            await asyncio.wait_for(self._lobby.close(), 2.0)
        except (TimeoutError, BusUnavailable, RedisError, OSError):
            pass
        self._set_state("closed")
        for subs in list(self._routes.values()):
            for sub in list(subs):
                sub.end()
        for event in self._confirmed.values():
            event.set()
        self._wake.set()
        if self._reader is not None:
            self._reader.cancel()
            try:
                await self._reader
            except (asyncio.CancelledError, Exception):
                pass
        await self._drop_pubsub()
        await self._client.aclose()

