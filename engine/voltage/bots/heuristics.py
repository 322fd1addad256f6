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

from engine.voltage.cards import BYPASS, CARD_FACE, CARD_SPECIAL, CARD_VALUE
from engine.voltage.rules import OVER, SECOND, SETS_TO_WIN, State

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


# A terminal at four cards in a sampled world, where both hands are known: the chance that
# the player to move wins the set when they can finish it in their favour with one card,
# when only the other player can, and when neither can (then the lead decides, as above).
MOVER_FINISHES = 0.92
OTHER_FINISHES = 0.28


def _finishes(state: State, player: int, t: int, lead: int, exclude: int) -> bool:
    """Can ``player`` complete terminal ``t`` (four cards) with one card and win its set?
    ``lead`` is ``player``'s lead there under its block."""
    if t == exclude:
        return False
    colour_card = 3 * t  # faces of terminal t's colour: 3t, 3t + 1, 3t + 2
    other_side = state.board[2 * t + 1 - player]
    plus = state.plus[t]
    for c in state.hands[player]:
        face = CARD_FACE[c]
        if face < 12:
            if colour_card <= face < colour_card + 3 and lead + face - colour_card + 1 > 0:
                return True
        elif face == BYPASS:
            taken = [CARD_VALUE[x] for x in other_side if not CARD_SPECIAL[x]]
            if not taken:
                if lead > 0:
                    return True
            elif any(lead + (2 * u if plus else -2 * u) > 0 for u in taken):
                return True
        elif not any(not CARD_SPECIAL[x] for x in other_side) and lead > 0:
            return True  # a fuse with nothing to take completes the terminal as it stands
    return False


def evaluate_world(state: State, seat: int) -> float:
    """Like :func:`evaluate`, for a world whose hands are both known (a search's sampled
    world): a terminal at four cards is judged by who can finish it in their favour."""
    if state.phase == OVER:
        if state.winner is None:
            return 0.0
        return WIN_VALUE if state.winner == seat else -WIN_VALUE
    opp = 1 - seat
    scores = state.scores
    x = float(scores[seat] - scores[opp])
    mover = state.to_move
    we_move_next = mover == seat
    table = SET_VALUE[we_move_next]
    board = state.board
    plus = state.plus
    exclude = state.first_terminal if state.phase == SECOND else -1
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
        if count == 4:
            mover_lead = lead if we_move_next else -lead
            if _finishes(state, mover, t, mover_lead, exclude):
                p = MOVER_FINISHES
            elif _finishes(state, 1 - mover, t, -mover_lead, -1):
                p = OTHER_FINISHES
            else:
                p = -1.0
            if p >= 0:
                x += (2 * p - 1) if we_move_next else (1 - 2 * p)
                continue
        if lead > LEAD_MAX:
            lead = LEAD_MAX
        elif lead < -LEAD_MAX:
            lead = -LEAD_MAX
        x += table[count][lead + LEAD_MAX]
    x += HAND_CARD * (len(state.hands[seat]) - len(state.hands[opp]))
    return x
