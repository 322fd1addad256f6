"""The lobby: one service shared by every SSH session of a server.

It knows who is online, runs the quick-match queue of each game, the private
rooms (four-letter codes), the bot matches and the spectators, and looks after
dropped players: a dropped seat is kept for a grace period (the other screens
show a countdown), then a bot plays it until the same identity comes back.

Everything here runs on the server's event loop; nothing blocks.  Screens see
matches only through :class:`~server.host.voltage.SeatHandle`.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import logging
import random
import re
import time
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from server.host.voltage import Match, Seat, SeatHandle

if TYPE_CHECKING:  # pragma: no cover
    from server.store.db import Store

log = logging.getLogger(__name__)

GAMES: tuple[str, ...] = ("voltage", "high-voltage")
GAME_TITLES = {"voltage": "Voltage", "high-voltage": "High Voltage"}
HV = "high-voltage"  # 2 to 4 seats, real time: its tables are :class:`server.lobby.highvoltage.HVTables`

NAME_MAX = 16
_NAME_RE = re.compile(r"[A-Za-z0-9_.\-]+(?: [A-Za-z0-9_.\-]+)*")
_NAME_DROP = re.compile(r"[^A-Za-z0-9_.\-]")
# Names that would read as words in someone else's log and results ("You goes first.", "Nobody wins.").
_MISLEADING = frozenset({"you", "nobody"})
CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: they read as 1 and 0
CODE_LEN = 4

GRACE_SECONDS = 60.0
CHALLENGE_SECONDS = 30.0  # a challenge not answered by then expires
BOT_OFFER_SECONDS = 20.0
REMATCH_WAIT_SECONDS = 120.0


class LobbyError(ValueError):
    """A lobby request that cannot be done; the message says why, in one line."""


class NameRejected(LobbyError):
    """A name that is not allowed or taken."""


def check_name(name: str) -> str:
    """The name as it will be shown, or :class:`NameRejected` saying what is wrong."""
    name = name.strip()
    if not name:
        raise NameRejected("a name is needed")
    if len(name) > NAME_MAX:
        raise NameRejected(f"at most {NAME_MAX} characters")
    if not _NAME_RE.fullmatch(name):
        raise NameRejected("letters, digits, '-', '_', '.' and single spaces only")
    if name.casefold() in _MISLEADING:
        raise NameRejected(f"{name!r} would read as a word on other players' screens: choose another")
    return name


def name_from_username(username: str | None) -> str:
    """A name to prefill from an SSH username: unsafe characters dropped, cut to size."""
    name = _NAME_DROP.sub("", username or "")[:NAME_MAX]
    return name if name and name.casefold() not in _MISLEADING else "guest"


def bot_strengths() -> list[tuple[str, str]]:
    """``(label, bot name)`` for each strength of bot that exists, weakest first."""
    try:
        from engine.voltage import bots
    except ImportError:  # pragma: no cover
        return [("random", "random")]
    names = tuple(getattr(bots, "BOT_NAMES", ("random",)))
    strengths = getattr(bots, "STRENGTHS", None)
    out: list[tuple[str, str]] = []
    if isinstance(strengths, dict):
        for key, value in strengths.items():
            out.append((str(getattr(value, "label", key)), str(getattr(value, "name", key))))
    elif strengths:
        for s in strengths:
            name = str(getattr(s, "name", s))
            out.append((str(getattr(s, "label", name)), name))
    out = [(label, bot) for label, bot in out if bot in names]
    if not out:
        out = [(n, n) for n in names]
    return out


def known_bots() -> set[str]:
    try:
        from engine.voltage import bots
    except ImportError:  # pragma: no cover
        return {"random"}
    return set(getattr(bots, "BOT_NAMES", ("random",))) | {b for _l, b in bot_strengths()}


def takeover_bot() -> str:
    """The bot that plays a dropped player's seat: a middling one."""
    strengths = bot_strengths()
    for _label, bot in strengths:
        if bot == "medium":
            return bot
    return strengths[(len(strengths) - 1) // 2][1] if strengths else "random"


def _in_context(callback: Callable, *args) -> Callable[[], None]:
    """Call ``callback`` later in the context it was created in (its own app's)."""
    ctx = contextvars.copy_context()
    return lambda: ctx.run(callback, *args)


# ---------------------------------------------------------------------------


_ids = itertools.count(1)


@dataclass(eq=False)
class Player:
    """One connected session (online once it has a name)."""

    identity: str | None  # public-key fingerprint, or None for a guest
    username: str = ""
    name: str = ""
    status: str = "lobby"  # lobby | waiting | room | playing | watching
    where: str = ""  # the match or room code of the status
    id: int = field(default_factory=lambda: next(_ids))
    connected_at: float = field(default_factory=time.time)
    # The session's screens, told when the lobby sends it elsewhere: ``listener(event,
    # handles)`` with event "superseded" (this key was opened in a newer session) or
    # "follow" (a match this session watched was rematched: ``handles`` watch the new one).
    listener: Callable[[str, Any], None] | None = field(default=None, repr=False)
    superseded: bool = False  # a newer session of the same key took over
    restored: bool = False  # a stand-in, after a restart, for a person not back yet
    refuses_challenges: bool = False  # a guest's (or a key's, in this session) "challenges: off"

    @property
    def seat_identity(self) -> str:
        """What a seat remembers: the key fingerprint, else a one-connection guest token."""
        return self.identity or f"guest:{self.id}"


@dataclass(eq=False)
class Hosted:
    """A match the lobby hosts: its code, its human players, spectators, timers."""

    code: str
    match: Match
    humans: list[Player | None]
    spectators: set[Player] = field(default_factory=set)
    grace: dict[int, asyncio.Task] = field(default_factory=dict)
    deadlines: dict[int, float] = field(default_factory=dict)
    rematch_wanted: dict[int, asyncio.Future] = field(default_factory=dict)
    rematched: bool = False
    recording: Any = None  # server.store.persist.Recording when the lobby has a store

    @property
    def game(self) -> str:
        return self.match.game

    @property
    def running(self) -> bool:
        return not self.match.over


@dataclass(eq=False)
class Room:
    """A private room waiting for its players; ``await room.future`` gives the owner's
    handles when it starts.  A High Voltage room also has its table (2 to 4 seats)."""

    code: str
    owner: Player
    game: str
    future: asyncio.Future
    table: Any = None  # server.lobby.highvoltage.HVTable for High Voltage

    @property
    def size(self) -> int:
        return self.table.size if self.table is not None else 2

    @property
    def names(self) -> tuple[str, ...]:
        """Who sits in the room so far."""
        return self.table.names if self.table is not None else (self.owner.name,)


@dataclass(eq=False)
class Challenge:
    """``challenger`` asks ``target`` for a match of ``game``; ``await challenge.future``
    gives the challenger's handles once accepted (a :class:`LobbyError` saying why not:
    declined, expired, taken back)."""

    challenger: Player
    target: Player
    game: str
    future: asyncio.Future
    expires_at: float
    timer: asyncio.TimerHandle | None = None

    @property
    def seconds_left(self) -> float:
        return max(0.0, self.expires_at - time.monotonic())


@dataclass(frozen=True)
class MatchInfo:
    code: str
    game: str
    names: tuple[str, ...]
    scores: tuple[int, ...]
    spectators: int

    def describe(self, short: bool = False) -> str:
        """One line: the players and the score (High Voltage: each one's cards left).
        ``short``: a narrower line for a narrow list (High Voltage: "HV" and the names)."""
        title = GAME_TITLES.get(self.game, self.game)
        if self.game == HV:
            if short:
                return "HV: " + ", ".join(self.names)
            seats = ", ".join(f"{n} {s}" for n, s in zip(self.names, self.scores))
            return f"{title}: {seats} cards left"
        return f"{title}: {' v '.join(self.names)}  {'-'.join(map(str, self.scores))}"


def match_scores(match: Any) -> tuple[int, ...]:
    """What a list of matches shows as the score: sets won (Voltage), cards left (High
    Voltage, whose match has ``scores``)."""
    return tuple(getattr(match, "scores", None) or match.view(None).scores)


@dataclass(frozen=True)
class PlayerInfo:
    name: str
    status: str


@dataclass(frozen=True)
class Snapshot:
    """What the lobby screen shows."""

    players: tuple[PlayerInfo, ...]
    matches: tuple[MatchInfo, ...]
    waiting: dict[str, int]


class Lobby:
    """Players online, quick-match queues, rooms, matches; see the module's notes."""

    def __init__(
        self,
        executor: Executor | None = None,
        *,
        grace: float = GRACE_SECONDS,
        bot_offer_after: float = BOT_OFFER_SECONDS,
        rematch_wait: float = REMATCH_WAIT_SECONDS,
        bot_delay: float = 0.7,
        seed: int | None = None,
        store: Store | None = None,
    ) -> None:
        self.executor = executor
        self.store = store  # players, names, match logs and ratings (None: nothing kept)
        self.grace_seconds = grace
        self.bot_offer_after = bot_offer_after
        self.rematch_wait = rematch_wait
        self.bot_delay = bot_delay
        self.players: dict[int, Player] = {}  # online: named and connected
        self.matches: dict[str, Hosted] = {}
        self.rooms: dict[str, Room] = {}
        self.queues: dict[str, list[tuple[Player, asyncio.Future]]] = {g: [] for g in GAMES}
        self.challenge_seconds = CHALLENGE_SECONDS
        self.challenges: list[Challenge] = []
        self.ssh_line = ""  # how players reach this server ("ssh -p 2222 HOST"), set by the server
        # The code of a rematched match -> the code of its latest rematch (``watch OLD``).
        self.rematch_codes: dict[str, str] = {}
        self._rng = random.Random(seed) if seed is not None else random.SystemRandom()
        self._listeners: list[Callable[[], None]] = []
        # Lobby screens redraw at most this often: each redraw costs every screen
        # on the lobby a render, and arrivals come in bursts.
        self.notify_delay = 1.0
        self._notify_handle: asyncio.Handle | None = None
        from server.lobby.highvoltage import HVTables  # (it imports this module)

        self.hv = HVTables(self)  # High Voltage's tables: quick, private, bots, rematch

    # -- listeners -----------------------------------------------------------

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` (in the subscriber's context) soon after the lobby changes."""
        call = _in_context(callback)
        self._listeners.append(call)

        def unsubscribe() -> None:
            if call in self._listeners:
                self._listeners.remove(call)

        return unsubscribe

    def _changed(self) -> None:
        # Coalesce: many changes in a moment make one refresh per screen.
        if self._notify_handle is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._notify_handle = loop.call_later(self.notify_delay, self._notify)

    def _notify(self) -> None:
        self._notify_handle = None
        for call in list(self._listeners):
            try:
                call()
            except Exception:
                log.exception("lobby listener failed")

    # -- facts ---------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        players = tuple(
            PlayerInfo(p.name, self._status_text(p))
            for p in sorted(self.players.values(), key=lambda p: p.name.lower())
        )
        matches = tuple(
            MatchInfo(h.code, h.game, tuple(h.match.names), match_scores(h.match), len(h.spectators))
            for h in self.matches.values()
            if h.running
        )
        waiting = {g: len(q) for g, q in self.queues.items()}
        waiting[HV] = sum(len(t.players) for t in self.hv.open_tables() if not t.private and not t.expected)
        return Snapshot(players, matches, waiting)

    def _status_text(self, p: Player) -> str:
        if p.status in ("playing", "watching"):
            # What the player is at follows the match: once it is over they are at
            # its results (or gone back), not "playing" it.
            h = self.matches.get(p.where)
            if h is None or not h.running:
                return f"just {'played' if p.status == 'playing' else 'watched'} {p.where}"
            return f"{p.status} {p.where}"
        if p.status == "waiting":
            return "in quick match"
        if p.status == "room":
            return "in a private room"
        return "in the lobby"

    def who_text(self) -> str:
        """Plain text for ``ssh HOST who``."""
        snap = self.snapshot()
        lines = [f"{len(snap.players)} online, {len(snap.matches)} matches running"]
        for p in snap.players:
            lines.append(f"  {p.name}  ({p.status})")
        for m in snap.matches:
            lines.append(f"  {m.code}  {m.describe()}")
        return "\n".join(lines) + "\n"

    def name_taken(self, name: str, by: Player | None = None) -> bool:
        """Is ``name`` in use by someone else online, or kept for a dropped key player?

        Another session of ``by``'s own key does not count: claiming the name makes
        the newest session take over (see :meth:`claim_name`).  A guest's name is
        free again as soon as the guest is gone."""
        key = name.lower()
        for p in self.players.values():
            if p is not by and p.name.lower() == key and not self._same_key(p, by):
                return True
        # Names of dropped key players still seated in a running match are kept for them.
        for h in self.matches.values():
            if not h.running:
                continue
            for i, human in enumerate(h.humans):
                if human is not None and human is not by and human.id not in self.players:
                    if not human.identity:
                        continue  # a guest cannot come back: its name is free
                    if by is not None and by.identity and h.match.seats[i].identity == by.identity:
                        continue
                    if human.name.lower() == key:
                        return True
        return False

    @staticmethod
    def _same_key(a: Player, b: Player | None) -> bool:
        return b is not None and bool(a.identity) and a.identity == b.identity

    def _other_session(self, player: Player) -> Player | None:
        """Another online session of ``player``'s key, if there is one."""
        if not player.identity:
            return None
        for p in self.players.values():
            if p is not player and p.identity == player.identity:
                return p
        return None

    def stored_name(self, player: Player) -> str | None:
        """The name ``player``'s key goes by in the store (None: a guest, or a new key)."""
        if not player.identity or self.store is None:
            return None
        try:
            known = self.store.player(player.identity)
        except Exception:
            log.exception("could not read player %s", player.identity)
            return None
        return known.name if known is not None else None

    def suggest_name(self, username: str | None, player: Player | None = None) -> str:
        # A returning key: the name it goes by (another session of this key holding it
        # does not count: see name_taken).
        stored = self.stored_name(player) if player is not None else None
        if stored is not None and not self.name_taken(stored, player):
            try:
                return check_name(stored)
            except NameRejected:
                pass
        base = name_from_username(username)
        if not self.name_taken(base, player) and not self._reserved(base, player):
            return base
        for n in itertools.count(2):
            suffix = str(n)
            name = base[: NAME_MAX - len(suffix)] + suffix
            if not self.name_taken(name, player) and not self._reserved(name, player):
                return name
        raise AssertionError  # pragma: no cover

    def _reserved(self, name: str, player: Player | None) -> bool:
        """Is ``name`` kept for another key (stored players own the names they used)?"""
        if self.store is None:
            return False
        try:
            return not self.store.name_free_for(name, player.identity if player is not None else None)
        except Exception:
            log.exception("could not check the name %r", name)
            return False

    # -- arriving and leaving ------------------------------------------------

    def connect(self, identity: str | None, username: str = "") -> Player:
        """A new session: a player not yet online (no name yet)."""
        if identity and self.store is not None:
            try:
                self.store.touch_player(identity)
            except Exception:
                log.exception("could not note player %s as seen", identity)
        return Player(identity=identity, username=username)

    def claim_name(self, player: Player, name: str) -> str:
        """Put ``player`` online as ``name`` (checked); raises :class:`NameRejected`.

        With a store, a name once used by a key belongs to that key: a key
        player is recorded under it (reserving it), a guest may not use it."""
        name = check_name(name)
        if self.name_taken(name, player):
            raise NameRejected(f"{name} is already playing here: choose another name")
        self._keep_name(player, name)
        old = self._other_session(player)
        if old is not None:
            self._supersede(old, player)
        player.name = name
        player.superseded = False
        self.players[player.id] = player
        self._changed()
        return name

    def _supersede(self, old: Player, new: Player) -> None:
        """One key, one session: ``new`` (the newest session of ``old``'s key) takes over.

        ``old`` leaves queues, rooms and the matches it watches; its seats in running
        matches pass to ``new`` (who resumes them, see :meth:`resume`) with no grace
        period; its screens are told, and go back to the lobby."""
        self._abandon(old)  # (queues, rooms, watching; at a match's results: its rematch offers)
        self.players.pop(old.id, None)
        old.superseded = True
        old.status, old.where = "lobby", ""
        for h in list(self.matches.values()):
            for i, human in enumerate(h.humans):
                if human is old:
                    h.humans[i] = new
                    if h.running and new.status != "playing":
                        self._set_status(new, "playing", h.code)
        log.info("key %s: a newer session took over from session %d", (old.identity or "")[:24], old.id)
        self._tell(old, "superseded")
        self._changed()

    def _tell(self, player: Player, event: str, handles: Any = None) -> None:
        if player.listener is None:
            return
        try:
            player.listener(event, handles)
        except Exception:
            log.exception("session %d: could not tell it %s", player.id, event)

    def _keep_name(self, player: Player, name: str) -> None:
        store = self.store
        if store is None:
            return
        from server.store.db import NameTaken, RenameTooSoon

        try:
            if player.identity:
                store.upsert_player(player.identity, name)
            elif not store.name_free_for(name, None):
                raise NameTaken(name)
        except RenameTooSoon as e:
            raise NameRejected(str(e)) from None
        except NameTaken:
            if player.identity:
                raise NameRejected(f"the name {name} belongs to another player's key: choose another") from None
            raise NameRejected(
                f"the name {name} belongs to a player with an SSH key: choose another "
                "(log in with a key to keep a name of your own)"
            ) from None
        except Exception:  # a storage problem must not keep anyone out of the lobby
            log.exception("could not record the name %r", name)

    def resumable(self, player: Player) -> Hosted | None:
        """A running match where ``player``'s identity has a seat it lost."""
        if not player.identity:
            return None
        for h in self.matches.values():
            if not h.running:
                continue
            for i, seat in enumerate(h.match.seats):
                human = h.humans[i]
                if seat.identity == player.identity and human is not None and (
                        human is player or human.id not in self.players or human.identity == player.identity):
                    return h
        return None

    def resume(self, player: Player) -> list[SeatHandle] | None:
        """Give ``player`` back the seat their identity left; None if there is none."""
        h = self.resumable(player)
        if h is None:
            return None
        seat = next(i for i, s in enumerate(h.match.seats) if s.identity == player.identity)
        old = h.humans[seat]
        other = self._other_session(player)
        if other is not None:
            self._supersede(other, player)  # the same key, online in another session: newest wins
        player.name = old.name if old is not None else player.name
        player.superseded = False
        h.humans[seat] = player
        self.players[player.id] = player
        task = h.grace.pop(seat, None)
        h.deadlines.pop(seat, None)
        if task is not None:
            task.cancel()
        s = h.match.seats[seat]
        # News for the others, when the person had dropped out (not after a restart: nobody
        # left then; not when a newer session of a key takes over: it never left).
        came_back = not s.connected and not (old is not None and old.restored)
        s.connected = True
        if s.bot is not None:
            h.match.set_bot(seat, None)
        self._update_notice(h)
        if came_back:
            h.match.announce(f"{s.name} is back.")
        self._set_status(player, "playing", h.code)
        return [h.match.handle(seat)]

    def leave(self, player: Player) -> None:
        """The session ended: drop out of queues and rooms; seats get a grace period."""
        for ch in [c for c in self.challenges if player in (c.challenger, c.target)]:
            self._challenge_over(ch, f"{player.name} has gone")
        self._abandon(player)
        self.players.pop(player.id, None)
        for h in list(self.matches.values()):
            h.spectators.discard(player)
            for i, human in enumerate(h.humans):
                if human is player:
                    if h.running:
                        self._start_grace(h, i)
                    else:
                        fut = h.rematch_wanted.pop(i, None)
                        if fut is not None and not fut.done():
                            fut.set_result(None)
                        self._cancel_rematch_offers(h)
        self._changed()

    def enter_lobby(self, player: Player) -> None:
        """``player`` is looking at the lobby: no longer waiting, watching or playing."""
        self._abandon(player)
        self._set_status(player, "lobby")

    def _abandon(self, player: Player) -> None:
        self.hv.leave(player)  # from a High Voltage table still filling
        for game, queue in self.queues.items():
            for entry in list(queue):
                if entry[0] is player:
                    queue.remove(entry)
                    if not entry[1].done():
                        entry[1].cancel()
        for code, room in list(self.rooms.items()):
            if room.owner is player:
                del self.rooms[code]
                if not room.future.done():
                    room.future.cancel()
        for h in self.matches.values():
            h.spectators.discard(player)
            for i, human in enumerate(h.humans):
                if human is player and not h.running:
                    # Leaving the results is declining a rematch.
                    if h.game == HV:
                        self.hv.declined(h, player)
                    else:
                        self._cancel_rematch_offers(h)
        self._prune()

    def _set_status(self, player: Player, status: str, where: str = "") -> None:
        player.status = status
        player.where = where
        self._changed()

    # -- matches -------------------------------------------------------------

    def _new_code(self) -> str:
        while True:
            code = "".join(self._rng.choice(CODE_LETTERS) for _ in range(CODE_LEN))
            if (code not in self.matches and code not in self.rooms and code not in self.hv.tables
                    and code not in self.rematch_codes):
                return code

    def _check_active(self, player: Player) -> None:
        """A session that a newer one of its key took over may not play from here."""
        if player.superseded:
            raise LobbyError("this key was opened in another session: take it back here first")

    @staticmethod
    def check_distinct_keys(players: list[Player | None] | list[Player]) -> None:
        """One identity never holds two seats of a match (ratings and history need a
        seat per person); raises :class:`LobbyError`."""
        keys = [p.identity for p in players if p is not None and p.identity]
        if len(keys) != len(set(keys)):
            raise LobbyError("one key cannot hold two seats of a match")

    def _host(self, game: str, players: list[Player | None], bots: list[str | None], code: str = "") -> Hosted:
        if game not in GAMES:
            raise LobbyError(f"no game called {game!r}")
        self.check_distinct_keys(players)
        seats = []
        for p, bot in zip(players, bots):
            if p is not None:
                seats.append(Seat(p.name, p.seat_identity))
            else:
                seats.append(Seat(f"Bot ({bot})", bot=bot))
        code = code or self._new_code()
        match = Match(seats, code=code, bot_delay=self.bot_delay, executor=self.executor)
        recording = self._record(match)  # before the lobby's own hooks (see server.store.persist)
        h = Hosted(code, match, list(players), recording=recording)
        self.matches[code] = h
        match.on_end.append(lambda _m: self._changed())
        match.on_action.append(lambda _m, _a: self._changed())
        for p in players:
            if p is not None:
                self._set_status(p, "playing", code)
        self._prune()
        self._changed()
        return h

    def _record(self, match: Any) -> Any:
        """Keep ``match`` in the store (its log, its result, the ratings); None without one."""
        if self.store is None:
            return None
        from server.store import persist

        try:
            return persist.attach(self.store, match)
        except Exception:
            log.exception("match %s: could not start recording it", match.code)
            return None

    def restore(self) -> list[Hosted]:
        """At start: every unfinished match of the store, back at its last position.

        Each human seat waits for its identity to connect again, for the grace
        period counted from now (a guest's seat goes to a bot at once: a guest
        cannot prove who they are); bots resume.  Needs a running loop.

        Never raises: a match that cannot be restored (see :func:`server.store.persist.restore`)
        or set up here is logged with its id and the reason, left in the store as
        it is, and the others are served."""
        if self.store is None:
            return []
        from server.store import persist

        def host(rec: Any) -> Hosted:
            match = rec.match
            code = match.code or self._new_code()
            if code in self.matches or code in self.rooms:
                code = self._new_code()
            match.code = code
            humans: list[Player | None] = []
            for seat in match.seats:
                if seat.bot is not None and not seat.identity:
                    humans.append(None)
                    continue
                ident = seat.identity or ""
                # A stand-in for the person: not online, so their seat waits for them.
                humans.append(Player(identity=None if ident.startswith("guest:") or not ident else ident,
                                     name=seat.name, status="playing", where=code, restored=True))
            h = Hosted(code, match, humans, recording=rec)
            self.matches[code] = h
            match.on_end.append(lambda _m: self._changed())
            match.on_action.append(lambda _m, _a: self._changed())
            for i, human in enumerate(humans):
                if human is not None and match.seats[i].bot is None:
                    self._start_grace(h, i)
            self._start(h)
            log.info("match %s (%s) restored at action %d", rec.match_id, code, len(match.actions))
            return h

        out: list[Hosted] = []
        try:
            recs = persist.restore(self.store, self.executor, self.bot_delay)
        except Exception:  # pragma: no cover - persist.restore catches its own
            log.exception("could not restore the unfinished matches")
            recs = []
        for rec in recs:
            try:
                h = host(rec)
            except Exception as e:
                log.error("match %s cannot be restored (%s: %s); left in the store as it is",
                          rec.match_id, type(e).__name__, e)
                rec.match.recorder = None  # nothing of it is written from now on
                rec.match.close()
                for code, hosted in list(self.matches.items()):
                    if hosted.match is rec.match:
                        del self.matches[code]
                continue
            out.append(h)
        if out:
            self._changed()
        return out

    def _start(self, h: Hosted) -> None:
        try:
            h.match.start()
        except RuntimeError:  # pragma: no cover - no running loop (sync tests)
            pass

    def _prune(self) -> None:
        """Forget finished matches nobody looks at any more."""
        for code, h in list(self.matches.items()):
            if h.running or h.rematch_wanted:
                continue
            if h.spectators:
                continue
            if any(p is not None and p.id in self.players and p.status == "playing" and p.where == code
                   for p in h.humans):
                continue
            h.match.close()
            del self.matches[code]
        for old, new in list(self.rematch_codes.items()):
            if new not in self.matches:
                del self.rematch_codes[old]

    async def quick_match(self, player: Player, game: str = "voltage") -> list[SeatHandle]:
        """Wait for the next player who wants ``game``; cancel the await to leave the queue."""
        if game not in GAMES:
            raise LobbyError(f"no game called {game!r}")
        self._check_active(player)
        if game == HV:
            return await self.hv.quick_match(player)
        self._abandon(player)
        queue = self.queues[game]
        for entry in list(queue):
            other, fut = entry
            if fut.done() or other.id not in self.players:
                queue.remove(entry)
                continue
            if self._same_key(other, player):
                continue  # never paired with itself: it waits for someone else
            queue.remove(entry)
            h = self._host(game, [other, player], [None, None])
            fut.set_result([h.match.handle(0)])
            self._start(h)
            return [h.match.handle(1)]
        fut = asyncio.get_running_loop().create_future()
        entry = (player, fut)
        queue.append(entry)
        self._set_status(player, "waiting", game)
        try:
            return await fut
        finally:
            if entry in queue:
                queue.remove(entry)
                self._changed()

    def create_room(self, player: Player, game: str = "voltage", size: int = 4) -> Room:
        """A private room; ``await room.future`` gives the owner's handles when a friend joins
        (High Voltage: when its ``size`` seats are taken, or :meth:`start_room` says so)."""
        if game not in GAMES:
            raise LobbyError(f"no game called {game!r}")
        self._check_active(player)
        if game == HV:
            table = self.hv.create_room(player, size)
            future = asyncio.ensure_future(self.hv.wait(table, player))
            return Room(table.code, player, game, future, table=table)
        self._abandon(player)
        code = self._new_code()
        room = Room(code, player, game, asyncio.get_running_loop().create_future())
        self.rooms[code] = room
        self._set_status(player, "room", code)
        return room

    def start_room(self, room: Room) -> None:
        """Start a High Voltage room now: bots take the empty seats."""
        if room.table is None or room.table.hosted is not None:
            return
        if self.hv.tables.get(room.code) is not room.table:
            raise LobbyError(f"room {room.code} is closed")
        self.hv.start(room.table)

    def room_game(self, code: str) -> str | None:
        """The game of the private room ``code`` still filling (None: no such room)."""
        code = code.strip().upper()
        if code in self.rooms:
            return self.rooms[code].game
        table = self.hv.tables.get(code)
        if table is not None and table.private and table.hosted is None:
            return HV
        return None

    def close_room(self, room: Room) -> None:
        if room.table is not None:
            if room.table.hosted is None:
                self.hv.leave(room.owner)
                if not room.future.done():
                    room.future.cancel()
                self._set_status(room.owner, "lobby")
            return
        if self.rooms.get(room.code) is room:
            del self.rooms[room.code]
            if not room.future.done():
                room.future.cancel()
            self._set_status(room.owner, "lobby")

    async def join(self, player: Player, code: str) -> list[SeatHandle]:
        """Join the private room ``code`` of either game: a Voltage room starts at once, a
        High Voltage one when it is full or its owner starts it (cancel to get up)."""
        if self.room_game(code) == HV:
            return await self.hv.join_room(player, code)
        return self.join_room(player, code)

    def join_room(self, player: Player, code: str) -> list[SeatHandle]:
        """Join the Voltage room ``code`` (it starts at once); see :meth:`join`."""
        code = code.strip().upper()
        room = self.rooms.get(code)
        if room is None:
            if self.room_game(code) == HV:
                raise LobbyError(f"{code} is a High Voltage room: join it with Lobby.join")
            raise LobbyError(f"no room {code}")
        self._check_active(player)
        if room.owner is player or self._same_key(room.owner, player):
            raise LobbyError("that is your own room: give the code to a friend")
        self._abandon(player)
        del self.rooms[code]
        h = self._host(room.game, [room.owner, player], [None, None], code=code)
        if not room.future.done():
            room.future.set_result([h.match.handle(0)])
        self._start(h)
        return [h.match.handle(1)]

    def play_bot(self, player: Player, bot: str, game: str = "voltage") -> list[SeatHandle]:
        """``player`` against a bot at once (High Voltage: ``bot`` lists 1 to 3 levels,
        ``"medium,fast"``)."""
        self._check_active(player)
        if game == HV:
            return self.hv.play_bots(player, bot)
        self._abandon(player)
        if bot not in known_bots():
            raise LobbyError(f"no bot {bot!r}")
        h = self._host(game, [player, None], [None, bot])
        self._start(h)
        return [h.match.handle(0)]

    def watch(self, player: Player, code: str) -> list[SeatHandle]:
        self._check_active(player)
        code = code.strip().upper()
        h = self.matches.get(self.rematch_codes.get(code, code))  # a rematched match: its rematch
        if h is None or not h.running:
            if self.room_game(code) is not None:
                raise LobbyError(f"{code} has not started yet")
            raise LobbyError(f"no match {code}")
        self._abandon(player)
        h.spectators.add(player)
        self._set_status(player, "watching", h.code)
        return [h.match.handle(None)]

    def rematched(self, old: Hosted, new: Hosted) -> None:
        """``new`` is the rematch of ``old``: its spectators follow it (their screens are
        told, with a spectator's handle of the new match), and ``watch OLD`` leads there."""
        old.rematched = True
        for k, v in list(self.rematch_codes.items()):
            if v == old.code:
                self.rematch_codes[k] = new.code
        self.rematch_codes[old.code] = new.code
        for p in list(old.spectators):
            old.spectators.discard(p)
            if p.id not in self.players:
                continue
            new.spectators.add(p)
            self._set_status(p, "watching", new.code)
            self._tell(p, "follow", [new.match.handle(None)])
        self._prune()

    def hosted_of(self, handles: list[SeatHandle]) -> Hosted | None:
        if not handles:
            return None
        match = handles[0].match
        h = self.matches.get(match.code)
        return h if h is not None and h.match is match else None

    # -- challenges ------------------------------------------------------------

    def refuses_challenges(self, player: Player) -> bool:
        """A key that switched challenges off (kept in the store with its settings)."""
        if not player.identity or self.store is None:
            return player.refuses_challenges
        try:
            return self.store.setting(player.identity, "challenges") == "off" or player.refuses_challenges
        except Exception:
            log.exception("could not read the settings of %s", player.identity)
            return player.refuses_challenges

    def challenge(self, player: Player, name: str, game: str = "voltage") -> Challenge:
        """Ask the player online as ``name`` for a match of ``game``; they are told at once
        and have :attr:`challenge_seconds` to answer.  Raises :class:`LobbyError` saying
        why not (nobody by that name, yourself, busy, refusing challenges)."""
        self._check_active(player)
        if game not in GAMES:
            raise LobbyError(f"no game called {game!r}")
        key = name.strip().casefold()
        target = next((p for p in self.players.values() if p.name.casefold() == key), None)
        if target is None:
            raise LobbyError(f"nobody called {name.strip()} is online")
        if target is player or self._same_key(target, player):
            raise LobbyError("you cannot challenge yourself")
        if target.status == "playing" and (self.matches.get(target.where) is not None
                                           and self.matches[target.where].running):
            raise LobbyError(f"{target.name} is playing a match: try again after it")
        if self.refuses_challenges(target):
            raise LobbyError(f"{target.name} does not take challenges")
        if any(c.challenger is player for c in self.challenges):
            raise LobbyError("you have a challenge waiting for an answer already")
        if any(c.target is target for c in self.challenges):
            raise LobbyError(f"{target.name} has a challenge to answer already")
        loop = asyncio.get_running_loop()
        ch = Challenge(player, target, game, loop.create_future(), time.monotonic() + self.challenge_seconds)
        ch.timer = loop.call_later(self.challenge_seconds, self._challenge_over, ch,
                                   f"{target.name} did not answer within {self.challenge_seconds:.0f} s")
        self.challenges.append(ch)
        self._tell(target, "challenge", ch)
        return ch

    def _challenge_over(self, ch: Challenge, why: str) -> None:
        """``ch`` ends unanswered (expired, declined, taken back): both sides are told."""
        if ch not in self.challenges:
            return
        self.challenges.remove(ch)
        if ch.timer is not None:
            ch.timer.cancel()
        if not ch.future.done():
            ch.future.set_exception(LobbyError(why))
            ch.future.exception()  # (nobody may be waiting any more: mark it seen)
        self._tell(ch.target, "challenge-over", ch)

    def withdraw_challenge(self, ch: Challenge) -> None:
        self._challenge_over(ch, "you took the challenge back")

    def answer_challenge(self, player: Player, ch: Challenge, accept: bool) -> list[SeatHandle] | None:
        """``player`` (the one challenged) accepts (their handles: the match starts at
        once) or declines (None; the challenger reads why)."""
        if ch not in self.challenges or ch.target is not player:
            raise LobbyError("that challenge is no longer open")
        if not accept:
            self._challenge_over(ch, f"{player.name} declined the challenge")
            return None
        self.challenges.remove(ch)
        if ch.timer is not None:
            ch.timer.cancel()
        challenger = ch.challenger
        if challenger.id not in self.players or challenger.superseded:
            raise LobbyError(f"{challenger.name} has gone")
        for p in (challenger, player):
            self._abandon(p)  # out of any queue or room first
        if ch.game == HV:
            mine, theirs = self.hv.play_people([challenger, player])
            ch.future.set_result(mine)
            return theirs
        h = self._host(ch.game, [challenger, player], [None, None])
        ch.future.set_result([h.match.handle(0)])
        self._start(h)
        return [h.match.handle(1)]

    # -- dropped players -----------------------------------------------------

    def _start_grace(self, h: Hosted, seat: int) -> None:
        s = h.match.seats[seat]
        s.connected = False
        old = h.grace.pop(seat, None)
        if old is not None:
            old.cancel()
        player = h.humans[seat]
        if player is not None and not player.identity:
            # A guest cannot prove it is back: a bot takes the seat at once.
            h.match.set_bot(seat, takeover_bot())
            self._update_notice(h)
            return
        h.deadlines[seat] = time.monotonic() + self.grace_seconds
        h.grace[seat] = asyncio.get_running_loop().create_task(self._grace(h, seat))
        self._update_notice(h)

    async def _grace(self, h: Hosted, seat: int) -> None:
        try:
            while True:
                left = h.deadlines[seat] - time.monotonic()
                if left <= 0:
                    break
                self._update_notice(h)
                # Wake on each whole second left, so the countdown ticks evenly.
                await asyncio.sleep(left - int(left) if left - int(left) > 0.01 else min(1.0, left))
        except asyncio.CancelledError:
            return
        h.grace.pop(seat, None)
        h.deadlines.pop(seat, None)
        if h.running and not h.match.seats[seat].connected:
            h.match.set_bot(seat, takeover_bot())
        self._update_notice(h)

    def _update_notice(self, h: Hosted) -> None:
        texts = []
        now = time.monotonic()
        for seat in sorted(h.grace):
            left = max(0, int(h.deadlines.get(seat, now) - now + 0.999))
            name = h.match.seats[seat].name
            texts.append(f"waiting for {name} to reconnect ({left // 60}:{left % 60:02d})")
        notice = "; ".join(texts)
        if notice != h.match.notice:
            h.match.set_notice(notice)

    # -- rematch -------------------------------------------------------------

    def _cancel_rematch_offers(self, h: Hosted) -> None:
        for seat, fut in list(h.rematch_wanted.items()):
            if not fut.done():
                fut.set_result(None)
        h.rematch_wanted.clear()

    async def rematch(self, player: Player, handles: list[SeatHandle]) -> list[SeatHandle] | None:
        """A new match with the same opponent once both ask; None if they go away."""
        if handles and getattr(handles[0], "game", "voltage") == HV:
            return await self.hv.rematch(player, handles)
        self._check_active(player)
        h = self.hosted_of(handles)
        if h is None or h.running or handles[0].seat is None:
            return None
        seat = handles[0].seat
        other = 1 - seat
        opponent = h.humans[other]
        oseat = h.match.seats[other]
        if opponent is None:
            # A bot opponent always agrees.
            n = self._host(h.game, [player, None], [None, oseat.bot or takeover_bot()])
            self._start(n)
            self.rematched(h, n)
            return [n.match.handle(0)]
        if opponent.id not in self.players or opponent.status != "playing" or opponent.where != h.code:
            return None
        waiting = h.rematch_wanted.get(other)
        if waiting is not None and not waiting.done():
            del h.rematch_wanted[other]
            players: list[Player | None] = [None, None]
            players[seat], players[other] = player, opponent
            n = self._host(h.game, players, [None, None])
            waiting.set_result([n.match.handle(other)])
            h.match.set_notice("")
            self._start(n)
            self.rematched(h, n)
            return [n.match.handle(seat)]
        fut = asyncio.get_running_loop().create_future()
        h.rematch_wanted[seat] = fut
        h.match.set_notice(f"{player.name} wants a rematch")
        try:
            return await asyncio.wait_for(fut, self.rematch_wait)
        except asyncio.TimeoutError:
            return None
        finally:
            if h.rematch_wanted.get(seat) is fut:
                del h.rematch_wanted[seat]
                if h.match.notice.endswith("wants a rematch"):
                    h.match.set_notice("")
            self._prune()
