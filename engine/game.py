"""One interface for every game: what a host, a replay, a screen or a test may ask of any game.

A game is its fixed facts (:class:`GameInfo`: id, title, seat bounds, real time or
turns) apart from a point of play (its own ``State``), as OpenSpiel keeps a Game apart
from a State.  Its rules answer one generic :class:`Rules` protocol, ``Rules[S, A, E, V]``
(state, action, event, view), with the same signatures for every game, so a layer above
holds a game by its id (``engine.registry``) and never imports the game's own module:
the shared match host runs check, apply and log through it, a replay folds a stored log
through it, and a restart restores through it.  An ended match reports an
:class:`Outcome` with a :class:`Termination`, not a reason string to compare
(python-chess's ``outcome()``).

Decisions:

- :class:`Termination` holds only what any game may end by (resignation, time, aborted,
  agreement) and one member, ``RULES``, for "ended by the game's own rules"; how the
  rules ended it ("four sets", "last card"...) is the outcome's ``detail``, so a new
  game never edits the shared enum.  :attr:`Outcome.reason` is the one string a
  store keeps (the detail, or the termination's value): the strings stored so far read
  back the same (:meth:`Outcome.ending`).
- Events and errors are data (a kind or code and its parameters); nothing here words
  a sentence: the tui does, in the reader's language.
- What a stretch of play is called between the events that end one (Voltage's sets,
  High Voltage's rounds) is an id in :attr:`GameInfo.stretch`, worded by the tui.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from engine.errors import RuleError


@dataclass(frozen=True)
class GameInfo:
    """The fixed facts of a game."""

    id: str  # the one spelling used everywhere: "voltage", "high-voltage"
    title: str  # as shown to people (a proper name: not translated)
    min_seats: int
    max_seats: int
    real_time: bool  # True: anyone may act at any moment (the host orders by arrival)
    stretch: str = "set"  # the id of what a replay jumps by: "set", "round"

    def check_seats(self, seats: int) -> int:
        """``seats`` if the game is played by that many; :class:`RuleError` ``seat_count`` if not."""
        if not self.min_seats <= seats <= self.max_seats:
            raise RuleError("seat_count", game=self.id, seats=seats, min=self.min_seats, max=self.max_seats)
        return seats


class Termination(enum.Enum):
    """How a match ended, in the terms every game shares (see the module docstring)."""

    RULES = "rules"  # by the game's own rules; ``Outcome.detail`` says which
    RESIGNATION = "resignation"  # everyone else resigned
    TIME = "time"  # a player's clock ran out (engine.clock)
    ABORTED = "aborted"  # called off before it began; nobody won, nobody is rated
    AGREEMENT = "agreement"  # a draw offered and accepted


@dataclass(frozen=True)
class Outcome:
    """The end of a match: how (``termination``; ``detail``: the game's own ending, for
    ``RULES``), the winner's seat (None: nobody won), each seat's place (1 = first; equal
    places share a rank), and the score a list of results shows (None: the game has none)."""

    termination: Termination
    winner: int | None
    places: tuple[int, ...]
    detail: str = ""
    scores: tuple[int, ...] | None = None

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(s for s, p in enumerate(self.places) if p == 1)

    @property
    def reason(self) -> str:
        """The string a store keeps for this ending: the game's detail for ``RULES``, else
        the termination's value."""
        return self.detail if self.termination is Termination.RULES else self.termination.value

    @property
    def rated(self) -> bool:
        """Does the result change ratings?  Not an aborted match (it never began)."""
        return self.termination is not Termination.ABORTED

    @staticmethod
    def ending(reason: str) -> tuple[Termination, str]:
        """A stored reason read back: ``(termination, detail)`` (the inverse of :attr:`reason`)."""
        for t in Termination:
            if t is not Termination.RULES and t.value == reason:
                return t, ""
        return Termination.RULES, reason


S = TypeVar("S")  # a game's state
A = TypeVar("A")  # its actions
E = TypeVar("E")  # its events
V_co = TypeVar("V_co", covariant=True)  # a seat's view of it


class Rules(Protocol[S, A, E, V_co]):
    """What every game's rules answer (see the module docstring).

    ``seat`` None is the host (High Voltage's end of a countdown, Voltage's clock) or a
    spectator's view; ``apply`` checks the action for that seat and never changes
    ``state``; a resignation is always allowed and never listed by ``legal_actions``.
    Refusals raise :class:`~engine.errors.IllegalActionError` (a code and its
    parameters); a text that is no action, :class:`~engine.errors.InvalidActionError`."""

    info: GameInfo

    def new_match(self, seed: int, seats: int) -> S:
        """A match dealt from ``seed`` for ``seats`` seats."""
        ...

    def start_events(self, state: S) -> list[E]:
        """The events that describe the deal (a match log's first entries)."""
        ...

    def legal_actions(self, state: S, seat: int | None) -> Sequence[A]:
        """What ``seat`` may do now (None: the host), resignation aside."""
        ...

    def check(self, state: S, action: A, seat: int | None) -> None:
        """Raise :class:`~engine.errors.IllegalActionError` unless ``seat`` may send ``action`` now."""
        ...

    def apply(self, state: S, action: A, seat: int | None) -> tuple[S, list[E]]:
        """The state after ``seat``'s ``action`` (checked) and the public events it caused."""
        ...

    def apply_logged(self, state: S, text: str) -> tuple[A, S, list[E]]:
        """One stored action's text applied as its host applied it."""
        ...

    def parse_action(self, text: str) -> A:
        """An action read from its stored text."""
        ...

    def action_text(self, action: A) -> str:
        """An action's stored text (what :meth:`parse_action` reads)."""
        ...

    def resignation(self, seat: int) -> A:
        """``seat``'s resignation (allowed at any moment of a running match)."""
        ...

    def view(self, state: S, seat: int | None) -> V_co:
        """What ``seat`` may know now (None: a spectator)."""
        ...

    def replay_view(self, state: S, seat: int | None) -> V_co:
        """``seat``'s view in a replay: what it saw, with nothing to act on."""
        ...

    def replay(self, seed: int, seats: int, actions: Iterable[A]) -> S:
        """The state reached from ``seed`` by ``actions``, each checked."""
        ...

    def seats(self, state: S) -> int:
        """How many seats the match has."""
        ...

    def to_move(self, state: S) -> int | None:
        """The seat whose turn it is (None: a real-time game, or an ended match)."""
        ...

    def hands(self, state: S) -> tuple[tuple[object, ...], ...]:
        """Every seat's hand, faces shown (for the replay of a finished match only)."""
        ...

    def ends_stretch(self, event: E) -> bool:
        """Does ``event`` end a stretch of play (a set, a round: :attr:`GameInfo.stretch`)?"""
        ...

    def standing(self, state: S) -> tuple[int, ...]:
        """What a list of running matches shows as the score (sets won, cards left...)."""
        ...

    def outcome(self, state: S) -> Outcome | None:
        """The end of the match (None: it runs)."""
        ...
