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

from engine.voltage.cards import BYPASS, Card
from engine.voltage.rules import HAND_LIMIT, Action, Draw, Flip, Pass, Play, VoltageView
from tui.games.voltage.words import card_name, colour
from tui.i18n import _, ngettext
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
            return Step(OVER, _("The match is aborted."))
        if view.winner is None:
            return Step(OVER, _("The match is drawn."))
        who = {"who": names[view.winner]}
        return Step(OVER, Forms(_("%(who)s wins the match.") % who, _("%(who)s wins.") % who))
    mover = {"who": names[view.to_move]}
    if view.seat is None:
        return Step(WATCH, Forms(_("Watching: %(who)s to move.") % mover, _("%(who)s to move.") % mover))
    if not view.my_turn:
        return Step(WAIT, _("%(who)s is playing…") % mover)

    if view.phase == "flip":
        n = view.flips_pending
        flips = tuple(
            Option(TERMINAL_KEYS[a.terminal], _("flip %(colour)s") % {"colour": colour(a.terminal)}, action=a,
                   terminal=a.terminal, block=True)
            for a in view.legal
            if isinstance(a, Flip)
        )
        if n > 1:
            prompt = Forms(
                ngettext("You drew a transformer: flip a terminal block (%(n)d flip owed).",
                         "You drew a transformer: flip a terminal block (%(n)d flips owed).", n) % {"n": n},
                ngettext("Transformer: flip a block (%(n)d flip owed).",
                         "Transformer: flip a block (%(n)d flips owed).", n) % {"n": n},
                _("Flip a block."),
            )
        else:
            prompt = Forms(_("You drew a transformer: flip a terminal block."), _("Transformer: flip a block."),
                           _("Flip a block."))
        return Step(FLIP, prompt, flips)

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
            opts.append(Option(HAND_KEYS[i], card_name(c), select=Selection(i, c), slot=i))
        for a in view.legal:
            if isinstance(a, Draw):
                if view.phase == "start":
                    label = _("draw two")
                else:  # with both piles empty the turn just ends (the rules)
                    label = _("done") if piles_empty else _("done: draw one")
                opts.append(Option(DRAW_KEY, label, action=a, button=True))
            elif isinstance(a, Pass):
                opts.append(Option(DRAW_KEY, _("pass"), action=a, button=True))
        can_play = any(o.slot is not None for o in opts)
        can_draw = any(o.button and isinstance(o.action, Draw) for o in opts)
        if view.phase == "second":
            if can_play:
                prompt = Forms(
                    _("Second card (to another terminal), or done.") if piles_empty
                    else _("Second card (to another terminal), or done: draw one."),
                    _("Second card (to another terminal), or done."),
                    _("Second card, or done."),
                )
            elif not hand:
                prompt = Forms(
                    _("Your hand is empty: done.") if piles_empty else _("Your hand is empty: done: draw one."),
                    _("Hand empty: done."),
                )
            else:
                prompt = Forms(
                    _("No second card fits another terminal: done.") if piles_empty
                    else _("No second card fits another terminal: done: draw one."),
                    _("No second card fits another terminal: done."),
                    _("No second card fits: done."),
                )
        elif any(isinstance(a, Pass) for a in view.legal):
            why = (_("You cannot act (your hand is empty and nothing is left to draw): pass.") if not hand
                   else _("You cannot act (no card fits and nothing is left to draw): pass."))
            prompt = Forms(why, _("You cannot act: pass."))
        elif can_play and can_draw:
            prompt = Forms(_("Your turn: play a card, or draw two."), _("Play a card, or draw two."))
        elif can_draw:
            if not hand:
                prompt = Forms(_("Your turn: your hand is empty, so draw two."), _("Hand empty: draw two."),
                               _("Draw two."))
            else:
                prompt = Forms(
                    _("Your turn: no card of yours can be played, so draw two."), _("No card fits: draw two."),
                    _("Draw two."),
                )
        elif len(hand) > HAND_LIMIT - 2:
            prompt = Forms(
                _("Your turn: play a card (your hand is full, so no drawing two)."),
                _("Play a card (hand full: no drawing two)."),
                _("Play a card."),
            )
        else:
            prompt = Forms(
                _("Your turn: play a card (nothing is left to draw)."),
                _("Play a card (nothing to draw)."),
                _("Play a card."),
            )
        return Step(CARD, prompt, tuple(opts), NOTHING)

    card = sel.card
    plays = _plays_of(view, card)
    if not card.special:
        t = card.colour
        opts = []
        for p in plays:
            if p.side == opp:
                opts.append(Option(THEIRS_KEY, _("%(who)s's side") % {"who": names[opp]}, action=p, terminal=t,
                                   side=opp))
        for p in plays:
            if p.side == me:
                opts.append(Option(MINE_KEY, _("your side"), action=p, terminal=t, side=me))
        q = {"card": card_name(card).capitalize(), "who": names[opp]}
        prompt = Forms(_("%(card)s: on %(who)s's side or yours?") % q, _("%(card)s: theirs or yours?") % q,
                       _("Theirs or yours?"))
        return Step(SIDE, prompt, tuple(opts), sel)

    takes = card.face == BYPASS

    def taking(target: Card) -> str:
        t = {"target": card_name(target)}
        return _("take %(target)s") % t if takes else _("blow %(target)s") % t

    if sel.terminal is None:
        opts = []
        for t in range(4):
            ts = targets(view, card, t)
            if not ts:
                continue
            if len(ts) == 1:
                p = Play(card, t, opp, ts[0])
                label = colour(t) if ts[0] is None else _("%(colour)s: %(taking)s") % {
                    "colour": colour(t), "taking": taking(ts[0])}
                opts.append(Option(TERMINAL_KEYS[t], label, action=p, terminal=t, side=opp))
            else:
                opts.append(
                    Option(TERMINAL_KEYS[t], colour(t), select=Selection(sel.slot, card, t), terminal=t, side=opp)
                )
        q = {"card": card_name(card).capitalize(), "who": names[opp]}
        prompt = Forms(
            _("%(card)s: which terminal? It goes on %(who)s's side.") % q, _("%(card)s: which terminal?") % q,
            _("Which terminal?"),
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
                taking(target),
                action=Play(card, t, opp, target),
                terminal=t,
                side=opp,
                target=target,
            )
        )
    q = {"card": card_name(card).capitalize(), "colour": colour(t)}
    prompt = Forms(
        (_("%(card)s on %(colour)s: which card does it take?") if takes
         else _("%(card)s on %(colour)s: which card does it blow?")) % q,
        _("%(card)s: which card?") % q, _("Which card?"),
    )
    return Step(TARGET, prompt, tuple(opts), sel)


def explain_click(view: VoltageView, sel: Selection, terminal: int, side: int | None) -> str:
    """One line saying why a click on ``terminal`` (``side``; None: its block) does nothing now
    (with a shorter form, when it is long, for the prompt line beside its buttons)."""
    me = me_of(view)
    if view.over:
        return _("The match is over.")
    if view.seat is None:
        return _("Spectators watch; they do not play.")
    if not view.my_turn:
        return _("It is not your turn.")
    if view.phase == "flip":
        return _("Flip a block: click a terminal's +/− block.")
    if side is None:
        return _("Blocks flip only after you draw a transformer.")
    card = sel.card
    if card is None:
        return _("Pick a card from your hand first.")
    q = {"card": card_name(card), "colour": colour(card.colour) if not card.special else ""}
    if card.special:
        if side == me:
            return _("A %(card)s always goes on the opponent's side.") % q
        if terminal == view.first_terminal and view.phase == "second":
            return Forms(
                _("The second card must go to a different terminal than the first."),
                _("The second card goes to another terminal."),
            )
        return Forms(_("Pick the card your %(card)s takes (a highlighted one).") % q, _("Pick a highlighted card."))
    if terminal != card.colour:
        return _("A %(card)s goes to the %(colour)s terminal.") % q
    return _("That play is not allowed.")
