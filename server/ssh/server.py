"""``voltage serve``: the SSH server.  Every session runs its own Textual app in
this one process (see :mod:`server.ssh.driver`); all of them share one
:class:`~server.lobby.core.Lobby`.

Hardening, each guard with a test in ``tests/server/test_ssh*.py``:

- no port forwarding (local, remote, UNIX socket), no agent forwarding, no X11,
  no SFTP or SCP, and no command ever reaches a shell: a command is one of
  ``help``, ``who``, ``join CODE``, ``watch CODE``, ``leaderboard``, ``export
  MATCH_ID``, ``replay MATCH_ID``, else a usage line and exit 1;
- a login timeout, keepalives that drop dead clients, a cap on connections
  overall and per address, one session per connection;
- an unauthenticated-connection budget in the spirit of OpenSSH's
  ``MaxStartups`` (``start:rate:full``, overall and per address): below
  ``start`` unauthenticated connections every new one is let in, from there
  the chance of a drop rises from ``rate`` % to 100 % at ``full``.  Twenty
  silent sockets used to lock an address out for the whole 30 s login
  timeout, indefinitely, and 1,000 locked out everyone; with random early
  drop a real login still gets in while the budget fills;
- a connection that has not asked to log in after ``silent_grace`` (10 s; a
  real client asks within a few round trips) is dropped, well before the
  login timeout;
- a logged-in connection that opens no session is dropped after
  ``session_idle`` (30 s), and a game session still on the name screen after
  ``name_idle`` (5 min) ends with a message;
- the channel's receive window is ``channel_window`` (256 KiB, not asyncssh's
  2 MiB): what a client may push at a session that is over its input budget
  (see :mod:`server.ssh.driver`) waits on the client's side, not in our memory;
- a match id (``export``, ``replay``) is 1 to 18 ASCII digits: anything else
  (``²`` is a digit to ``str.isdigit``, 5,000 digits are past ``int()``'s
  limit, 20 digits past SQLite's) is a usage line, never a traceback;
- a channel whose maximum packet size is absurdly small (0 included) is refused
  before anything is written to it: a writer that splits output into packets of
  at most that size never finishes (the guard reads asyncssh's private
  ``_send_pktsize``, which is why pyproject pins asyncssh to 2.24.x).

Storage (:mod:`server.store.db`, wired in by :func:`serve_main`): the data
directory's database keeps players, names, ratings and every match's action
log; at start the unfinished matches are restored (:meth:`Lobby.restore`), so a
stop or a ``kill -9`` costs nobody their match.

Split server (``voltage serve --redis``, :mod:`server.cluster.main`): the same server
runs as an edge with ``remote=`` an :class:`~server.edge.backend.EdgeClient` and no
lobby; each session's backend then reaches the host's lobby over Redis, ``who``,
``leaderboard`` and ``export`` are answered by the host, and ``reuse_port`` lets N
edge processes listen on one port.

Identity: a client's public-key fingerprint, but only when it logged in with a
signed public-key request; a key merely offered gives nothing.  Everyone else
is a guest for that connection (keyboard-interactive with no prompts lets
anyone in).
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import re
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncssh

from server import gcpolicy
from server.lobby.core import Lobby
from server.ssh.driver import InputLimits, OutputLimits, TerminalChannel, run_app

log = logging.getLogger(__name__)

HOST_KEY_FILE = "ssh_host_ed25519_key"
MIN_PACKET_SIZE = 512  # no real client asks for less; OpenSSH asks for 32 KiB

def usage(ssh: str = "ssh HOST") -> str:
    """The one-line usage, with the ``ssh`` command that reaches this server."""
    return f"usage: {tty(ssh)} [help | who | join CODE | watch CODE | leaderboard | export MATCH_ID | replay MATCH_ID]"


def tty(ssh: str) -> str:
    """``ssh -p 2222 play.example`` -> ``ssh -t -p 2222 play.example`` (a PTY for the lobby)."""
    return "ssh -t" + ssh[3:] if ssh.startswith("ssh") else ssh


def help_text(ssh: str = "ssh HOST") -> str:
    """``ssh HOST help``: every command, each a line that can be pasted as it is."""
    rows = [
        (tty(ssh), "the lobby: quick match, private rooms, bots, watching"),
        (f"{tty(ssh)} join CODE", "join a friend's private room"),
        (f"{tty(ssh)} watch CODE", "watch a match"),
        (f"{tty(ssh)} replay MATCH_ID", "replay a finished match, step by step"),
        (f"{ssh} who", "who is online and which matches are running"),
        (f"{ssh} leaderboard", "the top 20 players of each game"),
        (f"{ssh} export MATCH_ID", "a finished match as JSON (seed, actions, players, result)"),
        (f"{ssh} help", "this text"),
    ]
    width = max(len(a) for a, _b in rows) + 2
    lines = "\n".join(f"  {a.ljust(width)}{b}" for a, b in rows)
    return (
        "Voltage: card games over SSH.\n\n" + lines + "\n\n"
        "Log in with an SSH key to be recognised when you reconnect (your key's\n"
        "fingerprint is your identity); without one you are a guest for that\n"
        "connection.  A dropped player keeps their seat for 60 seconds.\n"
    )


USAGE = usage()
HELP = help_text()


@dataclass
class ServerConfig:
    host: str = ""
    port: int = 2222
    # How players reach the server, when that is not where it listens (behind NAT or a
    # proxy): the host and port printed in every "ssh ..." line shown to people.
    public_host: str = ""
    public_port: int = 0
    data_dir: Path | None = None
    login_timeout: float = 30.0
    keepalive_interval: float = 15.0
    keepalive_count_max: int = 3
    max_connections: int = 1000
    max_per_address: int = 20
    grace: float = 60.0
    bot_offer_after: float = 20.0
    bot_delay: float = 0.7
    # MaxStartups-style budgets of unauthenticated connections: (start, rate %, full)
    max_startups: tuple[int, int, int] = (10, 30, 100)
    max_startups_per_address: tuple[int, int, int] = (3, 30, 10)
    silent_grace: float = 10.0  # no login asked for by then: dropped
    session_idle: float = 30.0  # logged in, no session by then: dropped
    name_idle: float = 300.0  # still on the name screen by then: the session ends
    channel_window: int = 256 * 1024
    # Several edge processes listening on one port (``serve --redis --edges N``): the
    # kernel spreads the connections over them (SO_REUSEPORT).
    reuse_port: bool = False
    input_limits: InputLimits = field(default_factory=InputLimits)
    output_limits: OutputLimits = field(default_factory=OutputLimits)


class HostKeyError(Exception):
    """The host key cannot be read or made; the message says what to do."""


def load_host_key(
    data_dir: Path, warn: Callable[[str], None] | None = None, *, used_before: bool | None = None
) -> asyncssh.SSHKey:
    """The server's ed25519 host key, generated on first use and kept in ``data_dir``.

    A key file that cannot be read is :class:`HostKeyError` (never replaced: the
    clients know that key).  A key missing from a data directory that was used
    before (it holds a database or the key's ``.pub``) is made anew, but
    ``warn`` (default: a log warning) is told loudly: every client that
    connected before will see a changed host key.  ``used_before`` overrides
    that judgement (the caller looked before it created the database).
    """
    path = data_dir / HOST_KEY_FILE
    pub = data_dir / (HOST_KEY_FILE + ".pub")
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise HostKeyError(f"cannot create the data directory {data_dir}: {e.strerror or e}") from e
    if path.exists() or path.is_symlink():
        try:
            return asyncssh.read_private_key(str(path))
        except (OSError, asyncssh.KeyImportError, ValueError) as e:
            raise HostKeyError(
                f"the host key {path} cannot be read ({getattr(e, 'strerror', None) or e}). "
                "Restore it from a backup; or move it aside to make a new one, and clients "
                "that connected before will see a changed host key"
            ) from e
    signs = [p.name for p in (data_dir / "voltage.db", pub) if p.exists()]
    if used_before is not None:
        signs = [n for n in signs if n != "voltage.db" or used_before]
    key = asyncssh.generate_private_key("ssh-ed25519")
    tmp = path.with_suffix(".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key.export_private_key())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        pub.write_bytes(key.export_public_key())
    except OSError as e:
        raise HostKeyError(f"cannot write a new host key {path}: {e.strerror or e}") from e
    if signs:
        text = (
            f"the host key {path} is missing, but this data directory was used before "
            f"(it holds {' and '.join(signs)}): a NEW host key was made "
            f"({key.get_fingerprint('sha256')}). Every client that connected before will see "
            "\"REMOTE HOST IDENTIFICATION HAS CHANGED\" and must drop the old key "
            "(ssh-keygen -R '[HOST]:PORT'). If the key was lost by mistake, stop the server "
            "and put the old key back."
        )
        (warn or log.warning)(text)
    return key


# ---------------------------------------------------------------------------
# One SSH connection


class _Connection(asyncssh.SSHServer):
    """Auth, identity and the refusals for one client connection."""

    def __init__(self, server: VoltageServer) -> None:
        self.server = server
        self.conn: asyncssh.SSHServerConnection | None = None
        self.addr = ""
        self.identity: str | None = None
        self.username = ""
        self._candidate: str | None = None
        self._sessions = 0
        self._counted = False
        self._asked = False  # has asked to log in
        self.authenticated = False
        self._timer: asyncio.TimerHandle | None = None
        self.process: asyncssh.SSHServerProcess | None = None

    # connection life

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.addr = str(peer[0]) if peer else ""
        if not self.server._admit(self):
            conn.close()
            return
        self._counted = True
        self.server.live.add(self)
        self._later(self.server.config.silent_grace, self._silent_check)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.live.discard(self)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._counted:
            self._counted = False
            self.server._release(self)

    def _later(self, delay: float, callback: Callable[[], None]) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(delay, callback)

    def _drop(self, why: str) -> None:
        log.info("dropping %s: %s", self.addr, why)
        if self.conn is not None:
            self.conn.close()

    def _silent_check(self) -> None:
        self._timer = None
        if not self._asked and not self.authenticated:
            self._drop(f"no login asked for in {self.server.config.silent_grace:.0f} s")

    def _session_check(self) -> None:
        self._timer = None
        if self._sessions == 0:
            self._drop(f"logged in but no session opened in {self.server.config.session_idle:.0f} s")

    # authentication

    def begin_auth(self, username: str) -> bool:
        self.username = username
        self._asked = True
        return True  # ask for auth, so clients offer their keys

    def password_auth_supported(self) -> bool:
        return False

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # Called for a key's query and again for its signed request; only a
        # success straight after this call (see auth_completed) proves the key.
        self._candidate = key.get_fingerprint("sha256")
        return True

    def kbdint_auth_supported(self) -> bool:
        return True

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        self._candidate = None  # a guest: whatever key was offered was not used
        return True

    def auth_completed(self) -> None:
        self.identity = self._candidate
        if not self.authenticated:
            self.authenticated = True
            self.server._authenticated(self)
        if self._sessions == 0:
            self._later(self.server.config.session_idle, self._session_check)

    # refusals

    def connection_requested(self, *args: Any) -> bool:
        return False

    def server_requested(self, *args: Any) -> bool:
        return False

    def unix_connection_requested(self, *args: Any) -> bool:
        return False

    def unix_server_requested(self, *args: Any) -> bool:
        return False

    def tun_requested(self, *args: Any) -> bool:
        return False

    def tap_requested(self, *args: Any) -> bool:
        return False

    def session_requested(self) -> Any:
        if self._sessions >= 1:
            return False  # one session per connection
        self._sessions += 1
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        return _Process(self.server._session_handler(self))


class _Process(asyncssh.SSHServerProcess):
    """A session process with the channel guards and no subsystems."""

    def __init__(self, handler: Callable) -> None:
        super().__init__(handler, None, 0, False)

    def connection_made(self, chan: Any) -> None:
        pktsize = getattr(chan, "_send_pktsize", None)
        if pktsize is not None and pktsize < MIN_PACKET_SIZE:
            log.info("refusing a channel with maximum packet size %d", pktsize)
            self._too_small = True
            conn = chan.get_extra_info("connection")
            chan.abort()
            if conn is not None:
                conn.abort()
            return
        super().connection_made(chan)

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    def session_started(self) -> None:
        if getattr(self, "_too_small", False):
            return
        super().session_started()


class _ProcessChannel(TerminalChannel):
    """The driver's view of an SSH session process."""

    def __init__(self, process: asyncssh.SSHServerProcess) -> None:
        self.process = process

    def write(self, data: bytes) -> None:
        self.process.stdout.write(data)

    async def read(self) -> bytes | tuple[int, int]:
        try:
            return await self.process.stdin.read(4096)
        except asyncssh.TerminalSizeChanged as exc:
            return (exc.width, exc.height)
        except (asyncssh.BreakReceived, asyncssh.SignalReceived):
            return b""

    def pending_output(self) -> int:
        # The channel's own buffer, and the connection's transport buffer: with a
        # large client window asyncssh moves output straight on to the transport,
        # where it piles up when the client stops reading TCP.
        total = 0
        try:
            chan = self.process.channel
            total += chan.get_write_buffer_size()
            conn = chan.get_extra_info("connection")
            transport = getattr(conn, "_transport", None)
            if transport is not None:
                total += transport.get_write_buffer_size()
        except Exception:
            pass
        return total

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


# ---------------------------------------------------------------------------
# The server


AppFactory = Callable[[Any, str], Any]  # (backend, player_name) -> App


def _default_app_factory(backend: Any, player_name: str) -> Any:
    from tui.app import make_app

    return harden_app(make_app(backend, player_name=player_name))


def harden_app(app: Any) -> Any:
    """Take away what a remote player must not reach: the command palette (its
    "Screenshot" command writes files on the server) and screenshots themselves."""
    app.ENABLE_COMMAND_PALETTE = False
    app.use_command_palette = False
    app.deliver_screenshot = lambda *args, **kwargs: None
    app.save_screenshot = lambda *args, **kwargs: ""
    app.action_screenshot = lambda *args, **kwargs: None
    return app


class VoltageServer:
    """The listening server, its lobby and its bot executor."""

    def __init__(
        self,
        config: ServerConfig,
        *,
        lobby: Lobby | None = None,
        executor: Executor | None = None,
        app_factory: AppFactory | None = None,
        host_key: asyncssh.SSHKey | None = None,
        store: Any = None,
        remote: Any = None,
    ) -> None:
        self.config = config
        self.executor = executor
        self.store = store  # server.store.db.Store: players, ratings, match logs (None: nothing kept)
        # An edge of a split server (server.edge.backend.EdgeClient): no lobby here, the
        # sessions' backends reach the host's over Redis.
        self.remote = remote
        self.lobby: Any = lobby if lobby is not None or remote is not None else Lobby(
            executor,
            grace=config.grace,
            bot_offer_after=config.bot_offer_after,
            bot_delay=config.bot_delay,
            store=store,
        )
        self.restored = 0  # unfinished matches brought back at start
        self.app_factory = app_factory or _default_app_factory
        self.host_key = host_key
        self._server: asyncssh.SSHAcceptor | None = None
        self._connections = 0
        self._per_addr: dict[str, int] = {}
        self._startups = 0  # connections not yet logged in
        self._startups_per_addr: dict[str, int] = {}
        self.random = random.Random()
        self.live: set[_Connection] = set()
        self.sessions = 0

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.sockets[0].getsockname()[1]

    async def start(self) -> None:
        cfg = self.config
        if self.host_key is None:
            if cfg.data_dir is None:
                self.host_key = asyncssh.generate_private_key("ssh-ed25519")
            else:
                self.host_key = load_host_key(Path(cfg.data_dir))
        if self.remote is None and self.lobby.store is not None:
            # Before anyone can connect: every unfinished match, waiting for its players.
            self.restored = len(self.lobby.restore())
        self._server = await asyncssh.create_server(
            lambda: _Connection(self),
            cfg.host,
            cfg.port,
            server_host_keys=[self.host_key],
            encoding=None,
            line_editor=False,
            allow_pty=True,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            sftp_factory=None,
            password_auth=False,
            kbdint_auth=True,
            public_key_auth=True,
            login_timeout=cfg.login_timeout,
            keepalive_interval=cfg.keepalive_interval,
            keepalive_count_max=cfg.keepalive_count_max,
            window=cfg.channel_window,
            reuse_address=True,
            reuse_port=cfg.reuse_port or None,
        )
        if self.remote is not None:
            self.remote.ssh_line = self.ssh_line()
        else:
            self.lobby.ssh_line = self.ssh_line()  # (the lobby's screens print it for friends)

    def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def wait_closed(self) -> None:
        if self._server is not None:
            await self._server.wait_closed()

    def ssh_line(self) -> str:
        """The ``ssh`` command that reaches this server, as players should type it."""
        host = self.config.public_host or self.config.host or "localhost"
        if host in ("0.0.0.0", "::"):
            host = "localhost"
        port = self.config.public_port or self.port
        return f"ssh -p {port} {host}" if port != 22 else f"ssh {host}"

    # connection accounting

    def _admit(self, c: _Connection) -> bool:
        cfg = self.config
        if self._connections >= cfg.max_connections:
            log.info("refusing %s: %d connections already", c.addr, self._connections)
            return False
        if self._per_addr.get(c.addr, 0) >= cfg.max_per_address:
            log.info("refusing %s: too many connections from that address", c.addr)
            return False
        if self._early_drop(self._startups, cfg.max_startups):
            log.info("refusing %s: %d connections not logged in yet", c.addr, self._startups)
            return False
        if self._early_drop(self._startups_per_addr.get(c.addr, 0), cfg.max_startups_per_address):
            log.info("refusing %s: too many connections from that address not logged in yet", c.addr)
            return False
        self._connections += 1
        self._per_addr[c.addr] = self._per_addr.get(c.addr, 0) + 1
        self._startups += 1
        self._startups_per_addr[c.addr] = self._startups_per_addr.get(c.addr, 0) + 1
        return True

    def _early_drop(self, n: int, budget: tuple[int, int, int]) -> bool:
        """MaxStartups ``start:rate:full``: drop with a chance rising from ``rate`` %
        at ``start`` unauthenticated connections to 100 % at ``full``."""
        start, rate, full = budget
        if n < start:
            return False
        if n >= full:
            return True
        chance = rate / 100 + (1 - rate / 100) * (n - start) / max(1, full - start)
        return self.random.random() < chance

    def _authenticated(self, c: _Connection) -> None:
        if c._counted:
            self._unstart(c.addr)

    def _unstart(self, addr: str) -> None:
        self._startups -= 1
        n = self._startups_per_addr.get(addr, 1) - 1
        if n:
            self._startups_per_addr[addr] = n
        else:
            self._startups_per_addr.pop(addr, None)

    def _release(self, c: _Connection) -> None:
        self._connections -= 1
        n = self._per_addr.get(c.addr, 1) - 1
        if n:
            self._per_addr[c.addr] = n
        else:
            self._per_addr.pop(c.addr, None)
        if not c.authenticated:
            self._unstart(c.addr)

    # sessions

    def _session_handler(self, c: _Connection) -> Callable:
        async def handle(process: asyncssh.SSHServerProcess) -> None:
            c.process = process
            try:
                code = await self._run_session(c, process)
            except Exception:
                log.exception("session failed")
                code = 1
            try:
                process.exit(code)
                # Let the output and the exit status reach the client, then hang up:
                # a connection has one session, so nothing else can happen on it.
                await asyncio.wait_for(process.channel.wait_closed(), 10)
            except Exception:
                pass
            if c.conn is not None:
                c.conn.close()

        return handle

    async def _run_session(self, c: _Connection, process: asyncssh.SSHServerProcess) -> int:
        command = process.command
        words = (command or "").split()
        if process.subsystem:
            process.stderr.write(f"voltage: no subsystems here\n{usage(self.ssh_line())}\n".encode())
            return 1
        newline = "\r\n" if process.term_type else "\n"
        if words == ["help"]:
            process.stdout.write(help_text(self.ssh_line()).replace("\n", newline).encode())
            return 0
        if words == ["who"]:
            text = await self.remote.who_text() if self.remote is not None else self.lobby.who_text()
            process.stdout.write(text.replace("\n", newline).encode())
            return 0
        if words and words[0] in ("leaderboard", "export"):
            if self.remote is not None:
                return await self._remote_command(process, words)
            return self._kept_command(process, words)
        initial: tuple[str, str] | None = None
        if len(words) == 2 and words[0] in ("join", "watch"):
            initial = (words[0], words[1].upper())
        elif words and words[0] == "replay":
            return await self._replay(c, process, words[1:])
        elif words:
            unknown = _printable(command or "")
            process.stderr.write(f"voltage: unknown command {unknown!r}\n{usage(self.ssh_line())}\n".encode())
            return 1
        if process.term_type is None:
            process.stderr.write(b"voltage: the game needs a terminal: connect with ssh -t\n")
            return 1
        return await self._play(c, process, initial)

    def _kept_command(self, process: asyncssh.SSHServerProcess, words: list[str]) -> int:
        """``leaderboard`` and ``export MATCH_ID``: plain text, no PTY needed."""
        from server.store import persist

        nl = "\r\n" if process.term_type else "\n"
        if self.store is None:
            process.stderr.write(b"voltage: this server keeps no matches or ratings\n")
            return 1
        if words[0] == "leaderboard":
            if len(words) != 1:
                process.stderr.write(f"usage: {self.ssh_line()} leaderboard\n".encode())
                return 2
            process.stdout.write(persist.text_leaderboard(self.store).replace("\n", nl).encode())
            return 0
        if len(words) != 2 or _match_id(words[1]) is None:
            process.stderr.write(f"usage: {self.ssh_line()} export MATCH_ID (a number)\n".encode())
            return 2
        code, text = persist.export_command(self.store, str(_match_id(words[1])))
        if code == 0:
            process.stdout.write(text.replace("\n", nl).encode())
        else:
            process.stderr.write(f"voltage: {text}".encode())
        return code

    async def _remote_command(self, process: asyncssh.SSHServerProcess, words: list[str]) -> int:
        """``leaderboard`` and ``export`` on an edge: the host reads its store."""
        nl = "\r\n" if process.term_type else "\n"
        if (words[0] == "leaderboard" and len(words) != 1) or (words[0] == "export" and (
                len(words) != 2 or _match_id(words[1]) is None)):
            what = "leaderboard" if words[0] == "leaderboard" else "export MATCH_ID (a number)"
            process.stderr.write(f"usage: {self.ssh_line()} {what}\n".encode())
            return 2
        if words[0] == "export":
            words = ["export", str(_match_id(words[1]))]
        got = await self.remote.command(words)
        if got["out"]:
            process.stdout.write(got["out"].replace("\n", nl).encode())
        if got["err"]:
            process.stderr.write(got["err"].encode())
        return int(got["code"])

    async def _replay(self, c: _Connection, process: asyncssh.SSHServerProcess, args: list[str]) -> int:
        """``replay MATCH_ID``: a finished match, step by step (needs ``ssh -t``)."""
        from server.replay import Replay, ReplayError

        match_id = _match_id(args[0]) if len(args) == 1 else None
        if match_id is None:
            process.stderr.write(f"usage: {tty(self.ssh_line())} replay MATCH_ID (a number)\n".encode())
            return 2
        if self.store is None and self.remote is None:
            process.stderr.write(b"voltage: this server keeps no matches\n")
            return 1
        if process.term_type is None:
            process.stderr.write(
                f"voltage: a replay needs a terminal: connect with ssh -t HOST replay {match_id}\n".encode()
            )
            return 1
        try:
            if self.remote is not None:  # an edge: the host reads its store
                replay = await self.remote.replay(match_id, c.identity)
            else:
                replay = Replay.load(self.store, match_id, c.identity)
        except ReplayError as e:
            process.stderr.write(f"voltage: {_printable(refusal_words(e), 200)}\n".encode())
            return 1
        from tui.screens.replay import ReplayBackend

        player = self.lobby.connect(c.identity, c.username) if self.remote is None else None
        backend = ReplayBackend(replay, player=player)
        self.sessions += 1
        try:
            app = self.app_factory(backend, c.username or "viewer")
            gcpolicy.session_started(app)
            await self._run(app, process)
        finally:
            self.sessions -= 1
        return 0

    async def _play(self, c: _Connection, process: asyncssh.SSHServerProcess, initial: tuple[str, str] | None) -> int:
        from server.backend import SSHBackend

        backend: Any
        player: Any = None
        if self.remote is not None:
            from tui.ports import Refused

            try:
                backend = await self.remote.open_session(c.identity, c.username, initial, _client_env(process))
            except Refused as e:
                process.stderr.write(f"voltage: {refusal_words(e)}\r\n".encode())
                return 1
        else:
            player = self.lobby.connect(c.identity, c.username)
            backend = SSHBackend(self.lobby, player, initial=initial, env=_client_env(process))
        self.sessions += 1
        idle: list[bool] = []
        watchdog: asyncio.TimerHandle | None = None
        try:
            app = self.app_factory(backend, backend.name_prefill)
            gcpolicy.session_started(app)

            def name_check() -> None:
                if not getattr(backend, "named", True):
                    log.info("ending %s's session: still on the name screen after %.0f s",
                             c.addr, self.config.name_idle)
                    idle.append(True)
                    app.exit()

            watchdog = asyncio.get_running_loop().call_later(self.config.name_idle, name_check)
            await self._run(app, process)
        finally:
            if watchdog is not None:
                watchdog.cancel()
            self.sessions -= 1
            backend.close()
            if player is not None:
                self.lobby.leave(player)
        if idle:
            mins = self.config.name_idle / 60
            process.stdout.write(
                f"voltage: no name chosen in {mins:g} minute{'s' if mins != 1 else ''}; come back any time\r\n".encode()
            )
            return 1
        return 0

    async def _run(self, app: Any, process: asyncssh.SSHServerProcess) -> None:
        cfg = self.config
        await run_app(app, _ProcessChannel(process), input_limits=cfg.input_limits, output_limits=cfg.output_limits)


_MATCH_ID = re.compile(r"#?([0-9]{1,18})")


def _match_id(arg: str) -> int | None:
    """A match id as typed (``12`` or ``#12``): 1-18 ASCII digits, else None."""
    m = _MATCH_ID.fullmatch(arg)
    return int(m.group(1)) if m else None


# What a session reads of the environment its client sent (SetEnv/SendEnv): only these,
# and only short values (a client may send any number of any size).
CLIENT_ENV = ("NO_COLOR", "LANG", "LC_ALL")


def _client_env(process: asyncssh.SSHServerProcess) -> dict[str, str]:
    try:
        env = process.env
    except Exception:  # pragma: no cover - no channel
        return {}
    return {k: str(env[k])[:64] for k in CLIENT_ENV if k in env}


def _printable(text: str, limit: int = 60) -> str:
    return "".join(ch if ch.isprintable() else "?" for ch in text)[:limit]


async def serve(
    config: ServerConfig,
    *,
    ready: Callable[[VoltageServer], None] | None = None,
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
    server = VoltageServer(config, executor=executor, store=store, host_key=host_key)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    except (NotImplementedError, RuntimeError):  # pragma: no cover - not on this platform
        pass
    try:
        await server.start()
        gcpolicy.install()  # the collector policy of a long-lived server of many apps
        if ready is not None:
            ready(server)
        await stop.wait()
        log.info("SIGTERM: stopping; unfinished matches stay in the store and come back at the next start")
    finally:
        server.close()
        for conn in list(server.live):
            if conn.conn is not None:
                conn.conn.close()
        for h in list(server.lobby.matches.values()):
            h.match.close()
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
) -> int:
    """``voltage serve``: run until interrupted.  Prints the ssh line that connects.

    The data directory holds the host key and the database (``voltage.db``); a
    directory, database or host key that cannot be used is a clear error and exit
    status 1, never a fresh empty database or a silently replaced key (a key
    missing from a used directory is made anew with a loud warning: see
    :func:`load_host_key`).  Both are opened before the event loop starts."""
    import sys

    from server.store.db import DB_NAME, Store, StoreError

    config = ServerConfig(host=host, port=port, data_dir=Path(data_dir) if data_dir else default_data_dir(),
                          public_host=public_host, public_port=public_port)
    if max_connections is not None:
        config.max_connections = max_connections
    if max_per_address is not None:
        config.max_per_address = max_per_address
    if max_startups is not None:
        config.max_startups = max_startups
    if max_startups_per_address is not None:
        config.max_startups_per_address = max_startups_per_address
    out = sys.stdout

    def ready(server: VoltageServer) -> None:
        print(f"Voltage is serving on port {server.port} (data: {config.data_dir})", file=out)
        if server.restored:
            n = server.restored
            print(f"Restored {n} unfinished match{'es' if n != 1 else ''}; "
                  f"their players have {config.grace:.0f} s to reconnect", file=out)
        print(f"Connect with:  {server.ssh_line()}", file=out, flush=True)

    if not logging.getLogger().handlers:
        logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    assert config.data_dir is not None

    def loud(text: str) -> None:
        bar = "!" * 78
        print(f"{bar}\nvoltage serve: WARNING: {text}\n{bar}", file=sys.stderr, flush=True)

    had_db = (Path(config.data_dir) / DB_NAME).exists()  # before Store.open makes one
    try:
        store = Store.open(config.data_dir)
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


def refusal_words(error: BaseException) -> str:
    """A refusal (its code) in the English words of the tui, for a command's error line."""
    from tui import words as W
    from tui.i18n import ENGLISH, language

    with language(ENGLISH):
        return W.refusal(error)
