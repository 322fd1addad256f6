"""One named test per ruling of Voltage, as the players' rules page (tui/rules.md) states them.

Most tests build a state by hand: the state is plain lists of card ids
(``board[2 * terminal + seat]``, ``draw[-1]`` is the top), and ``Table`` hands
out the ids of the cards a test names by their code (``O1``, ``P3v``, ``BY``).
Every card a test does not place goes under the draw pile, so all 56 are
always somewhere.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.errors import IllegalActionError, InvalidActionError, RuleError
from engine.voltage import rules as V
from engine.voltage.cards import (
    BLUE,
    BYPASS,
    CARD_COLOUR,
    CARD_FACE,
    CARD_SPECIAL,
    CARD_TRANSFORMER,
    CARD_VALUE,
    DECK,
    DECK_SIZE,
    FUSE,
    GREEN,
    ORANGE,
    PURPLE,
    Card,
)
from engine.voltage.rules import DRAW, PASS, Draw, Flip, Pass, Play, Resign
from tests.support.words import said

# ---------------------------------------------------------------------------
# Helpers


def card_ids(code: str) -> list[int]:
    """The ids of every card with this face and back: ``O1`` (plain back), ``O1v`` (transformer)."""
    c = Card.parse(code)
    return [i for i in range(DECK_SIZE) if CARD_FACE[i] == c.face and CARD_TRANSFORMER[i] == c.transformer]


class Table:
    """Builds a state by hand.  ``take(code)`` hands out a still unused card id of that code."""

    def __init__(self) -> None:
        self.free = list(range(DECK_SIZE))

    def take(self, code: str) -> int:
        for i in card_ids(code):
            if i in self.free:
                self.free.remove(i)
                return i
        raise LookupError(f"no {code} left in the deck")

    def takes(self, codes) -> list[int]:
        return [self.take(c) for c in codes]

    def state(
        self,
        hands=((), ()),
        board=None,
        draw_top=(),
        discard=(),
        rest="draw",
        to_move=0,
        plus=V.INITIAL_PLUS,
        scores=(0, 0),
        seed=7,
    ) -> V.State:
        """``board`` maps (terminal, seat) to codes; ``draw_top`` lists codes with the top card last;
        the cards nobody named go under the draw pile (``rest="draw"``), on the discard pile
        (``"discard"``) or nowhere (``None``: a test that wants empty piles)."""
        s = V.new_match(seed)
        s.hands = [self.takes(hands[0]), self.takes(hands[1])]
        s.board = [[] for _ in range(8)]
        for (t, seat), codes in (board or {}).items():
            s.board[2 * t + seat] = self.takes(codes)
        top = self.takes(draw_top)
        disc = self.takes(discard)
        rest_ids = sorted(self.free, key=lambda i: CARD_TRANSFORMER[i])  # no transformer on top of the rest
        self.free = []
        s.draw = ([] if rest != "draw" else rest_ids[::-1]) + top
        s.discard = ([] if rest != "discard" else rest_ids) + disc
        s.plus = list(plus)
        s.scores = list(scores)
        s.to_move = s.first_player = to_move
        s.phase = V.START
        s.first_terminal = -1
        return s


def codes(ids) -> list[str]:
    return [Card.of(i).code for i in ids]


def play(code: str, terminal: int, side: int, target: str | None = None) -> Play:
    return Play(Card.parse(code), terminal, side, Card.parse(target) if target else None)


def side(s: V.State, terminal: int, seat: int) -> list[str]:
    return sorted(codes(s.board[2 * terminal + seat]))


def count(s: V.State, terminal: int) -> int:
    return len(s.board[2 * terminal]) + len(s.board[2 * terminal + 1])


def all_cards(s: V.State) -> list[int]:
    return sorted(s.hands[0] + s.hands[1] + s.draw + s.discard + [c for p in s.board for c in p])


def kinds(events) -> list[str]:
    return [e.kind for e in events]


def refused(s: V.State, action, seat=None) -> str:
    """Assert ``action`` is refused with a reason and leaves ``s`` unchanged; return the reason
    as the player reads it (the tui words the engine's code)."""
    before = s.key()
    with pytest.raises(IllegalActionError) as info:
        V.apply(s, action, seat)
    assert s.key() == before
    reason = said(info.value, "voltage")
    assert reason
    return reason


def random_states(seeds, rng_seed=0):
    """Every state met in uniform-random matches from ``seeds``."""
    rng = random.Random(rng_seed)
    for seed in seeds:
        s = V.new_match(seed)
        yield s
        while not s.over:
            s, _ = V.apply(s, rng.choice(V.legal_actions(s)))
            yield s


# ---------------------------------------------------------------------------
# Deck (56 cards)


def test_deck_has_48_number_cards_four_of_each_colour_and_value():
    assert DECK_SIZE == 56
    numbers = Counter((CARD_COLOUR[i], CARD_VALUE[i]) for i in range(DECK_SIZE) if not CARD_SPECIAL[i])
    assert sum(numbers.values()) == 48
    assert numbers == {(colour, value): 4 for colour in range(4) for value in (1, 2, 3)}


def test_deck_has_four_bypass_and_four_blown_fuse_cards_worth_zero():
    faces = Counter(CARD_FACE)
    assert faces[BYPASS] == 4 and faces[FUSE] == 4
    for i in range(DECK_SIZE):
        if CARD_SPECIAL[i]:
            assert CARD_VALUE[i] == 0 and CARD_COLOUR[i] == -1


def test_deck_has_18_transformers_one_1_two_2s_one_3_per_colour_one_bypass_one_fuse():
    assert sum(CARD_TRANSFORMER) == 18
    tr = Counter(Card.of(i).face for i in range(DECK_SIZE) if CARD_TRANSFORMER[i])
    for colour in range(4):
        assert [tr[colour * 3 + v - 1] for v in (1, 2, 3)] == [1, 2, 1]
    assert tr[BYPASS] == 1 and tr[FUSE] == 1


def test_deck_list_is_kept_as_data_in_one_place():
    # (face, copies, of which transformers): the cards tables are built from it alone.
    assert sum(copies for _, copies, _ in DECK) == DECK_SIZE
    assert sum(n for _, _, n in DECK) == sum(CARD_TRANSFORMER)
    assert len({face for face, _, _ in DECK}) == len(DECK) == 14


# ---------------------------------------------------------------------------
# Setup


def test_initial_blocks_orange_purple_plus_green_blue_minus():
    for seed in range(5):
        s = V.new_match(seed)
        assert s.plus[ORANGE] and s.plus[PURPLE]
        assert not s.plus[GREEN] and not s.plus[BLUE]
        v = V.view(s, None)
        assert v.plus == (True, False, False, True)


def test_each_player_is_dealt_four_cards():
    for seed in range(20):
        s = V.new_match(seed)
        assert [len(h) for h in s.hands] == [4, 4]
        assert len(s.draw) == 48 and s.discard == [] and all(p == [] for p in s.board)
        assert all_cards(s) == list(range(DECK_SIZE))
        assert s.scores == [0, 0]


def test_transformers_dealt_at_setup_have_no_effect():
    dealt_a_transformer = 0
    for seed in range(50):
        s = V.new_match(seed)
        if any(CARD_TRANSFORMER[c] for h in s.hands for c in h):
            dealt_a_transformer += 1
            assert s.phase == V.START and s.flips == 0
            assert s.plus == list(V.INITIAL_PLUS)
            assert not any(isinstance(a, Flip) for a in V.legal_actions(s))
    assert dealt_a_transformer > 10  # the case really was met


def test_first_player_is_drawn_from_the_seed_and_recorded():
    firsts = {V.new_match(seed).first_player for seed in range(40)}
    assert firsts == {0, 1}  # different seeds give both first players
    for seed in range(40):
        a, b = V.new_match(seed), V.new_match(seed)
        assert a == b  # same seed, same deal and same first player
        assert a.to_move == a.first_player
        assert V.start_events(a)[0].kind == "start" and V.start_events(a)[0].seat == a.first_player
        assert V.view(a, None).first_player == a.first_player


# ---------------------------------------------------------------------------
# Public and hidden information


def test_view_shows_public_information_and_hides_hands_and_draw_order():
    t = Table()
    s = t.state(
        hands=(["O1", "G2v", "BY", "P3"], ["B1v", "B2", "FUv", "O3"]),
        board={(ORANGE, 0): ["O2"], (GREEN, 1): ["G1", "FU"]},
        draw_top=["P1v"],
        discard=["B3"],
        scores=(1, 2),
    )
    v = V.view(s, 0)
    assert v.hand == tuple(Card.parse(c) for c in ["O1", "G2v", "BY", "P3"])
    # each hand's backs in one canonical order, transformers first: a count, not positions
    assert v.hand_backs == ((True, False, False, False), (True, True, False, False))
    assert v.board[ORANGE] == ((Card.parse("O2"),), ())
    assert v.board[GREEN] == ((), (Card.parse("G1"), Card.parse("FU")))
    assert v.scores == (1, 2)
    assert v.draw_count == len(s.draw) and v.draw_top_transformer is True
    assert v.discard_count == 1 and v.discard_top == Card.parse("B3")
    # The opponent's hand appears only as backs (see test_conformance for the full check).
    assert Card.parse("O3") not in v.hand and all(c != Card.parse("O3") for _, b in v.board for c in b)
    assert V.view(s, 1).hand == tuple(Card.parse(c) for c in ["B1v", "B2", "FUv", "O3"])
    assert V.view(s, None).hand is None and V.view(s, None).legal == ()
    assert V.view(s, 1).legal == ()  # not seat 1's turn
    assert V.view(s, 0).legal == tuple(V.legal_actions(s))


def test_which_back_a_play_takes_away_does_not_tell_where_the_cards_were():
    # Audit item 6, from seed 1: seat 0 holds BY O2v O2 and plays the bypass.  With the
    # backs in hand order seat 1 saw (T, F) after it, so the plain card left was not the
    # bypass's twin; had seat 0 held O2 O2v BY it would have seen (F, T).
    s = V.new_match(1)
    for text in ("play B2 blue 1", "play G2v green 0", "play O3v orange 0"):
        _, s, _ = V.apply_logged(s, text)
    assert [Card.of(c).code for c in s.hands[0]] == ["BY", "O2v", "O2"]
    t = s.copy()
    t.hands[0] = [t.hands[0][2], t.hands[0][1], t.hands[0][0]]  # O2 O2v BY: the same backs
    assert V.view(t, 1) == V.view(s, 1)
    _, s, _ = V.apply_logged(s, "play BY green 1")
    _, t, _ = V.apply_logged(t, "play BY green 1")
    assert V.view(t, 1) == V.view(s, 1)
    assert V.view(s, 1).hand_backs[0] == (True, False)
    assert V.view(t, None) == V.view(s, None)


# ---------------------------------------------------------------------------
# A turn: exactly one of play one then draw one / play two / draw two


def test_play_one_then_draw_one():
    t = Table()
    s = t.state(hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]), draw_top=["P2"])
    s, ev = V.apply(s, play("O1", ORANGE, 0))
    assert s.phase == V.SECOND and s.to_move == 0 and s.first_terminal == ORANGE
    assert DRAW in V.legal_actions(s)
    s, ev = V.apply(s, DRAW)
    assert kinds(ev) == ["draw"]
    assert sorted(codes(s.hands[0])) == ["B3", "G2", "P1", "P2"]
    assert s.to_move == 1 and s.phase == V.START


def test_play_two_cards_to_two_different_terminals():
    t = Table()
    s = t.state(hands=(["O1", "O2", "G2", "P1"], ["B1", "B2", "G1", "G3"]))
    s, _ = V.apply(s, play("O1", ORANGE, 0))
    second = V.legal_actions(s)
    assert not any(isinstance(a, Play) and a.terminal == ORANGE for a in second)
    reason = refused(s, play("O2", ORANGE, 1))
    assert "different terminal" in reason
    s, _ = V.apply(s, play("G2", GREEN, 1))
    assert s.to_move == 1 and s.phase == V.START
    assert sorted(codes(s.hands[0])) == ["O2", "P1"]


def test_play_two_special_second_card_also_goes_to_another_terminal():
    t = Table()
    s = t.state(hands=(["O1", "BY", "G2", "P1"], ["B1", "B2", "G1", "G3"]), board={(ORANGE, 1): ["O3"]})
    s, _ = V.apply(s, play("O1", ORANGE, 0))
    assert not any(isinstance(a, Play) and a.terminal == ORANGE for a in V.legal_actions(s))
    assert "different terminal" in refused(s, play("BY", ORANGE, 1, "O3"))


def test_draw_two():
    t = Table()
    s = t.state(hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]), draw_top=["P3", "P2"])
    s, ev = V.apply(s, DRAW)
    assert kinds(ev) == ["draw", "draw"]
    assert sorted(codes(s.hands[0])) == ["B3", "G2", "O1", "P1", "P2", "P3"]
    assert s.to_move == 1 and s.phase == V.START


def test_draw_two_is_not_allowed_with_six_cards_in_hand():
    t = Table()
    s = t.state(hands=(["O1", "O2", "G1", "G2", "B1", "B2"], ["P1", "P2", "P3", "G3"]))
    assert DRAW not in V.legal_actions(s)
    assert "6 cards" in refused(s, DRAW)
    # With four cards it is allowed.
    t = Table()
    s = t.state(hands=(["O1", "O2", "G1", "G2"], ["P1", "P2", "P3", "G3"]))
    assert DRAW in V.legal_actions(s)


def test_draw_two_is_not_allowed_when_both_piles_are_empty():
    t = Table()
    s = t.state(hands=(["O1", "O2"], ["P1", "P2"]), rest=None)
    assert s.draw == [] and s.discard == []
    assert DRAW not in V.legal_actions(s)
    assert refused(s, DRAW)
    # An empty draw pile alone does not forbid it: the discard pile is reshuffled.
    t = Table()
    s = t.state(hands=(["O1", "O2"], ["P1", "P2"]), rest="discard")
    assert s.draw == [] and DRAW in V.legal_actions(s)


def test_hands_stay_even_each_action_keeps_the_count_even():
    def fresh():
        return Table().state(hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]))

    s, _ = V.apply(fresh(), play("O1", ORANGE, 0))
    s, _ = V.apply(s, DRAW)
    assert len(s.hands[0]) == 4
    s, _ = V.apply(fresh(), play("O1", ORANGE, 0))
    s, _ = V.apply(s, play("G2", GREEN, 0))
    assert len(s.hands[0]) == 2
    s, _ = V.apply(fresh(), DRAW)
    assert len(s.hands[0]) == 6
    for s in random_states(range(15)):
        if s.phase == V.START:
            assert len(s.hands[0]) % 2 == 0 and len(s.hands[1]) % 2 == 0
            assert len(s.hands[0]) <= 6 and len(s.hands[1]) <= 6


# ---------------------------------------------------------------------------
# Playing a card


def test_number_card_goes_to_its_own_colour_terminal_on_either_side():
    t = Table()
    s = t.state(hands=(["G2", "O1", "O2", "P1"], ["B1", "B2", "G1", "G3"]))
    g2 = [a for a in V.legal_actions(s) if isinstance(a, Play) and a.card == Card.parse("G2")]
    assert sorted((a.terminal, a.side, a.target) for a in g2) == [(GREEN, 0, None), (GREEN, 1, None)]
    for terminal in (ORANGE, BLUE, PURPLE):
        assert "green terminal" in refused(s, play("G2", terminal, 0))
    for own_or_opponent in (0, 1):
        after, _ = V.apply(s, play("G2", GREEN, own_or_opponent))
        assert codes(after.board[2 * GREEN + own_or_opponent]) == ["G2"]


def test_specials_go_to_any_terminal_only_on_the_opponents_side():
    t = Table()
    s = t.state(hands=(["BY", "FU", "O1", "P1"], ["B1", "B2", "G1", "G3"]))
    specials = [a for a in V.legal_actions(s) if isinstance(a, Play) and a.card.special]
    assert sorted((a.card.code, a.terminal, a.side) for a in specials) == sorted(
        (code, terminal, 1) for code in ("BY", "FU") for terminal in range(4)
    )
    for code in ("BY", "FU"):
        assert "opponent's side" in refused(s, play(code, BLUE, 0))
        after, _ = V.apply(s, play(code, BLUE, 1))
        assert codes(after.board[2 * BLUE + 1]) == [code]


def test_bypass_moves_the_target_to_the_players_side_and_the_terminal_gains_one():
    t = Table()
    s = t.state(
        hands=(["BY", "O1", "G1", "P1"], ["B1", "B2", "G2", "G3"]),
        board={(ORANGE, 1): ["O3", "O2"], (ORANGE, 0): ["O1"]},
    )
    targets = sorted(
        a.target.code
        for a in V.legal_actions(s)
        if isinstance(a, Play) and a.card.face == BYPASS and a.terminal == ORANGE
    )
    assert targets == ["O2", "O3"]
    s2, ev = V.apply(s, play("BY", ORANGE, 1, "O3"))
    assert side(s2, ORANGE, 0) == ["O1", "O3"]
    assert side(s2, ORANGE, 1) == ["BY", "O2"]
    assert count(s2, ORANGE) == count(s, ORANGE) + 1
    assert ev[0].kind == "play" and ev[0].target == Card.parse("O3")
    # The bypass takes the target's place on the opponent's side.
    assert codes(s2.board[2 * ORANGE + 1]) == ["BY", "O2"]


def test_bypass_and_fuse_must_pick_a_target_when_one_exists():
    t = Table()
    s = t.state(hands=(["BY", "FU", "G1", "P1"], ["B1", "B2", "G2", "G3"]), board={(BLUE, 1): ["B3"]})
    for code in ("BY", "FU"):
        assert play(code, BLUE, 1) not in V.legal_actions(s)
        assert "choose" in refused(s, play(code, BLUE, 1))
        assert play(code, BLUE, 1, "B3") in V.legal_actions(s)


def test_blown_fuse_discards_the_target_and_the_count_is_unchanged():
    t = Table()
    s = t.state(
        hands=(["FU", "O1", "G1", "P1"], ["B1", "B2", "G2", "G3"]),
        board={(PURPLE, 1): ["P3", "P1v"], (PURPLE, 0): ["P2"]},
    )
    s2, _ = V.apply(s, play("FU", PURPLE, 1, "P3"))
    assert side(s2, PURPLE, 1) == ["FU", "P1v"]
    assert side(s2, PURPLE, 0) == ["P2"]
    assert count(s2, PURPLE) == count(s, PURPLE)
    assert codes(s2.discard)[-1] == "P3"
    assert V.view(s2, 1).discard_top == Card.parse("P3")


def test_special_with_no_number_card_there_is_placed_with_no_effect_and_counts_one():
    t = Table()
    s = t.state(
        hands=(["BY", "FU", "G1", "P1"], ["B1", "B2", "G2", "G3"]),
        board={(GREEN, 0): ["G3"], (GREEN, 1): ["BY"]},  # only a special on the opponent's side
    )
    for code in ("BY", "FU"):
        assert play(code, GREEN, 1) in V.legal_actions(s)
        s2, ev = V.apply(s, play(code, GREEN, 1))
        assert count(s2, GREEN) == 3
        assert side(s2, GREEN, 0) == ["G3"]  # nothing moved from the player's own side
        assert sorted(side(s2, GREEN, 1)) == sorted(["BY", code])
        assert s2.discard == s.discard
        assert ev[0].target is None


def test_specials_never_target_special_cards():
    t = Table()
    s = t.state(
        hands=(["BY", "FU", "G1", "P1"], ["B1", "B2", "G2", "G3"]),
        board={(ORANGE, 1): ["FU", "O2"]},
    )
    for a in V.legal_actions(s):
        if isinstance(a, Play) and a.target is not None:
            assert not a.target.special
    assert refused(s, play("BY", ORANGE, 1, "FU"))
    assert refused(s, play("FU", ORANGE, 1, "FU"))


def test_specials_never_move_a_card_from_ones_own_side():
    t = Table()
    s = t.state(hands=(["BY", "FU", "G1", "P1"], ["B1", "B2", "G2", "G3"]), board={(ORANGE, 0): ["O2"]})
    # Own side: not allowed at all; opponent's side of orange is empty: no target to take.
    assert refused(s, play("BY", ORANGE, 0, "O2"))
    assert refused(s, play("FU", ORANGE, 1, "O2"))
    assert play("BY", ORANGE, 1) in V.legal_actions(s)


# ---------------------------------------------------------------------------
# Drawing and transformers


def test_empty_draw_pile_reshuffles_the_discard_pile_with_the_seeded_generator():
    def build(seed):
        t = Table()
        s = t.state(hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]), rest="discard", seed=seed)
        s.discard = [c for c in s.discard if not CARD_TRANSFORMER[c]]  # keep this test free of flips
        return s

    s = build(11)
    n = len(s.discard)
    a, ev = V.apply(s, DRAW)
    assert kinds(ev) == ["reshuffle", "draw", "draw"]
    assert ev[0].count == n
    assert a.discard == [] and len(a.draw) == n - 2 and len(a.hands[0]) == 6
    assert sorted(a.draw + a.hands[0][4:]) == sorted(s.discard)
    assert V.apply(build(11), DRAW)[0] == a  # same seed, same new pile
    orders = {tuple(V.apply(build(seed), DRAW)[0].draw) for seed in range(5)}
    assert len(orders) > 1  # the order comes from the match's generator, not from the discard order
    assert all(list(o) != s.discard[: n - 2] for o in orders)


def test_drawing_a_transformer_forces_a_flip_before_anything_else():
    t = Table()
    s = t.state(hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]), draw_top=["P2", "B1v"])
    s, ev = V.apply(s, DRAW)
    assert kinds(ev) == ["draw"] and ev[0].transformer
    assert s.phase == V.FLIP and s.to_move == 0
    assert len(s.hands[0]) == 5 and codes(s.draw)[-1] == "P2"  # the second draw waits for the flip
    assert V.legal_actions(s) == [Flip(0), Flip(1), Flip(2), Flip(3)]
    assert "flip" in refused(s, play("O1", ORANGE, 0))
    assert refused(s, DRAW)
    assert V.view(s, 0).flips_pending == 1
    s, ev = V.apply(s, Flip(GREEN))
    assert kinds(ev) == ["flip", "draw"] and ev[0].plus is True
    assert s.plus[GREEN] is True
    assert s.to_move == 1 and s.phase == V.START and len(s.hands[0]) == 6


def test_transformer_drawn_after_play_one_is_flipped_before_the_turn_ends():
    t = Table()
    s = t.state(hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]), draw_top=["FUv"])
    s, _ = V.apply(s, play("O1", ORANGE, 0))
    s, _ = V.apply(s, DRAW)
    assert s.phase == V.FLIP and s.to_move == 0
    s, _ = V.apply(s, Flip(ORANGE))
    assert s.plus[ORANGE] is False and s.to_move == 1


def test_two_transformers_in_a_draw_two_give_two_flips_and_the_same_block_may_flip_twice():
    t = Table()
    s = t.state(hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]), draw_top=["G2v", "BYv"])
    s, _ = V.apply(s, DRAW)
    assert s.phase == V.FLIP
    s, _ = V.apply(s, Flip(BLUE))
    assert s.phase == V.FLIP and s.plus[BLUE] is True
    s, _ = V.apply(s, Flip(BLUE))
    assert s.plus[BLUE] is False  # back where it was
    assert s.phase == V.START and s.to_move == 1


def test_reshuffled_transformers_force_a_flip_too():
    t = Table()
    s = t.state(hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]), discard=["O2v", "P2v"], rest=None)
    assert s.draw == []
    s, ev = V.apply(s, DRAW)
    assert kinds(ev) == ["reshuffle", "draw"]
    s, ev = V.apply(s, Flip(ORANGE))
    assert kinds(ev) == ["flip", "draw"]
    s, _ = V.apply(s, Flip(PURPLE))
    assert s.plus == [False, False, False, False] and s.to_move == 1


def test_transformer_in_hand_or_on_the_board_has_no_further_effect():
    t = Table()
    s = t.state(hands=(["O1v", "G2v", "B3", "P1"], ["O2", "O3", "G1", "G3"]), draw_top=["P2"])
    s, ev = V.apply(s, play("O1v", ORANGE, 0))
    assert kinds(ev) == ["play"] and s.phase == V.SECOND
    s, ev = V.apply(s, play("G2v", GREEN, 1))
    assert kinds(ev) == ["play"] and s.phase == V.START and s.flips == 0
    assert s.plus == list(V.INITIAL_PLUS)


# ---------------------------------------------------------------------------
# Scoring a set


def test_a_terminal_is_scored_the_moment_it_holds_five_cards():
    t = Table()
    s = t.state(
        hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]),
        board={(ORANGE, 0): ["O3", "O2"], (ORANGE, 1): ["O1", "O1"]},
    )
    s2, ev = V.apply(s, play("O1", ORANGE, 0))
    assert kinds(ev) == ["play", "score"]
    assert count(s2, ORANGE) == 0 and s2.scores == [1, 0]
    # Four cards is not yet a set.
    s3, ev = V.apply(s, play("G2", GREEN, 0))
    assert kinds(ev) == ["play"] and count(s3, ORANGE) == 4


def test_special_cards_count_towards_the_five():
    t = Table()
    s = t.state(
        hands=(["FU", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]),
        board={(BLUE, 0): ["B1", "BY"], (BLUE, 1): ["FU", "BY"]},
    )
    s2, ev = V.apply(s, play("FU", BLUE, 1))  # no number card there: placed, fifth card
    assert kinds(ev) == ["play", "score"] and count(s2, BLUE) == 0


def test_bypass_as_fifth_card_takes_its_card_first_then_the_set_is_scored():
    t = Table()
    s = t.state(
        hands=(["BY", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]),
        board={(ORANGE, 0): ["O1", "O1"], (ORANGE, 1): ["O3", "O3"]},
    )
    # Before the bypass seat 1 leads 6-2 on orange (+); the bypass takes an O3 first: 5-3.
    s2, ev = V.apply(s, play("BY", ORANGE, 1, "O3"))
    assert kinds(ev) == ["play", "score"]
    assert ev[1].totals == (5, 3) and ev[1].winner == 0
    assert s2.scores == [1, 0]


def test_side_totals_sum_number_cards_and_specials_count_zero():
    t = Table()
    s = t.state(
        hands=(["P3", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]),
        board={(PURPLE, 0): ["P2", "BY"], (PURPLE, 1): ["P3", "FU"]},
    )
    _, ev = V.apply(s, play("P3", PURPLE, 0))
    assert ev[1].totals == (5, 3)


def test_plus_block_higher_total_wins_the_set():
    for fifth_by in (0, 1):
        t = Table()
        s = t.state(
            hands=(["O1", "G2", "B3", "P1"], ["O1", "O3", "G1", "G3"]),
            board={(ORANGE, 0): ["O3", "O1"], (ORANGE, 1): ["O2", "O1v"]},
            to_move=fifth_by,
        )
        # Whoever plays it, the fifth card goes to seat 0's side: 5-3 on a + block.
        s2, ev = V.apply(s, play("O1", ORANGE, 0))
        assert ev[1].plus is True and ev[1].totals == (5, 3)
        assert ev[1].winner == 0 and s2.scores == [1, 0]


def test_minus_block_lower_total_wins_the_set():
    for fifth_by in (0, 1):
        t = Table()
        s = t.state(
            hands=(["G1", "O2", "B3", "P1"], ["G1", "O3", "B1", "P3"]),
            board={(GREEN, 0): ["G3", "G1"], (GREEN, 1): ["G2", "G1v"]},
            to_move=fifth_by,
        )
        s2, ev = V.apply(s, play("G1", GREEN, 0))
        assert ev[1].plus is False and ev[1].totals == (5, 3)
        assert ev[1].winner == 1 and s2.scores == [0, 1]
    # A flipped block scores the other way.
    t = Table()
    s = t.state(
        hands=(["G1", "O2", "B3", "P1"], ["G1", "O3", "B1", "P3"]),
        board={(GREEN, 0): ["G3", "G1"], (GREEN, 1): ["G2", "G1v"]},
        plus=(True, True, False, True),
    )
    _, ev = V.apply(s, play("G1", GREEN, 0))
    assert ev[1].winner == 0


def test_tie_the_player_who_played_the_fifth_card_loses():
    for fifth_by in (0, 1):
        t = Table()
        s = t.state(
            hands=(["B1", "O2", "G3", "P1"], ["B1", "O3", "G1", "P3"]),
            board={(BLUE, 0): ["B2", "B1"], (BLUE, 1): ["B3", "B1v"]},
            to_move=fifth_by,
        )
        s2, ev = V.apply(s, play("B1", BLUE, 0))  # 4-4
        assert ev[1].totals == (4, 4)
        assert ev[1].winner == 1 - fifth_by
        assert s2.scores[1 - fifth_by] == 1 and s2.scores[fifth_by] == 0


def test_set_winner_moves_up_cards_go_to_the_discard_pile_and_the_block_stays():
    t = Table()
    s = t.state(
        hands=(["P1", "O2", "G3", "B1"], ["B2", "O3", "G1", "P3"]),
        board={(PURPLE, 0): ["P3", "P2"], (PURPLE, 1): ["P1", "BY"]},
        discard=["G1"],
        plus=(True, False, False, False),  # purple flipped to -
        scores=(2, 1),
    )
    on_board = s.board[2 * PURPLE] + s.board[2 * PURPLE + 1]
    s2, ev = V.apply(s, play("P1", PURPLE, 0))
    played = [c for c in s.hands[0] if c not in s2.hands[0]]
    assert ev[1].totals == (6, 1) and ev[1].winner == 1 and s2.scores == [2, 2]
    assert s2.board[2 * PURPLE] == [] and s2.board[2 * PURPLE + 1] == []
    assert sorted(s2.discard) == sorted(s.discard + on_board + played)
    assert s2.plus == [True, False, False, False]


def test_after_a_score_the_draw_of_play_one_still_follows():
    t = Table()
    s = t.state(
        hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]),
        board={(ORANGE, 0): ["O3", "O2"], (ORANGE, 1): ["O1", "O1"]},
        draw_top=["B2"],
    )
    s, ev = V.apply(s, play("O1", ORANGE, 0))
    assert kinds(ev) == ["play", "score"]
    assert s.phase == V.SECOND and s.to_move == 0
    s, ev = V.apply(s, DRAW)
    assert kinds(ev) == ["draw"] and "B2" in codes(s.hands[0]) and s.to_move == 1


def test_after_a_score_the_second_card_must_still_go_to_another_terminal():
    t = Table()
    s = t.state(
        hands=(["O1", "O2", "B3", "P1"], ["B1", "O3", "G1", "G3"]),
        board={(ORANGE, 0): ["O3", "O2"], (ORANGE, 1): ["O1", "O1"]},
    )
    s, _ = V.apply(s, play("O1", ORANGE, 0))
    assert count(s, ORANGE) == 0 and s.first_terminal == ORANGE
    assert not any(isinstance(a, Play) and a.terminal == ORANGE for a in V.legal_actions(s))
    assert "different terminal" in refused(s, play("O2", ORANGE, 0))
    s, ev = V.apply(s, play("B3", BLUE, 1))
    assert s.to_move == 1


# ---------------------------------------------------------------------------
# End


def test_four_sets_win_at_once_even_on_the_first_card_of_play_two():
    t = Table()
    s = t.state(
        hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]),
        board={(ORANGE, 0): ["O3", "O2"], (ORANGE, 1): ["O1", "O1"]},
        scores=(3, 3),
    )
    s2, ev = V.apply(s, play("O1", ORANGE, 0))
    assert kinds(ev) == ["play", "score", "end"]
    assert s2.over and s2.winner == 0 and s2.scores == [4, 3] and s2.reason
    assert V.legal_actions(s2) == []
    assert "over" in refused(s2, play("G2", GREEN, 0))
    assert ev[-1].winner == 0 and ev[-1].scores == (4, 3)


def test_four_sets_win_for_the_opponent_on_the_movers_card():
    t = Table()
    s = t.state(
        hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]),
        board={(ORANGE, 0): ["O1", "O1"], (ORANGE, 1): ["O3", "O2"]},
        scores=(0, 3),
    )
    s2, _ = V.apply(s, play("O1", ORANGE, 0))
    assert s2.over and s2.winner == 1


def _stuck(scores, hands=((), ())):
    t = Table()
    return t.state(hands=hands, board={(ORANGE, 0): ["O1"], (BLUE, 1): ["B2"]}, rest=None, scores=scores)


@pytest.mark.parametrize("scores,winner", [((2, 1), 0), ((0, 3), 1), ((2, 2), None)])
def test_no_legal_action_passes_and_when_neither_can_act_the_match_ends(scores, winner):
    s = _stuck(scores)
    assert V.legal_actions(s) == [PASS]
    s, ev = V.apply(s, PASS)
    assert kinds(ev) == ["pass"] and s.to_move == 1 and not s.over
    assert V.legal_actions(s) == [PASS]
    s, ev = V.apply(s, PASS)
    assert kinds(ev) == ["pass", "end"]
    assert s.over and s.winner == winner and s.scores == list(scores)
    assert ev[-1].winner == winner


def test_a_single_pass_does_not_end_the_match_when_the_other_player_can_act():
    s = _stuck((1, 1), hands=((), ("G1", "P2")))
    s, _ = V.apply(s, PASS)
    assert not s.over and s.to_move == 1
    assert PASS not in V.legal_actions(s)
    assert "cannot pass" in refused(s, PASS)
    s, _ = V.apply(s, play("G1", GREEN, 1))
    s, _ = V.apply(s, play("P2", PURPLE, 0))
    assert s.to_move == 0 and not s.over
    s, _ = V.apply(s, PASS)  # the count of passes in a row started again
    assert not s.over
    s, _ = V.apply(s, PASS)
    assert s.over and s.winner is None


def test_pass_is_refused_while_the_player_can_act():
    s = V.new_match(1)
    assert PASS not in V.legal_actions(s)
    assert "cannot pass" in refused(s, PASS)


def test_a_player_may_resign_at_any_time_even_out_of_turn():
    s = V.new_match(4)
    mover, other = s.to_move, 1 - s.to_move
    for who in (mover, other):
        for asker in (None, who):  # as the host (no seat) or as that seat
            r, ev = V.apply(s, Resign(who), asker)
            assert r.over and r.winner == 1 - who and r.reason == "resignation"
            assert kinds(ev) == ["resign", "end"] and ev[0].seat == who
    # mid-turn: after a first card, and while a flip is owed
    t = Table()
    mid = t.state(hands=(["O1", "G2", "B3", "P1"], ["O2", "O3", "G1", "G3"]), draw_top=["B1v"])
    second, _ = V.apply(mid, play("O1", ORANGE, 0))
    flip, _ = V.apply(mid, DRAW)
    assert flip.phase == V.FLIP
    for st in (second, flip):
        for who in (0, 1):
            r, _ = V.apply(st, Resign(who), who)
            assert r.winner == 1 - who
    # Not for the other seat, and not once the match is over.
    assert "themselves" in refused(s, Resign(other), mover)
    over, _ = V.apply(s, Resign(mover))
    assert "over" in refused(over, Resign(other))


# ---------------------------------------------------------------------------
# Actions: checking and text


def test_an_illegal_action_raises_with_a_reason_and_leaves_the_state_unchanged():
    t = Table()
    s = t.state(
        hands=(["O1", "BY", "FU", "P1", "G1", "G2"], ["O2", "O3", "B1", "G3"]),
        board={(ORANGE, 1): ["O2", "FU"]},
    )
    cases = [
        (play("B3", BLUE, 0), "no blue 3"),
        (play("O1v", ORANGE, 0), "transformer"),
        (play("O1", GREEN, 0), "orange terminal"),
        (play("O1", ORANGE, 0, "O2"), "only a bypass"),
        (play("BY", ORANGE, 0), "opponent's side"),
        (play("BY", ORANGE, 1), "choose"),
        (play("FU", ORANGE, 1, "FU"), "never takes a special"),
        (play("FU", ORANGE, 1, "O3"), "no orange 3"),
        (DRAW, "6 cards"),
        (Flip(ORANGE), "transformer"),
        (PASS, "cannot pass"),
    ]
    for action, words in cases:
        assert words in refused(s, action), action
    assert "not your turn" in refused(s, play("O2", ORANGE, 1), seat=1)
    assert issubclass(IllegalActionError, RuleError) and issubclass(IllegalActionError, ValueError)


def test_malformed_or_out_of_range_plays_are_refused_not_crashing():
    s = Table().state(hands=(["O1", "BY", "FU", "P1"], ["O2", "O3", "B1", "G3"]))
    for action in (
        play("BY", 7, 1),
        play("BY", -1, 1),
        play("O1", 7, 0),
        play("O1", ORANGE, 2),
        play("BY", ORANGE, 2),
        Flip(9),
        Resign(2),
    ):
        refused(s, action)


def test_action_text_round_trips_for_every_legal_action_across_random_play():
    seen = set()
    for s in random_states(range(25), rng_seed=3):
        for a in V.legal_actions(s):
            text = a.text()
            assert V.parse_action(text) == a, text
            assert V.parse_action(text.upper()) == a
            seen.add(type(a).__name__)
    for seat in (0, 1):
        assert V.parse_action(Resign(seat).text()) == Resign(seat)
    assert V.parse_action(PASS.text()) == PASS
    assert {"Play", "Draw", "Flip"} <= seen


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "jump",
        "play",
        "play O1",
        "play O1 orange",
        "play O4 orange 0",
        "play X1 orange 0",
        "play O1 red 0",
        "play O1 orange 2",
        "play O1 orange x",
        "play O1 orange 0 ZZ",
        "play O1 orange 0 O2 O3",
        "draw 2",
        "flip",
        "flip pink",
        "flip orange green",
        "pass now",
        "resign",
        "resign 2",
        "resign me",
    ],
)
def test_malformed_action_text_raises_invalid_action_error(text):
    with pytest.raises(InvalidActionError) as info:
        V.parse_action(text)
    assert str(info.value)
    assert isinstance(info.value, ValueError)


def test_apply_returns_a_new_state_and_replay_reproduces_it():
    rng = random.Random(9)
    s = V.new_match(21)
    actions = []
    while not s.over:
        a = rng.choice(V.legal_actions(s))
        before = s.key()
        s2, _ = V.apply(s, a)
        assert s.key() == before
        actions.append(a)
        s = s2
    assert V.replay(21, actions) == s
    assert V.replay(21, [V.parse_action(a.text()) for a in actions]) == s
    assert all_cards(s) == list(range(DECK_SIZE))
    assert isinstance(DRAW, Draw) and isinstance(PASS, Pass)


def test_a_stored_log_applies_as_its_host_applied_it():
    s = V.new_match(12)
    first = V.legal_actions(s)[0]
    action, s1, events = V.apply_logged(s, first.text())
    assert action == first and s1 == V.apply(s, first)[0] and events
    waiting = 1 - s1.to_move  # a resignation comes from its own seat, in or out of turn
    action, s2, _ = V.apply_logged(s1, V.Resign(waiting).text())
    assert s2.over and s2.winner == s1.to_move
    with pytest.raises(InvalidActionError):
        V.apply_logged(s1, "dance")
