"""The host process of a split server: the one lobby, its matches and store, served to edges.

``voltage serve --redis URL`` starts one of these and N edges (:mod:`server.edge`).
The host runs the same :class:`~server.lobby.core.Lobby` and, per edge session, the
same :class:`~server.backend.SSHBackend` as the one-process server: an edge's lobby
call is a request naming its session (:mod:`server.bus.rpc`) and becomes the same
method call here, so identity, names, rooms, quick match, bots, watching and
rematch behave exactly as in one process.  Decisions:

- **Only per-seat views leave the host.**  A seat handle never crosses the bus: a
  reply carries a descriptor (match code, seat, the seat's view, log, notice,
  names, version: :meth:`HostSession.export`) and the host keeps the real handle
  for the session.  One :class:`Publisher` per ``(match, seat)`` (spectators: seat
  ``-1``, the spectator view) subscribes to the match and publishes each of its
  :class:`~tui.ports.Update`\\ s on that seat's channel with the match's version;
  a ``FullRequest`` (an edge saw a gap, or has just subscribed) is answered with a
  full update.  Every publish goes through one queue and one sender task, so the
  updates of a seat leave in the order the match made them.
- **Intents** come from the bus's stream (:meth:`server.bus.Bus.intents`); each is
  applied through the session's real handle, its result (accepted, or the rule's
  refusal: its code and params) goes to the edge's inbox, and it is acked once applied (the
  store has committed an accepted action before ``submit`` returns).
- **The lobby snapshot** is published on every lobby change through the bus's
  coalescer (at most one a second; the lobby itself already batches its changes).
- **Presence**: an edge that stops heartbeating (kill -9, a lost machine) has its
  sessions closed here as if each had hung up: their seats enter the usual grace
  (60 s), and the player gets the seat back by connecting through any edge.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from engine.errors import RuleError
from server import games
from server.backend import SSHBackend
from server.bus import Bus, FullRequest, Intent
from server.bus.rpc import HostCalls, PresenceBeat
from server.cluster.codec import decode, encode
from server.lobby.core import Lobby
from server.lobby.models import Challenge, MatchInfo, PlayerInfo
from tui.ports import Refused, Update

log = logging.getLogger(__name__)

SPECTATOR = -1  # the update channel of a match's spectators
EDGE_TTL = 3.0  # an edge not heard of for this long is gone
HOST_PRESENCE = "host-"  # + the host's epoch: its presence key, beside the edges' ones


@functools.lru_cache(maxsize=4096)
def _encoded_entry(entry: PlayerInfo | MatchInfo) -> Any:
    return encode(entry)


def _lobby_entry(value: Any) -> Any:
    """The codec's hook for a lobby snapshot: a player's or a match's line encoded once
    while it stays the same (a snapshot of 200 players and 100 matches was made whole,
    every second, and most lines had not changed)."""
    return _encoded_entry(value) if type(value) in (PlayerInfo, MatchInfo) else None


def seat_key(handle: Any) -> int:
    return SPECTATOR if handle.seat is None else int(handle.seat)


def describe(handle: Any) -> dict[str, Any]:
    """What an edge needs to draw a seat at once: its present, never the match's state."""
    return {
        "$h": 1,
        "m": handle.match.code,
        "s": seat_key(handle),
        "game": handle.game,
        "seat": handle.seat,
        "names": list(handle.names),
        "log": encode(list(handle.log)),
        "notice": encode(handle.notice),
        "countdown": getattr(handle, "countdown", None),
        "version": handle.version,
        "view": encode(handle.view()),
        "against_human": bool(getattr(handle, "against_human", False)),
        "extras": encode(present_extras(handle)),
    }


#: What a game's handle has beside the common seat (a clock, an offer, idle marks): read
#: from the handle for a full update, so an edge's screen starts with all of it.
PRESENT_EXTRAS = ("clock", "abort_from", "draw_offer", "idle", "bot_playing")

#: The handle methods an edge may call by name (beside submit and resign), and so the
#: only ones: a draw offer and its answer (Voltage), the idle vote and taking a seat back
#: (High Voltage).
HANDLE_CALLS = frozenset({"offer_draw", "answer_draw", "continue_without", "take_seat_back"})


def present_extras(handle: Any) -> dict[str, Any]:
    """The game's extras ``handle`` has now, by name (see :data:`PRESENT_EXTRAS`)."""
    return {name: getattr(handle, name) for name in PRESENT_EXTRAS if hasattr(handle, name)}


class Publisher:
    """The one subscription of the host to a ``(match, seat)``, sent on the bus.

    Each :class:`~tui.ports.Update` goes as it is (``{"u": ...}``: the codec carries every
    field it has, so a field added to it, a clock, an offer, crosses without a change
    here); a full one is the latest update with the seat's present view, notice and
    names and its whole log of entries (``"log"``)."""

    def __init__(self, service: HostService, handle: Any) -> None:
        self.service = service
        self.handle = handle
        self.match = handle.match.code
        self.seat = seat_key(handle)
        self.users = 0
        self.last: Any = None
        self._unsubscribe = handle.subscribe(self._updated)

    def _updated(self, update: Any) -> None:
        self.last = update
        self.service.send(self.match, self.seat, update.version, {"u": encode(update)}, False)

    def full(self) -> None:
        h = self.handle
        base = self.last if self.last is not None else Update(h.view())
        extras = present_extras(h)
        present = dataclasses.replace(base, view=h.view(), entries=(), notice=h.notice, version=h.version,
                                      names=tuple(h.names), countdown=getattr(h, "countdown", None), **extras)
        self.service.send(self.match, self.seat, h.version, {"u": encode(present), "log": encode(list(h.log))}, True)

    def close(self) -> None:
        self._unsubscribe()


@dataclass(eq=False)
class HostSession:
    """One edge session's player: its backend here, and the real handles it was given."""

    id: str
    edge: str
    backend: SSHBackend
    service: HostService
    handles: dict[tuple[str, int], Any] = field(default_factory=dict)
    challenges: dict[str, Challenge] = field(default_factory=dict)
    closed: bool = False

    def export(self, value: Any) -> Any:
        """The codec hook: a seat handle (or a challenge) becomes its descriptor (and is kept here)."""
        if isinstance(value, Challenge):
            cid = str(id(value))
            self.challenges[cid] = value
            return {"$c": cid, "game": value.game, "challenger": value.challenger.name,
                    "target": value.target.name, "left": max(0.0, value.expires_at - time.monotonic())}
        if not (hasattr(value, "match") and hasattr(value, "subscribe") and hasattr(value, "submit")):
            return None
        key = (value.match.code, seat_key(value))
        if key not in self.handles:
            self.handles[key] = value
            self.service.use(value)
        return describe(value)

    def handle_of(self, data: dict[str, Any]) -> Any:
        """The codec hook on decode: a descriptor from the edge is this session's handle."""
        if "$c" in data:
            ch = self.challenges.get(str(data["$c"]))
            if ch is None:
                raise Refused("challenge_over")
            return ch
        handle = self.handles.get((data["m"], int(data["s"])))
        if handle is None:
            raise Refused("match_not_yours")
        return handle

    def state(self) -> dict[str, Any]:
        b = self.backend
        return {"name": b.name, "named": b.named, "superseded": b.superseded, "stored_name": b.stored_name}

    def let_go(self) -> None:
        """The session no longer shows these matches: stop publishing them for it."""
        for key in list(self.handles):
            self.service.release(key)
        self.handles.clear()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            self.backend.close()
        finally:
            self.service.lobby.leave(self.backend.player)
            self.let_go()


#: The lobby calls an edge may make, by name: synchronous ones (the screen waits for
#: the answer) and awaited ones (a quick match waits for an opponent).
SYNC_CALLS = frozenset({
    "claim_name", "resumable", "resume", "enter_lobby", "play_bot", "start_room", "close_room",
    "seated", "room_game", "join_room", "watch", "rating_change", "ratings", "history",
    "leaderboard_games", "leaderboard", "hv_starts_in", "refuses_challenges", "set_challenges",
    "challenge", "answer_challenge", "withdraw_challenge", "settings", "save_setting", "start_colours",
    "colours_forced",
})
ASYNC_CALLS = frozenset({"quick_match", "join", "rematch", "challenge_answer"})


class HostService:
    """Serves one :class:`Lobby` to every edge over ``bus`` (updates, intents) and ``calls``."""

    def __init__(self, lobby: Lobby, bus: Bus, calls: HostCalls, *, edge_ttl: float = EDGE_TTL) -> None:
        self.lobby = lobby
        self.bus = bus
        self.calls = calls
        self.edge_ttl = edge_ttl
        self.sessions: dict[str, HostSession] = {}
        self.publishers: dict[tuple[str, int], Publisher] = {}
        self._outbox: asyncio.Queue[tuple[str, int, int, dict[str, Any], bool]] = asyncio.Queue()
        self._tasks: list[asyncio.Task[Any]] = []
        self._edges_seen: dict[str, float] = {}
        self.applied = 0  # intents applied (accepted or refused)
        # This host's run: in every lobby snapshot, so an edge sees a restarted host
        # and opens its sessions again (:meth:`_reopen`).
        self.epoch = uuid.uuid4().hex

    # -- lifetime -----------------------------------------------------------------
    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.lobby.subscribe(self._lobby_changed)
        self._tasks = [
            loop.create_task(self._send_updates(), name="host-updates"),
            loop.create_task(self._serve_intents(), name="host-intents"),
            loop.create_task(self._serve_requests(), name="host-requests"),
            loop.create_task(self._watch_edges(), name="host-presence"),
            loop.create_task(self._beat(), name="host-heartbeat"),
        ]
        self._lobby_changed()

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass
        for p in self.publishers.values():
            p.close()

    # -- updates ------------------------------------------------------------------
    def send(self, match: str, seat: int, version: int, payload: dict[str, Any], full: bool) -> None:
        self._outbox.put_nowait((match, seat, version, payload, full))

    async def _send_updates(self) -> None:
        # what queued meanwhile goes together: an action's views of every seat, at once
        while True:
            batch = [await self._outbox.get()]
            while len(batch) < 64 and not self._outbox.empty():
                batch.append(self._outbox.get_nowait())
            try:
                await self.bus.publish_updates(batch)
            except Exception:
                log.exception("could not publish %d updates (the first of %s/%s)", len(batch), *batch[0][:2])

    def use(self, handle: Any) -> None:
        key = (handle.match.code, seat_key(handle))
        p = self.publishers.get(key)
        if p is None:
            p = self.publishers[key] = Publisher(self, handle)
        p.users += 1

    def release(self, key: tuple[str, int]) -> None:
        p = self.publishers.get(key)
        if p is None:
            return
        p.users -= 1
        if p.users <= 0:
            p.close()
            del self.publishers[key]

    def _lobby_changed(self) -> None:
        def snapshot() -> dict[str, Any]:  # made when it goes out: at most once a second
            return {"snapshot": encode(self.lobby.snapshot(), _lobby_entry), "epoch": self.epoch}

        asyncio.get_running_loop().create_task(self.bus.publish_lobby(snapshot))

    # -- intents ------------------------------------------------------------------
    async def _serve_intents(self) -> None:
        async for item in self.bus.intents():
            if isinstance(item, FullRequest):
                p = self.publishers.get((item.match, item.seat))
                if p is not None:
                    p.full()
                await self.bus.ack(item)
                continue
            asyncio.get_running_loop().create_task(self._apply(item))

    async def _apply(self, intent: Intent) -> None:
        payload = intent.payload
        session = self.sessions.get(intent.session)
        handle = session.handles.get((intent.match, intent.seat)) if session is not None else None
        result: dict[str, Any]
        try:
            if handle is None:
                raise RuleError("seat_not_yours")
            if payload.get("k") == "resign":
                await handle.resign()
            elif payload.get("k") == "call":
                name = str(payload.get("name", ""))
                if name not in HANDLE_CALLS or not hasattr(handle, name):
                    raise RuleError("not_in_this_match")
                await getattr(handle, name)(*decode(payload.get("args") or []))
            else:
                await handle.submit(decode(payload["a"]))
            result = {"ok": True}
        except RuleError as error:
            result = {"rule": error.code, "p": encode(error.params),
                      "cls": f"{type(error).__module__}:{type(error).__qualname__}"}
        except Exception as error:
            log.exception("intent %s/%s of %s failed", intent.match, intent.seat, intent.session)
            result = {"rule": "failed", "p": encode({"detail": str(error)}), "cls": "engine.errors:RuleError"}
        self.applied += 1
        edge = payload.get("e") or (session.edge if session is not None else "")
        if edge:  # the reply and the ack (and the action's updates) go out together
            await asyncio.gather(self.calls.push(edge, {"id": payload.get("id", ""), **result}), self.bus.ack(intent))
        else:
            await self.bus.ack(intent)

    # -- requests -----------------------------------------------------------------
    async def _serve_requests(self) -> None:
        async for request in self.calls.requests():
            try:
                await self._dispatch(request)
            except Exception:
                log.exception("request %s failed", request.get("op"))
                await self.calls.reply(request, {"error": "failed"})

    async def _dispatch(self, request: dict[str, Any]) -> None:
        op, args = request["op"], request.get("args") or {}
        self._edges_seen[request["edge"]] = time.monotonic()
        if op == "open":
            await self.calls.reply(request, self._open(request, args))
            return
        if op == "reopen":
            await self.calls.reply(request, self._reopen(request, args))
            return
        if op == "who":
            await self.calls.reply(request, {"ok": self.lobby.who_text()})
            return
        if op == "replay_record":  # ``ssh HOST replay ID`` on an edge (no lobby session)
            try:
                record = self._replay_record(args.get("identity"), args)
            except ValueError as error:
                await self.calls.reply(request, refusal(error))
                return
            await self.calls.reply(request, {"ok": encode(record)})
            return
        if op == "command":
            await self.calls.reply(request, {"ok": kept_command(self.lobby.store, args["words"], args["ssh"])})
            return
        session = self.sessions.get(request["session"])
        if session is None:
            await self.calls.reply(request, {"refused": "session_ended"})
            return
        if op == "close":
            session.close()
            self.sessions.pop(session.id, None)
            await self.calls.reply(request, {"ok": None})
            return
        if op == "create_room":
            await self.calls.reply(request, self._run(session, lambda: self._create_room(session, args)))
            return
        if op == "replay":
            identity = session.backend.identity
            await self.calls.reply(request, self._run(session, lambda: self._replay_record(identity, args)))
            return
        if op == "enter_lobby":  # the session's screens let go of its seats and watched matches
            reply = self._run(session, session.backend.enter_lobby)
            session.let_go()
            await self.calls.reply(request, reply)
            return
        if op in SYNC_CALLS:
            method = getattr(session.backend, op, None)
            if method is None:  # (an extra this server's backend lacks: as the screens' getattr)
                await self.calls.reply(request, {"ok": None, "st": session.state()})
                return
            a = decode(args.get("a", []), session.handle_of)
            await self.calls.reply(request, self._run(session, lambda: method(*a)))
            return
        if op in ASYNC_CALLS:
            asyncio.get_running_loop().create_task(self._run_async(request, session, op, args))
            return
        await self.calls.reply(request, {"error": f"unknown call {op!r}"})

    def _open(self, request: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
        player = self.lobby.connect(args.get("identity"), args.get("username") or "")
        initial = tuple(args["initial"]) if args.get("initial") else None
        backend = SSHBackend(self.lobby, player, initial=initial, env=args.get("env") or {})
        session = HostSession(request["session"], request["edge"], backend, self)
        self.sessions[session.id] = session

        def listened(event: str, handles: Any) -> None:
            data = encode(handles, session.export)
            asyncio.get_running_loop().create_task(
                self.calls.push(session.edge,
                                {"push": "listen", "session": session.id, "event": event, "handles": data})
            )

        backend.listen(listened)
        return {"ok": {"prefill": backend.name_prefill, "initial": list(initial) if initial else None,
                       "guest": backend.guest, "grace": backend.grace_seconds,
                       "bot_offer_after": backend.bot_offer_after, "identity": backend.identity},
                "st": session.state()}

    def _reopen(self, request: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
        """A session an edge kept through a restart of the host: the same id, its name
        claimed again, its seats given back (the restored matches wait for their
        identities) and the matches it watched watched again."""
        old = self.sessions.pop(request["session"], None)
        if old is not None:
            old.close()
        reply = self._open(request, args)
        session = self.sessions[request["session"]]
        b = session.backend
        if args.get("name"):
            try:
                b.claim_name(args["name"])
            except ValueError:
                pass
        handles: list[Any] = []
        try:
            handles = list(b.resume() or [])
        except ValueError:
            pass
        for match, seat in args.get("seats") or []:
            if seat == SPECTATOR:
                try:
                    handles += b.watch(match)
                except ValueError:
                    pass
        reply["ok"]["handles"] = encode(handles, session.export)
        reply["st"] = session.state()
        return reply

    def _create_room(self, session: HostSession, args: dict[str, Any]) -> dict[str, Any]:
        more = decode(args.get("more") or [])  # what else the screen gave (a time control)
        room = session.backend.create_room(args.get("game", games.HOME), int(args.get("size", 4)), *more)

        def filled(future: asyncio.Future[Any]) -> None:
            message: dict[str, Any] = {"push": "room", "session": session.id, "code": room.code}
            if future.cancelled():
                message["refused"] = "room_closed"
            elif (error := future.exception()) is not None:
                message.update(refusal(error))
            else:
                message["handles"] = encode(future.result(), session.export)
            asyncio.get_running_loop().create_task(self.calls.push(session.edge, message))

        room.future.add_done_callback(filled)
        return {"code": room.code, "game": room.game, "size": getattr(room, "size", 2)}

    def _replay_record(self, identity: str | None, args: dict[str, Any]) -> Any:
        """A finished match's record, for the edge to step through (a running one is refused:
        its hands are not public; :meth:`Replay.load` says why not: its code)."""
        from server.replay import Replay, ReplayError

        store = self.lobby.store
        match_id = int(args["id"])
        if store is None:
            raise ReplayError("no_store")
        Replay.load(store, match_id, identity)  # (a ReplayError says why not)
        return store.match_record(match_id)

    def _run(self, session: HostSession, call: Callable[[], Any]) -> dict[str, Any]:
        try:
            value = call()
        except ValueError as error:  # Refused, the lobby's errors, an older ValueError
            return {**refusal(error), "st": session.state()}
        return {"ok": encode(value, session.export), "st": session.state()}

    async def _run_async(self, request: dict[str, Any], session: HostSession, op: str, args: dict[str, Any]) -> None:
        try:
            a = decode(args.get("a", []), session.handle_of)
            call: Awaitable[Any] = getattr(session.backend, op)(*a)
            value = await call
            reply = {"ok": encode(value, session.export), "st": session.state()}
        except ValueError as error:
            reply = {**refusal(error), "st": session.state()}
        except asyncio.CancelledError:
            reply = {"refused": "cancelled"}
        except Exception:
            log.exception("call %s failed", op)
            reply = {"error": "failed"}
        await self.calls.reply(request, reply)

    # -- presence -----------------------------------------------------------------
    async def _beat(self) -> None:
        """The host's own presence, under the edges' prefix and named by its epoch: an edge
        sees it gone, back, or replaced by a restarted host (a new epoch).  On Redis it
        beats from a thread (:class:`~server.bus.rpc.PresenceBeat`: a busy loop is not a
        dead host)."""
        url = getattr(self.bus, "url", None)
        if url is not None:
            beat = PresenceBeat(url, HOST_PRESENCE + self.epoch, self.edge_ttl,
                                namespace=getattr(self.bus, "ns", "voltage")).start()
            try:
                await asyncio.Event().wait()  # until cancelled
            finally:
                await asyncio.get_running_loop().run_in_executor(None, beat.stop)
        while True:
            try:
                await self.bus.heartbeat(HOST_PRESENCE + self.epoch, self.edge_ttl)
            except Exception:
                log.exception("host heartbeat failed")
            await asyncio.sleep(self.edge_ttl / 3)

    async def _watch_edges(self) -> None:
        while True:
            await asyncio.sleep(self.edge_ttl / 3)
            try:
                alive = await self.bus.alive_edges()
            except Exception:
                continue
            now = time.monotonic()
            for session in list(self.sessions.values()):
                if session.edge in alive or now - self._edges_seen.get(session.edge, now) < self.edge_ttl:
                    continue
                log.warning("edge %s is gone: session %s's seats wait for their players", session.edge, session.id)
                session.close()
                self.sessions.pop(session.id, None)


def refusal(error: BaseException) -> dict[str, Any]:
    """A refusal as a reply carries it: its code (``refused``) and params (``p``); a plain
    ``ValueError`` (no code) as code ``refused`` with its text as ``detail``."""
    code = getattr(error, "code", None)
    if not isinstance(code, str):
        return {"refused": "refused", "p": {"detail": str(error)}}
    params = getattr(error, "params", None) or {}
    return {"refused": code, "p": encode(params)} if params else {"refused": code}


def kept_command(store: Any, words: list[str], ssh: str) -> dict[str, Any]:
    """``leaderboard`` and ``export MATCH_ID`` for an edge: exit code, stdout, stderr (the
    answers of :mod:`server.session.services`, as one process gives them)."""
    from server.session.services import LINK_CALLS, export_answer, leaderboard_answer, links_answer

    if words[0] in LINK_CALLS:  # the browsers linked to a key (an edge's link, unlink, web logins)
        answer = links_answer(store, words)
    else:
        answer = leaderboard_answer(store) if words[0] == "leaderboard" else export_answer(store, words[1])
    return {"code": answer.code, "out": answer.out, "err": answer.err}


async def run_host(url: str, store: Any, *, namespace: str = "voltage", grace: float = 60.0,
                   ready: Callable[[HostService], None] | None = None, stop: asyncio.Event | None = None) -> None:
    """The host process's main: connect, restore the store's matches, serve until ``stop``."""
    import multiprocessing
    import os
    from concurrent.futures import ProcessPoolExecutor

    from server.bus.redis import RedisBus

    bus = await RedisBus.connect(url, namespace=namespace, consumer="host")
    calls = HostCalls(url, namespace=namespace, bus=bus)
    try:
        await calls.start()
    except Exception:
        await bus.close()
        raise
    executor = ProcessPoolExecutor(max_workers=max(1, (os.cpu_count() or 2) - 1),
                                   mp_context=multiprocessing.get_context("forkserver"))
    lobby = Lobby(executor, grace=grace, store=store)
    service = HostService(lobby, bus, calls)
    stop = stop or asyncio.Event()
    try:
        if store is not None:
            lobby.restore()
        await service.start()
        if ready is not None:
            ready(service)
        await stop.wait()
    finally:
        await service.close()
        for h in list(lobby.matches.values()):
            h.match.close()
        await calls.close()
        await bus.close()
        executor.shutdown(wait=False, cancel_futures=True)
