"""An SSH session process as the session layer sees it: a
:class:`~server.session.driver.TerminalChannel` for the driver, a console for a command's
words (its stdout and stderr), and the environment the client sent."""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Mapping
from typing import Any

import asyncssh

from server.session.driver import TerminalChannel, unsent


class ProcessChannel(TerminalChannel):
    """The driver's view of an SSH session process."""

    def __init__(self, process: asyncssh.SSHServerProcess) -> None:
        self.process = process

    def write(self, data: bytes) -> None:
        self.process.stdout.write(data)

    async def read(self) -> bytes | tuple[int, int]:
        try:
            return await self.process.stdin.read(4096)
        except asyncssh.TerminalSizeChanged as exc:
            size = (exc.width, exc.height)
            _drop_traceback(exc)
            return size
        except (asyncssh.BreakReceived, asyncssh.SignalReceived) as exc:
            _drop_traceback(exc)
            return b""

    def pending_output(self) -> int:
        # The channel's own buffer, the connection's transport buffer (with a large client
        # window asyncssh moves output straight on to the transport, where it piles up when
        # the client stops reading TCP) and the kernel's send queue: what it holds has not
        # reached the client either, and it grows to megabytes (the send buffer is tuned up
        # to tcp_wmem's maximum), so a client that stopped reading looked as if it read for a
        # while, and every drain into it redrew the screen.
        total = 0
        try:
            chan = self.process.channel
            total += chan.get_write_buffer_size()
            conn = chan.get_extra_info("connection")
            transport = getattr(conn, "_transport", None)
            if transport is not None:
                total += transport.get_write_buffer_size()
                total += unsent(transport.get_extra_info("socket"))
        except Exception:
            pass
        return total

    def ping(self) -> asyncio.Future[object] | None:
        # A keepalive request (want-reply), which a client answers (success or failure) once it has
        # read what came before it; through asyncssh's private ``_make_global_request`` (pinned,
        # as ``_send_pktsize`` in server.ssh.connection).
        conn = self.process.channel.get_extra_info("connection")
        request = getattr(conn, "_make_global_request", None)
        if request is None:
            return None
        return asyncio.ensure_future(request(b"keepalive@openssh.com"))

    def close(self) -> None:
        self.process.close()

    def abort(self) -> None:
        conn = self.process.channel.get_extra_info("connection")
        if conn is not None:
            conn.abort()
        else:
            self.process.channel.abort()

    def closing(self) -> bool:
        try:
            return self.process.channel.is_closing()
        except Exception:
            return True

    @property
    def size(self) -> tuple[int, int]:
        w, h, _pw, _ph = self.process.term_size
        return (w, h)


def _drop_traceback(exc: BaseException) -> None:
    """asyncssh hands a resize (a break, a signal) to the reader as an exception it raises: its traceback
    holds asyncssh's read frame, which holds the exception, a cycle per resize.  The server's collector
    policy freezes what survives, so a flood of resizes left each one behind for good (13-15 MB per
    10,000); cleared here, the exception is freed by its reference count."""
    traceback.clear_frames(exc.__traceback__)
    exc.__traceback__ = None
    exc.__context__ = None


class ProcessConsole:
    """A command's words: its output to the process's stdout, its errors to stderr."""

    def __init__(self, process: asyncssh.SSHServerProcess) -> None:
        self.process = process

    def out(self, text: str) -> None:
        self.process.stdout.write(text.encode())

    def err(self, text: str) -> None:
        self.process.stderr.write(text.encode())


def sent_env(process: asyncssh.SSHServerProcess) -> Mapping[str, Any]:
    """The variables the client sent (``SetEnv``/``SendEnv``): the session layer reads the few
    it knows (:mod:`server.session.environment`)."""
    try:
        return process.env
    except Exception:  # pragma: no cover - no channel
        return {}
