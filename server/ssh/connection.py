"""One SSH connection: its admission ticket, authentication and identity, its early
drops, and the refusal of everything but one session.

- Admission is the session layer's (:mod:`server.session.admission`): the connection
  takes a ticket when it arrives, moves out of the not-logged-in budget when its client
  has logged in, and gives the ticket back when it ends.
- Identity: a client's public-key fingerprint, but only when it logged in with a signed
  public-key request; a key merely offered gives nothing.  Everyone else is a guest for
  that connection (keyboard-interactive with no prompts lets anyone in).
- A connection that has not asked to log in after ``silent_grace`` (10 s; a real client
  asks within a few round trips) is dropped, well before the login timeout; one that
  logged in but opens no session is dropped after ``session_idle`` (30 s).
- No port forwarding (local, remote, UNIX socket), no tunnels, one session per
  connection, no subsystems (so no SFTP).
- What the client sends is paced by the connection's budget of packets and bytes per second
  (:mod:`server.ssh.pacing`, :mod:`server.session.budget`): over it, its socket is not read
  for a while; over it for ``close_after`` seconds, it is disconnected with a log line.
- A channel whose maximum packet size is absurdly small (0 included) is refused before
  anything is written to it: a writer that splits output into packets of at most that
  size never finishes (the guard reads asyncssh's private ``_send_pktsize``, which is why
  pyproject pins asyncssh to 2.24.x).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import asyncssh

from server.session.admission import Ticket
from server.session.budget import ConnectionBudget
from server.session.identity import Identity
from server.ssh.pacing import PacedInput

if TYPE_CHECKING:
    from server.ssh.server import VoltageServer

log = logging.getLogger(__name__)

MIN_PACKET_SIZE = 512  # no real client asks for less; OpenSSH asks for 32 KiB


class SSHConnection(asyncssh.SSHServer):
    """Auth, identity and the refusals for one client connection."""

    def __init__(self, server: VoltageServer) -> None:
        self.server = server
        self.conn: asyncssh.SSHServerConnection | None = None
        self.addr = ""
        self.key: str | None = None  # the fingerprint of the key its client proved
        self.username = ""
        self._candidate: str | None = None
        self._sessions = 0
        self._ticket: Ticket | None = None
        self._asked = False  # has asked to log in
        self.authenticated = False
        self._timer: asyncio.TimerHandle | None = None
        self.process: asyncssh.SSHServerProcess | None = None
        self.input: PacedInput | None = None

    @property
    def identity(self) -> Identity:
        return Identity.of_key(self.key, self.username) if self.key else Identity.guest(self.username)

    # connection life

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        peer = conn.get_extra_info("peername")
        self.addr = str(peer[0]) if peer else ""
        self._ticket = self.server.sessions.admission.admit(self.addr)
        if self._ticket is None:
            conn.close()
            return
        self.input = PacedInput(conn, ConnectionBudget(self.server.sessions.limits.connection_limits), self._flooded)
        self.server.live.add(self)
        self._later(self.server.config.silent_grace, self._silent_check)

    def connection_lost(self, exc: Exception | None) -> None:
        self.server.live.discard(self)
        if self.input is not None:
            self.input.close()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._ticket is not None:
            self._ticket.release()

    def _later(self, delay: float, callback: Callable[[], None]) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(delay, callback)

    def _drop(self, why: str) -> None:
        log.info("dropping %s: %s", self.addr, why)
        if self.conn is not None:
            self.conn.close()

    def _flooded(self) -> None:
        assert self.input is not None
        budget = self.input.budget
        log.warning("disconnecting %s: over its budget of %g packets and %g bytes a second for %.0f s",
                    self.addr, budget.limits.messages_per_second, budget.limits.bytes_per_second, budget.over_for)
        if self.conn is not None:
            self.conn.disconnect(asyncssh.DISC_BY_APPLICATION, "too much input; the connection is closed")

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
        self.key = self._candidate
        if not self.authenticated:
            self.authenticated = True
            if self._ticket is not None:
                self._ticket.authenticated()
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
        return SessionProcess(self.server.session_handler(self))


class SessionProcess(asyncssh.SSHServerProcess):
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
