"""The greedy bot: looks one turn ahead and takes the best-judged plan.

At the start of a turn it weighs every plan of its own turn - play two cards
(to two terminals), play one and draw one, or draw two - by the position it
leaves the opponent (:mod:`engine.voltage.bots.policy`, judged by
:mod:`engine.voltage.bots.heuristics`).  That judgement covers the rules of thumb: a
set that can be won now is worth a whole set; high cards on the opponent's side
of a ``-`` block, or a bypass or blown fuse that turns a set, raise the lead;
a transformer's flip goes where it helps most; and leaving four cards on a
terminal that the opponent can finish with one card is judged as likely
handing them the set.  A draw is worth the card and, when a transformer may
come, the best flip it would allow; the draw pile's top card shows its back.

It reads only its view: the planner works on a world sampled from the view
with a fixed generator and reads nothing hidden in it.
"""

from __future__ import annotations

import random

from engine.voltage.bots.determinize import Determinizer
from engine.voltage.bots.policy import Planner
from engine.voltage.rules import Action, VoltageView


def view_planner(view: VoltageView) -> Planner:
    """A planner for the seat of ``view``, with the transformer odds of its unseen cards."""
    det = Determinizer(view)
    state = det.sample(random.Random(0))  # hidden parts are placeholders the planner never reads
    unseen = len(det.unseen_t) + len(det.unseen_n) - len(det.opp_backs)
    unseen_t = len(det.unseen_t) - sum(det.opp_backs)
    return Planner(state, unseen_t / unseen if unseen > 0 else 0.0)


class GreedyBot:
    """One-turn lookahead with a static judgement; ``noise`` is the chance of a random move."""

    def __init__(self, seed: int | None = None, noise: float = 0.0, name: str = "greedy") -> None:
        self.rng = random.Random(seed)
        self.noise = noise
        self.name = name

    def choose(self, view: VoltageView) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError("the bot has no decision to make in this view")
        if len(legal) == 1:
            return legal[0]
        if self.noise and self.rng.random() < self.noise:
            return self.rng.choice(legal)
        values = view_planner(view).values(legal)
        best = max(values)
        ties = [a for v, a in zip(values, legal, strict=True) if v >= best - 1e-9]
        return ties[0] if len(ties) == 1 else self.rng.choice(ties)


__all__ = ["GreedyBot", "view_planner"]
