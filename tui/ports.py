r"""What the screens need from whatever serves them: the seams between ``tui`` and its backends.

The screens never import ``server``: a backend (the SSH lobby, local play, a replay,
and later an edge that talks to a host over Redis) satisfies the protocols declared here,
and ``voltage/cli.py`` composes the two.  Everything here is typing only (no Textual, no
server), so a backend, a host or a test double imports it at no cost.

The seams, smallest first:

- :class:`Update`: the message a seat gets after every change of its match.  It carries
  all a screen needs to redraw (the seat's view, the new log entries, the status notice,
  the countdown) and the match's ``version`` (how many actions it has accepted), so an
  edge that receives updates from a remote host can drop a stale or repeated one.  A
  concrete frozen dataclass, not a protocol: it is what crosses the wire.  Its entries
  and notice are data (engine events, :class:`Note`\ s), worded by each session
  (:mod:`tui.words` and each game's words module), so two seats may read two languages.
- :class:`SeatHandle`: one seat's (or a spectator's) door into a match: the current
  view, updates, intents.  Both games' handles satisfy it; neither subclasses the other.
- :class:`Host`: what owns a match's one state (both games' match hosts satisfy it): what
  the lobby and persistence ask of any match, and where handles come from.
- :class:`Backend` (what the app and every match and results screen need),
  :class:`HomeBackend` (``voltage play``'s start screen) and :class:`LobbyBackend` (one
  SSH session's lobby: the key's settings, ratings, history and the leaderboard too; a
  test's fake implements the whole port, ``tests.support.lobby``).
- :class:`ReplaySource`: a finished match, stepped through (``server.replay.Replay``).

:class:`Refused` is the one error a screen catches from a backend: the request was
understood and turned down (a name taken, a room code unknown, a move out of turn).
It carries a ``code`` and ``params``, which the screen words (:func:`tui.words.refusal`).
The server's own errors derive from it; :class:`~server.backend.SSHBackend` turns any
other ``ValueError`` its lobby raises into one at the seam (:func:`refusing`), so a
screen never needs ``except ValueError``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    Generic,
    Protocol,
    TypeVar,
    runtime_checkable,
)

if TYPE_CHECKING:  # (types only: the tui imports no screen here)
    from textual.screen import Screen

    from tui.lobby_events import LobbyEvent


class Refused(ValueError):
    """A backend turned a request down: a stable ``code`` and the ``params`` a sentence about
    it needs (``Refused("no_room", code="KCUZ")``).  The tui words it for the player
    (:func:`tui.words.refusal`); ``str(e)`` is a terse form for logs.

    A ``ValueError`` so that screens written before this root keep catching it."""

    def __init__(self, code: str = "failed", /, **params: Any) -> None:
        self.code = code
        self.params: dict[str, Any] = params
        super().__init__(code)

    def __str__(self) -> str:
        if not self.params:
            return self.code
        return self.code + " " + " ".join(f"{k}={v!r}" for k, v in self.params.items())

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self.code, self.params))

    @classmethod
    def of(cls, code: str, params: Mapping[str, Any]) -> Refused:
        """This class's refusal with ``code`` and ``params``, however its constructor is spelled
        (what a remote peer rebuilds)."""
        error = cls.__new__(cls)
        Refused.__init__(error, code, **dict(params))
        return error


def _rebuild(cls: type[Refused], code: str, params: dict[str, Any]) -> Refused:
    return cls.of(code, params)


@contextlib.contextmanager
def refusing() -> Iterator[None]:
    r"""Re-raise a ``ValueError`` that is not yet a :class:`Refused` as one (code ``refused``,
    its text as ``detail``, the original chained): for a backend wrapping code that raises
    plain ``ValueError``\ s.  An engine error keeps its code and params."""
    try:
        yield
    except Refused:
        raise
    except ValueError as e:
        code = getattr(e, "code", None)
        if isinstance(code, str):
            raise Refused(code, **getattr(e, "params", {})) from e
        raise Refused("refused", detail=str(e)) from e


@dataclass(frozen=True)
class Note:
    """Something a host says that is not a move, as data: an ``id`` and its ``params``
    (``Note("back", {"name": "Bob"})``: "Bob is back.").  A log entry, or part of a
    status notice; the tui words it (:func:`tui.words.note`)."""

    id: str
    params: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, id: str, **params: Any) -> Note:
        return cls(id, params)


#: One entry of a match's log: an engine event (a game's own dataclass, with a ``kind``) or a
#: :class:`Note`.  The tui words it with the game's words module.
Entry = Any

#: A status notice: its notes, one after the other (() for none).
Notice = tuple[Note, ...]


@dataclass(frozen=True)
class RatingChange:
    """A rated seat's new rating after a match (as shown) and its change."""

    seat: int
    name: str
    rating: int
    delta: int


@dataclass(frozen=True)
class HistoryItem:
    """One finished match in a player's history, from that player's side: its number, when
    it ended, the game's name (``title``: "" when the history does not name it; ``short``:
    in a narrow list), the others' names, how many seats, the player's place (None: not
    ranked or not seated), how many won, the score from the player's side ((): none), how it
    ended (the stored reason) and the rating change (None: unrated)."""

    id: int
    ended: float
    title: str
    short: str
    others: tuple[str, ...]
    seats: int
    rank: int | None
    winners: int
    score: tuple[int, ...]
    reason: str
    delta: int | None
    hinted: bool = False  # the player asked the coach for hints in it (so it was not rated)


@dataclass(frozen=True)
class BotRecord:
    """A player's results against one bot level in one game (matches with a bot are not
    rated: this is what they count for): the game's name as a history names it
    (``title``: "" for the home game; ``short``: in a narrow list), the bot's level, and
    how often the player finished ahead of that bot, behind it, or level with it."""

    game: str
    title: str
    short: str
    bot: str
    won: int
    lost: int
    drawn: int


@dataclass(frozen=True)
class LeaderEntry:
    """One line of a game's leaderboard: the place, the name, the rating shown, how many
    rated matches, the rating shown after each of them (oldest first) and whether it is
    the player asking."""

    place: int
    name: str
    rating: int
    games: int
    history: tuple[int, ...]
    me: bool = False


@dataclass(frozen=True)
class LinkedBrowser:
    """A browser linked to the player's key (``ssh HOST link``), as the settings screen lists
    it: what it said it is ("Chrome on Linux"), when it was linked and last used (epoch seconds)."""

    label: str
    linked: float
    last_seen: float


ViewT = TypeVar("ViewT")
ViewT_co = TypeVar("ViewT_co", covariant=True)


@dataclass(frozen=True)
class Update(Generic[ViewT]):
    r"""What a seat's screens get after a change of its match.

    ``entries`` are the log entries new since the last update (engine events and
    :class:`Note`\ s; for this seat: High Voltage's "too slow" goes to its sender only);
    ``notice`` the status notice's notes (() for none);
    ``countdown`` the number showing (3, 2, 1) in a real-time game, else None;
    ``version`` how many actions the match had accepted (it never goes down); ``names``
    the seats' labels as shown now (they change: "Bob (bot playing)"; () when unknown);
    ``extras`` what the game gives a seat beside its view, by name (a clock, a draw offer,
    idle marks): each game declares its own, with their defaults, in its server registry
    entry, and its screens read them (:meth:`extra`)."""

    view: ViewT
    entries: tuple[Entry, ...] = ()
    notice: Notice = ()
    countdown: int | None = None
    version: int = 0
    names: tuple[str, ...] = ()
    extras: Mapping[str, Any] = field(default_factory=dict)

    def extra(self, name: str, default: Any = None) -> Any:
        """The game's extra ``name`` (``default`` where this update has none)."""
        return self.extras.get(name, default)


@dataclass(frozen=True)
class NoticeChanged:
    """The status notice is now ``notice`` (a message on a seat's second stream)."""

    notice: Notice


@dataclass(frozen=True)
class ChatLine:
    """One line of chat, as every reader gets it (a message on a seat's second stream, or
    the lobby's own).  ``room`` is "lobby", "players" or "spectators"; ``author`` the name
    shown; ``who`` an opaque mark of the author's key, stable across sessions (what a mute
    keeps; never the key itself); ``text`` plain text the server has cleaned (never markup,
    never a control character: see :mod:`server.chat.text`), "" for a quick phrase, whose
    id is ``phrase`` (each reader words it); ``at`` the wall time it was accepted; ``step``
    the match's action count then (a replay shows it there); ``id`` its number in the
    store (0: not kept)."""

    room: str
    author: str
    who: str
    text: str
    phrase: str = ""
    at: float = 0.0
    step: int = 0
    id: int = 0


#: A message on a seat's second stream: what a host says that is not a move (its status
#: notice, a chat line).  Never in the log, never versioned: a screen that was not
#: listening when it was said never gets it (the notice is in every update too; a chat
#: panel reads the room's lines when it opens).
SeatMessage = NoticeChanged | ChatLine

UpdateCallback = Callable[[Update[Any]], None]
ChatCallback = Callable[[ChatLine], None]
MessageCallback = Callable[[SeatMessage], None]
Unsubscribe = Callable[[], None]


@runtime_checkable
class SeatHandle(Protocol[ViewT_co]):
    """A screen's door into one match for one seat (``seat`` None: a spectator).

    ``view()``, ``log``, ``notice``, ``countdown``, ``version`` and ``extras`` (the game's,
    as in an :class:`Update`) read the present; ``subscribe_messages`` calls back with each
    :data:`SeatMessage` said to this seat from then on (the second stream: not moves);
    ``subscribe`` calls back with an :class:`Update` on the event loop after every change
    (in the subscriber's own context); ``submit`` sends an intent and raises a ``RuleError``
    (its code) if it is refused."""

    @property
    def game(self) -> str: ...  # the game's id (``engine.registry``)

    @property
    def seat(self) -> int | None: ...

    @property
    def spectator(self) -> bool: ...

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def log(self) -> list[Entry]: ...  # every entry this seat has seen, oldest first

    @property
    def notice(self) -> Notice: ...

    @property
    def countdown(self) -> int | None: ...

    @property
    def version(self) -> int: ...

    @property
    def extras(self) -> Mapping[str, Any]: ...

    def view(self) -> ViewT_co: ...

    def subscribe(self, callback: UpdateCallback) -> Unsubscribe: ...

    def subscribe_messages(self, callback: MessageCallback) -> Unsubscribe: ...

    def submit(self, action: Any) -> Awaitable[None]: ...

    def resign(self) -> Awaitable[None]: ...


#: The handles a backend gives to play (or watch) through: one, or a hot-seat's two.
Handles = Sequence[SeatHandle[Any]]


class SeatInfo(Protocol):
    """Who sits in a seat of a hosted match (``bot``: the bot playing it, if any)."""

    name: str
    identity: str | None
    bot: str | None
    connected: bool

    @property
    def is_bot(self) -> bool: ...

    @property
    def label(self) -> str: ...


@runtime_checkable
class Host(Protocol):
    """A match host: the only copy of a match's state, its seats and its watchers.

    What the lobby, persistence and the handles ask of either game's host: facts
    (``game``, ``seats``, ``seed``, ``code``, ``actions``, ``log``, ``notice``, ``over``,
    ``winner``, ``names``), the seats' views and handles, intents (``submit``), and the
    lobby's levers (``start``, ``set_bot``, ``set_notice``, ``announce``, ``close``).
    ``on_action`` / ``on_end`` hooks run after each accepted (and stored) action / at the end."""

    game: str
    seats: list[Any]  # SeatInfo each (a list: the lobby hands seats to bots and back)
    seed: int
    code: str
    actions: list[Any]
    log: list[Entry]
    on_action: list[Callable[[Any, Any], None]]
    on_end: list[Callable[[Any], None]]

    @property
    def notice(self) -> Notice: ...

    @property
    def paused(self) -> bool: ...

    @property
    def over(self) -> bool: ...

    @property
    def winner(self) -> int | None: ...

    @property
    def names(self) -> tuple[str, ...]: ...

    def view(self, seat: int | None) -> Any: ...

    def handle(self, seat: int | None) -> SeatHandle[Any]: ...

    def subscribe(self, seat: int | None, callback: UpdateCallback) -> Unsubscribe: ...

    def submit(self, seat: int, action: Any) -> Awaitable[None]: ...

    def start(self) -> None: ...

    def set_bot(self, seat: int, bot: str | None) -> None: ...

    def set_notice(self, *notes: Note) -> None: ...

    def announce(self, note: Note) -> None: ...

    def close(self) -> None: ...



class Backend(Protocol):
    """What the app and every match or results screen need from their backend."""

    #: True on a server (a dropped seat is kept for a grace period; no practice mode).
    online: bool

    def home_screen(self) -> Screen[Any]: ...

    def rematch(self, handles: Handles) -> Awaitable[Handles | None]: ...

    def rating_change(self, handles: Handles) -> Awaitable[Sequence[RatingChange] | None]: ...  # a rated match's


class HomeBackend(Backend, Protocol):
    """``voltage play``: matches hosted in the app's own process, chosen on the start screen.

    ``games()`` gives ``(id, playable)`` (the screen words each game from its facts);
    ``opponents(game)`` gives ``(id, label, description)`` of whom that game is played
    against (each bot strength, then hot-seat, ``"hotseat"``, whose words the screen's).
    Nothing here crosses a wire (the matches are the app's own), so these answer at once."""

    default_opponent: str

    def games(self) -> list[tuple[str, bool]]: ...

    def opponents(self, game: str) -> list[tuple[str, str, str]]: ...

    def start_match(self, game: str, opponent: str, player_name: str, *,
                    names: tuple[str, str] | None = None) -> Handles: ...


class LobbyBackend(Backend, Protocol):
    """One SSH session's player in the shared lobby (what the lobby screen always calls).

    Every method that may cross a wire (an edge asks the host) returns an awaitable; the
    screens await it (in the handler of the key that asked, so the keys after it wait
    their turn, or in a worker for what waits on other people: a quick match, a room).
    What answers from the session's own copy (the lobby's snapshot, its facts, the bot
    strengths) answers at once.  Every method that starts or joins a match returns the
    handles to play through, and raises :class:`Refused` (its code, worded by the screen)
    when it cannot.  The key's settings, ratings, history (and record against bots), the
    leaderboard and High Voltage's table are here too: every lobby backend has them."""

    initial: tuple[str, str] | None  # ("join" | "watch", CODE) from the ssh command line
    name_prefill: str
    stored_name: str | None  # the name the player's key goes by (None: a guest, or a new key)

    @property
    def games(self) -> Sequence[str]: ...  # the game ids the lobby offers, in its order

    @property
    def game_titles(self) -> Mapping[str, str]: ...

    @property
    def name(self) -> str: ...

    @property
    def named(self) -> bool: ...

    @property
    def bot_offer_after(self) -> float: ...

    @property
    def guest(self) -> bool: ...  # no key: a dropped seat goes to a bot at once

    @property
    def grace_seconds(self) -> float: ...  # how long a dropped seat waits for its player

    def snapshot(self) -> Any: ...  # the lobby's present: players, matches, rooms (the latest known), its version

    # What changed since the snapshot of version ``since``: its deltas in order, each with
    # ``base``, ``version``, the players arrived or changed and gone, the matches started or
    # changed and over, the waiting counts, the matches' order if it moved
    # ([]: nothing; None: not kept, read ``snapshot()``).
    def lobby_changes(self, since: int) -> Sequence[Any] | None: ...

    def subscribe(self, callback: Callable[[], None]) -> Unsubscribe: ...

    def strengths(self) -> list[tuple[str, str]]: ...

    def claim_name(self, name: str) -> Awaitable[str]: ...

    def enter_lobby(self) -> Awaitable[None]: ...

    def resumable(self) -> Awaitable[bool]: ...

    def resume(self) -> Awaitable[Handles | None]: ...

    def quick_match(self, game: str = ...) -> Awaitable[Handles]: ...

    def play_bot(self, bot: str, game: str = ...) -> Awaitable[Handles]: ...

    def create_room(self, game: str = ..., size: int = ..., time_control: str = ...) -> Awaitable[Any]: ...

    def start_room(self) -> Awaitable[None]: ...

    def close_room(self) -> Awaitable[None]: ...

    def seated(self, code: str) -> Awaitable[tuple[tuple[str, ...], int] | None]: ...

    def room_game(self, code: str) -> Awaitable[str | None]: ...

    def join_room(self, code: str) -> Awaitable[Handles]: ...

    def join(self, code: str) -> Awaitable[Handles]: ...

    def watch(self, code: str) -> Awaitable[Handles]: ...

    def refuses_challenges(self) -> Awaitable[bool]: ...

    def set_challenges(self, welcome: bool) -> Awaitable[None]: ...

    def challenge(self, name: str, game: str = ...) -> Awaitable[Any]: ...  # has game, target, seconds_left

    def challenge_answer(self, challenge: Any) -> Awaitable[Handles]: ...

    def answer_challenge(self, challenge: Any, accept: bool) -> Awaitable[Handles | None]: ...

    def withdraw_challenge(self, challenge: Any) -> Awaitable[None]: ...

    def match_screen(self, handles: Handles) -> Screen[Any]: ...

    def replay_screen(self, match_id: int) -> Awaitable[Screen[Any]]: ...

    def ssh_command(self, args: str = ..., *, tty: bool = ...) -> str: ...  # the line that reaches this server

    @property
    def identity(self) -> str | None: ...

    def rename_wait(self) -> Awaitable[float]: ...  # seconds until the key may take another name (0: now)

    def bot_levels(self, game: str) -> tuple[str, ...]: ...  # a table's bot levels, in order

    def settings(self) -> Awaitable[dict[str, str]]: ...

    def save_setting(self, key: str, value: str) -> Awaitable[None]: ...

    def start_colours(self) -> Awaitable[str | None]: ...

    def colours_forced(self) -> Awaitable[str | None]: ...  # why the colours are not the player's ("no_color")

    def listen(self, callback: Callable[[LobbyEvent], None]) -> None: ...  # the lobby's typed events

    def ratings(self) -> Awaitable[list[tuple[str, int, int]]]: ...

    def history(self, limit: int = ...) -> Awaitable[list[HistoryItem]]: ...

    def bot_record(self) -> Awaitable[list[BotRecord]]: ...  # the key's results against each bot level

    def leaderboard_games(self) -> Awaitable[list[tuple[str, str]]]: ...

    def leaderboard(self, game: str, n: int = ...) -> Awaitable[list[LeaderEntry]]: ...

    def hv_starts_in(self) -> Awaitable[float | None]: ...

    def linked_browsers(self) -> Awaitable[list[LinkedBrowser]]: ...  # the key's (a guest: none)

    def lobby_chat(self) -> ChatRoom | None: ...  # the lobby's talk (None: none here)

    def match_chat(self, handles: Handles) -> ChatRoom | None: ...  # a match's talk (None: none)

    def close(self) -> None: ...


class ChatRoom(Protocol):
    """One place to talk, as a chat panel sees it: the lobby, or a match (its players' room
    and its spectators').

    ``rooms`` are where this session may write (a player: "players", then "spectators";
    a spectator: "spectators"; the lobby: "lobby"); ``free_text`` whether it may write
    its own words (else quick phrases only: a guest); ``me`` its name (a line naming
    ``@me`` alerts it).  ``lines()`` gives the lines this session may read now, oldest
    first; ``listen`` calls back with each new one; ``say`` returns the line as accepted
    (stored) or raises :class:`Refused` (``chat_too_fast`` with ``wait``,
    ``chat_repeated``, ``chat_guest``, ``chat_empty``...).  ``mutes()`` gives the authors
    this key muted (``who`` -> name), ``mute(name, on)`` mutes or unmutes a name for this
    key (kept across sessions for a key) and returns the author's ``who``."""

    @property
    def rooms(self) -> tuple[str, ...]: ...

    @property
    def free_text(self) -> bool: ...

    @property
    def me(self) -> str: ...

    def lines(self) -> Awaitable[list[ChatLine]]: ...

    def listen(self, callback: ChatCallback) -> Unsubscribe: ...

    def say(self, text: str, *, phrase: str = "", room: str = "") -> Awaitable[ChatLine]: ...

    def mutes(self) -> Awaitable[dict[str, str]]: ...

    def mute(self, name: str, on: bool = True) -> Awaitable[str]: ...


class ReplayRecord(Protocol):
    """The stored match a replay shows: its id (``match #12``) and game id."""

    @property
    def id(self) -> int: ...

    @property
    def game(self) -> str: ...


class ReplaySource(Protocol):
    """A finished match to step through (``server.replay.Replay``): every position by its
    step (0: the deal, ``last``: the end), its log (entries, worded by the screen), its sets
    (rounds), and what each seat saw.

    ``seat`` is the viewer's own seat (None: a spectator); ``unit`` is the id of the
    stretches between ``set_steps`` ("set", "round"; :func:`tui.words.stretch` words it);
    ``viewpoints`` is what the seat-view key cycles through (every hand first, then each
    seat)."""

    @property
    def record(self) -> ReplayRecord: ...

    seat: int | None
    names: tuple[str, ...]
    unit: str
    set_steps: list[int]

    @property
    def last(self) -> int: ...

    @property
    def sets(self) -> int: ...

    @property
    def viewpoints(self) -> tuple[int | str, ...]: ...

    def clamp(self, step: int) -> int: ...

    def view(self, step: int) -> Any: ...

    def seat_view(self, step: int, seat: int | None) -> Any: ...

    def hands(self, step: int) -> tuple[tuple[Any, ...], ...]: ...

    def entries(self, step: int) -> list[Entry]: ...

    def step_entries(self, step: int) -> tuple[Entry, ...]: ...

    def action(self, step: int) -> str | None: ...

    def next_viewpoint(self, viewpoint: int | str) -> int | str: ...

    def set_at(self, step: int) -> int: ...

    def next_set(self, step: int) -> int: ...

    def prev_set(self, step: int) -> int: ...
