"""Oracle searches: a measuring stick, never an opponent.

An oracle is the ISMCTS search of :mod:`engine.voltage.bots.ismcts` (same tree, same
playouts, same judgement, same budget) whose worlds are not imagined from its view but
taken from the **true state** of the match, which the arena shows it before each move
(:meth:`OracleBot.peek`).  It answers one question: how much does the search win when
nothing is hidden from it?  If an omniscient search cannot beat a bot by some margin,
no honest search of the same kind will.

- ``sight="all"``: every world is the true state itself: both hands, the real order of
  the draw and discard piles, and the match seed that orders later reshuffles.  The
  search is then a perfect-information tree search of the actual future.
- ``sight="hand"``: the opponent's real hand, with the piles shuffled afresh (the draw
  pile's top keeps its public back) and a fresh seed: what perfect card counting and
  reading of the opponent could at most give, without knowing the future draws.
- ``sight="discard"``: the view's own worlds, with the discard pile under its top as it is
  (every card in it went there face up: a scored set, a fused card): what a player who
  remembers every card that went to the pile knows and the view does not carry.

It cheats by design, so it is an arena entrant only (``expert-oracle``, ``hard-oracle``,
``expert-oracle-hand``, ``hard-oracle-hand`` in :data:`engine.voltage.bots.ARENA_BOTS`):
never in :data:`~engine.voltage.bots.BOT_NAMES` or
:data:`~engine.voltage.bots.STRENGTHS`, so no lobby, server or offline match offers
it, and it refuses to move unless it was shown a state whose view is the one it is asked
about (a server, which only passes views, cannot make it play).
"""

from __future__ import annotations

import random
from typing import Any

from engine.voltage import rules as V
from engine.voltage.bots.determinize import Determinizer
from engine.voltage.bots.ismcts import FixedWorld, ISMCTSBot, Worlds
from engine.voltage.cards import CARD_TRANSFORMER, Card
from engine.voltage.rules import State, VoltageView

SIGHTS = ("all", "hand", "discard")


class _TrueHands:
    """The true state with both hands as they are and the piles reshuffled (fresh seed)."""

    __slots__ = ("state", "pool", "n_draw", "top_back")

    def __init__(self, state: State) -> None:
        self.state = state
        s = state
        # Unseen by both players: the draw pile and the discard pile under its top card.
        self.pool = s.draw + s.discard[:-1]
        self.n_draw = len(s.draw)
        self.top_back = bool(CARD_TRANSFORMER[s.draw[-1]]) if s.draw else False

    def sample(self, rng: random.Random) -> State:
        s = self.state.copy()
        rest = self.pool[:]
        rng.shuffle(rest)
        draw_top = -1
        if self.n_draw:
            for i, c in enumerate(rest):
                if bool(CARD_TRANSFORMER[c]) == self.top_back:
                    draw_top = rest.pop(i)
                    break
        n_below = max(self.n_draw - 1, 0)
        s.draw = rest[:n_below]
        if draw_top >= 0:
            s.draw.append(draw_top)
        s.discard = rest[n_below:] + self.state.discard[-1:]
        s.seed = rng.getrandbits(48)
        return s


class OracleBot(ISMCTSBot):
    """An ISMCTS bot that searches the true state shown to it by :meth:`peek` (see the module)."""

    def __init__(self, seed: int | None = None, *, sight: str = "all", **kw: Any) -> None:
        if sight not in SIGHTS:
            raise ValueError(f"unknown oracle sight {sight!r}: choose from {', '.join(SIGHTS)}")
        super().__init__(seed, **kw)
        self.sight = sight
        self._state: State | None = None

    def peek(self, state: State) -> None:
        """Show the bot the true state of the match it is about to move in (it keeps a copy)."""
        self._state = state.copy()

    def choose(self, view: VoltageView) -> V.Action:
        try:
            return super().choose(view)
        finally:
            self._state = None  # one peek, one move: never a stale state

    def worlds(self, view: VoltageView) -> Worlds:
        s = self._state
        if s is None:
            raise ValueError("an oracle moves only where it is shown the true state (the arena)")
        if V.view(s, view.seat) != view:
            raise ValueError("the state shown to the oracle is not the one of its view")
        if self.sight == "discard":
            return Determinizer(view, [Card.of(c) for c in s.discard[:-1]])
        return FixedWorld(s) if self.sight == "all" else _TrueHands(s)


__all__ = ["SIGHTS", "OracleBot"]
