"""High Voltage bots: reaction levels as pure policies.

A bot sees only its seat's view and answers ``decide(view) -> (delay_seconds,
action or None)``: what it will do and how long it takes to get there.  The
bot keeps no clock; the host (or :mod:`engine.highvoltage.arena`, in simulated time)
schedules the action at ``now + delay`` and applies it then, aimed at the top
card the bot saw, so a bot beaten to it is refused as too slow.  ``None``
means there is nothing to do until the table changes (the bot has declared
stuck and spotted nothing): ask again after the next accepted action.

Policy, the same at every level (only the reaction time differs):
1. a card in hand that fits the top and that the bot *spotted* on this look:
   play it, choosing the one that starts the longest chain of its own cards,
   each fitting on the one before, then the one that leaves the most cards in
   hand that fit on it (:func:`chain_key`; ties by the bot's generator);
2. else draw from its own pile if it has one;
3. else declare stuck, once.

A look is human-like, because a bot that always sees everything at a fixed
speed wins every match against a slower one (a match is some seventy
actions, and the faster level is faster at each of them):

- Its time is the level's reaction time (:data:`REACTION_SECONDS`, for a top
  card the bot has not looked at yet) or :data:`RELOOK_SECONDS` (the same top
  again, e.g. after a draw), plus :data:`SCAN_SECONDS` for every card it has
  to read (the whole hand on a new top; only the cards it has not read yet on
  the same top), times a jitter factor from the bot's own seeded generator:
  log-normal with median 1 (sigma :data:`JITTER`), skewed to the slow side
  like human reaction times.
- Each card that fits is spotted with chance :data:`SPOT_CHANCE`; a card
  overlooked stays overlooked until the top card changes (the bot thinks it
  has read it), so an overlooked card means a draw or, with an empty pile,
  a "stuck" that was not quite true.

Measured with ``voltage arena --game high-voltage --players A,B --games 400``
(seats rotating): fast beats medium 82% of the time, medium beats slow 84%,
fast beats slow 94%; a two-player match between bots lasts about four
simulated minutes.

The choice among fitting cards matters: choosing at random among them wins 38.4% of
2,000 two-player matches against the first rule (the card that leaves the most cards
in hand that fit on it).  Two other choices are arena entrants, measured at equal
speed (same reaction, scan and spot), seats rotating, four-player tables seating two
of each:

- ``LEVEL-smart`` (:data:`SMART`, :func:`card_worth`: whether and how often my own
  cards follow the card, less the chance that each other player holds a card that
  follows it, counted from the cards this bot has seen played), measured against
  the first rule: no better.
  ``medium-smart`` against ``medium`` wins 476 of 1,000 two-player tables (47.6%, 95%
  Wilson 44.5-50.7%); two ``fast-smart`` against two ``fast`` win 501 of 1,000
  four-player tables (50.1%).  The unseen cards are spread too evenly over the values
  for blocking to tell the cards apart, and with three others someone nearly always
  holds a follower.
- ``LEVEL-v1`` (:data:`V1`): the first rule, which the levels played before
  :func:`chain_key`.  The chain is better, by a margin 1,000 tables shows with two
  players but not with four.  ``medium`` against ``medium-v1``, 1,000 tables from
  ``--seed 300000``: 544 two-player (54.4%, Wilson 51.3-57.5%) and 507 four-player
  (50.7%, 47.6-53.8%); 4,000 from ``--seed 1000000``: 2,169 (54.2%, 52.7-55.8%) and
  2,073 (51.8%, 50.3-53.4%); 4,000 from ``--seed 500000``: 2,092 (52.3%, 50.8-53.8%)
  and 2,052 (51.3%, 49.8-52.8%).  ``slow`` against ``slow-v1`` from ``--seed 900000``:
  530 of 1,000 (53.0%, 49.9-56.1%) and 544 of 1,000 (54.4%, 51.3-57.5%).  (Some were
  measured as an entrant ``LEVEL-chain`` against the levels still on the first rule:
  the same bots.)  A bot follows its own play about 69% of the time with one other
  player and 50% with three, so a chain
  beyond the next card survives less often at a full table.  Also tried on 2,000-6,000
  four-player tables, none clearly better than the chain: blocking (the share of
  unseen cards that follow) as the chain's tie-break, or only when an opponent is
  down to three cards; keeping the hand that fits the most tops; an expected chain
  length with the spot chance; the share of the others' likely followers that my
  hand can answer.

The levels play the chain: over all those runs it wins 4,805 of 9,000 two-player
tables at the medium level (53.4%, 52.4-54.4%) and 4,632 of 9,000 four-player ones
(51.5%, 50.4-52.5%).  The arena keeps both entrants to measure any other.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from engine.highvoltage.rules import DECK, Action, Draw, Face, HighVoltageView, Stuck, fits

# name -> reaction time in seconds (the median of a look at a new top card, before reading the hand)
REACTION_SECONDS: dict[str, float] = {"slow": 2.5, "medium": 1.5, "fast": 0.8}
HV_BOT_NAMES: tuple[str, ...] = tuple(REACTION_SECONDS)
RELOOK_SECONDS = 0.5  # a look at the same top card again (after a draw): only new cards to read
SCAN_SECONDS = 0.3  # reading one card of the hand against the top
SPOT_CHANCE = 0.8  # each fitting card is noticed with this chance on a look
JITTER = 0.35  # sigma of the log-normal factor: half of all looks within about ±25% of the median


# What the smart choice weighs (see card_worth): that I can follow the card with one of
# mine, how many of mine can, and how many of the others are likely to follow it.
FOLLOW_WEIGHT = 1.0
FOLLOWERS_WEIGHT = 0.2
OTHERS_WEIGHT = 1.0

_DECK_FACES: tuple[tuple[Face, int], ...] = tuple((Face(v, m), n) for v, m, n in DECK)

CHAIN_DEPTH = 6  # how far the chain search looks (a longer chain rarely survives the others' races)


def chain_length(card: Face, rest: tuple[Face, ...], depth: int = CHAIN_DEPTH) -> int:
    """The longest sequence of cards of ``rest`` that can follow ``card`` one after another,
    each fitting on the one before (a depth-first search, up to ``depth`` cards)."""
    if depth <= 0:
        return 0
    best = 0
    tried: set[Face] = set()
    for i, c in enumerate(rest):
        if c in tried or not fits(c, card):
            continue
        tried.add(c)
        best = max(best, 1 + chain_length(c, rest[:i] + rest[i + 1 :], depth - 1))
        if best >= min(depth, len(rest)):
            break  # nothing can be longer
    return best


def chain_key(card: Face, rest: list[Face]) -> tuple[int, int]:
    """The order of the candidates (the greatest is played): the longest chain of my own cards
    that ``card`` starts (each card I play on my own is a race I start ahead: the others are
    still looking at the top it covered), then how many of ``rest`` fit on ``card`` (the most
    ways to go on)."""
    followers = sum(1 for c in rest if fits(c, card))
    chain = chain_length(card, tuple(rest)) if followers else 0
    return chain, followers


def _unseen(hand: tuple[Face, ...], top: Face, played: Iterable[Face] = ()) -> dict[Face, int]:
    """Copies of each face a seat has not seen: the deck less its hand, the top card and
    the ``played`` cards it remembers."""
    out = dict(_DECK_FACES)
    for c in (*hand, top, *played):
        if out.get(c, 0) > 0:
            out[c] -= 1
    return out


def card_worth(card: Face, rest: list[Face], unseen: dict[Face, int], others: tuple[int, ...]) -> float:
    """How good it is to play ``card``, keeping ``rest``, against others holding ``others``
    cards (each): more when my own cards can follow it, less when the others are likely to
    hold a card that does (a share ``q`` of the unseen cards follows it; a hand of ``h``
    cards holds one with chance ``1 - (1 - q) ** h``)."""
    targets = card.targets
    followers = sum(1 for c in rest if c.value in targets)
    worth = FOLLOW_WEIGHT * (followers > 0) + FOLLOWERS_WEIGHT * followers
    total = sum(unseen.values())
    if total:
        q = sum(n for face, n in unseen.items() if face.value in targets) / total
        worth -= OTHERS_WEIGHT * sum(1.0 - (1.0 - q) ** h for h in others)
    return worth


class ReactionBot:
    """A High Voltage bot with one reaction time; see the module docstring.

    ``scan``, ``relook`` and ``spot`` default to the module's constants;
    ``spot=1.0`` gives a bot that never overlooks a card (for tests).
    """

    def __init__(
        self,
        name: str,
        reaction: float,
        seed: int | None = None,
        *,
        scan: float = SCAN_SECONDS,
        relook: float = RELOOK_SECONDS,
        spot: float = SPOT_CHANCE,
        rule: str = "",
    ) -> None:
        if rule not in RULES:
            raise ValueError(f"unknown choice rule {rule!r}")
        self.name = name
        self.rule = rule
        self.reaction = reaction
        self.scan = scan
        self.relook = relook
        self.spot = spot
        self.rng = random.Random(seed)
        self._looked: tuple[int, tuple[Face, ...]] | None = None  # (top_no, the hand read on it)
        # The played cards this bot has seen on top (by top number), for its count of the unseen.
        self._tops: dict[int, Face] = {}
        self._flips = 0

    def delay(self, base: float | None = None, cards: int = 0) -> float:
        """The time of one look: ``base`` (the reaction time) plus reading ``cards``, jittered."""
        base = self.reaction if base is None else base
        return (base + self.scan * cards) * self.rng.lognormvariate(0.0, JITTER)

    def choose_card(
        self,
        hand: tuple[Face, ...],
        top: Face,
        seen: tuple[Face, ...] | None = None,
        view: HighVoltageView | None = None,
    ) -> Face | None:
        """The fitting card to play on ``top`` (among ``seen`` when given), or None when nothing fits.

        The levels' rule: the greatest :func:`chain_key` (the longest chain of my own cards
        first).  ``v1`` bots take the candidate that leaves the most cards in hand that fit
        on it, ``smart`` bots weigh each candidate with :func:`card_worth` (``view`` gives
        the other players' hand sizes).  Ties by the bot's generator."""
        fitting = [c for c in (hand if seen is None else seen) if fits(c, top)]
        if not fitting:
            return None
        scored: list[tuple[tuple[float, ...], Face]] = []  # (key, card): the greatest key is played
        unseen: dict[Face, int] = {}
        others: tuple[int, ...] = ()
        if self.rule == SMART:
            others = () if view is None or view.seat is None else tuple(
                n for i, n in enumerate(view.hand_sizes) if i != view.seat and not view.out[i]
            )
            unseen = _unseen(hand, top, self._tops.values())
        for card in dict.fromkeys(c for c in hand if c in fitting):  # in the hand's order
            rest = list(hand)
            rest.remove(card)
            key: tuple[float, ...]
            if self.rule == SMART:
                key = (card_worth(card, rest, unseen, others),)
            elif self.rule == V1:
                key = (sum(1 for c in rest if fits(c, card)),)
            else:
                key = chain_key(card, rest)
            scored.append((key, card))
        top_key = max(k for k, _ in scored)
        best = [c for k, c in scored if k == top_key]
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _look(self, view: HighVoltageView) -> tuple[float, tuple[Face, ...]]:
        """One look at ``view``: how long it takes, and the fitting cards spotted."""
        hand = view.hand or ()
        if self._looked is not None and self._looked[0] == view.top_no:
            read = list(self._looked[1])
            new: list[Face] = []
            for c in hand:
                if c in read:
                    read.remove(c)
                else:
                    new.append(c)
            t = self.delay(self.relook, len(new))
        else:
            new = list(hand)
            t = self.delay(self.reaction, len(new))
        self._looked = (view.top_no, hand)
        seen = tuple(c for c in new if fits(c, view.top) and self.rng.random() < self.spot)
        return t, seen

    def _remember(self, view: HighVoltageView) -> None:
        """Note the top card as played, unless a flip put it back on top (it was counted)."""
        if view.flips != self._flips:
            self._flips = view.flips
            return
        self._tops.setdefault(view.top_no, view.top)

    def decide(self, view: HighVoltageView) -> tuple[float, Action | None]:
        if view.phase != "countdown":
            self._remember(view)
        if not view.can_act or view.hand is None or view.seat is None:
            return 0.0, None
        seat = view.seat
        t, seen = self._look(view)
        card = self.choose_card(view.hand, view.top, seen, view) if seen else None
        if card is not None:
            return t, view.aim(card)
        if view.pile_counts[seat]:
            return t, Draw(seat)
        if not view.stuck[seat]:
            return t, Stuck(seat)
        return 0.0, None


#: The suffix of a level that weighs its fitting cards with :func:`card_worth`
#: (``medium-smart``): an arena entrant, to measure that choice against the levels'.
SMART = "-smart"
#: The suffix of a level that keeps the first rule (``medium-v1``: the card the most
#: cards left in hand fit on): an arena entrant, likewise.
V1 = "-v1"
RULES = ("", SMART, V1)  # the levels' rule, and the arena's other entrants'


def make_hv_bot(name: str, seed: int | None = None) -> ReactionBot:
    """The bot of level ``name`` (one of :data:`HV_BOT_NAMES`, or one of them with
    :data:`SMART` or :data:`V1` after it) with its own generator."""
    level, rule = name, ""
    for suffix in (SMART, V1):
        if name.endswith(suffix):
            level, rule = name.removesuffix(suffix), suffix
    try:
        reaction = REACTION_SECONDS[level]
    except KeyError:
        raise ValueError(
            f"unknown High Voltage bot {name!r}: choose from {', '.join(HV_BOT_NAMES)}"
        ) from None
    return ReactionBot(name, reaction, seed, rule=rule)
