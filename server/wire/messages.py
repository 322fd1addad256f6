"""What crosses between an edge and the host, declared (see ``docs/design/wire.md``).

Each message is a frozen dataclass declared as a record with a stable tag; each lobby call
is a :class:`~server.wire.codec.Call` (named, typed arguments, a typed result) that the
host makes on the session's :class:`~tui.ports.LobbyBackend` (``call.method``).

- **Calls** (edge -> host, :data:`CALLS`): a session's lobby calls, and the few an edge
  makes for itself (``open``, ``reopen``, ``close``, ``who``, ``command``,
  ``replay_record``).  A seat handle or a challenge never crosses: the host answers with
  a :class:`SeatDescriptor` (the seat's present: its view, log, notice, names, extras) or
  a :class:`ChallengeDescriptor` and keeps the real object; the edge names it back with a
  :class:`SeatRef` or a :class:`ChallengeRef`.
- **Answers** (host -> edge): :class:`Reply` (the value, encoded with the call's declared
  result: the caller decodes it), :class:`Refusal` (a code and params, worded by the
  edge's screen), :class:`Failure` (the host could not do it), each with the session's
  :class:`SessionState` after the call.
- **Intents** (edge -> host, in a bus :class:`~server.bus.Intent`): :class:`Submit`,
  :class:`Resign`, :class:`SeatCall` (a game's declared seat call); their result,
  :class:`Accepted`, :class:`Answered` (a call's value: a hint) or :class:`Rejected` (the
  rule's error, by its declared class).
- **Pushes** (host -> an edge's session): :class:`Pushed` carrying a :data:`PUSH`: a watched
  match followed into its rematch, a challenge and its end, a newer session taking over, a
  private room filled or closed; to the edge itself, a coach's analysis's progress.
- **A seat's streams**: :class:`SeatUpdate` and :class:`FullUpdate` (versioned, on the
  updates stream), and what is not a move, on the second stream: a
  :data:`tui.ports.SeatMessage` as it is (:class:`~tui.ports.NoticeChanged`, declared
  with the shared values; chat lines and presence come next, beside it).
- **The lobby**: :class:`LobbySnapshot`, the lobby's present and the host's run (epoch),
  and between two snapshots :class:`LobbyChanges`, the delta since the last message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.store.db import MatchRecord
from server.wire.codec import (
    BOOL,
    ERROR,
    FLOAT,
    INT,
    RAW,
    STR,
    VALUE,
    Call,
    Declared,
    Scalar,
    call,
    dict_of,
    fixed,
    lst,
    one_of,
    opt,
    record,
    ref,
    tup,
)
from server.wire.types import LOG, NOTE, UPDATE
from tui.ports import (
    BotRecord,
    ChatLine,
    Entry,
    HistoryItem,
    LeaderEntry,
    LinkedBrowser,
    Notice,
    RatingChange,
    Update,
)

NONE = Scalar("null", (type(None),))  # a call that answers nothing

# -- what a session and its seats are on the wire -----------------------------------------


@dataclass(frozen=True)
class SessionState:
    """A session's player after each call: its name, whether it is named (online under
    it), whether a newer session of its key took over, the name its key goes by."""

    name: str
    named: bool
    superseded: bool
    stored_name: str | None


@dataclass(frozen=True)
class Opened:
    """A session opened on the host: the name to suggest, the ``join``/``watch`` it was
    started with, the facts a screen reads of its backend, and the key's kept settings as
    they were (its language: the session starts in it with no second call before its first frame)."""

    prefill: str
    initial: tuple[str, str] | None
    guest: bool
    grace: float
    bot_offer_after: float
    identity: str | None
    state: SessionState
    settings: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class SeatDescriptor:
    """A seat handle the host keeps, as an edge draws it at once: the match, the seat's
    channel ``key`` (its seat, or -1: a spectator), its present (view, log, notice, names,
    countdown, version) and its game's extras."""

    match: str
    key: int
    game: str
    seat: int | None
    names: tuple[str, ...]
    log: tuple[Entry, ...]
    notice: Notice
    countdown: int | None
    version: int
    view: Any
    extras: dict[str, Any]


@dataclass(frozen=True)
class SeatRef:
    """A seat handle the host gave this session, named back (a rematch of it)."""

    match: str
    key: int


@dataclass(frozen=True)
class ChallengeDescriptor:
    """A challenge the host keeps: its id, the game, who challenges whom, the seconds left."""

    id: str
    game: str
    challenger: str
    target: str
    left: float


@dataclass(frozen=True)
class ChallengeRef:
    id: str


@dataclass(frozen=True)
class Reopened:
    """A session opened again on a restarted host, with the seats it has back."""

    opened: Opened
    seats: tuple[SeatDescriptor, ...]


@dataclass(frozen=True)
class RoomOpened:
    """A private room this session opened (its code, game and seats)."""

    code: str
    game: str
    size: int


@dataclass(frozen=True)
class CommandAnswer:
    """A command's answer for an edge (``leaderboard``, ``export``): exit status, output."""

    code: int
    out: str
    err: str


SEAT = ref(SeatDescriptor)
SEATS = tup(SEAT)
SEAT_REFS = tup(ref(SeatRef))
CHALLENGE = ref(ChallengeDescriptor)
CHALLENGE_REF = ref(ChallengeRef)
STATE = opt(ref(SessionState))

# -- calls (edge -> host) -----------------------------------------------------------------

#: What an edge asks for itself (before, beside or after a session's lobby).
OPEN = call("edge.open", result=ref(Opened), identity=opt(STR), username=STR, initial=opt(fixed(STR, STR)),
            env=dict_of(STR))
REOPEN = call("edge.reopen", result=ref(Reopened), identity=opt(STR), username=STR, env=dict_of(STR), name=STR,
              seats=SEAT_REFS)
CLOSE = call("edge.close", result=NONE)
#: ``who``, ``leaderboard`` and ``export`` are worded on the host in the command's ``language`` (a code).
WHO = call("edge.who", result=STR, language=STR)
COMMAND = call("edge.command", result=ref(CommandAnswer), words=tup(STR), ssh=STR, language=STR)
#: The language a key chose in the settings (None: none), for a command's answer.
KEPT_LANGUAGE = call("edge.kept_language", result=opt(STR), key=STR)
REPLAY_RECORD = call("edge.replay_record", result=ref(MatchRecord), id=INT, identity=opt(STR))
#: The browsers linked to a key (``ssh HOST link``, ``unlink``; the web transport's logins).
LINK_CODE = call("edge.link_code", result=STR, key=STR)
REDEEM_LINK = call("edge.redeem_link", result=opt(fixed(STR, STR)), code=STR, label=STR)
BROWSER_KEY = call("edge.browser_key", result=opt(STR), token=STR)
UNLINK = call("edge.unlink", result=INT, key=STR)
LINKS: tuple[Call, ...] = (LINK_CODE, REDEEM_LINK, BROWSER_KEY, UNLINK)
#: A finished match's record, for this session's player to replay (the host checks it may).
REPLAY = call("lobby.replay", "open_replay", result=ref(MatchRecord), id=INT)
#: The coach's analysis of a finished match for ``identity`` (its moves, each its game's
#: declared value: Voltage's ``v.move``): the one kept (None: none yet), or made now on the
#: host's coach worker (one per player at a time; its progress pushed as :class:`AnalysisProgress`).
KEPT_ANALYSIS = call("edge.kept_analysis", result=opt(tup(VALUE)), id=INT, identity=opt(STR))
ANALYSE = call("edge.analyse", result=tup(VALUE), id=INT, identity=opt(STR))
COACH: tuple[Call, ...] = (KEPT_ANALYSIS, ANALYSE)

#: A session's lobby calls: the methods of its :class:`~tui.ports.LobbyBackend` on the host.
LOBBY: tuple[Call, ...] = (
    call("lobby.claim_name", result=STR, name=STR),
    call("lobby.rename_wait", result=FLOAT),
    call("lobby.resumable", result=BOOL),
    call("lobby.resume", result=opt(SEATS)),
    call("lobby.enter_lobby", result=NONE),
    call("lobby.quick_match", result=SEATS, game=STR),
    call("lobby.play_bot", result=SEATS, bot=STR, game=STR),
    call("lobby.create_room", result=ref(RoomOpened), game=STR, size=INT, time_control=STR),
    call("lobby.start_room", result=NONE),
    call("lobby.close_room", result=NONE),
    call("lobby.seated", result=opt(fixed(tup(STR), INT)), code=STR),
    call("lobby.room_game", result=opt(STR), code=STR),
    call("lobby.join_room", result=SEATS, code=STR),
    call("lobby.join", result=SEATS, code=STR),
    call("lobby.watch", result=SEATS, code=STR),
    call("lobby.refuses_challenges", result=BOOL),
    call("lobby.set_challenges", result=NONE, welcome=BOOL),
    call("lobby.challenge", result=CHALLENGE, name=STR, game=STR),
    call("lobby.challenge_answer", result=SEATS, challenge=CHALLENGE_REF),
    call("lobby.answer_challenge", result=opt(SEATS), challenge=CHALLENGE_REF, accept=BOOL),
    call("lobby.withdraw_challenge", result=NONE, challenge=CHALLENGE_REF),
    call("lobby.settings", result=dict_of(STR)),
    call("lobby.save_setting", result=NONE, key=STR, value=STR),
    call("lobby.start_colours", result=opt(STR)),
    call("lobby.colours_forced", result=opt(STR)),
    call("lobby.ratings", result=lst(fixed(STR, INT, INT))),
    call("lobby.history", result=lst(ref(HistoryItem)), limit=INT),
    call("lobby.bot_record", result=lst(ref(BotRecord))),
    call("lobby.leaderboard_games", result=lst(fixed(STR, STR))),
    call("lobby.leaderboard", result=lst(ref(LeaderEntry)), game=STR, n=INT),
    call("lobby.linked_browsers", result=lst(ref(LinkedBrowser))),
    call("lobby.hv_starts_in", result=opt(FLOAT)),
    call("lobby.rematch", result=opt(SEATS), handles=SEAT_REFS),
    call("lobby.rating_change", result=opt(tup(ref(RatingChange))), handles=SEAT_REFS),
    # chat (server.chat): ``where`` names a seat the session holds, None the lobby
    call("lobby.chat_lines", result=lst(ref(ChatLine)), where=opt(ref(SeatRef))),
    call("lobby.chat_say", result=ref(ChatLine), where=opt(ref(SeatRef)), room=STR, text=STR, phrase=STR),
    call("lobby.chat_mutes", result=dict_of(STR)),
    call("lobby.chat_mute", result=STR, name=STR, on=BOOL),
)
CALLS: dict[str, Call] = {c.method: c for c in LOBBY}

# -- answers (host -> edge) ----------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """The answer to call ``id``: ``value`` encoded with the call's declared result."""

    id: str
    value: Any
    state: SessionState | None = None


@dataclass(frozen=True)
class Refusal:
    """Call ``id`` was turned down: a code and the params its sentence needs."""

    id: str
    code: str
    params: dict[str, Any]
    state: SessionState | None = None


@dataclass(frozen=True)
class Failure:
    """Call ``id`` failed on the host (or the host did not understand it)."""

    id: str
    state: SessionState | None = None


# -- intents (edge -> host) and their results ----------------------------------------------


@dataclass(frozen=True)
class Submit:
    """A seat's action (its game's declared action type); ``id``: where its result goes in
    ``edge``'s inbox."""

    id: str
    edge: str
    action: Any


@dataclass(frozen=True)
class Resign:
    id: str
    edge: str


@dataclass(frozen=True)
class SeatCall:
    """One of the seat's game's declared calls (an :class:`~server.wire.codec.Invocation`)."""

    id: str
    edge: str
    call: Any


@dataclass(frozen=True)
class Accepted:
    id: str


@dataclass(frozen=True)
class Answered:
    """A seat call that answers (a hint) was made: its value, encoded with the call's
    declared result (the caller decodes it)."""

    id: str
    value: Any


@dataclass(frozen=True)
class Rejected:
    """The intent ``id`` was refused: the rule's error, by its declared class."""

    id: str
    error: Exception


# -- pushes (host -> a session on an edge) -----------------------------------------------------


@dataclass(frozen=True)
class Followed:
    """The match the session watched was rematched: ``handles`` watch the new one."""

    handles: tuple[SeatDescriptor, ...]


@dataclass(frozen=True)
class Challenged:
    challenge: ChallengeDescriptor


@dataclass(frozen=True)
class ChallengeOver:
    challenge: ChallengeDescriptor


@dataclass(frozen=True)
class Superseded:
    """A newer session of this key took over."""


@dataclass(frozen=True)
class RoomFilled:
    """The session's private room ``code`` filled (or was started): its seats."""

    code: str
    handles: tuple[SeatDescriptor, ...]


@dataclass(frozen=True)
class RoomClosed:
    """The session's private room ``code`` will not start: why (a refusal's code, params)."""

    code: str
    why: str
    params: dict[str, Any]


@dataclass(frozen=True)
class AnalysisProgress:
    """How far the coach's analysis of ``match`` has come (pushed to the edge that asked:
    its session is ``""``)."""

    match: int
    done: int
    total: int


PUSH = one_of(Followed, Challenged, ChallengeOver, Superseded, RoomFilled, RoomClosed, AnalysisProgress)


@dataclass(frozen=True)
class Pushed:
    """Something for ``session`` the host decided (see :data:`PUSH`)."""

    session: str
    event: Any


# -- a seat's two streams, the lobby ---------------------------------------------------------


@dataclass(frozen=True)
class SeatUpdate:
    """A change of the match for this seat (the updates stream, versioned)."""

    update: Update[Any]


@dataclass(frozen=True)
class FullUpdate:
    """The seat's present and its whole log (asked for after a gap, or at first)."""

    update: Update[Any]
    log: tuple[Entry, ...]


@dataclass(frozen=True)
class LobbySnapshot:
    """The lobby's present (a ``server.lobby.models.Snapshot``, numbered), and the host's run."""

    snapshot: Any
    epoch: str


@dataclass(frozen=True)
class LobbyChanges:
    """What changed in the lobby since the host's last message (a
    ``server.lobby.models.LobbyDelta``: it applies to the snapshot numbered ``delta.base``),
    and the host's run."""

    delta: Any
    epoch: str


DECLARED: tuple[Declared, ...] = (
    record(SessionState, "session-state", name=STR, named=BOOL, superseded=BOOL, stored_name=opt(STR)),
    record(Opened, "opened", prefill=STR, initial=opt(fixed(STR, STR)), guest=BOOL, grace=FLOAT,
           bot_offer_after=FLOAT, identity=opt(STR), state=ref(SessionState), settings=dict_of(STR)),
    record(SeatDescriptor, "seat", match=STR, key=INT, game=STR, seat=opt(INT), names=tup(STR), log=LOG,
           notice=tup(NOTE), countdown=opt(INT), version=INT, view=VALUE, extras=dict_of(VALUE)),
    record(SeatRef, "seat-ref", match=STR, key=INT),
    record(ChallengeDescriptor, "challenge", id=STR, game=STR, challenger=STR, target=STR, left=FLOAT),
    record(ChallengeRef, "challenge-ref", id=STR),
    record(Reopened, "reopened", opened=ref(Opened), seats=SEATS),
    record(RoomOpened, "room-opened", code=STR, game=STR, size=INT),
    record(CommandAnswer, "command-answer", code=INT, out=STR, err=STR),
    OPEN, REOPEN, CLOSE, WHO, COMMAND, KEPT_LANGUAGE, REPLAY_RECORD, *LINKS, REPLAY, *COACH, *LOBBY,
    record(Reply, "reply", id=STR, value=RAW, state=STATE),
    record(Refusal, "refusal", id=STR, code=STR, params=dict_of(VALUE), state=STATE),
    record(Failure, "failure", id=STR, state=STATE),
    record(Submit, "submit", id=STR, edge=STR, action=VALUE),
    record(Resign, "resign", id=STR, edge=STR),
    record(SeatCall, "seat-call", id=STR, edge=STR, call=VALUE),
    record(Accepted, "accepted", id=STR),
    record(Answered, "answered", id=STR, value=RAW),
    record(Rejected, "rejected", id=STR, error=ERROR),
    record(Followed, "followed", handles=SEATS),
    record(Challenged, "challenged", challenge=CHALLENGE),
    record(ChallengeOver, "challenge-over", challenge=CHALLENGE),
    record(Superseded, "superseded"),
    record(RoomFilled, "room-filled", code=STR, handles=SEATS),
    record(RoomClosed, "room-closed", code=STR, why=STR, params=dict_of(VALUE)),
    record(AnalysisProgress, "analysis-progress", match=INT, done=INT, total=INT),
    record(Pushed, "pushed", session=STR, event=PUSH),
    record(SeatUpdate, "seat-update", update=UPDATE),
    record(FullUpdate, "full-update", update=UPDATE, log=LOG),
    record(LobbySnapshot, "lobby", snapshot=VALUE, epoch=STR),
    record(LobbyChanges, "lobby-changes", delta=VALUE, epoch=STR),
)
