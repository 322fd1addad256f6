"""A private, throwaway ``redis-server`` for tests: temp dir, unix socket, no persistence.

Use it from a conftest: ``from tests.support.redis import redis_server, redis_url  # noqa: F401``.

Decisions: a unix socket in the test's temp dir (no port to collide with another
engineer's or CI's Redis, and nothing reachable from the network); ``--save ""
--appendonly no`` (a restart starts empty, as the bus must survive); readiness is
polled with PING until a deadline (no fixed sleeps); the server is stopped by the
pid we started, never by name.  A missing ``redis-server`` fails the test with the
install command: a skipped bus test would hide that the Redis path is untested.
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

INSTALL = "apt-get install -y redis-server   (or run .ci/install-redis)"


class RedisServer:
    """One ``redis-server`` process on ``<dir>/redis.sock`` (or loopback ``port``); ``restart()`` keeps the address."""

    def __init__(self, directory: Path, port: int | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail(f"redis-server is not installed; install it with: {INSTALL}", pytrace=False)
        self.binary = binary
        self.directory = directory
        self.socket = directory / "redis.sock"
        self.port = port
        self.url = f"unix://{self.socket}" if port is None else f"redis://127.0.0.1:{port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def start(self, timeout: float = 10.0) -> None:
        args = [
            self.binary,
            "--port", str(self.port or 0),
            "--bind", "127.0.0.1",
            "--unixsocket", str(self.socket),
            "--unixsocketperm", "700",
            "--dir", str(self.directory),
            "--save", "",
            "--appendonly", "no",
            "--daemonize", "no",
            "--loglevel", "warning",
            "--logfile", str(self.directory / "redis.log"),
        ]  # fmt: skip
        self.process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + timeout
        while not self.ping():
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                logfile = self.directory / "redis.log"
                log = logfile.read_text(errors="replace") if logfile.exists() else ""
                pytest.fail(f"redis-server exited with {self.process.returncode}: {err}{log}", pytrace=False)
            if time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"redis-server did not answer PING on {self.socket} within {timeout} s", pytrace=False)
            time.sleep(0.01)  # polling interval, not a wait for readiness

    def ping(self) -> bool:
        """True when the server answers PING on its socket (raw RESP, no client library)."""
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(1.0)
                s.connect(str(self.socket))
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self, sig: int = signal.SIGKILL) -> None:
        """Stop it by pid (SIGKILL by default: the harshest restart the bus must survive)."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(sig)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr:
            process.stderr.close()
        self.socket.unlink(missing_ok=True)

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A running private redis-server (object with ``url``, ``pid``, ``stop()``, ``start()``, ``restart()``)."""
    with tempfile.TemporaryDirectory(prefix="voltage-redis-") as d:
        server = RedisServer(Path(d))
        server.start()
        try:
            yield server
        finally:
            server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The URL of a running private redis-server (``unix:///tmp/.../redis.sock``)."""
    return redis_server.url
