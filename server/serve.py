"""``voltage serve`` in one process: the lobby and the store here (the session layer's
:class:`~server.session.services.LocalServices`), served over SSH, and to browsers with
``--web PORT`` (:mod:`server.web`).

Every transport of the process is built here around one
:class:`~server.session.sessions.Sessions` (one lobby, one admission): the web transport is
one more server started beside the SSH one, in the same event loop.  The split server's
processes are wired in :mod:`server.cluster.main`.

Storage (:mod:`server.store.db`): the data directory's database keeps players, names,
ratings and every match's action log; at start the unfinished matches are restored
(:meth:`Lobby.restore`), so a stop or a ``kill -9`` costs nobody their match.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

import asyncssh

from server import gcpolicy
from server.config import ServerConfig
from server.lobby.core import Lobby
from server.session.admission import Admission
from server.session.app import AppFactory
from server.session.services import LocalServices
from server.session.sessions import Sessions
from server.ssh.hostkey import HostKeyError, load_host_key
from server.ssh.server import VoltageServer
from server.web.server import WebServer

log = logging.getLogger(__name__)


def local_sessions(
    config: ServerConfig,
    *,
    executor: Executor | None = None,
    store: Any = None,
    app_factory: AppFactory | None = None,
) -> Sessions:
    """The sessions of a one-process server: a new lobby over ``store`` (None: nothing
    kept), its bots run on ``executor``."""
    lobby = Lobby(executor, grace=config.grace, bot_offer_after=config.bot_offer_after, bot_delay=config.bot_delay,
                  store=store)
    return Sessions(LocalServices(lobby), admission=Admission(config.admission_limits()),
                    limits=config.session_limits(), app_factory=app_factory)


async def serve(
    config: ServerConfig,
    *,
    ready: Callable[[VoltageServer, WebServer | None], None] | None = None,
    store: Any = None,
    host_key: asyncssh.SSHKey | None = None,
) -> None:
    """Run the server until cancelled or sent SIGTERM (``store``: keep players, ratings and
    match logs there, and restore its unfinished matches first; ``host_key``: as loaded
    by :func:`load_host_key`, else loaded from the data directory at start)."""
    import multiprocessing
    import signal
    from concurrent.futures import ProcessPoolExecutor

    executor: Executor
    try:
        executor = ProcessPoolExecutor(max_workers=max(1, (os.cpu_count() or 2) - 1),
                                       mp_context=multiprocessing.get_context("forkserver"))
    except Exception:  # pragma: no cover - no process support here
        from concurrent.futures import ThreadPoolExecutor

        executor = ThreadPoolExecutor(max_workers=2)
    sessions = local_sessions(config, executor=executor, store=store)
    server = VoltageServer(config, sessions, host_key=host_key)
    web = config.web_server(sessions, server.ssh_line)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    except (NotImplementedError, RuntimeError):  # pragma: no cover - not on this platform
        pass
    try:
        await server.start()
        if web is not None:
            await web.start()
        gcpolicy.install()  # the collector policy of a long-lived server of many apps
        if ready is not None:
            ready(server, web)
        await stop.wait()
        log.info("SIGTERM: stopping; unfinished matches stay in the store and come back at the next start")
    finally:
        server.close()
        server.hang_up()
        if web is not None:
            web.close()
            await web.wait_closed()
        sessions.services.close()
        executor.shutdown(wait=False, cancel_futures=True)


def default_data_dir() -> Path:
    import platformdirs

    return Path(platformdirs.user_data_dir("voltage", appauthor=False))


def serve_main(
    host: str = "",
    port: int = 2222,
    data_dir: str | Path | None = None,
    *,
    max_connections: int | None = None,
    max_per_address: int | None = None,
    public_host: str = "",
    public_port: int = 0,
    max_startups: tuple[int, int, int] | None = None,
    max_startups_per_address: tuple[int, int, int] | None = None,
    sessions_per_address: tuple[float, float] | None = None,
    new_store: bool = False,
    web_port: int | None = None,
    web_host: str = "",
    web_url: str = "",
) -> int:
    """``voltage serve``: run until interrupted.  Prints the ssh line that connects.

    The data directory holds the host key and the database (``voltage.db``); a
    directory, database or host key that cannot be used is a clear error and exit
    status 1, never a fresh empty database or a silently replaced key (a key
    missing from a used directory is made anew with a loud warning: see
    :func:`load_host_key`).  A database missing from a used directory is such an
    error too, unless ``new_store`` asks for an empty one (``--new-store``).  Both
    are opened before the event loop starts."""
    import sys

    from server.store.db import DB_NAME, Store, StoreError

    config = ServerConfig(host=host, port=port, data_dir=Path(data_dir) if data_dir else default_data_dir(),
                          public_host=public_host, public_port=public_port, web_port=web_port, web_host=web_host,
                          web_url=web_url)
    if max_connections is not None:
        config.max_connections = max_connections
    if max_per_address is not None:
        config.max_per_address = max_per_address
    if max_startups is not None:
        config.max_startups = max_startups
    if max_startups_per_address is not None:
        config.max_startups_per_address = max_startups_per_address
    if sessions_per_address is not None:
        config.sessions_per_address = sessions_per_address
    out = sys.stdout

    def ready(server: VoltageServer, web: WebServer | None) -> None:
        print(f"Voltage is serving on port {server.port} (data: {config.data_dir})", file=out)
        if server.sessions.restored:
            n = server.sessions.restored
            print(f"Restored {n} unfinished match{'es' if n != 1 else ''}; "
                  f"their players have {config.grace:.0f} s to reconnect", file=out)
        if web is not None:
            print(f"In a browser:  {web.url}", file=out)
        print(f"Connect with:  {server.ssh_line()}", file=out, flush=True)

    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    assert config.data_dir is not None

    def loud(text: str) -> None:
        bar = "!" * 78
        print(f"{bar}\nvoltage serve: WARNING: {text}\n{bar}", file=sys.stderr, flush=True)

    had_db = (Path(config.data_dir) / DB_NAME).exists()  # before Store.open makes one
    try:
        store = Store.open(config.data_dir, new=new_store)
    except StoreError as e:
        print(f"voltage serve: {e}", file=sys.stderr)
        return 1
    try:
        host_key = load_host_key(Path(config.data_dir), warn=loud, used_before=had_db)
    except HostKeyError as e:
        store.close()
        print(f"voltage serve: {e}", file=sys.stderr)
        return 1
    try:
        asyncio.run(serve(config, ready=ready, store=store, host_key=host_key))
    except KeyboardInterrupt:
        return 130  # Ctrl-C stopped the server: say so in the exit status, quietly
    except BrokenPipeError:
        raise  # stdout was closed: voltage.cli's guard ends the command quietly
    except OSError as e:
        print(f"voltage serve: {e}", file=sys.stderr)
        return 1
    finally:
        store.close()
    return 0
