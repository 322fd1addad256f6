"""The lobby's model: its players, hosted matches, rooms and challenges, and its errors.

Every part of the lobby (:mod:`~server.lobby.names`, :mod:`~server.lobby.presence`,
:mod:`~server.lobby.away`, :mod:`~server.lobby.tables`, and the
:class:`~server.lobby.core.Lobby` façade) imports this module and none of the
others above it: the imports go one way (models < names, presence, away, tables < core).

Decision: the façade holds its parts as objects (:class:`~server.lobby.names.Names`,
:class:`~server.lobby.presence.Presence`, :class:`~server.lobby.away.Away`, one
:class:`~server.lobby.tables.Tables` per game), each given the lobby as the narrow
interface it needs of the others, declared as a Protocol beside it
(:class:`~server.lobby.names.NamesHost`, ...); the façade implements them by
delegating to the part that owns each thing.  So each part says what it reads and
changes, and a part's insides can change without the others noticing; the façade
keeps the methods callers use (``lobby.claim_name``, ``lobby.resume``...).  The
players online are :class:`~server.lobby.presence.Presence`'s; the hosted matches,
rooms and challenges the façade's.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from server import games
from server.errors import ServerError
from server.host.base import MatchHost

CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"  # no I or O: they read as 1 and 0
CODE_LEN = 4

GRACE_SECONDS = 60.0
CHALLENGE_SECONDS = 30.0  # a challenge not answered by then expires
BOT_OFFER_SECONDS = 20.0
REMATCH_WAIT_SECONDS = 120.0


class LobbyError(ServerError):
    """A lobby request that cannot be done; its code says why."""


class NameRejected(LobbyError):
    """A name that is not allowed or taken."""


def bot_strengths(game: str = games.HOME) -> list[tuple[str, str]]:
    """``(label, bot name)`` for each strength of ``game``'s bots, weakest first (the
    game's registry entry: :attr:`server.games.ServerGame.strengths`)."""
    return games.game(game).bot_strengths()


def known_bots(game: str = games.HOME) -> set[str]:
    """The bot names a seat of ``game`` may be given."""
    return set(games.game(game).bot_levels())


def takeover_bot(game: str = games.HOME) -> str:
    """The bot that plays a dropped player's seat of ``game``: a middling one."""
    return games.game(game).default_bot


def in_context(callback: Callable, *args) -> Callable[[], None]:
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
    match: MatchHost[Any, Any, Any, Any]
    humans: list[Player | None]
    spectators: set[Player] = field(default_factory=set)
    grace: dict[int, asyncio.Task] = field(default_factory=dict)
    deadlines: dict[int, float] = field(default_factory=dict)
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
    handles when it starts; ``table`` is its :class:`server.lobby.tables.Table` (its seats,
    within the game's bounds: Voltage's two, High Voltage's 2 to 4)."""

    code: str
    owner: Player
    game: str
    future: asyncio.Future
    table: Any = None  # the server.lobby.tables.Table filling (Any: tables imports this module)

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
        """One line (``ssh HOST who``): the players and the score, in the current context's
        language (a lobby screen words the same data: each game's words module, ``describe``)."""
        from tui.games.registry import words

        known = games.GAMES.get(self.game)
        return words(self.game).describe(known.title if known else self.game, self.names, self.scores, short)


def match_scores(match: Any) -> tuple[int, ...]:
    """What a list of matches shows as the score: sets won (Voltage), cards left (High
    Voltage, whose match has ``scores``)."""
    return tuple(getattr(match, "scores", None) or match.view(None).scores)


@dataclass(frozen=True)
class PlayerInfo:
    """A player online, as the lobby lists them: ``status`` is what they are at (an id:
    lobby, waiting, room, playing, watching, played, watched: the last two once the match
    is over), ``where`` the match's code; the screens word it (:func:`tui.words.status`)."""

    name: str
    status: str
    where: str = ""


@dataclass(frozen=True)
class Snapshot:
    """What the lobby screen shows; ``version``: the lobby's change count it was published
    at (:mod:`server.lobby.changes`; not part of what it shows, so not compared)."""

    players: tuple[PlayerInfo, ...]
    matches: tuple[MatchInfo, ...]
    waiting: dict[str, int]
    version: int = field(default=0, compare=False)


@dataclass(frozen=True)
class LobbyDelta:
    """What changed in the lobby from version ``base`` to ``version``: players arrived or
    changed (``players``, each keyed by its name), players gone (``gone``), matches started or
    changed (``matches``, keyed by code: a new one goes at the end), matches over
    (``ended``), the games' waiting counts, and the matches' order when it is not the one
    those rules give (rare: ``()`` otherwise).  Applied in order to the snapshot of
    ``base`` it gives the snapshot of ``version`` (:func:`server.lobby.changes.apply`)."""

    base: int
    version: int
    players: tuple[PlayerInfo, ...] = ()
    gone: tuple[str, ...] = ()
    matches: tuple[MatchInfo, ...] = ()
    ended: tuple[str, ...] = ()
    waiting: dict[str, int] = field(default_factory=dict)
    order: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        """How many lines it carries."""
        return len(self.players) + len(self.gone) + len(self.matches) + len(self.ended) + len(self.order)
