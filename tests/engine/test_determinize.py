"""Worlds sampled from a view are consistent with that view."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.voltage import rules as V
from engine.voltage.bots import make_bot
from engine.voltage.bots.determinize import Determinizer, determinize
from engine.voltage.cards import CARD_FACE, CARD_TRANSFORMER, DECK_SIZE


def _states(n_matches: int, bot: str = "random", every: int = 1):
    """States along ``n_matches`` matches played by ``bot`` against itself."""
    for seed in range(n_matches):
        bots = [make_bot(bot, seed), make_bot(bot, seed + 100)]
        s = V.new_match(seed)
        k = 0
        while s.phase != V.OVER:
            if k % every == 0:
                yield s.copy()
            k += 1
            V.step(s, bots[s.to_move].choose(V.view(s, s.to_move)))
        yield s


def test_every_sampled_world_shows_the_same_view():
    rng = random.Random(1)
    checked = 0
    for s in _states(15):
        for seat in (0, 1):
            v = V.view(s, seat)
            d = determinize(v, rng)
            assert V.view(d, seat) == v
            checked += 1
    assert checked > 1500


def test_views_around_a_reshuffle():
    """Matches rarely run through the draw pile; make them, by moving most of it to the discards."""
    rng = random.Random(2)
    reshuffled = 0
    for seed in range(8):
        bots = [make_bot("random", seed), make_bot("random", seed + 100)]
        s = V.new_match(seed)
        s.discard, s.draw = s.draw[:-3], s.draw[-3:]
        while s.phase != V.OVER:
            reshuffled += s.shuffles > 0
            for seat in (0, 1):
                v = V.view(s, seat)
                assert V.view(determinize(v, rng), seat) == v
            V.step(s, bots[s.to_move].choose(V.view(s, s.to_move)))
    assert reshuffled


def test_a_world_holds_each_card_once_and_keeps_what_is_known():
    rng = random.Random(3)
    for s in _states(10, every=7):
        v = V.view(s, 0)
        d = determinize(v, rng)
        ids = d.hands[0] + d.hands[1] + d.draw + d.discard + [c for side in d.board for c in side]
        assert sorted(ids) == list(range(DECK_SIZE))
        assert [CARD_FACE[c] for c in d.hands[0]] == [CARD_FACE[c] for c in s.hands[0]]
        # the opponent's backs as the view has them: their count, not their places
        assert sum(CARD_TRANSFORMER[c] for c in d.hands[1]) == sum(CARD_TRANSFORMER[c] for c in s.hands[1])
        assert len(d.hands[1]) == len(s.hands[1]) and V.view(d, 0) == v
        assert (d.plus, d.scores, d.to_move, d.phase, d.first_terminal, d.flips) == (
            s.plus,
            s.scores,
            s.to_move,
            s.phase,
            s.first_terminal,
            s.flips,
        )
        if s.to_move == 0:
            assert V.legal_actions(d) == V.legal_actions(s)


def test_draws_owed_during_a_flip_are_inferred():
    rng = random.Random(4)
    seen = 0
    for s in _states(40):
        if s.phase == V.FLIP:
            d = determinize(V.view(s, s.to_move), rng)
            assert d.draws == s.draws
            seen += 1
    assert seen > 50


def test_hidden_cards_are_really_resampled():
    s = V.new_match(5)
    v = V.view(s, 0)
    det = Determinizer(v)
    rng = random.Random(6)
    opp_hands = Counter(tuple(sorted(CARD_FACE[c] for c in det.sample(rng).hands[1])) for _ in range(200))
    tops = Counter(CARD_FACE[det.sample(rng).draw[-1]] for _ in range(200))
    assert len(opp_hands) > 50
    assert len(tops) > 5


def test_a_spectator_view_cannot_be_determinized():
    with pytest.raises(ValueError):
        determinize(V.view(V.new_match(1), None), random.Random(0))
