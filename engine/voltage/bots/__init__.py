"""Bots: each chooses an action from what its seat may know (a view), never the state.

A bot is an object with ``name`` and ``choose(view) -> action``; ``make_bot(name, seed)``
builds one by name.  ``BOT_NAMES`` lists the names that exist; ``STRENGTHS`` lists
the four strengths offered to players, weakest first.

- ``random``: uniform over the legal actions.
- ``greedy``: one turn of lookahead with a static judgement (:mod:`.greedy`).
- ``ismcts``: information-set Monte Carlo tree search (:mod:`.ismcts`).

The arena has more (:data:`ARENA_BOTS`): the earlier Hard and Expert, and the oracles
(:data:`ORACLE_BOTS`, :mod:`.oracle`), the same searches shown the true state: a measuring
stick for what the hidden cards cost, never offered to players.

A server that thinks in a process pool calls :func:`choose_action` with the
bot's name, a seed, the view and a deadline (:data:`THINK_CAPS`); it builds the
bot in the worker.

For hints and analysis, :func:`evaluate` gives the chance that a view's seat wins
(the learned value of :mod:`.value`), and :func:`rank` every legal action with the
Expert's search result for it, best first.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

from engine.voltage.rules import Action, VoltageView


class Bot(Protocol):
    name: str

    def choose(self, view: VoltageView) -> Action: ...


class RandomBot:
    """Uniform over the legal actions in its view."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: VoltageView) -> Action:
        if not view.legal:
            raise ValueError("the bot has no decision to make in this view")
        return self.rng.choice(view.legal)


class Strength(NamedTuple):
    """A bot strength offered to players: its bot name, a label and one line about it."""

    name: str
    label: str
    description: str


STRENGTHS: tuple[Strength, ...] = (
    Strength("easy", "Easy", "Greedy, but a third of its moves are random."),
    Strength("medium", "Medium", "Greedy: always the best-looking move of its own turn."),
    Strength("hard", "Hard", "Searches 1,000 imagined deals per move (about ¼ s)."),
    Strength("expert", "Expert", "Searches 3,000 imagined deals, 3 turns deep (~1 s)."),
)

EASY_NOISE = 1 / 3
#: Hard and Expert search with playouts three turns past the tree, the depth that made
#: the first Expert stronger (at 250 iterations against the same search with one-turn
#: playouts, 0 turns won 39%, 2 turns 67%, 3 turns 70%, 6 turns 52%: 100 matches each),
#: while more iterations alone did not (8,000 one-turn iterations against 1,000 won 46%
#: of 200).  Hard: 700 iterations, three turns deep: 51 of 80 against the first Hard
#: (1,000 one-turn iterations; deals 9100-9139, both seats), against Medium 77 of 100
#: (deals 9200-9249) and 133 of 200 (``voltage arena --players hard,medium --games 200
#: --seed 20000``): 210 of 300, 70.0%, 95% Wilson 64.6%-74.9%.  Later, on deals 60000-60285
#: and 61000-61177 (two 1,000-match runs stopped on a busy machine): 650 of 926, 70.2%,
#: 95% Wilson 67.2%-73.1%.  Then 1,000 whole (``voltage arena --players hard,medium --games 1000
#: --seed 62000 --workers 2``: 500 deals, both seats): 735 of 1,000, 73.5%, 95% Wilson
#: 70.7%-76.1%, Hard's median think 100 ms (p95 152 ms).
PLAYOUT_TURNS = 3
HARD_ITERATIONS = 700
#: Expert spends four times Hard's budget as four independent trees of Hard's size,
#: whose root visits are summed (one deeper tree of 3,000 iterations, the first Expert,
#: won only 56.8% of 400 against the first Hard, less than one tree of 700 did).  It is
#: not yet stronger than Hard: 29 of 57 (``voltage arena --players expert,hard --games 80
#: --seed 30000``, stopped early on a busy machine), 50.9%, 95% Wilson 38.3%-63.4%.
#: Nor were these, with the same budget, against Hard (runs stopped on a busy machine):
#: one narrow tree (``width=5``: only the planner's five favourite moves where it prices
#: them) 17 of 39 (7 of 10 from deals 52000-52004, 8 of 21 from 70000-70010, 2 of 8 from
#: 71000-71003), 43.6%; one wide tree judging its leaves by both sampled hands
#: (``leaf="world"``) 5 of 10; 2,000 iterations with five-turn playouts 6 of 10.  At Hard's
#: budget, ``leaf="world"`` won 25 of 50 and ``leaf="value"`` 9 of 20 against Hard.
#: Not the game's luck: the same search over the true state (``expert-oracle``) beat Hard
#: 83 of 100 (deals 70000-70049, both seats), 95% Wilson 74.5%-89.1%; knowing only the other
#: hand, Hard's search beat Hard 102 of 158, 64.6% (56.8%-71.6%), then 260 of 400 (``voltage arena
#: --players hard-oracle-hand,hard --games 400 --seed 131000 --workers 2``, stopped at 10 and resumed
#: from 131005; deals 131000-131199): together 362 of 558, 64.9% (60.8%-68.7%), which is the 65%
#: asked of Expert: what perfect inference of Hard's hand could give this search.  Expert judging leaves by
#: a value learned from 160 Hard self-play matches (``leaf="value"``, ``weights=``, one-turn
#: playouts) won 30 of 52 against Hard, 57.7% (44.2%-70.1%): not clearly ahead, so dropped.
#: Nor is memory: Expert's search with the discard pile remembered (``expert-oracle-discard``,
#: every card under the top known, the opponent's hand and the draw pile still sampled) won
#: 23 of 44 against Hard (deals 81000-81021, both seats; stopped), 52.3%.
EXPERT_ITERATIONS = 2800
EXPERT_TREES = 4
EXPERT_PLAYOUT_TURNS = PLAYOUT_TURNS
#: The search bots' iterations per move.
ITERATIONS: dict[str, int] = {"ismcts": 1000, "hard": HARD_ITERATIONS, "expert": EXPERT_ITERATIONS}
#: The longest a search bot thinks when a player waits for it, in seconds from the
#: moment the move was asked for (time queued for a busy worker included).  Well above
#: the usual time on one core (p95 of CPU time: Hard 0.19 s, Expert 0.75 s), so a
#: move is cut short only on a busy or slow machine, where a weaker move beats a wait.
THINK_CAPS: dict[str, float] = {"ismcts": 1.0, "hard": 1.0, "expert": 3.0}
#: The least time a capped search gets, even when the deadline has passed in the queue.
MIN_THINK = 0.05


def _random(seed: int | None, **kw: Any) -> Bot:
    _no_options("random", kw)
    return RandomBot(seed)


def _greedy(name: str, noise: float) -> Callable[..., Bot]:
    def build(seed: int | None, **kw: Any) -> Bot:
        from engine.voltage.bots.greedy import GreedyBot

        _no_options(name, kw)
        return GreedyBot(seed, noise=noise, name=name)

    return build


def _searcher(kind: str, name: str, default_iterations: int, **defaults: Any) -> Callable[..., Bot]:
    """A factory of a search bot (``kind``: ``"ismcts"``, or ``"oracle"`` for the measuring sticks),
    imported when first built: the default budget unless one is given, the options over ``defaults``."""
    def build(
        seed: int | None,
        iterations: int | None = None,
        time_budget: float | None = None,
        **kw: Any,
    ) -> Bot:
        cls: Callable[..., Bot]
        if kind == "oracle":
            from engine.voltage.bots.oracle import OracleBot

            cls = OracleBot
        elif kind == "infer":
            from engine.voltage.bots.infer import InferBot

            cls = InferBot
        else:
            from engine.voltage.bots.ismcts import ISMCTSBot

            cls = ISMCTSBot

        if iterations is None and time_budget is None:
            iterations = default_iterations
        kw = {**defaults, **{k: v for k, v in kw.items() if v is not None}}
        return cls(seed, iterations=iterations, time_budget=time_budget, name=name, **kw)

    return build


def _ismcts(name: str, default_iterations: int, **defaults: Any) -> Callable[..., Bot]:
    return _searcher("ismcts", name, default_iterations, **defaults)


def _no_options(name: str, kw: dict[str, Any]) -> None:
    given = sorted(k for k, v in kw.items() if v is not None)
    if given:
        raise ValueError(f"bot {name!r} takes no options ({', '.join(given)} given)")


_FACTORIES: dict[str, Callable[..., Bot]] = {
    "random": _random,
    "greedy": _greedy("greedy", 0.0),
    "ismcts": _ismcts("ismcts", ITERATIONS["ismcts"]),  # the class's defaults: one-turn playouts
    "easy": _greedy("easy", EASY_NOISE),
    "medium": _greedy("medium", 0.0),
    "hard": _ismcts("hard", ITERATIONS["hard"], playout_turns=PLAYOUT_TURNS),
    "expert": _ismcts("expert", ITERATIONS["expert"], playout_turns=PLAYOUT_TURNS, trees=EXPERT_TREES),
}
BOT_NAMES: tuple[str, ...] = tuple(_FACTORIES)
#: The search as Hard and Expert first shipped it, every setting pinned: arena entrants
#: only (never offered to players, never given a seat), to measure a new strength against.
V1_SEARCH: dict[str, Any] = {"exploration": 0.7, "prior_weight": 0.5, "prior_depth": 2, "leaf": "heuristic"}
#: The second Hard and Expert (700 iterations, three-turn playouts; Expert as four such trees).
V2_SEARCH: dict[str, Any] = {**V1_SEARCH, "playout_turns": 3}
ARENA_BOTS: dict[str, Callable[..., Bot]] = {
    "hard-v1": _ismcts("hard-v1", 1000, playout_turns=1, **V1_SEARCH),
    "expert-v1": _ismcts("expert-v1", 3000, playout_turns=3, **V1_SEARCH),
    "hard-v2": _ismcts("hard-v2", 700, **V2_SEARCH),
    "expert-v2": _ismcts("expert-v2", 2800, trees=4, **V2_SEARCH),
    # Perfect-information Monte Carlo: Expert's budget as 28 trees of 100 iterations, each
    # searching one sampled world as if it were the truth.  Worse than Hard: 12 of 30
    # (``voltage arena --players expert-pimc,hard --games 100 --seed 80000``, stopped at 30).
    "expert-pimc": _ismcts("expert-pimc", 2800, playout_turns=PLAYOUT_TURNS, trees=28, pimc=True),
}


def _oracle(name: str, default_iterations: int, **defaults: Any) -> Callable[..., Bot]:
    return _searcher("oracle", name, default_iterations, **defaults)


#: Measuring sticks, not opponents (:mod:`.oracle`): Hard's and Expert's search, same budget,
#: over the true state the arena shows them (``-hand``: the opponent's real hand, the piles
#: unknown).  They cheat, so they are arena entrants only and refuse to move without the state.
ORACLE_BOTS: dict[str, Callable[..., Bot]] = {
    "hard-oracle": _oracle("hard-oracle", HARD_ITERATIONS, playout_turns=PLAYOUT_TURNS),
    "expert-oracle": _oracle("expert-oracle", EXPERT_ITERATIONS, playout_turns=PLAYOUT_TURNS, trees=EXPERT_TREES),
    "expert-oracle-discard": _oracle(
        "expert-oracle-discard", EXPERT_ITERATIONS, playout_turns=PLAYOUT_TURNS, trees=EXPERT_TREES, sight="discard"
    ),
    "hard-oracle-hand": _oracle("hard-oracle-hand", HARD_ITERATIONS, playout_turns=PLAYOUT_TURNS, sight="hand"),
    "expert-oracle-hand": _oracle(
        "expert-oracle-hand", EXPERT_ITERATIONS, playout_turns=PLAYOUT_TURNS, trees=EXPERT_TREES, sight="hand"
    ),
}
ARENA_BOTS.update(ORACLE_BOTS)
#: Hard's and Expert's search with worlds weighted by the opponent's past choices (:mod:`.infer`):
#: they keep the public history of the match, which the arena gives them (``observe``).  Each
#: move, 200 sampled opponent hands are weighted by the likelihood of the opponent's decisions
#: of its last 3 turns under a softmax (temperature 0.2, epsilon 0.1) of the planner's prices,
#: the hand rebuilt back through the history.  The model fits Hard poorly: the planner's
#: favourite is Hard's choice in only 36% of 321 decisions, and the true hand's log likelihood
#: beats a sampled hand's by only 0.44 nats on average (0.18 for the last turn alone; 49
#: decisions of 3 Hard self-play matches, deals 800-802), so the weights say little.
#: ``hard-infer`` against Hard: 21 of 40 (``voltage arena --players hard-infer,hard --games 40
#: --seed 91000 --workers 2``), 52.5%, 95% Wilson 37.5%-67.1%; think median 422 ms against
#: Hard's 335 ms, p95 676 against 540 (a machine loaded about 2.5 times over its two cores).
#: ``expert-infer`` against Hard (``voltage arena --players expert-infer,hard --games 400 --seed
#: 90000 --workers 2``, not finished: the run died at 231 matches, deals 90000-90115, 114 won;
#: resumed with ``--games 168 --seed 90116`` and stopped at 124, deals 90116-90177, 71 won):
#: 185 of 355, 52.1%, 95% Wilson 46.9%-57.3%: no better than Expert.  Think (4 matches, deals
#: 95000-95001, an idle machine): median 363 ms, p95 461 ms (Hard's 87 and 114).
INFER_BOTS: dict[str, Callable[..., Bot]] = {
    "hard-infer": _searcher("infer", "hard-infer", HARD_ITERATIONS, playout_turns=PLAYOUT_TURNS),
    "expert-infer": _searcher(
        "infer", "expert-infer", EXPERT_ITERATIONS, playout_turns=PLAYOUT_TURNS, trees=EXPERT_TREES
    ),
}
ARENA_BOTS.update(INFER_BOTS)
ITERATIONS.update({"hard-infer": HARD_ITERATIONS, "expert-infer": EXPERT_ITERATIONS})
ITERATIONS.update({"hard-v1": 1000, "expert-v1": 3000, "hard-v2": 700, "expert-v2": 2800, "expert-pimc": 2800})
ITERATIONS.update({"hard-oracle": HARD_ITERATIONS, "expert-oracle": EXPERT_ITERATIONS})
ITERATIONS.update({"expert-oracle-discard": EXPERT_ITERATIONS})
ITERATIONS.update({"hard-oracle-hand": HARD_ITERATIONS, "expert-oracle-hand": EXPERT_ITERATIONS})
SEARCH_BOTS = frozenset({"ismcts", "hard", "expert", *ARENA_BOTS})


def make_bot(name: str, seed: int | None = None, **options: Any) -> Bot:
    """Build the bot called ``name`` (see ``BOT_NAMES``, and ``ARENA_BOTS`` for the arena).

    Search bots take ``iterations=`` and ``time_budget=`` (seconds); a time
    budget alone replaces the default iteration budget, and given both, the
    search stops at whichever comes first.  Options a bot does not take are an
    error, except ``None`` values, which mean "the default".
    """
    factory = _FACTORIES.get(name) or ARENA_BOTS.get(name)
    if factory is None:
        raise ValueError(f"unknown bot {name!r}: choose from {', '.join(BOT_NAMES)}")
    return factory(seed, **options)


def evaluate(view: VoltageView) -> float:
    """The chance that the seat of ``view`` wins the match (0..1), by the learned value
    (:mod:`engine.voltage.bots.value`); it reads only what that seat may know."""
    from engine.voltage.bots.value import evaluate as value

    return value(view)


def rank(
    view: VoltageView, seed: int = 0, *, bot: str = "expert", iterations: int | None = None
) -> list[tuple[Action, float]]:
    """Every legal action of ``view`` with the search's chance to win after it for the seat
    to move, the move ``bot`` plays first, then by visits (the search's confidence).  A pure
    function of (view, seed, bot, iterations): the same for any arrangement of the unseen cards."""
    from engine.voltage.bots.ismcts import ISMCTSBot

    searcher = make_bot(bot, seed, iterations=iterations)
    if not isinstance(searcher, ISMCTSBot):
        raise ValueError(f"bot {bot!r} does not search: rank with one of {', '.join(sorted(SEARCH_BOTS))}")
    return [(a, value) for a, _, value in searcher.rank(view, value_all=True)]


def choose_action(
    bot_name: str, seed: int, view: VoltageView, *, deadline: float | None = None, **options: Any
) -> Action:
    """Build the bot ``bot_name`` from ``seed`` and let it choose in ``view``.

    ``deadline`` (a ``time.time()``) bounds a search bot's thinking: it keeps its
    iterations but stops at the deadline, or after :data:`MIN_THINK` if that has
    passed already.  A top-level function, so a process pool can run it in a worker.
    """
    if deadline is not None and bot_name in SEARCH_BOTS:
        options.setdefault("iterations", ITERATIONS[bot_name])
        options["time_budget"] = max(MIN_THINK, deadline - time.time())
    return make_bot(bot_name, seed, **options).choose(view)


__all__ = [
    "ARENA_BOTS",
    "ORACLE_BOTS",
    "INFER_BOTS",
    "BOT_NAMES",
    "evaluate",
    "rank",
    "Bot",
    "EXPERT_PLAYOUT_TURNS",
    "EXPERT_TREES",
    "PLAYOUT_TURNS",
    "ITERATIONS",
    "RandomBot",
    "STRENGTHS",
    "Strength",
    "THINK_CAPS",
    "choose_action",
    "make_bot",
]
