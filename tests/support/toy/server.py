"""Toy's part of the server (its line in ``server/games.py``): the shared match host as it
is, a restore through the same host, one bot."""

from __future__ import annotations

from concurrent.futures import Executor
from typing import Any

from server.games import HostConfig, ServerGame
from server.host.base import MatchHost, restore_log, restored_seats
from server.host.common import Seat
from tests.support.toy.rules import TOY


def new_host(seats: list[Seat], code: str, cfg: HostConfig) -> MatchHost[Any, Any, Any, Any]:
    return MatchHost(TOY, seats, code=code, bot_delay=cfg.bot_delay)


def restore(record: Any, executor: Executor | None = None, bot_delay: float = 0.7) -> MatchHost[Any, Any, Any, Any]:
    host: MatchHost[Any, Any, Any, Any] = MatchHost(TOY, restored_seats(record), record.seed, code=record.code,
                                                    bot_delay=bot_delay)
    restore_log(host, record)
    return host


SERVER_GAME = ServerGame(TOY.info, new_host, restore, lambda: ("first",), default_bot="first", quick_seats=2)
