"""An in-memory terminal channel (bytes in, bytes out, a size), as a transport other than
SSH gives the session layer: what is written goes to a pyte screen, keys are put in by
the test, and the test says how much output the "client" has not taken yet."""

from __future__ import annotations

import asyncio
import re
import time
from typing import Any

import pyte

from server.session.driver import TerminalChannel
from tests.support.terminal import KEYS
from tests.support.wait import DEADLINE


class MemoryChannel(TerminalChannel):
    def __init__(self, width: int = 100, height: int = 32) -> None:
        self._size = (width, height)
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()  # every byte written, as written
        self.writes = 0
        self.pending = 0  # output the client has not taken (the test sets it)
        self.closed = False
        self.aborted = False
        self._input: asyncio.Queue[Any] = asyncio.Queue()  # bytes, a new size, a Repaint
        self.answers = True  # the client answers a ping (its software reads): the test sets it
        self.pings = 0
        self._changed = asyncio.Event()

    # -- the driver's side ------------------------------------------------------

    def write(self, data: bytes) -> None:
        self.raw += data
        self.writes += 1
        self.stream.feed(data)
        self._changed.set()

    async def read(self) -> bytes | tuple[int, int]:
        return await self._input.get()

    def pending_output(self) -> int:
        return self.pending

    def ping(self) -> asyncio.Future[object] | None:
        self.pings += 1
        answer: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        if self.answers:
            answer.set_result(None)
        return answer

    def close(self) -> None:
        self.hang_up()

    def abort(self) -> None:
        self.aborted = True
        self.hang_up()

    def closing(self) -> bool:
        return self.closed

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    # -- the test's side --------------------------------------------------------

    def send(self, data: bytes | str) -> None:
        self._input.put_nowait(data.encode() if isinstance(data, str) else data)

    def press(self, *keys: str) -> None:
        for key in keys:
            self.send(KEYS.get(key, key))

    def resize(self, width: int, height: int) -> None:
        """The client's terminal changed its size (the screen the test reads stays as it was)."""
        self._size = (width, height)
        self._input.put_nowait((width, height))

    def hang_up(self) -> None:
        """The client has gone: the session reads the end of its input."""
        if not self.closed:
            self.closed = True
            self._input.put_nowait(b"")
            self._changed.set()

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, pattern: str, timeout: float = DEADLINE) -> re.Match[str]:
        """Wait until the screen matches ``pattern`` (a regex); fail with the screen shown."""
        deadline = time.monotonic() + timeout
        while (m := re.search(pattern, self.text())) is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {pattern!r}; screen:\n{self.text()}")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))
            except TimeoutError:
                pass
        return m
