"""The SSH transport: an asyncssh server whose every session is handed to the session
layer (:class:`~server.session.sessions.Sessions`), as a
:class:`~server.ssh.channel.ProcessChannel`, an identity and the command the client gave
(:func:`~server.session.commands.run_command`).  All the sessions of the process share
its :class:`Sessions`: one lobby (or one edge's link to the host), one admission.

The SSH side of the hardening, each guard with a test in ``tests/e2e/test_ssh*.py``:

- no port forwarding, no agent forwarding, no X11, no SFTP or SCP, no subsystem, one
  session per connection, no tiny packet sizes (:mod:`server.ssh.connection`); a
  command is one of the table's (:mod:`server.session.commands`), never a shell;
- a login timeout, keepalives that drop dead clients, and the connection caps and
  budgets of :mod:`server.session.admission`, counted per peer address;
- the early drops of silent and idle connections (:mod:`server.ssh.connection`);
- the channel's receive window is ``channel_window`` (256 KiB, not asyncssh's 2 MiB):
  what a client may push at a session that is over its input budget (see
  :mod:`server.session.driver`) waits on the client's side, not in our memory;
- a session reads only the few environment names the session layer knows, however
  many the client sends (:mod:`server.session.environment`).

On an edge of a split server (:mod:`server.cluster.main`) the same transport serves the
edge's :class:`Sessions` (:class:`~server.edge.services.EdgeServices`), and
``reuse_port`` lets N edge processes listen on one port.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path

import asyncssh

from server.config import ServerConfig
from server.session.commands import Invocation, run_command, usage
from server.session.sessions import Sessions
from server.ssh.channel import ProcessChannel, ProcessConsole, sent_env
from server.ssh.connection import SSHConnection
from server.ssh.hostkey import load_host_key

log = logging.getLogger(__name__)


#: The ciphers offered.  A client takes the first of its own list that the server offers; OpenSSH's
#: first is chacha20-poly1305, which asyncssh makes of several calls per packet: about 30 us a packet,
#: where AES-GCM takes 4 and AES-CTR with an encrypt-then-MAC SHA-2 HMAC 6-8 (this machine, 64 bytes
#: to 1 KiB).  A screen sends a packet per frame and per clock tick, hundreds a second on a busy server:
#: chacha20 was a tenth of its CPU.  So it is not offered: OpenSSH clients then take AES-CTR, asyncssh's
#: AES-GCM; every SSH client has AES-CTR (RFC 4344), all three are sound.
ENCRYPTION_ALGS = ("aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr")
#: The MACs offered (for AES-CTR; GCM carries its own): encrypt-then-MAC first; not UMAC, which asyncssh
#: computes more slowly than an HMAC (13.6 us against 7.9 for a KiB), though OpenSSH would take it first.
MAC_ALGS = ("hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com", "hmac-sha1-etm@openssh.com",
            "hmac-sha2-256", "hmac-sha2-512", "hmac-sha1")


class VoltageServer:
    """The listening SSH server of one process."""

    def __init__(self, config: ServerConfig, sessions: Sessions, *, host_key: asyncssh.SSHKey | None = None) -> None:
        self.config = config
        self.sessions = sessions
        self.host_key = host_key
        self._server: asyncssh.SSHAcceptor | None = None
        self.live: set[SSHConnection] = set()

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
        self.sessions.start()  # before anyone can connect: every unfinished match is back
        self._server = await asyncssh.create_server(
            lambda: SSHConnection(self),
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
            encryption_algs=ENCRYPTION_ALGS,
            mac_algs=MAC_ALGS,
            login_timeout=cfg.login_timeout,
            keepalive_interval=cfg.keepalive_interval,
            keepalive_count_max=cfg.keepalive_count_max,
            window=cfg.channel_window,
            reuse_address=True,
            reuse_port=cfg.reuse_port or None,
        )
        self.sessions.services.announce(self.ssh_line())  # (the lobby's screens print it for friends)

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

    def hang_up(self) -> None:
        """Close every connection (the server is stopping)."""
        for c in list(self.live):
            if c.conn is not None:
                c.conn.close()

    # sessions

    def session_handler(self, c: SSHConnection) -> Callable:
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

    async def _run_session(self, c: SSHConnection, process: asyncssh.SSHServerProcess) -> int:
        if process.subsystem:
            process.stderr.write(f"voltage: no subsystems here\n{usage(self.ssh_line())}\n".encode())
            return 1
        invocation = Invocation(
            command=process.command or "",
            identity=c.identity,
            console=ProcessConsole(process),
            address=self.ssh_line(),
            env=sent_env(process),
            terminal=ProcessChannel(process) if process.term_type else None,
            peer=c.addr,
        )
        return await run_command(self.sessions, invocation)
