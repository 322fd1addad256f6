"""High Voltage rules: one test (or a few) per ruling of the rules page (tui/rules.md, "High Voltage"),
plus the rulings decided in engine/highvoltage/rules.py's docstring."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter

import pytest

from engine.errors import IllegalActionError, InvalidActionError
from engine.highvoltage import rules as H
from engine.highvoltage.rules import Draw, Face, Play, Resign, Stuck
from tests.support.words import lines, refused, said


def F(code: str) -> Face:
    return Face.parse(code)


def table(
    hands: list[list[str]],
    piles: list[list[str]] | None = None,
    discard: list[str] = ("5/2",),  # type: ignore[assignment]
    *,
    fill: bool = True,
    phase: int = H.PLAY,
) -> H.State:
    """A hand-built state.  Faces by code; piles and discard bottom to top.

    With ``fill`` the cards not named go into the discard pile just above its
    bottom card (under it when only one card is named), so all 73 are there.
    """
    free = list(range(H.DECK_SIZE))

    def take(code: str) -> int:
        f = F(code)
        for i, c in enumerate(free):
            if H.CARD_FACE[c] == f:
                return free.pop(i)
        raise AssertionError(f"no {code} left in the deck")

    n = len(hands)
    s = H.State.__new__(H.State)
    s.seed = 0
    s.players = n
    s.hands = [[take(c) for c in h] for h in hands]
    s.piles = [[take(c) for c in p] for p in (piles or [[] for _ in range(n)])]
    d = [take(c) for c in discard]
    if fill:
        d = d[:1] + free + d[1:] if len(d) > 1 else free + d
    s.discard = d
    s.tops = [d[-1]]
    s.phase = phase
    s.declared = [False] * n
    s.out = [False] * n
    s.resigned = []
    s.plays = 0
    s.flips = 0
    s.flips_in_row = 0
    s.winner = None
    s.reason = ""
    s.places = None
    return s


def faces(s: H.State, seat: int) -> list[Face]:
    return [H.CARD_FACE[c] for c in s.hands[seat]]


def aim(s: H.State, seat: int, code: str) -> Play:
    return H.view(s, seat).aim(F(code))


def texts(events: list[H.Event], names=("Alice", "Bob", "Carol", "Dan")) -> list[str]:
    return lines("high-voltage", events, names)  # as the tui words them


# ---------------------------------------------------------------------------
# Cards (73)


class TestDeck:
    def test_seventy_three_cards(self):
        assert H.DECK_SIZE == 73
        assert sum(copies for _, _, copies in H.DECK) == 73

    def test_every_pair_at_least_twice_values_and_modifiers_in_range(self):
        count = Counter(H.CARD_FACE)
        assert set(count) == {Face(v, m) for v in range(1, 11) for m in (1, 2, 3)}
        assert min(count.values()) == 2

    def test_the_extras_of_the_ruling(self):
        count = Counter(H.CARD_FACE)
        extras = {f: c - 2 for f, c in count.items() if c > 2}
        expected = {Face(v, 1): 1 for v in range(1, 11)}
        expected.update({Face(v, 2): 1 for v in (3, 6, 9)})
        assert extras == expected

    def test_the_deck_is_one_piece_of_data(self):
        # the per-card tables are all derived from DECK
        assert H.CARD_FACE == tuple(Face(v, m) for v, m, c in H.DECK for _ in range(c))
        assert H.CARD_VALUE == tuple(f.value for f in H.CARD_FACE)

    def test_face_text_round_trip(self):
        for f in set(H.CARD_FACE):
            assert Face.parse(f.code) == f
        assert F("7±3") == F("7+-3") == F("7:3") == Face(7, 3)
        assert F("7/3").label == "7 (±3)" == str(F("7/3"))
        for bad in ("0/1", "11/1", "5/4", "5/0", "x/1", "53"):
            with pytest.raises(ValueError):
                Face.parse(bad)


# ---------------------------------------------------------------------------
# Setup


class TestSetup:
    @pytest.mark.parametrize("players,pile", [(2, 32), (3, 20), (4, 14)])
    def test_deal(self, players, pile):
        s = H.new_match(11, players)
        assert len(s.discard) == 1 and s.tops == s.discard
        assert [len(h) for h in s.hands] == [4] * players
        assert [len(p) for p in s.piles] == [pile] * players
        assert H.all_cards(s) == list(range(73))
        assert s.phase == H.COUNTDOWN and not s.over

    def test_72_cards_split_evenly(self):
        for n in (2, 3, 4):
            s = H.new_match(3, n)
            assert {s.cards_left(i) for i in range(n)} == {72 // n}

    def test_hand_is_the_top_four_of_ones_own_pile(self):
        # replaying the shuffle: the hand comes off the top (the end) of the pile
        import random

        deck = list(range(73))
        random.Random(5).shuffle(deck)
        deck.pop()
        s = H.new_match(5, 2)
        pile0 = deck[:36]
        assert sorted(s.hands[0]) == sorted(pile0[-4:])
        assert s.piles[0] == pile0[:-4]

    @pytest.mark.parametrize("players", [0, 1, 5])
    def test_two_to_four_players(self, players):
        with pytest.raises(ValueError, match="2 to 4 players"):
            H.new_match(0, players)

    def test_seeded(self):
        assert H.new_match(8, 3) == H.new_match(8, 3)
        assert H.new_match(8, 3) != H.new_match(9, 3)

    def test_hands_unseen_until_the_countdown_reveals_them(self):
        s = H.new_match(2, 3)
        for seat in range(3):
            v = H.view(s, seat)
            assert v.hand is None and v.counting_down and not v.can_act
            assert v.hand_sizes == (4, 4, 4)
        assert H.view(s, None).hand is None
        s, ev = H.apply(s, H.GO)
        assert texts(ev) == ["Un, dos, tres! Hands up: play!"]
        assert H.view(s, 1).hand == tuple(faces(s, 1))
        assert H.view(s, 1).can_act
        assert H.view(s, None).hand is None

    def test_nothing_but_go_and_resign_during_the_countdown(self):
        s = H.new_match(2, 2)
        card = H.CARD_FACE[s.hands[0][0]]
        for a in (Draw(0), Stuck(0), Play(0, card, H.CARD_FACE[s.top], 0)):
            with refused("wait for the countdown", IllegalActionError, "high-voltage"):
                H.apply(s, a, 0)
        H.apply(s, Resign(0), 0)

    def test_only_the_host_says_go_and_only_in_a_countdown(self):
        s = H.new_match(2, 2)
        with refused("only the host", IllegalActionError, "high-voltage"):
            H.apply(s, H.GO, 0)
        s, _ = H.apply(s, H.GO)
        with refused("already open", IllegalActionError, "high-voltage"):
            H.apply(s, H.GO)

    def test_start_events(self):
        assert texts(H.start_events(H.new_match(0, 4))) == [
            "Cards dealt to 4 players; four each in hand, face down."
        ]


# ---------------------------------------------------------------------------
# The fit rule


class TestFit:
    def test_wrap(self):
        assert [H.wrap(n) for n in (11, 12, 13, 0, -1, -2, 1, 10)] == [1, 2, 3, 10, 9, 8, 1, 10]

    def test_targets_plus_and_minus(self):
        assert set(F("5/2").targets) == {3, 7}
        assert set(F("7/3").targets) == {4, 10}

    def test_wrap_above_ten(self):
        assert set(F("10/1").targets) == {1, 9}
        assert set(F("9/3").targets) == {2, 6}
        assert set(F("10/3").targets) == {3, 7}
        assert H.fits(F("1/2"), F("10/1")) and H.fits(F("3/1"), F("10/3"))

    def test_wrap_below_one(self):
        assert set(F("1/1").targets) == {2, 10}
        assert set(F("1/3").targets) == {4, 8}
        assert set(F("2/3").targets) == {5, 9}
        assert H.fits(F("10/2"), F("1/1")) and H.fits(F("8/1"), F("1/3"))

    def test_a_play_wrapping_at_the_top_end(self):
        s = table([["2/1", "4/1"], ["6/1"]], [["1/1"], ["1/2"]], ["9/3"])
        s, ev = H.apply(s, aim(s, 0, "2/1"), 0)
        assert H.CARD_FACE[s.top] == F("2/1") and texts(ev) == ["Alice played 2 (±1)."]

    def test_a_play_wrapping_at_the_bottom_end(self):
        s = table([["9/2", "4/1"], ["6/1"]], [["1/1"], ["1/2"]], ["2/3"])
        s, _ = H.apply(s, aim(s, 0, "9/2"), 0)
        assert H.CARD_FACE[s.top] == F("9/2")

    def test_a_card_that_does_not_fit_is_refused_and_stays_in_hand(self):
        s = table([["6/1", "4/1"], ["6/2"]], [["1/1"], ["1/2"]], ["5/2"])
        before = s.key()
        with refused(r"^a 6 does not fit on 5 \(±2\)$", IllegalActionError, "high-voltage"):
            H.apply(s, aim(s, 0, "6/1"), 0)
        assert s.key() == before
        with refused("an 8 does not fit", IllegalActionError, "high-voltage"):
            H.apply(table([["8/1"], ["1/1"]], [["1/3"], ["2/3"]], ["5/2"]), Play(0, F("8/1"), F("5/2"), 0), 0)

    def test_legal_actions_list_the_fitting_faces_once(self):
        s = table([["3/1", "7/2", "3/1", "4/1"], ["6/2"]], [["1/1"], []], ["5/2"])
        assert H.legal_actions(s, 0) == [
            Play(0, F("3/1"), F("5/2"), 0),
            Play(0, F("7/2"), F("5/2"), 0),
            Draw(0),
            Stuck(0),
        ]
        assert H.legal_actions(s, 1) == [Stuck(1)]
        assert H.legal_actions(s, None) == []


# ---------------------------------------------------------------------------
# Playing in real time


class TestPlay:
    def test_a_play_covers_the_top_and_is_announced(self):
        s = table([["7/3", "1/1"], ["6/2"]], [["1/3"], ["2/3"]], ["5/2"])
        s2, ev = H.apply(s, aim(s, 0, "7/3"), 0)
        assert H.CARD_FACE[s2.top] == F("7/3") and s2.top_no == 1
        assert faces(s2, 0) == [F("1/1")]
        assert texts(ev) == ["Alice played 7 (±3)."]
        v = H.view(s2, 1)
        assert v.top == F("7/3") and v.top_no == 1 and v.discard_count == len(s.discard) + 1
        assert v.hand_sizes == (1, 1) and v.plays == 1

    def test_one_player_may_keep_playing_while_cards_fit(self):
        s = table([["7/3", "4/1", "3/2", "9/1"], ["6/2"]], [["1/3"], ["2/3"]], ["5/2"])
        for code in ("7/3", "4/1", "3/2"):
            s, _ = H.apply(s, aim(s, 0, code), 0)
        assert faces(s, 0) == [F("9/1")] and s.plays == 3

    def test_two_plays_at_the_same_top_the_first_wins_the_second_is_too_slow(self):
        s = table([["7/1", "1/1"], ["3/1", "1/1"]], [["1/3"], ["2/3"]], ["5/2"])
        alice, bob = aim(s, 0, "7/1"), aim(s, 1, "3/1")  # both aimed at 5 (±2), number 0
        s, _ = H.apply(s, alice, 0)
        before = s.key()
        with pytest.raises(H.TooSlowError) as e:
            H.apply(s, bob, 1)
        assert e.value.code == "too_slow"
        assert said(e.value, "high-voltage") == "too slow: the 5 was covered by a 7 a moment ago"
        assert isinstance(e.value, IllegalActionError)
        assert s.key() == before
        assert F("3/1") in faces(s, 1) and len(s.hands[1]) == 2
        assert texts([e.value.event], ("Alice", "Bob")) == ["Bob: too slow — the 5 was covered by a 7."]

    def test_the_issue_example_wording(self):
        err = H.TooSlowError(1, F("4/1"), F("7/3"), F("3/1"))
        assert said(err, "high-voltage") == "too slow: the 7 was covered by a 3 a moment ago"
        assert texts([err.event], ["Alice", "Bob"]) == ["Bob: too slow — the 7 was covered by a 3."]

    def test_too_slow_even_when_the_card_would_fit_the_new_top(self):
        # 5/2 -> Alice plays 3/2 (top 3 ±2 takes 1 or 5); Bob's 7 aimed at the 5 is too slow
        s = table([["3/2", "1/1"], ["7/1", "1/1"]], [["1/3"], ["2/3"]], ["5/2"])
        late = aim(s, 1, "7/1")
        s, _ = H.apply(s, aim(s, 0, "3/2"), 0)
        with pytest.raises(H.TooSlowError):
            H.apply(s, late, 1)
        s, _ = H.apply(s, aim(s, 1, "1/1"), 1)  # re-aimed at the new top it goes

    def test_same_face_on_top_twice_is_told_apart_by_its_number(self):
        # 5/2 -> 3/2 -> 5/2 again: a play aimed at the first 5 is still too slow
        s = table([["3/2", "5/2", "1/1"], ["7/1", "1/1"]], [["1/3"], ["2/3"]], ["5/2"])
        stale = aim(s, 1, "7/1")
        s, _ = H.apply(s, aim(s, 0, "3/2"), 0)
        s, _ = H.apply(s, aim(s, 0, "5/2"), 0)
        assert H.view(s, 1).top == stale.aimed_at
        with refused("the 5 was covered by a 3", H.TooSlowError, "high-voltage"):
            H.apply(s, stale, 1)

    def test_aimed_at_a_card_that_was_never_there(self):
        s = table([["7/1", "1/1"], ["1/1"]], [["1/3"], ["2/3"]], ["5/2"])
        for a in (Play(0, F("7/1"), F("5/1"), 0), Play(0, F("7/1"), F("5/2"), 1)):
            with refused(r"is not the card on the pile", IllegalActionError, "high-voltage"):
                H.apply(s, a, 0)

    def test_a_card_not_in_hand(self):
        s = table([["7/1", "1/1"], ["3/1"]], [["1/3"], ["2/3"]], ["5/2"])
        with refused(r"you have no 3 \(±1\) in hand", IllegalActionError, "high-voltage"):
            H.apply(s, aim(s, 0, "3/1"), 0)

    def test_a_seat_acts_only_for_itself(self):
        s = table([["7/1", "1/1"], ["3/1", "1/1"]], [["1/3"], ["2/3"]], ["5/2"])
        for a in (aim(s, 1, "3/1"), Draw(1), Stuck(1), Resign(1)):
            with refused("your own seat", IllegalActionError, "high-voltage"):
                H.apply(s, a, 0)
        with refused("no seat 2", IllegalActionError, "high-voltage"):
            H.apply(s, Draw(2))

    def test_the_match_over_refuses_everything(self):
        s = table([["7/1", "1/1"], ["3/1", "1/1"]], discard=["5/2"])
        s, _ = H.apply(s, aim(s, 0, "7/1"), 0)
        assert s.over
        for a in (Draw(1), Stuck(1), H.GO, Resign(1)):
            with refused("the match is over", IllegalActionError, "high-voltage"):
                H.apply(s, a)
        assert H.legal_actions(s, 1) == [] and H.legal_actions(s, None) == []


# ---------------------------------------------------------------------------
# Drawing


class TestDraw:
    def test_draw_takes_the_top_of_ones_own_pile(self):
        s = table([["1/1"], ["1/2"]], [["2/1", "9/3"], ["4/1"]], ["5/2"])
        s, ev = H.apply(s, Draw(0), 0)
        assert faces(s, 0) == [F("1/1"), F("9/3")]
        assert [H.CARD_FACE[c] for c in s.piles[0]] == [F("2/1")]
        assert len(s.piles[1]) == 1
        assert texts(ev) == ["Alice drew a card."]
        v = H.view(s, 1)
        assert v.hand_sizes == (2, 1) and v.pile_counts == (1, 1)

    def test_no_hand_limit(self):
        s = H.apply(H.new_match(4, 2), H.GO)[0]
        hand = len(s.hands[0])
        while s.piles[0] and not s.over:
            s, _ = H.apply(s, Draw(0), 0)
        assert len(s.hands[0]) == hand + 32

    def test_empty_pile_refused(self):
        s = table([["1/1", "1/1"], ["1/1"]], [[], ["4/1"]], ["5/2"])
        with refused("your pile is empty", IllegalActionError, "high-voltage"):
            H.apply(s, Draw(0), 0)


# ---------------------------------------------------------------------------
# Nobody can play: stuck and the flip


class TestStuck:
    def test_declaration_is_public_and_once(self):
        s = table([["1/1", "2/1"], ["1/1", "2/1"]], [["4/1"], ["4/1"]], ["5/2"])
        s, ev = H.apply(s, Stuck(0), 0)
        assert texts(ev) == ["Alice is stuck."]
        assert H.view(s, 1).stuck == (True, False)
        with refused("already declared stuck", IllegalActionError, "high-voltage"):
            H.apply(s, Stuck(0), 0)

    def test_everyone_declared_flips_bottom_to_top(self):
        s = table([["1/1", "2/1"], ["1/1", "2/1"]], [["4/1"], ["4/1"]], ["6/2", "5/2"])
        bottom = s.discard[0]
        n = len(s.discard)
        s, _ = H.apply(s, Stuck(0), 0)
        s, ev = H.apply(s, Stuck(1), 1)
        assert texts(ev) == ["Bob is stuck.", "Everyone is stuck: the bottom card 6 (±2) goes on top."]
        assert s.discard[-1] == bottom and s.top == bottom and len(s.discard) == n
        assert s.declared == [False, False] and s.flips == 1 and s.top_no == 1
        assert s.phase == H.COUNTDOWN
        v = H.view(s, 0)
        assert v.hand is None and v.counting_down and v.top == F("6/2") and v.flips == 1
        s, _ = H.apply(s, H.GO)
        assert s.phase == H.PLAY and H.view(s, 0).hand == (F("1/1"), F("2/1"))

    def test_a_play_aimed_before_the_flip_is_too_slow(self):
        s = table([["7/1", "2/1"], ["1/1", "2/1"]], [["4/1"], ["4/1"]], ["6/2", "5/2"])
        stale = aim(s, 0, "7/1")
        s, _ = H.apply(s, Stuck(0), 0)
        s, _ = H.apply(s, Stuck(1), 1)
        s, _ = H.apply(s, H.GO)
        with refused("the 5 was covered by a 6", H.TooSlowError, "high-voltage"):
            H.apply(s, stale, 0)

    def test_empty_pile_and_nothing_fitting_counts_as_stuck(self):
        # Bob has no pile and no 3 or 7: Alice's declaration alone flips
        s = table([["1/1", "2/1"], ["1/1", "2/1"]], [["4/1"], []], ["6/2", "5/2"])
        assert H.is_stuck(s, 1) and not H.is_stuck(s, 0)
        s, ev = H.apply(s, Stuck(0), 0)
        assert ev[-1].kind == "flip"

    def test_a_player_with_a_pile_who_has_not_declared_holds_the_flip(self):
        s = table([["1/1", "2/1"], ["1/1", "2/1"]], [["4/1"], ["4/1"]], ["6/2", "5/2"])
        s, ev = H.apply(s, Stuck(0), 0)
        assert s.phase == H.PLAY and [e.kind for e in ev] == ["stuck"]

    def test_a_fitting_card_holds_the_flip(self):
        s = table([["1/1", "2/1"], ["7/1", "2/1"]], [["4/1"], []], ["6/2", "5/2"])
        assert not H.is_stuck(s, 1)
        s, ev = H.apply(s, Stuck(0), 0)
        assert s.phase == H.PLAY

    def test_stuck_may_be_declared_while_holding_a_fitting_card(self):
        s = table([["7/1", "2/1"], ["1/1", "2/1"]], [["4/1"], ["4/1"]], ["6/2", "5/2"])
        s, _ = H.apply(s, Stuck(0), 0)
        s, ev = H.apply(s, Stuck(1), 1)
        assert ev[-1].kind == "flip"

    def test_any_play_clears_all_declarations(self):
        s = table([["1/1", "2/1", "4/1"], ["7/1", "2/1"], ["1/1", "2/1"]], [["4/2"], ["4/3"], ["6/3"]], ["5/2"])
        s, _ = H.apply(s, Stuck(0), 0)
        s, _ = H.apply(s, Stuck(2), 2)
        s, _ = H.apply(s, aim(s, 1, "7/1"), 1)
        assert s.declared == [False, False, False]
        assert H.view(s, 0).stuck == (False, False, False)

    def test_drawing_does_not_withdraw_a_declaration(self):
        s = table([["1/1", "2/1"], ["1/1", "2/1"]], [["4/1", "4/1"], ["4/1"]], ["6/2", "5/2"])
        s, _ = H.apply(s, Stuck(0), 0)
        s, _ = H.apply(s, Draw(0), 0)
        assert s.declared[0]

    def test_flip_again_at_go_when_the_new_top_fits_nobody(self):
        # piles empty, nothing fits 5/2 nor the bottom 6/2 (takes 4 or 8): two flips
        s = table([["1/1", "2/1"], ["1/1", "2/1"]], None, ["6/2", "9/1", "5/2"], fill=False)
        s, ev = H.apply(s, Stuck(0), 0)  # Bob is stuck without declaring
        assert [e.kind for e in ev] == ["stuck", "flip"] and H.CARD_FACE[s.top] == F("6/2")
        s, ev = H.apply(s, H.GO)
        assert [e.kind for e in ev] == ["go", "flip"] and H.CARD_FACE[s.top] == F("9/1")
        s, ev = H.apply(s, H.GO)  # 9 (±1) takes 10 or 8: still nothing, a third flip
        assert [e.kind for e in ev] == ["go", "flip"] and H.CARD_FACE[s.top] == F("5/2")
        assert s.flips_in_row == 3

    def test_blocked_after_every_card_had_its_turn_on_top(self):
        s = table([["1/1", "2/1"], ["1/1", "2/1", "2/2"]], None, ["6/2", "9/1", "5/2"], fill=False)
        s, _ = H.apply(s, Stuck(0), 0)
        s, _ = H.apply(s, H.GO)
        s, _ = H.apply(s, H.GO)
        s, ev = H.apply(s, H.GO)
        assert s.over and s.reason == "blocked" and s.winner == 0 and s.places == (1, 2)
        assert texts(ev)[-1] == (
            "Nobody can play: the match is over; Alice has the fewest cards left. "
            "Places: 1st Alice (2 left), 2nd Bob (3 left)."
        )

    def test_blocked_with_a_tie_has_no_winner(self):
        s = table([["1/1", "2/1"], ["1/1", "2/1"]], None, ["5/2"], fill=False)
        s, _ = H.apply(s, Stuck(0), 0)  # discard of one: one flip (a no-op), then blocked
        assert s.phase == H.COUNTDOWN
        s, ev = H.apply(s, H.GO)
        assert s.over and s.winner is None and s.places == (1, 1)
        assert texts(ev)[-1].startswith("Nobody can play: the match is over.")



def run_log(seed: int, players: int, log: str) -> H.State:
    """``log`` (action texts, comma-separated) applied from ``new_match(seed, players)``."""
    s = H.new_match(seed, players)
    for text in log.split(","):
        s, _ = H.apply(s, H.parse_action(text))
    return s


class TestBlocked:
    """The blocked end: only when no player still in can draw or play, through a full
    turn of the discard pile (it once ended while piles were full)."""

    @pytest.mark.parametrize(
        "log",
        [
            "go, stuck 0, stuck 1, go, stuck 0, stuck 1",
            "go, stuck 0, stuck 1, go, draw 0, draw 1, draw 0, stuck 0, stuck 1",
        ],
    )
    def test_declaring_stuck_with_cards_in_the_pile_never_blocks(self, log):
        s = run_log(5, 2, log)
        assert not s.over and s.reason == "" and s.winner is None
        assert s.phase == H.COUNTDOWN and s.flips == 2  # flipped again, as the rules say
        assert all(s.piles[seat] for seat in (0, 1))
        assert s.flips_in_row == 0
        # and it keeps flipping, however long they declare: each flip is only a flip
        for _ in range(3 * len(s.discard)):
            s, ev = H.apply(s, H.GO)
            s, _ = H.apply(s, Stuck(0), 0)
            s, ev = H.apply(s, Stuck(1), 1)
            assert ev[-1].kind == "flip" and not s.over

    def test_the_count_starts_when_the_last_pile_card_is_drawn(self):
        # Bob's pile is empty and nothing fits; Alice declares with a card left in her pile
        s = table([["1/1", "2/1"], ["1/1", "2/1"]], [["1/2"], []], ["6/2", "9/1", "5/2"], fill=False)
        s, ev = H.apply(s, Stuck(0), 0)
        assert ev[-1].kind == "flip" and s.flips_in_row == 0  # Alice could still draw
        s, _ = H.apply(s, H.GO)
        s, ev = H.apply(s, Draw(0), 0)  # her last pile card fits nothing: now nobody can act
        assert [e.kind for e in ev] == ["draw", "flip"] and s.flips_in_row == 1
        tops = [H.CARD_FACE[s.top]]
        while not s.over:
            s, ev = H.apply(s, H.GO)
            tops.append(H.CARD_FACE[s.top])
        # a full turn of the three-card pile after the draw, then blocked
        assert tops == [F("9/1"), F("5/2"), F("6/2"), F("6/2")]
        assert s.reason == "blocked" and s.winner == 1

    def test_a_declared_stuck_with_a_fitting_card_does_not_count(self):
        # piles empty, but Alice holds a 7 on the 5 (±2) and declares anyway
        s = table([["7/1", "2/1"], ["1/1", "2/1"]], None, ["6/2", "9/1", "5/2"], fill=False)
        s, ev = H.apply(s, Stuck(0), 0)
        assert ev[-1].kind == "flip" and s.flips_in_row == 0

    def test_blocked_when_the_cards_that_would_fit_left_with_a_resigned_player(self):
        # All 73 in play: Carol resigns holding every card Alice and Bob could use; the
        # discard pile goes round once (each card on top, nobody can play) and it ends.
        s = table(
            [["5/1", "5/1"], ["5/2", "5/2", "5/3"], []],
            [[], [], []],
            ["1/1", "2/1", "9/1"],
            fill=False,
        )
        used = set(H.all_cards(s))
        s.piles[2] = [c for c in range(H.DECK_SIZE) if c not in used]
        assert H.all_cards(s) == list(range(H.DECK_SIZE))
        s, ev = H.apply(s, Resign(2), 2)
        seen = [H.CARD_FACE[s.top]]
        while not s.over:
            assert [e.kind for e in ev][-1] == "flip"
            seen.append(H.CARD_FACE[s.top])
            assert len(seen) <= 10, "the blocked match did not end"
            s, ev = H.apply(s, H.GO)
        assert set(seen) == {F("1/1"), F("2/1"), F("9/1")}
        assert s.reason == "blocked" and s.winner == 0 and s.places == (1, 2, 3)
        assert ev[-1].kind == "end"


# ---------------------------------------------------------------------------
# The end


class TestEnd:
    def test_last_card_wins_at_once_whatever_its_value(self):
        s = table([["7/1", "10/3"], ["3/1", "1/1"]], [[], ["4/1"]], ["5/2"])
        n = len(s.discard)
        s, ev = H.apply(s, aim(s, 0, "7/1"), 0)
        assert texts(ev) == [
            "Alice played 7 (±1).",
            "Alice laid the last card and wins!",
            "Alice wins (last card).",
        ]
        assert s.over and s.winner == 0 and s.reason == "last card" and s.places == (1, 2)
        assert s.hands[0] == [] and len(s.discard) == n + 2
        assert H.CARD_FACE[s.discard[-1]] == F("10/3")  # laid on the pile ...
        v = H.view(s, 1)
        assert v.top == F("7/1") and v.over and v.winner == 0  # ... face down
        assert H.all_cards(s) == list(range(73))

    def test_drawing_the_last_pile_card_into_an_empty_hand_wins(self):
        s = table([["7/1"], ["3/1", "1/1"]], [["9/1"], ["4/1"]], ["5/2"])
        s, _ = H.apply(s, aim(s, 0, "7/1"), 0)
        assert not s.over and s.hands[0] == []
        s, ev = H.apply(s, Draw(0), 0)
        assert s.over and s.winner == 0 and [e.kind for e in ev] == ["draw", "last", "end"]

    def test_others_ranked_by_cards_left_ties_share(self):
        s = table(
            [["7/1", "1/1"], ["1/1", "2/1"], ["1/1", "2/2", "3/3"], ["1/2"]],
            [[], ["4/1"], [], ["4/2", "4/3"]],
            ["5/2"],
        )
        s, ev = H.apply(s, aim(s, 0, "7/1"), 0)
        assert s.places == (1, 2, 2, 2)
        s = table(
            [["7/1", "1/1"], ["1/1", "2/1"], ["1/1"], ["1/2", "2/2", "3/3", "4/1"]],
            [[], ["4/1"], ["6/1"], []],
            ["5/2"],
        )
        s, ev = H.apply(s, aim(s, 0, "7/1"), 0)
        assert s.places == (1, 3, 2, 4)
        assert texts(ev)[-1] == (
            "Alice wins (last card). Places: 1st Alice (0 left), 2nd Carol (2 left), "
            "3rd Bob (3 left), 4th Dan (4 left)."
        )
        assert H.view(s, None).places == (1, 3, 2, 4)


# ---------------------------------------------------------------------------
# Resigning


class TestResign:
    def test_two_players_the_other_wins(self):
        s = H.new_match(1, 2)
        s, ev = H.apply(s, Resign(0), 0)
        assert s.over and s.winner == 1 and s.reason == "resignation" and s.places == (2, 1)
        assert texts(ev) == ["Alice left the match.", "Bob wins (resignation)."]

    def test_three_players_play_goes_on_without_them(self):
        s = table([["1/1", "2/1"], ["1/1", "2/1"], ["7/1", "2/1"]], [["4/1"], ["4/1"], ["4/1"]], ["6/2", "5/2"])
        s, _ = H.apply(s, Stuck(0), 0)
        s, _ = H.apply(s, Stuck(1), 1)
        s, ev = H.apply(s, Resign(2), 2)  # the only one not stuck leaves: the others flip
        assert [e.kind for e in ev] == ["resign", "flip"]
        with refused("left this match", IllegalActionError, "high-voltage"):
            H.apply(s, Resign(2), 2)
        assert H.legal_actions(s, 2) == []
        assert H.view(s, 0).out == (False, False, True)

    def test_resigned_rank_last_later_above_earlier(self):
        s = H.apply(H.new_match(1, 4), H.GO)[0]
        s, _ = H.apply(s, Resign(3), 3)
        s, _ = H.apply(s, Resign(0), 0)
        s, _ = H.apply(s, Resign(1), 1)
        assert s.over and s.winner == 2 and s.places == (3, 2, 1, 4)

    def test_resigned_rank_after_the_cards_left_order(self):
        s = table([["7/1", "1/1"], ["1/1"], ["1/1"]], [[], ["4/1"], ["4/1"]], ["5/2"])
        s, _ = H.apply(s, Resign(1), 1)
        s, _ = H.apply(s, aim(s, 0, "7/1"), 0)
        assert s.places == (1, 3, 2)


# ---------------------------------------------------------------------------
# Actions as text


class TestActionText:
    @pytest.mark.parametrize(
        "action",
        [H.GO, Draw(3), Stuck(0), Resign(2), Play(1, F("7/3"), F("10/1"), 12)],
    )
    def test_round_trip(self, action):
        assert H.parse_action(action.text()) == action

    def test_play_text(self):
        assert Play(1, F("7/3"), F("10/1"), 12).text() == "play 1 7/3 on 10/1 #12"
        assert H.parse_action("play 1 7±3 on 10/1 12") == Play(1, F("7/3"), F("10/1"), 12)

    @pytest.mark.parametrize(
        "text",
        [
            "", "jump", "draw", "draw 9", "play 0 7/3 10/1 #1", "play 0 7/4 on 10/1 #1", "play 0 7/3 on 10/1 #-1",
            "play 4 7/3 on 10/1 #1", "go 1",
        ],
    )
    def test_bad_text(self, text):
        with pytest.raises(InvalidActionError):
            H.parse_action(text)


# ---------------------------------------------------------------------------
# Views


class TestViews:
    def test_own_hand_others_counts(self):
        s = H.apply(H.new_match(6, 3), H.GO)[0]
        s, _ = H.apply(s, Draw(1), 1)
        v = H.view(s, 0)
        assert v.hand == tuple(faces(s, 0))
        assert v.hand_sizes == (4, 5, 4) and v.pile_counts == (20, 19, 20)
        assert v.cards_left(1) == 24
        assert v.top == H.CARD_FACE[s.top] and v.discard_count == 1
        assert v.phase == "play" and v.winner is None and v.places is None

    def test_no_card_id_and_no_other_hand_in_a_view(self):
        s = H.apply(H.new_match(6, 2), H.GO)[0]
        v = H.view(s, 0)
        other = set(faces(s, 1)) - set(faces(s, 0)) - {v.top}
        rendered = repr(v)
        for f in other:
            assert repr(f) not in rendered

    def test_spectator(self):
        s = H.apply(H.new_match(6, 2), H.GO)[0]
        v = H.view(s, None)
        assert v.hand is None and not v.can_act
        with pytest.raises(ValueError):
            v.aim(F("1/1"))

    def test_aim(self):
        s = table([["7/1", "1/1"], ["1/1"]], [["1/3"], ["2/3"]], ["5/2"])
        assert H.view(s, 0).aim(F("7/1")) == Play(0, F("7/1"), F("5/2"), 0)


# ---------------------------------------------------------------------------
# Apply and replay


class TestApply:
    def test_apply_never_changes_the_state_it_is_given(self):
        s = H.apply(H.new_match(7, 2), H.GO)[0]
        before = s.key()
        H.apply(s, Draw(0), 0)
        assert s.key() == before

    def test_copy_is_deep(self):
        s = H.new_match(7, 3)
        c = s.copy()
        assert c == s and c is not s
        c.hands[0].append(c.piles[0].pop())
        assert c != s

    def test_replay(self):
        s = H.new_match(3, 2)
        log = [H.GO, Draw(0), Draw(1), Stuck(0)]
        for a in log:
            s, _ = H.apply(s, a)
        assert H.replay(3, 2, log) == s

    def test_replay_checks(self):
        with pytest.raises(IllegalActionError):
            H.replay(3, 2, [Draw(0)])

    def test_not_an_action(self) -> None:
        with pytest.raises(IllegalActionError):
            H.check(H.new_match(0, 2), "draw 0")  # type: ignore[arg-type]


def test_engine_modules_import_no_ui_or_server():
    code = (
        "import sys, engine.highvoltage.rules, engine.highvoltage.bots, engine.highvoltage.arena; "
        "bad = [m for m in sys.modules if m.split('.')[0] in ('textual', 'asyncssh', 'tui', 'server')]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
