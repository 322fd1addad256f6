"""Tables: how the seats of a match fill, one policy for every game.

One :class:`Tables` per game sits beside a :class:`server.lobby.core.Lobby`,
parametrised by the game's :class:`~server.games.ServerGame` (seat bounds from its
``GameInfo``, its quick table's size, its bots, its host factory), and hosts every
match of that game *in* that lobby: each match is registered through
:meth:`TableHost.register`, so watching, dropped players (grace, then a bot),
coming back, and recording to the store work the same for every match.  Voltage
is a game of exactly two seats, High Voltage of two to four; how a table fills:

- **Quick match** (:meth:`Tables.quick_match`): join the open quick table, or open
  one.  It starts at once when full (Voltage's, of two seats: when the next player
  sits); not full but with ``min_seats`` people, it starts :data:`QUICK_FILL_SECONDS`
  after the ``min_seats``-th sat down (High Voltage's of four, with two or three).
- **Private room** (:meth:`Tables.create_room`, :meth:`Tables.join_room`,
  :meth:`Tables.join_now` for the last seat): a code for friends.  It starts when
  full, or when the creator says so (:meth:`Tables.start`): empty seats then go to bots.
- **Bots** (:meth:`Tables.play_bots`): you against 1 to ``max_seats - 1`` bots at once.
- **People** (:meth:`Tables.play_people`): an accepted challenge, started at once.
- **Rematch** (:meth:`Tables.rematch`): the same people and bots in the same seats;
  it starts when every person still at the results has asked (bots always agree).
  With nobody else left (no person still there, no bot) it is None at once, as when
  the last other person declines.

Every wait (``quick_match``, ``wait``, ``join_room``, ``rematch``) may be
cancelled; the player then leaves the table.  Nothing here blocks the loop.

Decision: the lobby is reached only through :class:`TableHost`, a small protocol of
public methods (a code, a status, a registered match, a change to tell screens of),
never through its private methods or its dicts; this module imports the lobby's
model (:mod:`server.lobby.models`) and the server registry, and nothing imports it
back but the façade (:mod:`server.lobby.core`), so the old import circle is gone.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from server.games import HostConfig, ServerGame
from server.host.common import Seat, SeatDoor
from server.lobby.models import Hosted, LobbyError, Player
from tui.ports import Note

log = logging.getLogger(__name__)

QUICK_FILL_SECONDS = 20.0




class TableHost(Protocol):
    """What :class:`Tables` needs of its lobby (the façade implements it)."""

    rematch_wait: float  # seconds a rematch waits for everyone to ask

    def new_code(self) -> str:
        """A fresh match/room code, unused by any match, room or table."""
        ...

    def check_active(self, player: Player) -> None:
        """Raise :class:`LobbyError` if ``player``'s session was taken over by a newer one."""
        ...

    def check_distinct_keys(self, players: list[Player | None] | list[Player]) -> None: ...

    def same_key(self, a: Player, b: Player | None) -> bool: ...

    def online(self, player: Player) -> bool: ...

    def abandon(self, player: Player) -> None:
        """``player`` leaves every queue, room, table and watched match (declining rematches)."""
        ...

    def set_status(self, player: Player, status: str, where: str = "") -> None: ...

    def changed(self) -> None:
        """Tell the lobby screens (soon) that something changed."""
        ...

    def host_config(self) -> HostConfig:
        """The lobby's settings for a new host (its executor, bot delay)."""
        ...

    def register(self, match: Any, humans: list[Player | None]) -> Hosted:
        """List a new match (not started) as hosted, recording it when there is a store."""
        ...

    def hosted(self, code: str) -> Hosted | None: ...

    def hosted_of(self, handles: list[SeatDoor]) -> Hosted | None: ...

    def rematched(self, old: Hosted, new: Hosted) -> None: ...

    def prune(self) -> None:
        """Forget finished matches nobody looks at any more."""
        ...


def _seat_in(h: Hosted, player: Player) -> int:
    """``player``'s seat in ``h`` (a later session of the same key counts; else after all)."""
    for i, human in enumerate(h.humans):
        if human is player:
            return i
    for i, seat in enumerate(h.match.seats):
        if player.identity and seat.identity == player.identity:
            return i
    return len(h.humans)


@dataclass(eq=False)
class Table:
    """A table being filled: its code, its people so far, and their futures."""

    code: str
    size: int  # seats, within the game's bounds
    owner: Player | None = None  # None: a quick-match table
    players: list[Player] = field(default_factory=list)
    waiters: dict[int, asyncio.Future] = field(default_factory=dict)  # player id -> handles
    bots: list[str] = field(default_factory=list)  # levels that will sit (a rematch's bots)
    expected: set[int] = field(default_factory=set)  # rematch: player ids still to ask
    timer: asyncio.TimerHandle | None = None
    starts_at: float | None = None  # time.monotonic() when a quick table of 2-3 starts
    hosted: Hosted | None = None
    rematch_of: str = ""  # the code of the finished match this table is the rematch of
    time_control: Any = "default"  # Voltage: a private room's clock (server.games.HostConfig.time_control)

    @property
    def private(self) -> bool:
        return self.owner is not None

    @property
    def full(self) -> bool:
        return len(self.players) + len(self.bots) >= self.size

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)


class Tables:
    """The tables of one game in one lobby (see the module docstring)."""

    def __init__(
        self,
        lobby: TableHost,
        game: ServerGame,
        *,
        fill_seconds: float = QUICK_FILL_SECONDS,
        countdown_seconds: float | None = None,
        bot_speed: float = 1.0,
    ) -> None:
        self.lobby = lobby
        self.game = game
        self.min_seats = game.info.min_seats
        self.max_seats = game.info.max_seats
        self.fill_seconds = fill_seconds
        self.countdown_seconds = countdown_seconds
        self.bot_speed = bot_speed
        self.tables: dict[str, Table] = {}
        self._rematches: dict[str, Table] = {}  # finished match code -> its rematch table

    def bot_level(self, name: str | None) -> str:
        """A bot level of this game for ``name``: itself if it is one, else the game's
        default (a seat may have been handed to another game's bot name)."""
        return name if name is not None and name in self.game.bot_levels() else self.game.default_bot

    # -- facts ---------------------------------------------------------------

    def open_tables(self) -> list[Table]:
        """Tables still filling (quick and private), for a lobby screen."""
        return [t for t in self.tables.values() if t.hosted is None]

    def starts_in(self, player: Player) -> float | None:
        """Seconds until ``player``'s quick table starts without more players (None: not yet set)."""
        table = self.table_of(player)
        if table is None or table.hosted is not None or table.starts_at is None or table.timer is None:
            return None
        return max(0.0, table.starts_at - time.monotonic())

    def table_of(self, player: Player) -> Table | None:
        for t in self.tables.values():
            if player in t.players:
                return t
        return None

    # -- filling -------------------------------------------------------------

    def _new_table(self, size: int, owner: Player | None = None) -> Table:
        if not self.min_seats <= size <= self.max_seats:
            raise LobbyError("table_size", title=self.game.title, min=self.min_seats, max=self.max_seats)
        table = Table(self.lobby.new_code(), size, owner)
        self.tables[table.code] = table
        return table

    def _sit(self, table: Table, player: Player) -> asyncio.Future:
        self.lobby.check_active(player)
        self.lobby.check_distinct_keys([*table.players, player])
        self.leave(player)
        self.lobby.abandon(player)
        fut = asyncio.get_running_loop().create_future()
        table.players.append(player)
        table.waiters[player.id] = fut
        table.expected.discard(player.id)
        status = "room" if table.private else "waiting"
        self.lobby.set_status(player, status, table.code if table.private else self.game.id)
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
            elif not table.private and len(table.players) < self.min_seats and table.timer is not None:
                table.timer.cancel()
                table.timer = None
            self.lobby.changed()

    def _close(self, table: Table) -> None:
        if table.timer is not None:
            table.timer.cancel()
            table.timer = None
        self.tables.pop(table.code, None)
        for fut in list(table.waiters.values()):
            if not fut.done():
                fut.cancel()
        table.waiters.clear()
        for p in table.players:
            if p.status in ("waiting", "room"):
                self.lobby.set_status(p, "lobby")

    async def _wait(self, table: Table, player: Player, fut: asyncio.Future) -> list[SeatDoor]:
        try:
            return await fut
        finally:
            if table.hosted is None and player in table.players:
                self.leave(player)

    async def quick_match(self, player: Player, size: int | None = None) -> list[SeatDoor]:
        """Sit at the open quick table (or open one) and wait for the start (``size``: its
        seats, the game's ``quick_seats`` by default)."""
        size = self.game.quick_seats if size is None else size
        table = next(
            (t for t in self.tables.values() if not t.private and t.hosted is None and not t.expected
             and not t.full and t.size == size
             and not any(self.lobby.same_key(p, player) for p in t.players)),  # never with itself
            None,
        )
        if table is None:
            table = self._new_table(size)
        fut = self._sit(table, player)
        if table.full:
            self.start(table)
        elif len(table.players) >= self.min_seats and table.timer is None:
            table.timer = asyncio.get_running_loop().call_later(self.fill_seconds, self._fill_timeout, table)
            table.starts_at = time.monotonic() + self.fill_seconds
        self.lobby.changed()
        return await self._wait(table, player, fut)

    def _fill_timeout(self, table: Table) -> None:
        table.timer = None
        if table.hosted is None and len(table.players) >= self.min_seats:
            self.start(table, bots=False)

    def create_room(self, owner: Player, size: int | None = None, time_control: Any = "default") -> Table:
        """A private table for ``size`` people (``time_control``: its clock, see
        :class:`server.games.HostConfig`); give its code to friends, then
        ``await tables.wait(table, owner)``."""
        table = self._new_table(self.max_seats if size is None else size, owner)
        table.time_control = time_control
        self._sit(table, owner)
        self.lobby.changed()
        return table

    def wait(self, table: Table, player: Player) -> Coroutine[Any, Any, list[SeatDoor]]:
        """Wait at ``table`` for the start (the owner, after :meth:`create_room`):
        ``await tables.wait(table, owner)``.  The seat's future is taken at the call, so a
        table that fills before the wait is first awaited still hands it its seat."""
        fut = table.waiters.get(player.id)
        if fut is None:
            raise LobbyError("not_at_table")
        return self._wait(table, player, fut)

    async def join_room(self, player: Player, code: str) -> list[SeatDoor]:
        """Sit at the private table ``code`` and wait for the start."""
        table = self._private(code, player)
        fut = self._sit(table, player)
        if table.full:
            self.start(table)
        self.lobby.changed()
        return await self._wait(table, player, fut)

    def join_now(self, player: Player, code: str) -> list[SeatDoor]:
        """Take the last seat of the private table ``code``: it starts, and these are
        ``player``'s handles (a two-seat game's room; see :meth:`join_room`)."""
        table = self._private(code, player)
        if table.size - len(table.players) - len(table.bots) != 1:
            raise LobbyError("room_not_ready", code=table.code)
        fut = self._sit(table, player)
        self.start(table)
        return fut.result()

    def _private(self, code: str, player: Player) -> Table:
        table = self.tables.get(code.strip().upper())
        if table is None or not table.private or table.hosted is not None:
            raise LobbyError("no_game_room", title=self.game.title, code=code.strip().upper())
        if player in table.players:
            raise LobbyError("already_at_table")
        if table.full:
            raise LobbyError("room_full", code=table.code)
        return table

    def play_bots(self, player: Player, levels: Sequence[str] | str) -> list[SeatDoor]:
        """``player`` against 1 to ``max_seats - 1`` bots (levels, or ``"medium,fast"``), at once."""
        levels = [b.strip() for b in levels.split(",")] if isinstance(levels, str) else list(levels)
        levels = [b for b in levels if b]
        if not 1 <= len(levels) <= self.max_seats - 1:
            raise LobbyError("bot_count", most=self.max_seats - 1)
        known = self.game.bot_levels()
        for level in levels:
            if level not in known:
                raise LobbyError("no_such_bot", title=self.game.title, bot=level, known=tuple(known))
        table = self._new_table(len(levels) + 1)
        fut = self._sit(table, player)
        table.bots = list(levels)
        self.start(table)
        return fut.result()

    def play_people(self, players: Sequence[Player]) -> list[list[SeatDoor]]:
        """These people at one table of their own, started at once (an accepted
        challenge); each one's handles, in the order given."""
        table = self._new_table(len(players))
        futs = [self._sit(table, p) for p in players]
        self.start(table, bots=False)
        return [f.result() for f in futs]

    # -- starting ------------------------------------------------------------

    def start(self, table: Table, *, bots: bool = True, bot: str | None = None) -> Hosted:
        """Start ``table`` now: the people seated, ``table.bots``, and (``bots``) a bot of
        level ``bot`` in every empty seat.  At least two seats are always filled."""
        if table.hosted is not None:
            return table.hosted
        if table.timer is not None:
            table.timer.cancel()
            table.timer = None
        bot = self.bot_level(bot)
        old = self.lobby.hosted(table.rematch_of) if table.rematch_of else None
        if old is not None:  # a rematch: everyone in the seat they had
            table.players.sort(key=lambda p: _seat_in(old, p))
        levels = list(table.bots)
        empty = table.size - len(table.players) - len(levels)
        if bots:
            levels += [bot] * max(empty, 0)
        while len(table.players) + len(levels) < self.min_seats:
            levels.append(bot)
        humans: list[Player | None] = list(table.players) + [None] * len(levels)
        seats = [Seat(p.name, p.seat_identity) for p in table.players]
        seats += [self.game.bot_seat(level) for level in levels]
        config = replace(self.lobby.host_config(), countdown_seconds=self.countdown_seconds,
                         bot_speed=self.bot_speed, time_control=table.time_control)
        match = self.game.new_host(seats, table.code, config)
        lobby = self.lobby
        h = lobby.register(match, humans)  # recorded, listed, watched for changes
        table.hosted = h
        self.tables.pop(table.code, None)
        for i, p in enumerate(table.players):
            lobby.set_status(p, "playing", table.code)
            fut = table.waiters.pop(p.id, None)
            if fut is not None and not fut.done():
                fut.set_result([match.handle(i)])
        if old is not None:
            if _rematch_wanted(old.match):
                old.match.set_notice()
            lobby.rematched(old, h)
        lobby.prune()
        lobby.changed()
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

    async def rematch(self, player: Player, handles: Sequence[Any]) -> list[SeatDoor] | None:
        """The same people and bots again, once every person still at the results asks;
        None when that does not happen within the lobby's ``rematch_wait``."""
        self.lobby.check_active(player)
        h = self.lobby.hosted_of(list(handles))
        if h is None or h.running or not handles or handles[0].seat is None:
            return None
        table = self._rematches.get(h.code)
        if table is None or table.hosted is not None:
            others = {
                p.id for p in h.humans
                if p is not None and p is not player and self.lobby.online(p)
                and p.status == "playing" and p.where == h.code
            }
            levels = [self.bot_level(s.bot) for s, p in zip(h.match.seats, h.humans, strict=True) if p is None]
            if not others and not levels:
                return None  # nobody left to play again (as when the last other one declines)
            table = Table(self.lobby.new_code(), len(h.match.seats), bots=levels, expected=others,
                            rematch_of=h.code, time_control=getattr(h.match, "control", "default"))
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
            h.match.set_notice(Note.of("rematch_wanted", name=player.name))
        try:
            return await asyncio.wait_for(fut, self.lobby.rematch_wait)
        except TimeoutError:
            return None
        finally:
            if table.hosted is None:
                if player in table.players:
                    table.players.remove(player)
                table.waiters.pop(player.id, None)
                if not table.players:
                    self.tables.pop(table.code, None)
                    self._rematches.pop(h.code, None)
                if _rematch_wanted(h.match):
                    h.match.set_notice()


def _rematch_wanted(match: Any) -> bool:
    """Does ``match``'s notice say that someone wants a rematch?"""
    return any(n.id == "rematch_wanted" for n in match.notice)
