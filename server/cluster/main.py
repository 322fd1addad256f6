"""The processes of a split server: ``voltage serve --redis URL [--edges N]``, ``voltage host``,
``voltage edge``.

``serve --redis`` checks Redis answers (else one line and exit 1), makes the host key
if it is new, then starts one host process (``voltage host``: the lobby, matches,
bots and store) and N edge processes (``voltage edge``: SSH and the Textual apps)
and waits; SIGTERM or Ctrl-C stops them all.  An edge that dies is started again
(its players reconnect through the others, or through it once it is back); so is a
host that dies (the edges keep their sessions; the new host restores every match
from the store and the edges open their sessions there again).

Edges share the port (and the web port, with ``--web``) with **SO_REUSEPORT**: each edge is a plain listening SSH
server, the kernel spreads new connections over them, no process sits in the
connection's path and an edge that dies (kill -9) simply stops getting any.  An
acceptor passing sockets to the least busy edge would balance load better but is
one more process to die and a hand-off (SCM_RIGHTS) per connection; on other
machines a TCP load balancer plays that role anyway.  The cost: the kernel's
hash, not the edges' load, picks the edge.  With ``--port 0`` the first edge
picks the port and the others join it.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def _check_redis(url: str) -> str | None:
    """None when Redis at ``url`` answers a PING, else the one line that says why not
    (before any loop runs; with the asyncio client, the only one an edge uses)."""
    import redis.asyncio as aioredis
    from redis.exceptions import RedisError

    async def ping() -> None:
        client = aioredis.Redis.from_url(url, socket_connect_timeout=3.0, socket_timeout=3.0)
        try:
            await client.ping()
        finally:
            await client.aclose()

    try:
        asyncio.run(ping())
    except (ValueError, RedisError, OSError) as e:
        return f"cannot reach Redis at {url}: {e}"
    return None


def _logging() -> None:
    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def host_main(redis_url: str, data_dir: str | Path | None, *, namespace: str = "voltage", grace: float = 60.0,
              new_store: bool = False) -> int:
    """``voltage host``: the lobby and every match, served to the edges over Redis."""
    from server.bus import BusUnavailable
    from server.cluster.host import run_host
    from server.serve import default_data_dir
    from server.store.db import Store, StoreError

    _logging()
    problem = _check_redis(redis_url)
    if problem:
        print(f"voltage host: {problem}", file=sys.stderr)
        return 1
    directory = Path(data_dir) if data_dir else default_data_dir()
    try:
        store = Store.open(directory, new=new_store)
    except StoreError as e:
        print(f"voltage host: {e}", file=sys.stderr)
        return 1

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop.set)

        def ready(service: Any) -> None:
            restored = sum(1 for h in service.lobby.matches.values() if h.running)
            print(f"host ready (data: {directory}, restored {restored})", flush=True)

        await run_host(redis_url, store, namespace=namespace, grace=grace, ready=ready, stop=stop)

    try:
        asyncio.run(main())
    except BusUnavailable as e:
        print(f"voltage host: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        store.close()
    return 0


def edge_main(redis_url: str, host_key: str | Path, *, host: str = "", port: int = 2222, public_host: str = "",
              public_port: int = 0, namespace: str = "voltage", reuse_port: bool = True, fast: bool = False,
              limits: dict[str, Any] | None = None, web_port: int | None = None, web_host: str = "",
              web_url: str = "") -> int:
    """``voltage edge``: an SSH server (and with ``web_port`` a web one, on the same sessions)
    whose sessions play in the host's lobby over Redis."""
    import asyncssh

    from server.bus import BusUnavailable
    from server.config import ServerConfig
    from server.edge.backend import EdgeClient
    from server.edge.services import EdgeServices
    from server.session.admission import Admission
    from server.session.sessions import Sessions
    from server.ssh.server import VoltageServer

    _logging()
    try:
        key = asyncssh.read_private_key(str(host_key))
    except (OSError, asyncssh.KeyImportError, ValueError) as e:
        print(f"voltage edge: the host key {host_key} cannot be read ({getattr(e, 'strerror', None) or e})",
              file=sys.stderr)
        return 1
    problem = _check_redis(redis_url)
    if problem:
        print(f"voltage edge: {problem}", file=sys.stderr)
        return 1

    async def main() -> None:
        from server import gcpolicy

        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        client = await EdgeClient.connect(redis_url, namespace=namespace)
        config = ServerConfig(host=host, port=port, public_host=public_host, public_port=public_port,
                              reuse_port=reuse_port, web_port=web_port, web_host=web_host, web_url=web_url,
                              **(limits or {}))
        factory = None
        if fast:  # (tests: no highlight or results delay, as tui.pacing.FAST says)
            from server.session.app import harden_app
            from tui.app import make_app
            from tui.pacing import FAST

            def factory(backend: Any, player_name: str) -> Any:
                return harden_app(make_app(backend, player_name=player_name, pacing=FAST))

        sessions = Sessions(EdgeServices(client), admission=Admission(config.admission_limits()),
                            limits=config.session_limits(), app_factory=factory)
        server = VoltageServer(config, sessions, host_key=key)
        web = config.web_server(sessions, server.ssh_line)
        try:
            await server.start()
            if web is not None:
                await web.start()
            gcpolicy.install()
            served = f" and web port {web.port}" if web is not None else ""
            print(f"edge {client.edge} serving on port {server.port}{served} (pid {os.getpid()})", flush=True)
            await stop.wait()
        finally:
            server.close()
            server.hang_up()
            if web is not None:
                web.close()
                await web.wait_closed()
            await client.close()

    try:
        asyncio.run(main())
    except BusUnavailable as e:
        print(f"voltage edge: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except OSError as e:
        print(f"voltage edge: {e}", file=sys.stderr)
        return 1
    return 0


def _spawn(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "voltage.cli", *args], stdout=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL)


def _first_line(process: subprocess.Popen[str], what: str, timeout: float = 30.0) -> str:
    assert process.stdout is not None
    line = process.stdout.readline()  # the child's first line says it is ready (or it died)
    if not line:
        raise RuntimeError(f"the {what} did not start (exit {process.wait(timeout)})")
    return line.strip()


def cluster_main(redis_url: str, edges: int | None, *, host: str = "", port: int = 2222,
                 data_dir: str | Path | None = None, public_host: str = "", public_port: int = 0,
                 limits: dict[str, Any] | None = None, new_store: bool = False, web_port: int | None = None,
                 web_host: str = "", web_url: str = "") -> int:
    """``voltage serve --redis URL [--edges N]``: a host and N edges on this machine, one port
    (and with ``web_port`` one web port, which the edges share as they share the SSH one)."""
    from server.serve import default_data_dir
    from server.ssh.hostkey import HOST_KEY_FILE, HostKeyError, load_host_key
    from server.store.db import DB_NAME, Store, StoreError

    problem = _check_redis(redis_url)
    if problem:
        print(f"voltage serve: {problem}", file=sys.stderr)
        return 1
    directory = Path(data_dir) if data_dir else default_data_dir()
    try:
        if not (directory / DB_NAME).exists():  # made before the host key, which would mark the directory used
            Store.open(directory, new=new_store).close()
        load_host_key(directory)
    except (HostKeyError, StoreError) as e:
        print(f"voltage serve: {e}", file=sys.stderr)
        return 1
    n = edges if edges and edges > 0 else (os.cpu_count() or 2)
    children: list[subprocess.Popen[str]] = []

    def stop_all(*_args: Any) -> None:
        for child in children:
            if child.poll() is None:
                child.terminate()

    def terminated(*_args: Any) -> None:
        stop_all()
        sys.exit(0)

    signal.signal(signal.SIGTERM, terminated)
    try:
        hostp = _spawn(["host", "--redis", redis_url, "--data-dir", str(directory)])
        children.append(hostp)
        print(_first_line(hostp, "host"), flush=True)
        edge_args = ["edge", "--redis", redis_url, "--host-key", str(directory / HOST_KEY_FILE),
                     "--host", host, "--public-host", public_host, "--public-port", str(public_port)]
        for name, value in (limits or {}).items():  # the connection limits hold per edge
            flag = "--" + name.replace("_", "-")
            edge_args += [flag, ":".join(map(str, value)) if isinstance(value, tuple) else str(value)]
        if web_url:
            edge_args += ["--web-url", web_url]
        chosen = port
        web_chosen = web_port

        def with_ports() -> list[str]:
            web = ["--web", str(web_chosen), "--web-host", web_host] if web_chosen is not None else []
            return [*edge_args, *web, "--port", str(chosen)]

        for _i in range(n):
            edge = _spawn(with_ports())
            children.append(edge)
            line = _first_line(edge, "edge")
            print(line, flush=True)
            if chosen == 0:
                chosen = int(line.split("port ")[1].split()[0])
            if web_chosen == 0:
                web_chosen = int(line.split("web port ")[1].split()[0])
        shown = public_host or (host if host not in ("", "0.0.0.0", "::") else "localhost")
        shown_port = public_port or chosen
        print(f"Voltage is serving on port {chosen}: one host and {n} edge{'s' if n != 1 else ''} "
              f"over {redis_url}", flush=True)
        if web_chosen is not None:
            print(f"In a browser:  {web_url or f'http://{shown}:{web_chosen}/'}", flush=True)
        print(f"Connect with:  ssh -p {shown_port} {shown}" if shown_port != 22 else f"Connect with:  ssh {shown}",
              flush=True)
        while True:
            time.sleep(0.5)
            if hostp.poll() is not None:  # the edges keep their sessions; a new host restores the matches
                print(f"voltage serve: the host stopped (exit {hostp.returncode}); starting it again",
                      file=sys.stderr, flush=True)
                hostp = children[0] = _spawn(["host", "--redis", redis_url, "--data-dir", str(directory)])
                print(_first_line(hostp, "host"), flush=True)
            for i, child in enumerate(children[1:], start=1):
                if child.poll() is not None:  # an edge died: start another on the port
                    print(f"voltage serve: an edge stopped (exit {child.returncode}); starting another",
                          file=sys.stderr, flush=True)
                    children[i] = _spawn(with_ports())
                    print(_first_line(children[i], "edge"), flush=True)
    except KeyboardInterrupt:
        return 130
    except RuntimeError as e:
        print(f"voltage serve: {e}", file=sys.stderr)
        return 1
    finally:
        stop_all()
        for child in children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
