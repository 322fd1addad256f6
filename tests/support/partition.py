"""A cut between one process and Redis, the others still reaching it: a TCP relay in front of a
real redis-server that can be cut (every relayed connection dropped, new ones closed at once, as
a broken route refuses them) and healed.  ``redis://127.0.0.1:PORT/0`` for the cut-off process."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlparse


class Relay:
    def __init__(self, target_url: str) -> None:
        self.target = urlparse(target_url)
        self.cut_off = False
        self.cuts = 0  # connections dropped by a cut
        self._server: asyncio.Server | None = None
        self._pairs: set[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = set()
        self.port = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def start(self) -> Relay:
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self.target.scheme == "unix":
            return await asyncio.open_unix_connection(self.target.path)
        return await asyncio.open_connection(self.target.hostname, self.target.port)

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.cut_off:
            writer.close()
            return
        up_reader, up_writer = await self._open()
        pair = (writer, up_writer)
        self._pairs.add(pair)

        async def pump(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        try:
            await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))
        finally:
            self._pairs.discard(pair)
            for w in pair:
                w.close()

    def cut(self) -> None:
        self.cut_off = True
        for pair in list(self._pairs):
            self.cuts += 1
            for w in pair:
                w.transport.abort()
        self._pairs.clear()

    def heal(self) -> None:
        self.cut_off = False

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
