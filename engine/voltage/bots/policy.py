"""A fast one-turn planner: the greedy bot's brain and the search's playout policy.

The judgement of :mod:`engine.voltage.bots.heuristics` is a sum over terminals, and the
two cards of "play two" go to two different terminals, so every plan of a turn
is worth the sum of its parts.  The planner prices each legal play once (what
it does to its own terminal, in sets, judged with the opponent to move next),
then combines: a first card plus the best second card elsewhere, or plus one
draw; or two draws.  A draw is worth a card in hand and, when it may bring a
transformer, that chance times the best flip it would allow (the draw pile's
top card shows its back; the next one is a transformer with chance
``p_transformer``).

Pricing reads only the mover's own hand and the public board, blocks and scores.
"""

from __future__ import annotations

from typing import cast

from engine.voltage.bots.heuristics import HAND_CARD, LEAD_MAX, SET_VALUE, WIN_VALUE
from engine.voltage.cards import BYPASS, CARD_TRANSFORMER, CARD_VALUE
from engine.voltage.rules import (
    CARD_KEY,
    DRAW,
    FLIP,
    SECOND,
    SET_SIZE,
    SETS_TO_WIN,
    START,
    Action,
    Draw,
    Flip,
    Play,
    State,
    legal_actions,
)

P_TRANSFORMER = 18 / 56

_THEIRS_NEXT = SET_VALUE[False]


# (my total, their total, cards, plus, worth with the opponent to move) of one terminal.
_Term = tuple[int, int, int, bool, float]


def _terminals(state: State, seat: int) -> list[_Term]:
    """(my total, their total, cards, plus, worth with the opponent to move) per terminal."""
    out = []
    opp = 1 - seat
    board = state.board
    for t in range(4):
        a = board[2 * t + seat]
        b = board[2 * t + opp]
        mine = 0
        for c in a:
            mine += CARD_VALUE[c]
        theirs = 0
        for c in b:
            theirs += CARD_VALUE[c]
        count = len(a) + len(b)
        plus = state.plus[t]
        out.append((mine, theirs, count, plus, _worth(mine, theirs, count, plus)))
    return out


def _worth(mine: int, theirs: int, count: int, plus: bool) -> float:
    if not count:
        return 0.0
    lead = mine - theirs if plus else theirs - mine
    if lead > LEAD_MAX:
        lead = LEAD_MAX
    elif lead < -LEAD_MAX:
        lead = -LEAD_MAX
    return _THEIRS_NEXT[count][lead + LEAD_MAX]


def _price(a: Play, seat: int, terms: list[_Term]) -> tuple[float, int, _Term]:
    """(gain, sets won by me (+1) or them (-1) or 0, the terminal's new tuple) of play ``a``."""
    t = a.terminal
    mine, theirs, count, plus, value = terms[t]
    card = a.card
    if card.face >= 12:
        target = a.target
        if target is None:
            count += 1
        else:
            u = target.face % 3 + 1
            theirs -= u
            if card.face == BYPASS:
                mine += u
                count += 1
    else:
        v = card.face % 3 + 1
        if a.side == seat:
            mine += v
        else:
            theirs += v
        count += 1
    if count >= SET_SIZE:
        lead = mine - theirs if plus else theirs - mine
        won = 1 if lead > 0 else -1  # a tie goes against the player of the fifth card
        return float(won) - value - HAND_CARD, won, (0, 0, 0, plus, 0.0)
    new = _worth(mine, theirs, count, plus)
    return new - value - HAND_CARD, 0, (mine, theirs, count, plus, new)


class Planner:
    """Prices the decisions of the player to move in ``state`` by one-turn lookahead."""

    def __init__(self, state: State, p_transformer: float = P_TRANSFORMER) -> None:
        self.state = state
        self.seat = state.to_move
        self.p = p_transformer
        self.terms = terms = _terminals(state, self.seat)
        # What flipping each block would change.
        self.flip_gains = [_worth(m, th, c, not pl) - v for m, th, c, pl, v in terms]
        if state.draw:
            self.p_first = 1.0 if CARD_TRANSFORMER[state.draw[-1]] else 0.0
        else:
            self.p_first = p_transformer if state.discard else 0.0
        self.can_draw = bool(state.draw or state.discard)

    def _draw_gain(self, n: int, flip_gain: float) -> float:
        if not self.can_draw:
            return 0.0
        return n * HAND_CARD + (self.p_first + self.p * (n - 1)) * flip_gain

    def _end(self, won_me: int, won_them: int, gain: float) -> float:
        scores = self.state.scores
        if won_them and scores[1 - self.seat] + won_them >= SETS_TO_WIN:
            return -WIN_VALUE
        if won_me and scores[self.seat] + won_me >= SETS_TO_WIN:
            return WIN_VALUE
        return gain

    def values(self, legal: list[Action] | tuple[Action, ...] | None = None) -> list[float]:
        """The worth of each action in ``legal`` (default: the legal actions), in sets
        gained by the end of the turn."""
        s = self.state
        if legal is None:
            legal = legal_actions(s)
        seat = self.seat
        terms = self.terms
        phase = s.phase
        flip_gains = self.flip_gains
        if phase == FLIP:
            return [flip_gains[a.terminal] if isinstance(a, Flip) else 0.0 for a in legal]
        prices: list[tuple[float, int, _Term] | None] = [
            _price(a, seat, terms) if isinstance(a, Play) else None for a in legal
        ]
        if phase == SECOND:
            out = []
            for a, pr in zip(legal, prices, strict=True):
                if pr is None:
                    out.append(self._draw_gain(1, max(flip_gains)) if isinstance(a, Draw) else 0.0)
                elif pr[1]:
                    out.append(self._end(pr[1] > 0, pr[1] < 0, pr[0]))
                else:
                    out.append(pr[0])
            return out
        # START: a first card, then the best of a second card elsewhere or one draw.
        hand_keys: dict[int, int] = {}
        for c in s.hands[seat]:
            k = CARD_KEY[c]
            hand_keys[k] = hand_keys.get(k, 0) + 1
        # Plays by terminal, best first: (gain, won, card key).
        by_terminal: list[list[tuple[float, int, int, int]]] = [[], [], [], []]
        for i, (a, pr) in enumerate(zip(legal, prices, strict=True)):
            if pr is not None:
                play = cast(Play, a)  # only plays have a price
                card = play.card
                by_terminal[play.terminal].append((pr[0], pr[1], card.face * 2 + card.transformer, -i))
        for lst in by_terminal:
            lst.sort(reverse=True)
        # The best flip elsewhere than each terminal.
        flip_elsewhere = [max(flip_gains[:t] + flip_gains[t + 1 :]) for t in range(4)]
        out = []
        # For each first card, the index in ``legal`` of the second card of its best
        # plan, or -1 when the plan draws one instead.
        self.seconds = seconds = [-1] * len(legal)
        for a, pr in zip(legal, prices, strict=True):
            if pr is None:
                out.append(self._draw_gain(2, max(flip_gains)) if isinstance(a, Draw) else 0.0)
                continue
            gain, won, new_term = pr
            if won:
                over = self._end(won > 0, won < 0, 0.0)  # the first card may end the match
                if over:
                    out.append(over)
                    continue
            play = cast(Play, a)  # only plays have a price
            t = play.terminal
            card = play.card
            key = card.face * 2 + card.transformer
            m, th, c, pl, v = new_term
            flip_here = _worth(m, th, c, not pl) - v
            best = gain + self._draw_gain(1, flip_here if flip_here > flip_elsewhere[t] else flip_elsewhere[t])
            single = hand_keys[key] < 2
            for t2 in range(4):
                if t2 == t:
                    continue
                for g2, won2, k2, minus_i2 in by_terminal[t2]:
                    if single and k2 == key:
                        continue
                    if won or won2:
                        v2 = self._end((won > 0) + (won2 > 0), (won < 0) + (won2 < 0), gain + g2)
                    else:
                        v2 = gain + g2
                    if v2 > best:
                        best = v2
                        seconds[len(out)] = -minus_i2
                    break  # the list is sorted: the first usable play is this terminal's best
            out.append(best)
        return out

    def best_plan(self, legal: list[Action] | tuple[Action, ...]) -> tuple[Action, Action | None]:
        """The best plan's first action and, when it starts a turn with a card, its
        second action (a card for another terminal, or a draw)."""
        vals = self.values(legal)
        i = max(range(len(vals)), key=vals.__getitem__)
        first = legal[i]
        if self.state.phase != START or not isinstance(first, Play):
            return first, None
        j = self.seconds[i]
        return first, (legal[j] if j >= 0 else DRAW)

    def best(self, legal: list[Action] | tuple[Action, ...] | None = None) -> Action:
        """The first action of the best-priced plan (the earliest in ``legal`` on ties)."""
        if legal is None:
            legal = legal_actions(self.state)
        vals = self.values(legal)
        i = max(range(len(vals)), key=vals.__getitem__)
        return legal[i]


__all__ = ["Planner", "P_TRANSFORMER"]
