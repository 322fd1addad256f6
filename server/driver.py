"""A Textual driver over one SSH channel, so many apps share one server process.

Textual's Linux driver owns the process's terminal: it installs signal
handlers (SIGTSTP, SIGWINCH) and reads stdin in a thread.  None of that has a
place in a server.  :class:`SSHDriver` instead

- writes the app's output to the SSH channel (asyncssh buffers it; nothing to flush),
- reads the channel in an asyncio task and feeds Textual's xterm parser,
- turns the client's window-change requests into ``Resize`` events,
- posts events to the app directly on the running loop.

Each session builds its app and calls :func:`run_app`; the app picks this
driver up through a context variable set for that session's task only.
"""

from __future__ import annotations

import asyncio
import codecs
import contextvars
import logging
from dataclasses import dataclass
from typing import Any, Callable

from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App
from textual.driver import Driver
from textual.geometry import Size
from textual.messages import Message

log = logging.getLogger(__name__)

# Output not yet taken by a client beyond this many bytes: the client is not
# reading, and the session ends rather than let the server's memory grow.
MAX_PENDING_OUTPUT = 4 * 1024 * 1024


class TerminalChannel:
    """What the driver needs from an SSH session (or a test double)."""

    def write(self, data: bytes) -> None: ...

    async def read(self) -> bytes | tuple[int, int]:
        """Input bytes, a new ``(width, height)`` after a resize, or ``b''`` at the end."""
        ...

    def pending_output(self) -> int:
        return 0

    def close(self) -> None: ...

    @property
    def size(self) -> tuple[int, int]:
        return (80, 24)


@dataclass
class _Session:
    channel: TerminalChannel
    on_close: Callable[[], None] | None = None


_current: contextvars.ContextVar[_Session] = contextvars.ContextVar("voltage_ssh_session")


def _clamp_size(width: int, height: int) -> tuple[int, int]:
    # Zero means "unknown" in SSH; absurd sizes would make Textual allocate absurd buffers.
    width = width if 0 < width <= 1000 else 80
    height = height if 0 < height <= 500 else 24
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
        self._reader: asyncio.Task | None = None
        self._tick_handle: asyncio.TimerHandle | None = None
        self._parser = XTermParser(debug=False)
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        self._closed = False

    # -- output --------------------------------------------------------------

    def write(self, data: str) -> None:
        if self._closed:
            return
        try:
            self._channel.write(data.encode("utf-8", "replace"))
        except Exception:  # the channel went away under us
            self._closed = True
            return
        if self._channel.pending_output() > MAX_PENDING_OUTPUT:
            log.info("client is not reading its output; ending the session")
            self._closed = True
            self._app.exit()
            self._channel.close()

    # -- application mode ----------------------------------------------------

    def start_application_mode(self) -> None:
        width, height = _clamp_size(*self._channel.size)
        self._post_resize(width, height)
        write = self.write
        write("\x1b[?1049h")  # alternate screen
        write("\x1b[?25l")  # hide the cursor
        write("\x1b[?1004h")  # focus in/out reports
        write("\x1b[?2004h")  # bracketed paste
        write("\x1b[?7l")  # no line wrap
        if self._mouse:
            write("\x1b[?1000h\x1b[?1003h\x1b[?1015h\x1b[?1006h")
        self._reader = asyncio.get_running_loop().create_task(self._read_input())

    def disable_input(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            self._reader = None
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None

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
        # Same loop, same thread: no need for run_coroutine_threadsafe.
        self._app.post_message(message)

    def _post_resize(self, width: int, height: int) -> None:
        self._size = (width, height)
        size = Size(width, height)
        self._app.post_message(events.Resize(size, size))

    def _feed(self, text: str) -> None:
        for event in self._parser.feed(text):
            self.process_message(event)
        self._schedule_tick()

    def _schedule_tick(self) -> None:
        # A lone ESC waits for the parser's escape delay before it is a key.
        timeout_at = getattr(self._parser, "_timeout_time", None)
        if timeout_at is None or self._tick_handle is not None:
            return
        loop = asyncio.get_running_loop()
        delay = max(0.0, timeout_at - loop.time()) + 0.01
        self._tick_handle = loop.call_later(delay, self._tick)

    def _tick(self) -> None:
        self._tick_handle = None
        for event in self._parser.tick():
            self.process_message(event)
        self._schedule_tick()

    async def _read_input(self) -> None:
        try:
            while True:
                data = await self._channel.read()
                if isinstance(data, tuple):
                    self._post_resize(*_clamp_size(*data))
                    continue
                if not data:
                    break
                self._feed(self._decode(data))
        except asyncio.CancelledError:
            raise
        except Exception:
            log.debug("session input ended", exc_info=True)
        # The client went away: end this app (and only this one).
        self._closed = True
        self._app.exit()


class _SharedParseCache:
    """Parsed CSS rules shared by every app of the process (each app parses the same
    CSS).  Keyed by the stylesheet's variables too, so a theme change cannot leak
    one app's rules into another's; ``clear()`` (a theme change) keeps the others."""

    _rules: dict[tuple, Any] = {}
    LIMIT = 512

    def __init__(self, stylesheet: Any) -> None:
        self._stylesheet = stylesheet

    def _key(self, key: tuple) -> tuple:
        variables = getattr(self._stylesheet, "_variables", {})
        return (tuple(sorted(variables.items())), key)

    def __getitem__(self, key: tuple) -> Any:
        return self._rules[self._key(key)]

    def __setitem__(self, key: tuple, value: Any) -> None:
        if len(self._rules) >= self.LIMIT:
            self._rules.clear()
        self._rules[self._key(key)] = value

    def clear(self) -> None:
        pass


def _share_css(app: App[Any]) -> None:
    stylesheet = getattr(app, "stylesheet", None)
    if stylesheet is not None and hasattr(stylesheet, "_parse_cache"):
        stylesheet._parse_cache = _SharedParseCache(stylesheet)


async def run_app(app: App[Any], channel: TerminalChannel) -> Any:
    """Run ``app`` on ``channel`` until it exits; never raises into the caller's loop."""
    import sys

    _current.set(_Session(channel))
    app.driver_class = SSHDriver
    # Textual points sys.stdout/sys.stderr at the app while it runs (process-wide).
    # With many apps in one process that would swallow the server's own output
    # and restore the wrong stream when apps end out of order: keep them as they are.
    app._capture_stdout = sys.stdout
    app._capture_stderr = sys.stderr
    _share_css(app)
    try:
        return await app.run_async()
    except Exception:
        log.exception("a session's app crashed")
        return None
