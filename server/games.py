"""The server's part of each game, by id: the one place the server tells the games apart.

``engine.registry`` lists the games and their rules; this registry adds, under the
same ids (``"voltage"``, ``"high-voltage"``: one spelling everywhere), what the
server needs to host one: how to start a match of it (:meth:`ServerGame.new_host`),
how to bring one back from the store (``restore``, beside each game's host), its bots
(levels, strengths, the one that takes a dropped seat), how a history line names it,
its quick table (how many seats, how many start it), how ``voltage play`` starts
one in the app's own process (``local``), and what crosses the wire between an edge and
the host for it (``wire``: its views, actions, events and cards; ``extras``: what a seat's
update and handle carry beside the view, a clock, an offer, idle marks; ``calls``: what a
seat may ask of its match beside moving, a draw offer, an idle vote).  Replays need nothing
here: one :class:`~server.replay.Replay` plays any game through its rules.

No other server module branches on the game: they look it up here
(``games.game(record.game).restore(...)``).  A third game adds its host module (or
uses :class:`server.host.base.MatchHost` as it is) and one :class:`ServerGame` line to
:data:`GAMES`.

Decisions:

- The hosts are imported when first asked for (inside the small functions below): a
  process that never hosts a game (an edge) need not load its host or its bots.
  Nothing the hosts import imports this registry, so there is no circle either way.
- The lobby's knobs for a host (bot delay, executor, countdown, bot speed) travel
  in one :class:`HostConfig`; each game's factory takes the ones it uses.
- Bot *ratings* stay in :mod:`server.ratings` (one table keyed by bot name, the same
  in every game for now, and a bot name means the same strength in both games).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.game import GameInfo
from engine.registry import GAMES as ENGINE_GAMES
from server.wire.codec import BOOL, INT, VALUE, Call, Declared, call, opt

if TYPE_CHECKING:  # pragma: no cover
    from server.host.common import Seat
    from server.store.db import MatchRecord


@dataclass(frozen=True)
class HostConfig:
    """The lobby's settings for the hosts it starts (each game uses the ones it has)."""

    executor: Executor | None = None
    bot_delay: float = 0.7  # Voltage: a bot's pause before it moves
    countdown_seconds: float | None = None  # High Voltage: the countdown (None: the host's default)
    bot_speed: float = 1.0  # High Voltage: bots' reaction speed factor
    time_control: Any = "default"  # Voltage: an engine.clock.TimeControl, None (no clock), "default" (5+5)


@dataclass(frozen=True)
class LocalStart:
    """What ``voltage play``'s start screen chose: the opponent (a bot strength, a line-up
    of bots, or ``"hotseat"``), the player's name (and both names in hot-seat), the seed,
    and the local backend's knobs."""

    opponent: str
    player_name: str
    names: tuple[str, str] | None
    seed: int
    bot_delay: float = 0.7
    executor: Executor | None = None
    options: dict[str, Any] | None = None  # keyword arguments for the host (tests: a short countdown)


@dataclass(frozen=True)
class Extra:
    """Something a game's seat has beside its view (Voltage's ``clock``, High Voltage's
    ``idle``): in every :class:`~tui.ports.Update`'s ``extras`` and a handle's, by ``name``
    (``default`` where a seat has none).  The game's host gives them
    (:meth:`~server.host.base.MatchHost._update_extras`), its screens read them."""

    name: str
    default: Any = None


HostFactory = Callable[[list["Seat"], str, HostConfig], Any]
Restorer = Callable[["MatchRecord", "Executor | None", float], Any]
LocalFactory = Callable[[LocalStart], tuple[Any, list[int]]]  # -> (a host, not started; the seats to play)


@dataclass(frozen=True)
class ServerGame:
    """What the server knows of one game beyond its rules (see the module docstring)."""

    info: GameInfo
    new_host: HostFactory  # (seats, code, config) -> a match host, not started
    restore: Restorer  # (record, executor, bot_delay) -> a host at the log's position (RestoreError if not)
    bot_levels: Callable[[], tuple[str, ...]]  # the bot names a seat may be given
    default_bot: str  # the bot that fills an empty seat or takes a dropped one
    local: LocalFactory | None = None  # ``voltage play``'s match of this game (None: not offered)
    strengths: Callable[[], list[tuple[str, str]]] | None = None  # (label, bot) weakest first; None: the levels
    short: str = ""  # the game's name in a narrow list ("" = its title)
    named_in_history: bool = True  # a history line names it (the home game's lines do not)
    quick_seats: int = 2  # a quick table's seats; it starts with ``info.min_seats`` after a wait
    wire: Callable[[], Sequence[Declared]] = lambda: ()  # its types on the wire (server.wire)
    extras: tuple[Extra, ...] = ()  # what a seat has beside its view
    calls: tuple[Call, ...] = ()  # a seat's calls beside moving and resigning (the handle's methods)

    @property
    def id(self) -> str:
        return self.info.id

    @property
    def title(self) -> str:
        return self.info.title

    def bot_strengths(self) -> list[tuple[str, str]]:
        """``(label, bot name)`` for each strength of bot, weakest first (a bot menu)."""
        if self.strengths is not None:
            return self.strengths()
        return [(level, level) for level in self.bot_levels()]

    def bot_seat(self, bot: str) -> Seat:
        """A seat played by ``bot`` (named ``Bot (bot)``)."""
        from server.host.common import Seat

        return Seat(f"Bot ({bot})", bot=bot)


# -- Voltage ---------------------------------------------------------------


def _voltage_host(seats: list[Seat], code: str, cfg: HostConfig) -> Any:
    from engine import clock
    from server.host.voltage import Match

    control = clock.DEFAULT if cfg.time_control == "default" else cfg.time_control
    return Match(seats, code=code, bot_delay=cfg.bot_delay, executor=cfg.executor, control=control)


def _voltage_restore(record: MatchRecord, executor: Executor | None = None, bot_delay: float = 0.7) -> Any:
    from server.host.voltage import restore

    return restore(record, executor, bot_delay)


def _voltage_local(start: LocalStart) -> tuple[Any, list[int]]:
    """You against a bot of a strength, or two people at one keyboard (``"hotseat"``)."""
    from server.host.common import Seat
    from server.host.voltage import Match

    if start.opponent == "hotseat":
        a, b = start.names or (start.player_name or "Player 1", "Player 2")
        seats = [Seat(a, identity="local-0"), Seat(b, identity="local-1")]
    else:
        label = next((lab for lab, bot in _voltage_strengths() if bot == start.opponent), start.opponent)
        seats = [Seat(start.player_name, identity="local"), Seat(f"{label} bot", bot=start.opponent)]
    match = Match(seats, seed=start.seed, bot_delay=start.bot_delay, executor=start.executor)
    return match, [0, 1] if start.opponent == "hotseat" else [0]


def _voltage_wire() -> Sequence[Declared]:
    from server.host.voltage_wire import TYPES

    return TYPES


def _voltage_bots() -> tuple[str, ...]:
    from engine.voltage import bots

    return tuple(bots.BOT_NAMES)


def _voltage_strengths() -> list[tuple[str, str]]:
    """Voltage's strengths as its bot menu lists them (labels from ``engine.voltage.bots``)."""
    from engine.voltage import bots

    names = _voltage_bots()
    out = [(s.label, s.name) for s in bots.STRENGTHS if s.name in names]
    return out or [(n, n) for n in names]


# -- High Voltage ----------------------------------------------------------


def _high_voltage_host(seats: list[Seat], code: str, cfg: HostConfig) -> Any:
    from server.host.highvoltage import COUNTDOWN_SECONDS, HVMatch

    countdown = COUNTDOWN_SECONDS if cfg.countdown_seconds is None else cfg.countdown_seconds
    return HVMatch(seats, code=code, countdown_seconds=countdown, bot_speed=cfg.bot_speed)


def _high_voltage_restore(record: MatchRecord, executor: Executor | None = None, bot_delay: float = 0.7) -> Any:
    from server.host.highvoltage import restore

    return restore(record, executor, bot_delay)


def _high_voltage_local(start: LocalStart) -> tuple[Any, list[int]]:
    """You against one to three bots of the given levels (``"medium,fast"``)."""
    from server.host.highvoltage import local_match

    return local_match(start.player_name, start.opponent, start.seed, **(start.options or {})), [0]


def _high_voltage_wire() -> Sequence[Declared]:
    from server.host.highvoltage_wire import TYPES

    return TYPES


def _high_voltage_bots() -> tuple[str, ...]:
    from engine.highvoltage.bots import HV_BOT_NAMES

    return tuple(HV_BOT_NAMES)


# -- the registry ----------------------------------------------------------

GAMES: dict[str, ServerGame] = {
    g.id: g
    for g in (
        ServerGame(ENGINE_GAMES["voltage"], _voltage_host, _voltage_restore, _voltage_bots,
                   default_bot="medium", local=_voltage_local, strengths=_voltage_strengths,
                   named_in_history=False, quick_seats=2, wire=_voltage_wire,
                   # the turn clocks (engine.clock.ClockView), the wall time from which this seat may
                   # abort, the seat offering a draw, whether a person sits opposite, whether the
                   # coach gives this seat hints
                   extras=(Extra("clock"), Extra("abort_from"), Extra("draw_offer"), Extra("draw_from"),
                           Extra("against_human", False), Extra("may_hint", False)),
                   # (a hint answers: the coach's engine.voltage.coach.Hint, declared as v.hint)
                   calls=(call("v.offer_draw", "offer_draw"), call("v.answer_draw", "answer_draw", accept=BOOL),
                          call("v.ask_hint", "hint", result=VALUE))),
        ServerGame(ENGINE_GAMES["high-voltage"], _high_voltage_host, _high_voltage_restore, _high_voltage_bots,
                   default_bot="medium", local=_high_voltage_local, short="HV", quick_seats=4,
                   wire=_high_voltage_wire,
                   # the seats marked idle; the seats of people a bot plays now
                   extras=(Extra("idle", ()), Extra("bot_playing", ())),
                   calls=(call("hv.continue_without", "continue_without", seat=opt(INT)),
                          call("hv.take_seat_back", "take_seat_back"))),
    )
}
IDS: tuple[str, ...] = tuple(GAMES)  # in the order the lobby lists them: the home game first
HOME = IDS[0]  # the game a request names when it names none
TITLES: dict[str, str] = {gid: g.title for gid, g in GAMES.items()}


def game(gid: str) -> ServerGame:
    """The server's part of ``gid``; ``KeyError`` names the games there are."""
    try:
        return GAMES[gid]
    except KeyError:
        raise KeyError(f"no game {gid!r}: the games are {', '.join(GAMES)}") from None


def restorers() -> dict[str, Restorer]:
    """``{game id: restorer}`` for :func:`server.store.persist.restore`."""
    return {gid: g.restore for gid, g in GAMES.items()}


def title(gid: str) -> str:
    """The title of ``gid`` as shown to people; an id of no registered game is spelled out
    (``"some-game"`` -> ``"Some Game"``: a record of a game this version does not know)."""
    g = GAMES.get(gid)
    if g is not None:
        return g.title
    return " ".join(w.capitalize() for w in gid.replace("_", "-").lower().split("-"))
