"""Toy: a third game in a few dozen lines, for tests only (the engine's part).

Two seats, eight cards valued 0 to 7, three dealt to each from the seed, two left face
down.  In turn (the seed picks who starts) each seat lays a card of its hand face up on
its side of the table; once both hands are empty the higher sum wins ("all played"; an
equal sum is a draw).  A seat may resign at any moment.  What a seat may not see: the
other hand (its size aside) and the two cards left out.

``ToyRules`` adapts it to :class:`engine.game.Rules`, as ``engine/registry.py`` adapts
the real games; a test registers it (:mod:`tests.support.toy`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from engine.errors import IllegalActionError, InvalidActionError
from engine.game import GameInfo, Outcome

DECK = 8
HAND = 3
ALL_PLAYED = "all played"


@dataclass(frozen=True, slots=True)
class Play:
    seat: int
    card: int

    def text(self) -> str:
        return f"play {self.seat} {self.card}"


@dataclass(frozen=True, slots=True)
class Resign:
    seat: int

    def text(self) -> str:
        return f"resign {self.seat}"


Action = Play | Resign


@dataclass(frozen=True, slots=True)
class Event:
    """``start`` (seat), ``play`` (seat, card), ``resign`` (seat), ``end`` (winner, reason, totals)."""

    kind: str
    seat: int | None = None
    card: int = -1
    winner: int | None = None
    reason: str = ""
    totals: tuple[int, int] = (0, 0)


class State:
    __slots__ = ("seed", "hands", "rest", "table", "to_move", "first", "over", "winner", "reason")

    seed: int
    hands: list[list[int]]
    rest: list[int]
    table: list[list[int]]
    to_move: int
    first: int
    over: bool
    winner: int | None
    reason: str

    def copy(self) -> State:
        s = State.__new__(State)
        s.seed, s.to_move, s.first, s.over, s.winner, s.reason = (
            self.seed, self.to_move, self.first, self.over, self.winner, self.reason)
        s.hands = [h[:] for h in self.hands]
        s.rest = self.rest[:]
        s.table = [t[:] for t in self.table]
        return s

    def key(self) -> tuple[object, ...]:
        return (self.seed, tuple(map(tuple, self.hands)), tuple(self.rest), tuple(map(tuple, self.table)),
                self.to_move, self.first, self.over, self.winner, self.reason)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable, so unhashable although it has __eq__

    def totals(self) -> tuple[int, int]:
        return sum(self.table[0]), sum(self.table[1])


@dataclass(frozen=True)
class ToyView:
    seat: int | None
    hand: tuple[int, ...] | None
    hand_sizes: tuple[int, int]
    table: tuple[tuple[int, ...], tuple[int, ...]]
    to_move: int
    over: bool
    winner: int | None
    reason: str
    legal: tuple[Action, ...] = field(default=())

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.seat == self.to_move and not self.over


def new_match(seed: int) -> State:
    rng = random.Random(seed)
    deck = list(range(DECK))
    rng.shuffle(deck)
    s = State.__new__(State)
    s.seed = seed
    s.hands = [sorted(deck[:HAND]), sorted(deck[HAND:2 * HAND])]
    s.rest = deck[2 * HAND:]
    s.table = [[], []]
    s.first = s.to_move = rng.randrange(2)
    s.over, s.winner, s.reason = False, None, ""
    return s


def parse_action(text: str) -> Action:
    words = text.split()
    try:
        if len(words) == 3 and words[0] == "play":
            return Play(int(words[1]), int(words[2]))
        if len(words) == 2 and words[0] == "resign" and words[1] in ("0", "1"):
            return Resign(int(words[1]))
    except ValueError:
        pass
    raise InvalidActionError("bad_action", text=text)


def legal_actions(state: State, seat: int | None) -> list[Action]:
    if state.over or seat != state.to_move:
        return []
    return [Play(seat, c) for c in state.hands[seat]]


def check(state: State, action: Action, seat: int | None) -> None:
    if state.over:
        raise IllegalActionError("match_over")
    if seat is not None and seat != action.seat:
        raise IllegalActionError("own_seat_only")
    if isinstance(action, Resign):
        if action.seat not in (0, 1):
            raise IllegalActionError("own_seat_only")
        return
    if action.seat != state.to_move:
        raise IllegalActionError("not_your_turn")
    if action.card not in state.hands[action.seat]:
        raise IllegalActionError("no_such_card", card=action.card)


def apply(state: State, action: Action, seat: int | None) -> tuple[State, list[Event]]:
    check(state, action, seat)
    s = state.copy()
    events: list[Event] = []
    if isinstance(action, Resign):
        events.append(Event("resign", seat=action.seat))
        _end(s, 1 - action.seat, "resignation", events)
        return s, events
    s.hands[action.seat].remove(action.card)
    s.table[action.seat].append(action.card)
    events.append(Event("play", seat=action.seat, card=action.card))
    if not s.hands[0] and not s.hands[1]:
        a, b = s.totals()
        _end(s, None if a == b else (0 if a > b else 1), ALL_PLAYED, events)
    else:
        s.to_move = 1 - s.to_move
    return s, events


def _end(s: State, winner: int | None, reason: str, events: list[Event]) -> None:
    s.over, s.winner, s.reason = True, winner, reason
    events.append(Event("end", winner=winner, reason=reason, totals=s.totals()))


def view(state: State, seat: int | None) -> ToyView:
    return ToyView(
        seat=seat,
        hand=tuple(state.hands[seat]) if seat is not None else None,
        hand_sizes=(len(state.hands[0]), len(state.hands[1])),
        table=(tuple(state.table[0]), tuple(state.table[1])),
        to_move=state.to_move,
        over=state.over,
        winner=state.winner,
        reason=state.reason,
        legal=tuple(legal_actions(state, seat)),
    )


class ToyRules:
    """Toy behind :class:`engine.game.Rules` (what ``engine/registry.py`` would hold)."""

    info = GameInfo("toy", "Toy", 2, 2, real_time=False, stretch="round")

    def new_match(self, seed: int, seats: int = 2) -> State:
        self.info.check_seats(seats)
        return new_match(seed)

    def start_events(self, state: State) -> list[Event]:
        return [Event("start", seat=state.first)]

    def legal_actions(self, state: State, seat: int | None) -> Sequence[Action]:
        return legal_actions(state, seat)

    def check(self, state: State, action: Action, seat: int | None) -> None:
        check(state, action, seat)

    def apply(self, state: State, action: Action, seat: int | None) -> tuple[State, list[Event]]:
        return apply(state, action, seat)

    def apply_logged(self, state: State, text: str) -> tuple[Action, State, list[Event]]:
        action = parse_action(text)
        new, events = apply(state, action, action.seat)
        return action, new, events

    def parse_action(self, text: str) -> Action:
        return parse_action(text)

    def action_text(self, action: Action) -> str:
        return action.text()

    def resignation(self, seat: int) -> Action:
        return Resign(seat)

    def view(self, state: State, seat: int | None) -> ToyView:
        return view(state, seat)

    def replay_view(self, state: State, seat: int | None) -> ToyView:
        v = view(state, seat)
        return ToyView(v.seat, v.hand, v.hand_sizes, v.table, v.to_move, v.over, v.winner, v.reason)

    def replay(self, seed: int, seats: int, actions: Iterable[Action]) -> State:
        s = self.new_match(seed, seats)
        for a in actions:
            s, _ = apply(s, a, None)
        return s

    def seats(self, state: State) -> int:
        return 2

    def to_move(self, state: State) -> int | None:
        return None if state.over else state.to_move

    def hands(self, state: State) -> tuple[tuple[int, ...], ...]:
        return (tuple(state.hands[0]), tuple(state.hands[1]))

    def ends_stretch(self, event: Event) -> bool:
        return False  # one stretch: the whole match

    def standing(self, state: State) -> tuple[int, ...]:
        return state.totals()

    def outcome(self, state: State) -> Outcome | None:
        if not state.over:
            return None
        w = state.winner
        places = (1, 1) if w is None else tuple(1 if s == w else 2 for s in (0, 1))
        termination, detail = Outcome.ending(state.reason)
        return Outcome(termination, w, places, detail, scores=state.totals())


TOY = ToyRules()
