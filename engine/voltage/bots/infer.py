"""Inference from the opponent's choices: worlds weighted by what its decisions reveal.

A search imagines the opponent's hidden hand (:mod:`engine.voltage.bots.determinize`) as
any hand that fits the public counts, all equally likely.  But a player who drew two when
it could have finished a set with a 3 probably held no 3.  :class:`InferBot` is Hard's or
Expert's search (:class:`~engine.voltage.bots.ismcts.ISMCTSBot`) that is also told the
**public history** of the match: for every action so far, its own seat's view just before
it and the action (:meth:`InferBot.observe`, which the arena calls after every action of
either seat; or ``history=`` when the bot is built for one move).  Nothing hidden is in it:
the views are the ones its seat saw, the actions were played face up (a draw shows only the
back of the card drawn, and the view after it shows that back in the opponent's hand).

Before a search it samples a pool of ``pool`` opponent hands from the view, as the plain
search would, and weights each by the likelihood of the opponent's decisions of its last
``infer_turns`` turns under a model of the opponent: a softmax (``temperature``, in sets)
over the one-turn planner's prices (:mod:`engine.voltage.bots.policy`, Medium's judgement,
which Hard's and Expert's searches also use as their prior) of the actions that hand would
have allowed, mixed with ``epsilon`` of a uniform choice.  The hand at each past decision is
rebuilt from the sampled one by walking the history backwards: the cards played since are
given back, and the cards drawn since (their backs are public) taken out, chosen at random
among the hand's cards of that back.  Each iteration's world then holds a hand drawn from
the pool by weight, with the piles shuffled afresh.
"""

from __future__ import annotations

import bisect
import itertools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.voltage.bots.determinize import _IDS_BY_KEY, Determinizer, _key
from engine.voltage.bots.ismcts import ISMCTSBot, Worlds, action_key
from engine.voltage.bots.policy import Planner
from engine.voltage.cards import CARD_TRANSFORMER
from engine.voltage.rules import Action, Play, State, VoltageView, legal_actions

#: One entry of a public history: the seat's own view just before an action, and the action.
Observation = tuple[VoltageView, Action]

#: The defaults of the opponent model (see the module).  Fitted to Hard's own choices: over 321
#: decisions of Hard's (START or SECOND, two or more kinds of action; 6 Hard self-play matches,
#: deals 500-505) the mean log chance of the action taken was -2.16 uniformly, -1.81 with
#: temperature 0.2 and epsilon 0.1 (0.1: -1.90; 0.3: -1.82; 0.05: -2.13); the planner's
#: favourite was Hard's choice only 36% of the time.
TEMPERATURE = 0.2
EPSILON = 0.1
POOL = 200
INFER_TURNS = 3


@dataclass
class OpponentAction:
    """One action of the opponent, as the history shows it."""

    template: State | None  # the world just before it (the hand to fill in), None: not judged
    key: int  # action_key of the action taken
    drawn: tuple[bool, ...]  # the backs of the cards it drew during the action
    played: int  # the CARD_KEY of the card it played, or -1


def opponent_actions(history: Sequence[Observation], view: VoltageView, turns: int) -> list[OpponentAction]:
    """The opponent's actions in ``history`` (the seat of ``view``'s observations, oldest first,
    ``view`` the one after the last), those of its last ``turns`` turns with a template to judge."""
    seat = view.seat
    assert seat is not None
    opp = 1 - seat
    views = [v for v, _ in history] + [view]
    first_turn = view.turn - 2 * turns + 1
    out: list[OpponentAction] = []
    for i, (v, a) in enumerate(history):
        if v.seat != seat or v.to_move != opp or v.over:
            continue
        after = views[i + 1]
        played = -1
        gone_t = gone_n = 0
        if isinstance(a, Play):
            played = _key(a.card)
            gone_t, gone_n = (1, 0) if a.card.transformer else (0, 1)
        before_t = sum(v.hand_backs[opp])
        before_n = len(v.hand_backs[opp]) - before_t
        after_t = sum(after.hand_backs[opp])
        after_n = len(after.hand_backs[opp]) - after_t
        drawn = (True,) * max(0, after_t - before_t + gone_t) + (False,) * max(0, after_n - before_n + gone_n)
        template = None
        if v.phase in ("start", "second") and v.turn >= first_turn:
            template = Determinizer(v).sample(random.Random(0))  # its hidden parts are placeholders
        out.append(OpponentAction(template, action_key(a), drawn, played))
    return out


def log_likelihood(
    act: OpponentAction, hand: list[int], temperature: float = TEMPERATURE, epsilon: float = EPSILON
) -> float:
    """The log chance of ``act`` by a player holding ``hand`` (card ids), under the model."""
    s = act.template
    assert s is not None
    s.hands[s.to_move] = hand
    legal = legal_actions(s)
    if len(legal) < 2:
        return 0.0
    best: dict[int, float] = {}
    for a, v in zip(legal, Planner(s).values(legal), strict=True):
        k = action_key(a)
        if v > best.get(k, -1e18):
            best[k] = v
    n = len(best)
    if act.key not in best:  # not possible with this hand (never, with the hand rebuilt)
        return math.log(epsilon / (n + 1))
    top = max(best.values())
    z = 0.0
    for v in best.values():
        z += math.exp((v - top) / temperature)
    p = math.exp((best[act.key] - top) / temperature) / z
    return math.log((1.0 - epsilon) * p + epsilon / n)


def hand_log_likelihood(
    hand: Sequence[int],
    actions: Sequence[OpponentAction],
    rng: random.Random,
    temperature: float = TEMPERATURE,
    epsilon: float = EPSILON,
) -> float:
    """The log likelihood of the opponent's judged actions if it holds ``hand`` now: the history
    walked backwards from ``hand`` (cards played given back, cards drawn taken out at random
    among those of their back)."""
    judged = [i for i, a in enumerate(actions) if a.template is not None]
    if not judged:
        return 0.0
    h = list(hand)
    total = 0.0
    for act in reversed(actions[judged[0] :]):
        for back in act.drawn:
            same = [i for i, c in enumerate(h) if bool(CARD_TRANSFORMER[c]) == back]
            if same:
                h.pop(same[int(rng.random() * len(same))])
        if act.played >= 0:
            h.append(_IDS_BY_KEY[act.played][0])
        if act.template is not None:
            total += log_likelihood(act, h[:], temperature, epsilon)
    return total


class InferredWorlds:
    """Worlds of a view whose opponent hands are drawn from a pool weighted by the history."""

    __slots__ = ("det", "hands", "cum", "weights", "ess")

    def __init__(
        self,
        view: VoltageView,
        history: Sequence[Observation],
        rng: random.Random,
        *,
        pool: int = POOL,
        temperature: float = TEMPERATURE,
        epsilon: float = EPSILON,
        turns: int = INFER_TURNS,
    ) -> None:
        self.det = det = Determinizer(view)
        assert view.seat is not None
        opp = 1 - view.seat
        actions = opponent_actions(history, view, turns)
        self.hands = [det.sample(rng).hands[opp] for _ in range(pool)]
        logs = [hand_log_likelihood(h, actions, rng, temperature, epsilon) for h in self.hands]
        top = max(logs)
        self.weights = [math.exp(x - top) for x in logs]
        total = sum(self.weights)
        self.weights = [w / total for w in self.weights]
        self.ess = 1.0 / sum(w * w for w in self.weights)  # the effective number of hands
        self.cum = list(itertools.accumulate(self.weights))

    def sample(self, rng: random.Random) -> State:
        i = min(bisect.bisect_right(self.cum, rng.random()), len(self.hands) - 1)
        return self.det.sample(rng, self.hands[i])


class InferBot(ISMCTSBot):
    """ISMCTS whose worlds are weighted by the opponent's past choices (see the module)."""

    def __init__(
        self,
        seed: int | None = None,
        *,
        history: Sequence[Observation] | None = None,
        temperature: float = TEMPERATURE,
        epsilon: float = EPSILON,
        pool: int = POOL,
        infer_turns: int = INFER_TURNS,
        **kw: Any,
    ) -> None:
        super().__init__(seed, **kw)
        if temperature <= 0 or not 0 < epsilon <= 1 or pool < 1 or infer_turns < 0:
            raise ValueError("the opponent model needs temperature > 0, 0 < epsilon <= 1, pool >= 1")
        self.history: list[Observation] = list(history or ())
        self.temperature = temperature
        self.epsilon = epsilon
        self.pool = pool
        self.infer_turns = infer_turns
        self._cache: tuple[VoltageView, Worlds] | None = None

    def observe(self, view: VoltageView, action: Action) -> None:
        """Record one action of the match (either seat's) with this seat's view just before it."""
        self.history.append((view, action))

    def worlds(self, view: VoltageView) -> Worlds:
        if self._cache is not None and self._cache[0] is view:  # the trees of one move share it
            return self._cache[1]
        worlds: Worlds
        if self.infer_turns and any(v.to_move != view.seat for v, _ in self.history):
            worlds = InferredWorlds(
                view,
                self.history,
                self.rng,
                pool=self.pool,
                temperature=self.temperature,
                epsilon=self.epsilon,
                turns=self.infer_turns,
            )
        else:
            worlds = Determinizer(view)
        self._cache = (view, worlds)
        return worlds


__all__ = ["InferBot", "InferredWorlds", "Observation", "OpponentAction", "hand_log_likelihood", "opponent_actions"]
