"""Hands: the player's own cards (faces, keyed 1-6) and the opponent's backs.

A card keeps its place, and so its key, for the rest of a turn (:func:`keep_places`):
after the first card of a two-card turn the others do not move up, so the key read
before the first card still plays the same card.  The hand closes up between turns.

Backs are drawn in one canonical order, transformers first, whatever order
they come in: a hand's order is hidden information (the rules make only the
count of cards and of transformer backs public), and the engine's view already
gives them so.  The widgets sort again so that nothing they are
handed, e.g. an old stored view, can show more than that.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.color import Color
from textual.geometry import Offset
from textual.message import Message

from engine.voltage.cards import Card
from tui.i18n import _, ngettext
from tui.text import (
    BACK_BG,
    BACK_FG,
    CARD_BG,
    CARD_FG,
    SPECIAL_BG,
    SPECIAL_FG,
    TRANSFORMER_MARK,
    backs,
    card_lines,
    name_text,
)
from tui.widgets.lines import LineWidget, Palette, Row, TextLines, background, box, fit

SLOTS = 6


def canonical_backs(flags: tuple[bool, ...]) -> tuple[bool, ...]:
    """``flags`` (True: a transformer back) in the one order shown: transformers first."""
    n = sum(1 for f in flags if f)
    return (True,) * n + (False,) * (len(flags) - n)


Places = tuple[int | None, ...]  # the hand's index shown at each place (None: a gap)


def keep_places(hand: Sequence[Card], shown: Sequence[Card | None] = ()) -> Places:
    """Where each card of ``hand`` stands: where it stood in ``shown`` (the cards shown
    before, place by place) if it is still there, the others in the first free places.
    With nothing shown before, the hand in its order."""
    places: list[int | None] = [None] * max(SLOTS, len(shown))
    left = list(range(len(hand)))  # hand indices not placed yet
    for p, card in enumerate(shown):
        i = next((i for i in left if card is not None and hand[i] == card), None)
        if i is not None:
            places[p] = i
            left.remove(i)
    for i in left:
        if None in places:
            places[places.index(None)] = i
        else:
            places.append(i)
    while len(places) > SLOTS and places[-1] is None:
        places.pop()
    return tuple(places)


class Slot(NamedTuple):
    """One place in the hand: a face, a back (hidden or the opponent's), or nothing."""

    card: Card | None = None
    is_back: bool = False
    transformer: bool = False
    key: str = ""
    playable: bool = False
    selected: bool = False
    cursor: bool = False


EMPTY = Slot()


class HandView(LineWidget):
    """Up to six cards, painted as one widget.  A concealed hand (hot-seat, between
    turns) shows only backs.  Posts :class:`HandView.CardClicked` for a face clicked."""

    DEFAULT_CSS = """
    HandView { width: 1fr; height: 4; }
    """

    class CardClicked(Message):
        """A face clicked, by its place (its key's index)."""

        def __init__(self, slot: int) -> None:
            super().__init__()
            self.slot = slot

    def __init__(self, id: str = "hand") -> None:
        super().__init__(id=id)
        self.slots: tuple[Slot, ...] = (EMPTY,) * SLOTS
        self.my_turn = False
        self._card_w = 8
        self._cache: dict[tuple, list[Row]] = {}
        self._painted: tuple[tuple, list[Row]] | None = None

    @property
    def faces(self) -> tuple[Card, ...]:
        return tuple(s.card for s in self.slots if s.card is not None)

    @property
    def backs(self) -> int:
        return sum(1 for s in self.slots if s.is_back)

    def show_faces(
        self,
        hand: tuple[Card, ...],
        *,
        keys: dict[int, str],
        selected: int | None,
        cursor: int | None,
        my_turn: bool = False,
        places: Places | None = None,
    ) -> None:
        """``hand`` face up; ``keys``, ``selected`` and ``cursor`` name its cards by their index
        in ``hand``, and ``places`` says where each stands (by default the hand in order)."""
        order = places if places is not None else tuple(range(len(hand)))
        slots = tuple(
            Slot(
                hand[i],
                transformer=hand[i].transformer,
                key=keys.get(i, ""),
                playable=i in keys or i == selected,
                selected=i == selected,
                cursor=i == cursor,
            )
            if i is not None and i < len(hand)
            else EMPTY
            for i in (order[p] if p < len(order) else None for p in range(SLOTS))
        )
        self._show(slots, my_turn)

    def show_backs(self, flags: tuple[bool, ...], *, my_turn: bool = False) -> None:
        flags = canonical_backs(flags)
        slots = tuple(Slot(None, is_back=True, transformer=flags[i]) if i < len(flags) else EMPTY for i in range(SLOTS))
        self._show(slots, my_turn)

    def _show(self, slots: tuple[Slot, ...], my_turn: bool) -> None:
        if (slots, my_turn) == (self.slots, self.my_turn):
            return
        self.slots, self.my_turn = slots, my_turn
        self.repaint()

    # -- painting ---------------------------------------------------------------

    def paint(self, width: int, height: int) -> list[Row]:
        pal = self.palette()
        self._card_w = cw = 10 if width >= SLOTS * 11 else 8
        whole = (self.slots, self.my_turn, width, height, pal.bg, pal.fg)
        if self._painted is not None and self._painted[0] == whole:
            return self._painted[1]
        under = pal.mix(0.04) if self.my_turn else pal.bg
        # on the player's turn the hand is on a tint: the margin, the gaps and the padding in it (the
        # cards' every segment has a background of its own)
        tint = background(under) if self.my_turn else None
        gap = [Segment(" ", tint)]
        rows: list[Row] = [[Segment(" ", tint)] for _ in range(height)]  # a column of margin
        for slot in self.slots:
            key = (slot, cw, height, pal.bg, pal.fg, under)
            card = self._cache.get(key)
            if card is None:
                if len(self._cache) > 128:
                    self._cache.clear()
                card = _paint_card(slot, cw, height, pal, under)
                self._cache[key] = card
            for y in range(height):
                rows[y].extend(card[y])
                rows[y].extend(gap)
        if self.my_turn:
            rows = [fit(r, width, tint) for r in rows]
        self._painted = (whole, rows)
        return rows

    # -- the mouse --------------------------------------------------------------

    def slot_at(self, x: int) -> int | None:
        step = self._card_w + 1
        i, within = divmod(x - 1, step)
        return i if x >= 1 and 0 <= i < SLOTS and within < self._card_w else None

    def point_of(self, slot: int) -> Offset:
        """Where to click for the card in ``slot`` (within the content area)."""
        return Offset(1 + slot * (self._card_w + 1) + self._card_w // 2, max(1, self.size.height // 2))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        i = self.slot_at(event.x)
        if i is not None and self.slots[i].card is not None:
            self.post_message(self.CardClicked(i))


def _paint_card(slot: Slot, width: int, height: int, pal: Palette, under: Color) -> list[Row]:
    card = slot.card
    if card is None and not slot.is_back:  # an empty place: nothing drawn
        return [[Segment(" " * width, Style(bgcolor=under.rich_color))] for _ in range(height)]
    if slot.is_back:
        face_bg, face_fg = BACK_BG, BACK_FG
    elif card is not None and card.special:
        face_bg, face_fg = SPECIAL_BG, SPECIAL_FG
    else:
        assert card is not None
        face_bg, face_fg = CARD_BG[card.colour], CARD_FG[card.colour]
    bg = Color.parse(face_bg)
    if slot.is_back:
        alpha = 0.3
    elif slot.selected or slot.cursor:
        alpha = 1.0
    elif slot.playable:
        alpha = 0.7
    else:
        alpha = 0.25  # idle: cannot be played now
    kind = "heavy" if slot.cursor else "double" if slot.selected else "round"
    line = pal.style(bg.blend(pal.fg, alpha), bg, bold=True)
    idle = card is not None and not slot.playable
    ink = bg.blend(Color.parse(face_fg), 0.6) if idle else Color.parse(face_fg)
    text_style = pal.style(ink, bg, bold=True)
    inner_w, inner_h = max(1, width - 2), max(1, height - 2)
    if slot.is_back:
        inner = [[Segment("▒" * inner_w, text_style)] for _ in range(inner_h)]
    else:
        assert card is not None
        face = Card(card.face)  # the transformer mark is on the border
        lines = [t.plain for t in card_lines(face, inner_w, min(inner_h, 3))]
        if inner_h >= 4 and len(lines) == 3:  # room: a blank line between the corner and the name
            lines = [lines[0], "", lines[1], lines[2]]
        inner = [fit([Segment(t, text_style)], inner_w, text_style) for t in lines[:inner_h]]
        inner += [[Segment(" " * inner_w, text_style)] for _ in range(inner_h - len(inner))]
    mark = ("▶" if slot.cursor else "") + slot.key
    return box(
        inner,
        width,
        kind=kind,
        line=line,
        title=[Segment(mark, line)] if mark else (),
        subtitle=[Segment(TRANSFORMER_MARK, line)] if slot.transformer else (),
        align="split",
    )[:height]


class OpponentHand(TextLines):
    """The opponent's name and hand as card backs (transformer backs show their V).

    Its lines are chosen for the width, never cut mid-word: at 80 and 100
    columns six backs and "6 cards" do not fit on one line ("6 ca" was what
    showed), so the count moves up beside the name, "◀ to move" becomes "◀" to
    make room for it there, and only then does "6 cards" become "6"."""

    def show(self, name: str, flags: tuple[bool, ...], *, to_move: bool) -> None:
        flags = canonical_backs(flags)
        tall = self.size.height >= 3
        width = self.size.width
        if (name, flags, to_move, tall, width) == getattr(self, "_shown", None):
            return
        self._shown = (name, flags, to_move, tall, width)
        self._args = (name, flags, to_move)
        n = len(flags)
        cards, short = ngettext("%(n)d card", "%(n)d cards", n) % {"n": n}, f"{n}"
        move, arrow = (_("◀ to move"), "◀") if to_move else ("", "")
        if tall:  # the count is on the name line
            forms = [(cards, move, True), (cards, arrow, True), (short, arrow, True)]
        else:  # the count beside the backs, or above them on the name line
            forms = [
                (cards, move, False), (cards, move, True), (cards, arrow, True),
                (short, move, False), (short, arrow, False),
            ]
        for count, mark, above in forms:
            t = self._text(name, flags, count, mark, tall, above)
            if width <= 0 or all(cell_len(line) <= width for line in t.plain.split("\n")):
                break
        self.set_text(t)

    def _text(self, name: str, flags: tuple[bool, ...], count: str, move: str, tall: bool, above: bool) -> Text:
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append("▲ ", style="bold")
        t.append_text(name_text(name, "bold"))
        if move:
            t.append(f"  {move}", style="bold reverse")
        if above:
            t.append(f"  {count}", style="dim")
        if tall:  # card backs two lines tall
            style = f"bold {BACK_FG} on {BACK_BG}"
            for row in (0, 1):
                t.append("\n")
                for i, tr in enumerate(flags):
                    if i:
                        t.append(" ")
                    t.append(("▒V▒" if tr and row == 0 else "▒▒▒"), style=style)
        else:
            t.append("\n")
            t.append_text(backs(flags))
            if not above:
                t.append(f"  {count}", style="dim")
        return t

    def on_resize(self) -> None:
        args = getattr(self, "_args", None)
        if args is not None:
            name, flags, to_move = args
            self.show(name, flags, to_move=to_move)
        super().on_resize()
