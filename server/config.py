"""The settings of a serving process (``voltage serve``, ``voltage edge``): where it listens and
how players reach it, the SSH transport's timeouts, the lobby's timings, and the limits of
connections and sessions, which it hands to the session layer as its own small settings
(:meth:`ServerConfig.admission_limits`, :meth:`ServerConfig.session_limits`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from server.session.admission import AdmissionLimits
from server.session.budget import ConnectionLimits, StartLimits
from server.session.driver import InputLimits, OutputLimits
from server.session.sessions import SessionLimits, Sessions

if TYPE_CHECKING:
    from server.web.server import WebServer


@dataclass
class ServerConfig:
    host: str = ""
    port: int = 2222
    # How players reach the server, when that is not where it listens (behind NAT or a
    # proxy): the host and port printed in every "ssh ..." line shown to people.
    public_host: str = ""
    public_port: int = 0
    data_dir: Path | None = None
    # SSH (server.ssh)
    login_timeout: float = 30.0
    keepalive_interval: float = 15.0
    keepalive_count_max: int = 3
    silent_grace: float = 10.0  # no login asked for by then: dropped
    session_idle: float = 30.0  # logged in, no session by then: dropped
    channel_window: int = 256 * 1024
    # Several edge processes listening on one port (``serve --redis --edges N``): the
    # kernel spreads the connections over them (SO_REUSEPORT).
    reuse_port: bool = False
    # the lobby (server.lobby)
    grace: float = 60.0
    bot_offer_after: float = 20.0
    bot_delay: float = 0.7
    # admission (server.session.admission)
    max_connections: int = 1000
    max_per_address: int = 20
    # MaxStartups-style budgets of unauthenticated connections: (start, rate %, full)
    max_startups: tuple[int, int, int] = (10, 30, 100)
    max_startups_per_address: tuple[int, int, int] = (3, 30, 10)
    # the web transport (server.web): off unless a port is given
    web_port: int | None = None
    web_host: str = ""
    web_url: str = ""  # how players reach the page, when not http://HOST:PORT/ (behind a TLS proxy)
    web_max_message: int = 64 * 1024
    # each session (server.session.sessions)
    name_idle: float = 300.0  # still on the name screen by then: the session ends
    input_limits: InputLimits = field(default_factory=InputLimits)
    output_limits: OutputLimits = field(default_factory=OutputLimits)
    # each connection's packets and bytes (server.session.budget)
    connection_limits: ConnectionLimits = field(default_factory=ConnectionLimits)
    # new sessions per address and overall, SSH and web alike (server.session.budget)
    session_starts: StartLimits = field(default_factory=StartLimits)
    # ``--sessions-per-address BURST:SECONDS``: the per-address part of ``session_starts`` (None: its own)
    sessions_per_address: tuple[float, float] | None = None

    def admission_limits(self) -> AdmissionLimits:
        return AdmissionLimits(self.max_connections, self.max_per_address, self.max_startups,
                               self.max_startups_per_address)

    def session_limits(self) -> SessionLimits:
        starts = self.session_starts
        if self.sessions_per_address is not None:
            burst, every = self.sessions_per_address
            starts = replace(starts, per_address_burst=burst, per_address_every=every)
        return SessionLimits(self.name_idle, self.input_limits, self.output_limits, self.connection_limits, starts)

    def web_server(self, sessions: Sessions, ssh_line: Callable[[], str]) -> WebServer | None:
        """The web transport of these settings over ``sessions`` (None: no ``web_port``): a
        dropped browser's session is held for the lobby's grace, a socket must say hello
        within the SSH transport's silent grace, and is pinged as often as SSH's keepalives."""
        if self.web_port is None:
            return None
        from server.web.channel import WebLimits
        from server.web.server import WebServer

        limits = WebLimits(max_message=self.web_max_message, hello_within=self.silent_grace, hold=self.grace,
                           heartbeat=self.keepalive_interval,
                           flood_close_after=self.input_limits.flood_close_after)
        return WebServer(sessions, host=self.web_host, port=self.web_port, limits=limits, ssh_line=ssh_line,
                         url=self.web_url, public_host=self.public_host, reuse_port=self.reuse_port,
                         max_connections=2 * self.max_connections)
