"""The host process of a split server: the one lobby, its matches and store, served to edges.

``voltage serve --redis URL`` starts one of these and N edges (:mod:`server.edge`).
The host runs the same :class:`~server.lobby.core.Lobby` and, per edge session, the
same :class:`~server.backend.SSHBackend` as the one-process server: an edge's lobby
call is a request naming its session (:mod:`server.bus.rpc`) and becomes the same
method call here, so identity, names, rooms, quick match, bots, watching and
rematch behave exactly as in one process.  Every message is declared
(:mod:`server.wire.messages`: a call by its tag, its typed arguments and result).  Decisions:

- **Only per-seat views leave the host.**  A seat handle never crosses the bus: a
  reply carries a :class:`~server.wire.messages.SeatDescriptor` (match code, seat, the
  seat's view, log, notice, names, version, extras) and the host keeps the real handle
  for the session.  One :class:`Publisher` per ``(match, seat)`` (spectators: seat
  ``-1``, the spectator view) subscribes to the match and publishes each of its
  :class:`~tui.ports.Update`\\ s on that seat's channel with the match's version;
  a ``FullRequest`` (an edge saw a gap, or has just subscribed) is answered with a
  full update.  Every publish goes through one queue and one sender task, so the
  updates of a seat leave in the order the match made them.
- **A session's calls** are the methods of its backend here, each run in a task of its
  own in arrival order (a quick match waits for an opponent; a cancel behind it runs
  meanwhile); the answer carries the session's state after it.  A call an older or newer
  edge sends that cannot be read is answered at once with a failure and logged.
- **Intents** come from the bus's stream (:meth:`server.bus.Bus.intents`); each is
  applied through the session's real handle (a game's seat call only if its registry
  entry declares it), its result (accepted, a call's answer by its declared result: a
  hint, or the rule's error by its declared class) goes to the edge's inbox, and it is
  acked once applied (the store has committed an accepted action before ``submit`` returns).
  An intent is applied once by its id: the id is stored with the action it makes, so a
  host killed after storing a move and before answering it answers the pending intent, and
  the edge's retry, with "accepted" once restarted; an intent of a session the restarted
  host does not know yet waits for its edge to open it again (a while), rather than be refused.
- **The coach** runs here only: an edge's ``edge.kept_analysis`` / ``edge.analyse`` calls
  are answered through the process's coach (:mod:`server.coach`, its rules as in one
  process), each in its own task, the progress pushed to the edge that asked.
- **The lobby** is published on every lobby change through the bus's coalescer (at
  most one a second; the lobby itself already batches its changes), as the delta since
  the last message (:class:`~server.wire.messages.LobbyChanges`), with the whole
  snapshot every :data:`SNAPSHOT_EVERY`-th message and once the lobby has been quiet for
  :data:`SETTLE_SECONDS` (so an edge that missed a delta, or starts, catches up soon, and
  the last message kept for a new edge is a whole one).
- **Holds**: a match a player of which is on an edge this host cannot see (Redis away:
  every edge) holds its clocks, as a store that cannot write pauses them, and says so;
  it runs again once every seated player's edge beats again.  An edge gone for good (next
  point) is a drop: its seats enter the grace, and the hold ends.
- **Presence**: an edge that stops heartbeating (kill -9, a lost machine) has its
  sessions closed here as if each had hung up: their seats enter the usual grace
  (60 s), and the player gets the seat back by connecting through any edge.  A missing
  mark counts only once Redis has kept the marks for a ttl (after a restart of Redis,
  empty, every edge had to beat again first).
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import logging
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.errors import RuleError
from server import games
from server.backend import SSHBackend
from server.bus import Bus, BusUnavailable, FullRequest, Intent, SeatMessage
from server.bus import Update as BusUpdate
from server.bus.frames import RequestFrame
from server.bus.rpc import HostCalls, PresenceBeat, stop_task
from server.host.common import REQUEST
from server.lobby.changes import merge
from server.lobby.core import Lobby
from server.lobby.models import Challenge, LobbyDelta
from server.wire import messages as M
from server.wire.codec import RAW, Call, CodecError, Invocation
from server.wire.table import WIRE
from tui import lobby_events as E
from tui.i18n import language
from tui.ports import Refused, Update

log = logging.getLogger(__name__)

SPECTATOR = -1  # the update channel of a match's spectators
EDGE_TTL = 3.0  # an edge not heard of for this long is gone
SESSION_WAIT = 30.0  # seconds an intent of a session not known (yet) waits for its edge to open it again
ANSWERS_KEPT = 10_000  # intents' answers kept for their retries (the stored actions' ids outlive them)
HOST_PRESENCE = "host-"  # + the host's epoch: its presence key, beside the edges' ones
SNAPSHOT_EVERY = 3  # the lobby's messages: every third a whole snapshot, the others deltas
SETTLE_SECONDS = 2.0  # a whole snapshot once the lobby has been this quiet after a delta


def seat_key(handle: Any) -> int:
    return SPECTATOR if handle.seat is None else int(handle.seat)


def describe(handle: Any) -> M.SeatDescriptor:
    """What an edge needs to draw a seat at once: its present, never the match's state."""
    return M.SeatDescriptor(handle.match.code, seat_key(handle), handle.game, handle.seat, tuple(handle.names),
                            tuple(handle.log), handle.notice, handle.countdown, handle.version, handle.view(),
                            dict(handle.extras))


def is_handle(value: Any) -> bool:
    return hasattr(value, "match") and hasattr(value, "subscribe") and hasattr(value, "submit")


class Publisher:
    """The one subscription of the host to a ``(match, seat)``, sent on the bus.

    Each :class:`~tui.ports.Update` goes as a :class:`~server.wire.messages.SeatUpdate`; a
    full one (:class:`~server.wire.messages.FullUpdate`) is the latest update with the
    seat's present view, notice, names and extras and its whole log."""

    def __init__(self, service: HostService, handle: Any) -> None:
        self.service = service
        self.handle = handle
        self.match = handle.match.code
        self.seat = seat_key(handle)
        self.users = 0
        self.last: Any = None
        # Both streams of the seat: a change of the notice alone comes as a message (no view).
        self._unsubscribe = handle.match.subscribe(handle.seat, self._updated, on_message=self._said)

    def _updated(self, update: Any) -> None:
        self.last = update
        self.service.send(self.match, self.seat, update.version, WIRE.encode(M.SeatUpdate(update)), False)

    def _said(self, message: Any) -> None:
        self.service.say(self.match, self.seat, WIRE.encode(message))

    def full(self) -> None:
        h = self.handle
        base = self.last if self.last is not None else Update(h.view())
        present = dataclasses.replace(base, view=h.view(), entries=(), notice=h.notice, version=h.version,
                                      names=tuple(h.names), countdown=h.countdown, extras=dict(h.extras))
        self.service.send(self.match, self.seat, h.version, WIRE.encode(M.FullUpdate(present, tuple(h.log))), True)

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
        """``value`` as it crosses: a seat handle becomes its descriptor (the handle kept
        here), a challenge its descriptor; what holds them, the same inside."""
        if isinstance(value, Challenge):
            cid = str(id(value))
            self.challenges[cid] = value
            return M.ChallengeDescriptor(cid, value.game, value.challenger.name, value.target.name,
                                         max(0.0, value.expires_at - time.monotonic()))
        if isinstance(value, list | tuple):
            return tuple(self.export(v) for v in value)
        if not is_handle(value):
            return value
        key = (value.match.code, seat_key(value))
        if key not in self.handles:
            self.handles[key] = value
            self.service.use(value)
        return describe(value)

    def resolve(self, value: Any) -> Any:
        """What the edge named back: its seat handles (a :class:`~server.wire.messages.SeatRef`
        each) and challenges, this session's own only."""
        if isinstance(value, M.ChallengeRef):
            ch = self.challenges.get(value.id)
            if ch is None:
                raise Refused("challenge_over")
            return ch
        if isinstance(value, M.SeatRef):
            handle = self.handles.get((value.match, value.key))
            if handle is None:
                raise Refused("match_not_yours")
            return handle
        if isinstance(value, tuple):
            return [self.resolve(v) for v in value]
        return value

    def state(self) -> M.SessionState:
        b = self.backend
        return M.SessionState(b.name, b.named, b.superseded, b.stored_name)

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


class HostService:
    """Serves one :class:`Lobby` to every edge over ``bus`` (updates, intents) and ``calls``."""

    def __init__(self, lobby: Lobby, bus: Bus, calls: HostCalls, *, edge_ttl: float = EDGE_TTL) -> None:
        self.lobby = lobby
        self.bus = bus
        self.calls = calls
        self.edge_ttl = edge_ttl
        self.sessions: dict[str, HostSession] = {}
        self.publishers: dict[tuple[str, int], Publisher] = {}
        self._outbox: asyncio.Queue[BusUpdate | SeatMessage] = asyncio.Queue()
        self._tasks: list[asyncio.Task[Any]] = []
        self._edges_seen: dict[str, float] = {}
        self.applied = 0  # intents applied (accepted or refused)
        self._answers: OrderedDict[str, Any] = OrderedDict()  # an intent's id -> its first answer (the latest)
        self._running: dict[str, asyncio.Future[Any]] = {}  # the intents being applied, by id
        self._back: dict[str, asyncio.Event] = {}  # sessions an intent waits for (see _session_back)
        # A test's fault hook: called with the point an intent has reached ("applied": stored,
        # not yet answered nor acked) and the intent; True stops it there, as a kill -9 would.
        self.fault: Callable[[str, Intent], bool] | None = None
        # This host's run: in every lobby snapshot, so an edge sees a restarted host
        # and opens its sessions again (:meth:`_reopen`).
        self.epoch = uuid.uuid4().hex
        self._lobby_sent: int | None = None  # the lobby version of the last message out
        self._lobby_messages = 0
        self._lobby_whole = True  # the next lobby message is a whole snapshot
        self._lobby_last_whole = False  # the last one out was
        self._settle: asyncio.TimerHandle | None = None

    # -- lifetime -----------------------------------------------------------------
    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.bus.on_state(self._bus_state)
        self.lobby.subscribe(self._lobby_changed)
        self.lobby.chat.listen(self._lobby_said)
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
        for task in self._tasks:  # (the requests' reader may be in a blocking read: see stop_task)
            await stop_task(task)
        for p in self.publishers.values():
            p.close()

    # -- updates ------------------------------------------------------------------
    def send(self, match: str, seat: int, version: int, payload: dict[str, Any], full: bool) -> None:
        self._outbox.put_nowait(BusUpdate(match, seat, version, payload, full))

    def say(self, match: str, seat: int, payload: dict[str, Any]) -> None:
        """A message on the seat's second stream, in its place among the updates."""
        self._outbox.put_nowait(SeatMessage(match, seat, payload))

    async def _send_updates(self) -> None:
        # what queued meanwhile goes together: an action's views of every seat, at once
        while True:
            batch = [await self._outbox.get()]
            while len(batch) < 64 and not self._outbox.empty():
                batch.append(self._outbox.get_nowait())
            try:
                await self.bus.publish(batch)
            except Exception:
                log.exception("could not publish %d updates (the first of %s/%s)", len(batch), batch[0].match,
                              batch[0].seat)

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

    def _lobby_said(self, line: Any) -> None:
        """A lobby chat line everyone may read: on the lobby's own stream, to every edge."""
        from server.chat.rooms import LOBBY_STREAM

        self.say(*LOBBY_STREAM, WIRE.encode(line))

    def _lobby_changed(self) -> None:
        loop = asyncio.get_running_loop()
        loop.create_task(self.bus.publish_lobby(self._lobby_message))
        if self._settle is not None:
            self._settle.cancel()
        self._settle = loop.call_later(SETTLE_SECONDS, self._lobby_settled)

    def _lobby_settled(self) -> None:
        """Quiet for a while: the whole snapshot once (unless that is what went out last)."""
        self._settle = None
        if not self._lobby_last_whole:
            self._lobby_whole = True
            asyncio.get_running_loop().create_task(self.bus.publish_lobby(self._lobby_message))

    def _lobby_message(self) -> dict[str, Any]:
        """The lobby's message, made when it goes out (at most once a second): the delta since
        the last one, or the whole snapshot (see the module's notes)."""
        snapshot = self.lobby.published()
        sent, self._lobby_sent = self._lobby_sent, snapshot.version
        self._lobby_messages += 1
        deltas = self.lobby.changes(sent) if sent is not None else None
        if deltas == [] and sent is not None:  # (nothing new: an empty delta still says the host's run)
            delta: LobbyDelta | None = LobbyDelta(sent, sent)
        else:
            delta = merge(deltas) if deltas else None
        whole = (self._lobby_whole or delta is None or self._lobby_messages % SNAPSHOT_EVERY == 0
                 or delta.size * 2 > len(snapshot.players) + len(snapshot.matches))
        self._lobby_whole, self._lobby_last_whole = False, whole
        message: M.LobbySnapshot | M.LobbyChanges
        if whole or delta is None:
            message = M.LobbySnapshot(snapshot, self.epoch)
        else:
            message = M.LobbyChanges(delta, self.epoch)
        data: dict[str, Any] = WIRE.encode(message)
        return data

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
        """Apply an intent once, however often it comes (its edge sends it again after a restart
        of this host, or of Redis): a retry of one applied is answered with the first answer,
        one stored before a restart with "accepted"; one of a session this host does not know
        yet waits for its edge to open it again (:meth:`_session_back`)."""
        session = self.sessions.get(intent.session)
        try:
            message = WIRE.decode(intent.payload)
        except CodecError as error:  # an older or newer edge's: refused, and said
            log.warning("intent %s/%s of %s cannot be read: %s", intent.match, intent.seat, intent.session, error)
            said, edge = intent.payload.get("id"), intent.payload.get("edge")
            if isinstance(said, str) and isinstance(edge, str):
                await self.calls.result(edge, said, WIRE.encode(M.Rejected(said, RuleError("not_understood"))))
            await self.bus.ack(intent)
            return
        rid = getattr(message, "id", None)
        if not isinstance(rid, str):  # not an intent (an older or newer edge's): nobody to answer
            log.warning("intent %s/%s of %s is a %s", intent.match, intent.seat, intent.session, type(message).__name__)
            await self.bus.ack(intent)
            return
        result: Any = self._answers.get(rid)
        if result is None and (running := self._running.get(rid)) is not None:
            result = await asyncio.shield(running)  # its other copy is being applied: the same answer
        if result is None:
            done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self._running[rid] = done
            try:
                if session is None:
                    session = await self._session_back(intent.session)
                result = await self._run_intent(session, intent, message)
                self._answers[rid] = result
                while len(self._answers) > ANSWERS_KEPT:
                    self._answers.popitem(last=False)
            finally:
                self._running.pop(rid, None)
                done.set_result(result) if result is not None else done.cancel()
            self.applied += 1
            if self.fault is not None and self.fault("applied", intent):
                return
        edge = getattr(message, "edge", "") or (session.edge if session is not None else "")
        try:  # the reply and the ack (and the action's updates) go out together
            if edge:
                await asyncio.gather(self.calls.result(edge, rid, WIRE.encode(result)), self.bus.ack(intent))
            else:
                await self.bus.ack(intent)
        except BusUnavailable:
            pass  # this host is stopping: the intent stays pending for the next one

    async def _run_intent(self, session: HostSession | None, intent: Intent, message: Any) -> Any:
        """The intent applied through the session's real handle: its answer (accepted, or the
        rule's refusal by its declared class)."""
        hosted = self.lobby.matches.get(intent.match)
        if hosted is not None and message.id in getattr(hosted.match, "requests", {}):
            return M.Accepted(message.id)  # stored before this host restarted: applied once
        handle = session.handles.get((intent.match, intent.seat)) if session is not None else None
        token = REQUEST.set(message.id)  # (stored with the action it makes: see MatchHost.requests)
        result: Any = None
        try:
            if handle is None:
                raise RuleError("seat_not_yours")
            if isinstance(message, M.Submit):
                await handle.submit(message.action)
            elif isinstance(message, M.Resign):
                await handle.resign()
            elif isinstance(message, M.SeatCall) and isinstance(message.call, Invocation):
                if message.call.call not in games.game(handle.game).calls:
                    raise RuleError("not_in_this_match")
                value = await getattr(handle, message.call.call.method)(**message.call.args)
                answers = message.call.call.result is not RAW  # (a call declared with a result: a hint)
                result = M.Answered(message.id, WIRE.encoder(message.call.call.result)(value)) if answers else None
            else:
                raise RuleError("not_understood")
            return result or M.Accepted(message.id)
        except RuleError as error:
            return M.Rejected(message.id, error)
        except Exception as error:
            log.exception("intent %s/%s of %s failed", intent.match, intent.seat, intent.session)
            return M.Rejected(message.id, RuleError("failed", detail=str(error)))
        finally:
            REQUEST.reset(token)

    async def _session_back(self, sid: str) -> HostSession | None:
        """The session ``sid``, once its edge has opened it here again (a restart of this host
        forgot it; the edge re-opens its sessions as soon as it sees the new run), waiting
        :data:`SESSION_WAIT` s at most: a move of it is held meanwhile, not refused."""
        back = self._back.setdefault(sid, asyncio.Event())
        try:
            await asyncio.wait_for(back.wait(), SESSION_WAIT)
        except TimeoutError:
            log.warning("session %s was not opened again within %g s: its intent is refused", sid, SESSION_WAIT)
        finally:
            if self._back.get(sid) is back and not back.is_set():
                del self._back[sid]
        return self.sessions.get(sid)

    def _session_ready(self, session: HostSession) -> None:
        """``session`` is open here with its seats: the intents that waited for it go on."""
        back = self._back.pop(session.id, None)
        if back is not None:
            back.set()

    # -- requests -----------------------------------------------------------------
    async def _serve_requests(self) -> None:
        async for request in self.calls.requests():
            self._edges_seen[request.edge] = time.monotonic()
            try:
                invocation = WIRE.decode(request.payload)
                if not isinstance(invocation, Invocation):
                    raise CodecError(f"a {type(invocation).__name__} where a call was expected")
            except CodecError as error:  # an older or newer edge's: it is told at once, and it is said
                log.warning("a request from edge %s cannot be read: %s", request.edge, error)
                await self.calls.reply(request, WIRE.encode(M.Failure(request.id)))
                continue
            try:
                await self._dispatch(request, invocation.call, dict(invocation.args))
            except Exception:
                log.exception("request %s failed", invocation.call.tag)
                await self.calls.reply(request, WIRE.encode(M.Failure(request.id)))

    async def _answer(self, request: RequestFrame, c: Call, value: Any, session: HostSession | None = None) -> None:
        state = session.state() if session is not None else None
        encoded = WIRE.encoder(c.result)(session.export(value) if session is not None else value)
        await self.calls.reply(request, WIRE.encode(M.Reply(request.id, encoded, state)))

    async def _refuse(self, request: RequestFrame, error: BaseException, session: HostSession | None = None) -> None:
        code, params = refusal(error)
        state = session.state() if session is not None else None
        await self.calls.reply(request, WIRE.encode(M.Refusal(request.id, code, params, state)))

    async def _dispatch(self, request: RequestFrame, c: Call, args: dict[str, Any]) -> None:
        if c is M.OPEN:
            opened = self._open(request, args)
            await self._answer(request, c, self._opened(opened), opened)
            self._session_ready(opened)
            return
        if c is M.REOPEN:
            reopened, seats = await self._reopen(request, args)
            await self._answer(request, c, M.Reopened(self._opened(reopened), reopened.export(seats)), reopened)
            self._session_ready(reopened)
            return
        if c is M.WHO:
            with language(args["language"]):
                text = self.lobby.who_text()
            await self._answer(request, c, text)
            return
        if c is M.KEPT_LANGUAGE:
            await self._answer(request, c, kept_language(self.lobby.store, args["key"]))
            return
        if c is M.REPLAY_RECORD:  # ``ssh HOST replay ID`` on an edge (no lobby session)
            try:
                record = self._replay_record(args["identity"], args["id"])
            except ValueError as error:
                await self._refuse(request, error)
                return
            await self._answer(request, c, record)
            return
        if c in M.COACH:  # a replay's analysis (an analysis made now takes a while: its own task)
            asyncio.get_running_loop().create_task(self._analysis(request, c, args))
            return
        if c is M.COMMAND:
            with language(args["language"]):
                answer = kept_command(self.lobby.store, list(args["words"]), args["ssh"])
            await self._answer(request, c, answer)
            return
        if c in M.LINKS:  # the browsers linked to a key (an edge's link, unlink, web logins)
            try:
                value = linked_browsers_call(self.lobby.store, c, args)
            except ValueError as error:
                await self._refuse(request, error)
                return
            await self._answer(request, c, value)
            return
        session = self.sessions.get(request.session)
        if session is None:
            await self._refuse(request, Refused("session_ended"))
            return
        if c is M.CLOSE:
            session.close()
            self.sessions.pop(session.id, None)
            await self._answer(request, c, None)
            return
        if c.method not in M.CALLS and c is not M.REPLAY:
            await self._refuse(request, Refused("not_understood"))
            return
        # A session's calls run in their order (each a task: one that waits, a quick match,
        # lets the next one run meanwhile, a cancel; one that does not is done at its start).
        asyncio.get_running_loop().create_task(self._run(request, session, c, args))

    async def _run(self, request: RequestFrame, session: HostSession, c: Call, args: dict[str, Any]) -> None:
        try:
            if c is M.REPLAY:
                value: Any = self._replay_record(session.backend.identity, args["id"])
            elif c.method == "create_room":
                value = await self._create_room(session, args)
            else:
                value = getattr(session.backend, c.method)(**{k: session.resolve(v) for k, v in args.items()})
                if inspect.isawaitable(value):
                    value = await value
                if c.method == "enter_lobby":  # the session's screens let go of its seats and watched matches
                    session.let_go()
        except ValueError as error:  # a Refused, the lobby's errors, an older ValueError
            await self._refuse(request, error, session)
            return
        except asyncio.CancelledError:
            await self._refuse(request, Refused("cancelled"), session)
            return
        except Exception:
            log.exception("call %s failed", c.tag)
            await self.calls.reply(request, WIRE.encode(M.Failure(request.id, session.state())))
            return
        await self._answer(request, c, value, session)

    def _opened(self, session: HostSession) -> M.Opened:
        b = session.backend
        return M.Opened(b.name_prefill, b.initial, b.guest, b.grace_seconds, b.bot_offer_after, b.identity,
                        session.state(), b.kept_settings())

    def _open(self, request: RequestFrame, args: dict[str, Any]) -> HostSession:
        player = self.lobby.connect(args["identity"], args["username"] or "")
        initial = tuple(args["initial"]) if args.get("initial") else None
        backend = SSHBackend(self.lobby, player, initial=initial, env=dict(args["env"]))
        session = HostSession(request.session, request.edge, backend, self)
        self.sessions[session.id] = session

        def listened(event: E.LobbyEvent) -> None:
            if isinstance(event, E.Followed):
                pushed: Any = M.Followed(session.export(event.handles))
            elif isinstance(event, E.Challenged):
                pushed = M.Challenged(session.export(event.challenge))
            elif isinstance(event, E.ChallengeOver):
                pushed = M.ChallengeOver(session.export(event.challenge))
            else:
                pushed = M.Superseded()
            asyncio.get_running_loop().create_task(
                self.calls.push(session.edge, WIRE.encode(M.Pushed(session.id, pushed))))

        backend.listen(listened)
        return session

    async def _reopen(self, request: RequestFrame, args: dict[str, Any]) -> tuple[HostSession, list[Any]]:
        """A session an edge kept through a restart of the host: the same id, its name
        claimed again, its seats given back (the restored matches wait for their
        identities) and the matches it watched watched again."""
        old = self.sessions.pop(request.session, None)
        if old is not None:
            old.close()
        session = self._open(request, {**args, "initial": None})
        b = session.backend
        if args["name"]:
            try:
                await b.claim_name(args["name"])
            except ValueError:
                pass
        handles: list[Any] = []
        try:
            handles = list(await b.resume() or [])
        except ValueError:
            pass
        for ref in args["seats"]:
            if ref.key == SPECTATOR:
                try:
                    handles += await b.watch(ref.match)
                except ValueError:
                    pass
        return session, handles

    async def _create_room(self, session: HostSession, args: dict[str, Any]) -> M.RoomOpened:
        room = await session.backend.create_room(args["game"], args["size"], args["time_control"])

        def filled(future: asyncio.Future[Any]) -> None:
            if future.cancelled():
                pushed: Any = M.RoomClosed(room.code, "room_closed", {})
            elif (error := future.exception()) is not None:
                pushed = M.RoomClosed(room.code, *refusal(error))
            else:
                pushed = M.RoomFilled(room.code, session.export(future.result()))
            asyncio.get_running_loop().create_task(
                self.calls.push(session.edge, WIRE.encode(M.Pushed(session.id, pushed))))

        room.future.add_done_callback(filled)
        return M.RoomOpened(room.code, room.game, int(getattr(room, "size", 2)))

    def _replay_record(self, identity: str | None, match_id: int) -> Any:
        """A finished match's record, for the edge to step through (a running one is refused:
        its hands are not public; :meth:`Replay.load` says why not: its code)."""
        from server.replay import Replay, ReplayError

        store = self.lobby.store
        if store is None:
            raise ReplayError("no_store")
        Replay.load(store, match_id, identity)  # (a ReplayError says why not)
        return store.match_record(match_id)

    async def _analysis(self, request: RequestFrame, c: Call, args: dict[str, Any]) -> None:
        """A finished match's analysis for ``identity`` through the process's coach (its
        low-priority worker, the rules of :mod:`server.coach`): the one kept, or made now and
        kept, its progress pushed to the edge that asked."""
        from server import coach

        match_id = args["id"]

        def progress(done: int, total: int) -> None:
            pushed = M.Pushed("", M.AnalysisProgress(match_id, done, total))
            asyncio.get_running_loop().create_task(self.calls.push(request.edge, WIRE.encode(pushed)))

        try:
            record = self._replay_record(args["identity"], match_id)
            if c is M.KEPT_ANALYSIS:
                kept = coach.Coach(self.lobby.store).stored(match_id) if record.game == coach.GAME else None
                value: Any = kept.moves if kept is not None else None
            else:
                made = await coach.shared().with_store(self.lobby.store).analysis(record, args["identity"], progress)
                value = made.moves
        except ValueError as error:  # a ReplayError, the coach's analysis_busy
            await self._refuse(request, error)
            return
        except Exception:
            log.exception("the analysis of match %s failed", match_id)
            await self.calls.reply(request, WIRE.encode(M.Failure(request.id)))
            return
        await self._answer(request, c, value)

    # -- presence -----------------------------------------------------------------
    async def _beat(self) -> None:
        """The host's own presence, under the edges' prefix and named by its epoch: an edge
        sees it gone, back, or replaced by a restarted host (a new epoch).  On Redis it
        beats from a thread (:class:`~server.bus.rpc.PresenceBeat`: a busy loop is not a
        dead host)."""
        url = getattr(self.bus, "url", None)  # (a Redis bus has one; the in-process bus has none)
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
                # (a list read just before Redis went is stale: every edge is gone for now)
                self._hold(alive if self.bus.state == "connected" else None)
                # Asked after the list: a Redis restarted since lost every edge's key, and a
                # live edge's next beat may not have landed yet (its players would lose their seats).
                if await self.bus.presence_age() < self.edge_ttl:
                    continue
            except Exception:
                continue
            now = time.monotonic()
            for session in list(self.sessions.values()):
                if session.edge in alive or now - self._edges_seen.get(session.edge, now) < self.edge_ttl:
                    continue
                log.warning("edge %s is gone: session %s's seats wait for their players", session.edge, session.id)
                session.close()
                self.sessions.pop(session.id, None)


    def _bus_state(self, state: str) -> None:
        """Redis lost: no edge can reach this host, so every match with a player on an edge
        holds its clocks (released as each match's edges are seen again: :meth:`_hold`)."""
        if state == "reconnecting":
            self._hold(None)

    def _hold(self, alive: set[str] | None) -> None:
        """Hold the clocks of the matches a seated player of which is on an edge missing from
        ``alive`` (None: Redis away, every edge), release the others' (see
        :meth:`~server.host.common.SaveGate.hold`).  A seat whose session was closed (its edge
        judged gone) is in its grace: a drop, which no longer holds the match."""
        edges: dict[str, set[str]] = {}
        for session in self.sessions.values():
            for code, key in session.handles:
                if key != SPECTATOR:
                    edges.setdefault(code, set()).add(session.edge)
        for code, hosted in list(self.lobby.matches.items()):
            hold = getattr(hosted.match, "hold", None)
            if hold is None:
                continue
            cut = code in edges and (alive is None or not edges[code] <= alive)
            if cut != hosted.match.saving.held:
                log.warning("match %s: %s", code, "a player's edge cannot reach the host: its clocks wait"
                            if cut else "every player's edge reaches the host again: its clocks run")
            hold(cut)


def refusal(error: BaseException) -> tuple[str, dict[str, Any]]:
    """A refusal's code and params; a plain ``ValueError`` (no code) as code ``refused``
    with its text as ``detail``."""
    code = getattr(error, "code", None)
    if not isinstance(code, str):
        return "refused", {"detail": str(error)}
    return code, dict(getattr(error, "params", None) or {})


def linked_browsers_call(store: Any, c: Call, args: dict[str, Any]) -> Any:
    """One of the declared link calls (:data:`server.wire.messages.LINKS`) run on ``store``,
    as one process runs them (:class:`server.session.services.StoreLinks`); its refusal raised."""
    from server.session.services import StoreLinks

    links = StoreLinks(store)
    if c is M.LINK_CODE:
        return links.link_code(args["key"])
    if c is M.REDEEM_LINK:
        return links.redeem(args["code"], args["label"])
    if c is M.BROWSER_KEY:
        return links.browser_key(args["token"])
    return links.unlink(args["key"])


def kept_language(store: Any, key: str) -> str | None:
    """The language ``key`` chose in the settings (None: none, or nothing kept)."""
    from server.session.services import store_language

    return store_language(store, key)


def kept_command(store: Any, words: list[str], ssh: str) -> M.CommandAnswer:
    """``leaderboard`` and ``export MATCH_ID`` for an edge: exit code, stdout, stderr (the
    answers of :mod:`server.session.services`, as one process gives them)."""
    from server.session.services import export_answer, leaderboard_answer

    answer = leaderboard_answer(store) if words[0] == "leaderboard" else export_answer(store, words[1])
    return M.CommandAnswer(answer.code, answer.out, answer.err)


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
