"""The rules of High Voltage (Alto Voltaje, "7 Ate 9"; 2-4 players, real time).

The rules as this project plays them are the players' page (``tui/rules.md``, "High
Voltage"); what the printed rules leave open is decided below.

There are no turns and there is **no clock in the engine**.  The host stamps
and orders what the players send, and passes each action in, in that order:

- :func:`new_match` ``(seed, players)`` shuffles and deals.  The match starts
  in the ``countdown`` phase: hands are dealt but unseen.
- The host runs the 3-2-1 countdown ("un, dos, tres!", about
  :data:`COUNTDOWN_SECONDS`) on its own clock, then applies :data:`GO` (the
  action ``Go()``, text ``go``): hands are revealed and play is open.  ``Go``
  is an action like the others, so it is in the match log and a replay needs
  no clock.  Only the host sends it (``seat=None`` in :func:`check`).
- Any seat may then send, at any moment: :class:`Play` (a card from hand on
  the pile's top card), :class:`Draw` (one card from its own pile into its
  hand), :class:`Stuck` (declare "stuck"), :class:`Resign`.  Each action names
  its seat.
- :func:`apply` ``(state, action, seat)`` returns the new state and the public
  events, or raises :class:`IllegalActionError` with a reason fit for the
  player; the state is never changed by a refused action, and a refused
  action does not belong in the match log.
- A play names the face of the card and the top card it was *aimed at*: its
  face and its number (``top_no``, which counts every change of the top card:
  0 is the first card turned up, each accepted play and each flip adds one).
  A play aimed at a top that has since been covered raises
  :class:`TooSlowError` ("too slow: the 7 was covered by a 3 a moment ago");
  the card stays in hand.  So of two plays aimed at the same top, the first
  passed in is accepted and the second is refused, whatever they are.
- When every player still in the match is stuck (declared it, or holds no
  card that fits and has an empty pile), the engine flips at once: the bottom
  card of the discard pile goes on top, declarations are cleared and the
  phase goes back to ``countdown`` (event ``flip``).  The host runs a new
  countdown and applies ``Go`` again.
- **Last card (decided here):** the engine finishes a match by itself.  The
  moment a player's pile is empty and exactly one card is left in their hand
  (after a play, or after drawing the last card of the pile into an empty
  hand), that card is laid face down on the discard pile and the player wins
  (events ``last`` and ``end``).  In real time a "play the last card" action
  would only be a second race nobody can lose, so there is none.
- The match is over when :attr:`State.over`; then ``state.winner`` (the seat
  that went out first) and ``state.places`` (a place per seat: 1 is the
  winner, the others by cards left, hand plus pile, fewer first; equal counts
  share a place) are set.
- :func:`view` ``(state, seat)`` is what one seat (or a spectator, ``None``)
  may know; everything sent to a screen or over a wire is a view.

Rulings decided here, beyond the printed rules:

- A play that does not fit the top card it names is refused (the reason says
  so); nothing is lost and there is no penalty.  Drawing, declaring stuck and
  playing wait for the countdown (refused with "wait for the countdown").
- "Stuck" may be declared by anyone in play, at any time, even with cards in
  their pile or a card that fits (the engine never tells who holds a fitting
  card).  A declaration stays until the next accepted play or flip; drawing
  does not withdraw it.
- Each flip hides every hand again (phase ``countdown``), as the source has
  everyone lay their cards face down while the bottom card is turned up.
- Blocked match: a flip *counts* only when nobody still in can act at all:
  every pile is empty and nobody holds a card that fits (declarations aside).
  Any other flip (someone declared stuck with cards in their pile, or with a
  fitting card in hand) is just a flip and sets the count back to 0, as a
  play does; so does every draw, implicitly (a counted flip needs every pile
  empty, and nothing refills a pile).  If everyone is stuck in that strict
  sense after as many counted flips in a row as there are cards in the
  discard pile, every card has had its turn on top and nobody could play;
  the match ends (reason ``blocked``), ranked by cards left; the winner is the
  one with the fewest, or nobody (``None``) on a tie.  Why strict: the rules
  say a flip resumes play, and a full pile is a way to play on; counting
  declared flips ended matches with 32 cards in each pile.
  With every card held by players still in, blocked cannot happen at all
  (if every value is held, anything on top fits; else some value v is held
  and v-1 is not, so a v-1 (±1) lies in the discard pile and takes a v when
  it comes on top): it needs cards left behind by a resigned player.  Players
  who declare stuck while they could draw simply flip on; the bots draw whenever their pile is not empty.
- A player who resigns is out: their cards stay where they are (still counted
  for the 73), they no longer count for "everyone is stuck", and they rank
  after everybody still in, later resignations above earlier ones.  When one
  player is left, they win (reason ``resignation``).

Randomness comes only from the seed (the deal); everything after is decided by
the actions, so ``replay(seed, players, actions)`` reproduces a match.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from engine.errors import IllegalActionError, InvalidActionError

MIN_PLAYERS = 2
MAX_PLAYERS = 4
HAND_SIZE = 4
VALUES = range(1, 11)
MODIFIERS = (1, 2, 3)
MODIFIER_COLOURS = {1: "turquoise", 2: "yellow", 3: "red"}
COUNTDOWN_SECONDS = 3.0  # a hint for hosts; the engine keeps no time

# ---------------------------------------------------------------------------
# The deck, as data (the rules' "Cards (73)"): (value, modifier, copies).
# Every pair twice, one extra ±1 of each value, one extra ±2 of 3, 6 and 9.
DECK: tuple[tuple[int, int, int], ...] = tuple(
    (value, mod, 2 + (mod == 1) + (mod == 2 and value in (3, 6, 9)))
    for value in VALUES
    for mod in MODIFIERS
)


def wrap(n: int) -> int:
    """``n`` brought into 1..10: 11 is 1, 13 is 3; 0 is 10, -2 is 8."""
    return (n - 1) % 10 + 1


class Face(NamedTuple):
    """What the front of a card shows: a value 1..10 and a modifier ±1..±3."""

    value: int
    mod: int

    @property
    def code(self) -> str:
        """Short ASCII text, used in action texts: ``7/3``."""
        return f"{self.value}/{self.mod}"

    @property
    def label(self) -> str:
        """Words for the face: ``7 (±3)``."""
        return f"{self.value} (±{self.mod})"

    @property
    def targets(self) -> tuple[int, int]:
        """The two values that fit on this card (value plus and minus the modifier)."""
        return wrap(self.value + self.mod), wrap(self.value - self.mod)

    def fits_on(self, top: Face) -> bool:
        return self.value in top.targets

    @classmethod
    def parse(cls, code: str) -> Face:
        """Read ``7/3``, ``7±3``, ``7+-3`` or ``7:3``."""
        text = code.strip()
        for sep in ("±", "+-", "/", ":"):
            if sep in text:
                v, _, m = text.partition(sep)
                break
        else:
            raise ValueError(f"unknown card {code!r}: expected VALUE/MOD, e.g. 7/3")
        try:
            value, mod = int(v), int(m)
        except ValueError:
            raise ValueError(f"unknown card {code!r}: expected VALUE/MOD, e.g. 7/3") from None
        if value not in VALUES or mod not in MODIFIERS:
            raise ValueError(f"unknown card {code!r}: values are 1..10, modifiers 1..3")
        return cls(value, mod)

    def __str__(self) -> str:
        return self.label


def fits(card: Face, top: Face) -> bool:
    """Whether ``card`` may be played on ``top``: its value is top ± modifier, wrapped in 1..10."""
    return card.value in top.targets


def _build() -> tuple[Face, ...]:
    faces: list[Face] = []
    for value, mod, copies in DECK:
        faces.extend([Face(value, mod)] * copies)
    return tuple(faces)


# Card ids 0..72 index these (ids never leave the engine; views show faces).
CARD_FACE: tuple[Face, ...] = _build()
DECK_SIZE = len(CARD_FACE)
CARD_VALUE: tuple[int, ...] = tuple(f.value for f in CARD_FACE)
# Bit v set when a card of value v fits on this card.
CARD_TARGETS: tuple[int, ...] = tuple((1 << f.targets[0]) | (1 << f.targets[1]) for f in CARD_FACE)

# Phases
COUNTDOWN = 0  # hands unseen; the host runs the countdown and then applies Go
PLAY = 1  # anyone may act
OVER = 2
PHASE_NAMES = ("countdown", "play", "over")

# ---------------------------------------------------------------------------
# Actions: every one but Go names its seat (there are no turns).


@dataclass(frozen=True, slots=True)
class Play:
    """Seat ``seat`` plays a ``card`` (face) from hand on the top card ``aimed_at``.

    ``top_no`` is the number of that top card as the player saw it
    (:attr:`HighVoltageView.top_no`); :meth:`HighVoltageView.aim` fills both in.
    """

    seat: int
    card: Face
    aimed_at: Face
    top_no: int

    def text(self) -> str:
        return f"play {self.seat} {self.card.code} on {self.aimed_at.code} #{self.top_no}"


@dataclass(frozen=True, slots=True)
class Draw:
    """Seat ``seat`` takes the top card of its own pile into its hand."""

    seat: int

    def text(self) -> str:
        return f"draw {self.seat}"


@dataclass(frozen=True, slots=True)
class Stuck:
    """Seat ``seat`` declares it cannot play."""

    seat: int

    def text(self) -> str:
        return f"stuck {self.seat}"


@dataclass(frozen=True, slots=True)
class Go:
    """The host's countdown has run: reveal the hands and open play."""

    def text(self) -> str:
        return "go"


@dataclass(frozen=True, slots=True)
class Resign:
    """Seat ``seat`` leaves the match."""

    seat: int

    def text(self) -> str:
        return f"resign {self.seat}"


Action = Play | Draw | Stuck | Go | Resign
GO = Go()


def parse_action(text: str) -> Action:
    """Read an action from its text (the inverse of ``action.text()``)."""
    words = text.split()
    if not words:
        raise InvalidActionError("bad_action", text=text)
    verb, args = words[0].lower(), words[1:]
    try:
        if verb == "go" and not args:
            return GO
        if verb == "play" and len(args) == 5 and args[2].lower() == "on":
            seat, top_no = int(args[0]), int(args[4].removeprefix("#"))
            if not 0 <= seat < MAX_PLAYERS:
                raise ValueError(f"no seat {seat}")
            if top_no < 0:
                raise ValueError("the top card's number is 0 or more")
            return Play(seat, Face.parse(args[1]), Face.parse(args[3]), top_no)
        if verb in ("draw", "stuck", "resign") and len(args) == 1:
            seat = int(args[0])
            if not 0 <= seat < MAX_PLAYERS:
                raise ValueError(f"no seat {seat}")
            kinds: dict[str, type[Draw | Stuck | Resign]] = {"draw": Draw, "stuck": Stuck, "resign": Resign}
            return kinds[verb](seat)
    except ValueError as e:
        raise InvalidActionError("bad_action", text=text, why=str(e)) from None
    # expected: 'play SEAT CARD on TOP #N', 'draw SEAT', 'stuck SEAT', 'resign SEAT' or 'go'
    raise InvalidActionError("bad_action", text=text)


# ---------------------------------------------------------------------------
# Events: what happened, public to every seat.


@dataclass(frozen=True, slots=True)
class Event:
    """One public happening: a stable ``kind`` (one of the names below) and its parameters;
    the tui words it (``tui/games/highvoltage/words.py``).

    - ``deal``: count (players)
    - ``go``: the countdown has run; hands are revealed, play is open
    - ``play``: seat, card (the value is announced aloud)
    - ``slow``: seat, card, aimed (the covered top), covered (what covered it);
      not caused by :func:`apply`, but carried by :class:`TooSlowError` for the feed
    - ``draw``: seat (the face stays hidden)
    - ``stuck``: seat
    - ``flip``: card (the bottom card, now on top); a countdown follows
    - ``last``: seat (laid the last card face down and wins)
    - ``resign``: seat
    - ``end``: winner (seat or None), reason, places (by seat), cards_left (by seat)
    """

    kind: str
    seat: int | None = None
    card: Face | None = None
    aimed: Face | None = None
    covered: Face | None = None
    count: int = 0
    winner: int | None = None
    reason: str = ""
    places: tuple[int, ...] = ()
    cards_left: tuple[int, ...] = ()


class TooSlowError(IllegalActionError):
    """A play aimed at a top card that has since been covered (code ``too_slow``).  The
    card stays in hand.  ``event`` is the ``slow`` event for the sender's feed."""

    def __init__(self, seat: int, card: Face, aimed: Face, covered: Face) -> None:
        super().__init__("too_slow", seat=seat, card=card, aimed=aimed, covered=covered)

    @property
    def seat(self) -> int:
        return int(self.params["seat"])

    @property
    def card(self) -> Face:
        return Face(*self.params["card"])

    @property
    def aimed(self) -> Face:
        return Face(*self.params["aimed"])

    @property
    def covered(self) -> Face:
        return Face(*self.params["covered"])

    @property
    def event(self) -> Event:
        return Event("slow", seat=self.seat, card=self.card, aimed=self.aimed, covered=self.covered)


# ---------------------------------------------------------------------------
# State


class State:
    """One point of a High Voltage match.  Mutable lists inside; :func:`apply` copies.

    Card ids everywhere (see :data:`CARD_FACE`).  ``piles[seat][-1]`` is the
    top of a personal pile; ``discard[0]`` the bottom and ``discard[-1]`` the
    top of the discard pile.  ``tops`` lists every card that has been the
    face-up top, in order: ``tops[-1]`` is the top now, and its index is the
    top's number (``top_no``).  The last card of a match is laid face down:
    it goes on ``discard`` but never into ``tops``.
    """

    __slots__ = (
        "seed",
        "players",
        "hands",
        "piles",
        "discard",
        "tops",
        "phase",
        "declared",
        "out",
        "resigned",
        "plays",
        "flips",
        "flips_in_row",
        "winner",
        "reason",
        "places",
    )

    seed: int
    players: int
    hands: list[list[int]]
    piles: list[list[int]]
    discard: list[int]
    tops: list[int]
    phase: int
    declared: list[bool]
    out: list[bool]
    resigned: list[int]
    plays: int
    flips: int
    flips_in_row: int
    winner: int | None
    reason: str
    places: tuple[int, ...] | None

    def copy(self) -> State:
        s = State.__new__(State)
        s.seed = self.seed
        s.players = self.players
        s.hands = [h[:] for h in self.hands]
        s.piles = [p[:] for p in self.piles]
        s.discard = self.discard[:]
        s.tops = self.tops[:]
        s.phase = self.phase
        s.declared = self.declared[:]
        s.out = self.out[:]
        s.resigned = self.resigned[:]
        s.plays = self.plays
        s.flips = self.flips
        s.flips_in_row = self.flips_in_row
        s.winner = self.winner
        s.reason = self.reason
        s.places = self.places
        return s

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def top(self) -> int:
        """The id of the face-up top card."""
        return self.tops[-1]

    @property
    def top_no(self) -> int:
        return len(self.tops) - 1

    def cards_left(self, seat: int) -> int:
        return len(self.hands[seat]) + len(self.piles[seat])

    def active(self) -> list[int]:
        """The seats still in the match."""
        return [s for s in range(self.players) if not self.out[s]]

    def key(self) -> tuple[object, ...]:
        """Everything about the state as one comparable value (for tests and replays)."""
        return (
            self.seed,
            self.players,
            tuple(map(tuple, self.hands)),
            tuple(map(tuple, self.piles)),
            tuple(self.discard),
            tuple(self.tops),
            self.phase,
            tuple(self.declared),
            tuple(self.out),
            tuple(self.resigned),
            self.plays,
            self.flips,
            self.flips_in_row,
            self.winner,
            self.reason,
            self.places,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable, so unhashable although it has __eq__

    def __repr__(self) -> str:
        return (
            f"<HighVoltage seed={self.seed} players={self.players} phase={PHASE_NAMES[self.phase]} "
            f"top={CARD_FACE[self.top].code}#{self.top_no} plays={self.plays}>"
        )


def new_match(seed: int, players: int = 2) -> State:
    """Shuffle with ``seed``, turn up the first card, deal the rest into ``players`` piles,
    and put the top four of each pile into its owner's hand.  Phase: ``countdown``."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"High Voltage is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    rng = random.Random(seed)
    deck = list(range(DECK_SIZE))
    rng.shuffle(deck)
    first = deck.pop()
    share = len(deck) // players
    s = State.__new__(State)
    s.seed = seed
    s.players = players
    s.piles = [deck[i * share : (i + 1) * share] for i in range(players)]
    s.hands = []
    for pile in s.piles:
        s.hands.append(pile[-HAND_SIZE:][::-1])  # taken one by one from the top
        del pile[-HAND_SIZE:]
    s.discard = [first]
    s.tops = [first]
    s.phase = COUNTDOWN
    s.declared = [False] * players
    s.out = [False] * players
    s.resigned = []
    s.plays = 0
    s.flips = 0
    s.flips_in_row = 0
    s.winner = None
    s.reason = ""
    s.places = None
    return s


def start_events(state: State) -> list[Event]:
    """The events that describe the deal (for a match log's first line)."""
    return [Event("deal", count=state.players)]


def all_cards(state: State) -> list[int]:
    """Every card id of the match, wherever it is (sorted); always ``range(73)``."""
    out = list(state.discard)
    for h in state.hands:
        out.extend(h)
    for p in state.piles:
        out.extend(p)
    out.sort()
    return out


# ---------------------------------------------------------------------------
# Rules


def _fits(card: int, top: int) -> bool:
    return bool(CARD_TARGETS[top] >> CARD_VALUE[card] & 1)


def has_fitting_card(state: State, seat: int) -> bool:
    """Whether ``seat`` holds a card that fits the top (host-side knowledge; never in a view)."""
    targets = CARD_TARGETS[state.tops[-1]]
    return any(targets >> CARD_VALUE[c] & 1 for c in state.hands[seat])


def is_stuck(state: State, seat: int) -> bool:
    """Declared stuck, or holds no card that fits and has an empty pile."""
    return state.declared[seat] or (not state.piles[seat] and not has_fitting_card(state, seat))


def _find(hand: list[int], face: Face) -> int:
    for i in range(len(hand) - 1, -1, -1):
        if CARD_FACE[hand[i]] == face:
            return i
    return -1


def legal_actions(state: State, seat: int | None) -> list[Action]:
    """What ``seat`` may do now, resignation aside (see :class:`Resign`): a play of each
    fitting face in hand aimed at the current top, a draw, a stuck declaration.

    ``seat`` None is the host: ``[GO]`` during a countdown.  This is for bots,
    tests and a practice mode; the game itself never points out fitting cards.
    """
    if state.phase == OVER:
        return []
    if seat is None:
        return [GO] if state.phase == COUNTDOWN else []
    if state.phase != PLAY or state.out[seat]:
        return []
    top = state.tops[-1]
    aimed = CARD_FACE[top]
    top_no = len(state.tops) - 1
    faces = sorted({CARD_FACE[c] for c in state.hands[seat] if _fits(c, top)})
    out: list[Action] = [Play(seat, f, aimed, top_no) for f in faces]
    if state.piles[seat]:
        out.append(Draw(seat))
    if not state.declared[seat]:
        out.append(Stuck(seat))
    return out


def check(state: State, action: Action, seat: int | None = None) -> None:
    """Raise :class:`IllegalActionError` saying why, unless ``action`` is legal now.

    ``seat`` is who sends it: a seat may only act for itself, and only the
    host (``None``, the default, which also stands for a trusted replay) sends
    ``Go``.  A play aimed at a covered top raises :class:`TooSlowError`.
    """
    if state.phase == OVER:
        raise IllegalActionError("match_over")
    if isinstance(action, Go):
        if seat is not None:
            raise IllegalActionError("host_countdown_only")
        if state.phase != COUNTDOWN:
            raise IllegalActionError("play_open")
        return
    if not isinstance(action, (Play, Draw, Stuck, Resign)):
        raise IllegalActionError("not_an_action", action=action)
    who = action.seat
    if not 0 <= who < state.players:
        raise IllegalActionError("no_such_seat", seat=who)
    if seat is not None and seat != who:
        raise IllegalActionError("own_seat_only")
    if state.out[who]:
        raise IllegalActionError("left_match")
    if isinstance(action, Resign):
        return
    if state.phase == COUNTDOWN:
        raise IllegalActionError("wait_countdown")
    if isinstance(action, Draw):
        if not state.piles[who]:
            raise IllegalActionError("pile_empty")
        return
    if isinstance(action, Stuck):
        if state.declared[who]:
            raise IllegalActionError("already_stuck")
        return
    # Play
    card, aimed, n = action.card, action.aimed_at, action.top_no
    if _find(state.hands[who], card) < 0:
        raise IllegalActionError("no_such_card", card=card)
    if not 0 <= n < len(state.tops) or CARD_FACE[state.tops[n]] != aimed:
        raise IllegalActionError("not_on_pile", card=aimed)
    if not card.fits_on(aimed):
        raise IllegalActionError("does_not_fit", card=card, top=aimed)
    if n != len(state.tops) - 1:
        raise TooSlowError(who, card, aimed, CARD_FACE[state.tops[n + 1]])


def _places(state: State, winner: int | None) -> tuple[int, ...]:
    places = [0] * state.players
    rest = [s for s in state.active() if s != winner]
    first = 1
    if winner is not None:
        places[winner] = 1
        first = 2
    rest.sort(key=state.cards_left)
    for i, s in enumerate(rest):
        if i and state.cards_left(s) == state.cards_left(rest[i - 1]):
            places[s] = places[rest[i - 1]]
        else:
            places[s] = first + i
    nxt = first + len(rest)
    for s in reversed(state.resigned):
        if s != winner:
            places[s] = nxt
            nxt += 1
    return tuple(places)


def _end(state: State, winner: int | None, reason: str, ev: list[Event] | None) -> None:
    state.phase = OVER
    state.reason = reason
    if reason == "blocked":
        places = _places(state, None)
        leaders = [s for s in range(state.players) if places[s] == 1]
        winner = leaders[0] if len(leaders) == 1 else None
    else:
        places = _places(state, winner)
    state.winner = winner
    state.places = places
    state.declared = [False] * state.players
    if ev is not None:
        ev.append(
            Event(
                "end",
                winner=winner,
                reason=reason,
                places=places,
                cards_left=tuple(state.cards_left(s) for s in range(state.players)),
            )
        )


def _after(state: State, seat: int | None, ev: list[Event] | None) -> None:
    """What follows any accepted action in play: the last-card win, then the flip."""
    if seat is not None and not state.piles[seat] and len(state.hands[seat]) == 1:
        state.discard.append(state.hands[seat].pop())  # face down: not a new top
        if ev is not None:
            ev.append(Event("last", seat=seat))
        _end(state, seat, "last card", ev)
        return
    if state.phase != PLAY:
        return
    active = state.active()
    if all(is_stuck(state, s) for s in active):
        # Blocked only counts flips made when nobody still in could draw or play: a
        # declaration by a player with a pile or a fitting card is just a flip.
        blocked = all(not state.piles[s] and not has_fitting_card(state, s) for s in active)
        if blocked and state.flips_in_row >= len(state.discard):
            _end(state, None, "blocked", ev)
            return
        card = state.discard.pop(0)
        state.discard.append(card)
        state.tops.append(card)
        state.declared = [False] * state.players
        state.flips += 1
        state.flips_in_row = state.flips_in_row + 1 if blocked else 0
        state.phase = COUNTDOWN
        if ev is not None:
            ev.append(Event("flip", card=CARD_FACE[card]))


def step(state: State, action: Action, ev: list[Event] | None = None) -> None:
    """Apply a *legal* ``action`` to ``state`` in place (no checks; for bots and replays
    of checked logs).  Appends the public events to ``ev`` when given."""
    if isinstance(action, Play):
        seat = action.seat
        hand = state.hands[seat]
        card = hand.pop(_find(hand, action.card))
        state.discard.append(card)
        state.tops.append(card)
        state.declared = [False] * state.players
        state.plays += 1
        state.flips_in_row = 0
        if ev is not None:
            ev.append(Event("play", seat=seat, card=action.card))
        _after(state, seat, ev)
    elif isinstance(action, Draw):
        seat = action.seat
        state.hands[seat].append(state.piles[seat].pop())
        if ev is not None:
            ev.append(Event("draw", seat=seat))
        _after(state, seat, ev)
    elif isinstance(action, Stuck):
        state.declared[action.seat] = True
        if ev is not None:
            ev.append(Event("stuck", seat=action.seat))
        _after(state, None, ev)
    elif isinstance(action, Go):
        state.phase = PLAY
        if ev is not None:
            ev.append(Event("go"))
        _after(state, None, ev)
    elif isinstance(action, Resign):
        seat = action.seat
        state.out[seat] = True
        state.declared[seat] = False
        state.resigned.append(seat)
        if ev is not None:
            ev.append(Event("resign", seat=seat))
        active = state.active()
        if len(active) == 1:
            _end(state, active[0], "resignation", ev)
        else:
            _after(state, None, ev)
    else:  # pragma: no cover - guarded by check()
        raise InvalidActionError("not_an_action", action=action)


def apply(state: State, action: Action, seat: int | None = None) -> tuple[State, list[Event]]:
    """Return the state after ``action`` and the public events it caused.

    Raises :class:`IllegalActionError` (or :class:`TooSlowError`) with the
    reason if ``action`` is not legal from ``seat`` (None: the host); ``state``
    is never changed.
    """
    check(state, action, seat)
    s = state.copy()
    ev: list[Event] = []
    step(s, action, ev)
    return s, ev


def replay(seed: int, players: int, actions: Iterable[Action]) -> State:
    """The state reached from ``seed`` with ``players`` seats by ``actions``, each checked."""
    s = new_match(seed, players)
    for a in actions:
        check(s, a)
        step(s, a)
    return s


# ---------------------------------------------------------------------------
# Views


@dataclass(frozen=True)
class HighVoltageView:
    """What ``seat`` may know (``seat`` None: a spectator), as the rules' hidden information allows.

    ``hand`` is the seat's own hand, in the order the cards were taken, or
    None for a spectator and while a countdown runs (hands are face down).
    ``stuck`` shows declarations only.  ``top`` is the face-up top card and
    ``top_no`` its number, to aim plays with (:meth:`aim`).
    """

    seat: int | None
    players: int
    phase: str
    hand: tuple[Face, ...] | None
    hand_sizes: tuple[int, ...]
    pile_counts: tuple[int, ...]
    top: Face
    top_no: int
    discard_count: int
    stuck: tuple[bool, ...]
    out: tuple[bool, ...]
    plays: int
    flips: int
    winner: int | None
    places: tuple[int, ...] | None
    reason: str

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @property
    def counting_down(self) -> bool:
        return self.phase == "countdown"

    @property
    def can_act(self) -> bool:
        """A seat that is still in, while play is open."""
        return self.seat is not None and self.phase == "play" and not self.out[self.seat]

    def cards_left(self, seat: int) -> int:
        return self.hand_sizes[seat] + self.pile_counts[seat]

    def aim(self, card: Face) -> Play:
        """This seat's play of ``card`` on the top card as this view shows it."""
        if self.seat is None:
            raise ValueError("a spectator cannot play")
        return Play(self.seat, card, self.top, self.top_no)


def view(state: State, seat: int | None) -> HighVoltageView:
    """The public information plus ``seat``'s own hand once revealed (none for a spectator)."""
    hand = None
    if seat is not None and state.phase != COUNTDOWN:
        hand = tuple(CARD_FACE[c] for c in state.hands[seat])
    return HighVoltageView(
        seat=seat,
        players=state.players,
        phase=PHASE_NAMES[state.phase],
        hand=hand,
        hand_sizes=tuple(len(h) for h in state.hands),
        pile_counts=tuple(len(p) for p in state.piles),
        top=CARD_FACE[state.tops[-1]],
        top_no=len(state.tops) - 1,
        discard_count=len(state.discard),
        stuck=tuple(state.declared),
        out=tuple(state.out),
        plays=state.plays,
        flips=state.flips,
        winner=state.winner,
        places=state.places,
        reason=state.reason,
    )
