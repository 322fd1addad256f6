"""A learned value of a Voltage position: a seat's chance to win the match, from what it may know.

The model is a small neural network (one hidden layer, numpy inference) over features
of one seat's knowledge: the scores, who is to move and what is left of their turn,
both hands' sizes, the opponent's transformer backs, the draw pile's top back, the seat's
own bypasses and blown fuses, and for each terminal the cards and totals on both sides,
its block, and the seat's own cards of its colour.  The four terminals are listed in a
canonical order (sorted by their features), since a colour matters only through the cards
of that colour.  It reads nothing a seat may not see: not the other hand's faces, not the piles'
order, so a world sampled by :mod:`engine.voltage.bots.determinize` judges as the real one.

The weights (``value.npz``, 20 kB, shipped in the package) are learned by self-play:
``python tools/train_value.py`` reproduces them from its seed (20,000 greedy matches,
882,216 positions of 100 features, 353 MB in memory; about 6 minutes of self-play on two
busy cores and 3 of training).  On held-out matches it predicts the winner 67.0% of the
time with a log-loss of 0.586, against the hand-made heuristic's 65.0% and 0.623.  As the
search's leaf judgement it did worse than the heuristic (41 of 100 matches at 300
iterations with one-turn playouts), so the bots search with the heuristic; the model is
what :func:`evaluate` reports (for hints and analysis): its chance to win.

- :func:`features`: the inputs for one seat of a state;
- :class:`ValueModel`: the network; :func:`model` loads the shipped one once per process;
- :func:`win_chance_of_state`: seat 0's chance in a full state, judged from both seats'
  knowledge and averaged (what the search uses at its leaves);
- :func:`evaluate`: the chance to win of the seat whose view it is.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.voltage.cards import BYPASS, CARD_COLOUR, CARD_FACE, CARD_SPECIAL, CARD_TRANSFORMER, CARD_VALUE, FUSE
from engine.voltage.rules import FLIP, OVER, SECOND, State, VoltageView

WEIGHTS = Path(__file__).with_name("value.npz")

# Per terminal: cards on it (one-hot 0..4), lead under the block (clipped, and its sign),
# the block, my number cards and theirs there, the highest of each, my cards of its colour
# in hand (count, values, each value).
TERMINAL_FEATURES = 5 + 4 + 1 + 2 + 2 + 4
# Globals: scores (one-hot of mine x theirs), turn state, hands, backs, specials in hand.
GLOBAL_FEATURES = 16 + 5 + 3 + 2 + 2
N_FEATURES = GLOBAL_FEATURES + 4 * TERMINAL_FEATURES

Vector = npt.NDArray[np.float32]


def _terminal(board: list[list[int]], t: int, me: int, plus: bool, hand_by_colour: list[list[int]]) -> list[float]:
    mine = board[2 * t + me]
    theirs = board[2 * t + 1 - me]
    count = len(mine) + len(theirs)
    my_total = 0
    my_numbers = 0
    my_max = 0
    for c in mine:
        v = CARD_VALUE[c]
        my_total += v
        if v:
            my_numbers += 1
            if v > my_max:
                my_max = v
    their_total = 0
    their_numbers = 0
    their_max = 0
    for c in theirs:
        v = CARD_VALUE[c]
        their_total += v
        if v:
            their_numbers += 1
            if v > their_max:
                their_max = v
    lead = my_total - their_total if plus else their_total - my_total
    clipped = max(-9, min(9, lead))
    own = hand_by_colour[t]
    ones = twos = threes = 0
    for v in own:
        if v == 1:
            ones += 1
        elif v == 2:
            twos += 1
        else:
            threes += 1
    out = [0.0] * 5
    out[count if count < 5 else 4] = 1.0
    out += (
        clipped / 9.0,
        1.0 if lead > 0 else 0.0,
        1.0 if lead == 0 else 0.0,
        1.0 if lead < 0 else 0.0,
        1.0 if plus else 0.0,
        my_numbers / 4.0,
        their_numbers / 4.0,
        my_max / 3.0,
        their_max / 3.0,
        len(own) / 3.0,
        (ones + 2 * twos + 3 * threes) / 9.0,
        (threes - ones) / 3.0,
        (1.0 if own else 0.0),
    )
    return out


def features(state: State, me: int) -> list[float]:
    """The model's inputs for seat ``me``: only what ``me`` may know of ``state``."""
    opp = 1 - me
    scores = state.scores
    x = [0.0] * 16
    x[min(scores[me], 3) * 4 + min(scores[opp], 3)] = 1.0
    to_me = state.to_move == me
    sign = 1.0 if to_me else -1.0
    phase = state.phase
    x += (
        sign,
        sign if phase == SECOND else 0.0,
        sign * state.flips if phase == FLIP else 0.0,
        sign * state.draws if phase == FLIP else 0.0,
        1.0 if phase == OVER else 0.0,
    )
    hand = state.hands[me]
    other = state.hands[opp]
    backs = 0
    for c in other:
        backs += CARD_TRANSFORMER[c]
    draw = state.draw
    x += (
        len(hand) / 6.0,
        len(other) / 6.0,
        backs / 6.0,
        1.0 if draw and CARD_TRANSFORMER[draw[-1]] else 0.0,
        len(draw) / 40.0,
    )
    bypasses = fuses = 0
    by_colour: list[list[int]] = [[], [], [], []]
    for c in hand:
        if CARD_SPECIAL[c]:
            if CARD_FACE[c] == BYPASS:
                bypasses += 1
            elif CARD_FACE[c] == FUSE:
                fuses += 1
        else:
            by_colour[CARD_COLOUR[c]].append(CARD_VALUE[c])
    x += (bypasses / 2.0, fuses / 2.0)
    board = state.board
    plus = state.plus
    terms = [_terminal(board, t, me, plus[t], by_colour) for t in range(4)]
    # A canonical order: sorted by the features themselves.
    terms.sort(reverse=True)
    for term in terms:
        x += term
    return x


class ValueModel:
    """One hidden layer of ``tanh`` units, a logistic output: features -> chance to win."""

    def __init__(self, arrays: dict[str, Any]) -> None:
        self.mean = np.asarray(arrays["mean"], dtype=np.float64)
        self.scale = np.asarray(arrays["scale"], dtype=np.float64)
        w1 = np.asarray(arrays["w1"], dtype=np.float64)
        b1 = np.asarray(arrays["b1"], dtype=np.float64)
        # Fold the input normalisation into the first layer: (x - mean) / scale @ w1 + b1.
        self.w1 = w1 / self.scale[:, None]
        self.b1 = b1 - (self.mean / self.scale) @ w1
        self.w2 = np.asarray(arrays["w2"], dtype=np.float64)
        self.b2 = float(arrays["b2"])

    def logits(self, x: npt.ArrayLike) -> npt.NDArray[np.float64]:
        """The output before the logistic, for a batch of feature rows (or one row)."""
        h = np.tanh(np.asarray(x, dtype=np.float64) @ self.w1 + self.b1)
        out: npt.NDArray[np.float64] = h @ self.w2 + self.b2
        return out

    def chance(self, x: list[float]) -> float:
        """The chance to win for one feature row."""
        z = float(self.logits(x))
        return 1.0 / (1.0 + np.exp(-z)) if z > -40 else 0.0

    def pair(self, a: list[float], b: list[float]) -> float:
        """Seat 0's chance from its features ``a`` and seat 1's ``b``, judged from both sides."""
        z = self.logits([a, b])
        p0 = 1.0 / (1.0 + float(np.exp(-max(-40.0, float(z[0])))))
        p1 = 1.0 / (1.0 + float(np.exp(-max(-40.0, float(z[1])))))
        return 0.5 * (p0 + 1.0 - p1)


def model() -> ValueModel:
    """The shipped model, loaded once per process."""
    return load(str(WEIGHTS))


@functools.cache
def load(path: str) -> ValueModel:
    """A model from a weights file (as ``tools/train_value.py --out`` writes it), once per process."""
    with np.load(path) as f:
        return ValueModel({k: f[k] for k in f.files})


def win_chance_of_state(state: State, m: ValueModel | None = None) -> float:
    """Seat 0's chance to win ``state``: the model (``m``, else the shipped one) from seat 0's
    knowledge and from seat 1's, averaged (in a sampled world the search knows both hands)."""
    if state.phase == OVER:
        if state.winner is None:
            return 0.5
        return 1.0 if state.winner == 0 else 0.0
    return (m or model()).pair(features(state, 0), features(state, 1))


def evaluate(view: VoltageView) -> float:
    """The chance that the seat of ``view`` wins the match, by the model (0..1)."""
    if view.seat is None:
        raise ValueError("a spectator's view has no seat to judge for")
    if view.over:
        if view.winner is None:
            return 0.5
        return 1.0 if view.winner == view.seat else 0.0
    from engine.voltage.bots.determinize import Determinizer

    # The hidden parts of this world are placeholders: the features never read them
    # (the other hand's size and backs, and the draw pile's size and top back, are public).
    state = Determinizer(view).sample(random.Random(0))
    return model().chance(features(state, view.seat))


__all__ = ["N_FEATURES", "ValueModel", "evaluate", "features", "load", "model", "win_chance_of_state"]
