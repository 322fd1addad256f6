"""One interface for every game: what a host, a screen or a test may ask of any game.

A game is its fixed facts (:class:`GameInfo`: id, title, seat bounds, real time or
turns) apart from a point of play (its own ``State``), as OpenSpiel keeps a Game apart
from a State.  Its rules answer one :class:`Rules` protocol, with the same signatures
for every game, so a layer above can hold a game by its id (``engine.registry``) and
never branch on which one it is.  An ended match reports an :class:`Outcome` with a
:class:`Termination`, not a reason string to compare (python-chess's ``outcome()``).

The protocol is deliberately small: a new match from a seed and a seat count, the
legal actions of a seat, applying one (checked, returning the new state and the
public events), a stored action applied as its host applied it, a seat's view, a
replay, and the outcome.  Each game's own module keeps its richer API (bots use it).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class GameInfo:
    """The fixed facts of a game."""

    id: str  # the one spelling used everywhere: "voltage", "high-voltage"
    title: str  # as shown to people
    min_seats: int
    max_seats: int
    real_time: bool  # True: anyone may act at any moment (the host orders by arrival)

    def check_seats(self, seats: int) -> int:
        if not self.min_seats <= seats <= self.max_seats:
            span = str(self.min_seats) if self.min_seats == self.max_seats else f"{self.min_seats} to {self.max_seats}"
            raise ValueError(f"{self.title} is played by {span} players, not {seats}")
        return seats


class Termination(enum.Enum):
    """How a match ended.  ``value`` is the reason the engine has always logged."""

    FOUR_SETS = "four sets"  # Voltage: a player won four sets
    NO_ACTION = "neither player can act"  # Voltage: nobody can act; more sets wins
    LAST_CARD = "last card"  # High Voltage: a player laid their last card
    BLOCKED = "blocked"  # High Voltage: nobody can play or draw through a full turn of the pile
    RESIGNATION = "resignation"  # everyone else resigned
    TIME = "time"  # Voltage: the loser's clock ran out (engine.clock)
    ABORTED = "aborted"  # Voltage: called off before both players moved; nobody won, nobody is rated
    AGREEMENT = "agreement"  # Voltage: a draw offered and accepted

    @classmethod
    def of(cls, reason: str) -> Termination:
        try:
            return cls(reason)
        except ValueError:
            raise ValueError(f"no termination called {reason!r}") from None


@dataclass(frozen=True)
class Outcome:
    """The end of a match: the winner's seat (None: nobody won), how, and each seat's
    place (1 = first; equal places share a rank)."""

    termination: Termination
    winner: int | None
    places: tuple[int, ...]

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(s for s, p in enumerate(self.places) if p == 1)


class Rules(Protocol):
    """What every game's rules answer (see the module docstring).

    ``seat`` None is the host (High Voltage's end of a countdown) or a spectator's view;
    ``apply`` checks the action for that seat and never changes ``state``; a resignation
    is always allowed and never listed by ``legal_actions``."""

    info: GameInfo

    def new_match(self, seed: int, seats: int) -> Any: ...

    def legal_actions(self, state: Any, seat: int | None) -> Sequence[Any]: ...

    def apply(self, state: Any, action: Any, seat: int | None) -> tuple[Any, list[Any]]: ...

    def apply_logged(self, state: Any, text: str) -> tuple[Any, Any, list[Any]]: ...

    def parse_action(self, text: str) -> Any: ...

    def view(self, state: Any, seat: int | None) -> Any: ...

    def replay(self, seed: int, seats: int, actions: Iterable[Any]) -> Any: ...

    def seats(self, state: Any) -> int: ...

    def outcome(self, state: Any) -> Outcome | None: ...
