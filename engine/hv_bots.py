"""High Voltage bots: reaction levels as pure policies.

A bot sees only its seat's view and answers ``decide(view) -> (delay_seconds,
action or None)``: what it will do and how long it takes to get there.  The
bot keeps no clock; the host (or :mod:`engine.hv_arena`, in simulated time)
schedules the action at ``now + delay`` and applies it then, aimed at the top
card the bot saw, so a bot beaten to it is refused as too slow.  ``None``
means there is nothing to do until the table changes (the bot has declared
stuck and holds nothing that fits): ask again after the next accepted action.

Policy, the same at every level (only the speed differs):
1. a card in hand fits the top: play it, choosing the one that leaves the
   most cards in hand that fit on it in turn (ties by the bot's generator);
2. else draw from its own pile if it has one;
3. else declare stuck, once.

Delays are the level's reaction time times a jitter factor drawn from the
bot's own seeded generator: log-normal with median 1 (sigma :data:`JITTER`),
skewed to the slow side like human reaction times, so a slower level now and
then beats a faster one to a card.
"""

from __future__ import annotations

import random

from .highvoltage import Action, Draw, Face, HighVoltageView, Stuck, fits

# name -> mean reaction time in seconds
REACTION_SECONDS: dict[str, float] = {"slow": 2.5, "medium": 1.5, "fast": 0.8}
HV_BOT_NAMES: tuple[str, ...] = tuple(REACTION_SECONDS)
JITTER = 0.35  # sigma of the log-normal factor: half of all delays within about ±25% of the median


class ReactionBot:
    """A High Voltage bot with one reaction time; see the module docstring."""

    def __init__(self, name: str, reaction: float, seed: int | None = None) -> None:
        self.name = name
        self.reaction = reaction
        self.rng = random.Random(seed)

    def delay(self) -> float:
        return self.reaction * self.rng.lognormvariate(0.0, JITTER)

    def choose_card(self, hand: tuple[Face, ...], top: Face) -> Face | None:
        """The fitting card to play on ``top``, or None when nothing fits."""
        fitting = [c for c in hand if fits(c, top)]
        if not fitting:
            return None
        best: list[Face] = []
        best_score = -1
        for i, card in enumerate(hand):
            if card not in fitting or card in best:
                continue
            rest = hand[:i] + hand[i + 1 :]
            score = sum(1 for c in rest if fits(c, card))
            if score > best_score:
                best, best_score = [card], score
            elif score == best_score:
                best.append(card)
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def decide(self, view: HighVoltageView) -> tuple[float, Action | None]:
        if not view.can_act or view.hand is None or view.seat is None:
            return 0.0, None
        seat = view.seat
        card = self.choose_card(view.hand, view.top)
        if card is not None:
            return self.delay(), view.aim(card)
        if view.pile_counts[seat]:
            return self.delay(), Draw(seat)
        if not view.stuck[seat]:
            return self.delay(), Stuck(seat)
        return 0.0, None


def make_hv_bot(name: str, seed: int | None = None) -> ReactionBot:
    """The bot of level ``name`` (one of :data:`HV_BOT_NAMES`) with its own generator."""
    try:
        reaction = REACTION_SECONDS[name]
    except KeyError:
        raise ValueError(
            f"unknown High Voltage bot {name!r}: choose from {', '.join(HV_BOT_NAMES)}"
        ) from None
    return ReactionBot(name, reaction, seed)
