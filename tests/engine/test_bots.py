"""Bots: legal, honest, within budget, and the greedy bot beats the random one."""

from __future__ import annotations

import dataclasses
import pickle
import random
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from engine.voltage import rules as V
from engine.voltage.arena import parse_entrant, run_arena, run_match, wilson
from engine.voltage.bots import (
    BOT_NAMES,
    EXPERT_PLAYOUT_TURNS,
    EXPERT_TREES,
    ITERATIONS,
    MIN_THINK,
    STRENGTHS,
    RandomBot,
    choose_action,
    make_bot,
)
from engine.voltage.bots.ismcts import ISMCTSBot, action_key
from engine.voltage.cards import CARD_TRANSFORMER, Card

# Small search budgets keep the tests quick; the search code is the same.
FAST = {"ismcts": {"iterations": 40}, "hard": {"iterations": 30}, "expert": {"iterations": 50}}


def bot(name: str, seed: int = 7):
    return make_bot(name, seed, **FAST.get(name, {}))


def _midgame_states(n: int, seed: int = 0) -> list[V.State]:
    """States of random matches at a decision with a real choice, some in each phase."""
    rng = random.Random(seed)
    out: list[V.State] = []
    match_seed = seed * 1000
    while len(out) < n:
        s = V.new_match(match_seed)
        match_seed += 1
        while s.phase != V.OVER:
            legal = V.legal_actions(s)
            if len(legal) > 1 and rng.random() < 0.08:
                out.append(s.copy())
            V.step(s, rng.choice(legal))
    return out[:n]


def _hide_differently(s: V.State, rng: random.Random) -> V.State:
    """The same state as ``s`` seen from the player to move, with everything that
    player cannot see changed: the opponent's hand and the draw pile swap cards
    (each for one with the same back), the draw order and the discards under the
    top card are shuffled, and the seed (which orders reshuffles) is new."""
    t = s.copy()
    opp = 1 - t.to_move
    hidden = t.hands[opp] + t.draw[:-1] + t.discard[:-1]
    by_back: dict[bool, list[int]] = {True: [], False: []}
    for c in hidden:
        by_back[CARD_TRANSFORMER[c]].append(c)
    for pool in by_back.values():
        rng.shuffle(pool)
    # The opponent's hand keeps its backs in place; the draw pile keeps its top card's back.
    t.hands[opp] = [by_back[CARD_TRANSFORMER[c]].pop() for c in t.hands[opp]]
    rest = by_back[True] + by_back[False]
    rng.shuffle(rest)
    n_draw = max(len(t.draw) - 1, 0)
    t.draw = rest[:n_draw] + t.draw[-1:]
    t.discard = rest[n_draw:] + t.discard[-1:]
    t.seed = s.seed + 12345
    return t


def test_every_bot_name_builds_and_unknown_names_fail():
    for name in BOT_NAMES:
        assert make_bot(name, 1).name == name
    with pytest.raises(ValueError):
        make_bot("grandmaster", 1)
    with pytest.raises(ValueError):
        make_bot("greedy", 1, iterations=10)


def test_strengths_are_offered_in_order_with_labels():
    assert [s.name for s in STRENGTHS] == ["easy", "medium", "hard", "expert"]
    for s in STRENGTHS:
        assert s.name in BOT_NAMES and s.label and s.description


@pytest.mark.parametrize("name", BOT_NAMES)
def test_every_bot_returns_a_legal_action(name):
    b = bot(name)
    states = _midgame_states(30 if name in FAST else 300, seed=hash(name) % 100)
    phases = set()
    for s in states:
        v = V.view(s, s.to_move)
        a = b.choose(v)
        assert a in v.legal
        V.check(s, a, s.to_move)
        phases.add(s.phase)
    assert phases == {V.START, V.SECOND, V.FLIP}


@pytest.mark.parametrize("name", BOT_NAMES)
def test_bots_are_honest(name):
    """Two states that differ only in what the bot cannot see get the same action."""
    rng = random.Random(11)
    differing = 0
    for s in _midgame_states(15 if name in FAST else 120, seed=3):
        seat = s.to_move
        t = _hide_differently(s, rng)
        assert V.view(t, seat) == V.view(s, seat)
        differing += t.hands[1 - seat] != s.hands[1 - seat] or t.draw != s.draw
        assert bot(name, 5).choose(V.view(s, seat)) == bot(name, 5).choose(V.view(t, seat))
    assert differing > 8


def test_search_is_a_function_of_seed_and_view():
    s = _midgame_states(1, seed=9)[0]
    v = V.view(s, s.to_move)
    assert bot("ismcts", 3).choose(v) == bot("ismcts", 3).choose(v)


def test_search_budget_in_iterations_is_respected():
    s = _midgame_states(1, seed=4)[0]
    v = V.view(s, s.to_move)
    b = ISMCTSBot(1, iterations=123)
    root = b.search(v)
    assert b.last_iterations == 123
    assert sum(c.n for c in root.children.values()) == 123
    b.choose(v)
    assert b.last_iterations == 123


def test_search_budget_in_time_stops_early():
    s = _midgame_states(1, seed=4)[0]
    v = V.view(s, s.to_move)
    b = make_bot("ismcts", 1, time_budget=0.02)
    b.choose(v)
    assert 0 < b.last_iterations < 10**6  # stopped by the clock, not by an iteration count
    both = make_bot("ismcts", 1, iterations=50, time_budget=60.0)
    both.choose(v)
    assert both.last_iterations == 50


def test_strength_budgets_grow():
    assert make_bot("hard", 1).iterations < make_bot("expert", 1).iterations
    assert make_bot("hard", 1, iterations=10).iterations == 10


def test_forced_moves_cost_no_search():
    s = _midgame_states(1, seed=2)[0]
    v = V.view(s, s.to_move)
    forced = dataclasses.replace(v, legal=v.legal[-1:])
    b = ISMCTSBot(1, iterations=20)
    assert b.choose(forced) == v.legal[-1]
    assert b.last_iterations == 0


def test_choose_action_runs_in_a_worker_process():
    s = _midgame_states(1, seed=6)[0]
    v = pickle.loads(pickle.dumps(V.view(s, s.to_move)))
    with ProcessPoolExecutor(1) as pool:
        a = pool.submit(choose_action, "hard", 2, v, iterations=30).result(timeout=60)
    assert a in v.legal
    assert a == choose_action("hard", 2, v, iterations=30)


def test_a_deadline_bounds_the_search_and_keeps_its_iterations(monkeypatch):
    s = _midgame_states(1, seed=6)[0]
    v = V.view(s, s.to_move)
    budgets = []
    choose = ISMCTSBot.choose

    def spy(self, view):
        action = choose(self, view)
        budgets.append((self.iterations, self.time_budget, self.last_iterations))
        return action

    monkeypatch.setattr(ISMCTSBot, "choose", spy)
    # No deadline: the bot as the arena measures it.
    assert choose_action("hard", 2, v) == make_bot("hard", 2).choose(v)
    assert budgets[0] == (ITERATIONS["hard"], None, ITERATIONS["hard"])
    # A deadline long gone (the move waited in a busy queue): a short search still answers.
    a = choose_action("expert", 2, v, deadline=time.time() - 30)
    assert a in v.legal
    iterations, budget, ran = budgets[-1]
    assert iterations == ITERATIONS["expert"] and budget == MIN_THINK and 0 < ran < ITERATIONS["expert"]
    # A deadline far off: the iterations end the search, as without one.
    assert choose_action("hard", 2, v, deadline=time.time() + 3600) == make_bot("hard", 2).choose(v)
    assert budgets[-1][0] == ITERATIONS["hard"] and budgets[-1][2] == ITERATIONS["hard"]
    # Greedy bots take no budget, and a deadline does not give them one.
    assert choose_action("medium", 2, v, deadline=time.time()) in v.legal


def test_expert_grows_more_trees_than_hard_at_any_budget():
    s = _midgame_states(1, seed=8)[0]
    v = V.view(s, s.to_move)
    hard, expert = make_bot("hard", 3), make_bot("expert", 3)
    assert (hard.playout_turns, expert.playout_turns) == (EXPERT_PLAYOUT_TURNS,) * 2 and EXPERT_PLAYOUT_TURNS > 1
    assert (hard.trees, expert.trees) == (1, EXPERT_TREES) and EXPERT_TREES > 1
    assert expert.iterations == EXPERT_TREES * hard.iterations
    # "expert:200" in the arena is Expert with fewer iterations (shared by its trees), not Hard renamed.
    name, options = parse_entrant("expert:200")
    small = make_bot(name, 3, **options)
    assert (small.iterations, small.playout_turns, small.trees) == (200, EXPERT_PLAYOUT_TURNS, EXPERT_TREES)
    twin = ISMCTSBot(3, iterations=200, playout_turns=EXPERT_PLAYOUT_TURNS, trees=EXPERT_TREES, name="expert")
    assert small.choose(v) == twin.choose(v)
    assert twin.last_iterations == 200
    # An explicit depth still wins over the strength's.
    assert make_bot("expert", 3, playout_turns=2).playout_turns == 2


def test_trees_share_the_budget_and_sum_their_visits():
    s = _midgame_states(1, seed=10)[0]
    v = V.view(s, s.to_move)
    ranked = ISMCTSBot(5, iterations=90, trees=3).rank(v)
    assert sum(n for _, n, _ in ranked) == 90
    with pytest.raises(ValueError):
        ISMCTSBot(5, iterations=90, trees=0)


def test_random_bot_stays_importable_where_it_was():
    v = V.view(V.new_match(1), V.new_match(1).to_move)
    assert RandomBot(1).choose(v) in v.legal


def test_greedy_beats_random():
    summary = run_arena(("greedy", "random"), 100, seed=500)
    assert summary.matches == 100
    assert summary.wins[0] >= 75, summary.lines()


def test_easy_beats_random_and_loses_to_medium():
    easy = run_arena(("easy", "random"), 40, seed=600)
    assert easy.wins[0] >= 28, easy.lines()
    medium = run_arena(("medium", "easy"), 40, seed=700)
    assert medium.wins[0] >= 24, medium.lines()


def test_arena_plays_each_deal_from_both_seats():
    results = []
    summary = run_arena(("greedy", "random"), 6, seed=40, on_result=results.append)
    assert [r.seed for r in results] == [40, 40, 41, 41, 42, 42]
    assert [r.players for r in results[:2]] == [("greedy", "random"), ("random", "greedy")]
    assert [r.entrants for r in results[:2]] == [(0, 1), (1, 0)]
    assert sum(summary.wins) + summary.draws == 6
    n, mean, median, p95 = summary.think_stats(0)
    assert n > 0 and 0 < median <= p95
    assert summary.as_json()["entrants"][0]["wilson95"][0] <= summary.win_rate(0)


def test_arena_in_a_pool_matches_the_arena_in_process():
    a, b = [], []
    run_arena(("greedy", "random"), 4, seed=8, on_result=lambda r: a.append(r.as_json()))
    run_arena(("greedy", "random"), 4, seed=8, on_result=lambda r: b.append(r.as_json()), workers=2)
    assert a == b


def test_run_match_with_a_search_budget_in_the_entrant():
    assert parse_entrant("ismcts:7") == ("ismcts", {"iterations": 7})
    assert parse_entrant("hard", {"iterations": 9, "time_budget": None}) == ("hard", {"iterations": 9})
    assert parse_entrant("greedy", {"iterations": 9}) == ("greedy", {})
    with pytest.raises(ValueError):
        parse_entrant("greedy:5")
    r = run_match(("ismcts:5", "random"), 3)
    assert r.winner in (0, 1, None)


def test_wilson_interval():
    lo, hi = wilson(60, 100)
    assert lo == pytest.approx(0.502, abs=1e-3) and hi == pytest.approx(0.691, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(100, 100)
    assert hi == 1.0 and lo > 0.96


def _brute_force_turn_values(state: V.State, p: float) -> list[float]:
    """The planner's prices, the slow way: step every plan of the turn on copies and
    judge each end position whole (draws priced as the planner does)."""
    from engine.voltage.bots.heuristics import HAND_CARD, WIN_VALUE, evaluate

    seat = state.to_move
    base = evaluate(state, seat, False)

    def judged(s: V.State) -> float:
        v = evaluate(s, seat, False)
        return v if abs(v) >= WIN_VALUE else v - base

    def draw(s: V.State, n: int) -> float:
        if not s.draw and not s.discard:
            return judged(s)
        first = (1.0 if CARD_TRANSFORMER[s.draw[-1]] else 0.0) if s.draw else p
        here = evaluate(s, seat, False)
        flips = []
        for t in range(4):
            s.plus[t] = not s.plus[t]
            flips.append(evaluate(s, seat, False) - here)
            s.plus[t] = not s.plus[t]
        return judged(s) + n * HAND_CARD + (first + p * (n - 1)) * max(flips)

    out = []
    for a in V.legal_actions(state):
        s = state.copy()
        if isinstance(a, V.Flip):
            s.plus[a.terminal] = not s.plus[a.terminal]
            out.append(judged(s))
        elif isinstance(a, V.Draw):
            out.append(draw(s, 2 if s.phase == V.START else 1))
        else:
            V.step(s, a)
            if s.phase != V.SECOND:
                out.append(judged(s))
                continue
            best = draw(s, 1)
            for b in V.legal_actions(s):
                if isinstance(b, V.Play):
                    s2 = s.copy()
                    V.step(s2, b)
                    best = max(best, judged(s2))
            out.append(best)
    return out


def test_planner_prices_every_plan_like_brute_force():
    from engine.voltage.bots.policy import Planner

    compared = 0
    for s in _midgame_states(150, seed=12):
        fast = Planner(s, 0.3).values()
        slow = _brute_force_turn_values(s, 0.3)
        assert fast == pytest.approx(slow, abs=1e-9)
        compared += len(fast)
    assert compared > 500


def test_planner_best_plan_is_a_legal_turn():
    from engine.voltage.bots.policy import Planner

    two_cards = 0
    for s in _midgame_states(150, seed=13):
        legal = V.legal_actions(s)
        first, second = Planner(s, 0.3).best_plan(legal)
        assert first == Planner(s, 0.3).best(legal)
        if s.phase != V.START or not isinstance(first, V.Play):
            assert second is None
            continue
        s = s.copy()
        V.step(s, first)
        if s.phase == V.SECOND:
            assert second in V.legal_actions(s)
            two_cards += isinstance(second, V.Play)
    assert two_cards > 10


def test_search_without_planner_prior_still_searches():
    s = _midgame_states(1, seed=14)[0]
    view = V.view(s, s.to_move)
    b = ISMCTSBot(3, iterations=60, prior_weight=0.0)
    assert b.choose(view) in view.legal


def test_a_narrow_search_spends_its_budget_on_the_planners_favourites():
    from engine.voltage.bots.greedy import view_planner

    views = [V.view(s, s.to_move) for s in _midgame_states(40, seed=15)]
    wide = [v for v in views if len({action_key(a) for a in v.legal}) > 4][:5]
    assert wide
    for v in wide:
        prices = dict(zip(v.legal, view_planner(v).values(v.legal), strict=True))
        ranked = ISMCTSBot(3, iterations=120, width=3).rank(v)
        searched = [a for a, n, _ in ranked if n]
        assert 0 < len({action_key(a) for a in searched}) <= 3
        # Every searched move is priced at least as high as every move left out.
        assert min(prices[a] for a in searched) >= max(prices[a] for a, n, _ in ranked if not n) - 1e-9
        assert sum({action_key(a): n for a, n, _ in ranked}.values()) == 120
    with pytest.raises(ValueError):
        ISMCTSBot(3, iterations=10, width=-1)


def test_a_narrow_search_judges_the_moves_it_left_out_for_hints_and_analysis():
    from engine.voltage.bots import rank

    views = [V.view(s, s.to_move) for s in _midgame_states(40, seed=16)]
    wide = [v for v in views if len({action_key(a) for a in v.legal}) > 4][:3]
    assert wide
    for v in wide:
        narrow = ISMCTSBot(4, iterations=100, width=2)
        plain = narrow.rank(v)
        judged = ISMCTSBot(4, iterations=100, width=2).rank(v, value_all=True)
        # The searched moves, their visits and results, and so the move played, are the same.
        assert [x for x in judged if x[1]] == [x for x in plain if x[1]]
        left_out = [x for x in judged if not x[1]]
        assert left_out and all(0.0 <= value <= 1.0 for _, _, value in left_out)
        assert [value for _, _, value in left_out] == sorted((value for _, _, value in left_out), reverse=True)
        assert sum(value for _, _, value in left_out) > 0  # judged, not the unsearched 0
        # The public rank: Expert's move first, every legal move with a chance.
        ranked = rank(v, 4, iterations=100)
        assert ranked[0][0] == make_bot("expert", 4, iterations=100).choose(v)
        assert {action_key(a) for a, _ in ranked} == {action_key(a) for a in v.legal}


def test_the_earlier_hard_and_expert_stay_in_the_arena_only_with_their_settings_pinned():
    from engine.voltage.bots import ARENA_BOTS, INFER_BOTS, ORACLE_BOTS

    assert set(ARENA_BOTS) == {
        "hard-v1", "expert-v1", "hard-v2", "expert-v2", "expert-pimc", *ORACLE_BOTS, *INFER_BOTS
    }
    assert not set(ARENA_BOTS) & set(BOT_NAMES)
    assert not {s.name for s in STRENGTHS} & set(ARENA_BOTS)
    hard, expert = make_bot("hard-v1", 3), make_bot("expert-v1", 3)
    assert (hard.iterations, hard.playout_turns, expert.iterations, expert.playout_turns) == (1000, 1, 3000, 3)
    for b in (hard, expert):
        assert (b.exploration, b.prior_weight, b.prior_depth, b.leaf) == (0.7, 0.5, 2, "heuristic")
    hard2, expert2 = make_bot("hard-v2", 3), make_bot("expert-v2", 3)
    assert (hard2.iterations, expert2.iterations, expert2.trees) == (700, 2800, 4)
    for b in (hard2, expert2):
        assert (b.playout_turns, b.exploration, b.prior_weight, b.prior_depth, b.leaf) == (3, 0.7, 0.5, 2, "heuristic")
    assert parse_entrant("hard-v1:20") == ("hard-v1", {"iterations": 20})
    r = run_match(("hard-v1:10", "expert-v1:10"), 5)
    assert r.winner in (0, 1, None)


def test_a_pimc_search_samples_one_world_per_tree_and_plays_a_legal_move():
    from engine.voltage.bots.determinize import Determinizer
    from engine.voltage.bots.ismcts import ISMCTSBot

    s = V.new_match(11)
    v = V.view(s, s.to_move)
    samples = []

    class Counting(ISMCTSBot):
        def worlds(self, view):
            det = Determinizer(view)

            class W:
                def sample(self, rng):
                    samples.append(1)
                    return det.sample(rng)

            return W()

    pimc = Counting(3, iterations=60, trees=6, pimc=True)
    assert pimc.choose(v) in v.legal and pimc.last_iterations == 60
    assert len(samples) == 6  # one world per tree, every iteration in it
    samples.clear()
    Counting(3, iterations=60, trees=6).choose(v)
    assert len(samples) == 60  # the usual search: a fresh world per iteration
    assert make_bot("expert-pimc", 1).pimc and make_bot("expert-pimc", 1).trees == 28


def test_the_oracles_are_arena_measuring_sticks_that_never_play_without_the_true_state():
    from engine.voltage.bots import ARENA_BOTS, ORACLE_BOTS
    from engine.voltage.bots.oracle import OracleBot

    assert set(ORACLE_BOTS) == {
        "hard-oracle", "expert-oracle", "hard-oracle-hand", "expert-oracle-hand", "expert-oracle-discard"
    }
    assert set(ORACLE_BOTS) <= set(ARENA_BOTS)
    assert not set(ORACLE_BOTS) & set(BOT_NAMES)
    assert not set(ORACLE_BOTS) & {s.name for s in STRENGTHS}
    # Hard's and Expert's search and budget, only the worlds differ.
    hard, expert = make_bot("hard-oracle", 3), make_bot("expert-oracle", 3)
    assert isinstance(hard, OracleBot) and isinstance(expert, OracleBot)
    assert (hard.iterations, hard.playout_turns, hard.trees) == (ITERATIONS["hard"], 3, 1)
    assert (expert.iterations, expert.playout_turns, expert.trees) == (ITERATIONS["expert"], 3, EXPERT_TREES)
    s = next(x for x in _midgame_states(5, seed=4) if len(V.legal_actions(x)) > 2)
    v = V.view(s, s.to_move)
    # Given a view only (as a server would), it refuses to move ...
    for name in ORACLE_BOTS:
        with pytest.raises(ValueError, match="true state"):
            make_bot(name, 1, iterations=20).choose(v)
        with pytest.raises(ValueError, match="true state"):
            choose_action(name, 1, v, deadline=time.time() + 1)
    # ... and shown another state than its view's, too.
    other = next(x for x in _midgame_states(5, seed=9) if V.view(x, s.to_move) != v)
    b = make_bot("hard-oracle", 1, iterations=20)
    b.peek(other)
    with pytest.raises(ValueError, match="not the one of its view"):
        b.choose(v)
    # Shown the state, it moves legally, and only once per peek.
    b.peek(s)
    assert b.choose(v) in v.legal
    with pytest.raises(ValueError, match="true state"):
        b.choose(v)
    # The arena shows it the state before each of its moves.
    r = run_match(("hard-oracle:20", "expert-oracle-hand:20"), 5)
    assert r.winner in (0, 1, None) and r.sets[0] + r.sets[1] > 0


def test_an_oracle_searches_the_true_state_or_the_true_hands_with_the_piles_unknown():
    from engine.voltage.bots.oracle import OracleBot

    rng = random.Random(2)
    for s in _midgame_states(12, seed=6):
        v = V.view(s, s.to_move)
        seer = OracleBot(1, sight="all")
        seer.peek(s)
        w = seer.worlds(v).sample(rng)
        assert (w.hands, w.draw, w.discard, w.seed) == (s.hands, s.draw, s.discard, s.seed)
        reader = OracleBot(1, sight="hand")
        reader.peek(s)
        worlds = reader.worlds(v)
        for _ in range(3):
            w = worlds.sample(rng)
            assert w.hands == s.hands and w.board == s.board
            assert V.view(w, s.to_move) == v and V.view(w, 1 - s.to_move) == V.view(s, 1 - s.to_move)
            assert sorted(w.draw + w.discard) == sorted(s.draw + s.discard)
            assert (len(w.draw), w.discard[-1:]) == (len(s.draw), s.discard[-1:])
        counter = OracleBot(1, sight="discard")
        counter.peek(s)
        worlds = counter.worlds(v)
        hands = set()
        for _ in range(6):
            w = worlds.sample(rng)
            assert V.view(w, s.to_move) == v
            # the discard pile as every card went there (faces and backs), the rest still unknown
            assert sorted(map(Card.of, w.discard)) == sorted(map(Card.of, s.discard))
            assert len(w.draw) == len(s.draw)
            hands.add(tuple(sorted(w.hands[1 - s.to_move])))
        assert len(hands) > 1 or len(s.hands[1 - s.to_move]) == 0
        from engine.voltage.bots.determinize import Determinizer

        with pytest.raises(ValueError, match="size"):
            Determinizer(v, [Card.of(c) for c in s.discard[:-1]] + [Card.of(s.hands[s.to_move][0])])
        with pytest.raises(ValueError):
            OracleBot(1, sight="x-ray")


def _passed_up_orange_3() -> tuple[V.State, list[tuple[V.VoltageView, V.Action]]]:
    """Seat 1 could win orange's set with an orange 3 (4 against its 2, four cards down, +
    block) and drew two instead; then seat 0 is to move.  The state, and seat 0's history."""
    o1, o2, o3 = [0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]
    s = V.new_match(0)
    s.hands = [[13, 17, 25, 29], [33, 37, 41, 45]]  # green, blue, purple numbers: no orange, no special
    s.board = [[o2[0], o2[1]], [o1[0], o1[1]]] + [[] for _ in range(6)]
    s.plus = [True, False, False, True]
    used = {c for hand in s.hands for c in hand} | {c for side in s.board for c in side}
    rest = [c for c in range(56) if c not in used and c not in o3]
    random.Random(1).shuffle(rest)
    s.draw = o3 + rest  # the orange 3s at the bottom: seat 1 never holds one here
    s.discard = []
    s.to_move, s.first_player, s.turns = 1, 0, 2
    history: list[tuple[V.VoltageView, V.Action]] = []

    def act(a: V.Action) -> None:
        history.append((V.view(s, 0), a))
        V.step(s, a)

    from engine.voltage.bots.policy import Planner

    legal = V.legal_actions(s)
    prices = dict(zip(legal, Planner(s).values(legal), strict=True))
    with_o3 = s.copy()
    with_o3.hands[1][0] = o3[0]
    legal3 = V.legal_actions(with_o3)
    best3 = max(zip(Planner(with_o3).values(legal3), legal3, strict=True), key=lambda x: x[0])
    best_play = best3[1]
    assert isinstance(best_play, V.Play) and best_play.card.face == 2
    assert best3[0] > max(prices.values()) + 0.5  # an orange 3 would win the set
    act(V.DRAW)
    while s.to_move == 1:  # a transformer drawn: its flips
        act(V.FLIPS[1])
    return s, history


def test_inference_gives_the_opponent_a_card_it_passed_up_a_fitting_play_for_less_often():
    from engine.voltage.bots.determinize import Determinizer
    from engine.voltage.bots.infer import InferredWorlds
    from engine.voltage.cards import CARD_FACE

    s, history = _passed_up_orange_3()
    v = V.view(s, 0)
    assert all(h.seat == 0 for h, _ in history)  # only seat 0's own views

    def share_with_orange_3(worlds, n: int = 2000) -> float:
        rng = random.Random(5)
        holds = 0
        for _ in range(n):
            w = worlds.sample(rng)
            assert V.view(w, 0) == v  # every world still fits the view
            holds += any(CARD_FACE[c] == 2 for c in w.hands[1])
        return holds / n

    plain = share_with_orange_3(Determinizer(v))
    inferred_worlds = InferredWorlds(v, history, random.Random(3))
    inferred = share_with_orange_3(inferred_worlds)
    # Uniform: 6 cards of 48 unseen, about 0.42; seat 1's four cards before its draw very
    # rarely hold one now, only the two drawn may: about 0.16.
    assert plain > 0.35 and inferred < 0.25 and inferred < plain - 0.15
    assert 10 < inferred_worlds.ess < 200
    # With no turn judged, every hand of the pool weighs the same.
    assert InferredWorlds(v, history, random.Random(3), turns=0).ess == pytest.approx(200)


def test_an_inferring_search_keeps_the_public_history_and_plays_legal_moves(monkeypatch):
    from engine.voltage import arena
    from engine.voltage.bots import ARENA_BOTS, INFER_BOTS
    from engine.voltage.bots.infer import InferBot

    assert set(INFER_BOTS) == {"hard-infer", "expert-infer"} and set(INFER_BOTS) <= set(ARENA_BOTS)
    assert not set(INFER_BOTS) & set(BOT_NAMES)
    hard, expert = make_bot("hard-infer", 3), make_bot("expert-infer", 3)
    assert isinstance(hard, InferBot) and isinstance(expert, InferBot)
    assert (hard.iterations, hard.playout_turns, hard.trees) == (ITERATIONS["hard"], 3, 1)
    assert (expert.iterations, expert.playout_turns, expert.trees) == (ITERATIONS["expert"], 3, EXPERT_TREES)
    # Told the history (as a server could, at build time), it moves legally after it.
    s, history = _passed_up_orange_3()
    v = V.view(s, 0)
    b = make_bot("hard-infer", 1, iterations=40, history=history)
    assert b.choose(v) in v.legal
    # In the arena it sees every action of either seat, each with its own seat's view before it.
    built = []

    def recording_make_bot(name, seed=None, **options):
        b = make_bot(name, seed, **options)
        built.append(b)
        return b

    monkeypatch.setattr(arena, "make_bot", recording_make_bot)
    r = run_match(("hard:20", "hard-infer:20"), 8)
    infer = built[1]
    seat = infer.history[0][0].seat
    assert seat == 1 and all(view.seat == seat for view, _ in infer.history)
    assert len(infer.history) == r.actions
    end = V.replay(8, [a for _, a in infer.history])  # the actions of the match, in order
    assert (end.winner, tuple(end.scores)) == (r.winner, r.sets)
    r = run_match(("hard-infer:20", "expert-infer:20"), 5)
    assert r.winner in (0, 1, None) and r.sets[0] + r.sets[1] > 0
