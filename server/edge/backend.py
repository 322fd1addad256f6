"""The tui's seams over the bus: :class:`RemoteBackend` and :class:`RemoteSeatHandle`.

An edge holds no lobby and no match.  Decisions:

- **A lobby call is a request to the host** naming this session (:mod:`server.bus.rpc`),
  declared (:data:`server.wire.messages.CALLS`) and awaited: the edge's loop never waits
  on Redis.  The host makes the same call on its :class:`~server.backend.SSHBackend` for
  the session, so every rule (names, rooms, rematch, who may watch) is decided in one
  place; a refusal comes back as its code and params and is raised as
  :class:`~tui.ports.Refused`; a host that does not answer is a refusal too (code
  ``not_answering``), never a hang.
- **A seat is a subscription to its two streams** ``(match, seat)`` (a spectator's:
  ``-1``): its updates and its messages (:meth:`server.bus.Bus.subscribe_seat`).  The
  reply that gives a seat carries its present (view, log entries, notice, names,
  version, its game's extras), so the screen draws at once; the handle then subscribes
  and asks for a full view once (an update published between the reply and the
  subscription would otherwise be missed for good if nothing followed it), and asks
  again whenever :func:`server.bus.gap` says one was missed.  A message (a notice
  changed) shows at once and goes to ``subscribe_messages``.  The handle's methods
  beside submit and resign are its game's declared calls (:func:`handle_class`); one
  declared with a result (Voltage's hint) returns the host's answer.
- **An intent** is an :class:`~server.bus.Intent` with this session's next sequence
  number and an id of its own; its result (accepted, or the rule's refusal) comes back to
  the edge's inbox, and ``submit`` raises the engine's error class with the host's code
  and params.  When the host restarts (once this edge has opened its sessions there again)
  or Redis does, a move still waiting for its result is sent again with the same id: the
  host applies an id once and answers each copy with the first answer.
- Callbacks (a seat's update, a lobby change, the lobby's events) run in the
  context they were registered in, as the in-process host does: a Textual app
  finds itself through a context variable.
- A replay of a finished Voltage match gets its analysis from the host's coach
  (:mod:`server.edge.coach`), its progress pushed to this edge.
- The lobby snapshot is the latest one the host published (at most one a second), kept
  up to date by the host's deltas between whole snapshots (:mod:`server.lobby.changes`);
  ``snapshot()`` and ``lobby_changes()`` never wait.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import functools
import itertools
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from server import games
from server.bus import Bus, Intent, Subscription, gap
from server.bus import SeatMessage as BusMessage
from server.bus import Update as BusUpdate
from server.bus.rpc import EdgeCalls, NoReply, PresenceBeat
from server.games import IDS, TITLES
from server.lobby.changes import ChangeLog
from server.lobby.models import bot_strengths
from server.wire import messages as M
from server.wire.codec import Call, CodecError
from server.wire.table import WIRE
from tui import lobby_events as E
from tui.ports import (
    BotRecord,
    ChatLine,
    Entry,
    Handles,
    HistoryItem,
    LinkedBrowser,
    Note,
    Notice,
    NoticeChanged,
    RatingChange,
    Refused,
    SeatMessage,
    Update,
)

log = logging.getLogger(__name__)

FIRST_GAME = IDS[0]
NOT_ANSWERING = "not_answering"  # a refusal's code: the host did not answer in time
CALL_TIMEOUT = 5.0  # a lobby call the host answers at once (a quick match waits as long as it takes)
REPLAY_TIMEOUT = 10.0
INTENT_TIMEOUT = 30.0  # a move's result
INTENT_SENDS = 4  # a move is sent again (by its id) after a restart of the host or Redis: this many times at most
HOST_AWAY = Note("host_away")  # the status notice while the host restarts
REDIS_LOST = Note("unreached")  # ... while the bus reconnects (the host stops the clocks meanwhile)
HEARTBEAT = 1.0
EDGE_TTL = 3.0
HOST_PRESENCE = "host-"  # + the host's epoch (server.cluster.host.HOST_PRESENCE)


def _in_context(callback: Callable[..., Any]) -> Callable[..., Any]:
    ctx = contextvars.copy_context()
    return lambda *a: ctx.run(callback, *a)


class RemoteSeatHandle:
    """One seat (or a spectator's view) of a match hosted elsewhere; satisfies ``SeatHandle``."""

    def __init__(self, client: EdgeClient, session: RemoteBackend, seat: M.SeatDescriptor) -> None:
        self.client = client
        self.session = session
        self.match = seat.match
        self.key = seat.key
        self.game = seat.game
        self.seat: int | None = seat.seat
        self._names = seat.names
        self._log: list[Entry] = list(seat.log)
        self._notice: Notice = seat.notice
        self._countdown = seat.countdown
        self._version = seat.version
        self._view = seat.view
        self._extras: dict[str, Any] = dict(seat.extras)
        self._callbacks: list[Callable[[Update[Any]], None]] = []
        self._listeners: list[Callable[[SeatMessage], None]] = []
        self._sub: Subscription[BusUpdate | BusMessage] | None = None
        self._last: Update[Any] | None = None  # the latest update (all its fields: a clock, an offer)
        self._asked = False
        self._task = asyncio.get_running_loop().create_task(self._follow(), name=f"seat-{self.match}-{self.key}")

    # -- the present --------------------------------------------------------------
    @property
    def spectator(self) -> bool:
        return self.seat is None

    @property
    def names(self) -> tuple[str, ...]:
        return self._names

    @property
    def log(self) -> list[Entry]:
        return list(self._log)

    @property
    def notice(self) -> Notice:
        return self._notice

    @property
    def countdown(self) -> int | None:
        return self._countdown

    @property
    def version(self) -> int:
        return self._version

    def view(self) -> Any:
        return self._view

    @property
    def extras(self) -> dict[str, Any]:
        """The game's extras (its registry entry declares them) as the latest update gave
        them, else as the seat was described; a declared one missing takes its default."""
        got = self._last.extras if self._last is not None else self._extras
        return {e.name: got.get(e.name, e.default) for e in games.game(self.game).extras}

    def subscribe(self, callback: Callable[[Update[Any]], None]) -> Callable[[], None]:
        call = _in_context(callback)
        self._callbacks.append(call)
        if self._last is not None:  # what arrived before the screen subscribed (the full view)
            latest = dataclasses.replace(self._last, entries=())
            asyncio.get_running_loop().call_soon(lambda: call in self._callbacks and call(latest))

        def unsubscribe() -> None:
            if call in self._callbacks:
                self._callbacks.remove(call)

        return unsubscribe

    def subscribe_messages(self, callback: Callable[[SeatMessage], None]) -> Callable[[], None]:
        """Each message said to this seat from now on (its second stream)."""
        call = _in_context(callback)
        self._listeners.append(call)

        def unsubscribe() -> None:
            if call in self._listeners:
                self._listeners.remove(call)

        return unsubscribe

    # -- intents --------------------------------------------------------------------
    async def submit(self, action: Any) -> None:
        await self._send(lambda rid: M.Submit(rid, self.client.edge, action))

    async def resign(self) -> None:
        await self._send(lambda rid: M.Resign(rid, self.client.edge))

    async def _seat_call(self, c: Call, args: dict[str, Any]) -> Any:
        """One of the game's declared seat calls; a call that answers (a hint) gives its value."""
        from engine.errors import RuleError

        invocation = c(**args)
        answered = await self._send(lambda rid: M.SeatCall(rid, self.client.edge, invocation))
        if answered is None:
            return None
        try:
            return WIRE.decoder(c.result)(answered.value)
        except CodecError as error:
            log.warning("the answer to %s cannot be read: %s", c.tag, error)
            raise RuleError("failed") from None

    async def _send(self, make: Callable[[str], Any]) -> M.Answered | None:
        from engine.errors import RuleError

        if self.seat is None:
            raise RuleError("spectator", act="act")
        calls = self.client.calls
        rid = calls.new_id()
        for _attempt in range(INTENT_SENDS):
            if self.client.host_away:  # the move waits for the host (it will resume), a while
                try:
                    await asyncio.wait_for(self.client.host_ready.wait(), 30.0)
                except TimeoutError:
                    raise RuleError("host_away") from None
            future = calls.expect(rid)
            intent = Intent(self.match, self.key, self.session.id, self.session.next_seq(), WIRE.encode(make(rid)))
            await self.client.bus.send_intent(intent)
            renewed = self.client.renewal()  # (after the send: a send that found Redis back renews)
            answering = asyncio.ensure_future(calls.answer(future, INTENT_TIMEOUT))
            renewing = asyncio.ensure_future(renewed.wait())
            try:
                await asyncio.wait({answering, renewing}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                renewing.cancel()
                if not answering.done():
                    answering.cancel()  # (cancels ``future``: the next send expects its own)
            if answering.done() and not answering.cancelled():
                break
            # The host restarted (or Redis did) meanwhile: the same intent again, by its id.
        else:
            raise RuleError(NOT_ANSWERING)
        try:
            answer = answering.result()
        except NoReply:
            raise RuleError(NOT_ANSWERING) from None
        try:
            result = WIRE.decode(answer)
        except CodecError as error:
            log.warning("the result of an intent cannot be read: %s", error)
            raise RuleError("failed") from None
        if isinstance(result, M.Rejected):
            raise result.error
        return result if isinstance(result, M.Answered) else None

    # -- updates --------------------------------------------------------------------
    async def _follow(self) -> None:
        bus = self.client.bus
        self._sub = await bus.subscribe_seat(self.match, self.key)  # (both streams, in their order)
        await self._ask()
        async for u in self._sub:
            if isinstance(u, BusMessage):
                self._said(u)
                continue
            if gap(self._version, u):
                if u.version > self._version:
                    await self._ask()
                continue
            self._asked = False
            self._apply(u)

    def _said(self, m: BusMessage) -> None:
        """A message on the seat's second stream: a notice changed (shown as an update of the
        notice alone, as the host gives its own screens), and whatever the screens listen to."""
        try:
            message = WIRE.decode(m.payload)
            if not isinstance(message, SeatMessage):
                raise CodecError(f"a {type(message).__name__} on a seat's second stream")
        except CodecError as error:  # an older or newer host's: said, and dropped
            log.warning("dropped a message to %s/%s that cannot be read: %s", self.match, self.key, error)
            return
        if isinstance(message, NoticeChanged):
            self.local_notice(*message.notice)
        for call in list(self._listeners):
            try:
                call(message)
            except Exception:
                log.exception("seat message listener failed")

    async def _ask(self) -> None:
        if not self._asked:
            self._asked = True
            await self.client.bus.request_full(self.match, self.key)

    def _apply(self, u: BusUpdate) -> None:
        try:
            message = WIRE.decode(u.payload)
            if not isinstance(message, M.SeatUpdate | M.FullUpdate):
                raise CodecError(f"a {type(message).__name__} on a seat's updates")
            declared = {e.name for e in games.game(self.game).extras}
            if set(message.update.extras) != declared:
                raise CodecError(f"extras {sorted(message.update.extras)}, not {sorted(declared)}", ("update",))
        except CodecError as error:  # an older or newer host's: said, and dropped (a full view is asked)
            log.warning("dropped an update of %s/%s that cannot be read: %s", self.match, self.key, error)
            return
        update: Update[Any] = message.update
        if isinstance(message, M.FullUpdate):
            full = list(message.log)
            entries = tuple(full[len(self._log):]) if full[: len(self._log)] == self._log else ()
            self._log = full
        else:
            entries = tuple(update.entries)
            self._log.extend(entries)
        self._view = update.view
        self._notice = update.notice
        self._countdown = update.countdown
        if update.names:
            self._names = tuple(update.names)
        self._version = u.version
        update = dataclasses.replace(update, entries=entries, version=u.version, names=self._names)
        self._last = update
        self._tell(update)

    def _tell(self, update: Update[Any]) -> None:
        for call in list(self._callbacks):
            try:
                call(update)
            except Exception:
                log.exception("seat subscriber failed")

    def local_notice(self, *notes: Note) -> None:
        """Show ``notes`` as the status notice (the host's, or this edge's own: the host is
        away), the rest as it was."""
        self._notice = tuple(notes)
        base = self._last if self._last is not None else Update(self._view, (), (), self._countdown, self._version,
                                                                self._names, self.extras)
        self._last = dataclasses.replace(base, entries=(), notice=self._notice)
        self._tell(self._last)

    async def resync(self) -> None:
        """Ask for the full view again (the host restarted and has this seat back)."""
        self._asked = False
        await self._ask()

    async def close(self) -> None:
        self._task.cancel()
        if self._sub is not None:
            await self._sub.close()


def _seat_call(c: Call) -> Callable[..., Any]:
    names = c.names()

    async def seat_call(self: RemoteSeatHandle, *args: Any, **kwargs: Any) -> Any:
        given = dict(zip(names, args, strict=False)) | kwargs
        return await self._seat_call(c, {n: given.get(n) for n in names})

    seat_call.__name__ = seat_call.__qualname__ = c.method
    return seat_call


@functools.cache
def handle_class(game: str) -> type[RemoteSeatHandle]:
    """The remote handle of ``game``'s seats: the common one with the game's declared calls
    (a draw offer, an idle vote) as its methods, as the host's handle has them."""
    calls = {c.method: _seat_call(c) for c in games.game(game).calls}
    return type(f"Remote{game.title().replace('-', '')}SeatHandle", (RemoteSeatHandle,), calls)


def refusal(answer: Any, cls: type[Refused] = Refused) -> Refused:
    """The refusal a host's answer carries (a :class:`~server.wire.messages.Refusal`: its
    code and params; a failure: ``failed``), else "not answering"."""
    if isinstance(answer, M.Refusal):
        return cls.of(answer.code, answer.params)
    if isinstance(answer, M.Failure):
        return cls("failed")
    return cls(NOT_ANSWERING)


class _Named:
    """A player as a challenge names one (the screens read ``.name``)."""

    def __init__(self, name: str) -> None:
        self.name = name


class RemoteChallenge:
    """A challenge the host keeps: who, which game, how long it has left, its answer."""

    def __init__(self, data: M.ChallengeDescriptor) -> None:
        self.id = data.id
        self.game = data.game
        self.challenger = _Named(data.challenger)
        self.target = _Named(data.target)
        self._expires = time.monotonic() + data.left

    @property
    def seconds_left(self) -> float:
        return max(0.0, self._expires - time.monotonic())


@dataclass
class RemoteRoom:
    """A private room this session opened (its ``future``: the handles once it fills)."""

    code: str
    game: str
    size: int
    future: asyncio.Future[Any]


class RemoteBackend:
    """One SSH session on this edge, a player in the host's lobby (``LobbyBackend``)."""

    online = True
    games = IDS
    game_titles = TITLES

    def __init__(self, client: EdgeClient, session: str, opened: M.Opened, env: dict[str, str],
                 username: str = "") -> None:
        self.client = client
        self.id = session
        self.username = username
        self.name_prefill = opened.prefill
        self.initial = opened.initial
        self._guest = opened.guest
        self._grace = opened.grace
        self._bot_offer_after = opened.bot_offer_after
        self._identity = opened.identity
        self.env = env
        self._state: M.SessionState = opened.state
        self.stored_name = opened.state.stored_name
        # The key's settings as the host opened the session: the first read (the session's language,
        # before its first frame) needs no call; later ones ask the host (a setting may have changed).
        self._opened_settings: dict[str, str] | None = dict(opened.settings)
        self.room: RemoteRoom | None = None
        self._seq = itertools.count(1)
        self._handles: list[RemoteSeatHandle] = []
        self._listener: Callable[[E.LobbyEvent], None] | None = None
        self._challenges: dict[str, RemoteChallenge] = {}
        self._chat_held: list[Callable[[], None]] = []  # the chat panels' subscriptions, ended with the session
        self.closed = False

    def next_seq(self) -> int:
        return next(self._seq)

    # -- calls ----------------------------------------------------------------------
    def _import(self, value: Any) -> Any:
        """A value the host answered with, as the screens hold it: a seat descriptor becomes
        a remote seat handle, a challenge's one remote challenge (one object per challenge,
        so its end finds it)."""
        if isinstance(value, M.ChallengeDescriptor):
            ch = self._challenges.get(value.id)
            if ch is None:
                ch = self._challenges[value.id] = RemoteChallenge(value)
            return ch
        if isinstance(value, M.SeatDescriptor):
            h = handle_class(value.game)(self.client, self, value)
            self._handles.append(h)
            return h
        if isinstance(value, tuple | list):
            return [self._import(v) for v in value]
        return value

    @staticmethod
    def _ref(value: Any) -> Any:
        """An argument as it crosses: a remote seat handle or challenge, named."""
        if isinstance(value, RemoteSeatHandle):
            return M.SeatRef(value.match, value.key)
        if isinstance(value, RemoteChallenge):
            return M.ChallengeRef(value.id)
        if isinstance(value, list | tuple):
            return tuple(RemoteBackend._ref(v) for v in value)
        return value

    async def _call(self, op: str, timeout: float | None = CALL_TIMEOUT, **args: Any) -> Any:
        """The host's answer to the lobby call ``op`` (its declared one, in
        :data:`server.wire.messages.CALLS`) for this session; raises its refusal, "host away"
        while it is known to be away, "not answering" after ``timeout`` (None: as long as a
        quick match takes)."""
        if self.client.host_away and timeout is not None:  # known to be away: say so now, not after a timeout
            raise Refused("host_away")
        c = M.CALLS[op]
        return await self._ask(c, timeout, **args)

    async def _ask(self, c: Call, timeout: float | None, **args: Any) -> Any:
        payload = WIRE.encode(c(**{n: self._ref(v) for n, v in args.items()}))
        try:
            answer = await self.client.calls.call(self.id, payload, timeout=timeout)
        except NoReply:
            raise Refused(NOT_ANSWERING) from None
        try:
            reply = WIRE.decode(answer)
            if isinstance(reply, M.Reply):
                value = WIRE.decoder(c.result)(reply.value)
        except CodecError as error:  # an older or newer host's: said; the screen shows a failure
            log.warning("the answer to %s cannot be read: %s", c.tag, error)
            raise Refused("failed") from None
        if isinstance(reply, M.Reply | M.Refusal | M.Failure) and reply.state is not None:
            self._state = reply.state  # (every answer may carry the session's state now)
        if not isinstance(reply, M.Reply):
            raise refusal(reply)
        return self._import(value)

    # -- what the app needs -----------------------------------------------------------
    def home_screen(self) -> Any:
        from tui.screens.lobby import LobbyScreen

        return LobbyScreen(self)

    def match_screen(self, handles: Sequence[Any]) -> Any:
        from tui.games.registry import screens

        return screens(handles[0].game).match(handles, self)

    async def rematch(self, handles: Sequence[Any]) -> Handles | None:
        if not handles:
            return None
        try:
            return await self._call("rematch", None, handles=list(handles))
        except Refused:
            return None

    async def rating_change(self, handles: Sequence[Any]) -> tuple[RatingChange, ...] | None:
        try:
            changes = await self._call("rating_change", handles=list(handles))
        except Refused:
            return None
        return tuple(changes) if changes else None

    def ssh_command(self, args: str = "", *, tty: bool = True) -> str:
        base = self.client.ssh_line or "ssh HOST"
        if tty and base.startswith("ssh"):
            base = "ssh -t" + base[3:]
        return f"{base} {args}".strip()

    # -- who this is ------------------------------------------------------------------
    @property
    def guest(self) -> bool:
        return self._guest

    @property
    def grace_seconds(self) -> float:
        return self._grace

    @property
    def identity(self) -> str | None:
        return self._identity

    async def linked_browsers(self) -> list[LinkedBrowser]:
        """The browsers linked to this player's key, as the host's store has them."""
        if not self._identity:
            return []
        try:
            return list(await self._call("linked_browsers"))
        except Refused:  # (not answering: nothing to list)
            log.warning("could not list the browsers linked to %s", self._identity)
            return []

    @property
    def name(self) -> str:
        return self._state.name

    @property
    def named(self) -> bool:
        return self._state.named

    @property
    def superseded(self) -> bool:
        return self._state.superseded

    def listen(self, callback: Callable[[E.LobbyEvent], None]) -> None:
        self._listener = _in_context(callback)

    def pushed(self, event: Any) -> None:
        """What the host pushed to this session (a :data:`~server.wire.messages.PUSH`): a
        lobby event (told to the listener as the screens' typed message), a room filled or
        closed."""
        if isinstance(event, M.RoomFilled | M.RoomClosed):
            if self.room is not None and self.room.code == event.code and not self.room.future.done():
                if isinstance(event, M.RoomClosed):
                    self.room.future.set_exception(Refused.of(event.why, event.params))
                else:
                    self.room.future.set_result(self._import(event.handles))
            return
        told: E.LobbyEvent
        if isinstance(event, M.Followed):
            told = E.Followed(self._import(event.handles))
        elif isinstance(event, M.Challenged):
            told = E.Challenged(self._import(event.challenge))
        elif isinstance(event, M.ChallengeOver):
            told = E.ChallengeOver(self._import(event.challenge))
            self._challenges.pop(told.challenge.id, None)
        else:
            told = E.Superseded()
            self._state = dataclasses.replace(self._state, superseded=True)
        if self._listener is not None:
            self._listener(told)

    # -- challenges -------------------------------------------------------------------
    async def challenge(self, name: str, game: str = FIRST_GAME) -> Any:
        return await self._call("challenge", name=name, game=game)

    async def challenge_answer(self, challenge: Any) -> Handles:
        return await self._call("challenge_answer", None, challenge=challenge)

    async def answer_challenge(self, challenge: Any, accept: bool) -> Handles | None:
        return await self._call("answer_challenge", challenge=challenge, accept=accept)

    async def withdraw_challenge(self, challenge: Any) -> None:
        await self._call("withdraw_challenge", challenge=challenge)

    async def refuses_challenges(self) -> bool:
        return bool(await self._call("refuses_challenges"))

    async def set_challenges(self, welcome: bool) -> None:
        await self._call("set_challenges", welcome=welcome)

    # -- settings that follow the key (kept by the host) ----------------------------------
    async def settings(self) -> dict[str, str]:
        if self._opened_settings is not None:
            kept, self._opened_settings = self._opened_settings, None
            return kept
        try:
            return dict(await self._call("settings"))
        except Refused:
            return {}

    async def save_setting(self, key: str, value: str) -> None:
        try:
            await self._call("save_setting", key=key, value=value)
        except Refused:
            log.warning("could not keep the setting %s: the host did not answer", key)

    async def start_colours(self) -> str | None:
        if "NO_COLOR" in self.env:
            return "none"
        try:
            return await self._call("start_colours")
        except Refused:
            return None

    async def colours_forced(self) -> str | None:
        try:
            return await self._call("colours_forced")
        except Refused:
            return None

    async def claim_name(self, name: str) -> str:
        return str(await self._call("claim_name", name=name))

    async def rename_wait(self) -> float:
        try:
            return float(await self._call("rename_wait") or 0.0)
        except Refused:
            return 0.0

    async def resumable(self) -> bool:
        return bool(await self._call("resumable"))

    async def resume(self) -> Handles | None:
        return await self._call("resume")

    # -- the lobby's choices ------------------------------------------------------------
    @property
    def bot_offer_after(self) -> float:
        return self._bot_offer_after

    def strengths(self) -> list[tuple[str, str]]:
        return bot_strengths()

    def bot_levels(self, game: str) -> tuple[str, ...]:
        """The bot levels a table of ``game`` offers (the server registry's, known here too)."""
        return games.game(game).bot_levels()

    async def hv_starts_in(self) -> float | None:
        try:
            return await self._call("hv_starts_in")
        except Refused:
            return None

    def snapshot(self) -> Any:
        return self.client.snapshot()

    def lobby_changes(self, since: int) -> list[Any] | None:
        return self.client.lobby_log.since(since)

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        return self.client.subscribe_lobby(callback)

    async def enter_lobby(self) -> None:
        """Back in the lobby: the seats and watched matches of before are let go (the
        host lets go of them for this session too); a rematch or a resume gives new ones."""
        self.room = None
        self._let_go()
        await self._call("enter_lobby")

    def _let_go(self) -> None:
        handles, self._handles = self._handles, []
        for h in handles:
            asyncio.get_running_loop().create_task(h.close())

    async def quick_match(self, game: str = FIRST_GAME) -> Handles:
        return await self._call("quick_match", None, game=game)

    async def play_bot(self, bot: str, game: str = FIRST_GAME) -> Handles:
        return await self._call("play_bot", bot=bot, game=game)

    async def create_room(self, game: str = FIRST_GAME, size: int = 4, time_control: str = "default") -> RemoteRoom:
        """A private room (``time_control``: a Voltage room's clock, as the host's backend takes it)."""
        info: M.RoomOpened = await self._call("create_room", game=game, size=size, time_control=time_control)
        self.room = RemoteRoom(info.code, info.game, info.size, asyncio.get_running_loop().create_future())
        return self.room

    async def start_room(self) -> None:
        if self.room is not None:
            await self._call("start_room")

    async def close_room(self) -> None:
        if self.room is not None:
            self.room = None
            await self._call("close_room")

    async def seated(self, code: str) -> tuple[tuple[str, ...], int] | None:
        try:
            return await self._call("seated", code=code)
        except Refused:
            return None

    async def room_game(self, code: str) -> str | None:
        return await self._call("room_game", code=code)

    async def join_room(self, code: str) -> Handles:
        return await self._call("join_room", code=code)

    async def join(self, code: str) -> Handles:
        return await self._call("join", None, code=code)

    async def watch(self, code: str) -> Handles:
        return await self._call("watch", code=code)

    # -- what was kept ----------------------------------------------------------------
    async def ratings(self) -> list[tuple[str, int, int]]:
        try:
            return list(await self._call("ratings"))
        except Refused:
            return []

    async def history(self, limit: int = 20) -> list[HistoryItem]:
        try:
            return list(await self._call("history", limit=limit))
        except Refused:
            return []

    async def bot_record(self) -> list[BotRecord]:
        try:
            return [r for r in await self._call("bot_record") if isinstance(r, BotRecord)]
        except Refused:
            return []

    async def open_replay(self, match_id: int) -> Any:
        """The replay of a finished match: its record comes from the host (it checked the
        match is over, so every hand in it is public), the positions are worked out here."""
        from server.edge.coach import attach
        from server.replay import ReplayError, replay_of

        try:
            record = await self._ask(M.REPLAY, REPLAY_TIMEOUT, id=int(match_id))
            return await attach(self.client, replay_of(record, record.seat_of(self.identity)), self.identity)
        except Refused as error:
            raise ReplayError.of(error.code, error.params) from None

    async def replay_screen(self, match_id: int) -> Any:
        from tui.screens.replay import replay_screen

        return replay_screen(await self.open_replay(match_id))

    async def leaderboard_games(self) -> list[tuple[str, str]]:
        return list(await self._call("leaderboard_games"))

    async def leaderboard(self, game: str, n: int = 20) -> list[Any]:
        return list(await self._call("leaderboard", game=game, n=n))

    # -- chat (the host's server.chat; the screens' door: tui.chat.door) -------------
    def lobby_chat(self) -> Any:
        from tui.chat.door import ChatDoor, kept

        return ChatDoor(self, None, ("lobby",), free_text=not self.guest,
                        listen=kept(self.client.listen_chat, self._chat_held))

    def match_chat(self, handles: Sequence[Any]) -> Any:
        from tui.chat.door import ChatDoor, kept, match_rooms, seat_lines

        if not handles or not isinstance(handles[0], RemoteSeatHandle):
            return None
        handle = handles[0]
        return ChatDoor(self, handle, match_rooms(handle.seat), free_text=not self.guest,
                        listen=kept(seat_lines(handle.subscribe_messages), self._chat_held))

    async def chat_lines(self, where: Any = None) -> list[Any]:
        return list(await self._call("chat_lines", where=where))

    async def chat_say(self, where: Any, room: str, text: str, phrase: str = "") -> Any:
        return await self._call("chat_say", where=where, room=room, text=text, phrase=phrase)

    async def chat_mutes(self) -> dict[str, str]:
        return dict(await self._call("chat_mutes"))

    async def chat_mute(self, name: str, on: bool = True) -> str:
        return str(await self._call("chat_mute", name=name, on=on))

    async def reopen(self) -> bool:
        """The host restarted (or closed this session, not seeing its edge): open it there again,
        with its name and its seats.  False: the host did not answer (ask again later)."""
        seats = tuple(M.SeatRef(h.match, h.key) for h in self._handles)
        try:
            reopened = await self.client.ask(self.id, M.REOPEN, 10.0, identity=self._identity, username=self.username,
                                             env=self.env, name=self.name if self.named else "", seats=seats)
        except Refused as refused:
            return refused.code != NOT_ANSWERING
        self._state = reopened.opened.state
        mine = {(h.match, h.key): h for h in self._handles}
        for seat in reopened.seats:  # the seats it has back: the handles the screens hold carry on
            h = mine.get((seat.match, seat.key))
            if h is not None:
                await h.resync()
        return True

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        for unlisten in list(self._chat_held):
            unlisten()
        self._chat_held.clear()
        for h in self._handles:
            asyncio.get_running_loop().create_task(h.close())
        self.client.forget(self)


class EdgeClient:
    """An edge's link to the host: the bus, the calls, the lobby snapshot, its sessions."""

    def __init__(self, bus: Bus, calls: EdgeCalls, edge: str) -> None:
        self.bus = bus
        self.calls = calls
        self.edge = edge
        self.ssh_line = ""
        self.sessions: dict[str, RemoteBackend] = {}
        # The lobby as the host published it, numbered here, with the deltas between
        # (server.lobby.changes); ``_lobby_at``: the host's run and version it is at (None:
        # a delta was missed, the next whole snapshot catches up).
        self.lobby_log = ChangeLog()
        self._lobby_at: tuple[str, int] | None = None
        self._lobby_callbacks: list[Callable[[], None]] = []
        self._chat_callbacks: list[Callable[[Any], None]] = []
        self._tasks: list[asyncio.Task[Any]] = []
        self.epoch: str | None = None  # the host's run (a new one: it restarted)
        self.host_away = False
        self.host_ready = asyncio.Event()  # set while the host is there and knows our sessions
        self.host_ready.set()
        self._epoch_lock = asyncio.Lock()
        self._presence: PresenceBeat | None = None
        self._lapses = 0  # the presence lapses seen (PresenceBeat.lapses)
        self._renewal = asyncio.Event()  # set (then replaced) when the host or Redis came back
        self._analyses: dict[int, list[Callable[[int, int], None]]] = {}  # progress listeners, by match

    @classmethod
    async def connect(cls, url: str, *, namespace: str = "voltage", edge: str | None = None) -> EdgeClient:
        from server.bus.redis import RedisBus

        edge = edge or uuid.uuid4().hex[:10]
        bus = await RedisBus.connect(url, namespace=namespace, consumer=f"edge-{edge}")
        calls = EdgeCalls(url, edge, namespace=namespace)
        client = cls(bus, calls, edge)
        try:
            await calls.start(client._pushed)
        except Exception:
            await bus.close()
            raise
        await client.start()
        return client

    async def start(self) -> None:
        self.bus.on_state(self._bus_state)
        url = getattr(self.bus, "url", None)  # (a Redis bus has one; the in-process bus has none)
        if url is not None:  # (the presence beats from a thread: see PresenceBeat)
            self._presence = PresenceBeat(url, self.edge, EDGE_TTL, namespace=getattr(self.bus, "ns", "voltage"))
            self._presence.start()
        else:
            await self.bus.heartbeat(self.edge, EDGE_TTL)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._beat(), name="edge-heartbeat"),
                       loop.create_task(self._follow_lobby(), name="edge-lobby"),
                       loop.create_task(self._follow_chat(), name="edge-lobby-chat")]

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT)
            try:
                if self._presence is None:
                    await self.bus.heartbeat(self.edge, EDGE_TTL)
                alive = await self.bus.alive_edges()
            except Exception:
                log.exception("heartbeat failed")
                continue
            epochs = {e[len(HOST_PRESENCE):] for e in alive if e.startswith(HOST_PRESENCE)}
            if not epochs:
                if not self.host_away:
                    self.host_away = True  # the sessions stay; their screens say so
                    self.host_ready.clear()
                    log.warning("the host is away: sessions wait for it")
                    self._tell_all(HOST_AWAY)
                continue
            new = sorted(epochs - {self.epoch}) if self.epoch not in epochs or len(epochs) == 1 else []
            if new:
                await self._saw_epoch(new[0])
                continue
            lapses = self._presence.lapses if self._presence is not None else 0
            if lapses != self._lapses:
                # Our presence expired (this edge could not reach Redis for longer than its ttl
                # while the host could: a partition): the host judged us gone and closed our
                # sessions, their seats waiting for their players.  Open them there again.
                log.warning("this edge was out of the host's sight: its sessions are opened there again")
                if await self._reopen_all():
                    self._lapses = lapses
                continue  # (else the next beat tries again: the replies' channel may be back only then)
            async with self._epoch_lock:  # (never while a new run re-opens our sessions: ready only after)
                back = self.host_away and self.epoch in epochs
                if back:  # back, the same run (Redis restarted, or a slow beat)
                    self.host_away = False
                    self.host_ready.set()
            if back:
                await self._resync_all()
                self._renew()

    async def _saw_epoch(self, epoch: str | None) -> None:
        """The host's run is ``epoch``: a new one (it restarted) knows none of our sessions,
        so each is opened there again before any intent goes (``host_ready``)."""
        async with self._epoch_lock:
            if epoch is None or epoch == self.epoch:
                return
            first, self.epoch = self.epoch is None, epoch
            if first:
                self.host_away = False
                self.host_ready.set()
            else:
                await self._reopen_sessions()

    async def _reopen_all(self) -> bool:
        async with self._epoch_lock:
            return await self._reopen_sessions()

    async def _reopen_sessions(self) -> bool:
        """Open every session of this edge at the host again (it restarted, or it closed them for an
        edge it could not see; the epoch lock is held): intents wait meanwhile (``host_ready``), and
        what was sent before is sent again after (``renewal``).  False if the host did not answer for
        one of them."""
        self.host_away = True
        self.host_ready.clear()
        answered = True
        for backend in list(self.sessions.values()):
            try:
                answered = await backend.reopen() and answered
            except Exception:
                log.exception("could not reopen session %s", backend.id)
        self.host_away = False
        self.host_ready.set()
        self._renew()
        return answered

    def renewal(self) -> asyncio.Event:
        """Set once the host (restarted, our sessions opened there again) or Redis (restarted
        empty) is back: what was sent before may be lost, and is sent again."""
        return self._renewal

    def _renew(self) -> None:
        renewed, self._renewal = self._renewal, asyncio.Event()
        renewed.set()

    def _tell_all(self, note: Note) -> None:
        for backend in list(self.sessions.values()):
            for h in backend._handles:
                h.local_notice(note)

    async def _resync_all(self) -> None:
        for backend in list(self.sessions.values()):
            for h in list(backend._handles):
                try:
                    await h.resync()
                except Exception:
                    log.exception("could not resync a seat")

    def _bus_state(self, state: str) -> None:
        """Redis lost: the players are told their match is paused (the host, which cannot
        reach this edge either, stops its clocks), the bus retries; back: every seat catches
        up, the host's notice replacing this edge's own."""
        if state == "reconnecting":
            self._tell_all(REDIS_LOST)
        elif state == "connected":
            asyncio.get_running_loop().create_task(self._resync_all())
            self._renew()

    async def _follow_lobby(self) -> None:
        sub = await self.bus.lobby()
        async for data in sub:
            try:
                message = WIRE.decode(data)
                if not isinstance(message, M.LobbySnapshot | M.LobbyChanges):
                    raise CodecError(f"a {type(message).__name__} where the lobby was expected")
            except CodecError as error:  # an older or newer host's: said, and dropped
                log.warning("dropped a lobby message that cannot be read: %s", error)
                continue
            if message.epoch != self.epoch:
                asyncio.get_running_loop().create_task(self._saw_epoch(message.epoch))
            if not self._lobby_took(message):
                continue
            for call in list(self._lobby_callbacks):
                try:
                    call()
                except Exception:
                    log.exception("lobby subscriber failed")

    async def _follow_chat(self) -> None:
        """The lobby's chat: its own stream (a channel beside the snapshot), to every
        session of this edge that listens."""
        from server.chat.rooms import LOBBY_STREAM

        sub = await self.bus.subscribe_seat(*LOBBY_STREAM)
        async for item in sub:
            if not isinstance(item, BusMessage):
                continue
            try:
                line = WIRE.decode(item.payload)
                if not isinstance(line, ChatLine):
                    raise CodecError(f"a {type(line).__name__} on the lobby's chat")
            except CodecError as error:  # an older or newer host's: said, and dropped
                log.warning("dropped a lobby chat line that cannot be read: %s", error)
                continue
            for call in list(self._chat_callbacks):
                try:
                    call(line)
                except Exception:
                    log.exception("lobby chat listener failed")

    def listen_chat(self, callback: Callable[[Any], None]) -> Callable[[], None]:
        call = _in_context(callback)
        self._chat_callbacks.append(call)

        def unlisten() -> None:
            if call in self._chat_callbacks:
                self._chat_callbacks.remove(call)

        return unlisten

    def _lobby_took(self, message: M.LobbySnapshot | M.LobbyChanges) -> bool:
        """The host's lobby message applied (False: nothing changed, or a delta that does not
        follow what this edge holds: it waits for the next whole snapshot)."""
        log_ = self.lobby_log
        if isinstance(message, M.LobbySnapshot):
            self._lobby_at = (message.epoch, message.snapshot.version)
            before = log_.version
            return log_.publish(message.snapshot).version != before
        delta = message.delta
        if self._lobby_at != (message.epoch, delta.base):
            self._lobby_at = None
            return False
        self._lobby_at = (message.epoch, delta.version)
        return log_.advance(delta)

    def snapshot(self) -> Any:
        return self.lobby_log.snapshot

    def subscribe_lobby(self, callback: Callable[[], None]) -> Callable[[], None]:
        call = _in_context(callback)
        self._lobby_callbacks.append(call)

        def unsubscribe() -> None:
            if call in self._lobby_callbacks:
                self._lobby_callbacks.remove(call)

        return unsubscribe

    def _pushed(self, payload: Any) -> None:
        try:
            message = WIRE.decode(payload)
            if not isinstance(message, M.Pushed):
                raise CodecError(f"a {type(message).__name__} pushed")
        except CodecError as error:  # an older or newer host's: said, and dropped
            log.warning("dropped a push that cannot be read: %s", error)
            return
        if isinstance(message.event, M.AnalysisProgress):  # (to this edge: whoever follows it)
            for listener in list(self._analyses.get(message.event.match, ())):
                listener(message.event.done, message.event.total)
            return
        session = self.sessions.get(message.session)
        if session is not None:
            session.pushed(message.event)

    def follow_analysis(self, match_id: int, progress: Callable[[int, int], None]) -> Callable[[], None]:
        """``progress(done, total)`` as the host's analysis of ``match_id`` goes; returns the stop."""
        call = _in_context(progress)
        self._analyses.setdefault(match_id, []).append(call)

        def stop() -> None:
            listeners = self._analyses.get(match_id, [])
            if call in listeners:
                listeners.remove(call)
            if not listeners:
                self._analyses.pop(match_id, None)

        return stop

    async def ask(self, session: str, c: Call, timeout: float, **args: Any) -> Any:
        """Call ``c`` for ``session`` (or for this edge: "") and return its answer's value;
        raises the host's refusal (:class:`~tui.ports.Refused`), "not answering" after ``timeout``."""
        try:
            payload = await self.calls.call(session, WIRE.encode(c(**args)), timeout=timeout)
        except NoReply:
            raise Refused(NOT_ANSWERING) from None
        try:
            answer = WIRE.decode(payload)
            if not isinstance(answer, M.Reply):
                raise refusal(answer)
            return WIRE.decoder(c.result)(answer.value)
        except CodecError as error:  # an older or newer host's: said; a failure for the caller
            log.warning("the answer to %s cannot be read: %s", c.tag, error)
            raise Refused("failed") from None

    async def open_session(self, identity: str | None, username: str, initial: tuple[str, str] | None,
                           env: dict[str, str]) -> RemoteBackend:
        session = uuid.uuid4().hex
        opened = await self.ask(session, M.OPEN, 5.0, identity=identity, username=username, initial=initial, env=env)
        backend = RemoteBackend(self, session, opened, env, username)
        self.sessions[session] = backend
        return backend

    def forget(self, backend: RemoteBackend) -> None:
        self.sessions.pop(backend.id, None)
        asyncio.get_running_loop().create_task(self._close_session(backend.id))

    async def _close_session(self, session: str) -> None:
        try:
            await self.ask(session, M.CLOSE, 5.0)
        except Refused:
            pass  # the host sees the session go with this edge's presence, or at its restart

    async def replay(self, match_id: int, identity: str | None) -> Any:
        """The replay of a finished match for ``identity`` (``ssh HOST replay ID``): the
        host checks it may be shown and sends its record; raises ``ReplayError`` saying why not."""
        from server.edge.coach import attach
        from server.replay import ReplayError, replay_of

        try:
            record = await self.ask("", M.REPLAY_RECORD, 10.0, id=int(match_id), identity=identity)
            return await attach(self, replay_of(record, record.seat_of(identity)), identity)
        except Refused as error:
            raise ReplayError.of(error.code, error.params) from None

    async def who_text(self, language: str = "en") -> str:
        return str(await self.ask("", M.WHO, 5.0, language=language))

    async def command(self, words: list[str], language: str = "en") -> M.CommandAnswer:
        """A kept command's answer (``leaderboard``, ``export``); a host that cannot be
        reached is raised (its refusal), any other refusal is the command's failure."""
        try:
            answer: M.CommandAnswer = await self.ask("", M.COMMAND, 10.0, words=tuple(words), ssh=self.ssh_line,
                                                     language=language)
        except Refused as error:
            if error.code in (NOT_ANSWERING, "host_away"):
                raise
            from tui.i18n import _

            return M.CommandAnswer(1, "", "voltage: " + _("the game server could not do that") + "\n")
        return answer

    async def kept_language(self, key: str) -> str | None:
        got = await self.ask("", M.KEPT_LANGUAGE, 5.0, key=key)
        return str(got) if got else None

    async def close(self) -> None:
        if self._presence is not None:  # (its thread's last word, off this loop)
            await asyncio.get_running_loop().run_in_executor(None, self._presence.stop)
        for task in self._tasks:
            task.cancel()
        for backend in list(self.sessions.values()):
            backend.close()
        await asyncio.sleep(0)
        await self.calls.close()
        await self.bus.close()
