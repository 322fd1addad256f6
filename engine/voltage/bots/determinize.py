"""Sample a full Voltage state consistent with what one seat may know.

A bot sees a :class:`~engine.voltage.rules.VoltageView`, never the state.  To search,
it imagines a *world*: a :class:`~engine.voltage.rules.State` whose view for that seat
is exactly the view it was given.  The unseen cards (all 56 minus its own hand,
the board and the discard pile's top card) are shuffled into

- the opponent's hand, keeping its public count of transformer backs (the
  view gives them transformers first, never in hand order, and so does the
  world: the view of a sampled world is the view it was sampled from),
- the draw pile, keeping the public back of its top card,
- the discard pile under its known top card,

and the match seed (which orders every later reshuffle) is drawn afresh, since
no seat knows it.  Two copies of a card with the same face and the same back
are interchangeable to the rules, so any id with that face and back will do.

Two facts of the state are not in the view and are inferred exactly:

- ``draws`` (draws still owed this turn, while a flip is pending): a flip after
  "play one, draw one" owes nothing more; during "draw two" the first draw left
  the hand odd and owes one more, the second left it even.  Hands are even at
  the start of every turn because no draw ever fails: the piles never run dry
  together (hands hold at most 12 cards and the board at most 16, of 56).
- ``passes`` (consecutive passes) is 0: for the same reason nobody ever has to pass.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.voltage.cards import CARD_TRANSFORMER, DECK_SIZE, Card
from engine.voltage.rules import CARD_KEY, FLIP, PHASE_NAMES, State, VoltageView

# Ids of each card kind (key = face * 2 + transformer), in id order.
_IDS_BY_KEY: tuple[tuple[int, ...], ...] = tuple(
    tuple(c for c in range(DECK_SIZE) if CARD_KEY[c] == k) for k in range(28)
)


def _key(card: Card) -> int:
    return card.face * 2 + bool(card.transformer)


class Determinizer:
    """Everything fixed by one view, computed once; :meth:`sample` draws a world.

    Sampling many worlds for the same view (as a search does, once per
    iteration) only shuffles the unseen cards.
    """

    __slots__ = (
        "view",
        "seat",
        "own_hand",
        "board",
        "discard_top",
        "unseen_t",
        "unseen_n",
        "opp_backs",
        "phase",
        "draws",
        "known_discard",
    )

    def __init__(self, view: VoltageView, discard: Sequence[Card] | None = None) -> None:
        if view.seat is None or view.hand is None:
            raise ValueError("a spectator's view has no hand to determinize from")
        self.view = view
        self.seat = view.seat
        free = [list(ids) for ids in _IDS_BY_KEY]

        def take(card: Card) -> int:
            ids = free[_key(card)]
            if not ids:
                raise ValueError(f"the view shows more copies of {card.code} than the deck holds")
            return ids.pop()

        self.own_hand = [take(c) for c in view.hand]
        self.board = [[take(c) for c in view.board[t][side]] for t in range(4) for side in (0, 1)]
        if (view.discard_top is None) != (view.discard_count == 0):
            raise ValueError("the view's discard pile is inconsistent")
        self.discard_top = take(view.discard_top) if view.discard_top is not None else -1
        self.known_discard: list[int] = []
        if discard is not None:
            if len(discard) != max(view.discard_count - 1, 0):
                raise ValueError("the discard pile remembered is not the size of the view's")
            self.known_discard = [take(c) for c in discard]
        unseen = [c for ids in free for c in ids]
        self.unseen_t = [c for c in unseen if CARD_TRANSFORMER[c]]
        self.unseen_n = [c for c in unseen if not CARD_TRANSFORMER[c]]
        opp = 1 - self.seat
        self.opp_backs = view.hand_backs[opp]
        need_t = sum(self.opp_backs) + (view.draw_count > 0 and view.draw_top_transformer)
        need = len(self.opp_backs) + view.draw_count + max(view.discard_count - 1, 0) - len(self.known_discard)
        if need != len(unseen) or need_t > len(self.unseen_t):
            raise ValueError("the view's card counts do not add up to the deck")
        if len(self.opp_backs) + (view.draw_count > 0) - need_t > len(self.unseen_n):
            raise ValueError("the view's card backs do not fit the deck")
        self.phase = PHASE_NAMES.index(view.phase)
        self.draws = 0
        if self.phase == FLIP and view.first_terminal < 0:
            # Flipping in the middle of "draw two": one draw still owed after the first.
            mover_hand = len(view.hand_backs[view.to_move])
            self.draws = mover_hand % 2

    def sample(self, rng: random.Random, opp_hand: Sequence[int] | None = None) -> State:
        """One world consistent with the view, drawn with ``rng``; with ``opp_hand`` (card ids
        of an earlier sample of this determinizer), the opponent holds those and only the
        piles are shuffled."""
        v = self.view
        # One shuffle of every unseen card; the opponent's hand then takes the first
        # cards with the backs it needs, the draw pile's top the next one with its
        # back, and the rest keep their shuffled order.
        if opp_hand is None:
            rest = self.unseen_t + self.unseen_n
        else:
            held = set(opp_hand)
            rest = [c for c in self.unseen_t if c not in held] + [c for c in self.unseen_n if c not in held]
        rand = rng.random
        for i in range(len(rest) - 1, 0, -1):
            j = int(rand() * (i + 1))
            rest[i], rest[j] = rest[j], rest[i]
        hand: list[int] = []
        if opp_hand is None:
            for back in self.opp_backs:
                for i, c in enumerate(rest):
                    if CARD_TRANSFORMER[c] == back:
                        hand.append(rest.pop(i))
                        break
        else:
            hand = list(opp_hand)
        draw_top = -1
        if v.draw_count:
            back = v.draw_top_transformer
            for i, c in enumerate(rest):
                if CARD_TRANSFORMER[c] == back:
                    draw_top = rest.pop(i)
                    break
        n_draw = max(v.draw_count - 1, 0)
        draw = rest[:n_draw]
        if draw_top >= 0:
            draw.append(draw_top)
        discard = rest[n_draw:] + self.known_discard
        if self.discard_top >= 0:
            discard.append(self.discard_top)

        s = State.__new__(State)
        s.seed = rng.getrandbits(48)
        hands: list[list[int]] = [[], []]
        hands[self.seat] = self.own_hand[:]
        hands[1 - self.seat] = hand
        s.hands = hands
        s.draw = draw
        s.discard = discard
        s.board = [side[:] for side in self.board]
        s.plus = list(v.plus)
        s.scores = list(v.scores)
        s.to_move = v.to_move
        s.phase = self.phase
        s.first_terminal = v.first_terminal
        s.flips = v.flips_pending
        s.draws = self.draws
        s.passes = 0
        s.winner = v.winner
        s.reason = v.reason
        s.shuffles = 0
        s.first_player = v.first_player
        s.turns = v.turn
        return s


def determinize(view: VoltageView, rng: random.Random) -> State:
    """One state, drawn with ``rng``, whose view for ``view.seat`` is ``view``."""
    return Determinizer(view).sample(rng)


__all__ = ["Determinizer", "determinize"]
