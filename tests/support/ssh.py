"""Fixtures: a Voltage SSH server on a free port, with the real app or a stand-in, or over a store
(``kept``)."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Input, Static

from server.config import ServerConfig
from server.lobby.core import Lobby
from server.serve import local_sessions
from server.session.budget import StartLimits
from server.session.services import LocalServices
from server.ssh.server import VoltageServer
from server.store.db import Store
from tests.support.store import KA, KB, finished_match

# Tests open many sessions from 127.0.0.1 in a few seconds: no budget of new sessions holds them
# back (the tests of that budget set their own).
ROOMY_STARTS = StartLimits(per_address_burst=10_000, per_address_every=0.001, overall_burst=10_000,
                           overall_per_second=10_000)


class EchoApp(App):
    """A tiny stand-in app: shows its player's name, the last key and its size."""

    def __init__(self, backend, player_name: str) -> None:
        super().__init__()
        self.backend = backend
        self.player_name = player_name

    def compose(self) -> ComposeResult:
        yield Static(f"hello {self.player_name}", id="hello")
        yield Static("", id="last")
        yield Input(id="input")

    def on_key(self, event) -> None:
        if event.key == "ctrl+x":
            raise RuntimeError("this session's app crashed on purpose")
        self.query_one("#last", Static).update(f"key {event.key} size {self.size.width}x{self.size.height}")

    def on_resize(self, event) -> None:
        self.query_one("#last", Static).update(f"size {event.size.width}x{event.size.height}")


def lobby_of(srv: VoltageServer) -> Lobby:
    """The lobby of a one-process server (its sessions' :class:`LocalServices`)."""
    services = srv.sessions.services
    assert isinstance(services, LocalServices)
    return services.lobby


async def stop(srv: VoltageServer) -> None:
    """Stop ``srv`` as ``voltage serve`` stops, and let its sessions end while the loop runs:
    no match is left running (a bot match whose human left plays on, bot against bot) and no
    session's leaving runs during the loop's final cancellation (where it handed a seat to a
    bot whose move task was never started: "coroutine ... was never awaited")."""
    srv.close()
    srv.hang_up()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 30
    while srv.sessions.running and loop.time() < deadline:
        await asyncio.sleep(0.01)
    srv.sessions.services.close()
    await srv.wait_closed()


@pytest.fixture
async def start_server():
    """``await start_server(app_factory=..., **config)`` -> a running VoltageServer."""
    servers: list[VoltageServer] = []
    executor = ThreadPoolExecutor(max_workers=2)

    async def start(app_factory=None, **config) -> VoltageServer:
        cfg = ServerConfig(host="127.0.0.1", port=0, **{"session_starts": ROOMY_STARTS, **config})
        srv = VoltageServer(cfg, local_sessions(cfg, executor=executor, app_factory=app_factory))
        await srv.start()
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        await stop(srv)
    executor.shutdown(wait=False, cancel_futures=True)
    await asyncio.sleep(0)


@pytest.fixture
def echo_app():
    made: list[EchoApp] = []

    def factory(backend, player_name):
        app = EchoApp(backend, player_name)
        made.append(app)
        return app

    factory.made = made
    return factory


@pytest.fixture
async def kept(tmp_path):
    """A server over a store holding two finished rated matches and one running."""
    store = Store.open(tmp_path / "data")
    store.upsert_player(KA, "Alice")
    store.upsert_player(KB, "Bob")
    ids = [finished_match(store, 11), finished_match(store, 12)]
    running = store.create_match("voltage", 13, [{"name": "Alice", "identity": KA}, {"name": "Bob", "identity": KB}])
    executor = ThreadPoolExecutor(max_workers=1)
    config = ServerConfig(host="127.0.0.1", port=0, grace=5.0, session_starts=ROOMY_STARTS)
    srv = VoltageServer(config, local_sessions(config, executor=executor, store=store))
    await srv.start()
    srv.ids, srv.running, srv.store, srv.lobby = ids, running, store, lobby_of(srv)
    yield srv
    for h in srv.lobby.matches.values():
        h.match.close()
        for t in h.grace.values():
            t.cancel()
    srv.close()
    await srv.wait_closed()
    executor.shutdown(wait=False, cancel_futures=True)
    store.close()
