"""The coach: a hint for the seat to move, and the analysis of a finished match.

Both read what a seat may know (its view), never the state, so a hint and each point of
an analysis are the same for any arrangement of the cards that seat could not see.

- :func:`hint`: the move the Expert search plays in a view, with its chance to win and
  the reason it is good, as data (:class:`Reason`: what the move does at its terminal and
  where that leaves the seat there); the tui words it.
- :func:`explain`: that reason for any legal move (the lessons say why a wrong move is
  wrong with it).
- :func:`analyse`: every decision of a finished match, in the mover's view at the time:
  the chance to win after the move played and after the best one, by the Expert search;
  a move that lost :data:`MISTAKE` or more is a mistake, and the better move is named.

Pure and deterministic: the search is seeded from the position (its turn and phase), so
analysing a match twice gives the same figures, and a stored analysis stays true.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.voltage import rules as V
from engine.voltage.cards import BYPASS, Card

#: A move that lowers the mover's chance to win by this much (0..1) or more is a mistake.
MISTAKE = 0.15
#: What :func:`analyse` stores beside its figures, so an analysis made with another
#: budget or search can be told apart (and made again).
ANALYSIS_VERSION = 1


@dataclass(frozen=True)
class Reason:
    """Why a move is played, as data: ``kind`` and the terminal's facts after the move.

    Kinds: ``wins_set`` / ``loses_set`` (the move fills the terminal: ``mine``-``theirs``,
    who takes the set; ``match``: it is the fourth set), ``takes`` (a bypass takes
    ``target``), ``burns`` (a blown fuse discards ``target``), ``adds`` (a number card on
    the mover's own side), ``loads`` (a number card on the opponent's side), ``fills`` (a
    special with nothing to take), ``flips`` (a block turned), ``draw_two``, ``draw_one``,
    ``pass``.  ``lead`` is where the mover stands at that terminal afterwards: 1 ahead
    (by the block's rule: higher wins on ``+``, lower on ``-``), 0 level, -1 behind."""

    kind: str
    terminal: int = -1
    card: Card | None = None
    target: Card | None = None
    mine: int = 0
    theirs: int = 0
    plus: bool = True
    count: int = 0
    lead: int = 0
    match: bool = False


@dataclass(frozen=True)
class Hint:
    """The move the Expert plays, its chance to win after it (0..1) and why."""

    action: V.Action
    chance: float
    reason: Reason


def _lead(mine: int, theirs: int, plus: bool) -> int:
    if mine == theirs:
        return 0
    return 1 if (mine > theirs) == plus else -1


def explain(view: V.VoltageView, action: V.Action) -> Reason:
    """What ``action`` does for the seat of ``view`` (which must be to move), as data."""
    if view.seat is None:
        raise ValueError("a spectator has no move to explain")
    me = view.seat
    if isinstance(action, V.Draw):
        return Reason("draw_two" if view.phase == "start" else "draw_one")
    if isinstance(action, V.Flip):
        t = action.terminal
        plus = not view.plus[t]
        mine, theirs = view.total(t, me), view.total(t, 1 - me)
        return Reason("flips", t, plus=plus, mine=mine, theirs=theirs, count=view.count(t),
                      lead=_lead(mine, theirs, plus))
    if not isinstance(action, V.Play):
        return Reason("pass")
    t, card, target = action.terminal, action.card, action.target
    own = list(view.board[t][me])
    other = list(view.board[t][1 - me])
    if card.special:
        if target is not None:
            other[other.index(target)] = card
            if card.face == BYPASS:
                own.append(target)
        else:
            other.append(card)
    elif action.side == me:
        own.append(card)
    else:
        other.append(card)
    mine, theirs = sum(c.value for c in own), sum(c.value for c in other)
    plus, count = view.plus[t], len(own) + len(other)
    if count >= V.SET_SIZE:
        won = mine != theirs and (mine > theirs) == plus  # a tie goes against the fifth card
        match = won and view.scores[me] + 1 >= V.SETS_TO_WIN
        return Reason("wins_set" if won else "loses_set", t, card, target, mine, theirs, plus, count,
                      1 if won else -1, match)
    if card.special:
        kind = "fills" if target is None else ("takes" if card.face == BYPASS else "burns")
    else:
        kind = "adds" if action.side == me else "loads"
    return Reason(kind, t, card, target, mine, theirs, plus, count, _lead(mine, theirs, plus))


def search_seed(view: V.VoltageView) -> int:
    """The search's seed for a position: from its public place in the match (the turn and
    the decision within it), so it is the same for every arrangement of the unseen cards."""
    return view.turn * 8 + {"start": 0, "second": 1, "flip": 2}.get(view.phase, 3) + view.flips_pending


def hint(view: V.VoltageView, *, iterations: int | None = None) -> Hint:
    """The Expert's move in ``view`` (its seat to move), its chance and why."""
    from engine.voltage.bots import rank

    if not view.legal:
        raise ValueError("no move to hint: it is not this seat's turn")
    if len(view.legal) == 1:
        from engine.voltage.bots import evaluate

        only = view.legal[0]
        return Hint(only, evaluate(view), explain(view, only))
    best, chance = rank(view, search_seed(view), iterations=iterations)[0]
    return Hint(best, chance, explain(view, best))


# -- the analysis of a finished match ----------------------------------------------


@dataclass(frozen=True)
class Move:
    """One analysed decision: after ``step`` (the action's number, 1 = the first) by ``seat``,
    that seat's chance to win (0..1), the best move's, and the best move's text when the
    move played was :data:`MISTAKE` worse than it."""

    step: int
    seat: int
    chance: float
    best: float
    better: str | None = None

    @property
    def loss(self) -> float:
        return max(0.0, self.best - self.chance)

    @property
    def mistake(self) -> bool:
        return self.better is not None


def _after(state: V.State, seat: int) -> float:
    """``seat``'s chance in ``state``: the result once over, else the learned value of its view."""
    if state.phase == V.OVER:
        if state.winner is None:
            return 0.5
        return 1.0 if state.winner == seat else 0.0
    from engine.voltage.bots import evaluate

    return evaluate(V.view(state, seat))


def analyse(
    seed: int,
    actions: Sequence[str],
    *,
    iterations: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Move]:
    """Each decision of the match dealt by ``seed`` and played by ``actions`` (their texts,
    as stored), from its mover's view at the time; ``progress(done, total)`` after each.
    Endings (a resignation, a timeout...) are not decisions and get no point."""
    from engine.voltage.bots import rank
    from engine.voltage.bots.ismcts import action_key

    state = V.new_match(seed)
    out: list[Move] = []
    total = len(actions)
    for i, text in enumerate(actions):
        action = V.parse_action(text)
        if isinstance(action, V.ENDINGS):
            _a, state, _e = V.apply_logged(state, text)
            if progress is not None:
                progress(i + 1, total)
            continue
        seat = state.to_move
        view = V.view(state, seat)
        _a, after, _e = V.apply_logged(state, text)
        if len(view.legal) > 1:
            ranked = rank(view, search_seed(view), iterations=iterations)
            played = action_key(action)
            chance = next((v for a, v in ranked if action_key(a) == played), 0.0)
            if after.phase == V.OVER:
                chance = _after(after, seat)
            top_action, best = ranked[0]
            best = max(best, chance)
            better = None
            if best - chance >= MISTAKE and action_key(top_action) != played:
                better = top_action.text()
            out.append(Move(i + 1, seat, chance, best, better))
        else:
            chance = _after(after, seat)
            out.append(Move(i + 1, seat, chance, chance))
        state = after
        if progress is not None:
            progress(i + 1, total)
    return out


__all__ = ["ANALYSIS_VERSION", "Hint", "MISTAKE", "Move", "Reason", "analyse", "explain", "hint", "search_seed"]
