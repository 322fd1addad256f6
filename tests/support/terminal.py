"""A test terminal: an asyncssh client with a PTY whose output a pyte screen renders."""

from __future__ import annotations

import asyncio
import re
import time

import asyncssh
import pyte

from tests.support.wait import DEADLINE

KEYS = {
    "enter": "\r",
    "tab": "\t",
    "escape": "\x1b",
    "backspace": "\x7f",
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "home": "\x1b[H",
    "end": "\x1b[F",
    # application cursor mode (the other arrow-key encoding)
    "app-up": "\x1bOA",
    "app-down": "\x1bOB",
    "app-right": "\x1bOC",
    "app-left": "\x1bOD",
}


class GuestClient(asyncssh.SSHClient):
    """Answers keyboard-interactive auth (the server asks nothing) like OpenSSH does."""

    def kbdint_auth_requested(self):
        return ""

    def kbdint_challenge_received(self, name, instructions, lang, prompts):
        return ["" for _ in prompts]


async def ssh_connect(port: int, username: str = "alice", *, client_keys=(), host: str = "127.0.0.1", **kw):
    return await asyncssh.connect(
        host,
        port,
        username=username,
        known_hosts=None,
        client_factory=GuestClient,
        client_keys=list(client_keys) or None,
        agent_path=None,
        preferred_auth="publickey,keyboard-interactive" if client_keys else "keyboard-interactive",
        **kw,
    )


class Terminal:
    """One player's terminal: connect, type, and wait for the screen to show things."""

    def __init__(self, width: int = 100, height: int = 30) -> None:
        self.width, self.height = width, height
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.conn: asyncssh.SSHClientConnection | None = None
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.frames = 0
        self.raw = bytearray()  # every byte the server sent, as sent (escape codes included)
        self.last_output = 0.0
        self._changed = asyncio.Event()
        self.closed = asyncio.Event()
        self.closed_at: float | None = None  # time.monotonic() when the connection closed
        self.exit_status: int | None = None

    async def connect(
        self,
        port: int,
        username: str = "alice",
        *,
        client_keys=(),
        command: str | None = None,
        host: str = "127.0.0.1",
        env: dict[str, str] | None = None,
        **options,
    ) -> Terminal:
        """``options`` go to ``asyncssh.connect`` (``window=`` for one, the window this client
        advertises); ``env`` is what the client sends (as ``ssh -o SetEnv=NO_COLOR=1``)."""
        self.conn = await ssh_connect(port, username, client_keys=client_keys, host=host, **options)
        term = self

        class Session(asyncssh.SSHClientSession):
            def data_received(self, data, datatype):
                term.raw += data
                term.stream.feed(data)
                term.frames += 1
                term.last_output = time.monotonic()
                term._changed.set()

            def exit_status_received(self, status):
                term.exit_status = status

            def connection_lost(self, exc):
                term.closed_at = time.monotonic()
                term.closed.set()
                term._changed.set()

        sent: dict[bytes | str, bytes | str] = dict(env.items()) if env else {}
        self.chan, _ = await self.conn.create_session(
            Session,
            command,
            term_type="xterm-256color",
            term_size=(self.width, self.height),
            encoding=None,
            env=sent,
        )
        return self

    # -- output ----------------------------------------------------------------

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def colours(self) -> set[str]:
        """Every colour (foreground or background) shown on the screen now."""
        found = set()
        for row in self.screen.buffer.values():
            for ch in row.values():
                found |= {c for c in (ch.fg, ch.bg) if c != "default"}
        return found

    def reversed_text(self) -> str:
        """The screen's text with only what is shown in reverse video (a focused list's cursor row); the
        rest blank."""
        rows = []
        for y in range(self.height):
            row = self.screen.buffer[y]
            rows.append("".join(row[x].data if row[x].reverse else " " for x in range(self.width)))
        return "\n".join(rows)

    async def wait_until(self, predicate, what: str, timeout: float = DEADLINE) -> None:
        """Wait until ``predicate()`` holds, checking as the screen changes; fail with the screen shown."""
        deadline = time.monotonic() + timeout
        while not predicate():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {what}; screen:\n{self.text()}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))
            except TimeoutError:
                pass

    def has(self, pattern: str) -> bool:
        return re.search(pattern, self.text()) is not None

    async def wait_for(self, pattern: str, timeout: float = DEADLINE) -> re.Match:
        """Wait until the screen matches ``pattern`` (a regex); fail with the screen shown."""
        deadline = time.monotonic() + timeout
        while True:
            m = re.search(pattern, self.text())
            if m:
                return m
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {pattern!r}; screen:\n{self.text()}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))
            except TimeoutError:
                pass

    async def wait_gone(self, pattern: str, timeout: float = DEADLINE) -> None:
        deadline = time.monotonic() + timeout
        while re.search(pattern, self.text()):
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} still shown; screen:\n{self.text()}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), 0.5)
            except TimeoutError:
                pass

    # -- input -----------------------------------------------------------------

    @property
    def channel(self) -> asyncssh.SSHClientChannel[bytes]:
        """The session's channel (connected: ``connect`` first)."""
        assert self.chan is not None, "not connected"
        return self.chan

    def send(self, text: str) -> None:
        self.channel.write(text.encode())

    def press(self, *keys: str) -> None:
        for key in keys:
            self.send(KEYS.get(key, key))

    def resize(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.screen.resize(height, width)
        self.channel.change_terminal_size(width, height)

    async def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            try:
                await asyncio.wait_for(self.conn.wait_closed(), 5)
            except TimeoutError:
                pass
