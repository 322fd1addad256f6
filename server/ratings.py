"""Ratings: one OpenSkill rating per player per game, as pure functions (no storage).

- A rating is ``(mu, sigma)``; a new player starts at the model's default
  (25, 25/3).  :func:`rate` takes the seats of one finished match with their
  finishing ranks (1 = first; equal numbers tie) and returns each seat's
  :class:`Change` (before and after).  Works for 2 to 4 seats.
- **Model**: OpenSkill's Bradley-Terry "full" model, which compares every pair
  of seats.  With two seats it gives exactly the same update as the package's
  default Plackett-Luce; we prefer it because Plackett-Luce mishandles ties
  among several players (with ranks 1, 1, 3, 4 it moves the third-placed
  player up exactly as far as the two tied winners), and High Voltage ranks
  all of its 2-4 players.
- **A match with a bot is not rated**: a rating is earned against people (as
  lichess rates no bot games), so it cannot be farmed against a slow bot, and one
  win over three bots cannot move it by hundreds.  A player's record against each
  bot level is kept apart (``Store.bot_record``).
- **Guests** (no identity, no bot) are not rated and are left out of the
  comparison altogether, so playing a guest neither gains nor loses rating
  (nobody can farm guest accounts).  A match needs two rated people to change
  anything.  Unfinished matches are never passed here.
- A seat with both an identity and a bot (a bot standing in for a human who
  left) is that human's, rated as theirs: leaving does not dodge a loss, and it
  does not make the match one "with a bot".
- **Display**: :func:`display` shows a rating as one number, the conservative
  "ordinal" ``mu - 3*sigma`` scaled to ``1000 + 20 * ordinal``, rounded: a new
  player shows 1000, and it rises as the system grows sure of them (sigma
  shrinks), so a displayed rating is one the player is very likely above.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from openskill.models import BradleyTerryFull

MU = 25.0
SIGMA = 25.0 / 3.0

_model = BradleyTerryFull(mu=MU, sigma=SIGMA)


@dataclass(frozen=True)
class Entrant:
    """One seat of a finished match, as the rating sees it.

    ``rating`` is the human's current (mu, sigma) in this game, or ``None``
    for a first game (or for a bot / guest, where it is ignored)."""

    seat: int
    rank: int
    identity: str | None = None
    bot: str | None = None
    rating: tuple[float, float] | None = None

    @property
    def is_guest(self) -> bool:
        return self.identity is None and self.bot is None

    @property
    def is_bot(self) -> bool:
        """A bot in a seat of its own (not one standing in for a person)."""
        return self.identity is None and self.bot is not None

    @property
    def is_human(self) -> bool:
        """A rated person (a bot standing in for one still counts as them)."""
        return self.identity is not None


@dataclass(frozen=True)
class Change:
    """A human seat's rating before and after one match."""

    seat: int
    identity: str
    before: tuple[float, float]
    after: tuple[float, float]

    @property
    def shown_before(self) -> int:
        return display(*self.before)

    @property
    def shown_after(self) -> int:
        return display(*self.after)

    @property
    def delta(self) -> int:
        """The change in the displayed rating (what the results screen shows)."""
        return self.shown_after - self.shown_before


def display(mu: float, sigma: float) -> int:
    """The one number shown for a rating: ``round(1000 + 20 * (mu - 3 * sigma))``."""
    return round(1000 + 20 * (mu - 3 * sigma))


def rate(game: str, entrants: Sequence[Entrant]) -> list[Change]:
    """The new ratings of the human seats of one finished match.

    Guests are left out; a match with a bot is not rated.  Returns one
    :class:`Change` per human seat (empty when a bot sits, or fewer than two
    rated people remain).
    """
    if any(e.is_bot for e in entrants):
        return []
    rated = [e for e in entrants if e.is_human]
    if len(rated) < 2:
        return []
    if len({e.identity for e in rated}) < len(rated):
        raise ValueError("one identity holds two seats")
    before = [e.rating if e.rating is not None else (MU, SIGMA) for e in rated]
    teams = [[_model.rating(mu=mu, sigma=sigma)] for mu, sigma in before]
    result = _model.rate(teams, ranks=[float(e.rank) for e in rated])
    out: list[Change] = []
    for e, b, team in zip(rated, before, result, strict=True):
        assert e.identity is not None
        out.append(Change(e.seat, e.identity, b, (team[0].mu, team[0].sigma)))
    return out


def ranks_from_winner(winner: int | None, seats: int = 2) -> list[int]:
    """Finishing ranks for a game with one winner (``None``: everyone ties)."""
    if winner is None:
        return [1] * seats
    return [1 if s == winner else 2 for s in range(seats)]


SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Iterable[float], width: int | None = None) -> str:
    """A one-line chart of ``values`` (the last ``width`` of them), e.g. ``▁▂▄▇█▆``."""
    vals = list(values)
    if width is not None and width > 0:
        vals = vals[-width:]
    if not vals:
        return ""
    lo, hi = min(vals), max(vals)
    if hi == lo:
        return SPARKS[len(SPARKS) // 2 - 1] * len(vals)
    top = len(SPARKS) - 1
    return "".join(SPARKS[round((v - lo) / (hi - lo) * top)] for v in vals)
