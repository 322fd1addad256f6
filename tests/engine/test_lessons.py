"""The first lesson's positions are real engine states, each solved by the move its rule is
about and failed by the tempting wrong ones."""

from __future__ import annotations

import pytest

from engine.voltage import rules as V
from engine.voltage.cards import BYPASS, FUSE
from engine.voltage.lessons import FAILED, LESSONS, SOLVED, judge, lesson, solution


@pytest.mark.parametrize("lesson_id", [x.id for x in LESSONS])
def test_each_position_is_a_real_state_with_every_card_and_the_learner_to_move(lesson_id):
    s = lesson(lesson_id).start()
    cards = s.hands[0] + s.hands[1] + s.draw + s.discard + [c for pile in s.board for c in pile]
    assert sorted(cards) == list(range(56))
    assert s.to_move == 0 and not s.over and len(s.hands[0]) % 2 == 0 and len(s.hands[0]) <= V.HAND_LIMIT
    assert all(len(s.board[2 * t]) + len(s.board[2 * t + 1]) < V.SET_SIZE for t in range(4))
    assert V.legal_actions(s) and V.view(s, 0).my_turn
    assert solution(lesson(lesson_id))  # it can be solved in one turn


def _play(s: V.State, text: str) -> V.State:
    return V.apply(s, V.parse_action(text), 0)[0]


@pytest.mark.parametrize(("lesson_id", "right", "wrong"), [
    ("terminal", ["play G3 green 1"], ["play G3 green 0"]),
    ("set", ["play P1 purple 0"], ["play P1 purple 1", "play B1 blue 0"]),
    ("bypass", ["play BY blue 1 B3"], ["play BY blue 1 B1"]),
    ("tie", ["play O2 orange 0"], ["play O1 orange 0"]),
    ("transformer", ["flip green"], ["flip orange"]),
])
def test_the_rule_decides_the_point(lesson_id, right, wrong):
    L = lesson(lesson_id)
    start = L.start()
    for text in right:
        assert judge(L, start, _play(start, text)) == SOLVED
    for text in wrong:
        assert judge(L, start, _play(start, text)) == FAILED


def test_the_fuse_keeps_the_count_and_the_six_card_hand_cannot_draw_two():
    fuse = lesson("fuse")
    start = fuse.start()
    blown = next(a for a in V.legal_actions(start) if isinstance(a, V.Play) and a.card.face == FUSE
                 and a.target is not None and a.target.value == 3)
    after = _play(start, blown.text())
    assert judge(fuse, start, after) == SOLVED and len(after.board[6]) + len(after.board[7]) == 4
    two = lesson("two").start()
    assert V.DRAW not in V.legal_actions(two)
    with pytest.raises(Exception) as e:
        V.apply(two, V.DRAW, 0)
    assert getattr(e.value, "code", "") == "hand_limit"
    assert len(solution(lesson("two"))) == 2
    assert all(a.card.face != BYPASS for a in solution(lesson("two")) if isinstance(a, V.Play))
