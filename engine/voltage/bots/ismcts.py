"""Information-set Monte Carlo tree search (single-observer ISMCTS).

Cowling, Powley and Whitehouse, "Information Set Monte Carlo Tree Search"
(IEEE TCIAIG, 2012).  The tree is grown from the bot's information set: its
nodes are action sequences, not states.  Each iteration

1. samples a world consistent with the bot's view (:mod:`engine.voltage.bots.determinize`:
   the unseen cards shuffled into the opponent's hand and the piles, keeping the
   public transformer backs, with a fresh seed for later reshuffles);
2. walks down the tree using only the actions legal in that world, picking by
   UCB1 with *availability* counts (a child's exploration term counts the
   visits in which it was legal, not its parent's visits); in the top
   ``prior_depth`` levels the one-turn planner's price of each action, relative
   to the best, times ``prior_weight`` and divided by ``visits + 1``, is added
   (a progressive bias), and untried actions are tried the planner's favourite
   first (at the root the prices come from the view itself);
3. adds one node, then plays ``playout_turns`` more turns with the one-turn
   planner (:mod:`engine.voltage.bots.policy`: its best two-card plan) for both
   players, in that world, and judges the position reached
   (:mod:`engine.voltage.bots.heuristics`) as a chance of winning;
4. backs the result up, each node scored for the player who chose it.

The judgement of step 3 is an option (``leaf``): the heuristic, the learned value of
:mod:`engine.voltage.bots.value`, or ``world``: the heuristic with each terminal at
four cards judged by who can finish it in their favour in that world (both hands
are known there).  The budget may be shared by several independent trees
(``trees``), whose root visits and results are summed; with ``pimc`` each tree searches
one world sampled once (perfect-information Monte Carlo), not a fresh one per iteration.

A search may be narrowed (``width``): where the planner prices the actions (the top
``prior_depth`` levels), only its ``width`` favourites are searched, so a larger budget
goes deeper into the few plans worth weighing instead of wider.

Two actions that differ only in the back of the card played (or taken) do the
same thing, so the tree keeps one node for both.  The move played is the most
visited root action.  The budget is a number of iterations, a wall-clock time,
or both (whichever ends first).  With only an iteration budget the bot is a
pure function of (seed, view).
"""

from __future__ import annotations

import functools
import math
import random
import time
from collections.abc import Callable
from typing import Protocol, cast

from engine.voltage.bots.determinize import Determinizer
from engine.voltage.bots.heuristics import evaluate, evaluate_world, win_chance
from engine.voltage.bots.policy import Planner
from engine.voltage.bots.value import ValueModel, win_chance_of_state
from engine.voltage.bots.value import load as load_value
from engine.voltage.rules import (
    OVER,
    SECOND,
    START,
    Action,
    Draw,
    Flip,
    Pass,
    Play,
    State,
    VoltageView,
    interned_actions,
    legal_actions,
    step,
)

# Action -> small int, the same for actions that differ only in card backs.
_KEYS: dict[Action, int] = {}
_KEY_BY_ID: dict[int, int] = {}


def action_key(a: Action) -> int:
    k = _KEY_BY_ID.get(id(a))
    if k is not None:
        return k
    k = _KEYS.get(a)
    if k is None:
        if isinstance(a, Play):
            tf = a.target.face if a.target is not None else 14
            k = 100 + ((a.card.face * 4 + a.terminal) * 2 + a.side) * 15 + tf
        elif isinstance(a, Flip):
            k = 2 + a.terminal
        elif isinstance(a, Draw):
            k = 0
        elif isinstance(a, Pass):
            k = 1
        else:  # Resign: never offered by legal_actions
            k = 10 + a.seat
        _KEYS[a] = k
    return k


# The same keys by identity for the engine's interned actions (the objects
# ``legal_actions`` returns; they live as long as the engine module), which is
# cheaper than hashing the action.  Any other object takes the hashed path above.
_KEY_BY_ID.update({id(a): action_key(a) for a in interned_actions()})


class Worlds(Protocol):
    """A source of worlds for a search: :meth:`sample` gives a state to play out (its own copy)."""

    def sample(self, rng: random.Random) -> State: ...


class FixedWorld:
    """One world, copied for each iteration: a tree searched in it is a perfect-information search."""

    __slots__ = ("state",)

    def __init__(self, state: State) -> None:
        self.state = state

    def sample(self, rng: random.Random) -> State:
        return self.state.copy()


class _Node:
    __slots__ = ("children", "n", "w", "avail", "mover")

    def __init__(self, mover: int) -> None:
        self.children: dict[int, _Node] = {}
        self.n = 0
        self.w = 0.0
        self.avail = 0
        self.mover = mover


class ISMCTSBot:
    """ISMCTS with a budget of ``iterations`` and/or ``time_budget`` seconds."""

    def __init__(
        self,
        seed: int | None = None,
        iterations: int | None = 1000,
        time_budget: float | None = None,
        exploration: float = 0.7,
        playout_turns: int = 1,
        prior_weight: float = 0.5,
        prior_depth: int = 2,
        leaf: str = "heuristic",
        trees: int = 1,
        width: int = 0,
        weights: str | None = None,
        pimc: bool = False,
        name: str = "ismcts",
    ) -> None:
        if iterations is None and time_budget is None:
            raise ValueError("ISMCTS needs a budget: iterations, time_budget or both")
        self.rng = random.Random(seed)
        self.iterations = iterations
        self.time_budget = time_budget
        self.exploration = exploration
        self.playout_turns = playout_turns
        self.prior_weight = prior_weight
        self.prior_depth = prior_depth
        if leaf not in LEAVES:
            raise ValueError(f"unknown leaf judgement {leaf!r}: choose from {', '.join(LEAVES)}")
        self.leaf = leaf
        if weights is not None and leaf != "value":
            raise ValueError("weights are the learned value's: they go with leaf='value'")
        self.weights = weights
        if trees < 1:
            raise ValueError("a search grows at least one tree")
        self.trees = trees
        if width < 0:
            raise ValueError("a search's width is a number of actions (0: all of them)")
        self.width = width
        self.pimc = pimc
        self.name = name
        self.last_iterations = 0  # iterations run by the last choose()

    def choose(self, view: VoltageView) -> Action:
        legal = view.legal
        if not legal:
            raise ValueError("the bot has no decision to make in this view")
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        return self.rank(view)[0][0]

    def rank(self, view: VoltageView, *, value_all: bool = False) -> list[tuple[Action, int, float]]:
        """Search ``view`` and give each legal action with its visits and its mean result for
        the seat to move (a chance to win, 0..1), the most visited first: the move
        :meth:`choose` plays (ties keep the view's order).  With ``trees`` > 1 the budget is
        shared by that many independent trees, and their root visits and results are summed.

        A narrow search (``width``) leaves some actions unsearched: no visits, and a result of 0
        unless ``value_all``, which judges each of them apart by the search's own playouts in
        as many sampled worlds as an action of a wide search would get (listed after the
        searched ones, best first): what hints and analysis need, and the move played is the same."""
        legal = view.legal
        if not legal:
            raise ValueError("the bot has no decision to make in this view")
        visits: dict[int, int] = {}
        results: dict[int, float] = {}
        done = 0
        for _ in range(self.trees):
            root = self.search(view, self.trees)
            done += self.last_iterations
            for k, child in root.children.items():
                visits[k] = visits.get(k, 0) + child.n
                results[k] = results.get(k, 0.0) + child.w
        self.last_iterations = done
        apart: dict[int, float] = {}
        if value_all:
            left = {action_key(a): a for a in legal if not visits.get(action_key(a))}
            if left:
                kinds = len({action_key(a) for a in legal})
                each = max(8, done // kinds)
                apart = self._judge_apart(view, left, each)
        out: list[tuple[Action, int, float]] = []
        for a in legal:  # the view's own objects, in the view's order
            k = action_key(a)
            n = visits.get(k, 0)
            out.append((a, n, results[k] / n if n else apart.get(k, 0.0)))
        order = sorted(range(len(out)), key=lambda i: (-out[i][1], 0.0 if out[i][1] else -out[i][2]))
        return [out[i] for i in order]

    def _judge_apart(self, view: VoltageView, actions: dict[int, Action], each: int) -> dict[int, float]:
        """Each action's mean result for the seat to move over ``each`` sampled worlds: the
        action, then the search's playout and judgement (no tree)."""
        det = self.worlds(view)
        judge = self.judge()
        me = view.seat
        out: dict[int, float] = {}
        for k in actions:
            total = 0.0
            for _ in range(each):
                s = det.sample(self.rng)
                same = next(a for a in legal_actions(s) if action_key(a) == k)
                step(s, same)
                v0 = judge(s, self.playout_turns)
                total += v0 if me == 0 else 1.0 - v0
            out[k] = total / each
        return out

    def judge(self) -> Callable[[State, int], float]:
        """How this search judges a leaf: ``LEAVES[leaf]``, or the value of its own ``weights``."""
        if self.weights is None:
            return LEAVES[self.leaf]
        return functools.partial(_judge_value, model=load_value(self.weights))

    def worlds(self, view: VoltageView) -> Worlds:
        """Where the search's worlds come from: states consistent with ``view``, sampled."""
        return Determinizer(view)

    def search(self, view: VoltageView, share: int = 1) -> _Node:
        """Grow a tree from ``view`` within the budget (divided by ``share``); return its root."""
        rng = self.rng
        rand = rng.random
        det = self.worlds(view)
        if self.pimc:
            det = FixedWorld(det.sample(rng))
        me = view.seat
        assert me is not None
        root = _Node(1 - me)
        # The one-turn planner's prices of the root actions, read from the view: a prior.
        w_prior = self.prior_weight
        prior_depth = self.prior_depth if w_prior else 0
        bias: dict[int, float] = {}
        if prior_depth:
            from engine.voltage.bots.greedy import view_planner

            prices = view_planner(view).values(view.legal)
            top = max(prices)
            price: dict[int, float] = {}
            for a, pv in zip(view.legal, prices, strict=True):
                k = action_key(a)
                price[k] = max(price.get(k, -1e9), pv)
            bias = {k: w_prior * (pv - top) for k, pv in price.items()}
        c = self.exploration
        width = self.width
        turns = self.playout_turns
        judge = self.judge()
        log = math.log
        sqrt = math.sqrt
        key = action_key
        limit = max(1, self.iterations // share) if self.iterations is not None else 1 << 60
        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget / share
        i = 0
        while i < limit:
            if deadline is not None and i & 7 == 0 and i and time.perf_counter() >= deadline:
                break
            i += 1
            s = det.sample(rng)
            node = root
            path = [root]
            # Selection, then expansion of one node.
            depth = 0
            while s.phase != OVER:
                legal = legal_actions(s)
                get = node.children.get
                keys = [key(a) for a in legal]
                prior: list[float] | None = None
                if depth < prior_depth:
                    if node is root:
                        prior = [bias[k] for k in keys]
                    else:
                        prices = Planner(s).values(legal)
                        top = max(prices)
                        prior = [w_prior * (pv - top) for pv in prices]
                depth += 1
                if prior is not None and width and len(legal) > width:
                    # Only the planner's ``width`` favourites are searched here (one action per key).
                    top_j = []
                    seen: set[int] = set()
                    for j in sorted(range(len(legal)), key=prior.__getitem__, reverse=True):
                        if keys[j] not in seen:
                            seen.add(keys[j])
                            top_j.append(j)
                            if len(top_j) == width:
                                break
                    legal = [legal[j] for j in top_j]
                    keys = [keys[j] for j in top_j]
                    prior = [prior[j] for j in top_j]
                kids = [get(k) for k in keys]
                if None in kids:
                    untried = [j for j, ch in enumerate(kids) if ch is None]
                    if prior is None:
                        j = untried[int(rand() * len(untried))]
                    else:  # the planner's favourite first
                        j = max(untried, key=prior.__getitem__)
                    child = _Node(s.to_move)
                    node.children[keys[j]] = child
                    kids[j] = child
                    for ch in kids:
                        if ch is not None:
                            ch.avail += 1
                    step(s, legal[j])
                    path.append(child)
                    break
                best_j = 0
                best_u = -1e18
                tried = cast("list[_Node]", kids)  # every child exists: the branch above breaks otherwise
                for j, ch in enumerate(tried):
                    ch.avail += 1
                    n = ch.n
                    u = ch.w / n + c * sqrt(log(ch.avail) / n)
                    if prior is not None:
                        u += prior[j] / (n + 1)
                    if u > best_u:
                        best_u = u
                        best_j = j
                node = tried[best_j]
                step(s, legal[best_j])
                path.append(node)
            v0 = judge(s, turns)  # the chance that seat 0 wins
            v1 = 1.0 - v0
            for nd in path:
                nd.n += 1
                nd.w += v1 if nd.mover else v0
        self.last_iterations = i
        return root


def _playout(s: State, turns: int) -> None:
    """Play ``turns`` more turn ends by the one-turn planner."""
    if turns:
        end = s.turns + turns
        while s.phase != OVER and s.turns < end:
            if s.phase == START:
                first, second = Planner(s).best_plan(legal_actions(s))
                step(s, first)
                if second is not None and s.phase == SECOND:
                    step(s, second)
            else:
                step(s, Planner(s).best())


def _judge(s: State, turns: int) -> float:
    """Play ``turns`` more turns, then judge by the heuristic: seat 0's chance."""
    _playout(s, turns)
    if s.phase == OVER:
        if s.winner is None:
            return 0.5
        return 1.0 if s.winner == 0 else 0.0
    return win_chance(evaluate(s, 0), s.scores, 0)


def _judge_value(s: State, turns: int, model: ValueModel | None = None) -> float:
    """Play ``turns`` more turns, then judge by the learned value (``model``, else the shipped
    one): seat 0's chance."""
    _playout(s, turns)
    return win_chance_of_state(s, model)


def _judge_world(s: State, turns: int) -> float:
    """Play ``turns`` more turns, then judge the sampled world with both hands known."""
    _playout(s, turns)
    if s.phase == OVER:
        if s.winner is None:
            return 0.5
        return 1.0 if s.winner == 0 else 0.0
    return win_chance(evaluate_world(s, 0), s.scores, 0)


#: How a search judges the position its playout reached.
LEAVES: dict[str, Callable[[State, int], float]] = {
    "heuristic": _judge,
    "value": _judge_value,
    "world": _judge_world,
}


__all__ = ["FixedWorld", "ISMCTSBot", "Worlds", "action_key"]
