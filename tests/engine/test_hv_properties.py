"""High Voltage invariants over random real-time play (hypothesis).

Random walks: the host says go after each countdown; between, random seats
send random legal actions, stale plays aimed at tops seen a moment ago,
wrong plays, and now and then a resignation.  After every step:
all 73 cards are accounted for, a refused action changed nothing, and a view
shows nothing of another seat's hidden cards.  At the end, replaying the seed
and the accepted actions reproduces the match.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import IllegalActionError
from engine.highvoltage import rules as H


def _candidate(s: H.State, rng: random.Random, seen: list[H.HighVoltageView]) -> tuple[H.Action, int | None]:
    """An action to send and who sends it (None: the host)."""
    if s.phase == H.COUNTDOWN and rng.random() < 0.9:
        return H.GO, None
    seat = rng.randrange(s.players)
    r = rng.random()
    if r < 0.003:
        return H.Resign(seat), seat
    if r < 0.15 and seen:
        # a play aimed at a top seen a moment ago, with a card that fitted it
        old = rng.choice(seen[-6:])
        hand = [H.CARD_FACE[c] for c in s.hands[seat]]
        fitting = [f for f in hand if H.fits(f, old.top)]
        if fitting:
            return H.Play(seat, rng.choice(fitting), old.top, old.top_no), seat
    if r < 0.2 and s.hands[seat]:
        card = H.CARD_FACE[rng.choice(s.hands[seat])]
        return H.Play(seat, card, H.CARD_FACE[s.top], s.top_no), seat  # fits or not
    legal = H.legal_actions(s, seat)
    if not legal:
        return H.Stuck(seat), seat
    plays = [a for a in legal if isinstance(a, H.Play)]
    if plays and rng.random() < 0.7:
        return rng.choice(plays), seat
    if rng.random() < 0.08:
        return H.Stuck(seat), seat
    draws = [a for a in legal if isinstance(a, H.Draw)]
    return (rng.choice(draws) if draws else rng.choice(legal)), seat


def _walk(seed: int, players: int, walk: int, max_steps: int, check_step=None):
    rng = random.Random(walk)
    s = H.new_match(seed, players)
    log: list[H.Action] = []
    seen: list[H.HighVoltageView] = []
    refused = slow = 0
    for _ in range(max_steps):
        if s.over:
            break
        action, who = _candidate(s, rng, seen)
        before = s.key()
        try:
            s2, events = H.apply(s, action, who)
        except H.TooSlowError as e:
            slow += 1
            assert isinstance(action, H.Play) and action.top_no < s.top_no
            assert e.covered == H.CARD_FACE[s.tops[action.top_no + 1]]
            assert s.key() == before
            continue
        except IllegalActionError:
            refused += 1
            assert s.key() == before
            continue
        assert s.key() == before  # apply copies
        log.append(action)
        s = s2
        if check_step is not None:
            check_step(s, events)
        if s.phase == H.PLAY:
            seen.append(H.view(s, None))
    return s, log, refused, slow


def _accounted(s: H.State, events: list[H.Event]) -> None:
    assert H.all_cards(s) == list(range(H.DECK_SIZE))
    assert len(s.discard) >= 1
    if not (s.over and s.reason == "last card"):
        assert s.tops[-1] == s.discard[-1]
    assert all(len(h) >= 0 for h in s.hands)
    for seat in range(s.players):
        if not s.out[seat] and not (s.over and seat == s.winner):
            # nobody still in sits with an empty pile and a single card: that is a win
            assert not (not s.piles[seat] and len(s.hands[seat]) == 1)
    if s.over:
        assert s.places is not None and sorted(s.places)[0] == 1
        assert events[-1].kind == "end"
    for e in events:
        e.text(("A", "B", "C", "D"))  # every event can be worded


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 4), st.integers(0, 2**32))
def test_all_cards_accounted_for_after_every_step(seed, players, walk):
    s, log, _, _ = _walk(seed, players, walk, 800, _accounted)
    assert H.all_cards(s) == list(range(73))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 4), st.integers(0, 2**32))
def test_replay_reproduces_the_match(seed, players, walk):
    s, log, _, _ = _walk(seed, players, walk, 800)
    assert H.replay(seed, players, log) == s
    # and by text, as a match log would keep it
    assert H.replay(seed, players, [H.parse_action(a.text()) for a in log]) == s


def _hide_shuffled(s: H.State, seat: int, rng: random.Random) -> H.State:
    """``s`` with ``seat``'s hidden cards (hand and pile) dealt again at random, sizes kept."""
    t = s.copy()
    cards = t.hands[seat] + t.piles[seat]
    rng.shuffle(cards)
    n = len(t.hands[seat])
    t.hands[seat], t.piles[seat] = cards[:n], cards[n:]
    return t


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 4), st.integers(0, 2**32), st.integers(0, 300))
def test_views_hide_other_hands(seed, players, walk, steps):
    s, _, _, _ = _walk(seed, players, walk, steps)
    rng = random.Random(walk)
    for other in range(players):
        t = _hide_shuffled(s, other, rng)
        for seat in [None, *range(players)]:
            if seat != other:
                assert H.view(t, seat) == H.view(s, seat)
    for seat in range(players):
        v = H.view(s, seat)
        if s.phase == H.COUNTDOWN:
            assert v.hand is None
        else:
            assert v.hand == tuple(H.CARD_FACE[c] for c in s.hands[seat])
        assert v.hand_sizes == tuple(len(h) for h in s.hands)
        assert v.pile_counts == tuple(len(p) for p in s.piles)
    assert H.view(s, None).hand is None


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 4), st.integers(0, 2**32))
def test_random_matches_end_and_rank_everyone(seed, players, walk):
    s, log, refused, slow = _walk(seed, players, walk, 5000)
    assert s.over
    assert s.places is not None and len(s.places) == players
    if s.winner is not None:
        assert s.places[s.winner] == 1
        assert list(s.places).count(1) == 1
    # places follow cards left among those still in (the winner aside)
    still_in = [p for p in range(players) if not s.out[p] and p != s.winner]
    for a in still_in:
        for b in still_in:
            if s.cards_left(a) < s.cards_left(b):
                assert s.places[a] < s.places[b]
            if s.cards_left(a) == s.cards_left(b):
                assert s.places[a] == s.places[b]
