"""Toy's part of the server (its line in ``server/games.py``): the shared match host as it
is, a restore through the same host, one bot, and its types on the split server's wire
(no extras, no seat calls: a turn-based game with nothing more)."""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Any

from server.games import HostConfig, ServerGame
from server.host.base import MatchHost, restore_log, restored_seats
from server.host.common import Seat
from server.wire.codec import BOOL, INT, STR, Declared, one_of, opt, record, tup
from tests.support.toy import rules as T
from tests.support.toy.rules import TOY


def new_host(seats: list[Seat], code: str, cfg: HostConfig) -> MatchHost[Any, Any, Any, Any]:
    return MatchHost(TOY, seats, code=code, bot_delay=cfg.bot_delay)


def restore(record: Any, executor: Executor | None = None, bot_delay: float = 0.7) -> MatchHost[Any, Any, Any, Any]:
    host: MatchHost[Any, Any, Any, Any] = MatchHost(TOY, restored_seats(record), record.seed, code=record.code,
                                                    bot_delay=bot_delay)
    restore_log(host, record)
    return host


WIRE_TYPES: tuple[Declared, ...] = (
    record(T.Play, "toy.play", seat=INT, card=INT),
    record(T.Resign, "toy.resign", seat=INT),
    record(T.Event, "toy.event", kind=STR, seat=opt(INT), card=INT, winner=opt(INT), reason=STR, totals=tup(INT)),
    record(T.ToyView, "toy.view", seat=opt(INT), hand=opt(tup(INT)), hand_sizes=tup(INT), table=tup(tup(INT)),
           to_move=INT, over=BOOL, winner=opt(INT), reason=STR, legal=tup(one_of(T.Play, T.Resign))),
)

SERVER_GAME = ServerGame(TOY.info, new_host, restore, lambda: ("first",), default_bot="first", quick_seats=2,
                         wire=lambda: WIRE_TYPES)
