"""One conformance suite for every registered game (OpenSpiel's random simulation test):
random playthroughs where every legal action is accepted, ``apply`` never changes the
state it is given, actions round-trip through text, a replay and a fold of the stored
log both reach the same views, every seat's view stays the same when what it may not
see is shuffled, and an ended match has an outcome that agrees with its views."""

from __future__ import annotations

import random

import pytest

from engine.game import Outcome, Termination
from engine.highvoltage import rules as H
from engine.registry import GAMES, RULES, rules
from engine.voltage import rules as V
from engine.voltage.cards import CARD_TRANSFORMER


def _shuffle_voltage(state, seat, rng):
    """What ``seat`` may not see: the other hand (beyond its count of transformer backs)
    and the draw pile's order (beyond the back of its top card)."""
    s = state.copy()
    for other in (0, 1):
        if other == seat:
            continue
        hand, draw = s.hands[other], s.draw
        for i in range(len(hand)):  # swap cards of the same back with the draw pile
            same = [j for j in range(len(draw) - 1) if CARD_TRANSFORMER[draw[j]] == CARD_TRANSFORMER[hand[i]]]
            if same and rng.random() < 0.5:
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
        s.draw[:] = rest + [top]
    return s


def _shuffle_highvoltage(state, seat, rng):
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


SHUFFLE_HIDDEN = {"voltage": _shuffle_voltage, "high-voltage": _shuffle_highvoltage}

CASES = [(gid, seats) for gid, info in GAMES.items() for seats in range(info.min_seats, info.max_seats + 1)]


def views(r, state, seats):
    return [r.view(state, s) for s in [None, *range(seats)]]


def playthrough(gid, seats, seed, check_every=5, max_steps=4000):
    r = rules(gid)
    rng = random.Random(seed * 31 + seats)
    state = r.new_match(seed, seats)
    assert r.seats(state) == seats and r.outcome(state) is None
    played = []
    for n in range(max_steps):
        if r.outcome(state) is not None:
            break
        options = [(s, a) for s in [None, *range(seats)] for a in r.legal_actions(state, s)]
        assert options, "a match that is not over always has something to do"
        seat, action = rng.choice(options)
        assert r.parse_action(action.text()) == action  # text round trip
        if n % check_every == 0:
            before = views(r, state, seats)
            for s in range(seats):
                shuffled = SHUFFLE_HIDDEN[gid](state, s, random.Random(n))
                assert r.view(shuffled, s) == before[s + 1], f"seat {s} sees what it may not (step {n})"
        new, events = r.apply(state, action, seat)  # a legal action is accepted
        if n % check_every == 0:
            assert views(r, state, seats) == before, "apply changed the state it was given"
        assert isinstance(events, list)
        state = new
        played.append(action)
    return r, state, played


@pytest.mark.parametrize("gid,seats", CASES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_playthroughs_keep_every_rule_of_the_interface(gid, seats, seed):
    r, state, played = playthrough(gid, seats, seed)
    final = views(r, state, seats)
    # A replay from the seed and the actions reaches the same point, as does the stored
    # log applied one text at a time (what a restart and a replay screen do).
    assert views(r, r.replay(seed, seats, played), seats) == final
    folded = r.new_match(seed, seats)
    for action in played:
        _a, folded, _e = r.apply_logged(folded, action.text())
    assert views(r, folded, seats) == final
    outcome = r.outcome(state)
    if outcome is not None:
        assert isinstance(outcome, Outcome) and isinstance(outcome.termination, Termination)
        assert len(outcome.places) == seats and min(outcome.places) == 1
        assert outcome.winner is None or outcome.places[outcome.winner] == 1
        assert outcome.winner == final[0].winner
        assert outcome.termination.value == final[0].reason
        assert all(not r.legal_actions(state, s) for s in [None, *range(seats)])


@pytest.mark.parametrize("gid", list(RULES))
def test_an_illegal_action_is_refused_and_changes_nothing(gid):
    from engine.errors import IllegalActionError

    r = rules(gid)
    state = r.new_match(7, GAMES[gid].min_seats)
    before = views(r, state, GAMES[gid].min_seats)
    wrong = V.Flip(0) if gid == "voltage" else H.Draw(0)  # a flip with no transformer; a draw in the countdown
    with pytest.raises(IllegalActionError):
        r.apply(state, wrong, 0)
    assert views(r, state, GAMES[gid].min_seats) == before


def test_the_registry_names_each_game_once_and_checks_seats():
    assert list(GAMES) == ["voltage", "high-voltage"]
    assert GAMES["voltage"].real_time is False and GAMES["high-voltage"].real_time is True
    with pytest.raises(ValueError, match="2 players, not 3"):
        rules("voltage").new_match(1, 3)
    with pytest.raises(ValueError, match="2 to 4 players, not 5"):
        rules("high-voltage").new_match(1, 5)
    with pytest.raises(KeyError, match="the games are voltage, high-voltage"):
        rules("chess")
