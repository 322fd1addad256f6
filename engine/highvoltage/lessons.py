"""Learn High Voltage: prepared positions, one rule each, and what solves each.

Each :class:`Lesson` is a real engine :class:`~engine.highvoltage.rules.State` of a match of
two (the learner in seat 0, play open) built from card faces: the top card, the learner's
hand and pile, the other seat's hand and pile, and the discard pile under the top.  The
rules are RULINGS.md's:

- ``fit``: a card fits when its value is the top's value plus or minus the top's modifier;
- ``wrap_up`` / ``wrap_down``: counting wraps around 1..10 (11 is 1, 0 is 10);
- ``draw``: with no card that fits, draw from your own pile (one card at a time);
- ``stuck``: with no card that fits and an empty pile, declare stuck; when everyone is
  stuck the bottom card of the discard pile is turned up on top (a flip), and play goes
  on after a countdown;
- ``last``: with the pile empty, the play that leaves one card in hand wins at once.

:func:`judge` says, after each of the learner's actions, whether the lesson is solved,
still going (a draw, a stuck declaration before the flip) or failed; a card that does not
fit is refused by the rules themselves (``does_not_fit``: nothing changes).  The tui words
the rules, the tasks and the explanations (``tui/games/highvoltage/lesson.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.highvoltage import rules as H

SOLVED, GOING, FAILED = "solved", "going", "failed"


def _ids_by_face() -> dict[H.Face, list[int]]:
    out: dict[H.Face, list[int]] = {}
    for c, face in enumerate(H.CARD_FACE):
        out.setdefault(face, []).append(c)
    return out


def position(*, top: str, hand: Sequence[str], pile: Sequence[str] = (), other: Sequence[str] = ("1/1",),
             other_pile: Sequence[str] = (), under: Sequence[str] = ()) -> H.State:
    """Two seats, play open, the learner (seat 0) with ``hand`` and ``pile`` (its last card on
    top), the other seat with ``other`` and ``other_pile``, the discard pile ``under`` (its
    first card at the bottom) then ``top``.  Faces as ``"7/3"``; the cards not named are
    left out of the match (a lesson needs only these)."""
    ids = _ids_by_face()

    def take(code: str) -> int:
        pool = ids[H.Face.parse(code)]
        if not pool:
            raise ValueError(f"no {code} left for this position")
        return pool.pop()

    s = H.new_match(0, 2)
    s.discard = [take(c) for c in under] + [take(top)]
    s.tops = [s.discard[-1]]
    s.hands = [[take(c) for c in hand], [take(c) for c in other]]
    s.piles = [[take(c) for c in pile], [take(c) for c in other_pile]]
    s.phase = H.PLAY
    s.declared = [False, False]
    return s


@dataclass(frozen=True)
class Lesson:
    """One rule: its id (the tui words it), its position, and the faces that solve it (the
    learner's play that fits, in order; a draw or a stuck declaration before them)."""

    id: str
    top: str
    hand: tuple[str, ...]
    pile: tuple[str, ...] = ()
    other: tuple[str, ...] = ("1/1",)
    other_pile: tuple[str, ...] = ()
    under: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()  # "draw", "stuck", or a face played: the solution

    def start(self) -> H.State:
        return position(top=self.top, hand=self.hand, pile=self.pile, other=self.other,
                        other_pile=self.other_pile, under=self.under)


LESSONS: tuple[Lesson, ...] = (
    # 5 ±2: 3 or 7 fit; the 7 is the only one in hand.
    Lesson("fit", "5/2", ("6/1", "4/3", "7/3", "9/1"), steps=("7/3",)),
    # 9 ±3: 6 or 12, which wraps to 2.
    Lesson("wrap_up", "9/3", ("8/2", "2/1", "10/1", "5/3"), steps=("2/1",)),
    # 2 ±3: 5 or -1, which wraps to 9.
    Lesson("wrap_down", "2/3", ("1/1", "3/2", "9/2", "4/1"), steps=("9/2",)),
    # 4 ±1: 3 or 5; none in hand, a 5 on top of the pile.
    Lesson("draw", "4/1", ("8/1", "1/2", "10/3", "7/2"), pile=("9/3", "5/2"), steps=("draw", "5/2")),
    # 6 ±1: 5 or 7; none in hand, the pile empty, and the other seat stuck too: the flip
    # turns up the bottom card (3 ±1: 2 or 4), and the 4 fits it.
    Lesson("stuck", "6/1", ("9/2", "4/2", "1/3"), other=("10/1", "2/2"), under=("3/1", "8/3"),
           steps=("stuck", "4/2")),
    # 8 ±2: 6 or 10; the pile empty and two cards in hand: playing the 10 leaves the last card.
    Lesson("last", "8/2", ("3/1", "10/2"), other=("1/1", "2/1", "3/3"), other_pile=("4/1", "5/1"),
           steps=("10/2",)),
)


def judge(lesson: Lesson, after: H.State) -> str:
    """The learner's actions so far (``after`` is where they led): solved, going or failed."""
    if lesson.id == "last":
        return SOLVED if after.over and after.winner == 0 else FAILED if after.plays else GOING
    if lesson.id == "stuck":
        return SOLVED if after.flips and after.plays else GOING
    if after.plays:
        return SOLVED
    return GOING


def wrong(lesson: Lesson, state: H.State, action: H.Action) -> bool:
    """Is ``action`` (legal by the rules) off this lesson's point? (Declaring stuck with a
    card to draw, drawing with a card that fits: the position comes back, explained.)"""
    me = 0
    fits = H.has_fitting_card(state, me)
    if isinstance(action, H.Draw):
        return fits
    if isinstance(action, H.Stuck):
        return fits or bool(state.piles[me])
    return False


def solution(lesson: Lesson, state: H.State | None = None) -> list[H.Action]:
    """The learner's actions that solve ``lesson`` from its start (the tests play them)."""
    s = state or lesson.start()
    out: list[H.Action] = []
    for step in lesson.steps:
        if step == "draw":
            a: H.Action = H.Draw(0)
        elif step == "stuck":
            a = H.Stuck(0)
        else:
            v = H.view(s, 0)
            a = v.aim(H.Face.parse(step))
        out.append(a)
        s, _e = H.apply(s, a, 0)
        if s.phase == H.COUNTDOWN and not s.over:
            s, _e = H.apply(s, H.GO)
    return out


def fitting(top: H.Face) -> tuple[int, int]:
    """The two values that fit on ``top`` (for the explanations)."""
    return top.targets
