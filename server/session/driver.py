"""A Textual driver over one terminal channel (bytes in, bytes out, a size), so many apps
share one server process: an SSH session is one such channel (:mod:`server.ssh.channel`).

Textual's Linux driver owns the process's terminal: it installs signal
handlers (SIGTSTP, SIGWINCH) and reads stdin in a thread.  None of that has a
place in a server.  :class:`SSHDriver` instead

- writes the app's output to the channel,
- reads the channel in an asyncio task and feeds Textual's xterm parser,
- turns the client's window-change requests into ``Resize`` events,
- posts events to the app directly on the running loop.

Each session builds its app and calls :func:`run_app`; the app picks this
driver up through a context variable set for that session's task only.

All sessions share one event loop, so one session must not be able to take it
(each decision below answers a measured attack, see ``benchmarks/attack.py``):

- **Keys in order.** Keys go through :class:`tui.keys.KeySequencer`: each key
  is posted once the previous one has finished its trip through the DOM.
  Without it a burst (``ctrl+u World`` in one packet) ran the letters before
  the control key that preceded them (the cause is in :mod:`tui.keys`).
- **An input budget per session** (:class:`InputLimits`): token buckets of
  bytes and of events per second (the connection's own budget of messages and bytes,
  kept by its transport, is :mod:`server.session.budget`'s).  Over budget the driver does not drop
  anything, it stops reading: the transport's flow control then holds the client back
  (what it may queue here is bounded by the channel's window, set in
  :mod:`server.ssh.server` for SSH).  A client that stays over budget for
  ``flood_close_after`` seconds is a flood, not a typist: the session ends
  with a message.  Before, every input byte became a key event run back to
  back (~150 us each): 64 KB stalled every other session for ~18 s.
- **Parsing yields.** Input is parsed ``chunk`` characters at a time with the
  loop given a turn between chunks, and a run of mouse moves in one chunk is
  cut to the last one; over budget a mouse move is dropped rather than waited
  for (a moving mouse is not a flood).  Textual's parser keeps at most 32 characters of an
  unfinished escape sequence (then reissues them as keys, which the event
  budget counts), and the UTF-8 decoder at most 3 bytes: no input buffer here
  grows with what a client sends.
- **Output that is not being read** (:class:`OutputLimits`): what is queued
  counts every buffer between the app and the client (for SSH: the channel's, the
  connection's transport buffer, where a client advertising a 1 GiB window lets
  asyncssh move everything, and the kernel's send queue, which grows to megabytes).
  Output above ``low_water`` is unread: it is watched (every ``poll`` s) until it
  drains; unread for ``hold_after`` seconds, the app's updates are held (they are drawn when it
  drains).  Above ``high_water`` the driver stops writing (frames are dropped, not
  queued, and the app holds its updates: it renders nothing for no one); once the
  queue drains below ``low_water`` it repaints the whole screen
  (telling the app, whose frames are written as changes against what the terminal
  shows, that the terminal's picture is unknown: ``app.forget_terminal()``, see
  :mod:`tui.frames`).  Unread for ``stuck_close_after`` seconds without a drain: the
  session is closed, with a log line, whatever the client sends meanwhile.  Above
  ``hard_limit`` at once it is closed straight away.
- **A new terminal** (:class:`Repaint` from the channel: a browser came back to its session)
  gets the app's terminal modes again, then the drain's repaint: the app forgets what the
  terminal shows and writes it whole.
- **Resizes** are clamped (at most ``max_width`` x ``max_height``: a
  1000x500 frame is megabytes) and coalesced: at most one per
  ``resize_interval``, the latest size winning, and none while the last frame is
  unread (above ``low_water``): the latest size is drawn once the client has read.
  A frame owed so (or held by the budget below) counts any byte left unread, not only what is above
  ``low_water``, towards the stuck time, unless the client is taking them: fifty clients that read
  their lobby and then stopped were owed a 400x200 frame each for up to 40 s before their stuck time
  began (9 of 50 closed in 45 s); and where the buffers tell nothing (all taken, as far as they
  know), the client is asked (:meth:`TerminalChannel.ping`, an SSH keepalive request, which only a
  client that reads answers), the question counting as unread output until it is answered.
  Fifty clients that stopped reading and resized every 0.1 s had each resize redraw
  a 400x200 screen into their kernel buffers (the server's memory 94 -> 288 MB, logins
  8-12 s, none of them closed: each drain reset their stuck time).  And every session's whole
  frames (its first, a resize's, a repaint's) come out of one budget of the process's, in cells
  (:class:`~server.session.budget.RedrawBudget`): a big one waits its turn (the latest size
  kept), a usual terminal's never does, so fifty 400x200 screens redrawn at once no longer hold up
  a new 80x24 login for seconds.
- **No leak after the end.** The session's parser keeps its key cache on the
  instance, and Textual's method caches keyed by widgets are cleared when a
  session ends (:mod:`tui.textual_compat.session`, with the figures).
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import contextvars
import fcntl
import logging
import struct
import sys
import termios
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from textual import events
from textual.app import App
from textual.driver import Driver
from textual.geometry import Size
from textual.messages import Message

from server import gcpolicy
from server.session.budget import Bucket, RedrawBudget
from tui import textual_compat as compat
from tui.i18n import _
from tui.keys import KeySequencer

log = logging.getLogger(__name__)

# Output not yet taken by a client beyond this many bytes: the client is not
# reading, and the session ends rather than let the server's memory grow.
MAX_PENDING_OUTPUT = 4 * 1024 * 1024


@dataclass
class InputLimits:
    """What one session may send (see the module's notes)."""

    bytes_per_second: float = 16 * 1024
    bytes_burst: float = 64 * 1024
    events_per_second: float = 100.0
    events_burst: float = 300.0
    flood_close_after: float = 10.0  # seconds over budget without a break
    chunk: int = 256  # characters parsed between two turns of the loop


@dataclass
class OutputLimits:
    """What one session may leave unread (see the module's notes)."""

    high_water: int = 256 * 1024
    low_water: int = 32 * 1024
    hard_limit: int = MAX_PENDING_OUTPUT
    stuck_close_after: float = 30.0
    hold_after: float = 1.0  # unread this long: the app's updates are held until the client reads
    poll: float = 0.2
    resize_interval: float = 0.2
    max_width: int = 400
    max_height: int = 200


@dataclass(frozen=True)
class Repaint:
    """What a channel's ``read()`` gives when its client's picture is gone and the whole screen
    is wanted again, at ``width`` x ``height`` (a browser that reconnected to a session that ran
    on without it: :mod:`server.web`)."""

    width: int
    height: int


def unsent(sock: Any) -> int:
    """Bytes in ``sock``'s kernel send queue not yet acknowledged by the peer (Linux's ``SIOCOUTQ``;
    0 where it cannot be read)."""
    if sock is None or _SIOCOUTQ is None:
        return 0
    try:
        return int(struct.unpack("i", fcntl.ioctl(sock.fileno(), _SIOCOUTQ, b"\0\0\0\0"))[0])
    except (OSError, ValueError, AttributeError):
        return 0


_SIOCOUTQ: int | None = getattr(termios, "TIOCOUTQ", None) if sys.platform.startswith("linux") else None


class TerminalChannel(Protocol):
    """What the driver needs from a transport's session (an SSH process, an in-memory test channel).  A Protocol
    (the seam), with defaults a channel gets by deriving from it, as :class:`server.ssh.channel.ProcessChannel` does."""

    def write(self, data: bytes) -> None: ...

    async def read(self) -> bytes | tuple[int, int] | Repaint:
        """Input bytes, a new ``(width, height)`` after a resize, a :class:`Repaint`, or ``b''`` at the end."""
        ...

    def pending_output(self) -> int:
        """Bytes written and not yet taken by the client (every buffer on the way)."""
        return 0

    def ping(self) -> asyncio.Future[object] | None:
        """A round trip the client's software answers only once it has read what was sent before it
        (SSH: a keepalive request): done when answered; None where the transport has none."""
        return None

    def close(self) -> None: ...

    def abort(self) -> None:
        """Hang up now, dropping what is queued (a client that does not read would
        never take a polite close)."""
        self.close()

    def closing(self) -> bool:
        """The client has gone (or is going): waiting on its budget is pointless."""
        return False

    @property
    def size(self) -> tuple[int, int]:
        return (80, 24)


@dataclass
class _Session:
    channel: TerminalChannel
    on_close: Callable[[], None] | None = None
    input_limits: InputLimits = field(default_factory=InputLimits)
    output_limits: OutputLimits = field(default_factory=OutputLimits)
    reader: asyncio.Task[None] | None = None  # the driver's input task: ended before the app is dismantled
    redraws: RedrawBudget | None = None  # whole-screen frames, shared by every session of the process


_current: contextvars.ContextVar[_Session] = contextvars.ContextVar("voltage_ssh_session")


def _quiet(future: asyncio.Future[object]) -> None:
    if not future.cancelled():
        future.exception()  # (a ping lost with its connection: nothing to report)


def _clamp_size(width: int, height: int, limits: OutputLimits | None = None) -> tuple[int, int]:
    # Zero means "unknown" in SSH; a huge size would make every frame megabytes.
    limits = limits or OutputLimits()
    width = min(width, limits.max_width) if width > 0 else 80
    height = min(height, limits.max_height) if height > 0 else 24
    return width, height


class SSHDriver(Driver):
    """Drives one Textual app through one SSH channel (see the module's notes)."""

    def __init__(
        self,
        app: App[Any],
        *,
        debug: bool = False,
        mouse: bool = True,
        size: tuple[int, int] | None = None,
    ) -> None:
        super().__init__(app, debug=debug, mouse=mouse, size=size)
        self._session = _current.get()
        self._channel = self._session.channel
        self._in = self._session.input_limits
        self._out = self._session.output_limits
        self._reader: asyncio.Task | None = None
        self._tick_handle: asyncio.TimerHandle | None = None
        self._parser = compat.input_parser()
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        self._closed = False
        self._outbox: list[Message] | None = None
        self._delivering = False
        self._sequencer = KeySequencer(app, app.post_message)
        self._bytes = Bucket(self._in.bytes_per_second, self._in.bytes_burst)
        self._events = Bucket(self._in.events_per_second, self._in.events_burst)
        self._flooding_since: float | None = None
        # output
        self._paused_since: float | None = None  # drawing paused (above high water) since then
        self._unread_since: float | None = None  # output above low water, not drained since then
        self._unread_pending = 0  # what was queued at the last look
        self._ping: asyncio.Future[object] | None = None  # asked whether the client reads (TerminalChannel.ping)
        self._drain_handle: asyncio.TimerHandle | None = None
        # resizes
        self._last_resize = 0.0
        self._pending_size: tuple[int, int] | None = None
        self._resize_handle: asyncio.TimerHandle | None = None
        self._new_terminal = False  # a Repaint came: the modes go out again with the next full picture
        self._redraws = self._session.redraws
        self._held: contextlib.AbstractContextManager[None] | None = None  # the app's updates, held while paused
        self.end_reason: str | None = None

    # -- output --------------------------------------------------------------

    def write(self, data: str) -> None:
        if self._closed or self._paused_since is not None:
            return  # not reading: this frame is dropped, a full one follows the drain
        try:
            self._channel.write(data.encode("utf-8", "replace"))
        except Exception:  # the channel went away under us
            self._closed = True
            return
        pending = self._channel.pending_output()
        if pending > self._out.hard_limit:
            log.warning("closing a session: %d bytes of output queued, the client is not reading", pending)
            self._end(None, abort=True)
        elif pending > self._out.high_water:
            self._paused_since = time.monotonic()
            self._hold_updates()
            self._watch_unread()
        elif pending > self._out.low_water:
            self._watch_unread()

    def _watch_unread(self) -> None:
        """Output is waiting for the client: poll until it drains (or the session is stuck)."""
        if self._unread_since is None:
            self._unread_since = time.monotonic()
            self._unread_pending = self._channel.pending_output()
        if self._drain_handle is None and not self._closed:
            self._drain_handle = self._loop.call_later(self._out.poll, self._check_drain)

    def _check_drain(self) -> None:
        self._drain_handle = None
        if self._closed or self._unread_since is None:
            return
        pending = self._channel.pending_output()
        last, self._unread_pending = self._unread_pending, pending
        if self._ping is not None and not self._ping.done():
            drained = False  # (asked whether it reads: not answered yet)
        elif self._pending_size is not None:
            # A frame is owed (a resize waits for the client to read, or for the process's budget of
            # whole frames): the client may have read all but a few bytes, so any that stay unread
            # count, unless it is taking them (the queue shrank since the last look).  Fifty clients
            # that stopped reading after their lobby and resized ten times a second were owed a
            # 400x200 frame for up to 40 s before their stuck time could start.
            drained = pending == 0 or pending < last
        else:
            drained = pending <= self._out.low_water
        if drained:
            self._unread_since = None
            if self._paused_since is not None or self._held is not None:
                # (held, or paused too: frames were dropped) the whole screen again
                self._paused_since = None
                self._release_updates()
                self._repaint()
            else:
                self._try_resize()
            return
        stuck = time.monotonic() - self._unread_since
        if stuck >= self._out.hold_after:
            # Not reading for a while: its screen stops rendering for no one (fifty stuck 400x200
            # lobbies, each below the pause, rendered every arrival: a new login waited ~1 s).
            self._hold_updates()
        if stuck >= self._out.stuck_close_after:
            log.warning(
                "closing a session whose output has been stuck for %.0f s (%d bytes queued)", stuck, pending
            )
            self._end(None, abort=True)
            return
        self._drain_handle = self._loop.call_later(self._out.poll, self._check_drain)

    def _hold_updates(self) -> None:
        """The client is not reading: the app stops laying out and rendering its updates (Textual's
        ``batch_update``) until it does, as its frames would be dropped anyway (fifty stuck 400x200
        lobbies each rendered every change of the lobby for no one)."""
        if self._held is None:
            self._held = self._app.batch_update()
            self._held.__enter__()

    def _release_updates(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            held.__exit__(None, None, None)

    def _repaint(self) -> None:
        # Frames were dropped: what the terminal shows is unknown to the app's shadow
        # (tui.frames), which then writes the whole screen.
        if self._new_terminal:  # (a terminal that replaced the old one: its modes first)
            self._new_terminal = False
            self._enter_modes()
        forget = getattr(self._app, "forget_terminal", None)
        if forget is not None:
            forget()
        # A Resize to the current (or latest asked-for) size redraws the whole screen.
        size = self._pending_size or self._size or _clamp_size(*self._channel.size, self._out)
        self._pending_size = None
        self._draw(*size)

    def _end(self, reason: str | None, *, abort: bool = False) -> None:
        """End this session (only this one): the app exits and the channel closes."""
        if self._closed:
            return
        self.end_reason = reason
        if reason:
            try:  # leave the alternate screen so the message stays on the client's terminal
                self._channel.write(f"\x1b[?1049l\x1b[?25h\r\nvoltage: {reason}\r\n".encode())
            except Exception:
                pass
        self._closed = True
        self.disable_input()
        self._app.exit()
        if abort and hasattr(self._channel, "abort"):
            self._channel.abort()
        else:
            self._channel.close()

    # -- application mode ----------------------------------------------------

    def start_application_mode(self) -> None:
        width, height = _clamp_size(*self._channel.size, self._out)
        if self._redraws is not None:  # (the first frame is drawn at once, and counts)
            self._redraws.charge(width * height)
        self._post_resize(width, height)
        self._enter_modes()
        self._reader = self._session.reader = asyncio.get_running_loop().create_task(self._read_input())

    def _enter_modes(self) -> None:
        """The terminal modes the app runs in (again, for a terminal that was replaced: :class:`Repaint`)."""
        write = self.write
        write("\x1b[?1049h")  # alternate screen
        write("\x1b[?25l")  # hide the cursor
        write("\x1b[?1004h")  # focus in/out reports
        write("\x1b[?2004h")  # bracketed paste
        write("\x1b[?7l")  # no line wrap
        if self._mouse:
            write("\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h")

    def disable_input(self) -> None:
        if self._reader is not None and self._reader is not asyncio.current_task():
            self._reader.cancel()
        self._reader = None
        if self._ping is not None:
            self._ping.cancel()
        for name in ("_tick_handle", "_drain_handle", "_resize_handle"):
            handle = getattr(self, name)
            if handle is not None:
                handle.cancel()
                setattr(self, name, None)

    def stop_application_mode(self) -> None:
        self.disable_input()
        write = self.write
        if self._mouse:
            write("\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l")
        write("\x1b[?2004l\x1b[?7h\x1b[?1004l")
        write("\x1b[?1049l")  # back from the alternate screen
        write("\x1b[?25h")  # cursor back

    def close(self) -> None:
        self.disable_input()

    # -- input ---------------------------------------------------------------

    def send_message(self, message: Message) -> None:
        # Same loop, same thread: no need for run_coroutine_threadsafe.  While the
        # reader delivers parsed input, messages are collected to go through the
        # key sequencer in order.
        if self._outbox is not None:
            self._outbox.append(message)
        else:
            self._app.post_message(message)

    def _post_resize(self, width: int, height: int) -> None:
        self._size = (width, height)
        self._last_resize = time.monotonic()
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))

    def _resize_requested(self, width: int, height: int) -> None:
        self._pending_size = _clamp_size(width, height, self._out)  # the latest size wins
        self._try_resize()

    def _try_resize(self) -> None:
        """Draw the latest size asked for, unless the last frame is unread (then the drain does,
        :meth:`_check_drain`) or the last resize was too recent (then a timer does)."""
        if self._pending_size is None or self._closed or self._resize_handle is not None:
            return
        if self._paused_since is not None:
            return  # the repaint once output drains draws the latest size
        if self._unread_since is not None or self._channel.pending_output() > self._out.low_water:
            self._watch_unread()
            return
        wait = self._last_resize + self._out.resize_interval - time.monotonic()
        if wait > 0:
            self._resize_handle = self._loop.call_later(wait, self._apply_resize)
            return
        size, self._pending_size = self._pending_size, None
        self._draw(*size)

    def _draw(self, width: int, height: int) -> None:
        """A whole frame at this size, now if the process's budget of whole frames allows, else as
        the latest size asked for, once it does (a resize meanwhile replaces it)."""
        wait = self._redraws.ask(width * height) if self._redraws is not None else 0.0
        if wait <= 0:
            self._post_resize(width, height)
            return
        self._pending_size = (width, height)
        if self._channel.pending_output() > 0:
            self._watch_unread()  # (owed a frame, and not even the last small ones read: see _check_drain)
        elif self._ping is None or self._ping.done():
            # Everything sent was taken, as far as the buffers tell: a client that stopped reading
            # after its last frame looks the same until something more is sent, so ask it.
            self._ping = self._channel.ping()
            if self._ping is not None:
                self._ping.add_done_callback(_quiet)
                self._watch_unread()
        if self._resize_handle is None and not self._closed:
            self._resize_handle = self._loop.call_later(wait, self._apply_resize)

    def _apply_resize(self) -> None:
        self._resize_handle = None
        self._try_resize()

    def _schedule_tick(self) -> None:
        # A lone ESC waits for the parser's escape delay before it is a key.
        timeout_at = compat.escape_deadline(self._parser)
        if timeout_at is None or self._tick_handle is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, timeout_at - loop.time()) + 0.01
        self._tick_handle = loop.call_later(delay, self._tick)

    def _tick(self) -> None:
        self._tick_handle = None
        if self._delivering:  # keys of the same read still going in: the lone ESC waits its turn
            self._tick_handle = self._loop.call_later(0.05, self._tick)
            return
        for event in self._parser.tick():
            self.process_message(event)
        self._schedule_tick()

    async def _spend(self, bucket: Bucket, n: float) -> None:
        """Wait until ``n`` tokens are due; a client over budget for too long is a flood."""
        wait = bucket.take(n)
        if wait <= 0:
            if self._flooding_since is not None and bucket.rested:
                self._flooding_since = None
            return
        now = time.monotonic()
        if self._flooding_since is None:
            self._flooding_since = now
        elif now - self._flooding_since >= self._in.flood_close_after:
            log.warning("closing a session that sent input over its budget for %.0f s", now - self._flooding_since)
            self._end(_("too much input; the session is closed"))  # (the session's language: its context)
            raise asyncio.CancelledError
        deadline = now + min(wait, self._in.flood_close_after)
        while (left := deadline - time.monotonic()) > 0:
            closing = getattr(self._channel, "closing", None)  # duck-typed channels may lack it
            if closing is not None and closing():
                raise EOFError  # the client hung up while held back: end now
            await asyncio.sleep(min(left, 0.25))

    async def _deliver(self, text: str) -> None:
        self._delivering = True
        try:
            await self._deliver_chunks(text)
        finally:
            self._delivering = False

    async def _deliver_chunks(self, text: str) -> None:
        chunk = max(1, self._in.chunk)
        for start in range(0, len(text), chunk):
            parsed = list(self._parser.feed(text[start : start + chunk]))
            for i, event in enumerate(parsed):
                if (
                    isinstance(event, events.MouseMove)
                    and i + 1 < len(parsed)
                    and isinstance(parsed[i + 1], events.MouseMove)
                ):
                    continue  # only the last of a run of moves matters
                if isinstance(event, events.MouseMove):
                    if not self._events.try_take(1):
                        continue  # over budget, a move is dropped, never waited for
                else:
                    await self._spend(self._events, 1)
                self._outbox = []
                try:
                    self.process_message(event)
                    messages, self._outbox = self._outbox, None
                finally:
                    self._outbox = None
                for message in messages:
                    await self._sequencer.send(message)
                if self._closed:
                    return
            await asyncio.sleep(0)  # let every other session have the loop
        self._schedule_tick()

    async def _read_input(self) -> None:
        try:
            while not self._closed:
                data = await self._channel.read()
                if isinstance(data, tuple):
                    self._resize_requested(*data)
                    continue
                if isinstance(data, Repaint):
                    self._pending_size = _clamp_size(data.width, data.height, self._out)
                    self._new_terminal = True
                    if self._paused_since is None:  # (paused: the drain repaints)
                        self._repaint()
                    continue
                if not data:
                    break
                await self._spend(self._bytes, len(data))
                await self._deliver(self._decode(data))
        except asyncio.CancelledError:
            if not self._closed:
                raise
            return
        except Exception:
            log.debug("session input ended", exc_info=True)
        # The client went away: end this app (and only this one).
        self._closed = True
        self._app.exit()


async def run_app(
    app: App[Any],
    channel: TerminalChannel,
    *,
    input_limits: InputLimits | None = None,
    output_limits: OutputLimits | None = None,
    redraws: RedrawBudget | None = None,
) -> Any:
    """Run ``app`` on ``channel`` until it exits; never raises into the caller's loop.  ``redraws``:
    the budget of whole frames this session shares with the others of its process."""
    session = _Session(channel, input_limits=input_limits or InputLimits(),
                       output_limits=output_limits or OutputLimits(), redraws=redraws)
    _current.set(session)
    app.driver_class = SSHDriver
    compat.keep_process_streams(app)  # many apps in one process: sys.stdout/sys.stderr stay the server's
    compat.share_css(app)
    try:
        return await app.run_async()
    except Exception:
        log.exception("a session's app crashed")
        return None
    finally:
        await _reader_ended(session)
        compat.forget_session_caches()
        gcpolicy.session_ended(app)  # its cycles broken: freed by reference counts, frozen or not


async def _reader_ended(session: _Session) -> None:
    """Wait for the driver's input task to end (it is cancelled when the app stops, and runs
    on until the loop gets to it): once the app is dismantled it would find its driver empty."""
    reader = session.reader
    if reader is not None and not reader.done():
        reader.cancel()
        await asyncio.wait([reader], timeout=5.0)
