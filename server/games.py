"""The server's part of each game, by id: the one place the server tells the games apart.

``engine.registry`` lists the games and their rules; this registry adds, under the
same ids (``"voltage"``, ``"high-voltage"``: one spelling everywhere), what the
server needs to host one: how to start a match of it (:meth:`ServerGame.new_host`),
how to bring one back from the store (``restore``), its replay class, its bots
(levels, strengths, the one that takes a dropped seat), how a list of matches and a
history line name it, and its quick table (how many seats, how many start it).

No other server module branches on the game: they look it up here
(``games.game(record.game).restore(...)``).  A third game adds its host module and
one :class:`ServerGame` line to :data:`GAMES`.

Decisions:

- The host factories and restorers are imported lazily (inside the small functions
  below): ``server.store.persist`` asks this registry for restorers, and the hosts
  import persistence helpers, so importing them here at module level would make a
  circle.  The registry itself imports only ``engine`` and :mod:`server.replay`.
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

if TYPE_CHECKING:  # pragma: no cover
    from server.host.common import Seat
    from server.replay import Replay
    from server.store.db import MatchRecord


@dataclass(frozen=True)
class HostConfig:
    """The lobby's settings for the hosts it starts (each game uses the ones it has)."""

    executor: Executor | None = None
    bot_delay: float = 0.7  # Voltage: a bot's pause before it moves
    countdown_seconds: float | None = None  # High Voltage: the countdown (None: the host's default)
    bot_speed: float = 1.0  # High Voltage: bots' reaction speed factor
    time_control: Any = "default"  # Voltage: an engine.clock.TimeControl, None (no clock), "default" (5+5)


HostFactory = Callable[[list["Seat"], str, HostConfig], Any]
Restorer = Callable[["MatchRecord", "Executor | None", float], Any]


@dataclass(frozen=True)
class ServerGame:
    """What the server knows of one game beyond its rules (see the module docstring)."""

    info: GameInfo
    new_host: HostFactory  # (seats, code, config) -> a match host, not started
    restore: Restorer  # (record, executor, bot_delay) -> a host at the log's position
    replay: Callable[[], type[Replay]]  # the replay class (imported when asked)
    bot_levels: Callable[[], tuple[str, ...]]  # the bot names a seat may be given
    default_bot: str  # the bot that fills an empty seat or takes a dropped one
    describe: Callable[[str, Sequence[str], Sequence[int], bool], str]  # (title, names, scores, short)
    strengths: Callable[[], list[tuple[str, str]]] | None = None  # (label, bot) weakest first; None: the levels
    short: str = ""  # the game's name in a narrow list ("" = its title)
    named_in_history: bool = True  # a history line names it (the home game's lines do not)
    quick_seats: int = 2  # a quick table's seats; it starts with ``info.min_seats`` after a wait

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
    from server.store.persist import restore_voltage

    return restore_voltage(record, executor, bot_delay)


def _voltage_replay() -> type[Replay]:
    from server.replay import VoltageReplay

    return VoltageReplay


def _voltage_bots() -> tuple[str, ...]:
    from engine.voltage import bots

    return tuple(getattr(bots, "BOT_NAMES", ("random",)))


def _voltage_strengths() -> list[tuple[str, str]]:
    """Voltage's strengths as its bot menu lists them (labels from ``engine.voltage.bots``)."""
    from engine.voltage import bots

    names = _voltage_bots()
    strengths = getattr(bots, "STRENGTHS", None)
    out: list[tuple[str, str]] = []
    if isinstance(strengths, dict):
        for key, value in strengths.items():
            out.append((str(getattr(value, "label", key)), str(getattr(value, "name", key))))
    elif strengths:
        for s in strengths:
            name = str(getattr(s, "name", s))
            out.append((str(getattr(s, "label", name)), name))
    out = [(label, bot) for label, bot in out if bot in names]
    return out or [(n, n) for n in names]


def _voltage_describe(title: str, names: Sequence[str], scores: Sequence[int], short: bool) -> str:
    return f"{title}: {' v '.join(names)}  {'-'.join(map(str, scores))}"


# -- High Voltage ----------------------------------------------------------


def _high_voltage_host(seats: list[Seat], code: str, cfg: HostConfig) -> Any:
    from server.host.highvoltage import COUNTDOWN_SECONDS, HVMatch

    countdown = COUNTDOWN_SECONDS if cfg.countdown_seconds is None else cfg.countdown_seconds
    return HVMatch(seats, code=code, countdown_seconds=countdown, bot_speed=cfg.bot_speed)


def _high_voltage_restore(record: MatchRecord, executor: Executor | None = None, bot_delay: float = 0.7) -> Any:
    from engine.errors import IllegalActionError, InvalidActionError
    from server.host.highvoltage import restore_high_voltage
    from server.store.persist import RestoreError

    try:
        return restore_high_voltage(record, executor, bot_delay)
    except (InvalidActionError, IllegalActionError) as e:
        raise RestoreError(f"the log does not replay: {e}") from e


def _high_voltage_replay() -> type[Replay]:
    from server.replay import HVReplay

    return HVReplay


def _high_voltage_bots() -> tuple[str, ...]:
    from engine.highvoltage.bots import HV_BOT_NAMES

    return tuple(HV_BOT_NAMES)


def _high_voltage_describe(title: str, names: Sequence[str], scores: Sequence[int], short: bool) -> str:
    if short:
        return "HV: " + ", ".join(names)
    seats = ", ".join(f"{n} {s}" for n, s in zip(names, scores, strict=True))
    return f"{title}: {seats} cards left"


# -- the registry ----------------------------------------------------------

GAMES: dict[str, ServerGame] = {
    g.id: g
    for g in (
        ServerGame(ENGINE_GAMES["voltage"], _voltage_host, _voltage_restore, _voltage_replay, _voltage_bots,
                   default_bot="medium", describe=_voltage_describe, strengths=_voltage_strengths,
                   named_in_history=False, quick_seats=2),
        ServerGame(ENGINE_GAMES["high-voltage"], _high_voltage_host, _high_voltage_restore, _high_voltage_replay,
                   _high_voltage_bots,
                   default_bot="medium", describe=_high_voltage_describe, short="HV", quick_seats=4),
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
