"""Fixtures of the web transport's tests: a server with SSH and the web side by side on one
lobby (``web_server``), and a WebSocket client that speaks the page's protocol into a pyte
screen (:class:`WebTerminal`), for the tests that need no browser."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import aiohttp
import pyte
import pytest

from server.config import ServerConfig
from server.lobby.core import Lobby
from server.serve import local_sessions
from server.session.app import harden_app
from server.session.services import LocalServices
from server.ssh.server import VoltageServer
from server.store.db import Store
from server.web.server import WebServer
from tests.support.ssh import ROOMY_STARTS
from tests.support.terminal import KEYS
from tests.support.wait import DEADLINE
from tui import app as tui_app
from tui.pacing import FAST


@dataclass
class Served:
    ssh: VoltageServer
    web: WebServer
    store: Store | None
    apps: dict[str, Any] = field(default_factory=dict)  # the newest app of each player, by its name prefill

    @property
    def port(self) -> int:  # (what tests.support.e2e's helpers read)
        return self.ssh.port

    @property
    def sessions(self) -> Any:
        return self.ssh.sessions

    @property
    def lobby(self) -> Lobby:
        services = self.ssh.sessions.services
        assert isinstance(services, LocalServices)
        return services.lobby

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web.port}/"

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.web.port}"


@pytest.fixture
async def web_server(tmp_path) -> AsyncIterator[Callable[..., Awaitable[Served]]]:
    """``await web_server(store=True, **config)``: SSH and the web on one lobby (its apps kept
    by name in ``apps``), fast pacing, short delays."""
    made: list[Served] = []
    executor = ThreadPoolExecutor(max_workers=2)

    async def start(store: bool = True, **config: Any) -> Served:
        settings = {"grace": 5.0, "bot_offer_after": 30.0, "bot_delay": 0.0, "session_starts": ROOMY_STARTS, **config}
        cfg = ServerConfig(host="127.0.0.1", port=0, web_port=0, web_host="127.0.0.1", **settings)
        kept = Store.open(tmp_path / f"data{len(made)}") if store else None
        apps: dict[str, Any] = {}

        def factory(backend: Any, player_name: str) -> Any:
            pacing = replace(FAST, results_delay=0.2)
            app = harden_app(tui_app.make_app(backend, player_name=player_name, pacing=pacing))
            apps[player_name] = app
            return app

        sessions = local_sessions(cfg, executor=executor, store=kept, app_factory=factory)
        ssh = VoltageServer(cfg, sessions)
        web = cfg.web_server(sessions, ssh.ssh_line)
        assert web is not None
        await ssh.start()
        await web.start()
        made.append(Served(ssh, web, kept, apps))
        return made[-1]

    yield start
    for served in made:
        served.ssh.close()
        served.ssh.hang_up()
        served.web.close()
        await served.web.wait_closed()
        await served.ssh.wait_closed()
        for h in served.lobby.matches.values():
            h.match.close()
        if served.store is not None:
            served.store.close()
    executor.shutdown(wait=False, cancel_futures=True)


class WebTerminal:
    """One browser tab as the protocol sees it: a WebSocket to ``/ws`` and a pyte screen."""

    def __init__(self, served: Served, width: int = 100, height: int = 32) -> None:
        self.served = served
        self.width, self.height = width, height
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.http = aiohttp.ClientSession()
        self.ws: aiohttp.ClientWebSocketResponse | None = None
        self.resume: str | None = None
        self.linked = False
        self.controls: list[dict[str, Any]] = []
        self.close_code: int | None = None
        self.closed = asyncio.Event()
        self._changed = asyncio.Event()
        self._reader: asyncio.Task[None] | None = None

    async def connect(self, *, hello: bool = True, origin: str | None = None, cookies: dict[str, str] | None = None,
                      resume: str | None = None, lang: str = "en_GB.UTF-8") -> WebTerminal:
        headers = {"Origin": origin if origin is not None else self.served.origin}
        if cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
        self.closed.clear()
        self.close_code = None
        self.screen.reset()
        self.resume = None
        self.ws = await self.http.ws_connect(self.served.url + "ws", headers=headers, max_msg_size=0)
        self._reader = asyncio.get_running_loop().create_task(self._read(self.ws))
        if hello:
            await self.ws.send_str(json.dumps({"type": "hello", "cols": self.width, "rows": self.height,
                                               "resume": resume, "env": {"LANG": lang}}))
            deadline = time.monotonic() + 10
            while self.resume is None and not self.closed.is_set():  # the session's token comes first
                assert time.monotonic() < deadline, "no session message"
                self._changed.clear()
                try:
                    await asyncio.wait_for(self._changed.wait(), 0.5)
                except TimeoutError:
                    pass
        return self

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for msg in ws:
            if msg.type == aiohttp.WSMsgType.BINARY:
                self.stream.feed(msg.data)
            elif msg.type == aiohttp.WSMsgType.TEXT:
                message = json.loads(msg.data)
                self.controls.append(message)
                if message.get("type") == "session":
                    self.screen.reset()
                    self.resume = message["resume"]
                    self.linked = message["linked"]
            self._changed.set()
        self.close_code = ws.close_code
        self.closed.set()
        self._changed.set()

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, pattern: str, timeout: float = DEADLINE) -> re.Match[str]:
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

    async def wait_closed(self, timeout: float = DEADLINE) -> int | None:
        await asyncio.wait_for(self.closed.wait(), timeout)
        return self.close_code

    def send(self, text: str | bytes) -> None:
        assert self.ws is not None
        data = text.encode() if isinstance(text, str) else text
        asyncio.get_running_loop().create_task(self.ws.send_bytes(data))

    def press(self, *keys: str) -> None:
        for key in keys:
            self.send(KEYS.get(key, key))

    async def control(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send_str(json.dumps(message))

    async def resize(self, cols: int, rows: int) -> None:
        """The tab's terminal is now ``cols`` x ``rows`` (its window resized) and says so to the server."""
        self.width, self.height = cols, rows
        self.screen.resize(rows, cols)
        await self.control({"type": "resize", "cols": cols, "rows": rows})

    def painted(self) -> tuple[int, int]:
        """How far the app's picture reaches on the tab's terminal (columns, rows): the cells it
        wrote a character or a background to (the app paints every cell of its screen)."""
        cols = rows = 0
        for y, line in self.screen.buffer.items():
            drawn = [x for x, char in line.items() if char.data != " " or char.bg != "default"]
            if drawn:
                cols, rows = max(cols, max(drawn) + 1), max(rows, y + 1)
        return cols, rows

    async def drop(self) -> None:
        """The network goes: the socket closes without a goodbye (the session is held)."""
        if self.ws is not None:
            await self.ws.close(code=4999)  # (not a bye: the server holds the session)
        if self._reader is not None:
            await self._reader

    async def close(self) -> None:
        if self.ws is not None and not self.ws.closed:
            await self.ws.close()
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, 5)
            except TimeoutError:
                pass
        await self.http.close()
