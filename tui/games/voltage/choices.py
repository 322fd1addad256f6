"""What the player may choose right now, worked out from a view alone.

The match screen keeps a half-made choice (a :class:`Selection`: a hand card,
then for a special its terminal) and asks :func:`step_for` what comes next.
The answer, a :class:`Step`, says what to prompt and lists the options; each
option has a key, words, and either the action to submit or the deeper
selection it leads to.  Keys, clicks, highlights and the footer are all read
from the same step, and the step is built only from ``view.legal``, so an
impossible choice is never offered.

Prompts are :class:`~tui.text.Forms`: a full sentence and shorter ones of the
same meaning, for the prompt line of a narrow terminal (never a sentence cut
mid-way).  A prompt says only what can really be done: "or draw two" only when
drawing two is legal, "play a card" only when a card can be played, and the
reason when either is not (an empty or full hand, nothing left to draw).

No Textual here: this module is plain data and is tested on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.voltage.cards import BYPASS, COLOURS, Card
from engine.voltage.rules import HAND_LIMIT, Action, Draw, Flip, Pass, Play, VoltageView
from tui.text import Forms

TERMINAL_KEYS = ("o", "g", "b", "p")
HAND_KEYS = ("1", "2", "3", "4", "5", "6")
TARGET_KEYS = ("1", "2", "3", "4")
THEIRS_KEY = "up"
MINE_KEY = "down"
DRAW_KEY = "space"

# Step kinds
WAIT = "wait"  # someone else is to move
WATCH = "watch"  # a spectator
OVER = "over"
CARD = "card"  # pick a hand card, or draw
SIDE = "side"  # a number card is picked: which side of its terminal
TERMINAL = "terminal"  # a special is picked: which terminal
TARGET = "target"  # a special and its terminal are picked: which card it takes
FLIP = "flip"  # a transformer was drawn: flip a block


@dataclass(frozen=True)
class Selection:
    """A half-made choice: a hand card (by its slot), and for a special its terminal."""

    slot: int | None = None
    card: Card | None = None
    terminal: int | None = None

    @property
    def empty(self) -> bool:
        return self.card is None

    def back(self) -> Selection:
        """One step back (what Esc does)."""
        if self.terminal is not None:
            return Selection(self.slot, self.card)
        return Selection()


NOTHING = Selection()


@dataclass(frozen=True)
class Option:
    """One choice of a step.  Exactly one of ``action`` / ``select`` is set."""

    key: str
    label: str
    action: Action | None = None
    select: Selection | None = None
    # What it points at, for highlights and clicks:
    slot: int | None = None  # a hand card
    terminal: int | None = None
    side: int | None = None  # a seat's side of ``terminal``
    target: Card | None = None  # a card on that side
    block: bool = False  # the terminal's block (a flip)
    button: bool = False  # drawn as a button (draw / done / pass)


@dataclass(frozen=True)
class Step:
    kind: str
    prompt: str
    options: tuple[Option, ...] = ()
    selection: Selection = NOTHING

    def by_key(self, key: str) -> Option | None:
        for o in self.options:
            if o.key == key:
                return o
        return None

    @property
    def cursor_options(self) -> tuple[Option, ...]:
        """The options Left/Right walk through (everything but the buttons)."""
        return tuple(o for o in self.options if not o.button)

    @property
    def buttons(self) -> tuple[Option, ...]:
        return tuple(o for o in self.options if o.button)


def me_of(view: VoltageView) -> int:
    """The seat drawn at the bottom: the view's own, or seat 0 for a spectator."""
    return view.seat if view.seat is not None else 0


def _plays_of(view: VoltageView, card: Card) -> list[Play]:
    return [a for a in view.legal if isinstance(a, Play) and a.card == card]


def playable_slots(view: VoltageView) -> list[int]:
    if view.hand is None:
        return []
    cards = {a.card for a in view.legal if isinstance(a, Play)}
    return [i for i, c in enumerate(view.hand) if c in cards]


def targets(view: VoltageView, card: Card, terminal: int) -> list[Card | None]:
    """The distinct targets ``card`` may take on ``terminal``, in board order (``[None]``: none)."""
    opp = 1 - me_of(view)
    legal = {a.target for a in _plays_of(view, card) if a.terminal == terminal}
    out: list[Card | None] = []
    for c in view.board[terminal][opp]:
        if c in legal and c not in out:
            out.append(c)
    if None in legal:
        out.append(None)
    return out


def step_for(view: VoltageView, sel: Selection, names: Sequence[str]) -> Step:
    """What ``view``'s seat may choose now, given the half-made choice ``sel``.

    ``sel`` is dropped (the step starts afresh) when it no longer fits the view.
    Names appear in prompts as they are; the widget shows prompts as plain text.
    """
    me = me_of(view)
    opp = 1 - me
    if view.over:
        if view.reason == "aborted":  # called off before it began: nobody drew it
            return Step(OVER, "The match is aborted.")
        if view.winner is None:
            return Step(OVER, "The match is drawn.")
        return Step(OVER, Forms(f"{names[view.winner]} wins the match.", f"{names[view.winner]} wins."))
    if view.seat is None:
        return Step(WATCH, Forms(f"Watching: {names[view.to_move]} to move.", f"{names[view.to_move]} to move."))
    if not view.my_turn:
        return Step(WAIT, f"{names[view.to_move]} is playing…")

    if view.phase == "flip":
        n = view.flips_pending
        owed = f" ({n} flips owed)" if n > 1 else ""
        flips = tuple(
            Option(TERMINAL_KEYS[a.terminal], f"flip {COLOURS[a.terminal]}", action=a, terminal=a.terminal, block=True)
            for a in view.legal
            if isinstance(a, Flip)
        )
        return Step(
            FLIP,
            Forms(
                f"You drew a transformer: flip a terminal block{owed}.",
                f"Transformer: flip a block{owed}.",
                "Flip a block.",
            ),
            flips,
        )

    hand = view.hand or ()
    # Drop a selection the view no longer supports.
    chosen = sel.card
    if chosen is not None:
        if sel.slot is None or sel.slot >= len(hand) or hand[sel.slot] != chosen or not _plays_of(view, chosen):
            sel = NOTHING
        elif sel.terminal is not None and len(targets(view, chosen, sel.terminal)) < 2:
            sel = Selection(sel.slot, chosen)

    if sel.card is None:
        piles_empty = view.draw_count == 0 and view.discard_count == 0
        opts: list[Option] = []
        for i in playable_slots(view):
            c = hand[i]
            opts.append(Option(HAND_KEYS[i], c.name, select=Selection(i, c), slot=i))
        for a in view.legal:
            if isinstance(a, Draw):
                if view.phase == "start":
                    label = "draw two"
                else:  # with both piles empty the turn just ends (the rules)
                    label = "done" if piles_empty else "done: draw one"
                opts.append(Option(DRAW_KEY, label, action=a, button=True))
            elif isinstance(a, Pass):
                opts.append(Option(DRAW_KEY, "pass", action=a, button=True))
        can_play = any(o.slot is not None for o in opts)
        can_draw = any(o.button and isinstance(o.action, Draw) for o in opts)
        if view.phase == "second":
            done = "done" if piles_empty else "done: draw one"
            if can_play:
                prompt = Forms(
                    f"Second card (to another terminal), or {done}.",
                    "Second card (to another terminal), or done.",
                    "Second card, or done.",
                )
            elif not hand:
                prompt = Forms(f"Your hand is empty: {done}.", "Hand empty: done.")
            else:
                prompt = Forms(
                    f"No second card fits another terminal: {done}.",
                    "No second card fits another terminal: done.",
                    "No second card fits: done.",
                )
        elif any(isinstance(a, Pass) for a in view.legal):
            why = "your hand is empty and" if not hand else "no card fits and"
            prompt = Forms(f"You cannot act ({why} nothing is left to draw): pass.", "You cannot act: pass.")
        elif can_play and can_draw:
            prompt = Forms("Your turn: play a card, or draw two.", "Play a card, or draw two.")
        elif can_draw:
            if not hand:
                prompt = Forms("Your turn: your hand is empty, so draw two.", "Hand empty: draw two.", "Draw two.")
            else:
                prompt = Forms(
                    "Your turn: no card of yours can be played, so draw two.", "No card fits: draw two.", "Draw two."
                )
        elif len(hand) > HAND_LIMIT - 2:
            prompt = Forms(
                "Your turn: play a card (your hand is full, so no drawing two).",
                "Play a card (hand full: no drawing two).",
                "Play a card.",
            )
        else:
            prompt = Forms(
                "Your turn: play a card (nothing is left to draw).",
                "Play a card (nothing to draw).",
                "Play a card.",
            )
        return Step(CARD, prompt, tuple(opts), NOTHING)

    card = sel.card
    plays = _plays_of(view, card)
    if not card.special:
        t = card.colour
        opts = []
        for p in plays:
            if p.side == opp:
                opts.append(Option(THEIRS_KEY, f"{names[opp]}'s side", action=p, terminal=t, side=opp))
        for p in plays:
            if p.side == me:
                opts.append(Option(MINE_KEY, "your side", action=p, terminal=t, side=me))
        name = card.name.capitalize()
        prompt = Forms(f"{name}: on {names[opp]}'s side or yours?", f"{name}: theirs or yours?", "Theirs or yours?")
        return Step(SIDE, prompt, tuple(opts), sel)

    verb = "take" if card.face == BYPASS else "blow"
    if sel.terminal is None:
        opts = []
        for t in range(4):
            ts = targets(view, card, t)
            if not ts:
                continue
            if len(ts) == 1:
                p = Play(card, t, opp, ts[0])
                label = COLOURS[t] if ts[0] is None else f"{COLOURS[t]}: {verb} {ts[0].name}"
                opts.append(Option(TERMINAL_KEYS[t], label, action=p, terminal=t, side=opp))
            else:
                opts.append(
                    Option(TERMINAL_KEYS[t], COLOURS[t], select=Selection(sel.slot, card, t), terminal=t, side=opp)
                )
        name = card.name.capitalize()
        prompt = Forms(
            f"{name}: which terminal? It goes on {names[opp]}'s side.", f"{name}: which terminal?", "Which terminal?"
        )
        return Step(TERMINAL, prompt, tuple(opts), sel)

    t = sel.terminal
    opts = []
    for i, target in enumerate(targets(view, card, t)):
        if target is None:  # cannot happen beside real targets, but never offer a dead key
            continue
        opts.append(
            Option(
                TARGET_KEYS[i],
                f"{verb} {target.name}",
                action=Play(card, t, opp, target),
                terminal=t,
                side=opp,
                target=target,
            )
        )
    name = card.name.capitalize()
    prompt = Forms(f"{name} on {COLOURS[t]}: which card does it {verb}?", f"{name}: which card?", "Which card?")
    return Step(TARGET, prompt, tuple(opts), sel)


def explain_click(view: VoltageView, sel: Selection, terminal: int, side: int | None) -> str:
    """One line saying why a click on ``terminal`` (``side``; None: its block) does nothing now
    (with a shorter form, when it is long, for the prompt line beside its buttons)."""
    me = me_of(view)
    if view.over:
        return "The match is over."
    if view.seat is None:
        return "Spectators watch; they do not play."
    if not view.my_turn:
        return "It is not your turn."
    if view.phase == "flip":
        return "Flip a block: click a terminal's +/− block."
    if side is None:
        return "Blocks flip only after you draw a transformer."
    card = sel.card
    if card is None:
        return "Pick a card from your hand first."
    if card.special:
        if side == me:
            return f"A {card.name} always goes on the opponent's side."
        if terminal == view.first_terminal and view.phase == "second":
            return Forms(
                "The second card must go to a different terminal than the first.",
                "The second card goes to another terminal.",
            )
        return Forms(f"Pick the card your {card.name} takes (a highlighted one).", "Pick a highlighted card.")
    if terminal != card.colour:
        return f"A {card.name} goes to the {COLOURS[card.colour]} terminal."
    return "That play is not allowed."
