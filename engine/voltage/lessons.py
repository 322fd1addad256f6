"""The first lesson's positions: real engine states, one rule each, and what solves each.

Each :class:`Lesson` is a position where seat 0 (the learner) is to move, built from card
codes (every one of the 56 cards is somewhere: the rest make the draw pile), and a goal
reached by the moves that win the point.  :func:`judge` says, after each of the learner's
actions, whether the lesson is solved, still going (a turn of two decisions), or failed
(the turn passed, or a set went to the other side): the tui shows the board and words the
instructions and the explanations (``tui/games/voltage/lesson.py``).

The rules are RULINGS.md's: a number card on its colour's terminal, either side; five cards
score a set (``+`` the higher total, ``-`` the lower); a bypass takes a card to the player's
side; a blown fuse discards one, the count unchanged; a drawn transformer flips a block; a
tie goes against the fifth card; play two to two terminals, or draw two, never above six.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.voltage import rules as V
from engine.voltage.cards import CARD_FACE, CARD_TRANSFORMER, DECK_SIZE, Card

ORANGE, GREEN, BLUE, PURPLE = range(4)
SOLVED, GOING, FAILED = "solved", "going", "failed"


def _ids_by_card() -> dict[Card, list[int]]:
    out: dict[Card, list[int]] = {}
    for c in range(DECK_SIZE):
        out.setdefault(Card(CARD_FACE[c], CARD_TRANSFORMER[c]), []).append(c)
    return out


def position(
    *,
    mine: dict[int, list[str]] | None = None,
    theirs: dict[int, list[str]] | None = None,
    hand: list[str],
    other: list[str] | None = None,
    plus: tuple[bool, bool, bool, bool] = V.INITIAL_PLUS,
    scores: tuple[int, int] = (0, 0),
) -> V.State:
    """Seat 0 to move at the start of a turn, with these cards (codes: ``O2``, ``BY``, ``G1v``
    for a transformer) on each side of each terminal and in each hand; the opponent's hand
    (four plain cards unless given) and the draw pile (plain cards on top) take the rest."""
    ids = _ids_by_card()

    def take(code: str) -> int:
        pool = ids[Card.parse(code)]
        if not pool:
            raise ValueError(f"no {code} left for this position")
        return pool.pop()

    s = V.new_match(0)
    s.board = [[] for _ in range(8)]
    for seat, sides in ((0, mine or {}), (1, theirs or {})):
        for t, codes in sides.items():
            s.board[2 * t + seat] = [take(c) for c in codes]
    s.hands = [[take(c) for c in hand], [take(c) for c in other or ()]]
    rest = [c for pool in ids.values() for c in pool]
    while len(s.hands[1]) < 4:  # plain cards for the opponent, kept out of the learner's way
        c = next(c for c in rest if not CARD_TRANSFORMER[c])
        rest.remove(c)
        s.hands[1].append(c)
    rest.sort(key=lambda c: (CARD_TRANSFORMER[c], c), reverse=True)  # transformers deepest, plain cards on top
    s.draw = rest
    s.discard = []
    s.plus = list(plus)
    s.scores = list(scores)
    s.to_move = s.first_player = 0
    s.phase, s.first_terminal, s.flips, s.draws, s.passes = V.START, -1, 0, 0, 0
    s.turns = 9
    return s


def _lead(s: V.State, t: int) -> int:
    mine = sum(Card.of(c).value for c in s.board[2 * t])
    theirs = sum(Card.of(c).value for c in s.board[2 * t + 1])
    if mine == theirs:
        return 0
    return 1 if (mine > theirs) == s.plus[t] else -1


@dataclass(frozen=True)
class Lesson:
    """A rule to learn (``id``: its words in the tui), its position, and its goal."""

    id: str
    start: Callable[[], V.State]
    goal: Callable[[V.State, V.State], bool]  # (start, now) -> solved
    terminal: int = -1  # the terminal the lesson is about (-1: any)


def _won_sets(n: int) -> Callable[[V.State, V.State], bool]:
    return lambda start, now: now.scores[0] >= start.scores[0] + n


def _transformer() -> V.State:
    """After playing one and drawing a transformer: the flip is owed (green, -, is 5-2)."""
    s = position(mine={GREEN: ["G3", "G2"], ORANGE: ["O1"]}, theirs={GREEN: ["G1", "G1"]},
                 hand=["B1", "P1", "O2", "G1v"])
    s.phase, s.flips, s.draws = V.FLIP, 1, 0
    return s


LESSONS: tuple[Lesson, ...] = (
    # Green is -: 3 against 2 on your side loses; a 3 on theirs makes it 3 against 5.
    Lesson("terminal", lambda: position(mine={GREEN: ["G1", "G2"]}, theirs={GREEN: ["G1", "G1"]},
                                        hand=["G3", "O1", "B1", "P1"]), _won_sets(1), GREEN),
    # Purple is + at 3-2: a purple 1 on your side wins 4-2; on theirs it ties 3-3 and loses.
    Lesson("set", lambda: position(mine={PURPLE: ["P2", "P1"], BLUE: ["B3", "B2"]},
                                   theirs={PURPLE: ["P1", "P1v"], BLUE: ["B1", "B1"]},
                                   hand=["P1", "B1", "O1", "G1"]), _won_sets(1), PURPLE),
    # Blue (+) is 2-4: the bypass takes their 3 (5-1); taking their 1 ties 3-3, and the tie loses.
    Lesson("bypass", lambda: position(mine={BLUE: ["B1", "B1"]}, theirs={BLUE: ["B3", "B1"]},
                                      hand=["BY", "O1", "G1", "P1"], plus=(True, False, True, True)),
           _won_sets(1), BLUE),
    # Purple (+) is 3-5: the fuse blows their 3 away (3-2, your lead); their 2 would leave 3-3.
    Lesson("fuse", lambda: position(mine={PURPLE: ["P2", "P1"]}, theirs={PURPLE: ["P3", "P2"]},
                                    hand=["FU", "O1", "G1", "B1"]),
           lambda start, now: _lead(now, PURPLE) > 0 and now.scores == start.scores, PURPLE),
    # The owed flip: green to + turns your 5-2 there into a lead.
    Lesson("transformer", _transformer, lambda start, now: _lead(now, GREEN) > 0, GREEN),
    # Orange (+) is 3-4: a 1 makes 4-4, and a tie goes against the fifth card; the 2 wins 5-4.
    Lesson("tie", lambda: position(mine={ORANGE: ["O2", "O1"]}, theirs={ORANGE: ["O2v", "O2v"]},
                                   hand=["O1", "O2", "G1", "P1"]), _won_sets(1), ORANGE),
    # Six cards: no drawing two.  Orange (+) 3-3 and green (-) 2-4: an orange 2 and a green 1
    # on your sides win both this turn.
    Lesson("two", lambda: position(mine={ORANGE: ["O2", "O1"], GREEN: ["G1", "G1"]},
                                   theirs={ORANGE: ["O2v", "O1"], GREEN: ["G2", "G2"]},
                                   hand=["O2", "G1", "B3", "B3", "P3", "P3"]), _won_sets(2)),
)


def lesson(lesson_id: str) -> Lesson:
    return next(x for x in LESSONS if x.id == lesson_id)


def judge(lesson: Lesson, start: V.State, now: V.State) -> str:
    """After a learner's action: :data:`SOLVED`, :data:`GOING` (their turn goes on: a second
    card, a flip) or :data:`FAILED` (the turn passed, a set went to the other side, or the
    match ended)."""
    if lesson.goal(start, now):
        return SOLVED
    if now.over or now.to_move != 0 or now.scores[1] > start.scores[1]:
        return FAILED
    return GOING


def solution(lesson: Lesson) -> list[V.Action]:
    """The shortest run of the learner's actions that solves ``lesson`` (one turn at most)."""
    start = lesson.start()
    paths: list[tuple[V.State, list[V.Action]]] = [(start, [])]
    while paths:
        state, path = paths.pop(0)
        for a in V.legal_actions(state):
            after, _ = V.apply(state, a, 0)
            verdict = judge(lesson, start, after)
            if verdict == SOLVED:
                return [*path, a]
            if verdict == GOING:
                paths.append((after, [*path, a]))
    raise ValueError(f"lesson {lesson.id!r} cannot be solved")


__all__ = ["FAILED", "GOING", "LESSONS", "Lesson", "SOLVED", "judge", "lesson", "position", "solution"]
