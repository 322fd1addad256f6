"""What the match screen offers, worked out from a view alone (tui/games/voltage/choices.py)."""

from engine.voltage import cards as K
from engine.voltage import rules as V
from tui.games.voltage import choices as C

NAMES = ("Ann", "Bob")


def state_with(hand0, board=None, phase=V.START, first_terminal=-1, flips=0, hand1=None):
    """A state where seat 0 is to move with ``hand0`` (faces), and ``board`` {(t, seat): [faces]}."""
    s = V.new_match(1)
    free = list(range(K.DECK_SIZE))

    def take(face):
        for c in free:
            if K.CARD_FACE[c] == face:
                free.remove(c)
                return c
        raise AssertionError(face)

    s.hands = [[take(f) for f in hand0], [take(f) for f in (hand1 or [0, 1, 2, 3])]]
    s.board = [[] for _ in range(8)]
    for (t, seat), faces in (board or {}).items():
        s.board[2 * t + seat] = [take(f) for f in faces]
    s.draw = free
    s.discard = []
    s.to_move = 0
    s.phase = phase
    s.first_terminal = first_terminal
    s.flips = flips
    return s


O1, O2, G3, B2, P1 = 0, 1, 5, 7, 9


def test_a_number_card_goes_to_either_side_of_its_own_terminal():
    v = V.view(state_with([O2, G3, B2, P1]), 0)
    step = C.step_for(v, C.NOTHING, NAMES)
    assert step.kind == C.CARD
    assert [o.key for o in step.options] == ["1", "2", "3", "4", "space"]
    assert step.by_key("space").label == "draw two"
    side = C.step_for(v, step.by_key("2").select, NAMES)
    assert side.kind == C.SIDE
    g3 = v.hand[1]
    assert {(o.key, o.action) for o in side.options} == {("up", V.Play(g3, 1, 1)), ("down", V.Play(g3, 1, 0))}


def test_a_special_asks_for_a_terminal_then_for_one_of_the_cards_it_may_take():
    s = state_with([K.BYPASS, O1, O2, G3], board={(0, 1): [O1, O2, O2], (1, 1): [G3]})
    v = V.view(s, 0)
    card = C.step_for(v, C.NOTHING, NAMES).by_key("1")
    terminal = C.step_for(v, card.select, NAMES)
    assert terminal.kind == C.TERMINAL
    keys = {o.key: o for o in terminal.options}
    assert set(keys) == {"o", "g", "b", "p"}
    bypass = v.hand[0]
    assert keys["g"].action == V.Play(bypass, 1, 1, v.board[1][1][0])  # one target: no question
    assert keys["b"].action == V.Play(bypass, 2, 1, None)  # nothing to take
    assert keys["o"].action is None
    target = C.step_for(v, keys["o"].select, NAMES)
    assert target.kind == C.TARGET
    # distinct targets in board order, whatever the copies
    assert [(o.key, o.target) for o in target.options] == [
        (k, t) for k, t in zip("12", sorted({c for c in v.board[0][1]}, key=list(v.board[0][1]).index), strict=True)
    ]
    assert all(o.action.target == o.target for o in target.options)


def test_the_second_card_avoids_the_first_terminal_and_done_draws_one():
    s = state_with([O1, O2, G3, B2], board={(0, 0): [O1]}, phase=V.SECOND, first_terminal=0)
    v = V.view(s, 0)
    step = C.step_for(v, C.NOTHING, NAMES)
    assert [o.key for o in step.options] == ["3", "4", "space"]  # the oranges are not offered
    assert step.by_key("space").label == "done: draw one"


def test_a_transformer_asks_for_a_flip_of_any_block():
    v = V.view(state_with([O1, O2, G3, B2], phase=V.FLIP, flips=2), 0)
    step = C.step_for(v, C.NOTHING, NAMES)
    assert step.kind == C.FLIP and "2 flips" in step.prompt
    assert [(o.key, o.action) for o in step.options] == [(k, V.Flip(t)) for t, k in enumerate("ogbp")]


def test_six_cards_cannot_draw_two_and_waiting_or_watching_offers_nothing():
    v = V.view(state_with([O1, O2, G3, B2, P1, O1]), 0)
    step = C.step_for(v, C.NOTHING, NAMES)
    assert not step.buttons and "hand is full" in step.prompt
    s = state_with([O1, O2, G3, B2])
    assert C.step_for(V.view(s, 1), C.NOTHING, NAMES).kind == C.WAIT
    watch = C.step_for(V.view(s, None), C.NOTHING, NAMES)
    assert watch.kind == C.WATCH and not watch.options


def test_a_stale_selection_is_dropped():
    s = state_with([O1, O2, G3, B2])
    v = V.view(s, 0)
    stale = C.Selection(5, K.Card(P1))
    assert C.step_for(v, stale, NAMES).kind == C.CARD
    assert C.Selection(0, K.Card(O1), 2).back() == C.Selection(0, K.Card(O1))
    assert C.Selection(0, K.Card(O1)).back() == C.NOTHING


def test_every_option_offered_is_legal_in_random_positions():
    import random

    rng = random.Random(3)
    for seed in range(25):
        s = V.new_match(seed)
        for _ in range(rng.randrange(40)):
            if s.phase == V.OVER:
                break
            s, _ = V.apply(s, rng.choice(V.legal_actions(s)))
        v = V.view(s, s.to_move)
        frontier = [C.NOTHING]
        offered = set()
        while frontier:
            step = C.step_for(v, frontier.pop(), NAMES)
            for o in step.options:
                assert (o.action is None) != (o.select is None)
                if o.action is not None:
                    assert o.action in v.legal
                    offered.add(o.action)
                else:
                    frontier.append(o.select)
        # and every legal action is reachable through the steps
        assert offered == set(v.legal)
