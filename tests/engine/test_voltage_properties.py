"""Properties of Voltage over uniform-random legal play from random seeds (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.voltage import rules as V
from engine.voltage.cards import CARD_TRANSFORMER, DECK_SIZE

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
CHOICES = st.integers(min_value=0, max_value=2**32 - 1)
MAX_ACTIONS = 5000  # a random match takes about 70 actions; this only guards against a loop

few = settings(max_examples=100, deadline=None)
some = settings(max_examples=200, deadline=None)


def states(seed: int, choice_seed: int):
    """(state, action, next state) for every action of a uniform-random match, checked by ``apply``."""
    rng = random.Random(choice_seed)
    s = V.new_match(seed)
    for _ in range(MAX_ACTIONS):
        if s.over:
            return
        legal = V.legal_actions(s)
        assert legal, "a running match always offers an action"
        assert len(set(legal)) == len(legal), "legal actions are unique"
        a = rng.choice(legal)
        nxt, _ = V.apply(s, a)
        yield s, a, nxt
        s = nxt
    raise AssertionError(f"the match did not end within {MAX_ACTIONS} actions")


def every_card(s: V.State) -> list[int]:
    return sorted(s.hands[0] + s.hands[1] + s.draw + s.discard + [c for p in s.board for c in p])


@some
@given(SEEDS, CHOICES)
def test_all_56_cards_are_accounted_for_after_every_action(seed, choice_seed):
    assert every_card(V.new_match(seed)) == list(range(DECK_SIZE))
    for _, _, s in states(seed, choice_seed):
        assert every_card(s) == list(range(DECK_SIZE))


@some
@given(SEEDS, CHOICES)
def test_hands_are_even_and_at_most_six_between_turns(seed, choice_seed):
    for _, _, s in states(seed, choice_seed):
        for hand in s.hands:
            assert len(hand) <= V.HAND_LIMIT
            if s.phase == V.START:
                assert len(hand) % 2 == 0


@some
@given(SEEDS, CHOICES)
def test_no_terminal_holds_five_cards_after_an_action(seed, choice_seed):
    for _, _, s in states(seed, choice_seed):
        for t in range(4):
            assert len(s.board[2 * t]) + len(s.board[2 * t + 1]) < V.SET_SIZE


@some
@given(SEEDS, CHOICES)
def test_scores_never_exceed_four_and_the_match_ends_at_four(seed, choice_seed):
    last = None
    for prev, _, s in states(seed, choice_seed):
        assert max(s.scores) <= V.SETS_TO_WIN
        assert s.scores[0] >= prev.scores[0] and s.scores[1] >= prev.scores[1]
        if V.SETS_TO_WIN in s.scores:
            assert s.over and s.winner == s.scores.index(V.SETS_TO_WIN)
        else:
            assert not s.over
        last = s
    assert last is not None and last.over
    assert V.legal_actions(last) == []


def _hide_differently(s: V.State, seat: int | None, rng: random.Random) -> V.State:
    """A state no view of ``seat`` can tell from ``s``: the other hand(s) reordered, hidden
    cards with the same back swapped between them and the draw pile, and the draw pile
    reordered keeping the back of its top card."""
    t = s.copy()
    others = [0, 1] if seat is None else [1 - seat]
    for o in others:
        hand = t.hands[o]
        rng.shuffle(hand)  # the order of a hand is hidden too: only its count of each back is public
        for i in range(len(hand)):
            same_back = [j for j, c in enumerate(t.draw) if CARD_TRANSFORMER[c] == CARD_TRANSFORMER[hand[i]]]
            if same_back and rng.random() < 0.7:
                j = rng.choice(same_back)
                hand[i], t.draw[j] = t.draw[j], hand[i]
    if t.draw:
        top_back = CARD_TRANSFORMER[s.draw[-1]]
        rng.shuffle(t.draw)
        if CARD_TRANSFORMER[t.draw[-1]] != top_back:
            k = next(k for k, c in enumerate(t.draw) if CARD_TRANSFORMER[c] == top_back)
            t.draw[k], t.draw[-1] = t.draw[-1], t.draw[k]
    return t


@few
@given(SEEDS, CHOICES, st.sampled_from([0, 1, None]))
def test_a_view_is_the_same_whatever_the_hidden_cards(seed, choice_seed, seat):
    rng = random.Random(choice_seed ^ 0x5EED)
    changed = 0
    for _, _, s in states(seed, choice_seed):
        t = _hide_differently(s, seat, rng)
        assert every_card(t) == list(range(DECK_SIZE))
        changed += t.key() != s.key()
        assert V.view(t, seat) == V.view(s, seat)
    assert changed  # the swaps really changed hidden cards


@few
@given(SEEDS, CHOICES, st.sampled_from([0, 1, None]))
def test_the_order_of_another_hand_stays_hidden_after_later_plays(seed, choice_seed, seat):
    """Audit item 6: a play takes the last card of its face from the hand, so with the
    backs in hand order, which back went away told where same-back cards sat.  Two
    states whose other hand(s) differ only in order must give ``seat`` the same view
    now and after every later action, the same actions applied to both."""
    rng = random.Random(choice_seed ^ 0xBAC5)
    run = list(states(seed, choice_seed))
    others = [0, 1] if seat is None else [1 - seat]
    reordered = possible = 0
    for k in range(0, len(run), 7):
        s = run[k][0]
        t = s.copy()
        for o in others:
            hand = t.hands[o]
            rng.shuffle(hand)
            distinct = [(i, j) for i in range(len(hand)) for j in range(i + 1, len(hand)) if hand[i] != hand[j]]
            if hand == s.hands[o] and distinct:  # the shuffle left it as it was: swap two cards
                i, j = distinct[0]
                hand[i], hand[j] = hand[j], hand[i]
            possible += bool(distinct)
        reordered += t.key() != s.key()
        for _, a, _ in run[k : k + 12]:
            assert V.view(t, seat) == V.view(s, seat)
            s, _ = V.apply(s, a)
            t, _ = V.apply(t, a)
        assert V.view(t, seat) == V.view(s, seat)
    assert reordered or not possible  # the shuffles really reordered hands (where two cards differ)


@few
@given(SEEDS, CHOICES)
def test_a_spectator_view_has_no_hand_and_no_legal_actions(seed, choice_seed):
    for _, _, s in states(seed, choice_seed):
        v = V.view(s, None)
        assert v.hand is None and v.legal == () and not v.my_turn
        for seat in (0, 1):
            own = V.view(s, seat)
            assert own.hand is not None and len(own.hand) == len(s.hands[seat])
            assert own.legal == (tuple(V.legal_actions(s)) if seat == s.to_move else ())
            assert [len(b) for b in own.hand_backs] == [len(h) for h in s.hands]


@some
@given(SEEDS, CHOICES, st.floats(min_value=0, max_value=1))
def test_replay_of_seed_and_actions_reproduces_the_state(seed, choice_seed, cut):
    actions, seen = [], [V.new_match(seed)]
    for _, a, s in states(seed, choice_seed):
        actions.append(a)
        seen.append(s)
    assert V.replay(seed, actions) == seen[-1]
    k = int(cut * len(actions))
    assert V.replay(seed, actions[:k]) == seen[k]
    assert V.replay(seed, [V.parse_action(a.text()) for a in actions]).key() == seen[-1].key()
    # step (unchecked, in place) agrees with apply.
    s = V.new_match(seed)
    for a in actions:
        V.step(s, a)
    assert s == seen[-1]


@few
@given(SEEDS, CHOICES)
def test_apply_never_mutates_its_input(seed, choice_seed):
    rng = random.Random(choice_seed)
    s = V.new_match(seed)
    while not s.over:
        legal = V.legal_actions(s)
        before = s.key()
        for a in legal + [V.Resign(0), V.Resign(1)]:  # every legal action, not just the one taken
            nxt, _ = V.apply(s, a)
            assert s.key() == before
            assert nxt is not s and nxt.hands[0] is not s.hands[0]
            assert all(x is not y for x, y in zip(nxt.board, s.board, strict=True))
        s, _ = V.apply(s, rng.choice(legal))
        assert V.legal_actions(s) is not legal
