"""The rules of Voltage (2 players, turn-based), as a pure, deterministic engine.

The rules as this project plays them are the players' page (``tui/rules.md``, "Voltage").

- :func:`new_match` deals a match from a seed.
- :func:`legal_actions` lists every action the player to move may take,
  including the decisions inside a turn (the second card or the draw after a
  first card; each transformer flip).
- :func:`apply` returns a new state and the public events the action caused;
  an illegal action raises :class:`IllegalActionError` and changes nothing.
- :func:`view` is what one seat (or a spectator) may know; the other hand
  appears only as its count of cards and of transformer backs, in a canonical
  order (see :class:`VoltageView`).

The state is plain lists of small ints (card ids, see :mod:`engine.voltage.cards`).
Randomness comes only from the match seed: the deal, the first player and
every reshuffle of the discard pile are derived from it, so a match is
reproduced exactly by its seed and its action list.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.errors import IllegalActionError, InvalidActionError
from engine.voltage.cards import (
    BYPASS,
    CARD_FACE,
    CARD_SPECIAL,
    CARD_TRANSFORMER,
    CARD_VALUE,
    COLOURS,
    DECK_SIZE,
    Card,
    parse_terminal,
)

HAND_SIZE = 4
HAND_LIMIT = 6
SET_SIZE = 5
SETS_TO_WIN = 4
INITIAL_PLUS = (True, False, False, True)  # orange +, green -, blue -, purple +

# Phases: what the player to move must decide.
START = 0  # play a first card, or draw two
SECOND = 1  # after a first card: play a second card to another terminal, or draw one
FLIP = 2  # a transformer was drawn: flip a terminal block
OVER = 3  # the match has ended
PHASE_NAMES = ("start", "second", "flip", "over")

# ---------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True)
class Play:
    """Play ``card`` from hand to ``terminal``, on the side of seat ``side``.

    ``target`` is the card a bypass or blown fuse takes from the opponent's
    side of that terminal (``None`` when there is none to take).
    """

    card: Card
    terminal: int
    side: int
    target: Card | None = None

    def text(self) -> str:
        parts = ["play", self.card.code, COLOURS[self.terminal], str(self.side)]
        if self.target is not None:
            parts.append(self.target.code)
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw two at the start of a turn; after a first card, draw one and end the turn."""

    def text(self) -> str:
        return "draw"


@dataclass(frozen=True, slots=True)
class Flip:
    """Flip the block of ``terminal`` (owed after drawing a transformer)."""

    terminal: int

    def text(self) -> str:
        return f"flip {COLOURS[self.terminal]}"


@dataclass(frozen=True, slots=True)
class Pass:
    """Offered only when the player to move has no other action."""

    def text(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class Resign:
    """Seat ``seat`` resigns; allowed at any moment of a running match."""

    seat: int

    def text(self) -> str:
        return f"resign {self.seat}"


@dataclass(frozen=True, slots=True)
class Timeout:
    """Seat ``seat``'s time ran out (logged by the host's clock, never sent by a seat):
    the other seat wins on time (see :mod:`engine.clock`)."""

    seat: int

    def text(self) -> str:
        return f"timeout {self.seat}"


@dataclass(frozen=True, slots=True)
class Abort:
    """Seat ``seat`` calls the match off before both players have moved: no winner,
    no rating change.  Allowed while nobody has acted yet (either seat), or while the
    second player has not made a first move (the first player only; the host adds its
    30 s wait, see :mod:`server.host.voltage`)."""

    seat: int

    def text(self) -> str:
        return f"abort {self.seat}"


@dataclass(frozen=True, slots=True)
class AgreeDraw:
    """Seat ``seat`` accepts the other's offer of a draw (the offer itself is the host's,
    never logged): the match ends drawn by agreement.  Spelled ``agree SEAT`` in a log,
    since ``draw`` is the card action."""

    seat: int

    def text(self) -> str:
        return f"agree {self.seat}"


Action = Play | Draw | Flip | Pass | Resign | Timeout | Abort | AgreeDraw
#: The actions any seat (or the host) may log out of turn: they end the match.
ENDINGS = (Resign, Timeout, Abort, AgreeDraw)
DRAW = Draw()
PASS = Pass()
FLIPS = tuple(Flip(t) for t in range(4))


def parse_action(text: str) -> Action:
    """Read an action from its text (the inverse of ``action.text()``)."""
    words = text.split()
    if not words:
        raise InvalidActionError("bad_action", text=text)
    verb, args = words[0].lower(), words[1:]
    try:
        if verb == "play" and len(args) in (3, 4):
            card = Card.parse(args[0])
            target = Card.parse(args[3]) if len(args) == 4 else None
            side = int(args[2])
            if side not in (0, 1):
                raise ValueError("side must be 0 or 1")
            return Play(card, parse_terminal(args[1]), side, target)
        if verb == "draw" and not args:
            return DRAW
        if verb == "flip" and len(args) == 1:
            return FLIPS[parse_terminal(args[0])]
        if verb == "pass" and not args:
            return PASS
        if verb == "resign" and len(args) == 1 and args[0] in ("0", "1"):
            return Resign(int(args[0]))
        if verb in _SEAT_VERBS and len(args) == 1 and args[0] in ("0", "1"):
            return _SEAT_VERBS[verb](int(args[0]))
    except ValueError as e:
        raise InvalidActionError("bad_action", text=text, why=str(e)) from None
    # expected: 'play CARD TERMINAL SIDE [TARGET]', 'draw', 'flip TERMINAL', 'pass',
    # 'resign SEAT', 'timeout SEAT', 'abort SEAT' or 'agree SEAT'
    raise InvalidActionError("bad_action", text=text)


_SEAT_VERBS: dict[str, type[Timeout | Abort | AgreeDraw]] = {"timeout": Timeout, "abort": Abort, "agree": AgreeDraw}


# ---------------------------------------------------------------------------
# Events: what happened, public to every seat.


@dataclass(frozen=True, slots=True)
class Event:
    """One public happening: a stable ``kind`` (one of the names below) and its parameters;
    the tui words it (``tui/games/voltage/words.py``).

    - ``start``: seat (the first player)
    - ``play``: seat, card, terminal, side, target (taken card or None)
    - ``score``: seat (who played the fifth card), terminal, totals, plus, winner
    - ``reshuffle``: count (cards in the new draw pile)
    - ``draw``: seat, transformer (the drawn card's back; its face stays hidden)
    - ``flip``: seat, terminal, plus (the block's new side)
    - ``pass``: seat
    - ``resign``: seat
    - ``timeout``: seat (whose time ran out)
    - ``abort``: seat (who called the match off)
    - ``agree``: seat (who accepted the draw)
    - ``end``: winner (seat or None for a draw), reason, scores
    """

    kind: str
    seat: int | None = None
    card: Card | None = None
    terminal: int = -1
    side: int = -1
    target: Card | None = None
    totals: tuple[int, int] = (0, 0)
    plus: bool = True
    winner: int | None = None
    transformer: bool = False
    count: int = 0
    reason: str = ""
    scores: tuple[int, int] = (0, 0)


# ---------------------------------------------------------------------------
# State


class State:
    """One point of a Voltage match.  Mutable lists inside; :func:`apply` copies.

    ``board[2 * terminal + seat]`` lists the card ids on ``seat``'s side of
    ``terminal``; ``draw[-1]`` and ``discard[-1]`` are the piles' top cards.
    """

    __slots__ = (
        "seed",
        "hands",
        "draw",
        "discard",
        "board",
        "plus",
        "scores",
        "to_move",
        "phase",
        "first_terminal",
        "flips",
        "draws",
        "passes",
        "winner",
        "reason",
        "shuffles",
        "first_player",
        "turns",
    )

    seed: int
    hands: list[list[int]]
    draw: list[int]
    discard: list[int]
    board: list[list[int]]
    plus: list[bool]
    scores: list[int]
    to_move: int
    phase: int
    first_terminal: int
    flips: int
    draws: int
    passes: int
    winner: int | None
    reason: str
    shuffles: int
    first_player: int
    turns: int

    def copy(self) -> State:
        s = State.__new__(State)
        s.seed = self.seed
        s.hands = [self.hands[0][:], self.hands[1][:]]
        s.draw = self.draw[:]
        s.discard = self.discard[:]
        s.board = [side[:] for side in self.board]
        s.plus = self.plus[:]
        s.scores = self.scores[:]
        s.to_move = self.to_move
        s.phase = self.phase
        s.first_terminal = self.first_terminal
        s.flips = self.flips
        s.draws = self.draws
        s.passes = self.passes
        s.winner = self.winner
        s.reason = self.reason
        s.shuffles = self.shuffles
        s.first_player = self.first_player
        s.turns = self.turns
        return s

    @property
    def over(self) -> bool:
        return self.phase == OVER

    def key(self) -> tuple[object, ...]:
        """Everything about the state as one comparable value (for tests and replays)."""
        return (
            self.seed,
            tuple(map(tuple, self.hands)),
            tuple(self.draw),
            tuple(self.discard),
            tuple(map(tuple, self.board)),
            tuple(self.plus),
            tuple(self.scores),
            self.to_move,
            self.phase,
            self.first_terminal,
            self.flips,
            self.draws,
            self.passes,
            self.winner,
            self.reason,
            self.shuffles,
            self.first_player,
            self.turns,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable, so unhashable although it has __eq__

    def __repr__(self) -> str:
        return (
            f"<Voltage seed={self.seed} turn={self.turns} to_move={self.to_move} "
            f"phase={PHASE_NAMES[self.phase]} scores={self.scores}>"
        )


def new_match(seed: int) -> State:
    """Shuffle, deal four cards each, and draw the first player, all from ``seed``."""
    rng = random.Random(seed)
    deck = list(range(DECK_SIZE))
    rng.shuffle(deck)
    s = State.__new__(State)
    s.seed = seed
    s.hands = [[], []]
    for _ in range(HAND_SIZE):
        s.hands[0].append(deck.pop())
        s.hands[1].append(deck.pop())
    s.draw = deck
    s.discard = []
    s.board = [[] for _ in range(8)]
    s.plus = list(INITIAL_PLUS)
    s.scores = [0, 0]
    s.first_player = s.to_move = rng.randrange(2)
    s.phase = START
    s.first_terminal = -1
    s.flips = 0
    s.draws = 0
    s.passes = 0
    s.winner = None
    s.reason = ""
    s.shuffles = 0
    s.turns = 1
    return s


def start_events(state: State) -> list[Event]:
    """The events that describe the deal (for a match log's first line)."""
    return [Event("start", seat=state.first_player)]


# ---------------------------------------------------------------------------
# Legal actions


# Every Play that can exist, built once: legal_actions hands out these shared
# objects instead of building new ones (the bots call it millions of times).
# A card's key is face * 2 + transformer (0..27; 24.. are the specials).
CARD_KEY: tuple[int, ...] = tuple(CARD_FACE[c] * 2 + CARD_TRANSFORMER[c] for c in range(DECK_SIZE))
_KEY_CARD: tuple[Card, ...] = tuple(Card(k // 2, bool(k % 2)) for k in range(28))
_NO_TARGET = 24
# _NUMBER_PLAYS[key][seat] = (Play to own side, Play to the opponent's side)
_NUMBER_PLAYS = tuple(
    tuple(
        (
            Play(_KEY_CARD[k], _KEY_CARD[k].colour, seat),
            Play(_KEY_CARD[k], _KEY_CARD[k].colour, 1 - seat),
        )
        for seat in (0, 1)
    )
    for k in range(24)
)
# _SPECIAL_PLAYS[key - 24][terminal][side][target key (24: none)]
_SPECIAL_PLAYS = tuple(
    tuple(
        tuple(
            tuple(Play(_KEY_CARD[k], t, side, _KEY_CARD[tk] if tk < 24 else None) for tk in range(25))
            for side in (0, 1)
        )
        for t in range(4)
    )
    for k in range(24, 28)
)


def interned_actions() -> list[Action]:
    """Every action object ``legal_actions`` hands out: they are built once, here, and
    live as long as this module, so a caller may key them by identity."""
    out: list[Action] = [DRAW, PASS, *FLIPS]
    for by_seat in _NUMBER_PLAYS:
        for pair in by_seat:
            out += pair
    for by_terminal in _SPECIAL_PLAYS:
        for by_side in by_terminal:
            for row in by_side:
                out += row
    return out


# The same tables, indexed the way _plays reads them.
_SEAT_NUMBER_PLAYS = tuple(tuple(_NUMBER_PLAYS[k][seat] for k in range(24)) for seat in (0, 1))
_OPP_SPECIAL_PLAYS = tuple(
    tuple(tuple(_SPECIAL_PLAYS[k][t][opp] for t in range(4)) for k in range(4)) for opp in (0, 1)
)


def _plays(state: State, seat: int, exclude_terminal: int) -> list[Action]:
    """The plays of ``seat``'s hand, by card key (number cards first), terminal and target."""
    out: list[Action] = []
    number_plays = _SEAT_NUMBER_PLAYS[seat]
    specials = None
    for k in sorted({CARD_KEY[c] for c in state.hands[seat]}):
        if k < 24:
            if k // 6 != exclude_terminal:
                out += number_plays[k]
        elif specials is None:
            specials = [k]
        else:
            specials.append(k)
    if specials is None:
        return out
    # A special goes to the opponent's side of any terminal, taking one of the number
    # cards there (each distinct one is a choice), or nothing when there is none.
    opp = 1 - seat
    board = state.board
    rows: list[tuple[int, list[int] | None]] = []
    for t in range(4):
        if t != exclude_terminal:
            pile = board[2 * t + opp]
            if pile:
                numbers = sorted({k for k in map(CARD_KEY.__getitem__, pile) if k < 24})
                rows.append((t, numbers or None))
            else:
                rows.append((t, None))
    append = out.append
    for k in specials:
        by_terminal = _OPP_SPECIAL_PLAYS[opp][k - 24]
        for t, targets in rows:
            row = by_terminal[t]
            if targets is None:
                append(row[_NO_TARGET])
            else:
                for tk in targets:
                    append(row[tk])
    return out


def can_draw_two(state: State) -> bool:
    return len(state.hands[state.to_move]) <= HAND_LIMIT - 2 and bool(state.draw or state.discard)


def legal_actions(state: State) -> list[Action]:
    """Every action the player to move may take now (resignation aside: see :class:`Resign`).

    Empty only when the match is over.  When the player has no move at all,
    the one action offered is :data:`PASS`.
    """
    phase = state.phase
    if phase == OVER:
        return []
    if phase == FLIP:
        return list(FLIPS)
    seat = state.to_move
    if phase == SECOND:
        out = _plays(state, seat, state.first_terminal)
        out.append(DRAW)  # draw one; with both piles empty the turn just ends
        return out
    out = _plays(state, seat, -1)
    if len(state.hands[seat]) <= HAND_LIMIT - 2 and (state.draw or state.discard):  # can_draw_two
        out.append(DRAW)
    if not out:
        out.append(PASS)
    return out


# ---------------------------------------------------------------------------
# Applying actions


# The reasons an ending action logs (engine.game.Termination's values).
TIME = "time"
ABORTED = "aborted"
AGREEMENT = "agreement"


def moved(state: State, seat: int) -> bool:
    """Has ``seat`` taken an action yet (a first card, a draw, a flip or a pass)?"""
    if seat == state.first_player:
        return state.turns > 1 or state.phase != START
    return state.turns > 2 or (state.turns == 2 and state.phase != START)


def may_abort(state: State, seat: int) -> bool:
    """May ``seat`` abort now, by the rules (the host adds its wait)?  While nobody has
    moved, either seat; once only the first player has, that player, on the other's turn."""
    if state.phase == OVER or seat not in (0, 1):
        return False
    first = state.first_player
    if not moved(state, first):
        return True
    return not moved(state, 1 - first) and seat == first and state.to_move != first


def _end(state: State, winner: int | None, reason: str, ev: list[Event] | None) -> None:
    state.phase = OVER
    state.winner = winner
    state.reason = reason
    if ev is not None:
        ev.append(Event("end", winner=winner, reason=reason, scores=(state.scores[0], state.scores[1])))


def _end_turn(state: State) -> None:
    state.to_move = 1 - state.to_move
    state.phase = START
    state.first_terminal = -1
    state.turns += 1


def _draw_one(state: State, seat: int, ev: list[Event] | None) -> None:
    if not state.draw:
        if not state.discard:
            return
        state.draw, state.discard = state.discard, []
        state.shuffles += 1
        random.Random(f"{state.seed}:{state.shuffles}").shuffle(state.draw)
        if ev is not None:
            ev.append(Event("reshuffle", count=len(state.draw)))
    card = state.draw.pop()
    state.hands[seat].append(card)
    if CARD_TRANSFORMER[card]:
        state.flips += 1
    if ev is not None:
        ev.append(Event("draw", seat=seat, transformer=CARD_TRANSFORMER[card]))


def _continue_draws(state: State, ev: list[Event] | None) -> None:
    """Draw what the turn still owes, stopping at each transformer for its flip."""
    seat = state.to_move
    while True:
        if state.flips:
            state.phase = FLIP
            return
        if not state.draws:
            _end_turn(state)
            return
        state.draws -= 1
        _draw_one(state, seat, ev)


def _score(state: State, t: int, seat: int, ev: list[Event] | None) -> None:
    """Score terminal ``t``, whose fifth card ``seat`` just played."""
    a, b = state.board[2 * t], state.board[2 * t + 1]
    ta = sum(CARD_VALUE[c] for c in a)
    tb = sum(CARD_VALUE[c] for c in b)
    plus = state.plus[t]
    if ta == tb:
        winner = 1 - seat
    elif (ta > tb) == plus:
        winner = 0
    else:
        winner = 1
    state.scores[winner] += 1
    state.discard.extend(a)
    state.discard.extend(b)
    a.clear()
    b.clear()
    if ev is not None:
        ev.append(Event("score", seat=seat, terminal=t, totals=(ta, tb), plus=plus, winner=winner))
    if state.scores[winner] >= SETS_TO_WIN:
        _end(state, winner, "four sets", ev)


def _find(cards: list[int], card: Card) -> int:
    face, tr = card.face, card.transformer
    for i in range(len(cards) - 1, -1, -1):
        c = cards[i]
        if CARD_FACE[c] == face and CARD_TRANSFORMER[c] == tr:
            return i
    return -1


def _play(state: State, a: Play, ev: list[Event] | None) -> None:
    seat = state.to_move
    hand = state.hands[seat]
    face, tr = a.card
    key = face * 2 + tr  # the card's CARD_KEY; take the last such card in hand, as _find does
    i = len(hand) - 1
    while CARD_KEY[hand[i]] != key:
        i -= 1
    card = hand.pop(i)
    t = a.terminal
    board = state.board
    pile = board[2 * t + a.side]
    target = a.target
    if target is not None:
        i = _find(pile, target)
        taken = pile[i]
        pile[i] = card
        if face == BYPASS:
            board[2 * t + seat].append(taken)
        else:  # blown fuse
            state.discard.append(taken)
    else:
        pile.append(card)
    if ev is not None:
        ev.append(Event("play", seat=seat, card=a.card, terminal=t, side=a.side, target=target))
    if len(board[2 * t]) + len(board[2 * t + 1]) >= SET_SIZE:
        _score(state, t, seat, ev)
        if state.phase == OVER:
            return
    if state.phase == START:
        state.phase = SECOND
        state.first_terminal = t
    else:  # second card of "play two": the turn is done
        _end_turn(state)


def step(state: State, action: Action, ev: list[Event] | None = None) -> None:
    """Apply a *legal* ``action`` to ``state`` in place (no checks; for bots and replays
    of checked logs).  Appends the public events to ``ev`` when given."""
    if isinstance(action, Play):
        state.passes = 0
        _play(state, action, ev)
    elif isinstance(action, Draw):
        state.passes = 0
        state.draws = 2 if state.phase == START else 1
        _continue_draws(state, ev)
    elif isinstance(action, Flip):
        t = action.terminal
        state.plus[t] = not state.plus[t]
        state.flips -= 1
        if ev is not None:
            ev.append(Event("flip", seat=state.to_move, terminal=t, plus=state.plus[t]))
        _continue_draws(state, ev)
    elif isinstance(action, Pass):
        if ev is not None:
            ev.append(Event("pass", seat=state.to_move))
        state.passes += 1
        if state.passes >= 2:
            s = state.scores
            winner = None if s[0] == s[1] else (0 if s[0] > s[1] else 1)
            _end(state, winner, "neither player can act", ev)
        else:
            _end_turn(state)
    elif isinstance(action, Resign):
        if ev is not None:
            ev.append(Event("resign", seat=action.seat))
        _end(state, 1 - action.seat, "resignation", ev)
    elif isinstance(action, Timeout):
        if ev is not None:
            ev.append(Event("timeout", seat=action.seat))
        _end(state, 1 - action.seat, TIME, ev)
    elif isinstance(action, Abort):
        if ev is not None:
            ev.append(Event("abort", seat=action.seat))
        _end(state, None, ABORTED, ev)
    elif isinstance(action, AgreeDraw):
        if ev is not None:
            ev.append(Event("agree", seat=action.seat))
        _end(state, None, AGREEMENT, ev)
    else:  # pragma: no cover - guarded by check()
        raise InvalidActionError("not_an_action", action=action)


def check(state: State, action: Action, seat: int | None = None) -> None:
    """Raise :class:`IllegalActionError` saying why (its code), unless ``action`` is legal now.

    ``seat`` is who asks; by default the player to move.
    """
    if state.phase == OVER:
        raise IllegalActionError("match_over")
    if isinstance(action, Resign):
        if action.seat not in (0, 1) or (seat is not None and seat != action.seat):
            raise IllegalActionError("resign_own_seat")
        return
    if isinstance(action, Timeout):
        if seat is not None:
            raise IllegalActionError("host_clock_only")
        if action.seat != state.to_move:
            raise IllegalActionError("timeout_not_to_move")
        return
    if isinstance(action, (Abort, AgreeDraw)):
        if action.seat not in (0, 1) or (seat is not None and seat != action.seat):
            raise IllegalActionError("own_seat_only")
        if isinstance(action, Abort) and not may_abort(state, action.seat):
            raise IllegalActionError("abort_too_late")
        return
    if seat is not None and seat != state.to_move:
        raise IllegalActionError("not_your_turn")
    if action in legal_actions(state):
        return
    raise explain_illegal(state, action)


def explain_illegal(state: State, action: Action) -> IllegalActionError:
    """The error saying why ``action`` is not legal now (assumes it is not): its code, and
    the cards and terminals a sentence about it names."""
    seat = state.to_move
    phase = state.phase
    if isinstance(action, (Play, Flip)) and action.terminal not in (0, 1, 2, 3):
        return IllegalActionError("no_such_terminal", terminal=action.terminal)
    if phase == FLIP:
        return IllegalActionError("flip_first")
    if isinstance(action, Flip):
        return IllegalActionError("flip_after_transformer")
    if isinstance(action, Pass):
        return IllegalActionError("cannot_pass")
    if isinstance(action, Draw):
        if len(state.hands[seat]) > HAND_LIMIT - 2:
            return IllegalActionError("hand_limit", limit=HAND_LIMIT)
        return IllegalActionError("nothing_to_draw")
    if isinstance(action, Play):
        if action.side not in (0, 1):
            return IllegalActionError("no_such_side", side=action.side)
        hand = state.hands[seat]
        card = action.card
        if _find(hand, card) < 0:
            return IllegalActionError("no_such_card", card=card)
        if phase == SECOND and action.terminal == state.first_terminal:
            return IllegalActionError("second_card_same_terminal")
        opp = 1 - seat
        if card.special:
            if action.side != opp:
                return IllegalActionError("special_on_opponent", card=card)
            pile = state.board[2 * action.terminal + opp]
            has_target = any(not CARD_SPECIAL[c] for c in pile)
            if action.target is None and has_target:
                return IllegalActionError("choose_target", card=card)
            if action.target is not None and action.target.special:
                return IllegalActionError("special_takes_no_special", card=card)
            if action.target is not None and _find(pile, action.target) < 0:
                return IllegalActionError("no_such_target", card=action.target, terminal=action.terminal)
            return IllegalActionError("play_not_allowed")
        if action.terminal != card.colour:
            return IllegalActionError("wrong_terminal", card=card, terminal=card.colour)
        if action.target is not None:
            return IllegalActionError("only_specials_take")
        return IllegalActionError("play_not_allowed")
    return IllegalActionError("not_allowed")


def apply(state: State, action: Action, seat: int | None = None) -> tuple[State, list[Event]]:
    """Return the state after ``action`` and the public events it caused.

    Raises :class:`IllegalActionError` (with the reason) if the action is not
    legal for ``seat`` (default: the player to move); ``state`` is never changed.
    """
    check(state, action, seat)
    s = state.copy()
    ev: list[Event] = []
    step(s, action, ev)
    return s, ev


def apply_logged(state: State, text: str) -> tuple[Action, State, list[Event]]:
    """One action of a stored log, applied as its host applied it: ``text`` parsed,
    sent by the seat to move (a resignation by its own seat).  Raises
    :class:`InvalidActionError` or :class:`IllegalActionError` saying why not."""
    action = parse_action(text)
    if isinstance(action, Timeout):
        seat: int | None = None  # the host's clock
    else:
        seat = action.seat if isinstance(action, ENDINGS) else state.to_move
    state, events = apply(state, action, seat)
    return action, state, events


def replay(seed: int, actions: Iterable[Action]) -> State:
    """The state reached from ``seed`` by ``actions``, each checked."""
    s = new_match(seed)
    for a in actions:
        check(s, a)
        step(s, a)
    return s


# ---------------------------------------------------------------------------
# Views


@dataclass(frozen=True)
class VoltageView:
    """What ``seat`` may know (``seat`` None: a spectator), as the rules' "Hidden and public" allows.

    ``hand`` is the seat's own hand, in hand order.  ``hand_backs[seat]`` is the
    public form of each hand, the seat's own included: one flag per card (True:
    a transformer back), **transformers first, never in hand order**.  The rules
    make only the count of cards and of transformer backs public; the hand's
    order is hidden, and it would leak: a play takes the last card of its face
    and back, so which back went away would tell whether a later same-back card
    had the same face.  Canonical here, in the view itself, so no
    consumer (the screen, the bots' determinization, a replay) can leak it.
    """

    seat: int | None
    hand: tuple[Card, ...] | None
    hand_backs: tuple[tuple[bool, ...], tuple[bool, ...]]
    board: tuple[tuple[tuple[Card, ...], tuple[Card, ...]], ...]
    plus: tuple[bool, bool, bool, bool]
    scores: tuple[int, int]
    draw_count: int
    draw_top_transformer: bool
    discard_count: int
    discard_top: Card | None
    to_move: int
    phase: str
    first_terminal: int
    flips_pending: int
    first_player: int
    turn: int
    winner: int | None
    reason: str
    legal: tuple[Action, ...] = field(default=())

    @property
    def over(self) -> bool:
        return self.phase == "over"

    @property
    def my_turn(self) -> bool:
        return self.seat is not None and self.seat == self.to_move and not self.over

    def count(self, terminal: int) -> int:
        """Cards on both sides of ``terminal``."""
        a, b = self.board[terminal]
        return len(a) + len(b)

    def total(self, terminal: int, seat: int) -> int:
        return sum(c.value for c in self.board[terminal][seat])


def _backs(hand: list[int]) -> tuple[bool, ...]:
    """The public form of a hand: one flag per card, transformer backs first."""
    n = sum(CARD_TRANSFORMER[c] for c in hand)
    return (True,) * n + (False,) * (len(hand) - n)


def view(state: State, seat: int | None) -> VoltageView:
    """The public information plus ``seat``'s own hand (none for a spectator)."""
    hand = None
    legal: tuple[Action, ...] = ()
    if seat is not None:
        hand = tuple(Card.of(c) for c in state.hands[seat])
        if seat == state.to_move:
            legal = tuple(legal_actions(state))
    return VoltageView(
        seat=seat,
        hand=hand,
        hand_backs=(_backs(state.hands[0]), _backs(state.hands[1])),
        board=tuple(
            (
                tuple(Card.of(c) for c in state.board[2 * t]),
                tuple(Card.of(c) for c in state.board[2 * t + 1]),
            )
            for t in range(4)
        ),
        plus=(state.plus[0], state.plus[1], state.plus[2], state.plus[3]),
        scores=(state.scores[0], state.scores[1]),
        draw_count=len(state.draw),
        draw_top_transformer=bool(state.draw) and CARD_TRANSFORMER[state.draw[-1]],
        discard_count=len(state.discard),
        discard_top=Card.of(state.discard[-1]) if state.discard else None,
        to_move=state.to_move,
        phase=PHASE_NAMES[state.phase],
        first_terminal=state.first_terminal,
        flips_pending=state.flips,
        first_player=state.first_player,
        turn=state.turns,
        winner=state.winner,
        reason=state.reason,
        legal=legal,
    )
