"""The tui's seams over the bus: :class:`RemoteBackend` and :class:`RemoteSeatHandle`.

An edge holds no lobby and no match.  Decisions:

- **A lobby call is a request to the host** naming this session (:mod:`server.bus.rpc`);
  the host makes the same call on its :class:`~server.backend.SSHBackend` for the
  session, so every rule (names, rooms, rematch, who may watch) is decided in one
  place.  The lobby screen's synchronous calls block for one round trip (see the
  rpc module); a refusal comes back as its code and params and is raised as
  :class:`~tui.ports.Refused`; a host that does not answer is a refusal too (code
  ``not_answering``), never a hang.
- **A seat is a subscription to its channel** ``(match, seat)`` (a spectator's:
  ``-1``).  The reply that gives a seat carries its present (view, log entries,
  notice, names, version), so the screen draws at once; the handle then subscribes and
  asks for a full view once (an update published between the reply and the
  subscription would otherwise be missed for good if nothing followed it), and
  asks again whenever :func:`server.bus.gap` says one was missed.
- **An intent** is an :class:`~server.bus.Intent` with this session's next sequence
  number; its result (accepted, or the rule's refusal) comes back to the edge's
  inbox, and ``submit`` raises the engine's error class with the host's code and params.
- Callbacks (a seat's update, a lobby change, "superseded"/"follow") run in the
  context they were registered in, as the in-process host does: a Textual app
  finds itself through a context variable.
- The lobby snapshot is the latest one the host published (at most one a second);
  ``snapshot()`` never waits.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import itertools
import json
import logging
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from server.bus import Bus, Intent, Subscription, gap
from server.bus import Update as BusUpdate
from server.bus.rpc import EdgeCalls, NoReply, PresenceBeat
from server.cluster.codec import CodecError, _cls, decode, encode
from server.games import IDS, TITLES
from server.lobby.models import bot_strengths
from tui.ports import Entry, Handles, HistoryItem, LinkedBrowser, Note, Notice, RatingChange, Refused, Update

log = logging.getLogger(__name__)

FIRST_GAME = IDS[0]
NOT_ANSWERING = "not_answering"  # a refusal's code: the host did not answer in time
HOST_AWAY = Note("host_away")  # the status notice while the host restarts
REDIS_LOST = Note("connection_lost")  # ... while the bus reconnects
HEARTBEAT = 1.0
EDGE_TTL = 3.0
HOST_PRESENCE = "host-"  # + the host's epoch (server.cluster.host.HOST_PRESENCE)


def _in_context(callback: Callable[..., Any]) -> Callable[..., Any]:
    ctx = contextvars.copy_context()
    return lambda *a: ctx.run(callback, *a)


class RemoteSeatHandle:
    """One seat (or a spectator's view) of a match hosted elsewhere; satisfies ``SeatHandle``."""

    def __init__(self, client: EdgeClient, session: RemoteBackend, data: dict[str, Any]) -> None:
        self.client = client
        self.session = session
        self.match = str(data["m"])
        self.key = int(data["s"])
        self.game = str(data["game"])
        self.seat: int | None = data["seat"]
        self._names = tuple(data["names"])
        self._log: list[Entry] = list(decode(data["log"]))
        self._notice: Notice = tuple(decode(data["notice"]))
        self._countdown = data.get("countdown")
        self._version = int(data["version"])
        self._view = decode(data["view"])
        self.against_human = bool(data.get("against_human", False))
        self._extras: dict[str, Any] = decode(data["extras"]) if data.get("extras") is not None else {}
        self._callbacks: list[Callable[[Update[Any]], None]] = []
        self._sub: Subscription[BusUpdate] | None = None
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

    # (a game's extras, as the latest update gave them: the screens read them at start)
    @property
    def clock(self) -> Any:
        return self._extra("clock", None)

    @property
    def abort_from(self) -> float | None:
        return self._extra("abort_from", None)

    @property
    def draw_offer(self) -> int | None:
        return self._extra("draw_offer", None)

    @property
    def idle(self) -> tuple[int, ...]:
        return tuple(self._extra("idle", ()))

    @property
    def bot_playing(self) -> tuple[int, ...]:
        return tuple(self._extra("bot_playing", ()))

    def _extra(self, name: str, default: Any) -> Any:
        """A game's extra as the latest update gave it (else as the seat was described)."""
        if self._last is not None:
            return getattr(self._last, name, default)
        return self._extras.get(name, default)

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

    # -- intents --------------------------------------------------------------------
    async def submit(self, action: Any) -> None:
        await self._send({"k": "submit", "a": encode(action)})

    async def resign(self) -> None:
        await self._send({"k": "resign"})

    # (the host's handle does these: server.cluster.host.HANDLE_CALLS)
    async def offer_draw(self) -> None:
        await self._call("offer_draw")

    async def answer_draw(self, accept: bool) -> None:
        await self._call("answer_draw", accept)

    async def continue_without(self, seat: int | None = None) -> None:
        await self._call("continue_without", seat)

    async def take_seat_back(self) -> None:
        await self._call("take_seat_back")

    async def _call(self, name: str, *args: Any) -> None:
        await self._send({"k": "call", "name": name, "args": encode(list(args))})

    async def _send(self, payload: dict[str, Any]) -> None:
        from engine.errors import RuleError

        if self.seat is None:
            raise RuleError("spectator", act="act")
        if self.client.host_away:  # the move waits for the host (it will resume), a while
            try:
                await asyncio.wait_for(self.client.host_ready.wait(), 30.0)
            except TimeoutError:
                raise RuleError("host_away") from None
        seq = self.session.next_seq()
        rid = self.client.calls.new_id()
        future = self.client.calls.expect(rid)
        intent = Intent(self.match, self.key, self.session.id, seq, {**payload, "id": rid, "e": self.client.edge})
        await self.client.bus.send_intent(intent)
        try:
            result = await asyncio.wait_for(future, 30.0)
        except TimeoutError:
            raise RuleError(NOT_ANSWERING) from None
        if "rule" in result:
            raise _rule_error(result.get("cls", ""), str(result["rule"]), decode(result.get("p") or {}))

    # -- updates --------------------------------------------------------------------
    async def _follow(self) -> None:
        bus = self.client.bus
        self._sub = await bus.subscribe_updates(self.match, self.key)
        await self._ask()
        async for u in self._sub:
            if gap(self._version, u):
                if u.version > self._version:
                    await self._ask()
                continue
            self._asked = False
            self._apply(u)

    async def _ask(self) -> None:
        if not self._asked:
            self._asked = True
            await self.client.bus.request_full(self.match, self.key)

    def _apply(self, u: BusUpdate) -> None:
        p = u.payload
        update: Update[Any] = decode(p["u"])
        if u.full:
            full = list(decode(p["log"]))
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

    def local_notice(self, note: Note) -> None:
        """Show ``note`` as the status notice (the host is away), the rest as it was."""
        self._notice = (note,)
        base = self._last if self._last is not None else Update(self._view, (), (), self._countdown, self._version,
                                                                self._names)
        self._tell(dataclasses.replace(base, entries=(), notice=self._notice))

    async def resync(self) -> None:
        """Ask for the full view again (the host restarted and has this seat back)."""
        self._asked = False
        await self._ask()

    async def close(self) -> None:
        self._task.cancel()
        if self._sub is not None:
            await self._sub.close()


def _rule_error(name: str, code: str, params: Any) -> Exception:
    """The engine's error the host refused an intent with: its class (when it is one of the
    engine's), its code and params."""
    from engine.errors import RuleError

    params = params if isinstance(params, dict) else {}
    try:
        cls = _cls(name)
        if issubclass(cls, RuleError):
            return cls.of(code, params)
    except (CodecError, TypeError, ImportError, AttributeError):
        pass
    return RuleError.of(code, params)


def refusal(reply: dict[str, Any], cls: type[Refused] = Refused) -> Refused:
    """The refusal a host's reply carries (``refused``: its code, ``p``: its params; ``error``:
    the host failed), or "not answering" when it carries none."""
    if "refused" in reply:
        params = decode(reply.get("p") or {})
        return cls.of(str(reply["refused"]), params if isinstance(params, dict) else {})
    if "error" in reply:
        return cls("failed")
    return cls(NOT_ANSWERING)


class _Named:
    """A player as a challenge names one (the screens read ``.name``)."""

    def __init__(self, name: str) -> None:
        self.name = name


class RemoteChallenge:
    """A challenge the host keeps: who, which game, how long it has left, its answer."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.id = str(data["$c"])
        self.game = str(data["game"])
        self.challenger = _Named(data["challenger"])
        self.target = _Named(data["target"])
        self._expires = time.monotonic() + float(data["left"])

    @property
    def seconds_left(self) -> float:
        return max(0.0, self._expires - time.monotonic())


@dataclass
class RemoteRoom:
    """A private room this session opened (its ``future``: the handles once it fills)."""

    backend: RemoteBackend
    code: str
    game: str
    size: int
    future: asyncio.Future[Any]

    @property
    def names(self) -> tuple[str, ...]:
        seated = self.backend.seated(self.code)
        return seated[0] if seated else ()


class RemoteBackend:
    """One SSH session on this edge, a player in the host's lobby (``LobbyBackend``)."""

    online = True
    games = IDS
    game_titles = TITLES

    def __init__(self, client: EdgeClient, session: str, opened: dict[str, Any], env: dict[str, str],
                 username: str = "") -> None:
        self.client = client
        self.id = session
        self.username = username
        o = opened["ok"]
        self.name_prefill = o["prefill"]
        self.initial = tuple(o["initial"]) if o.get("initial") else None
        self._guest = bool(o["guest"])
        self._grace = float(o["grace"])
        self._bot_offer_after = float(o["bot_offer_after"])
        self._identity = o.get("identity")
        self.env = env
        self._state: dict[str, Any] = opened.get("st", {})
        self.stored_name = self._state.get("stored_name")
        self.room: RemoteRoom | None = None
        self._seq = itertools.count(1)
        self._handles: list[RemoteSeatHandle] = []
        self._listener: Callable[[str, Any], None] | None = None
        self._challenges: dict[str, RemoteChallenge] = {}
        self._answers: dict[tuple[Any, ...], tuple[Any, float]] = {}  # see _polled
        self._asking: set[tuple[Any, ...]] = set()
        self._stale: set[tuple[Any, ...]] = set()  # answers to ask again (the lobby changed)
        self._lobby_listeners: list[Callable[[], None]] = []
        self.closed = False

    def next_seq(self) -> int:
        return next(self._seq)

    # -- calls ----------------------------------------------------------------------
    def _handle(self, data: dict[str, Any]) -> Any:
        if "$c" in data:  # a challenge: one object per challenge, so "challenge-over" finds it
            ch = self._challenges.get(str(data["$c"]))
            if ch is None:
                ch = self._challenges[str(data["$c"])] = RemoteChallenge(data)
            return ch
        h = RemoteSeatHandle(self.client, self, data)
        self._handles.append(h)
        return h

    def _arg(self, value: Any) -> Any:
        if isinstance(value, RemoteSeatHandle):
            return {"$h": 1, "m": value.match, "s": value.key}
        if isinstance(value, RemoteChallenge):
            return {"$c": value.id}
        return None

    def _result(self, reply: dict[str, Any]) -> Any:
        if "st" in reply:
            self._state = reply["st"]
        if "refused" in reply or "error" in reply:
            raise refusal(reply)
        return decode(reply.get("ok"), self._handle)

    def _call(self, op: str, *args: Any) -> Any:
        if self.client.host_away:  # known to be away: say so now, not after a timeout
            raise Refused("host_away")
        try:
            reply = self.client.calls.call_sync(self.id, op, {"a": encode(list(args), self._arg)})
        except NoReply:
            raise Refused(NOT_ANSWERING) from None
        return self._result(reply)

    async def _acall(self, op: str, *args: Any, timeout: float | None = None) -> Any:
        try:
            reply = await self.client.calls.call(self.id, op, {"a": encode(list(args), self._arg)}, timeout=timeout)
        except NoReply:
            raise Refused(NOT_ANSWERING) from None
        return self._result(reply)

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
            return await self._acall("rematch", list(handles))
        except Refused:
            return None

    def rating_change(self, handles: Sequence[Any]) -> tuple[RatingChange, ...] | None:
        try:
            changes = self._call("rating_change", list(handles))
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
            answer = await self.client.command(["browsers", self._identity])
            rows = json.loads(answer["out"]) if answer.get("code") == 0 and answer.get("out") else []
            return [LinkedBrowser(str(label), float(linked), float(seen)) for label, linked, seen in rows]
        except Exception:  # (not answering: nothing to list)
            log.warning("could not list the browsers linked to %s", self._identity, exc_info=True)
            return []

    @property
    def name(self) -> str:
        return str(self._state.get("name", ""))

    @property
    def named(self) -> bool:
        return bool(self._state.get("named"))

    @property
    def superseded(self) -> bool:
        return bool(self._state.get("superseded"))

    def listen(self, callback: Callable[[str, Any], None]) -> None:
        self._listener = _in_context(callback)

    def pushed(self, message: dict[str, Any]) -> None:
        """What the host pushed to this session: a lobby event, a room filled."""
        kind = message["push"]
        if kind == "listen":
            handles = decode(message.get("handles"), self._handle)
            if message["event"] == "challenge-over" and isinstance(handles, RemoteChallenge):
                self._challenges.pop(handles.id, None)
            if message["event"] == "superseded":
                self._state = {**self._state, "superseded": True}
            if self._listener is not None:
                self._listener(message["event"], handles)
        elif kind == "room" and self.room is not None and self.room.code == message["code"]:
            future = self.room.future
            if not future.done():
                if "refused" in message:
                    future.set_exception(refusal(message))
                else:
                    future.set_result(decode(message["handles"], self._handle))

    # -- challenges -------------------------------------------------------------------
    def challenge(self, name: str, game: str = FIRST_GAME) -> Any:
        return self._call("challenge", name, game)

    async def challenge_answer(self, challenge: Any) -> Handles:
        return await self._acall("challenge_answer", challenge)

    def answer_challenge(self, challenge: Any, accept: bool) -> Handles | None:
        return self._call("answer_challenge", challenge, accept)

    def withdraw_challenge(self, challenge: Any) -> None:
        self._call("withdraw_challenge", challenge)

    def refuses_challenges(self) -> bool:
        return bool(self._call("refuses_challenges"))

    def set_challenges(self, welcome: bool) -> None:
        self._call("set_challenges", welcome)

    # -- settings that follow the key (kept by the host) ----------------------------------
    def settings(self) -> dict[str, str]:
        try:
            return dict(self._call("settings"))
        except Refused:
            return {}

    def save_setting(self, key: str, value: str) -> None:
        try:
            self._call("save_setting", key, value)
        except Refused:
            log.warning("could not keep the setting %s: the host did not answer", key)

    def start_colours(self) -> str | None:
        if "NO_COLOR" in self.env:
            return "none"
        try:
            return self._call("start_colours")
        except Refused:
            return None

    def colours_forced(self) -> str | None:
        try:
            return self._call("colours_forced")
        except Refused:
            return None

    def claim_name(self, name: str) -> str:
        return self._call("claim_name", name)

    def resumable(self) -> bool:
        return bool(self._call("resumable"))

    def resume(self) -> Handles | None:
        return self._call("resume")

    # -- the lobby's choices ------------------------------------------------------------
    @property
    def bot_offer_after(self) -> float:
        return self._bot_offer_after

    def strengths(self) -> list[tuple[str, str]]:
        return bot_strengths()

    def bot_levels(self, game: str) -> tuple[str, ...]:
        """The bot levels a table of ``game`` offers (the server registry's, known here too)."""
        from server import games

        return games.game(game).bot_levels()

    def hv_starts_in(self) -> float | None:
        got = self._polled("hv_starts_in")
        if got is None or got[0] is None:
            return None
        value, at = got
        return max(0.0, float(value) - (time.monotonic() - at))  # counted down here meanwhile

    def snapshot(self) -> Any:
        return self.client.snapshot()

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        call = _in_context(callback)
        self._lobby_listeners.append(call)

        def lobby_changed() -> None:  # the polled answers may have changed with it: asked again
            self._stale.update(self._answers)
            call()

        unsubscribe_client = self.client.subscribe_lobby(lobby_changed)

        def unsubscribe() -> None:
            unsubscribe_client()
            if call in self._lobby_listeners:
                self._lobby_listeners.remove(call)

        return unsubscribe

    # -- what the lobby screen polls --------------------------------------------------
    # A waiting table's start (asked each second) and who sits at a room (at each lobby
    # change): a blocking round trip each stopped every session of the edge meanwhile,
    # for as long as the host took (up to the call's timeout).  Each is the host's last
    # answer, asked again in the background at most every POLL_AGAIN s and at each lobby
    # change; an answer that changed redraws this session's lobby (its subscribers).
    POLL_AGAIN = 1.0

    def _polled(self, op: str, *args: Any) -> tuple[Any, float] | None:
        """(the host's last answer to ``op(*args)``, when it came), None before the first."""
        key = (op, *args)
        got = self._answers.get(key)
        if key not in self._asking and not self.client.host_away and (
            got is None or key in self._stale or time.monotonic() - got[1] >= self.POLL_AGAIN
        ):
            self._asking.add(key)
            asyncio.get_running_loop().create_task(self._ask(key))
        return got

    async def _ask(self, key: tuple[Any, ...]) -> None:
        op, *args = key
        try:
            try:
                value = await self._acall(op, *args, timeout=3.0)
            except Refused:  # (not answering, or refused: nothing to show)
                value = None
            before = self._answers.get(key)
            self._answers[key] = (value, time.monotonic())
            self._stale.discard(key)
        finally:
            self._asking.discard(key)
        if before is None or before[0] != value:
            for call in list(self._lobby_listeners):
                call()

    def enter_lobby(self) -> None:
        """Back in the lobby: the seats and watched matches of before are let go (the
        host lets go of them for this session too); a rematch or a resume gives new ones."""
        self.room = None
        self._call("enter_lobby")
        self._let_go()

    def _let_go(self) -> None:
        handles, self._handles = self._handles, []
        for h in handles:
            asyncio.get_running_loop().create_task(h.close())

    async def quick_match(self, game: str = FIRST_GAME) -> Handles:
        return await self._acall("quick_match", game)

    def play_bot(self, bot: str, game: str = FIRST_GAME) -> Handles:
        return self._call("play_bot", bot, game)

    def create_room(self, game: str = FIRST_GAME, size: int = 4, time_control: str = "default") -> RemoteRoom:
        """A private room (``time_control``: a Voltage room's clock, as the host's backend takes it)."""
        try:
            reply = self.client.calls.call_sync(self.id, "create_room",
                                                {"game": game, "size": size, "more": encode([time_control])})
        except NoReply:
            raise Refused(NOT_ANSWERING) from None
        info = self._result(reply)
        self.room = RemoteRoom(self, info["code"], info["game"], int(info["size"]),
                               asyncio.get_running_loop().create_future())
        return self.room

    def start_room(self) -> None:
        if self.room is not None:
            self._call("start_room")

    def close_room(self) -> None:
        if self.room is not None:
            self.room = None
            self._call("close_room")

    def seated(self, code: str) -> tuple[tuple[str, ...], int] | None:
        got = self._polled("seated", code)  # (see "what the lobby screen polls")
        if got is None or got[0] is None:
            return None
        names, size = got[0]
        return tuple(names), int(size)

    def room_game(self, code: str) -> str | None:
        return self._call("room_game", code)

    def join_room(self, code: str) -> Handles:
        return self._call("join_room", code)

    async def join(self, code: str) -> Handles:
        return await self._acall("join", code)

    def watch(self, code: str) -> Handles:
        return self._call("watch", code)

    # -- what was kept ----------------------------------------------------------------
    def ratings(self) -> list[tuple[str, int, int]]:
        try:
            return [tuple(r) for r in self._call("ratings")]
        except Refused:
            return []

    def history(self, limit: int = 20) -> list[HistoryItem]:
        try:
            return [item for item in self._call("history", limit) if isinstance(item, HistoryItem)]
        except Refused:
            return []

    def open_replay(self, match_id: int) -> Any:
        """The replay of a finished match: its record comes from the host (it checked the
        match is over, so every hand in it is public), the positions are worked out here."""
        from server.replay import ReplayError, replay_of

        try:
            reply = self.client.calls.call_sync(self.id, "replay", {"id": int(match_id)}, timeout=10.0)
        except NoReply:
            raise ReplayError(NOT_ANSWERING) from None
        if "ok" not in reply:
            raise refusal(reply, ReplayError)
        record = decode(reply["ok"])
        return replay_of(record, record.seat_of(self.identity))

    def replay_screen(self, match_id: int) -> Any:
        from tui.screens.replay import replay_screen

        return replay_screen(self.open_replay(match_id))

    def leaderboard_games(self) -> list[tuple[str, str]]:
        return [tuple(g) for g in self._call("leaderboard_games")]

    def leaderboard(self, game: str, n: int = 20) -> list[Any]:
        return list(self._call("leaderboard", game, n))

    async def reopen(self) -> None:
        """The host restarted: open this session there again, with its name and its seats."""
        seats = [[h.match, h.key] for h in self._handles]
        args = {"identity": self._identity, "username": self.username, "initial": None, "env": self.env,
                "name": self.name if self.named else "", "seats": seats}
        try:
            reply = await self.client.calls.call(self.id, "reopen", args, timeout=10.0)
        except NoReply:
            return
        if "st" in reply:
            self._state = reply["st"]
        mine = {(h.match, h.key): h for h in self._handles}
        given = (reply.get("ok") or {}).get("handles") or []
        for data in given:  # the seats it has back: the handles the screens hold carry on
            h = mine.get((str(data["m"]), int(data["s"])))
            if h is not None:
                await h.resync()

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
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
        self._snapshot: Any = None
        self._lobby_callbacks: list[Callable[[], None]] = []
        self._tasks: list[asyncio.Task[Any]] = []
        self.epoch: str | None = None  # the host's run (a new one: it restarted)
        self.host_away = False
        self.host_ready = asyncio.Event()  # set while the host is there and knows our sessions
        self.host_ready.set()
        self._epoch_lock = asyncio.Lock()
        self._presence: PresenceBeat | None = None

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
        url = getattr(self.bus, "url", None)
        if url is not None:  # (the presence beats from a thread: see PresenceBeat)
            self._presence = PresenceBeat(url, self.edge, EDGE_TTL, namespace=getattr(self.bus, "ns", "voltage"))
            self._presence.start()
        else:
            await self.bus.heartbeat(self.edge, EDGE_TTL)
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._beat(), name="edge-heartbeat"),
                       loop.create_task(self._follow_lobby(), name="edge-lobby")]

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
            elif self.host_away:  # back, the same run (Redis restarted, or a slow beat)
                self.host_away = False
                self.host_ready.set()
                await self._resync_all()

    async def _saw_epoch(self, epoch: str | None) -> None:
        """The host's run is ``epoch``: a new one (it restarted) knows none of our sessions,
        so each is opened there again before any intent goes (``host_ready``)."""
        async with self._epoch_lock:
            if epoch is None or epoch == self.epoch:
                return
            first, self.epoch = self.epoch is None, epoch
            if not first:
                self.host_away = True
                self.host_ready.clear()
                for backend in list(self.sessions.values()):
                    try:
                        await backend.reopen()
                    except Exception:
                        log.exception("could not reopen session %s", backend.id)
            self.host_away = False
            self.host_ready.set()

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
        """Redis lost: the players are told, the bus retries; back: every seat catches up."""
        if state == "reconnecting":
            self._tell_all(REDIS_LOST)
        elif state == "connected":
            asyncio.get_running_loop().create_task(self._resync_all())

    async def _follow_lobby(self) -> None:
        sub = await self.bus.lobby()
        async for message in sub:
            try:
                self._snapshot = decode(message["snapshot"])
            except Exception:
                log.exception("bad lobby snapshot")
                continue
            if message.get("epoch") != self.epoch:
                asyncio.get_running_loop().create_task(self._saw_epoch(message.get("epoch")))
            for call in list(self._lobby_callbacks):
                try:
                    call()
                except Exception:
                    log.exception("lobby subscriber failed")

    def snapshot(self) -> Any:
        if self._snapshot is None:
            from server.lobby.models import Snapshot

            return Snapshot((), (), {})
        return self._snapshot

    def subscribe_lobby(self, callback: Callable[[], None]) -> Callable[[], None]:
        call = _in_context(callback)
        self._lobby_callbacks.append(call)

        def unsubscribe() -> None:
            if call in self._lobby_callbacks:
                self._lobby_callbacks.remove(call)

        return unsubscribe

    def _pushed(self, message: dict[str, Any]) -> None:
        session = self.sessions.get(message.get("session", ""))
        if session is not None:
            session.pushed(message)

    async def open_session(self, identity: str | None, username: str, initial: tuple[str, str] | None,
                           env: dict[str, str]) -> RemoteBackend:
        session = uuid.uuid4().hex
        args = {"identity": identity, "username": username, "initial": list(initial) if initial else None, "env": env}
        try:
            reply = await self.calls.call(session, "open", args, timeout=5.0)
        except NoReply:
            raise Refused(NOT_ANSWERING) from None
        if "ok" not in reply:
            raise refusal(reply)
        backend = RemoteBackend(self, session, reply, env, username)
        self.sessions[session] = backend
        return backend

    def forget(self, backend: RemoteBackend) -> None:
        self.sessions.pop(backend.id, None)
        asyncio.get_running_loop().create_task(self._close_session(backend.id))

    async def _close_session(self, session: str) -> None:
        try:
            await self.calls.call(session, "close", {}, timeout=5.0)
        except NoReply:
            pass  # the host sees the session go with this edge's presence, or at its restart

    async def replay(self, match_id: int, identity: str | None) -> Any:
        """The replay of a finished match for ``identity`` (``ssh HOST replay ID``): the
        host checks it may be shown and sends its record; raises ``ReplayError`` saying why not."""
        from server.replay import ReplayError, replay_of

        try:
            reply = await self.calls.call("", "replay_record", {"id": int(match_id), "identity": identity},
                                          timeout=10.0)
        except NoReply:
            raise ReplayError(NOT_ANSWERING) from None
        if "ok" not in reply:
            raise refusal(reply, ReplayError)
        record = decode(reply["ok"])
        return replay_of(record, record.seat_of(identity))

    async def who_text(self) -> str:
        reply = await self.calls.call("", "who", {}, timeout=5.0)
        return str(reply.get("ok", ""))

    async def command(self, words: list[str]) -> dict[str, Any]:
        reply = await self.calls.call("", "command", {"words": words, "ssh": self.ssh_line}, timeout=10.0)
        return reply.get("ok") or {"code": 1, "out": "", "err": "voltage: the game server could not do that\n"}

    async def close(self) -> None:
        if self._presence is not None:
            self._presence.stop()
        for task in self._tasks:
            task.cancel()
        for backend in list(self.sessions.values()):
            backend.close()
        await asyncio.sleep(0)
        await self.calls.close()
        await self.bus.close()
