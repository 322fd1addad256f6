"""The replay model: every step of a finished match, sets to jump to, views as allowed."""

import random
from dataclasses import replace

import pytest

import server.replay as R
from engine.voltage import rules as V
from server.replay import Replay, ReplayError
from server.store.db import Store
from tests.support.words import lines, refused

A, B = "SHA256:alice", "SHA256:bob"
SEATS = [{"name": "Alice", "identity": A}, {"name": "Bob", "identity": B}]


def random_match(seed, rng):
    s = V.new_match(seed)
    actions = []
    while not s.over and len(actions) < 2000:
        a = rng.choice(V.legal_actions(s))
        actions.append(a)
        s, _ = V.apply(s, a)
    return actions, s


@pytest.fixture
def stored(tmp_path):
    """A finished match that scored some sets, in a store."""
    rng = random.Random(8)
    actions, final = random_match(2024, rng)
    assert final.over and sum(final.scores) >= 2
    with Store.open(tmp_path) as store:
        mid = store.create_match("voltage", 2024, SEATS)
        for i, a in enumerate(actions):
            store.append_action(mid, i, a.text())
        store.finish_match(mid, [1, 2] if final.winner == 0 else [2, 1], final.reason, final.scores)
        yield store, mid, actions, final


def test_steps_reproduce_every_position(stored):
    store, mid, actions, final = stored
    r = Replay.load(store, mid)
    assert len(r) == len(actions) + 1 and r.last == len(actions)
    assert r.state(0) == V.new_match(2024)
    assert r.state(r.last) == final
    s = V.new_match(2024)
    for i, a in enumerate(actions[:30], 1):
        s, _ = V.apply(s, a)
        assert r.state(i) == s
        assert r.action(i) == a.text()
    assert r.action(0) is None
    assert r.state(-5) == r.state(0) and r.state(10**6) == final  # clamped


def test_a_spectator_sees_no_hand_and_a_player_sees_their_own(stored):
    store, mid, _, _ = stored
    spectator = Replay.load(store, mid)
    assert spectator.seat is None
    assert all(spectator.view(i).hand is None for i in range(len(spectator)))
    stranger = Replay.load(store, mid, viewer="SHA256:someone-else")
    assert stranger.seat is None
    bob = Replay.load(store, mid, viewer=B)
    assert bob.seat == 1
    v = bob.view(3)
    assert v.seat == 1 and v.hand == tuple(map(V.Card.of, bob.state(3).hands[1]))
    assert v.legal == ()  # a replay is not played


def test_sets_can_be_jumped_to(stored):
    store, mid, _, final = stored
    r = Replay.load(store, mid)
    assert r.sets == sum(final.scores)
    assert r.set_start(1) == 0
    for k, step in enumerate(r.set_steps, 1):
        assert sum(r.state(step).scores) == k
        assert sum(r.state(step - 1).scores) == k - 1
        assert r.set_start(k + 1) == step
        assert r.set_at(step) == k + 1 and r.set_at(step - 1) == k
    first = r.set_steps[0]
    assert r.next_set(0) == first and r.prev_set(first) == 0
    assert r.next_set(first) == (r.set_steps[1] if r.sets > 1 else r.last)
    assert r.prev_set(r.last + 1) == r.set_steps[-1]
    with pytest.raises(ValueError):
        r.set_start(r.sets + 2)


def test_the_log_grows_with_the_steps(stored):
    store, mid, _, _ = stored
    r = Replay.load(store, mid)
    assert r.entries(0) == list(r.step_entries(0)) and "goes first" in lines("voltage", r.entries(0), r.names)[0]
    assert len(r.entries(r.last)) == sum(len(r.step_entries(i)) for i in range(len(r)))
    assert "wins the match" in lines("voltage", r.entries(r.last), r.names)[-1]


def test_unknown_and_unfinished_matches_do_not_replay(tmp_path):
    with Store.open(tmp_path) as store:
        mid = store.create_match("voltage", 1, SEATS)
        with refused("not finished", ReplayError):
            Replay.load(store, mid)
        with refused("no match", ReplayError):
            Replay.load(store, mid + 1)


def test_every_hand_is_shown_at_every_step_of_a_finished_match(stored):
    """Issue 14: a finished match's replay shows both hands, whoever watches."""
    store, mid, _, _ = stored
    for viewer in (None, B):
        r = Replay.load(store, mid, viewer=viewer)
        assert r.viewpoints == (R.ALL, 0, 1)
        for i in range(len(r)):
            state = r.state(i)
            assert r.hands(i) == tuple(tuple(V.Card.of(c) for c in state.hands[s]) for s in (0, 1))
        assert r.hands(r.last + 9) == r.hands(r.last)  # clamped like the other steps


def test_each_seat_view_is_exactly_what_that_seat_saw(stored):
    store, mid, _, _ = stored
    r = Replay.load(store, mid)  # a spectator may still look through either seat's eyes
    for i in range(0, len(r), 7):
        for seat in (0, 1):
            v = r.seat_view(i, seat)
            assert v == replace(V.view(r.state(i), seat), legal=())
            assert v.hand == r.hands(i)[seat]  # its own hand ...
            other = r.seat_view(i, 1 - seat)
            assert len(v.hand_backs[1 - seat]) == len(other.hand)  # ... and only a count of the other
        assert r.seat_view(i, None).hand is None
    assert r.view(5) == r.seat_view(5, None)


def test_the_seat_view_key_cycles_all_hands_then_each_seat(stored):
    store, mid, _, _ = stored
    r = Replay.load(store, mid)
    assert [r.next_viewpoint(p) for p in (R.ALL, 0, 1)] == [0, 1, R.ALL]
    assert r.next_viewpoint("nonsense") == R.ALL
