"""The coach's hint and analysis: honest (the same for any arrangement of the unseen cards),
deterministic, and right about what a move does at its terminal."""

from __future__ import annotations

import random

from engine.voltage import rules as V
from engine.voltage.cards import BYPASS, Card
from engine.voltage.coach import MISTAKE, analyse, explain, hint
from tests.engine.test_bots import _midgame_states
from tests.engine.test_conformance import _shuffle_voltage


def test_a_hint_is_the_same_for_any_arrangement_of_the_unseen_cards():
    rng = random.Random(30)
    changed = 0
    for s in _midgame_states(5, seed=31):
        seat = s.to_move
        h = hint(V.view(s, seat), iterations=60)
        assert h.action in V.view(s, seat).legal
        for _ in range(2):
            t = _shuffle_voltage(s, seat, rng)  # the conformance suite's re-deal of what the seat cannot see
            changed += t != s
            assert V.view(t, seat) == V.view(s, seat)
            assert hint(V.view(t, seat), iterations=60) == h
    assert changed, "the re-deals really changed hidden cards"


def _ids() -> dict[int, list[int]]:
    ids: dict[int, list[int]] = {}
    for c in range(56):
        ids.setdefault(V.CARD_KEY[c], []).append(c)
    return ids


def _position() -> V.State:
    """Seat 0 to move; purple (+): seat 0 has 2+1, seat 1 has a 3 and a 1 (four cards)."""
    s = V.new_match(3)
    ids = _ids()

    def take(face: int, transformer: bool = False) -> int:
        return ids[face * 2 + transformer].pop()

    s.board = [[] for _ in range(8)]
    s.plus = [True, False, False, True]
    s.board[2 * 3] = [take(10), take(9)]  # purple 2, purple 1
    s.board[2 * 3 + 1] = [take(11), take(9)]  # purple 3, purple 1
    s.hands = [[take(BYPASS), take(11), take(0), take(3)], [take(1), take(4), take(5), take(6)]]
    s.to_move, s.phase, s.first_terminal = 0, V.START, -1
    return s


def test_the_reason_says_what_the_move_does_at_its_terminal():
    s = _position()
    v = V.view(s, 0)
    by = next(a for a in v.legal if isinstance(a, V.Play) and a.card.face == BYPASS and a.terminal == 3
              and a.target is not None and a.target.value == 3)
    r = explain(v, by)  # takes their 3: 2+1+3 = 6 against 0+1 = 1, five cards: the set is won
    assert (r.kind, r.mine, r.theirs, r.lead) == ("wins_set", 6, 1, 1)
    three = next(a for a in v.legal if isinstance(a, V.Play) and a.card == Card(11) and a.side == 0)
    assert explain(v, three).kind == "wins_set" and explain(v, three).mine == 6
    onto_them = next(a for a in v.legal if isinstance(a, V.Play) and a.card == Card(11) and a.side == 1)
    assert (explain(v, onto_them).kind, explain(v, onto_them).theirs) == ("loses_set", 7)
    orange = next(a for a in v.legal if isinstance(a, V.Play) and a.card.face == 0 and a.side == 0)
    assert (explain(v, orange).kind, explain(v, orange).mine, explain(v, orange).lead) == ("adds", 1, 1)
    assert explain(v, V.DRAW).kind == "draw_two"


def test_the_analysis_is_deterministic_and_marks_what_lost_a_lot():
    rng = random.Random(4)
    s = V.new_match(9)
    actions = []
    while not s.over:
        a = rng.choice(V.legal_actions(s))
        actions.append(a.text())
        V.step(s, a)
    seen: list[tuple[int, int]] = []
    moves = analyse(9, actions, iterations=40, progress=lambda d, t: seen.append((d, t)))
    assert moves == analyse(9, actions, iterations=40)
    assert seen[-1] == (len(actions), len(actions))
    assert [m.step for m in moves] == list(range(1, len(actions) + 1))
    for m in moves:
        assert 0.0 <= m.chance <= 1.0 and m.best >= m.chance
        assert m.mistake == (m.better is not None)
        if m.mistake:
            assert m.loss >= MISTAKE and V.parse_action(m.better)
    assert any(m.mistake for m in moves), "random play makes mistakes"
