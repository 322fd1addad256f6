"""The rooms: the lobby's, and each match's players' and spectators'.

:class:`Chat` is the server's one chat (the lobby owns it, beside its store).  A line is
checked (:mod:`server.chat.text`, the guest rule, the room, :mod:`server.chat.limits`),
looked up against the operator's silences, stored (:mod:`server.chat.storage`: only a
stored line is accepted) and then delivered:

- the lobby's, to the lobby's listeners (a session's screen, or the split server's host,
  which publishes it on the lobby's own stream for every edge);
- a match's, said on its seats' second stream (:meth:`MatchHost.say`): the players' room
  to the players' seats, the spectators' room to seat None (the spectators'), so a
  spectator's screen or edge never receives the players' words and a player's never the
  spectators' (a player may write to the spectators: it is said to them).  Once the match
  is over, every line is said to everyone who is there, and :meth:`Chat.lines` gives a
  reader both rooms;
- a silenced author's, to nobody: their own screen shows the line as accepted (the
  answer to their ``say``), and :meth:`Chat.lines` gives it back to them alone.

Guests (no key) may use the quick phrases and nothing else: a guest is one connection,
so neither a player's mute nor an operator's silence could follow them to the next one.
"""

from __future__ import annotations

import hashlib
import itertools
import logging
import time
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from server.chat import storage
from server.chat.limits import RateLimit
from server.chat.moderation import Silences
from server.chat.text import PHRASES, clean
from tui.ports import ChatLine, Refused

log = logging.getLogger(__name__)

#: The lobby's chat on a split server's bus: a channel of its own beside the lobby
#: snapshot (a seat's second stream under a name no match code can have).
LOBBY_STREAM = ("~lobby", 0)

LOBBY = "lobby"
PLAYERS = "players"
SPECTATORS = "spectators"


def who_of(identity: str) -> str:
    """What readers see of an author's identity: stable for a key, never the key itself."""
    return hashlib.sha256(b"voltage-chat:" + identity.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Kept:
    """A line as the server keeps it: who wrote it and whether only they may read it."""

    line: ChatLine
    identity: str
    shadow: bool = False

    def readable_by(self, identity: str | None) -> bool:
        return not self.shadow or identity == self.identity


@dataclass(eq=False)
class MatchRoom:
    """A match's two rooms: its lines, both rooms, in the order said."""

    lines: list[Kept] = field(default_factory=list)


class Chat:
    """The server's chat; see the module's notes."""

    def __init__(self, store: Any = None, *, limit: RateLimit | None = None, silences: Silences | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.limit = limit or RateLimit()
        self.silences = silences or Silences(store)
        self.clock = clock
        self._lobby: deque[Kept] | None = None  # read from the store when first asked
        self._listeners: list[Callable[[ChatLine], None]] = []
        self._rooms: weakref.WeakKeyDictionary[Any, MatchRoom] = weakref.WeakKeyDictionary()
        self._ids = itertools.count(1)  # a line's id without a store

    # -- reading -------------------------------------------------------------

    def _lobby_kept(self) -> deque[Kept]:
        if self._lobby is None:
            self._lobby = deque(maxlen=storage.LOBBY_KEPT)
            if self.store is not None:
                try:
                    for line, identity, shadow in storage.lobby_lines(self.store):
                        self._lobby.append(Kept(line, identity, shadow))
                except Exception:
                    log.exception("could not read the lobby's chat from the store")
        return self._lobby

    def lobby_lines(self, identity: str | None) -> list[ChatLine]:
        """The lobby's last lines ``identity`` may read, oldest first."""
        return [k.line for k in self._lobby_kept() if k.readable_by(identity)]

    def listen(self, callback: Callable[[ChatLine], None]) -> Callable[[], None]:
        """Call ``callback(line)`` with each line said in the lobby that everyone may read."""
        self._listeners.append(callback)

        def unlisten() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)

        return unlisten

    def room(self, host: Any) -> MatchRoom:
        """``host``'s rooms (a restored match's lines read back from the store)."""
        room = self._rooms.get(host)
        if room is None:
            room = self._rooms[host] = MatchRoom()
            mid = _match_id(host)
            if self.store is not None and mid is not None:
                try:
                    room.lines = [Kept(line, identity, shadow)
                                  for line, identity, shadow in storage.match_lines(self.store, mid, shadow=True)]
                except Exception:
                    log.exception("match %s: could not read its chat from the store", getattr(host, "code", "?"))
        return room

    def match_lines(self, host: Any, seat: int | None, identity: str | None) -> list[ChatLine]:
        """The lines of ``host`` that ``seat`` (None: a spectator) may read: its own room, and
        the lines it wrote; both rooms once the match is over."""
        over = bool(host.over)
        out = []
        for k in self.room(host).lines:
            if not k.readable_by(identity):
                continue
            mine = identity is not None and k.identity == identity
            if over or mine or k.line.room == (PLAYERS if seat is not None else SPECTATORS):
                out.append(k.line)
        return out

    # -- writing -------------------------------------------------------------

    async def say(self, *, identity: str, name: str, guest: bool, text: str = "", phrase: str = "",
                  room: str = LOBBY, host: Any = None, seat: int | None = None) -> ChatLine:
        """Accept a line (stored first) and deliver it; raise :class:`Refused` saying why not."""
        if phrase:
            if phrase not in PHRASES:
                raise Refused("chat_no_phrase")
            text = ""
        else:
            if guest:
                raise Refused("chat_guest")
            text = clean(text)
            if not text:
                raise Refused("chat_empty")
        if host is None:
            if room != LOBBY:
                raise Refused("chat_not_here")
        elif room not in ((PLAYERS, SPECTATORS) if seat is not None else (SPECTATORS,)):
            raise Refused("chat_not_here")
        self.limit.check(identity, phrase or text)
        lines = self._lobby_kept() if host is None else self.room(host).lines  # (read back before a new one is kept)
        shadow = self.silences.until(identity, name) is not None
        step = len(host.actions) if host is not None else 0
        line = ChatLine(room, name, who_of(identity), text, phrase, self.clock(), step)
        line = replace(line, id=await self._store(line, identity, host, shadow))
        kept = Kept(line, identity, shadow)
        lines.append(kept)
        if host is None:
            if not shadow:
                for listener in list(self._listeners):
                    try:
                        listener(line)
                    except Exception:
                        log.exception("a chat listener failed")
        else:
            if not shadow:
                seats: list[int | None] | None = None  # once over: everyone there
                if not host.over:
                    seats = list(range(len(host.seats))) if room == PLAYERS else [None]
                host.say(line, seats)
        return line

    async def _store(self, line: ChatLine, identity: str, host: Any, shadow: bool) -> int:
        """The line's id once stored (a counter without a store; a match without a record
        keeps its lines in memory only)."""
        if self.store is None:
            return next(self._ids)
        recorder = getattr(host, "recorder", None) if host is not None else None
        if host is not None and recorder is None:
            return next(self._ids)
        try:
            return await storage.add(self.store, line, identity=identity, shadow=shadow,
                                     match_id=recorder._current_id if recorder is not None else None)
        except Exception as e:
            log.warning("a chat line could not be stored: %s", e)
            raise Refused("chat_not_kept") from e


def _match_id(host: Any) -> int | None:
    recorder = getattr(host, "recorder", None)
    return getattr(recorder, "known_id", None) if recorder is not None else None
