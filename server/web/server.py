"""The web transport's listener: one page, its static files, a WebSocket per browser tab and
the link form, served by aiohttp in the process's own event loop (see :mod:`server.web`).

aiohttp, because the project is asyncio through and through (asyncssh, the lobby, redis-py's
asyncio client): its server runs in the same loop as the SSH server and the apps, its
WebSocket has the flow control the driver needs (a queue of at most 128 KiB that pauses the
transport when nobody reads it), and it is one dependency with no native build step.

What a request may do, and how the server stays up under abuse (each with a test in
``tests/web/``):

- **Only the page's own files**: ``/`` (the page), ``/static/NAME`` (by exact name from
  :func:`server.web.assets.static_files`), ``/favicon.ico``, ``/ws`` and ``POST /link``;
  anything else is a 404, never a file lookup.  Every response carries the security headers (:data:`HEADERS`: a
  Content-Security-Policy allowing only the page's own scripts and the same-origin socket,
  no framing, no sniffing, no referrer).
- **Connections**: a WebSocket takes a ticket from the process's
  :class:`~server.session.admission.Admission` before the upgrade (the caps overall and per
  address, and the start-up budget, shared with SSH), says hello within ``hello_within``
  (10 s, SSH's silent grace) or is closed, and is then logged in.  Every TCP connection
  counts against an overall cap (twice the sessions' cap) and must finish its first request's
  headers within the same 10 s, or it is dropped (slow headers hold nothing for long); an idle
  keep-alive connection is closed after 15 s.
- **The upgrade's Origin** must be this server's own (the ``Host`` the browser asked for):
  another site's page cannot open a socket with this browser's cookie.  ``POST /link`` checks
  it too.
- **Messages**: at most ``max_message`` bytes (64 KiB) each, the socket is closed beyond;
  a budget of messages per second (:mod:`server.web.channel`); resizes clamped to 1000 here
  and by the driver to its own bounds, held here over a budget of the cells they redraw (the
  latest size winning, keys read on meanwhile), and coalesced by the driver as SSH's are.
- **Link codes**: a budget of tries per address (10, then one per 30 s) and overall (200,
  then one a second); a try over budget is refused (429) before any code is looked at.
- **New sessions** (each starts an app: ~0.1 s of the loop): the session layer's budget per address
  and overall, one with SSH's (:class:`~server.session.budget.StartLimits`: 2, then one per 5 s;
  100, then 20 a second); a hello over it waits for its turn, unread,
  up to ``hello_within``, and is then closed with 1013 (the page tries again a little later).
  Refused at once, an address opening sockets in a loop kept the loop busy with handshakes and
  an SSH player's keys waited up to ~300 ms (``benchmarks/web_attack.py``).  A tab coming back
  to its session spends nothing, and a session whose socket broke the protocol (a message over
  ``max_message``) is not held for its return.
- **Penalties** (OpenSSH's ``PerSourcePenalties``' idea): every refused request (a 4xx) costs its
  address a token of a budget of 20, then 2 a second (a debt of at most 20); an address in debt has
  its next requests wait until it is out of it (at most 5 s each) before they are looked at.  Answered at once, an
  attacker's loop of wrong Origins, bad paths or link guesses took ~20-30 % of the server's loop
  (``benchmarks/web_attack.py``, which prints the server's CPU per attack); waiting costs nothing.
  A socket closed for abuse (a message over ``max_message`` or a broken frame, in its hello or later;
  a flood of messages) costs its address 10 tokens (:data:`PENALTY_OFFENCE`, as OpenSSH charges more
  for a crash than for a failed login): each one had made the server read up to 64 KiB, and most had
  started an app; from the third in a row its address waits.
- **Behind a reverse proxy** (TLS ends there): a connection from a loopback address is a
  proxy on this machine, and its ``X-Forwarded-For`` (the right-most address: the one the
  proxy saw), ``X-Forwarded-Proto`` and ``X-Forwarded-Host`` are believed; nobody else's.

Identity: a browser is a guest unless its cookie holds a token linked to a key (``ssh HOST
link`` gives a code; the page posts it to ``/link``, which sets the cookie: HttpOnly,
SameSite=Strict, Secure over TLS); the token is looked up through the sessions' services, so
an edge asks its host.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
import re
import secrets
import time
from collections.abc import Callable
from typing import Any

from aiohttp import WebSocketError, web

from server.session.admission import Ticket
from server.session.budget import KeyedBudget
from server.session.identity import Identity
from server.session.sessions import Sessions
from server.web.assets import Asset, page_template, render_page, static_files
from server.web.channel import ResizeBudget, WebChannel, WebLimits, size_of

log = logging.getLogger(__name__)

COOKIE = "voltage_browser"
COOKIE_AGE = 400 * 24 * 3600  # (the longest a browser keeps a cookie)
MAX_REQUEST = 4096  # bytes of a request's body (the link form's is ~30)
KEEPALIVE = 15.0  # seconds an idle keep-alive connection is kept
PENALTY_BURST, PENALTY_RATE = 20.0, 2.0  # refused requests per address at once, then a second
PENALTY_MAX = 5.0  # the longest a penalised address's request waits before it is looked at
PENALTY_OFFENCE = 10.0  # tokens a socket closed for abuse (an oversized message, a broken frame, a flood) costs

# Scripts: the page's own files only (no inline script, no eval).  Styles may be inline: xterm.js
# writes its theme and sizes into <style> elements it makes (styles run no code).
CSP = ("default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; "
       "img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}


def browser_label(agent: str) -> str:
    """What a User-Agent says, in a few words: ``Chrome on Linux``."""
    browser = next((name for mark, name in (("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"),
                                           ("Chrome/", "Chrome"), ("Safari/", "Safari")) if mark in agent), "")
    system = next((name for mark, name in (("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"),
                                          ("Windows", "Windows"), ("Mac OS X", "macOS"), ("CrOS", "ChromeOS"),
                                          ("Linux", "Linux")) if mark in agent), "")
    if browser and system:
        return f"{browser} on {system}"
    return browser or system or "a browser"


def _trusted(request: web.Request) -> bool:
    """The connection comes from this machine: a reverse proxy, whose forwarded headers are believed."""
    peer = request.transport.get_extra_info("peername") if request.transport is not None else None
    if not peer:
        return False
    try:
        return ipaddress.ip_address(peer[0]).is_loopback
    except ValueError:
        return False


def page_language(accept: str) -> str:
    """The page's language for an ``Accept-Language`` header: its first language that is one of
    ours (``ca-ES,ca;q=0.9`` -> ``"ca"``); English when none is."""
    from tui.i18n import LANGUAGES, locale_language

    for part in accept.split(","):
        tag = part.split(";", 1)[0].strip()
        if not tag or tag == "*":
            continue
        code = locale_language(tag)
        if code != "en" or tag.lower().startswith("en"):
            return code if code in LANGUAGES else "en"
    return "en"


def client_address(request: web.Request) -> str:
    """The address a request came from (a trusted proxy's ``X-Forwarded-For``: the one it saw)."""
    peer = request.transport.get_extra_info("peername") if request.transport is not None else None
    address = str(peer[0]) if peer else ""
    if _trusted(request):
        forwarded = request.headers.get("X-Forwarded-For", "").split(",")[-1].strip()
        try:
            return str(ipaddress.ip_address(forwarded))
        except ValueError:
            pass
    return address


def is_https(request: web.Request) -> bool:
    return request.secure or (_trusted(request) and request.headers.get("X-Forwarded-Proto", "") == "https")


def origin_ok(request: web.Request) -> bool:
    """The request's Origin is the page's own: the host (and port) the browser asked this server for."""
    origin = request.headers.get("Origin", "")
    scheme, _sep, authority = origin.partition("://")
    if scheme not in ("http", "https") or not authority or "/" in authority:
        return False
    host = (request.headers.get("X-Forwarded-Host", "") if _trusted(request) else "") or request.host
    return authority.lower() == host.split(",")[0].strip().lower()


class WebSession:
    """One session of the web transport: its channel (which outlives a socket), identity,
    the token a returning tab presents, the admission ticket of its socket, and its hold."""

    def __init__(self, server: WebServer, identity: Identity, channel: WebChannel) -> None:
        self.server = server
        self.identity = identity
        self.channel = channel
        self.token = secrets.token_urlsafe(24)
        self.ticket: Ticket | None = None
        self.task: asyncio.Task[None] | None = None
        self._hold: asyncio.TimerHandle | None = None
        self._gone: dict[web.WebSocketResponse, asyncio.Event] = {}
        self.close_reasons: dict[web.WebSocketResponse, tuple[int, str]] = {}
        channel.on_detach = self._detached
        channel.on_offence = self._offence

    def attach(self, ws: web.WebSocketResponse, request: web.Request, size: tuple[int, int], ticket: Ticket, *,
               fresh: bool) -> asyncio.Event:
        """``ws`` carries the session now; the event is set once it no longer does."""
        if self._hold is not None:
            self._hold.cancel()
            self._hold = None
        if self.ticket is not None:
            self.ticket.release()
        self.ticket = ticket
        gone = self._gone[ws] = asyncio.Event()
        self.channel.attach(ws, request, size, fresh=fresh)
        return gone

    def _offence(self, why: str) -> None:
        """The socket attached now was closed for abuse: its address pays (the ticket's is the socket's)."""
        if self.ticket is not None:
            self.server._offence(self.ticket.peer, why)

    def _detached(self, channel: WebChannel, ws: web.WebSocketResponse, code: int, why: str) -> None:
        gone = self._gone.pop(ws, None)
        if gone is not None:
            self.close_reasons[ws] = (code, why)
            gone.set()
        if not channel.attached and not channel.ended and self._hold is None:
            hold = channel.limits.hold
            log.info("a web session lost its socket: held for %.0f s", hold)
            self._hold = asyncio.get_running_loop().call_later(hold, self._expire)

    def _expire(self) -> None:
        self._hold = None
        if not self.channel.attached:
            log.info("a held web session ends: its socket did not come back")
            self.channel.end()

    def closed(self) -> None:
        """The session is over: let go of everything it held."""
        if self._hold is not None:
            self._hold.cancel()
            self._hold = None
        if self.ticket is not None:
            self.ticket.release()
            self.ticket = None
        for gone in self._gone.values():
            gone.set()
        self._gone.clear()
        self.server.web_sessions.pop(self.token, None)


class _Guard:
    """Every TCP connection of the web listener: an overall cap, and a deadline for its first
    request's headers (the middleware marks the connections that made one)."""

    def __init__(self, factory: Callable[[], asyncio.Protocol], cap: int, grace: float) -> None:
        self.factory = factory
        self.cap = cap
        self.grace = grace
        self.live = 0
        self.asked: set[asyncio.BaseTransport] = set()

    def __call__(self) -> asyncio.Protocol:
        return _Guarded(self)


class _Guarded(asyncio.Protocol):
    def __init__(self, guard: _Guard) -> None:
        self.guard = guard
        self.inner: asyncio.Protocol | None = None
        self.transport: asyncio.BaseTransport | None = None
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        guard = self.guard
        if guard.live >= guard.cap:
            log.info("refusing a web connection: %d open already", guard.live)
            transport.abort()  # type: ignore[attr-defined]  # (a socket transport)
            return
        guard.live += 1
        self.transport = transport
        self.timer = asyncio.get_running_loop().call_later(guard.grace, self._check)
        self.inner = guard.factory()
        self.inner.connection_made(transport)

    def _check(self) -> None:
        self.timer = None
        if self.transport is not None and self.transport not in self.guard.asked:
            log.info("dropping a web connection that sent no request in %.0f s", self.guard.grace)
            self.transport.abort()  # type: ignore[attr-defined]  # (a socket transport)

    def data_received(self, data: bytes) -> None:
        if self.inner is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.inner is not None else None

    def pause_writing(self) -> None:
        if self.inner is not None:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.inner is not None:
            self.inner.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.inner is None:
            return
        self.guard.live -= 1
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.transport is not None:
            self.guard.asked.discard(self.transport)
        self.inner.connection_lost(exc)


class WebServer:
    """The web transport of one process (or edge): serves ``sessions`` to browsers."""

    def __init__(self, sessions: Sessions, *, host: str = "", port: int = 0, limits: WebLimits | None = None,
                 ssh_line: Callable[[], str] | None = None, url: str = "", public_host: str = "",
                 reuse_port: bool = False, max_connections: int = 2000) -> None:
        self.sessions = sessions
        self.host = host
        self.requested_port = port
        self.limits = limits or WebLimits()
        self.ssh_line = ssh_line or (lambda: "ssh HOST")
        self.public_url = url
        self.public_host = public_host
        self.reuse_port = reuse_port
        self.max_connections = max_connections
        self.web_sessions: dict[str, WebSession] = {}
        self.link_budget = KeyedBudget(10, 1 / 30, 200, 1.0)
        # Refusals (a 4xx: a wrong Origin, a path that is not the page's, a link try over budget) per
        # address: 20, then 2 a second; past that, the address's requests wait (see _middleware).
        self.penalties = KeyedBudget(PENALTY_BURST, PENALTY_RATE, 1e12, 1e12)  # (no overall one)
        self._resizes: ResizeBudget | None = None  # the cells web screens may redraw (resize_budget)
        self._runner: web.AppRunner | None = None
        self._server: asyncio.Server | None = None
        self._guard: _Guard | None = None
        self._static: dict[str, Asset] = {}
        self._page: Asset | None = None  # (the English page)
        self._pages: dict[str, Asset] = {}  # the page in each language, by its code

    # -- life -----------------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def url(self) -> str:
        """The page's address, as players should open it."""
        if self.public_url:
            return self.public_url
        host = self.public_host or self.host or "localhost"
        if host in ("0.0.0.0", "::"):
            host = "localhost"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/" if self.port != 80 else f"http://{host}/"

    async def start(self) -> None:
        from tui import words as W
        from tui.i18n import LANGUAGES, language

        self._static = static_files()
        for code in LANGUAGES:  # the page in each language, made once: a request picks its browser's
            with language(code):
                words = W.web_page(self.ssh_line())
            self._pages[code] = render_page(page_template(), {**words, "lang": code}, self._static)
        self._page = self._pages["en"]
        app = web.Application(middlewares=[self._middleware], client_max_size=MAX_REQUEST)
        app.router.add_get("/", self._index)
        app.router.add_get("/static/{name:.+}", self._file)
        app.router.add_get("/favicon.ico", self._icon)
        app.router.add_get("/ws", self._socket)
        app.router.add_post("/link", self._link)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, keepalive_timeout=KEEPALIVE,
                               shutdown_timeout=2.0, max_line_size=4096, max_field_size=8190, max_headers=64)
        await runner.setup()
        self._runner = runner
        assert runner.server is not None
        self._guard = _Guard(runner.server, self.max_connections, self.limits.hello_within)
        self.sessions.start()
        self._server = await asyncio.get_running_loop().create_server(
            self._guard, self.host or None, self.requested_port, reuse_address=True,
            reuse_port=self.reuse_port or None)
        self.sessions.web_address = self.url

    def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def wait_closed(self) -> None:
        self.hang_up()
        tasks = [s.task for s in self.web_sessions.values() if s.task is not None]
        if tasks:  # (each says goodbye to its tab: at most a few seconds for all of them)
            await asyncio.wait(tasks, timeout=5.0)
        if self._runner is not None:
            await self._runner.cleanup()
        if self._server is not None:
            await self._server.wait_closed()

    def hang_up(self) -> None:
        """End every session (the server is stopping)."""
        for session in list(self.web_sessions.values()):
            session.channel.end()

    # -- requests ---------------------------------------------------------------------

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Callable[[web.Request], Any]) -> web.StreamResponse:
        if self._guard is not None and request.transport is not None:
            self._guard.asked.add(request.transport)
        peer = client_address(request)
        wait = self.penalties.debt(peer)
        if wait > 0:  # (an address refused again and again: its requests wait, unread, costing nothing)
            await asyncio.sleep(min(wait, PENALTY_MAX))
        try:
            response = await handler(request)
        except web.HTTPException as e:  # (a 404, a 403: with the headers too)
            for name, value in HEADERS.items():
                e.headers.setdefault(name, value)
            if e.status >= 400:
                self.penalties.charge(peer)
            raise
        for name, value in HEADERS.items():
            response.headers.setdefault(name, value)
        if response.status >= 400:
            self.penalties.charge(peer)
        return response

    def _send(self, request: web.Request, file: Asset, cache: str = "no-cache", vary: str = "") -> web.StreamResponse:
        headers = {"Content-Type": file.content_type, "ETag": file.etag, "Cache-Control": cache}
        if vary:
            headers["Vary"] = vary
        if request.headers.get("If-None-Match") == file.etag:
            return web.Response(status=304, headers={k: v for k, v in headers.items() if k != "Content-Type"})
        body = file.body
        if file.gzipped is not None:
            headers["Vary"] = ", ".join(v for v in (vary, "Accept-Encoding") if v)
            if "gzip" in request.headers.get("Accept-Encoding", ""):
                body = file.gzipped
                headers["Content-Encoding"] = "gzip"
        return web.Response(body=body, headers=headers)

    async def _index(self, request: web.Request) -> web.StreamResponse:
        """The page, in the language the browser asks for first (``Accept-Language``, as its
        ``navigator.language``): its words are in the page before any session begins."""
        assert self._page is not None
        page = self._pages.get(page_language(request.headers.get("Accept-Language", "")), self._page)
        return self._send(request, page, vary="Accept-Language")

    async def _file(self, request: web.Request) -> web.StreamResponse:
        file = self._static.get(request.match_info["name"])
        if file is None:
            raise web.HTTPNotFound(text="not found\n")
        cache = "public, max-age=31536000, immutable" if request.query.get("v") else "no-cache"
        return self._send(request, file, cache)

    async def _icon(self, request: web.Request) -> web.StreamResponse:
        return self._send(request, self._static["icon.svg"])

    async def _link(self, request: web.Request) -> web.StreamResponse:
        """The link form: a code from ``ssh HOST link`` makes this browser that key's."""
        if not origin_ok(request):
            raise web.HTTPForbidden(text="wrong origin\n")
        peer = client_address(request)
        if not self.link_budget.take(peer):
            log.info("refusing a link try from %s: over the budget of tries", peer)
            return web.json_response({"error": "slow"}, status=429, headers={"Retry-After": "30"})
        try:
            got = json.loads(await request.read())
            code = got["code"] if isinstance(got, dict) else None
        except (ValueError, KeyError):
            code = None
        if not isinstance(code, str) or len(code) > 40:
            return web.json_response({"error": "wrong"}, status=400)
        label = browser_label(request.headers.get("User-Agent", "")[:500])
        try:
            linked = await self.sessions.services.redeem_link(code, label)
        except Exception:
            log.exception("could not redeem a link code")
            return web.json_response({"error": "failed"}, status=503)
        if linked is None:
            return web.json_response({"error": "wrong"}, status=403)
        token, _key = linked
        response = web.json_response({"ok": True})
        response.set_cookie(COOKIE, token, max_age=COOKIE_AGE, path="/", httponly=True, samesite="Strict",
                            secure=is_https(request))
        return response

    async def _identity(self, request: web.Request) -> Identity:
        token = request.cookies.get(COOKIE, "")
        if token and re.fullmatch(r"[A-Za-z0-9_-]{20,100}", token):
            try:
                key = await self.sessions.services.browser_key(token)
            except Exception:
                log.warning("could not look a browser's token up; a guest meanwhile", exc_info=True)
                key = None
            if key:
                return Identity.of_key(key, via="token")
        return Identity.guest()

    def _offence(self, peer: str, why: str) -> None:
        """A socket from ``peer`` was closed for abuse: the address pays :data:`PENALTY_OFFENCE`."""
        log.info("a web socket from %s %s: a penalty for its address", peer, why)
        self.penalties.charge(peer, PENALTY_OFFENCE)

    async def _hello(self, ws: web.WebSocketResponse, peer: str) -> dict[str, Any] | None:
        deadline = time.monotonic() + self.limits.hello_within
        try:
            while True:
                msg = await asyncio.wait_for(ws.receive(), max(0.0, deadline - time.monotonic()))
                if msg.type == web.WSMsgType.PING:
                    await ws.pong(msg.data)
                elif msg.type != web.WSMsgType.PONG:
                    break
        except TimeoutError:
            return None
        if msg.type == web.WSMsgType.ERROR and isinstance(msg.data, WebSocketError):  # (oversized, broken)
            self._offence(peer, f"broke the protocol before its hello ({msg.data})")
            return None
        if msg.type != web.WSMsgType.TEXT:
            return None
        try:
            hello = json.loads(msg.data)
        except ValueError:
            return None
        return hello if isinstance(hello, dict) and hello.get("type") == "hello" else None

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        """A browser tab's terminal: admitted, hello, identity, then a session (new, or the one
        its tab comes back to) until the socket goes."""
        if not origin_ok(request):
            log.info("refusing a web socket from %s: wrong Origin %r", client_address(request),
                     request.headers.get("Origin", "")[:100])
            raise web.HTTPForbidden(text="wrong origin\n")
        peer = client_address(request)
        ticket = self.sessions.admission.admit(peer)
        if ticket is None:
            return web.Response(status=503, text="busy: try again later\n", headers={"Retry-After": "10"})
        ws = web.WebSocketResponse(max_msg_size=self.limits.max_message, heartbeat=self.limits.heartbeat,
                                   compress=False, autoping=False)  # (pongs: the channel's, WebChannel.ping)
        handed = False
        try:
            if not ws.can_prepare(request).ok:
                raise web.HTTPBadRequest(text="a WebSocket is expected here\n")
            await ws.prepare(request)
            hello = await self._hello(ws, peer)
            if hello is None:
                await ws.close(code=1008, message=b"hello expected")
                return ws
            ticket.authenticated()
            identity = await self._identity(request)
            size = size_of(hello)
            resume = hello.get("resume")
            session = self.web_sessions.get(resume) if isinstance(resume, str) else None
            fresh = session is None or session.channel.ended or session.identity.key != identity.key
            if fresh and not await self._start_turn(peer, request):
                log.info("refusing a web session from %s: over the budget of new sessions", peer)
                await ws.close(code=1013, message=b"try again later")
                return ws
            if fresh:
                session = self._open(identity, hello, size, peer)
            assert session is not None
            await ws.send_str(json.dumps({"type": "session", "resume": session.token, "linked": not identity.is_guest}))
            gone = session.attach(ws, request, size, ticket, fresh=fresh)
            handed = True
            if fresh:
                session.task = asyncio.get_running_loop().create_task(self._run(session, hello, peer))
            await gone.wait()
            code, why = session.close_reasons.pop(ws, (1000, ""))
            if not ws.closed:
                await ws.close(code=code, message=why.encode())
            return ws
        finally:
            if not handed:
                ticket.release()

    async def _start_turn(self, peer: str, request: web.Request) -> bool:
        """Wait until ``peer`` may start a new session (its budget's token due), at most the hello's
        own grace; False if not by then (or the socket went meanwhile).  Waiting costs the loop
        nothing, and the socket is not read meanwhile: an address that opens sockets in a loop (each
        refusal a handshake, a hello and a close) is held to its budget's pace instead of spinning."""
        deadline = time.monotonic() + self.limits.hello_within
        starts = self.sessions.starts  # (SSH's too: one budget of new sessions)
        while not starts.take(peer):
            wait = starts.due(peer)
            transport = request.transport
            if transport is None or transport.is_closing() or time.monotonic() + wait > deadline:
                return False
            await asyncio.sleep(max(wait, 0.01))
        return True

    @property
    def resize_budget(self) -> ResizeBudget:
        """The cells the web sessions may redraw, per address and overall (:class:`ResizeBudget`; made
        again when ``limits`` are replaced)."""
        if self._resizes is None or self._resizes.limits is not self.limits:
            self._resizes = ResizeBudget(self.limits)
        return self._resizes

    def _open(self, identity: Identity, hello: dict[str, Any], size: tuple[int, int], peer: str) -> WebSession:
        session = WebSession(self, identity, WebChannel(size, self.limits, self.resize_budget, peer))
        self.web_sessions[session.token] = session
        return session

    async def _run(self, session: WebSession, hello: dict[str, Any], peer: str) -> None:
        env = hello.get("env")
        code = 1
        try:
            code = await self.sessions.play(session.channel, session.identity, env if isinstance(env, dict) else {},
                                            peer=peer, charged=True, transport="web")  # (its turn taken: _start_turn)
        except Exception:
            log.exception("a web session failed")
        finally:
            try:
                await session.channel.finish(code)
            finally:
                session.closed()
