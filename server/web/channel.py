"""A session's terminal over WebSockets: the :class:`~server.session.driver.TerminalChannel`
the web transport gives the session layer.

The browser side (``static/page.js``) speaks a small protocol on one WebSocket:

- **binary frames** are the terminal's bytes: keys typed (and mouse reports) from the page,
  the app's output to it;
- **text frames** are JSON control messages: from the page ``hello`` (first, once: its size,
  its environment, the session it comes back to), ``resize`` and ``bye`` (leaving on
  purpose: no hold); from the server ``session`` (the token that brings a reconnecting tab
  back to this session) and ``end`` (the session is over, with its exit status).

A channel outlives a socket: when the socket drops (a phone's network changing, a laptop
waking, a reloaded tab) the session runs on, **held** for ``hold`` seconds (the lobby's grace
period) with its output dropped; a socket that presents the session's token within that time
is attached to it, and the driver gets a :class:`~server.session.driver.Repaint`: the modes
and the whole screen again, seat, clock and all.  Past the hold the session ends as an SSH
session whose client went away ends (a linked key's seats then wait the lobby's grace).

Reading is the driver's pace: :meth:`WebChannel.read` receives one message when the driver
asks for input, so a session over its input budget stops reading its socket, aiohttp's queue
fills (128 KiB) and pauses the transport, and TCP holds the browser back, as the SSH window
does.  Every message also spends a token of a budget of messages (``messages_per_second``):
an empty or control message is cheap but not free, and a page sends one per ~10 ms at most;
a resize spends its cells of a budget of resize cells (:class:`ResizeBudget`) its address
shares with its other sockets (``resize_cells_per_second``: three at once, then one up to 200x60
every 2 s, a larger one less often), and one larger than 200x60 also spends from a budget of the
process's web sessions (``big_cells_per_second``: two at once, then one every 1.5 s); each may
redraw the whole screen, 30-90 ms of the loop at 380x124 in one block, so a flood of them cost
everyone up to ~0.7 s of keypress latency at 2 a second (the page sends one when a drag ends).
A resize over that budget is held, not waited for: the socket is read on after a pause of 0.1 s
(a key typed after it is not held up; a flood of them, read at the budget of messages, cost the
server 4 % of a core more than waiting had), a later resize replaces it, and it is given to the
driver once its cells are due.  A resize is given once the socket has sent no other for
:data:`SETTLE` seconds (the page sends one a drag, 250 ms after its end): a flood of sizes redraws
none of them while it lasts, and once at its last size if it ends (a flood of 380x124 had a
whole redraw every 6 s, 60-90 ms of the loop in one block each, ``benchmarks/web_attack.py``); a
person's is drawn 0.15 s later.  A new session's first size (its hello's) larger than 200x60
and a returning tab's repaint spend the same budget: over it, the session starts at 200x60 at
most (its own size held for when its cells are due), and the returning tab waits for its picture
(its output dropped meanwhile: the repaint is whole).
A socket over either budget for ``flood_close_after`` seconds ends its session, and so does a
message over ``max_message`` or a broken frame; each of these costs the socket's address a
penalty (:attr:`WebChannel.on_offence`, :mod:`server.web.server`).  (The buckets are the session
layer's, :mod:`server.session.budget`, as the budget of new sessions SSH and the web share.)

Output is queued here and sent by one task per socket (as frames of at most
:data:`MAX_FRAME` bytes); :meth:`WebChannel.pending_output` counts that queue, the socket's
transport buffer and the kernel's send queue (as SSH's channel does), which is what the driver's
output flow control watches.  Where those tell nothing (all taken, as far as they know), the
driver asks (:meth:`WebChannel.ping`): a WebSocket ping sent after the output queued before it,
answered by the browser's pong once it has read that output, so a tab that stopped reading (frozen,
its TCP window full) is closed by its stuck time as an SSH client is.  The socket does not answer
pings itself (``autoping=False``): the channel does, and takes the pongs.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import WebSocketError, WSMsgType, web

from server.session.budget import AddressBuckets, Bucket
from server.session.driver import Repaint, TerminalChannel, unsent
from tui.i18n import _

log = logging.getLogger(__name__)

MAX_FRAME = 64 * 1024  # bytes of output in one WebSocket frame
MAX_SIZE = 1000  # a size beyond this in a message is not a terminal's (the driver clamps further)
CLOSE_MOVED = 4000  # the session went to another tab: do not come back on your own
CLOSE_FLOOD = 4001  # too many messages: the session is closed
HELD_PAUSE = 0.1  # seconds the socket is not read after a resize over its budget (it is held)
FLOOD_BREAK = 2.0  # seconds within every budget that end a flood (its time over budget counts from 0 again)
START_MAX = (200, 60)  # a new session's first size when its address is over its budget of resize cells
SETTLE = 0.15  # seconds without another resize before one is drawn (the page sends one a drag)


@dataclass(frozen=True)
class WebLimits:
    """What one browser may do (beside the session's own input budget and output flow control)."""

    max_message: int = 64 * 1024  # bytes in one message (a paste); larger: the socket is closed
    messages_per_second: float = 200.0
    messages_burst: float = 600.0
    # Resizes, in the cells of the screens they ask for (each may redraw the whole screen: 30-90 ms of the
    # loop at 380x124), at least resize_floor each (a relayout costs ~10 ms whatever the size), per address;
    # one over the budget is held, the latest size winning:
    resize_cells_per_second: float = 6_000.0  # up to 200x60: one every 2 s; 380x95 or more: one every 6 s
    resize_cells_burst: float = 36_000.0  # three up to 200x60 at once (a larger one costs at most this)
    resize_floor: int = 200 * 60
    # ... and those larger than resize_floor, of every web session of the process (many addresses):
    big_cells_per_second: float = 24_000.0  # one of the largest every 1.5 s
    big_cells_burst: float = 72_000.0  # two of the largest at once
    flood_close_after: float = 10.0  # seconds over the message budget without a break
    hello_within: float = 10.0  # a socket that has not said hello by then is closed
    hold: float = 60.0  # a session whose socket dropped waits this long for it to come back
    heartbeat: float = 15.0  # a ping this often; no pong within half of it: the socket is dead


def size_of(message: dict[str, Any], default: tuple[int, int] = (80, 24)) -> tuple[int, int]:
    """``cols`` and ``rows`` of a message as a size (bad values: ``default``'s)."""
    def one(name: str, fallback: int) -> int:
        value = message.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_SIZE:
            return value
        return fallback

    return one("cols", default[0]), one("rows", default[1])


class ResizeBudget:
    """The cells the web sessions' resizes (and first frames, and repaints) may redraw: a bucket per
    address (its sockets share it: one address opening tabs cannot multiply it) and one for the sizes
    larger than ``resize_floor`` of every address (see the module's notes)."""

    def __init__(self, limits: WebLimits) -> None:
        self.limits = limits
        self.big = Bucket(limits.big_cells_per_second, limits.big_cells_burst)
        self._bucket = AddressBuckets(limits.resize_cells_per_second, limits.resize_cells_burst)

    def big_size(self, size: tuple[int, int]) -> bool:
        return size[0] * size[1] > self.limits.resize_floor

    def _costs(self, key: str, size: tuple[int, int]) -> list[tuple[Bucket, float]]:
        """The buckets a redraw at ``size`` spends, each with its cost: the cells, at least the
        floor's, at most the bucket's burst (so that it can be had at all)."""
        cells = max(size[0] * size[1], self.limits.resize_floor)
        buckets = [self._bucket(key)] + ([self.big] if self.big_size(size) else [])
        return [(bucket, min(cells, bucket.burst)) for bucket in buckets]

    def due(self, key: str, size: tuple[int, int]) -> float:
        """Seconds until a redraw at ``size`` for ``key`` is due (0: now)."""
        wait = 0.0
        for bucket, cost in self._costs(key, size):
            bucket.take(0)
            wait = max(wait, (cost - bucket.tokens) / bucket.rate)
        return wait

    def try_take(self, key: str, size: tuple[int, int]) -> bool:
        """Spend a redraw at ``size`` for ``key`` if it is due now (else spend nothing)."""
        costs = self._costs(key, size)
        if self.due(key, size) > 0:
            return False
        for bucket, cost in costs:
            bucket.tokens -= cost
        return True

    def rested(self, key: str) -> bool:
        bucket = self._bucket.get(key)
        return bucket is None or bucket.rested


class WebChannel(TerminalChannel):
    """A session's terminal, over whichever socket is attached to it now (see the module's notes)."""

    def __init__(self, size: tuple[int, int], limits: WebLimits, resizes: ResizeBudget | None = None,
                 peer: str = "") -> None:
        self.limits = limits
        self._size = size
        self._peer = peer  # (its resizes spend its address's cells)
        self._ws: web.WebSocketResponse | None = None
        self._request: web.Request | None = None
        self._changed = asyncio.Event()  # a socket attached, or the session ended
        self._stop = asyncio.Event()  # the session ended (a read waiting on its socket stops waiting)
        self._repaint = False  # a returning socket is owed the whole picture (at the held size, once due)
        self._ended = False
        self._out = bytearray()
        self._written = self._sent = 0  # bytes of output queued and sent on the socket attached now
        self._pings: dict[bytes, asyncio.Future[object]] = {}  # asked (ping()), not answered yet, oldest first
        self._ping_queue: list[tuple[int, bytes]] = []  # pings to send once this much output is sent
        self._ping_count = 0
        self._wake = asyncio.Event()
        self._pump: asyncio.Task[None] | None = None
        self._messages = Bucket(limits.messages_per_second, limits.messages_burst)
        self._resizes = resizes or ResizeBudget(limits)
        self._resize: tuple[int, int] | None = None  # a size asked for, held (its cells not due, or not settled)
        self._resize_at = 0.0  # when the socket last asked for a size (one is given SETTLE after the last)
        self._flooding_since: float | None = None
        self._over_at = 0.0  # when the socket was last over a budget
        self.detached_at: float | None = None  # when its socket went (None: attached, or never was)
        # called with the channel, a socket that no longer carries it, and the close code and reason for it
        self.on_detach: Any = None
        # called (its socket still attached) when the socket is closed for abuse (a message over
        # max_message, a broken frame, a flood of messages), with why: its address pays a penalty
        self.on_offence: Callable[[str], None] | None = None

    # -- sockets ----------------------------------------------------------------

    @property
    def attached(self) -> bool:
        return self._ws is not None

    @property
    def ended(self) -> bool:
        return self._ended

    def attach(self, ws: web.WebSocketResponse, request: web.Request, size: tuple[int, int], *,
               fresh: bool) -> None:
        """``ws`` carries this session from now on (``fresh``: its first socket; else a
        reconnection, whose terminal gets the whole picture again); a socket attached before
        it is closed (the session moved to another tab)."""
        old = self._ws
        self._ws, self._request = ws, request
        self._resize, self._resize_at, self._repaint = None, 0.0, False
        self._forget_output()
        self.detached_at = None
        if not fresh:  # the whole picture again, once its cells are due (its output dropped until then)
            self._resize, self._repaint = size, True
        elif self._resizes.big_size(size) and not self._resizes.try_take(self._peer, size):
            # (its address has redrawn big screens lately: it starts smaller, its size held till due)
            self._size, self._resize = (min(size[0], START_MAX[0]), min(size[1], START_MAX[1])), size
        else:
            self._size = size
        self._pump = asyncio.get_running_loop().create_task(self._send(ws))
        self._changed.set()
        if old is not None:
            self._notify(old, CLOSE_MOVED, "moved to another tab")

    def detach(self, ws: web.WebSocketResponse) -> None:
        """``ws`` has gone (if it is still this session's): the session is held for its return."""
        if self._ws is not ws:
            return
        self._ws = self._request = None
        self._forget_output()
        self._wake.set()
        self.detached_at = time.monotonic()
        self._notify(ws, 1000, "")

    def _notify(self, ws: web.WebSocketResponse, code: int, why: str) -> None:
        """``ws`` no longer carries this session: its owner closes it with ``code`` (if still open)."""
        if self.on_detach is not None:
            self.on_detach(self, ws, code, why)

    def end(self) -> None:
        """The session must end: its input ends (the app exits), its socket is closed once its
        output has gone."""
        if not self._ended:
            self._ended = True
            self._changed.set()
            self._stop.set()
            self._wake.set()

    async def finish(self, status: int) -> None:
        """The session is over: the last output, then ``end`` with ``status``, then the socket closes."""
        self.end()
        ws = self._ws
        if ws is None:
            return
        pump = self._pump
        if pump is not None:
            try:
                await asyncio.wait_for(asyncio.shield(pump), 5.0)
            except (TimeoutError, Exception):
                pass
        try:
            await asyncio.wait_for(ws.send_str(json.dumps({"type": "end", "status": status})), 2.0)
            await asyncio.wait_for(ws.close(code=1000, message=b"session over"), 2.0)
        except Exception:
            pass
        self.detach(ws)

    # -- output -------------------------------------------------------------------

    def _forget_output(self) -> None:
        """What was queued for a socket that no longer carries the session goes, and the questions asked
        of it are answered (with an error: there is nothing left unread to wait for)."""
        self._out.clear()
        self._written = self._sent = 0
        self._ping_queue.clear()
        pings, self._pings = self._pings, {}
        for future in pings.values():
            if not future.done():
                future.set_exception(ConnectionError("the socket went"))
                future.exception()  # (nobody need look: not worth a warning)

    def write(self, data: bytes) -> None:
        if self._ws is None or self._repaint:
            return  # no socket, or one owed the whole picture: dropped (the repaint draws everything)
        self._out += data
        self._written += len(data)
        self._wake.set()

    async def _send(self, ws: web.WebSocketResponse) -> None:
        try:
            while True:
                if self._ping_queue and self._ping_queue[0][0] <= self._sent and self._ws is ws:
                    await ws.ping(self._ping_queue.pop(0)[1])  # (after all the output queued before it)
                    continue
                if self._out and self._ws is ws:
                    size = MAX_FRAME if not self._ping_queue else min(MAX_FRAME, self._ping_queue[0][0] - self._sent)
                    chunk = bytes(self._out[:size])
                    del self._out[: len(chunk)]
                    self._sent += len(chunk)
                    await ws.send_bytes(chunk)  # (waits while the transport's buffer is full)
                    continue
                if self._ended or self._ws is not ws:
                    return
                self._wake.clear()
                await self._wake.wait()
        except Exception:  # the socket went while sending
            log.debug("a web socket failed while sending", exc_info=True)
            self.detach(ws)

    def pending_output(self) -> int:
        # This queue, the socket's transport buffer and the kernel's send queue (which grows to
        # megabytes before a reader that stopped holds the writes back), as SSH's channel counts them.
        total = len(self._out)
        transport = self._request.transport if self._request is not None else None
        if transport is not None:
            try:
                total += transport.get_write_buffer_size()
                total += unsent(transport.get_extra_info("socket"))
            except Exception:
                pass
        return total

    def ping(self) -> asyncio.Future[object] | None:
        """A WebSocket ping sent after the output queued so far: done when its pong comes, which
        a browser sends once it has read what came before the ping (a frozen tab, its TCP window
        full, does not)."""
        if self._ws is None or self._ended:
            return None
        self._ping_count += 1
        payload = b"voltage %d" % self._ping_count
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._pings[payload] = future
        self._ping_queue.append((self._written, payload))
        self._wake.set()
        return future

    def _ponged(self, payload: bytes) -> None:
        """A pong: its ping is answered, and so is every one sent before it (read before it)."""
        if payload not in self._pings:
            return  # (the heartbeat's, or an unsolicited one)
        while self._pings:
            key, future = next(iter(self._pings.items()))
            del self._pings[key]
            if not future.done():
                future.set_result(None)
            if key == payload:
                return

    # -- input --------------------------------------------------------------------

    async def read(self) -> bytes | tuple[int, int] | Repaint:
        while True:
            if self._ended:
                return b""
            ws = self._ws
            if ws is None:
                self._changed.clear()
                await self._changed.wait()
                continue
            if self._resize is not None and self._resize_due() == 0 and self._resizes.try_take(self._peer,
                                                                                                self._resize):
                self._size, self._resize = self._resize, None
                self._within_budget()
                if self._repaint:
                    self._repaint = False
                    return Repaint(*self._size)
                return self._size
            msg = await self._receive(ws, self._resize_due())
            if msg is None or self._ws is not ws:
                continue  # (another socket took over meanwhile)
            if msg.type in (WSMsgType.CLOSE, WSMsgType.CLOSING, WSMsgType.CLOSED, WSMsgType.ERROR):
                broken = msg.type == WSMsgType.ERROR and isinstance(msg.data, WebSocketError)
                if broken:  # (a frame over max_message, a broken frame: not a dropped network, so no hold)
                    log.info("ending a web session whose socket broke the protocol: %s", msg.data)
                    self._offence(f"broke the protocol ({msg.data})")
                self.detach(ws)
                if broken:
                    self.end()
                continue
            if msg.type == WSMsgType.PONG:  # (answers the server's own pings: free)
                self._ponged(bytes(msg.data))
                continue
            if not await self._spend(self._messages):
                continue
            if msg.type == WSMsgType.PING:  # (pongs are the channel's: the socket does not answer pings itself)
                await ws.pong(msg.data)
                continue
            if msg.type == WSMsgType.BINARY:
                if msg.data:
                    return bytes(msg.data)
                continue
            if msg.type == WSMsgType.TEXT:
                got = self._control(msg.data)
                if isinstance(got, tuple):
                    # Given at the loop's top once due (its cells, and settled); till then held,
                    # the latest size winning, and the socket read on meanwhile.
                    now = time.monotonic()
                    hurried = now - self._resize_at < SETTLE  # (the page sends one a drag)
                    self._resize, self._resize_at = got, now
                    due = self._resize_due() or 0.0
                    if due > 0 and (hurried or self._resizes.due(self._peer, got) > 0) and self._over_budget():
                        await asyncio.sleep(min(due, HELD_PAUSE))  # (a flood of them: read ~10 a second)
                        # (settled: SETTLE s of reading without another, not of a pause and a late loop)
                        self._resize_at = max(self._resize_at, time.monotonic() - HELD_PAUSE)
                    continue
                if got is not None:
                    return got

    def _resize_due(self) -> float | None:
        """Seconds until the held size is due: its cells, and settled (None: none is held)."""
        if self._resize is None:
            return None
        wait = self._resizes.due(self._peer, self._resize)
        return max(0.0, wait, self._resize_at + SETTLE - time.monotonic())

    async def _receive(self, ws: web.WebSocketResponse, timeout: float | None = None) -> Any:
        """The socket's next message, or None when the session ends meanwhile (the server stopping)
        or ``timeout`` seconds pass first."""
        receiving = asyncio.ensure_future(ws.receive())
        ending = asyncio.ensure_future(self._stop.wait())
        try:
            await asyncio.wait((receiving, ending), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            ending.cancel()
        if not receiving.done():
            receiving.cancel()
        try:  # (awaited: a receive still cancelling would make the next one a concurrent receive)
            return await receiving
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            return None

    def _control(self, text: str) -> bytes | tuple[int, int] | None:
        try:
            message = json.loads(text)
        except ValueError:
            return None
        if not isinstance(message, dict):
            return None
        kind = message.get("type")
        if kind == "resize":  # (not a size: ignored, the last good one stays)
            size = size_of(message, (0, 0))
            return None if 0 in size else size
        if kind == "bye":  # the player left on purpose: no hold
            self.end()
            return b""
        return None

    async def _spend(self, budget: Bucket) -> bool:
        """A token of ``budget``; waits while there is none (the socket is not read meanwhile).
        False: the session was closed for flooding."""
        wait = budget.take(1)
        if wait <= 0:
            self._within_budget()
            return True
        if not self._over_budget():
            return False
        await asyncio.sleep(min(wait, self.limits.flood_close_after))
        return True

    def _within_budget(self) -> None:
        # (a size held means resizes are still coming faster than they are given: a flood of them
        # spends no cells while it lasts, so the cells' budget alone does not tell)
        if (self._flooding_since is not None and self._resize is None and self._messages.rested
                and self._resizes.rested(self._peer)):
            self._flooding_since = None

    def _over_budget(self) -> bool:
        """The socket is over a budget now: False (and the session is closed) once it has been for
        ``flood_close_after`` seconds without a break."""
        now = time.monotonic()
        if self._flooding_since is None or now - self._over_at > FLOOD_BREAK:
            self._flooding_since = now
            self._over_at = now
        elif now - self._flooding_since >= self.limits.flood_close_after:
            log.warning("closing a web session that sent messages over its budget for %.0f s",
                        now - self._flooding_since)
            # (leaving the alternate screen, so that the line stays on the tab's terminal, in the session's
            # language: read() runs in the driver's task, whose context has the session's, as the driver's own)
            words = _("too many messages; the session is closed")
            self.write(f"\x1b[?1049l\x1b[?25h\r\nvoltage: {words}\r\n".encode())
            self._offence("sent messages over its budget")
            self.end()
            return False
        self._over_at = now
        return True

    def _offence(self, why: str) -> None:
        if self.on_offence is not None:
            self.on_offence(why)

    # -- the rest of the channel -------------------------------------------------------

    def close(self) -> None:
        self.end()

    def abort(self) -> None:
        self.end()
        request = self._request
        if request is not None and request.transport is not None:
            request.transport.abort()

    def closing(self) -> bool:
        return self._ended

    @property
    def size(self) -> tuple[int, int]:
        return self._size
