"""Static judgement of a Voltage position, shared by the greedy bot and the search.

Everything here reads only what the seat being judged may know: the board, the
blocks, the scores, the number of cards in each hand.  It never looks at a
hand's faces other than the judged seat's own, nor at the piles' order, so a
state sampled by :mod:`engine.voltage.bots.determinize` judges exactly like the real one.

The unit is *sets*: a position is worth the score difference plus, for each
terminal that holds cards, ``2p - 1`` where ``p`` is the chance that this seat
wins the set being built there (see :func:`set_chance`).
"""

from __future__ import annotations

import math

from engine.voltage.cards import CARD_VALUE
from engine.voltage.rules import OVER, SETS_TO_WIN, State

LEAD_MAX = 9  # leads are clipped to -LEAD_MAX..LEAD_MAX
WIN_VALUE = 100.0  # a won match, in sets

# How fast the chance of a set grows with the lead, by cards on the terminal (1..4).
_SLOPE = (0.0, 0.30, 0.40, 0.55, 0.80)
# Chance that the block flips against the leader before the set is scored.
_FLIP_RISK = (0.0, 0.30, 0.27, 0.22, 0.12)
# Four cards down and the opponent to move: they finish the set if they can beat
# the lead with one card.  Our chance of the set, by our lead (-1 for any deficit).
_FOUR_THEIRS = {-1: 0.10, 0: 0.22, 1: 0.30, 2: 0.42, 3: 0.62, 4: 0.80, 5: 0.88}


def set_chance(count: int, lead: int, we_move_next: bool) -> float:
    """Chance of winning the set at a terminal holding ``count`` cards (1..4) when our
    total leads by ``lead`` under its block (negative: we trail), with the given seat to move."""
    if count == 4:
        if we_move_next:
            return 1.0 - _four_theirs(-lead)
        return _four_theirs(lead)
    p = 1.0 / (1.0 + math.exp(-_SLOPE[count] * lead))
    f = _FLIP_RISK[count]
    return p * (1.0 - f) + (1.0 - p) * f


def _four_theirs(lead: int) -> float:
    if lead < 0:
        return _FOUR_THEIRS[-1]
    return _FOUR_THEIRS.get(lead, 0.95)


def _table(we_move_next: bool) -> tuple[tuple[float, ...], ...]:
    return tuple(
        tuple(
            (2.0 * set_chance(count, lead, we_move_next) - 1.0) if count else 0.0
            for lead in range(-LEAD_MAX, LEAD_MAX + 1)
        )
        for count in range(5)
    )


# SET_VALUE[we_move_next][count][lead + LEAD_MAX] = 2p - 1
SET_VALUE: tuple[tuple[tuple[float, ...], ...], ...] = (_table(False), _table(True))

HAND_CARD = 0.06  # worth of one card in hand (choice), in sets


def evaluate(state: State, seat: int, we_move_next: bool | None = None) -> float:
    """The position's worth to ``seat``, in sets (a won match: ``WIN_VALUE``).

    ``we_move_next`` says who acts next on the board; by default it is read from
    the state (the player to move).
    """
    if state.phase == OVER:
        if state.winner is None:
            return 0.0
        return WIN_VALUE if state.winner == seat else -WIN_VALUE
    opp = 1 - seat
    scores = state.scores
    x = float(scores[seat] - scores[opp])
    if we_move_next is None:
        we_move_next = state.to_move == seat
    table = SET_VALUE[we_move_next]
    board = state.board
    plus = state.plus
    for t in range(4):
        mine = board[2 * t + seat]
        theirs = board[2 * t + opp]
        count = len(mine) + len(theirs)
        if not count:
            continue
        lead = 0
        for c in mine:
            lead += CARD_VALUE[c]
        for c in theirs:
            lead -= CARD_VALUE[c]
        if not plus[t]:
            lead = -lead
        if lead > LEAD_MAX:
            lead = LEAD_MAX
        elif lead < -LEAD_MAX:
            lead = -LEAD_MAX
        x += table[count][lead + LEAD_MAX]
    x += HAND_CARD * (len(state.hands[seat]) - len(state.hands[opp]))
    return x


def win_chance(value: float, scores: tuple[int, int] | list[int], seat: int) -> float:
    """Squash a worth in sets into a chance of winning the match (0..1)."""
    if value >= WIN_VALUE:
        return 1.0
    if value <= -WIN_VALUE:
        return 0.0
    # The nearer the end, the more a set decides.
    need = SETS_TO_WIN - max(scores[0], scores[1])
    k = 0.9 + 0.5 / max(need, 1)
    return 1.0 / (1.0 + math.exp(-k * value))
