"""High Voltage in the lobby: tables of 2 to 4 seats.

:class:`HVTables` sits beside a :class:`server.lobby.core.Lobby` (one per server) and
hosts every High Voltage match *in* that lobby: each match is registered in
``lobby.matches`` as a :class:`~server.lobby.core.Hosted`, so watching, dropped
players (grace, then a bot), coming back, and recording to the store work as
they do for Voltage.  What differs is how a table fills:

- **Quick match** (:meth:`HVTables.quick_match`): join the open quick table,
  or open one.  It starts at once when four are seated; with two or three it
  starts :data:`QUICK_FILL_SECONDS` after its second player sat down.
- **Private room** (:meth:`HVTables.create_room`, :meth:`HVTables.join_room`):
  a code for friends, 2 to 4 seats.  It starts when full, or when the creator
  says so (:meth:`HVTables.start`): empty seats then go to bots.
- **Bots** (:meth:`HVTables.play_bots`): you against 1 to 3 bots at once.
- **Rematch** (:meth:`HVTables.rematch`): the same people and bots; it starts
  when every person still at the results has asked.

Every wait (``quick_match``, ``wait``, ``join_room``, ``rematch``) may be
cancelled; the player then leaves the table.  Nothing here blocks the loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from engine.highvoltage.rules import MAX_PLAYERS, MIN_PLAYERS
from engine.highvoltage.bots import HV_BOT_NAMES

from server.host.highvoltage import (
    COUNTDOWN_SECONDS,
    GAME,
    HVMatch,
    HVSeatHandle,
    bot_level,
    bot_seat,
)
from server.lobby.core import Hosted, Lobby, LobbyError, Player
from server.host.voltage import Seat

log = logging.getLogger(__name__)

QUICK_FILL_SECONDS = 20.0
DEFAULT_BOT = "medium"


@dataclass(eq=False)
class HVTable:
    """A table being filled: its code, its people so far, and their futures."""

    code: str
    size: int  # seats, 2..4
    owner: Player | None = None  # None: a quick-match table
    players: list[Player] = field(default_factory=list)
    waiters: dict[int, asyncio.Future] = field(default_factory=dict)  # player id -> handles
    bots: list[str] = field(default_factory=list)  # levels that will sit (a rematch's bots)
    expected: set[int] = field(default_factory=set)  # rematch: player ids still to ask
    timer: asyncio.TimerHandle | None = None
    starts_at: float | None = None  # time.monotonic() when a quick table of 2-3 starts
    hosted: Hosted | None = None
    rematch_of: str = ""  # the code of the finished match this table is the rematch of

    @property
    def private(self) -> bool:
        return self.owner is not None

    @property
    def full(self) -> bool:
        return len(self.players) + len(self.bots) >= self.size

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)


class HVTables:
    """High Voltage tables of one lobby (see the module docstring)."""

    def __init__(
        self,
        lobby: Lobby,
        *,
        fill_seconds: float = QUICK_FILL_SECONDS,
        countdown_seconds: float = COUNTDOWN_SECONDS,
        bot_speed: float = 1.0,
    ) -> None:
        self.lobby = lobby
        self.fill_seconds = fill_seconds
        self.countdown_seconds = countdown_seconds
        self.bot_speed = bot_speed
        self.tables: dict[str, HVTable] = {}
        self._rematches: dict[str, HVTable] = {}  # finished match code -> its rematch table

    # -- facts ---------------------------------------------------------------

    def open_tables(self) -> list[HVTable]:
        """Tables still filling (quick and private), for a lobby screen."""
        return [t for t in self.tables.values() if t.hosted is None]

    def starts_in(self, player: Player) -> float | None:
        """Seconds until ``player``'s quick table starts without more players (None: not yet set)."""
        table = self.table_of(player)
        if table is None or table.hosted is not None or table.starts_at is None or table.timer is None:
            return None
        return max(0.0, table.starts_at - time.monotonic())

    def table_of(self, player: Player) -> HVTable | None:
        for t in self.tables.values():
            if player in t.players:
                return t
        return None

    # -- filling -------------------------------------------------------------

    def _new_table(self, size: int, owner: Player | None = None) -> HVTable:
        if not MIN_PLAYERS <= size <= MAX_PLAYERS:
            raise LobbyError(f"a High Voltage table has {MIN_PLAYERS} to {MAX_PLAYERS} seats")
        table = HVTable(self.lobby._new_code(), size, owner)
        self.tables[table.code] = table
        return table

    def _sit(self, table: HVTable, player: Player) -> asyncio.Future:
        self.lobby._check_active(player)
        self.lobby.check_distinct_keys([*table.players, player])
        self.leave(player)
        self.lobby._abandon(player)
        fut = asyncio.get_running_loop().create_future()
        table.players.append(player)
        table.waiters[player.id] = fut
        table.expected.discard(player.id)
        status = "room" if table.private else "waiting"
        self.lobby._set_status(player, status, table.code if table.private else GAME)
        return fut

    def leave(self, player: Player) -> None:
        """``player`` gets up from any table still filling (their wait ends, cancelled)."""
        for table in list(self.tables.values()):
            if table.hosted is not None or player not in table.players:
                continue
            table.players.remove(player)
            fut = table.waiters.pop(player.id, None)
            if fut is not None and not fut.done():
                fut.cancel()
            if table.owner is player or not table.players:
                self._close(table)
            elif not table.private and len(table.players) < 2 and table.timer is not None:
                table.timer.cancel()
                table.timer = None
            self.lobby._changed()

    def _close(self, table: HVTable) -> None:
        if table.timer is not None:
            table.timer.cancel()
            table.timer = None
        self.tables.pop(table.code, None)
        for pid, fut in list(table.waiters.items()):
            if not fut.done():
                fut.cancel()
        table.waiters.clear()
        for p in table.players:
            if p.status in ("waiting", "room"):
                self.lobby._set_status(p, "lobby")

    async def _wait(self, table: HVTable, player: Player, fut: asyncio.Future) -> list[HVSeatHandle]:
        try:
            return await fut
        finally:
            if table.hosted is None and player in table.players:
                self.leave(player)

    async def quick_match(self, player: Player, size: int = MAX_PLAYERS) -> list[HVSeatHandle]:
        """Sit at the open quick table (or open one) and wait for the start."""
        table = next(
            (t for t in self.tables.values() if not t.private and t.hosted is None and not t.expected
             and not t.full and t.size == size
             and not any(self.lobby._same_key(p, player) for p in t.players)),  # never with itself
            None,
        )
        if table is None:
            table = self._new_table(size)
        fut = self._sit(table, player)
        if table.full:
            self.start(table)
        elif len(table.players) >= 2 and table.timer is None:
            table.timer = asyncio.get_running_loop().call_later(self.fill_seconds, self._fill_timeout, table)
            table.starts_at = time.monotonic() + self.fill_seconds
        self.lobby._changed()
        return await self._wait(table, player, fut)

    def _fill_timeout(self, table: HVTable) -> None:
        table.timer = None
        if table.hosted is None and len(table.players) >= 2:
            self.start(table, bots=False)

    def create_room(self, owner: Player, size: int = MAX_PLAYERS) -> HVTable:
        """A private table for ``size`` people; give its code to friends, then
        ``await tables.wait(table, owner)``."""
        table = self._new_table(size, owner)
        self._sit(table, owner)
        self.lobby._changed()
        return table

    async def wait(self, table: HVTable, player: Player) -> list[HVSeatHandle]:
        """Wait at ``table`` for the start (the owner, after :meth:`create_room`)."""
        fut = table.waiters.get(player.id)
        if fut is None:
            raise LobbyError("you are not at that table")
        return await self._wait(table, player, fut)

    async def join_room(self, player: Player, code: str) -> list[HVSeatHandle]:
        """Sit at the private table ``code`` and wait for the start."""
        table = self.tables.get(code.strip().upper())
        if table is None or not table.private or table.hosted is not None:
            raise LobbyError(f"no High Voltage room {code.strip().upper()}")
        if player in table.players:
            raise LobbyError("you are already at that table")
        if table.full:
            raise LobbyError(f"room {table.code} is full")
        fut = self._sit(table, player)
        if table.full:
            self.start(table)
        self.lobby._changed()
        return await self._wait(table, player, fut)

    def play_bots(self, player: Player, levels: Sequence[str] | str) -> list[HVSeatHandle]:
        """``player`` against 1 to 3 bots (levels, or ``"medium,fast"``), at once."""
        levels = [b.strip() for b in levels.split(",")] if isinstance(levels, str) else list(levels)
        levels = [b for b in levels if b]
        if not 1 <= len(levels) <= MAX_PLAYERS - 1:
            raise LobbyError("choose one to three bots")
        for level in levels:
            if level not in HV_BOT_NAMES:
                raise LobbyError(f"no High Voltage bot {level!r}: choose from {', '.join(HV_BOT_NAMES)}")
        table = self._new_table(len(levels) + 1)
        fut = self._sit(table, player)
        table.bots = list(levels)
        self.start(table)
        return fut.result()

    def play_people(self, players: Sequence[Player]) -> list[list[HVSeatHandle]]:
        """These people at one table of their own, started at once (an accepted
        challenge); each one's handles, in the order given."""
        table = self._new_table(len(players))
        futs = [self._sit(table, p) for p in players]
        self.start(table, bots=False)
        return [f.result() for f in futs]

    # -- starting ------------------------------------------------------------

    def start(self, table: HVTable, *, bots: bool = True, bot: str = DEFAULT_BOT) -> Hosted:
        """Start ``table`` now: the people seated, ``table.bots``, and (``bots``) a bot of
        level ``bot`` in every empty seat.  At least two seats are always filled."""
        if table.hosted is not None:
            return table.hosted
        if table.timer is not None:
            table.timer.cancel()
            table.timer = None
        levels = list(table.bots)
        empty = table.size - len(table.players) - len(levels)
        if bots:
            levels += [bot_level(bot)] * max(empty, 0)
        while len(table.players) + len(levels) < MIN_PLAYERS:
            levels.append(bot_level(bot))
        humans: list[Player | None] = list(table.players) + [None] * len(levels)
        seats = [Seat(p.name, p.seat_identity) for p in table.players]
        seats += [bot_seat(level) for level in levels]
        match = HVMatch(
            seats,
            code=table.code,
            countdown_seconds=self.countdown_seconds,
            bot_speed=self.bot_speed,
        )
        record = getattr(self.lobby, "_record", None)
        recording = record(match) if record is not None else None
        h = Hosted(table.code, match, humans)  # type: ignore[arg-type]
        if recording is not None:
            h.recording = recording  # type: ignore[attr-defined]
        lobby = self.lobby
        lobby.matches[table.code] = h
        match.on_end.append(lambda _m: lobby._changed())
        match.on_action.append(lambda _m, _a: lobby._changed())
        table.hosted = h
        self.tables.pop(table.code, None)
        for i, p in enumerate(table.players):
            lobby._set_status(p, "playing", table.code)
            fut = table.waiters.pop(p.id, None)
            if fut is not None and not fut.done():
                fut.set_result([match.handle(i)])
        old = lobby.matches.get(table.rematch_of) if table.rematch_of else None
        if old is not None:
            lobby.rematched(old, h)
        lobby._prune()
        lobby._changed()
        match.start()
        return h

    # -- rematch -------------------------------------------------------------

    def declined(self, h: Hosted, player: Player) -> None:
        """``player`` left the results of ``h``: its rematch no longer waits for them.  It
        starts if everyone else still there has asked (and someone is left to play
        against: another person or a bot); else the ones waiting get None."""
        table = self._rematches.get(h.code)
        if table is None or table.hosted is not None or player.id not in table.expected:
            return
        table.expected.discard(player.id)
        if table.expected or not table.players:
            return
        if len(table.players) >= 2 or table.bots:
            self.start(table, bots=False)
            return
        for fut in table.waiters.values():
            if not fut.done():
                fut.set_result(None)

    async def rematch(self, player: Player, handles: Sequence[Any]) -> list[HVSeatHandle] | None:
        """The same people and bots again, once every person still at the results asks;
        None when that does not happen within the lobby's ``rematch_wait``."""
        self.lobby._check_active(player)
        h = self.lobby.hosted_of(list(handles))
        if h is None or h.running or not handles or handles[0].seat is None:
            return None
        table = self._rematches.get(h.code)
        if table is None or table.hosted is not None:
            others = {
                p.id for p in h.humans
                if p is not None and p is not player and p.id in self.lobby.players
                and p.status == "playing" and p.where == h.code
            }
            levels = [bot_level(s.bot) for s, p in zip(h.match.seats, h.humans) if p is None]
            table = HVTable(self.lobby._new_code(), len(h.match.seats), bots=levels, expected=others,
                            rematch_of=h.code)
            self.tables[table.code] = table
            self._rematches[h.code] = table
        elif player.id not in table.expected and player not in table.players:
            return None
        fut = asyncio.get_running_loop().create_future()
        table.players.append(player)
        table.waiters[player.id] = fut
        table.expected.discard(player.id)
        if not table.expected:
            self.start(table, bots=False)
        else:
            h.match.set_notice(f"{player.name} wants a rematch")
        try:
            return await asyncio.wait_for(fut, self.lobby.rematch_wait)
        except asyncio.TimeoutError:
            return None
        finally:
            if table.hosted is None:
                if player in table.players:
                    table.players.remove(player)
                table.waiters.pop(player.id, None)
                if not table.players:
                    self.tables.pop(table.code, None)
                    self._rematches.pop(h.code, None)
                if h.match.notice.endswith("wants a rematch"):
                    h.match.set_notice("")
