"""The values every game shares on the wire: a seat's :class:`~tui.ports.Update` and its
notes, the lobby's snapshot and lists, history items, rating changes, leaderboard lines,
a finished match's record (for a replay on the edge), and the errors that are data.

A game's own types (its view, actions, events, cards) are declared with its entry in
:mod:`server.games`, never here.  Where a field holds a game's type it is :data:`VALUE`
(an update's view, its entries, its extras): any declared value, by its tag.
"""

from __future__ import annotations

from engine.errors import IllegalActionError, InvalidActionError, RuleError
from server.lobby.models import LobbyDelta, MatchInfo, PlayerInfo, Snapshot
from server.store.db import MatchRecord, SeatRecord
from server.wire.codec import (
    BOOL,
    FLOAT,
    INT,
    STR,
    VALUE,
    Declared,
    cached,
    dict_of,
    error_record,
    fixed,
    opt,
    record,
    ref,
    tup,
)
from tui.ports import (
    BotRecord,
    ChatLine,
    HistoryItem,
    LeaderEntry,
    LinkedBrowser,
    Note,
    NoticeChanged,
    RatingChange,
    Refused,
    Update,
)

NOTE = ref(Note)
UPDATE = ref(Update)
LOG = tup(VALUE)  # a match's log entries: a game's events, notes

DECLARED: tuple[Declared, ...] = (
    record(Note, "note", id=STR, params=dict_of(VALUE)),
    record(Update, "update", view=VALUE, entries=LOG, notice=tup(NOTE), countdown=opt(INT), version=INT,
           names=tup(STR), extras=dict_of(VALUE)),
    # a seat's second stream: what is not a move (a notice, a chat line; the lobby's chat too)
    record(NoticeChanged, "notice-changed", notice=tup(NOTE)),
    record(ChatLine, "chat-line", room=STR, author=STR, who=STR, text=STR, phrase=STR, at=FLOAT, step=INT, id=INT),
    record(RatingChange, "rating-change", seat=INT, name=STR, rating=INT, delta=INT),
    record(HistoryItem, "history-item", id=INT, ended=FLOAT, title=STR, short=STR, others=tup(STR), seats=INT,
           rank=opt(INT), winners=INT, score=tup(INT), reason=STR, delta=opt(INT), hinted=BOOL),
    record(LeaderEntry, "leader-entry", place=INT, name=STR, rating=INT, games=INT, history=tup(INT), me=BOOL),
    record(BotRecord, "bot-record", game=STR, title=STR, short=STR, bot=STR, won=INT, lost=INT, drawn=INT),
    record(LinkedBrowser, "linked-browser", label=STR, linked=FLOAT, last_seen=FLOAT),
    # the lobby's lines, each encoded once while it stays the same (most do, snapshot after snapshot)
    record(PlayerInfo, "player", name=STR, status=STR, where=STR),
    record(MatchInfo, "match", code=STR, game=STR, names=tup(STR), scores=tup(INT), spectators=INT),
    record(Snapshot, "snapshot", players=tup(cached(ref(PlayerInfo))), matches=tup(cached(ref(MatchInfo))),
           waiting=dict_of(INT), version=INT),
    record(LobbyDelta, "lobby-delta", base=INT, version=INT, players=tup(cached(ref(PlayerInfo))), gone=tup(STR),
           matches=tup(cached(ref(MatchInfo))), ended=tup(STR), waiting=dict_of(INT), order=tup(STR)),
    record(SeatRecord, "seat-record", seat=INT, name=STR, identity=opt(STR), bot=opt(STR), rank=opt(INT),
           rating_before=opt(fixed(FLOAT, FLOAT)), rating_after=opt(fixed(FLOAT, FLOAT))),
    record(MatchRecord, "match-record", id=INT, game=STR, seed=INT, code=STR, status=STR, started=FLOAT,
           ended=opt(FLOAT), reason=STR, scores=opt(tup(INT)), seats=tup(ref(SeatRecord)), actions=opt(tup(STR)),
           times=opt(tup(opt(FLOAT))), used_ms=opt(tup(opt(INT))), requests=opt(tup(opt(STR))), time_control=opt(STR),
           chat=tup(ref(ChatLine)), hinted=BOOL),
    # errors that are data: a rule's refusal of an intent (by its class, its code, its params)
    error_record(RuleError, "rule-error"),
    error_record(InvalidActionError, "invalid-action"),
    error_record(IllegalActionError, "illegal-action"),
    error_record(Refused, "refused"),
)
