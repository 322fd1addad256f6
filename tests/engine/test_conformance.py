"""One conformance suite for every registered game (OpenSpiel's random simulation test).

Random playthroughs (hypothesis picks the deal and the walk) through the one
:class:`engine.game.Rules` interface check what every game must keep:

- every legal action is accepted, legal actions are unique, each call returns a fresh
  list, every action round-trips through its text, and a random match ends;
- ``apply`` never changes the state it is given, for any action of any seat, and the new
  state shares no list with the old one; an action from a seat that may not take it is
  refused and changes nothing;
- every card is where the state says after every action, and the game's own rules of
  play hold (hand sizes, scores, tops...);
- a replay of the seed and the actions, cut anywhere, and the stored log folded one text
  at a time, reach the same state;
- no view shows what its seat may not see: dealing the hidden cards again, or only
  reordering them, gives that seat the same view, now and after every later action;
  and each view shows what it must;
- an ended match has an outcome that agrees with its views.

What the suite must know of a game beyond its ``Rules`` (its deck, what is hidden from
whom, its own invariants) is one :class:`Hooks` value in ``HOOKS``; a game registered
without one fails ``test_every_registered_game_is_under_test``.  The toy third game of
the tests (:mod:`tests.support.toy`) runs through the suite too, beside the registered ones.  This replaced the two
hand-written property suites (test_voltage_properties.py, test_hv_properties.py): each
of their properties is either generic here or a hook of its game.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import IllegalActionError, RuleError
from engine.game import Outcome, Termination
from engine.highvoltage import rules as H
from engine.registry import GAMES, RULES
from engine.registry import rules as registered
from engine.voltage import rules as V
from engine.voltage.cards import CARD_TRANSFORMER, DECK_SIZE
from tests.support.toy import rules as T
from tests.support.words import lines

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
WALKS = st.integers(min_value=0, max_value=2**32 - 1)
MAX_STEPS = 5000  # a random Voltage match takes about 70 actions, High Voltage a few hundred: this guards a loop

State = Any
Seat = int | None


@dataclass(frozen=True)
class Hooks:
    """One game's part of the suite."""

    cards: Callable[[State], list[int]]  # every card of the state, wherever it lies, sorted
    deck: int  # how many there are
    lists: Callable[[State], list[list[int]]]  # the state's mutable lists (a copy must share none)
    shuffle_hidden: Callable[[State, Seat, random.Random], State]  # deal what ``seat`` may not see again
    reorder_hidden: Callable[[State, Seat, random.Random], State]  # the same, only reordered: later actions stay legal
    invariants: Callable[[State, State, list[Any]], None]  # (before, after, events) of every accepted action
    check_view: Callable[[State, Seat, Any], None]  # what a view must show
    check_end: Callable[[State, Outcome], None]  # the game's own rules of an ended match
    # (state, rng, the states seen so far) -> an action and its sender that may well be refused, or None
    noise: Callable[[State, random.Random, list[State]], tuple[Any, Seat] | None] = lambda s, rng, seen: None
    on_refused: Callable[[State, Any, IllegalActionError], None] = lambda s, a, e: None
    resign_rate: float = 0.0  # how often a random seat resigns in a walk
    also_replays: Callable[[int, int, list[Any], State], None] = lambda seed, seats, actions, end: None
    # (a fresh match) -> an action and its sender the rules refuse there
    wrong: Callable[[State], tuple[Any, Seat]] = lambda s: (None, None)


# -- Voltage -----------------------------------------------------------------------------------


def _voltage_cards(s: V.State) -> list[int]:
    return sorted(s.hands[0] + s.hands[1] + s.draw + s.discard + [c for p in s.board for c in p])


def _shuffle_voltage(state: V.State, seat: Seat, rng: random.Random) -> V.State:
    """What ``seat`` may not see: the other hand(s) (beyond their count of transformer backs; their
    order too) and the draw pile's order (beyond the back of its top card)."""
    s = state.copy()
    for other in (0, 1):
        if other == seat:
            continue
        hand, draw = s.hands[other], s.draw
        for i in range(len(hand)):  # swap cards of the same back with the draw pile
            same = [j for j in range(len(draw) - 1) if CARD_TRANSFORMER[draw[j]] == CARD_TRANSFORMER[hand[i]]]
            if same and rng.random() < 0.7:
                j = rng.choice(same)
                hand[i], draw[j] = draw[j], hand[i]
        rng.shuffle(hand)
    if len(s.draw) > 1:  # the pile's order below its top card, and the top's face
        top = s.draw[-1]
        rest = s.draw[:-1]
        rng.shuffle(rest)
        same = [j for j, c in enumerate(rest) if CARD_TRANSFORMER[c] == CARD_TRANSFORMER[top]]
        if same:
            j = rng.choice(same)
            rest[j], top = top, rest[j]
        s.draw[:] = [*rest, top]
    return s


def _reorder_hands(state: State, seat: Seat, rng: random.Random) -> State:
    """The other hand(s) in another order (a play takes the last card of its face
    from the hand, so with the backs in hand order, which back went away told where cards sat)."""
    s = state.copy()
    for other in range(len(s.hands)):
        if other == seat:
            continue
        hand = s.hands[other]
        rng.shuffle(hand)
        distinct = [(i, j) for i in range(len(hand)) for j in range(i + 1, len(hand)) if hand[i] != hand[j]]
        if hand == state.hands[other] and distinct:  # the shuffle left it as it was: swap two cards
            i, j = distinct[0]
            hand[i], hand[j] = hand[j], hand[i]
    return s


def _voltage_invariants(before: V.State, s: V.State, events: list[V.Event]) -> None:
    for hand in s.hands:
        assert len(hand) <= V.HAND_LIMIT
        if s.phase == V.START:
            assert len(hand) % 2 == 0, "hands are even between turns"
    for t in range(4):
        assert len(s.board[2 * t]) + len(s.board[2 * t + 1]) < V.SET_SIZE, "no terminal holds five cards"
    assert max(s.scores) <= V.SETS_TO_WIN
    assert s.scores[0] >= before.scores[0] and s.scores[1] >= before.scores[1]
    if V.SETS_TO_WIN in s.scores:
        assert s.over and s.winner == s.scores.index(V.SETS_TO_WIN)
    elif s.over:  # (no resignations in these walks)
        assert Outcome.ending(s.reason) == (Termination.RULES, "neither player can act")


def _voltage_view(s: V.State, seat: Seat, v: V.VoltageView) -> None:
    if seat is None:
        assert v.hand is None and v.legal == () and not v.my_turn
        return
    assert v.hand is not None and len(v.hand) == len(s.hands[seat])
    assert v.legal == (tuple(V.legal_actions(s)) if seat == s.to_move else ())
    assert [len(b) for b in v.hand_backs] == [len(h) for h in s.hands]


def _voltage_end(s: V.State, outcome: Outcome) -> None:
    if outcome.termination is Termination.RULES and outcome.detail == "four sets":
        assert outcome.winner is not None and s.scores[outcome.winner] == V.SETS_TO_WIN


def _voltage_steps(seed: int, seats: int, actions: list[V.Action], end: V.State) -> None:
    """``step`` (unchecked, in place: what the bots' playouts use) agrees with ``apply``."""
    s = V.new_match(seed)
    for a in actions:
        V.step(s, a)
    assert s == end


VOLTAGE = Hooks(
    cards=_voltage_cards,
    deck=DECK_SIZE,
    lists=lambda s: [*s.hands, *s.board, s.draw, s.discard],
    shuffle_hidden=_shuffle_voltage,
    reorder_hidden=_reorder_hands,
    invariants=_voltage_invariants,
    check_view=_voltage_view,
    check_end=_voltage_end,
    also_replays=_voltage_steps,
    wrong=lambda s: (V.Flip(0), 0),  # a flip with no transformer drawn
)


# -- High Voltage ------------------------------------------------------------------------------


def _shuffle_highvoltage(state: H.State, seat: Seat, rng: random.Random) -> H.State:
    """What ``seat`` may not see: the other hands' cards (beyond their sizes) and every
    face-down personal pile (beyond its size); its own hand too while hands are face down."""
    s = state.copy()
    hidden_hands = [o for o in range(s.players) if o != seat or s.phase == H.COUNTDOWN]
    pool = [c for o in hidden_hands for c in s.hands[o]] + [c for p in s.piles for c in p]
    rng.shuffle(pool)
    for o in hidden_hands:
        n = len(s.hands[o])
        s.hands[o][:], pool = pool[:n], pool[n:]
    for p in s.piles:
        n = len(p)
        p[:], pool = pool[:n], pool[n:]
    return s


def _highvoltage_invariants(before: H.State, s: H.State, events: list[H.Event]) -> None:
    assert len(s.discard) >= 1
    if not (s.over and s.reason == "last card"):
        assert s.tops[-1] == s.discard[-1]
    for seat in range(s.players):
        if not s.out[seat] and not (s.over and seat == s.winner):
            # nobody still in sits with an empty pile and a single card: that is a win
            assert not (not s.piles[seat] and len(s.hands[seat]) == 1)
    if s.over:
        assert s.places is not None and sorted(s.places)[0] == 1
        assert events[-1].kind == "end"


def _highvoltage_view(s: H.State, seat: Seat, v: H.HighVoltageView) -> None:
    if seat is None or s.phase == H.COUNTDOWN:
        assert v.hand is None
    else:
        assert v.hand == tuple(H.CARD_FACE[c] for c in s.hands[seat])
    assert v.hand_sizes == tuple(len(h) for h in s.hands)
    assert v.pile_counts == tuple(len(p) for p in s.piles)


def _highvoltage_end(s: H.State, outcome: Outcome) -> None:
    """Places follow the cards left among those still in (the winner aside)."""
    if outcome.winner is not None:
        assert list(outcome.places).count(1) == 1
    still_in = [p for p in range(s.players) if not s.out[p] and p != outcome.winner]
    for a in still_in:
        for b in still_in:
            if s.cards_left(a) < s.cards_left(b):
                assert outcome.places[a] < outcome.places[b]
            if s.cards_left(a) == s.cards_left(b):
                assert outcome.places[a] == outcome.places[b]


def _highvoltage_noise(s: H.State, rng: random.Random, seen: list[H.State]) -> tuple[H.Action, Seat] | None:
    """What real-time players send besides legal actions: a play aimed at a top seen a moment
    ago with a card that fitted it, or any card of the hand on the top (fits or not)."""
    if s.phase != H.PLAY:
        return None
    seat = rng.randrange(s.players)
    hand = [H.CARD_FACE[c] for c in s.hands[seat]]
    recent = [o for o in seen[-12:] if o.phase == H.PLAY][-6:]
    if recent and rng.random() < 0.7:
        old = rng.choice(recent)
        top = H.CARD_FACE[old.top]
        fitting = [f for f in hand if H.fits(f, top)]
        if fitting:
            return H.Play(seat, rng.choice(fitting), top, old.top_no), seat
    if hand:
        return H.Play(seat, rng.choice(hand), H.CARD_FACE[s.top], s.top_no), seat
    return None


def _highvoltage_refused(s: H.State, action: H.Action, e: IllegalActionError) -> None:
    if isinstance(e, H.TooSlowError):  # it names the card that covered the top it was aimed at
        assert isinstance(action, H.Play) and action.top_no < s.top_no
        assert e.covered == H.CARD_FACE[s.tops[action.top_no + 1]]


HIGH_VOLTAGE = Hooks(
    cards=H.all_cards,
    deck=H.DECK_SIZE,
    lists=lambda s: [*s.hands, *s.piles, s.discard, s.tops],
    shuffle_hidden=_shuffle_highvoltage,
    reorder_hidden=_reorder_hands,
    invariants=_highvoltage_invariants,
    check_view=_highvoltage_view,
    check_end=_highvoltage_end,
    noise=_highvoltage_noise,
    on_refused=_highvoltage_refused,
    resign_rate=0.003,
    wrong=lambda s: (H.Draw(0), 0),  # a draw during the countdown
)


# -- the toy third game (tests only) ---------------------------------------------------------


def _shuffle_toy(state: T.State, seat: Seat, rng: random.Random) -> T.State:
    """What ``seat`` may not see: the other hand(s) and the cards left out (their sizes aside)."""
    s = state.copy()
    hidden = [o for o in (0, 1) if o != seat]
    pool = [c for o in hidden for c in s.hands[o]] + s.rest
    rng.shuffle(pool)
    for o in hidden:
        n = len(s.hands[o])
        s.hands[o][:], pool = sorted(pool[:n]), pool[n:]
    s.rest[:] = pool
    return s


def _toy_view(s: T.State, seat: Seat, v: T.ToyView) -> None:
    assert v.hand == (tuple(s.hands[seat]) if seat is not None else None)
    assert v.hand_sizes == (len(s.hands[0]), len(s.hands[1]))


def _toy_end(s: T.State, outcome: Outcome) -> None:
    if outcome.termination is Termination.RULES:
        a, b = s.totals()
        assert outcome.detail == T.ALL_PLAYED and outcome.winner == (None if a == b else (0 if a > b else 1))


TOY = Hooks(
    cards=lambda s: sorted(s.hands[0] + s.hands[1] + s.rest + s.table[0] + s.table[1]),
    deck=T.DECK,
    lists=lambda s: [*s.hands, *s.table, s.rest],
    shuffle_hidden=_shuffle_toy,
    reorder_hidden=_reorder_hands,
    invariants=lambda before, s, events: None,
    check_view=_toy_view,
    check_end=_toy_end,
    resign_rate=0.05,
    wrong=lambda s: (T.Play(1 - s.to_move, s.hands[1 - s.to_move][0]), 1 - s.to_move),  # out of turn
)

#: Every game under test: the registered ones, and the toy (its Rules beside theirs).
UNDER_TEST = {**RULES, T.TOY.info.id: T.TOY}
INFOS = {gid: r.info for gid, r in UNDER_TEST.items()}
HOOKS = {"voltage": VOLTAGE, "high-voltage": HIGH_VOLTAGE, T.TOY.info.id: TOY}


def rules(gid: str) -> Any:
    return UNDER_TEST[gid]


CASES = [(gid, seats) for gid, info in INFOS.items() for seats in range(info.min_seats, info.max_seats + 1)]
CASE_IDS = [f"{gid}-{seats}" for gid, seats in CASES]


# -- the walk ----------------------------------------------------------------------------------


@dataclass
class Step:
    before: State
    seat: Seat
    action: Any
    after: State
    events: list[Any]


def walk(gid: str, seats: int, seed: int, walk_seed: int, *, noisy: bool = False) -> list[Step]:
    """A random match to its end, every action checked on the way by the generic rules: each
    legal action of every seat (the host included) is a choice; now and then a seat resigns
    (at the game's rate) and, if ``noisy``, sends what the game's ``noise`` makes up."""
    r, hooks = rules(gid), HOOKS[gid]
    rng = random.Random(walk_seed)
    state = r.new_match(seed, seats)
    assert r.seats(state) == seats and r.outcome(state) is None
    steps: list[Step] = []
    seen: list[State] = []
    for _ in range(MAX_STEPS):
        if r.outcome(state) is not None:
            return steps
        options = []
        for s in [None, *range(seats)]:
            legal = r.legal_actions(state, s)
            assert len(set(legal)) == len(legal), "legal actions are unique"
            assert r.legal_actions(state, s) is not legal or not legal, "each call returns a fresh list"
            options += [(s, a) for a in legal]
        assert options, "a match that is not over always has something to do"
        if noisy and rng.random() < 0.2 and (made := hooks.noise(state, rng, seen)) is not None:
            action, seat = made
        elif rng.random() < hooks.resign_rate:
            seat = rng.randrange(seats)
            action = r.parse_action(f"resign {seat}")
        else:
            seat, action = rng.choice(options)
        assert r.parse_action(action.text()) == action, "an action round-trips through its text"
        before = state.copy()
        try:
            new, events = r.apply(state, action, seat)
        except IllegalActionError as e:
            assert (seat, action) not in options, f"a legal action was refused: {action.text()} from {seat}"
            assert state == before, "a refused action changed the state"
            hooks.on_refused(state, action, e)
            continue
        assert state == before, "apply changed the state it was given"
        steps.append(Step(state, seat, action, new, events))
        state = new
        seen.append(state)
    raise AssertionError(f"the match did not end within {MAX_STEPS} actions")


def final(steps: list[Step], gid: str, seats: int, seed: int) -> State:
    return steps[-1].after if steps else rules(gid).new_match(seed, seats)


def views(gid: str, state: State, seats: int) -> list[Any]:
    r = rules(gid)
    return [r.view(state, s) for s in [None, *range(seats)]]


cases = pytest.mark.parametrize("gid,seats", CASES, ids=CASE_IDS)
# As many examples as the two property suites ran (100-200 walks per property), give or take: a
# Voltage walk is ~70 actions, a High Voltage one a few hundred with noise.
many = settings(max_examples=100, deadline=None)
some = settings(max_examples=40, deadline=None)


# -- the tests ---------------------------------------------------------------------------------


def test_every_registered_game_is_under_test():
    assert set(HOOKS) == set(RULES) | {T.TOY.info.id}, "a new game brings its Hooks to this suite"


@cases
@many
@given(SEEDS, WALKS)
def test_a_random_match_ends_with_an_outcome_its_views_agree_with(gid, seats, seed, walk_seed):
    steps = walk(gid, seats, seed, walk_seed)
    r, end = rules(gid), final(steps, gid, seats, seed)
    outcome = r.outcome(end)
    assert isinstance(outcome, Outcome) and isinstance(outcome.termination, Termination)
    assert len(outcome.places) == seats and min(outcome.places) == 1
    assert outcome.winner is None or outcome.places[outcome.winner] == 1
    spectator = r.view(end, None)
    assert outcome.winner == spectator.winner and outcome.reason == spectator.reason
    assert Outcome.ending(outcome.reason) == (outcome.termination, outcome.detail)
    assert (outcome.termination is Termination.RULES) == bool(outcome.detail)
    assert all(not r.legal_actions(end, s) for s in [None, *range(seats)])
    HOOKS[gid].check_end(end, outcome)


@cases
@many
@given(SEEDS, WALKS)
def test_every_card_is_accounted_for_and_the_games_own_rules_hold_after_every_action(gid, seats, seed, walk_seed):
    hooks = HOOKS[gid]
    names = tuple(f"P{s}" for s in range(seats))
    assert hooks.cards(rules(gid).new_match(seed, seats)) == list(range(hooks.deck))
    for st_ in walk(gid, seats, seed, walk_seed, noisy=True):
        assert hooks.cards(st_.after) == list(range(hooks.deck))
        hooks.invariants(st_.before, st_.after, st_.events)
        assert all(lines(gid, st_.events, names))  # every event can be worded (by the tui)


@cases
@some
@given(SEEDS, WALKS)
def test_apply_never_changes_its_input_for_any_action_of_any_seat(gid, seats, seed, walk_seed):
    """Every action every seat could send (a resignation included) at every few steps, not just
    the one taken: the state is unchanged, the new one shares no list with it, and an action
    from a seat that may not take it is refused."""
    r, hooks = rules(gid), HOOKS[gid]
    for k, st_ in enumerate(walk(gid, seats, seed, walk_seed)):
        if k % 3:
            continue
        s, copy = st_.before, st_.before.copy()
        legal = {t: r.legal_actions(s, t) for t in [None, *range(seats)]}
        tries = [(t, a) for t in legal for a in legal[t]] + [(t, r.parse_action(f"resign {t}")) for t in range(seats)]
        for t, a in tries:
            try:
                new, _ = r.apply(s, a, t)
            except IllegalActionError:  # (a resignation from a seat already out)
                assert a not in legal[t]
                assert s == copy
                continue
            assert s == copy and new is not s
            assert not {id(x) for x in hooks.lists(new)} & {id(x) for x in hooks.lists(s)}
        for t in range(seats):  # another seat's action, sent by one that may not take it
            for a in (a for u in legal for a in legal[u] if a not in legal[t]):
                with pytest.raises(IllegalActionError):
                    r.apply(s, a, t)
                assert s == copy


@cases
@many
@given(SEEDS, WALKS, st.floats(min_value=0, max_value=1))
def test_a_replay_cut_anywhere_and_the_stored_log_reach_the_same_state(gid, seats, seed, walk_seed, cut):
    r = rules(gid)
    steps = walk(gid, seats, seed, walk_seed, noisy=True)
    actions = [st_.action for st_ in steps]
    end = final(steps, gid, seats, seed)
    assert r.replay(seed, seats, actions) == end
    k = int(cut * len(actions))
    assert r.replay(seed, seats, actions[:k]) == (steps[k].before if k < len(steps) else end)
    assert r.replay(seed, seats, [r.parse_action(a.text()) for a in actions]) == end
    folded = r.new_match(seed, seats)  # what a restart and a replay screen do
    for a in actions:
        _a, folded, _e = r.apply_logged(folded, a.text())
    assert folded == end and views(gid, folded, seats) == views(gid, end, seats)
    HOOKS[gid].also_replays(seed, seats, actions, end)


@cases
@some  # (each example checks every seat's view after every action)
@given(SEEDS, WALKS, st.integers(0, 2**32 - 1))
def test_no_view_shows_what_its_seat_may_not_see(gid, seats, seed, walk_seed, shuffle_seed):
    r, hooks = rules(gid), HOOKS[gid]
    rng = random.Random(shuffle_seed)
    changed = 0
    for st_ in walk(gid, seats, seed, walk_seed, noisy=True):
        s = st_.after
        for seat in [None, *range(seats)]:
            v = r.view(s, seat)
            hooks.check_view(s, seat, v)
            t = hooks.shuffle_hidden(s, seat, rng)
            assert hooks.cards(t) == list(range(hooks.deck))  # (the shuffle itself keeps every card)
            changed += t != s
            assert r.view(t, seat) == v, f"seat {seat} sees what it may not"
    assert changed, "the shuffles really changed hidden cards"


@cases
@some
@given(SEEDS, WALKS, st.integers(0, 2**32 - 1))
def test_the_order_of_hidden_cards_stays_hidden_after_later_actions(gid, seats, seed, walk_seed, shuffle_seed):
    """Two states that differ only in the order of what ``seat`` may not see give it the same
    view now and after each of the next actions, the same actions applied to both."""
    r, hooks = rules(gid), HOOKS[gid]
    rng = random.Random(shuffle_seed)
    steps = walk(gid, seats, seed, walk_seed)
    for seat in [None, *range(seats)]:
        reordered = possible = 0
        for k in range(0, len(steps), 7):
            s = steps[k].before
            t = hooks.reorder_hidden(s, seat, rng)
            reordered += t != s
            possible += any(len(set(h)) > 1 for o, h in enumerate(s.hands) if o != seat)
            for st_ in steps[k : k + 12]:
                assert r.view(t, seat) == r.view(s, seat)
                s, _ = r.apply(s, st_.action, st_.seat)
                t, _ = r.apply(t, st_.action, st_.seat)
            assert r.view(t, seat) == r.view(s, seat)
        assert reordered or not possible, "the reorders really reordered hands (where two cards differ)"


@pytest.mark.parametrize("gid", list(UNDER_TEST))
def test_an_illegal_action_is_refused_and_changes_nothing(gid):
    r = rules(gid)
    state = r.new_match(7, INFOS[gid].min_seats)
    before = views(gid, state, INFOS[gid].min_seats)
    wrong, seat = HOOKS[gid].wrong(state)
    with pytest.raises(IllegalActionError):
        r.apply(state, wrong, seat)
    assert views(gid, state, INFOS[gid].min_seats) == before


def test_the_registry_names_each_game_once_and_checks_seats():
    assert list(GAMES) == ["voltage", "high-voltage"]
    assert GAMES["voltage"].real_time is False and GAMES["high-voltage"].real_time is True
    with pytest.raises(RuleError, match="seat_count") as e:
        registered("voltage").new_match(1, 3)
    assert e.value.params == {"game": "voltage", "seats": 3, "min": 2, "max": 2}
    with pytest.raises(ValueError, match="seat_count"):
        registered("high-voltage").new_match(1, 5)
    with pytest.raises(KeyError, match="the games are voltage, high-voltage"):
        registered("chess")
