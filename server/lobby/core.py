"""The lobby: one service shared by every SSH session of a server (the façade).

It knows who is online, fills the tables of each game (quick match, private rooms
with four-letter codes, bots, rematch, challenges), hosts the matches and their
spectators, and looks after dropped players: a dropped seat is kept for a grace
period (the other screens show a countdown), then a bot plays it until the same
identity comes back.

Everything here runs on the server's event loop; nothing blocks.  Screens see
matches only through seat handles (:class:`~server.host.common.SeatDoor`).

The lobby holds its parts (see :mod:`server.lobby.models` for why parts, and the
one way the modules import each other):

- :mod:`server.lobby.models`: players, hosted matches, rooms, challenges, errors;
- :mod:`server.lobby.names`: name claims, one name per key, the rename cooldown;
- :mod:`server.lobby.presence`: who is online, doing what; telling screens;
- :mod:`server.lobby.away`: grace, takeover by a newer session, resume;
- :mod:`server.lobby.tables`: the table policy of any game;
- this module: the :class:`Lobby` façade (matches, rooms, challenges, restore), which
  gives each part the narrow interface it asks for (``NamesHost``, ``PresenceHost``,
  ``AwayHost``, ``TableHost``: public methods, below) and keeps the methods callers use.

No game is named here: a game's own part is looked up in :mod:`server.games`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any

from server import games
from server.chat.rooms import Chat
from server.games import HostConfig
from server.host.common import SeatDoor
from server.lobby.away import Away
from server.lobby.models import (
    BOT_OFFER_SECONDS,
    CHALLENGE_SECONDS,
    CODE_LEN,
    CODE_LETTERS,
    GRACE_SECONDS,
    REMATCH_WAIT_SECONDS,
    Challenge,
    Hosted,
    LobbyDelta,
    LobbyError,
    MatchInfo,
    Player,
    PlayerInfo,
    Room,
    Snapshot,
    match_scores,
)
from server.lobby.names import Names, same_key
from server.lobby.presence import Presence
from server.lobby.tables import Tables

if TYPE_CHECKING:  # pragma: no cover
    from server.store.db import Store

log = logging.getLogger(__name__)


class Lobby:
    """Players online, tables, rooms, matches; see the module's notes."""

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
        self.chat = Chat(store)  # the lobby's room and every match's (server.chat)
        self.grace_seconds = grace
        self.bot_offer_after = bot_offer_after
        self.rematch_wait = rematch_wait
        self.bot_delay = bot_delay
        self.matches: dict[str, Hosted] = {}
        self.challenge_seconds = CHALLENGE_SECONDS
        self.challenges: list[Challenge] = []
        self.ssh_line = ""  # how players reach this server ("ssh -p 2222 HOST"), set by the server
        # The code of a rematched match -> the code of its latest rematch (``watch OLD``).
        self.rematch_codes: dict[str, str] = {}
        self._rng = random.Random(seed) if seed is not None else random.SystemRandom()
        self.presence = Presence(self)  # who is online, doing what; telling screens
        self.names = Names(self)  # who goes by which name
        self.away = Away(self)  # dropped seats, takeovers, coming back
        # One table policy (server.lobby.tables) per game, keyed by its id: quick table,
        # rooms, bots, challenges and rematch fill seats the same way for every game.
        self.tables: dict[str, Tables] = {gid: Tables(self, g) for gid, g in games.GAMES.items()}

    # -- who is online, and by which name (the parts' own) -----------------------

    @property
    def players(self) -> dict[int, Player]:
        """The players online (named and connected), by session id."""
        return self.presence.players

    @property
    def notify_delay(self) -> float:
        """The lobby screens are told of changes at most this often (seconds)."""
        return self.presence.notify_delay

    @notify_delay.setter
    def notify_delay(self, seconds: float) -> None:
        self.presence.notify_delay = seconds

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` (in the subscriber's context) soon after the lobby changes."""
        return self.presence.subscribe(callback)

    def who_text(self) -> str:
        """Plain text for ``ssh HOST who``."""
        return self.presence.who_text()

    def connect(self, identity: str | None, username: str = "") -> Player:
        """A new session: a player not yet online (no name yet)."""
        return self.names.connect(identity, username)

    def name_taken(self, name: str, by: Player | None = None) -> bool:
        return self.names.name_taken(name, by)

    def stored_name(self, player: Player) -> str | None:
        """The name ``player``'s key goes by in the store (None: a guest, or a new key)."""
        return self.names.stored_name(player)

    def suggest_name(self, username: str | None, player: Player | None = None) -> str:
        return self.names.suggest_name(username, player)

    def rename_wait(self, player: Player) -> float:
        """Seconds until ``player``'s key may take another name (0: now)."""
        return self.names.rename_wait(player)

    def claim_name(self, player: Player, name: str) -> str:
        """Put ``player`` online as ``name`` (checked); raises :class:`NameRejected`."""
        return self.names.claim_name(player, name)

    def resumable(self, player: Player) -> Hosted | None:
        """A running match where ``player``'s identity has a seat it lost."""
        return self.away.resumable(player)

    def resume(self, player: Player) -> list[SeatDoor] | None:
        """Give ``player`` back the seat their identity left; None if there is none."""
        return self.away.resume(player)

    # -- facts ---------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        players = tuple(
            PlayerInfo(p.name, *self.presence.status_of(p))
            for p in sorted(self.players.values(), key=lambda p: p.name.lower())
        )
        matches = tuple(
            MatchInfo(h.code, h.game, tuple(h.match.names), match_scores(h.match), len(h.spectators))
            for h in self.matches.values()
            if h.running
        )
        waiting = {
            gid: sum(len(t.players) for t in tables.open_tables() if not t.private and not t.expected)
            for gid, tables in self.tables.items()
        }
        return Snapshot(players, matches, waiting)

    def published(self) -> Snapshot:
        """The snapshot screens are shown, numbered (:mod:`server.lobby.changes`)."""
        return self.presence.published()

    def changes(self, since: int) -> list[LobbyDelta] | None:
        """The deltas from version ``since`` to the present (None: read :meth:`published`)."""
        return self.presence.changes(since)

    # -- arriving and leaving ------------------------------------------------

    def enter_lobby(self, player: Player) -> None:
        """``player`` is looking at the lobby: no longer waiting, watching or playing."""
        self._abandon(player)
        self.set_status(player, "lobby")

    def leave(self, player: Player) -> None:
        """The session ended: up from every table and room (declining rematches); seats of
        running matches get a grace period."""
        for ch in [c for c in self.challenges if player in (c.challenger, c.target)]:
            self._challenge_over(ch, LobbyError("gone", name=player.name))
        self._abandon(player)
        self.players.pop(player.id, None)
        for h in list(self.matches.values()):
            h.spectators.discard(player)
            for i, human in enumerate(h.humans):
                if human is player and h.running:
                    self.away.start_grace(h, i)
        self.changed()

    def _abandon(self, player: Player) -> None:
        for tables in self.tables.values():
            tables.leave(player)  # from a table still filling
        for h in self.matches.values():
            h.spectators.discard(player)
            for human in h.humans:
                if human is player and not h.running:
                    # Leaving the results is declining a rematch.
                    self.tables[h.game].declined(h, player)
        self._prune()

    # -- matches -------------------------------------------------------------

    def _new_code(self) -> str:
        while True:
            code = "".join(self._rng.choice(CODE_LETTERS) for _ in range(CODE_LEN))
            if (code not in self.matches and not any(code in t.tables for t in self.tables.values())
                    and code not in self.rematch_codes):
                return code

    def _check_active(self, player: Player) -> None:
        """A session that a newer one of its key took over may not play from here."""
        if player.superseded:
            raise LobbyError("superseded")

    @staticmethod
    def check_distinct_keys(players: list[Player | None] | list[Player]) -> None:
        """One identity never holds two seats of a match (ratings and history need a
        seat per person); raises :class:`LobbyError`."""
        keys = [p.identity for p in players if p is not None and p.identity]
        if len(keys) != len(set(keys)):
            raise LobbyError("one_key_two_seats")

    def host_config(self) -> HostConfig:
        """The settings of the hosts this lobby starts (see :class:`server.games.HostConfig`)."""
        return HostConfig(executor=self.executor, bot_delay=self.bot_delay)

    def register(self, match: Any, humans: list[Player | None]) -> Hosted:
        """List ``match`` (not started) as hosted under its code, recording it when there
        is a store (before the lobby's own hooks: see :mod:`server.store.persist`)."""
        recording = self._record(match)
        h = Hosted(match.code, match, humans, recording=recording)
        self.matches[match.code] = h
        match.on_end.append(lambda _m: self.changed())
        match.on_action.append(lambda _m, _a: self.changed())
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
            if code in self.matches or self.open_table(code) is not None:
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
            match.on_end.append(lambda _m: self.changed())
            match.on_action.append(lambda _m, _a: self.changed())
            for i, human in enumerate(humans):
                if human is not None and match.seats[i].bot is None:
                    self.away.start_grace(h, i)
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
            self.changed()
        return out

    def _start(self, h: Hosted) -> None:
        try:
            h.match.start()
        except RuntimeError:  # pragma: no cover - no running loop (sync tests)
            pass

    def _prune(self) -> None:
        """Forget finished matches nobody looks at any more."""
        for code, h in list(self.matches.items()):
            if h.running:
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

    async def quick_match(self, player: Player, game: str = games.HOME) -> list[SeatDoor]:
        """Sit at ``game``'s quick table and wait for its start (Voltage's, of two seats,
        starts when the next player sits); cancel the await to get up."""
        return await self._tables(game).quick_match(player)

    def _tables(self, game: str) -> Tables:
        tables = self.tables.get(game)
        if tables is None:
            raise LobbyError("no_such_game", game=game)
        return tables

    def create_room(self, player: Player, game: str = games.HOME, size: int = 4,
                    time_control: Any = "default") -> Room:
        """A private room; ``await room.future`` gives the owner's handles when it starts:
        when its seats are taken (``size``, within the game's seat bounds: a two-seat game's
        room is always of two), or when :meth:`start_room` says so.  ``time_control``:
        Voltage's clock (an ``engine.clock.TimeControl``, None for none, "default": 5+5)."""
        tables = self._tables(game)
        self._check_active(player)
        if tables.min_seats == tables.max_seats:
            size = tables.max_seats  # a game of one table size (Voltage: two) has no choice to make
        table = tables.create_room(player, size, time_control)
        future = asyncio.ensure_future(tables.wait(table, player))
        return Room(table.code, player, game, future, table=table)

    def start_room(self, room: Room) -> None:
        """Start a room now: bots take the empty seats."""
        if room.table is None or room.table.hosted is not None:
            return
        tables = self.tables.get(room.game)
        table = tables.tables.get(room.code) if tables is not None else None
        if tables is None or table is None or table is not room.table:
            raise LobbyError("room_is_closed", code=room.code)
        tables.start(table)

    def room_game(self, code: str) -> str | None:
        """The game of the private room ``code`` still filling (None: no such room)."""
        code = code.strip().upper()
        for gid, tables in self.tables.items():
            table = tables.tables.get(code)
            if table is not None and table.private and table.hosted is None:
                return gid
        return None

    def close_room(self, room: Room) -> None:
        if room.table.hosted is None:
            self.tables[room.game].leave(room.owner)
            if not room.future.done():
                room.future.cancel()
            self.set_status(room.owner, "lobby")

    async def join(self, player: Player, code: str) -> list[SeatDoor]:
        """Join the private room ``code`` of any game: a room with one seat left starts at
        once (:meth:`join_room`), a bigger one when it is full or its owner starts it
        (cancel to get up)."""
        game = self.room_game(code)
        table = self.open_table(code)
        if game is None or table is None or table.size - len(table.players) - len(table.bots) <= 1:
            return self.join_room(player, code)
        return await self.tables[game].join_room(player, code)

    def join_room(self, player: Player, code: str) -> list[SeatDoor]:
        """Join the room ``code`` with one seat left (a Voltage room): it starts at once;
        see :meth:`join`."""
        code = code.strip().upper()
        game = self.room_game(code)
        table = self.open_table(code)
        if game is None or table is None:
            raise LobbyError("no_room", code=code)
        if table.size - len(table.players) - len(table.bots) > 1:
            raise LobbyError("room_of_other_game", code=code, title=games.title(game))
        self._check_active(player)
        if table.owner is player or (table.owner is not None and same_key(table.owner, player)):
            raise LobbyError("own_room")
        return self.tables[game].join_now(player, code)

    def play_bot(self, player: Player, bot: str, game: str = games.HOME) -> list[SeatDoor]:
        """``player`` against bots at once: ``bot`` names one, or lists up to the game's
        seats less one (High Voltage: ``"medium,fast"``)."""
        self._check_active(player)
        return self._tables(game).play_bots(player, bot)

    def watch(self, player: Player, code: str) -> list[SeatDoor]:
        self._check_active(player)
        code = code.strip().upper()
        h = self.matches.get(self.rematch_codes.get(code, code))  # a rematched match: its rematch
        if h is None or not h.running:
            if self.room_game(code) is not None:
                raise LobbyError("not_started", code=code)
            raise LobbyError("no_match", code=code)
        self._abandon(player)
        h.spectators.add(player)
        self.set_status(player, "watching", h.code)
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
            self.set_status(p, "watching", new.code)
            self.tell(p, "follow", [new.match.handle(None)])
        self._prune()

    def hosted_of(self, handles: list[SeatDoor]) -> Hosted | None:
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

    def challenge(self, player: Player, name: str, game: str = games.HOME) -> Challenge:
        """Ask the player online as ``name`` for a match of ``game``; they are told at once
        and have :attr:`challenge_seconds` to answer.  Raises :class:`LobbyError` saying
        why not (nobody by that name, yourself, busy, refusing challenges)."""
        self._check_active(player)
        if game not in games.GAMES:
            raise LobbyError("no_such_game", game=game)
        key = name.strip().casefold()
        target = next((p for p in self.players.values() if p.name.casefold() == key), None)
        if target is None:
            raise LobbyError("nobody_called", name=name.strip())
        if target is player or same_key(target, player):
            raise LobbyError("challenge_self")
        if target.status == "playing" and (self.matches.get(target.where) is not None
                                           and self.matches[target.where].running):
            raise LobbyError("target_playing", name=target.name)
        if self.refuses_challenges(target):
            raise LobbyError("no_challenges", name=target.name)
        if any(c.challenger is player for c in self.challenges):
            raise LobbyError("challenge_waiting")
        if any(c.target is target for c in self.challenges):
            raise LobbyError("target_has_challenge", name=target.name)
        loop = asyncio.get_running_loop()
        ch = Challenge(player, target, game, loop.create_future(), time.monotonic() + self.challenge_seconds)
        ch.timer = loop.call_later(self.challenge_seconds, self._challenge_over, ch,
                                   LobbyError("challenge_expired", name=target.name, seconds=self.challenge_seconds))
        self.challenges.append(ch)
        self.tell(target, "challenge", ch)
        return ch

    def _challenge_over(self, ch: Challenge, why: LobbyError) -> None:
        """``ch`` ends unanswered (expired, declined, taken back): both sides are told."""
        if ch not in self.challenges:
            return
        self.challenges.remove(ch)
        if ch.timer is not None:
            ch.timer.cancel()
        if not ch.future.done():
            ch.future.set_exception(why)
            ch.future.exception()  # (nobody may be waiting any more: mark it seen)
        self.tell(ch.target, "challenge-over", ch)

    def withdraw_challenge(self, ch: Challenge) -> None:
        self._challenge_over(ch, LobbyError("challenge_withdrawn"))

    def answer_challenge(self, player: Player, ch: Challenge, accept: bool) -> list[SeatDoor] | None:
        """``player`` (the one challenged) accepts (their handles: the match starts at
        once) or declines (None; the challenger reads why)."""
        if ch not in self.challenges or ch.target is not player:
            raise LobbyError("challenge_not_open")
        if not accept:
            self._challenge_over(ch, LobbyError("challenge_declined", name=player.name))
            return None
        self.challenges.remove(ch)
        if ch.timer is not None:
            ch.timer.cancel()
        challenger = ch.challenger
        if challenger.id not in self.players or challenger.superseded:
            raise LobbyError("gone", name=challenger.name)
        for p in (challenger, player):
            self._abandon(p)  # out of any queue or room first
        mine, theirs = self.tables[ch.game].play_people([challenger, player])
        ch.future.set_result(mine)
        return theirs

    # -- rematch -------------------------------------------------------------

    async def rematch(self, player: Player, handles: list[SeatDoor]) -> list[SeatDoor] | None:
        """The same people and bots again, in the same seats, once every person still at
        the results asks (a bot always agrees); None if that does not happen (someone
        leaves, or :attr:`rematch_wait` passes)."""
        if not handles:
            return None
        tables = self.tables.get(getattr(handles[0], "game", games.HOME))
        if tables is None:
            return None
        return await tables.rematch(player, handles)

    # -- the narrow interfaces the parts get (TableHost, NamesHost, PresenceHost, AwayHost) --

    def starts_in(self, player: Player) -> float | None:
        """Seconds until ``player``'s quick table starts without more players (None: not set)."""
        for tables in self.tables.values():
            left = tables.starts_in(player)
            if left is not None:
                return left
        return None

    def open_table(self, code: str) -> Any:
        """The table ``code`` still filling, of any game (None: none by that code)."""
        code = code.strip().upper()
        for tables in self.tables.values():
            if code in tables.tables:
                return tables.tables[code]
        return None

    def new_code(self) -> str:
        return self._new_code()

    def check_active(self, player: Player) -> None:
        self._check_active(player)

    def same_key(self, a: Player, b: Player | None) -> bool:
        return same_key(a, b)

    def other_session(self, player: Player) -> Player | None:
        return self.names.other_session(player)

    def supersede(self, old: Player, new: Player) -> None:
        self.away.supersede(old, new)

    def online(self, player: Player) -> bool:
        return self.presence.online(player)

    def abandon(self, player: Player) -> None:
        self._abandon(player)

    def set_status(self, player: Player, status: str, where: str = "") -> None:
        self.presence.set_status(player, status, where)

    def tell(self, player: Player, event: str, handles: Any = None) -> None:
        self.presence.tell(player, event, handles)

    def changed(self) -> None:
        self.presence.changed()

    def hosted(self, code: str) -> Hosted | None:
        return self.matches.get(code)

    def prune(self) -> None:
        self._prune()
