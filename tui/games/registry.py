"""The tui's games, by id (the ids of ``engine.registry``): for each, its match screen,
results screen, replay screen, the start hook of ``voltage play``'s start screen, and
its part of the SSH lobby screen (:mod:`tui.games.lobby_parts`: menu lines, bot
line-ups, room seats, the words while waiting).

Shared code (the SSH backend's ``match_screen``, :func:`tui.screens.replay.replay_screen`,
the start screen, the app at a match's end) asks ``screens(game)`` and never branches on
the game; a third game adds its ``tui/games/<game>/`` package and one entry here.  This
module composes: the shared screens the games build on (``tui/screens/base.py``,
``stepping.py``) never import it, so nothing here is imported back.

The entries import their screens when first asked: a session that plays one game need
not load the other's screens.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from textual.app import App

    from tui.games.lobby_parts import LobbyPart
    from tui.ports import Backend, Handles, HomeBackend, LobbyBackend, ReplaySource
    from tui.screens.base import PlayScreen
    from tui.words import GameWords


@dataclass(frozen=True)
class GameScreens:
    """One game's screens.

    ``match(handles, backend)``: the match screen for these seat handles (one seat, a
    spectator's, or a hot-seat's two).  ``results(handles, backend, view, names)``: the
    results screen after the final ``view``.  ``replay(source, step)``: the replay screen.
    ``start(app, backend, player_name, opponent)``: what the start screen does when this
    game is chosen against ``opponent`` (an id from ``backend.opponents(game)``): start a
    match and show it, or first ask how (a dialog).  ``lobby(backend)``: this game's part
    of one lobby screen (None: the lobby does not offer it).  ``words()``: its words
    module (:class:`tui.words.GameWords`).  ``learn(app, backend)``: open its first lesson
    (a menu's "Learn ..." line; None: it has none)."""

    id: str
    match: Callable[[Handles, Backend | None], PlayScreen]
    results: Callable[[Handles, Backend | None, Any, tuple[str, ...]], Any]
    replay: Callable[[ReplaySource, int], PlayScreen]
    start: Callable[[App[Any], HomeBackend, str, str], None]
    lobby: Callable[[LobbyBackend], LobbyPart] | None = None
    words: Callable[[], GameWords] | None = None
    learn: Callable[[App[Any], Any], None] | None = None  # its first lesson (None: none)


# -- Voltage -------------------------------------------------------------------


def _voltage_match(handles: Handles, backend: Backend | None) -> PlayScreen:
    from tui.games.voltage.match import MatchScreen

    return MatchScreen(handles, backend)


def _voltage_results(handles: Handles, backend: Backend | None, view: Any, names: tuple[str, ...]) -> Any:
    from tui.games.voltage.results import ResultsScreen

    return ResultsScreen(handles, backend, view, names)


def _voltage_replay(source: ReplaySource, step: int) -> PlayScreen:
    from tui.games.voltage.replay import ReplayScreen

    return ReplayScreen(source, step)


def _voltage_start(app: App[Any], backend: HomeBackend, player: str, opponent: str) -> None:
    from tui.games.voltage.match import MatchScreen

    game = VOLTAGE
    if opponent == "hotseat":
        from tui.dialogs.names import NamesScreen

        first = player if player and player != "You" else "Player 1"

        def go(names: tuple[str, str] | None) -> None:
            if names:
                handles = backend.start_match(game, opponent, names[0], names=names)
                app.push_screen(MatchScreen(handles, backend))

        app.push_screen(NamesScreen(first, "Player 2"), go)
        return
    handles = backend.start_match(game, opponent, player)
    app.push_screen(MatchScreen(handles, backend))


def _voltage_learn(app: App[Any], backend: Any) -> None:
    from tui.games.voltage.lesson import learn

    learn(app, backend)


def _voltage_lobby(backend: LobbyBackend) -> LobbyPart:
    """Two seats: a room for two, one line per bot strength (``backend.strengths()``)."""
    from engine.registry import GAMES as INFO
    from tui.games.lobby_parts import DuelPart

    # A private room's clocks, shortest first, then none; the lobby's default (5+5) chosen at first.
    return DuelPart(INFO[VOLTAGE], backend, strengths=lambda b: b.strengths(),
                    controls=("3+2", "5+5", "10+5", "15+10", "none"), default_control="5+5")


def _voltage_words() -> GameWords:
    from tui.games.voltage import words

    return words


# -- High Voltage ----------------------------------------------------------------


def _hv_match(handles: Handles, backend: Backend | None) -> PlayScreen:
    from tui.games.highvoltage.match import HVMatchScreen

    return HVMatchScreen(handles, backend)


def _hv_results(handles: Handles, backend: Backend | None, view: Any, names: tuple[str, ...]) -> Any:
    from tui.games.highvoltage.results import HVResultsScreen

    return HVResultsScreen(handles, backend, view, names)


def _hv_replay(source: ReplaySource, step: int) -> PlayScreen:
    from tui.games.highvoltage.replay import HVReplayScreen

    return HVReplayScreen(source, step)


def _hv_start(app: App[Any], backend: HomeBackend, player: str, opponent: str) -> None:
    """You and 1-3 bots: its own setup dialog first (the start screen's bot is the first)."""
    from tui.games.highvoltage.setup import start_high_voltage

    start_high_voltage(app, backend, player, game=HIGH_VOLTAGE, first_bot=opponent)


def _hv_lobby(backend: LobbyBackend) -> LobbyPart:
    """A table of 2 to 4: its bot levels and its quick table's start from the backend
    (``bot_levels``, ``hv_starts_in``)."""
    from engine.registry import GAMES as INFO
    from tui.games.lobby_parts import TablePart

    def levels(b: LobbyBackend) -> tuple[str, ...]:
        return tuple(b.bot_levels(HIGH_VOLTAGE))

    async def starts_in(b: LobbyBackend) -> float | None:
        return await b.hv_starts_in()

    return TablePart(INFO[HIGH_VOLTAGE], backend, levels=levels, starts_in=starts_in)


def _hv_learn(app: App[Any], backend: Any) -> None:
    from tui.games.highvoltage.lesson import learn

    learn(app, backend)


def _hv_words() -> GameWords:
    from tui.games.highvoltage import words

    return words


VOLTAGE = "voltage"
HIGH_VOLTAGE = "high-voltage"

GAMES: dict[str, GameScreens] = {
    g.id: g
    for g in (
        GameScreens(VOLTAGE, _voltage_match, _voltage_results, _voltage_replay, _voltage_start, _voltage_lobby,
                    _voltage_words, _voltage_learn),
        GameScreens(HIGH_VOLTAGE, _hv_match, _hv_results, _hv_replay, _hv_start, _hv_lobby, _hv_words,
                    _hv_learn),
    )
}


def screens(game: str) -> GameScreens:
    """The screens of ``game`` (its id); ``KeyError`` names the games there are."""
    try:
        return GAMES[game]
    except KeyError:
        raise KeyError(f"no game {game!r}: the tui knows {', '.join(GAMES)}") from None


class _SharedWords:
    """The words of a game the tui has no words module for: its notes only (an event shows
    as its kind)."""

    def line(self, event: Any, names: Sequence[str]) -> str:
        from tui import words as W

        return W.entry(event, names)

    def lines(self, entries: Sequence[Any], names: Sequence[str]) -> list[str]:
        return [self.line(e, names) for e in entries]

    def refusal(self, error: BaseException) -> str:
        from tui import words as W

        return W.refusal(error)

    def describe(self, title: str, names: Sequence[str], scores: Sequence[int], short: bool = False) -> str:
        from tui import words as W

        return W.describe(title, names, scores, short)


def words(game: str) -> GameWords:
    """The words module of ``game`` (the shared words alone for a game without one)."""
    g = GAMES.get(game)
    if g is None or g.words is None:
        return _SharedWords()
    return g.words()
