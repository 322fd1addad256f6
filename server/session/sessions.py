"""The sessions of one process: what every transport hands a client's session to.

A transport (SSH today, a WebSocket next) brings a :class:`~server.session.driver.TerminalChannel`
(bytes in, bytes out, a size), an :class:`~server.session.identity.Identity`, the client's
environment and what it asked for; :class:`Sessions` runs the rest the same way for each:

- the backend from the :class:`~server.session.services.Services` (this process's lobby,
  or the host's over Redis), let go of when the session ends;
- the app from the :data:`~server.session.app.AppFactory`, run by the driver on the
  channel with the session's input budget and output flow control (:class:`SessionLimits`,
  which also holds the budget each transport keeps for a connection's traffic:
  :mod:`server.session.budget`);
- the collector's hooks (:func:`server.gcpolicy.session_started`; the driver calls
  ``session_ended``);
- the name watchdog: a session that has chosen no name after ``name_idle`` (5 min)
  ends with a message, so an abandoned terminal does not hold a session for ever
  (one that had a name and was taken over by a newer session of its key is not idle);
- the budget of whole-screen frames of every session (:class:`~server.session.budget.RedrawBudget`);
- the budget of new sessions per address and overall (:class:`~server.session.budget.StartLimits`,
  one for every transport): a session over it is refused with a line saying when to try
  again, before its app is made (a transport that waits for the turn itself, as the web
  does, has taken it already: ``charged``);
- the exit status the transport reports (0, or 1 with the line that says why).

One :class:`Sessions` is shared by every transport of the process, with its
:class:`~server.session.admission.Admission`: the caps count every connection however it came.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from server import gcpolicy
from server.session.admission import Admission
from server.session.app import AppFactory, default_app_factory
from server.session.budget import ConnectionLimits, KeyedBudget, RedrawBudget, RedrawLimits, StartLimits
from server.session.driver import InputLimits, OutputLimits, TerminalChannel, run_app
from server.session.environment import client_env
from server.session.identity import Identity
from server.session.services import Services
from tui.i18n import client_language, ngettext, reset, use
from tui.ports import LobbyBackend

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SessionLimits:
    name_idle: float = 300.0  # still on the name screen by then: the session ends
    input_limits: InputLimits = field(default_factory=InputLimits)
    output_limits: OutputLimits = field(default_factory=OutputLimits)
    # what each connection may send, kept by its transport (server.session.budget)
    connection_limits: ConnectionLimits = field(default_factory=ConnectionLimits)
    # new sessions per address and overall, whatever their transport (server.session.budget)
    starts: StartLimits = field(default_factory=StartLimits)
    # whole-screen frames of every session (server.session.budget)
    redraws: RedrawLimits = field(default_factory=RedrawLimits)


class Console(Protocol):
    """Where a session's or a command's words go: the client's output and its error stream
    (text as it is written: the caller ends its lines as the client's terminal wants)."""

    def out(self, text: str) -> None: ...

    def err(self, text: str) -> None: ...


class TerminalConsole:
    """The console of a transport with one stream: both go to the terminal."""

    def __init__(self, terminal: TerminalChannel) -> None:
        self.terminal = terminal

    def out(self, text: str) -> None:
        self.terminal.write(text.encode())

    def err(self, text: str) -> None:
        self.terminal.write(text.encode())


def refusal_words(error: BaseException, env: Mapping[str, Any] | None = None, lang: str | None = None) -> str:
    """A refusal (its code and params) in the tui's words, for a line a command or a session
    writes before any app runs: in ``lang``, else the language of the client's locale (``env``:
    what it sent)."""
    from tui import words as W
    from tui.i18n import client_language, language

    with language(lang or client_language(client_env(env or {}))):
        return W.refusal(error)


async def session_language(backend: LobbyBackend, env: Mapping[str, str]) -> str:
    """The language a session starts in: the one its key chose in the settings (kept with its
    other settings), else its client's locale's (:func:`tui.i18n.chosen`)."""
    from tui.i18n import chosen

    kept: Any = {}
    if backend.identity:  # (a guest has kept nothing yet)
        try:
            kept = await backend.settings()
        except Exception:  # (the settings are unreadable now: the client's locale decides)
            log.exception("could not read the settings of a session")
            kept = {}
    return chosen(kept.get("language") if isinstance(kept, Mapping) else None, env)


def _words(lang: str, make: Callable[[], str]) -> str:
    """A line the session layer writes itself (no app running), in ``lang``."""
    from tui.i18n import language

    with language(lang):
        return make()


def printable(text: str, limit: int = 60) -> str:
    """``text`` safe to echo to a client: no control characters, at most ``limit`` long."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)[:limit]


class Sessions:
    """Every session of this process, whatever its transport (see the module's notes)."""

    def __init__(
        self,
        services: Services,
        *,
        admission: Admission | None = None,
        limits: SessionLimits | None = None,
        app_factory: AppFactory | None = None,
    ) -> None:
        self.services = services
        self.admission = admission or Admission()
        self.limits = limits or SessionLimits()
        self.app_factory = app_factory or default_app_factory
        self.running = 0  # sessions with an app running now
        self.restored = 0  # unfinished matches brought back at start
        self.web_address = ""  # the web page's address, when a web transport serves these sessions
        self.starts = KeyedBudget.of(self.limits.starts)  # new sessions, per address and overall
        self.redraws = RedrawBudget(self.limits.redraws)  # every session's whole frames
        self._started = False

    def refused_start(self, peer: str, console: Console) -> bool:
        """Over the budget of new sessions (``peer``'s or everyone's): says so and when to try again."""
        if self.starts.take(peer):
            return False
        wait = self.starts.due(peer)
        log.info("refusing a session from %s: over the budget of new sessions", peer)
        console.err(f"voltage: too many new sessions from your address; try again in {max(1, round(wait + 0.5))} s\r\n")
        return True

    def start(self) -> int:
        """Before the first connection (every transport calls it as it starts; the first
        call does the work): the unfinished matches of a restart are back."""
        if not self._started:
            self._started = True
            self.restored = self.services.start()
        return self.restored

    async def play(
        self,
        terminal: TerminalChannel,
        identity: Identity,
        env: Mapping[str, Any],
        *,
        initial: tuple[str, str] | None = None,
        console: Console | None = None,
        peer: str = "",
        charged: bool = False,
    ) -> int:
        """A player's session, from the name screen and the lobby (``initial``: ``("join" |
        "watch", CODE)`` to go straight there) until they leave; the exit status.  ``env``
        is what the client sent: the session reads only :data:`~server.session.environment.CLIENT_ENV`."""
        from tui.ports import Refused

        console = console or TerminalConsole(terminal)
        if not charged and self.refused_start(peer, console):
            return 1
        sent = client_env(env)
        try:
            opened = await self.services.open(identity, initial, sent)
        except Refused as e:
            console.err(f"voltage: {refusal_words(e, sent)}\r\n")
            return 1
        backend = opened.backend
        name_idle = self.limits.name_idle
        idle = False
        watchdog: asyncio.TimerHandle | None = None
        self.running += 1
        speech: contextvars.Token[Any] | None = None
        speech_code = client_language(sent)
        try:
            # The session's language, set in this task's context before the app is made: every task and
            # callback of the app copies the context, so they all word in it (and follow a change of it).
            speech_code = await session_language(backend, sent)
            speech = use(speech_code)
            app = self.app_factory(backend, backend.name_prefill)
            gcpolicy.session_started(app)

            def name_check() -> None:
                nonlocal idle
                # (a session a newer one of its key took over had a name: it is not idle on the name screen)
                if not backend.named and not getattr(backend, "superseded", False):
                    log.info("ending %s's session: still on the name screen after %.0f s", peer, name_idle)
                    idle = True
                    app.exit()

            watchdog = asyncio.get_running_loop().call_later(name_idle, name_check)
            await self._run(app, terminal)
        finally:
            if watchdog is not None:
                watchdog.cancel()
            self.running -= 1
            opened.close()
            if speech is not None:
                reset(speech)
        if idle:
            mins = name_idle / 60
            console.out("voltage: " + _words(speech_code, lambda: ngettext(
                "no name chosen in %(n)s minute; come back any time",
                "no name chosen in %(n)s minutes; come back any time", 1 if mins == 1 else 2) % {"n": f"{mins:g}"})
                + "\r\n")
            return 1
        return 0

    async def replay(
        self, terminal: TerminalChannel, identity: Identity, match_id: int, *, console: Console | None = None,
        language: str = "en", peer: str = "",
    ) -> int:
        """A finished match, step by step, until the viewer leaves (in ``language``); the exit status."""
        from server.replay import ReplayError

        console = console or TerminalConsole(terminal)
        if self.refused_start(peer, console):
            return 1
        try:
            backend = await self.services.open_replay(match_id, identity)
        except ReplayError as e:
            console.err(f"voltage: {printable(refusal_words(e, lang=language), 200)}\n")
            return 1
        self.running += 1
        speech = use(language)
        try:
            app = self.app_factory(backend, identity.username or "viewer")
            gcpolicy.session_started(app)
            await self._run(app, terminal)
        finally:
            self.running -= 1
            reset(speech)
        return 0

    async def _run(self, app: Any, terminal: TerminalChannel) -> None:
        limits = self.limits
        await run_app(app, terminal, input_limits=limits.input_limits, output_limits=limits.output_limits,
                      redraws=self.redraws)
