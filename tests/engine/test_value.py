"""The learned value and the search's ranking: honest, deterministic, and sensible at the ends."""

from __future__ import annotations

import random

import pytest

from engine.voltage import rules as V
from engine.voltage.bots import make_bot
from engine.voltage.bots.heuristics import evaluate as heuristic
from engine.voltage.bots.heuristics import evaluate_world
from engine.voltage.bots.ismcts import ISMCTSBot
from engine.voltage.bots.value import N_FEATURES, evaluate, features, model, win_chance_of_state
from tests.engine.test_bots import _hide_differently, _midgame_states


def test_features_have_the_model_s_width_and_read_nothing_hidden():
    rng = random.Random(1)
    for s in _midgame_states(60, seed=21):
        seat = s.to_move
        t = _hide_differently(s, rng)
        assert V.view(t, seat) == V.view(s, seat)
        assert len(features(s, seat)) == N_FEATURES == model().w1.shape[0]
        assert features(t, seat) == features(s, seat)
        assert evaluate(V.view(t, seat)) == evaluate(V.view(s, seat))


def test_evaluate_is_a_chance_and_knows_the_end():
    for s in _midgame_states(40, seed=22):
        for seat in (0, 1):
            assert 0.0 < evaluate(V.view(s, seat)) < 1.0
    s = V.new_match(3)
    rng = random.Random(3)
    while s.phase != V.OVER:
        V.step(s, rng.choice(V.legal_actions(s)))
    if s.winner is not None:
        assert evaluate(V.view(s, s.winner)) == 1.0 and evaluate(V.view(s, 1 - s.winner)) == 0.0
        assert win_chance_of_state(s) == (1.0 if s.winner == 0 else 0.0)
    with pytest.raises(ValueError):
        evaluate(V.view(s, None))


def test_a_seat_closer_to_four_sets_is_judged_likelier_to_win():
    s = V.new_match(5)
    s.scores = [3, 0]
    ahead = evaluate(V.view(s, 0))
    s.scores = [0, 3]
    behind = evaluate(V.view(s, 0))
    assert ahead > 0.7 > 0.3 > behind


def test_the_world_judgement_differs_only_at_four_card_terminals():
    differ = 0
    for s in _midgame_states(150, seed=23):
        counts = [len(s.board[2 * t]) + len(s.board[2 * t + 1]) for t in range(4)]
        a, b = heuristic(s, 0, s.to_move == 0), evaluate_world(s, 0)
        if 4 not in counts:
            assert a == pytest.approx(b)
        differ += a != pytest.approx(b)
    assert differ > 5


def test_a_mover_who_can_finish_a_terminal_in_their_favour_is_judged_to_win_it():
    s = V.new_match(7)
    s.phase, s.to_move, s.first_terminal = V.START, 0, -1
    s.board = [[] for _ in range(8)]
    s.plus = [True, True, True, True]
    # Orange (+): seat 0 has a 1 there, seat 1 a 3 and two 2s; seat 0 holds orange 3s: 1 + 3 < 7.
    ids: dict[int, list[int]] = {}
    for c in range(56):
        ids.setdefault(V.CARD_KEY[c], []).append(c)

    def take(key: int) -> int:  # a card key is face * 2 + transformer back
        return ids[key].pop()

    s.board[0] = [take(1)]
    s.board[1] = [take(4), take(2), take(2)]
    s.hands = [[take(4), take(5)], [take(12), take(12)]]
    cannot = evaluate_world(s, 0)
    s.board[1] = [take(0), take(0), take(0)]  # three orange 1s: 1 + 3 > 3, seat 0 wins it with a 3
    can = evaluate_world(s, 0)
    assert can > 0.5 > cannot


def test_rank_lists_every_legal_action_with_the_chosen_move_first():
    for s in _midgame_states(6, seed=24):
        v = V.view(s, s.to_move)
        ranked = ISMCTSBot(4, iterations=60).rank(v)
        assert sorted(map(str, (a for a, _, _ in ranked))) == sorted(map(str, v.legal))
        assert ranked[0][0] == ISMCTSBot(4, iterations=60).choose(v)
        assert sum(n for _, n, _ in ranked) == 60
        assert all(0.0 <= w <= 1.0 for _, _, w in ranked)


def test_leaf_judgements_are_checked_by_name():
    with pytest.raises(ValueError):
        make_bot("ismcts", 1, leaf="oracle")


def test_a_search_may_judge_its_leaves_by_a_value_model_of_its_own():
    from engine.voltage.bots.value import WEIGHTS

    with pytest.raises(ValueError):
        make_bot("hard", 1, weights=str(WEIGHTS))  # weights belong to leaf="value"
    s = next(x for x in _midgame_states(10, seed=23) if len(V.legal_actions(x)) > 2)
    v = V.view(s, s.to_move)
    own = make_bot("hard", 3, iterations=60, leaf="value", weights=str(WEIGHTS)).choose(v)
    assert own == make_bot("hard", 3, iterations=60, leaf="value").choose(v)  # the same model, the same move


def test_rank_and_evaluate_are_the_same_for_any_arrangement_of_the_unseen_cards():
    from engine.voltage.bots import evaluate as evaluate_view
    from engine.voltage.bots import rank

    rng = random.Random(5)
    for s in _midgame_states(4, seed=25):
        seat = s.to_move
        t = _hide_differently(s, rng)
        v, w = V.view(s, seat), V.view(t, seat)
        assert rank(v, 3, iterations=40) == rank(w, 3, iterations=40)
        assert evaluate_view(v) == evaluate_view(w)
    with pytest.raises(ValueError):
        rank(v, bot="medium")


def _train_value_tool():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "tools" / "train_value.py"
    spec = importlib.util.spec_from_file_location("train_value", path)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def test_the_training_self_play_takes_any_arena_bots_and_is_reproducible(tmp_path):
    tool = _train_value_tool()
    job = (5, 0.5, ("hard:8", "medium"), 0.0)
    rows, labels, heur, seed = tool.play(job)
    assert seed == 5 and rows and len(rows) == len(labels) == len(heur)
    assert all(len(r) == N_FEATURES for r in rows) and set(labels) <= {0.0, 0.5, 1.0}
    assert tool.play(job) == (rows, labels, heur, seed)  # the same match from the same seed
    assert tool.play((5, 0.5, ("medium", "medium"), 0.0))[0] != rows  # other players, other play
    with pytest.raises(SystemExit):
        tool.main(["--players", "grandmaster", "--matches", "1", "--out", str(tmp_path / "v.npz")])
