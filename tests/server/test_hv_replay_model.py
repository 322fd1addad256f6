"""High Voltage replays: every step of a finished match, rounds (ended by a flip) to
jump to, and only what the viewer's seat could see."""

from __future__ import annotations

import random

import pytest

import server.replay as R
from engine.highvoltage import rules as H
from server.replay import Replay, ReplayError
from server.store.db import Store
from tests.support.words import lines, refused

A, B, C = "SHA256:alice", "SHA256:bob", "SHA256:carol"
SEATS = [{"name": "Alice", "identity": A}, {"name": "Bob", "identity": B}, {"name": "Carol", "identity": C}]


def random_hv_match(seed: int, players: int, rng: random.Random) -> tuple[list[H.Action], H.State]:
    """A whole match as a host would log it: GO after each countdown, then plays, draws
    and stuck declarations from seats in random order."""
    s = H.new_match(seed, players)
    actions: list[H.Action] = []
    while not s.over and len(actions) < 5000:
        if s.phase == H.COUNTDOWN:
            a: H.Action = H.GO
        else:
            legal = H.legal_actions(s, rng.choice(s.active()))
            if not legal:
                continue
            plays = [x for x in legal if isinstance(x, H.Play)]
            a = rng.choice(plays) if plays and rng.random() < 0.7 else rng.choice(legal)
        s, _ = H.apply(s, a, None)
        actions.append(a)
    return actions, s


def store_hv_match(store: Store, seed: int = 1) -> tuple[int, list[H.Action], H.State]:
    actions, final = random_hv_match(seed, 3, random.Random(seed))
    assert final.over and final.flips >= 2
    mid = store.create_match("high-voltage", seed, SEATS)
    for i, a in enumerate(actions):
        store.append_action(mid, i, a.text())
    assert final.places is not None  # the match is over
    store.finish_match(mid, list(final.places), final.reason)
    return mid, actions, final


@pytest.fixture
def stored(tmp_path):
    with Store.open(tmp_path) as store:
        yield (store, *store_hv_match(store))


def test_steps_reproduce_every_position(stored):
    store, mid, actions, final = stored
    r = Replay.load(store, mid)
    assert isinstance(r, Replay) and r.unit == "round"
    assert r.last == len(actions) and r.names == ("Alice", "Bob", "Carol")
    assert r.state(0) == H.new_match(1, 3) and r.state(r.last) == final
    s = H.new_match(1, 3)
    for i, a in enumerate(actions, 1):
        s, _ = H.apply(s, a, None)
        assert r.state(i) == s and r.action(i) == a.text()
    assert r.view(r.last).over and r.view(r.last).places == final.places


def test_rounds_end_where_the_pile_was_flipped(stored):
    store, mid, _, final = stored
    r = Replay.load(store, mid)
    assert r.sets == final.flips
    for k, step in enumerate(r.set_steps, 1):
        assert r.state(step).flips == k and r.state(step - 1).flips == k - 1
        assert r.view(step).counting_down  # a flip starts a countdown
        assert any("Everyone is stuck" in line for line in lines("high-voltage", r.step_entries(step), r.names))
    assert r.next_set(0) == r.set_steps[0] and r.prev_set(r.set_steps[1]) == r.set_steps[0]


def test_a_spectator_sees_no_hand_and_a_player_only_their_own(stored):
    store, mid, _, _ = stored
    spectator = Replay.load(store, mid)
    assert spectator.seat is None
    assert all(spectator.view(i).hand is None for i in range(len(spectator)))
    assert Replay.load(store, mid, viewer="SHA256:someone-else").seat is None
    carol = Replay.load(store, mid, viewer=C)
    assert carol.seat == 2
    assert carol.view(0).hand is None  # dealt face down: the countdown
    v = carol.view(5)
    assert v.seat == 2 and v.hand == tuple(H.CARD_FACE[c] for c in carol.state(5).hands[2])
    assert v.hand_sizes == tuple(len(h) for h in carol.state(5).hands)  # the others: sizes only


def test_the_feed_grows_with_the_steps(stored):
    store, mid, _, _ = stored
    r = Replay.load(store, mid)
    assert r.entries(0) == list(r.step_entries(0))
    assert len(r.entries(r.last)) == sum(len(r.step_entries(i)) for i in range(len(r)))
    said = lines("high-voltage", r.entries(r.last), r.names)
    assert any("Alice" in line or "Bob" in line or "Carol" in line for line in said)


def test_a_damaged_or_unfinished_log_is_refused_with_the_reason(tmp_path):
    with Store.open(tmp_path) as store:
        mid = store.create_match("high-voltage", 1, SEATS)
        with refused("not finished", ReplayError):
            Replay.load(store, mid)
        store.append_action(mid, 0, "go")
        store.append_action(mid, 1, "play 0 9+1 on 3-2 #7")  # not the top card, not in hand
        store.finish_match(mid, [1, 2, 3], "last card")
        with refused("action 1 .* does not replay", ReplayError):
            Replay.load(store, mid)


def test_every_hand_is_shown_at_every_step_of_a_finished_match(stored):
    """Issue 14: a finished High Voltage match's replay shows every hand, even a
    spectator's, during the countdowns too (dealt face down then, but the match is over)."""
    store, mid, _, _ = stored
    r = Replay.load(store, mid)
    assert r.viewpoints == (R.ALL, 0, 1, 2)
    counted = 0
    for i in range(len(r)):
        state = r.state(i)
        hands = r.hands(i)
        assert hands == tuple(tuple(H.CARD_FACE[c] for c in state.hands[s]) for s in range(3))
        counted += r.view(i).counting_down and any(hands)
    assert counted  # some countdown step shows the hands dealt face down


def test_each_seat_view_is_exactly_what_that_seat_saw(stored):
    store, mid, _, _ = stored
    r = Replay.load(store, mid)
    for i in range(0, len(r), 5):
        for seat in (None, 0, 1, 2):
            assert r.seat_view(i, seat) == H.view(r.state(i), seat)
    assert [r.next_viewpoint(p) for p in r.viewpoints] == [0, 1, 2, R.ALL]
