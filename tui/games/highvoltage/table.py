"""High Voltage around the pile: the hand (stable keyed slots), the players, the feed.

The hand keeps each card in its slot for as long as it is held, so its key
does not change under the player's fingers when another card leaves: a card
played leaves a gap, and the next card drawn fills the first gap.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from engine.highvoltage.rules import Face, HighVoltageView
from tui.games.highvoltage.card import KEY_STYLE, MOD_BG, MOD_FG, mod_label
from tui.i18n import _, pgettext
from tui.text import safe

# A key per slot: 1-9, 0, then letters (not d, s, q or r: draw, stuck, leave, rematch).
CARD_KEYS: tuple[str, ...] = tuple("1234567890") + tuple("abcefghijklmnoptuvwxyz")
CARD_WIDTH = 8  # a card and its margin


def slot_key(slot: int) -> str:
    return CARD_KEYS[slot] if slot < len(CARD_KEYS) else ""


def reconcile(slots: Sequence[Face | None], hand: Sequence[Face]) -> list[Face | None]:
    """The slots for ``hand``: cards still held keep their slots, cards gone leave gaps,
    new cards (in the order they were taken) fill the first gaps, then go at the end.
    Gaps at the end are dropped."""
    left = Counter(hand)
    out: list[Face | None] = []
    for face in slots:
        if face is not None and left[face] > 0:
            left[face] -= 1
            out.append(face)
        else:
            out.append(None)
    new: list[Face] = []
    for face in hand:
        if left[face] > 0:
            left[face] -= 1
            new.append(face)
    i = 0
    for face in new:
        while i < len(out) and out[i] is not None:
            i += 1
        if i < len(out):
            out[i] = face
        else:
            out.append(face)
    while out and out[-1] is None:
        out.pop()
    return out


class HVHand(Widget):
    """The player's hand, drawn as one widget (a big hand is many cards, and one widget
    redraws far faster than dozens): rows of three-line cards, each with its key in the
    top border, its value and its modifier on the modifier's colour.  ``Clicked(slot)``
    when a card is clicked."""

    DEFAULT_CSS = """
    HVHand { height: auto; max-height: 9; overflow-y: auto; }
    """

    class Clicked(Message):
        def __init__(self, slot: int) -> None:
            super().__init__()
            self.slot = slot

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.slots: list[Face | None] = []
        self.cursor: int | None = None
        self.fits: set[int] = set()
        self.backs = 0
        self._state: tuple | None = None

    @property
    def per_row(self) -> int:
        return max(1, (self.size.width or 80) // CARD_WIDTH)

    def show(
        self,
        slots: Sequence[Face | None],
        *,
        cursor: int | None = None,
        fits: set[int] | None = None,
        backs: int = 0,
    ) -> None:
        """Faces in their slots (``backs``: that many face-down cards instead)."""
        state = (tuple(slots), cursor, frozenset(fits or ()), backs)
        if state == self._state:
            return
        rows_before = self._rows()
        self._state = state
        self.slots, self.cursor, self.fits, self.backs = list(slots), cursor, set(fits or ()), backs
        self.refresh(layout=self._rows() != rows_before)

    def _count(self) -> int:
        return self.backs if self.backs else len(self.slots)

    def _rows(self) -> int:
        n = self._count()
        return (n + self.per_row - 1) // self.per_row if n else 0

    def get_content_height(self, container, viewport, width: int) -> int:
        n = self._count()
        per_row = max(1, width // CARD_WIDTH)
        return 3 * ((n + per_row - 1) // per_row) if n else 0

    def on_resize(self) -> None:
        self.refresh(layout=True)

    def render(self) -> Text:
        n, per_row = self._count(), self.per_row
        t = Text(no_wrap=True)
        for row_start in range(0, n, per_row):
            lines = [Text(no_wrap=True), Text(no_wrap=True), Text(no_wrap=True)]
            for i in range(row_start, min(n, row_start + per_row)):
                for part, line in zip(self._card(i), lines, strict=True):
                    line.append_text(part)
                    line.append(" ")
            if row_start:
                t.append("\n")
            t.append_text(lines[0])
            t.append("\n")
            t.append_text(lines[1])
            t.append("\n")
            t.append_text(lines[2])
        return t

    def _card(self, i: int) -> tuple[Text, Text, Text]:
        w = CARD_WIDTH - 1  # 7 cells
        if self.backs:
            edge = Style(color="#e8e0ff", bgcolor="#5a4a8a")
            return (
                Text("╭" + "─" * (w - 2) + "╮", edge),
                Text("│" + "▒" * (w - 2) + "│", edge),
                Text("╰" + "─" * (w - 2) + "╯", edge),
            )
        face = self.slots[i]
        if face is None:
            dim = Style(dim=True)
            return (Text(" " * w), Text("·".center(w), dim), Text(" " * w))
        body = Style(color=MOD_FG[face.mod], bgcolor=MOD_BG[face.mod])
        if i == self.cursor:
            tl, tr, bl, br, h, v = "┏", "┓", "┗", "┛", "━", "┃"
        elif i in self.fits:
            tl, tr, bl, br, h, v = "╔", "╗", "╚", "╝", "═", "║"
        else:
            tl, tr, bl, br, h, v = "╭", "╮", "╰", "╯", "─", "│"
        edge = body + Style(bold=i == self.cursor or i in self.fits)
        key = slot_key(i)
        top = Text(tl + h, edge)
        top.append(f"{key}" if key else h, KEY_STYLE if key else edge)
        top.append(h * (w - 4) + tr, edge)
        value, mod = f"{face.value}", mod_label(face.mod)
        gap = " " if len(value) == 1 else ""
        pad = w - 2 - len(value) - len(gap) - len(mod)
        mid = Text(v, edge)
        mid.append(" " * (pad // 2) + value, body + Style(bold=True))
        mid.append(gap + mod + " " * (pad - pad // 2), body)
        mid.append(v, edge)
        bottom = Text(bl + h * (w - 2) + br, edge)
        return top, mid, bottom

    def slot_at(self, x: int, y: int) -> int | None:
        """The slot drawn at ``(x, y)`` of this widget, if a card is there."""
        if x % CARD_WIDTH >= CARD_WIDTH - 1:
            return None
        i = (y // 3) * self.per_row + x // CARD_WIDTH
        if self.backs or i >= len(self.slots) or self.slots[i] is None:
            return None
        return i

    def on_click(self, event: events.Click) -> None:
        event.stop()
        slot = self.slot_at(event.x, event.y + int(self.scroll_offset.y))
        if slot is not None:
            self.post_message(self.Clicked(slot))


def idle_mark() -> str:
    """What follows an idle player's name in the players' list."""
    return " " + _("(idle)")


class HVPlayers(Static):
    """Every seat: name, cards in hand, cards in pile, and a stuck or out mark; ``me`` first."""

    DEFAULT_CSS = """
    HVPlayers { height: auto; text-wrap: nowrap; text-overflow: ellipsis; }
    """

    _state: tuple | None = None

    def show(self, view: HighVoltageView, names: Sequence[str], *, width: int = 36,
             idle: Sequence[int] = ()) -> None:
        """``idle``: the seats marked idle, shown "Bob (idle)" (the mark is kept, the
        name shortened, when the column is narrow)."""
        state = (view.seat, view.hand_sizes, view.pile_counts, view.stuck, view.out, view.over,
                 view.winner, view.places, tuple(names), width, tuple(idle))
        if state == self._state:
            return
        self._state = state
        if self.styles.height is None or self.styles.height.value != view.players + 1:
            self.styles.height = view.players + 1  # a fixed height: an update needs no layout
        me = view.seat
        order = ([me] if me is not None else []) + [s for s in range(view.players) if s != me]
        name_w = max(6, min(14, width - 22))
        t = Text(no_wrap=True, overflow="ellipsis")
        hand, pile = pgettext("column", "hand"), pgettext("column", "pile")
        t.append(f"{'':<{name_w + 2}}{hand:>4} {pile:>4}", Style(dim=True))
        for s in order:
            t.append("\n")
            mine = s == me
            winner = view.over and view.winner == s
            mark = "★ " if winner else ("▸ " if mine else "  ")
            t.append(mark, Style(bold=True))
            name = safe(names[s]) if s < len(names) else _("Player %(n)d") % {"n": s + 1}
            if mine:
                name = _("You") if len(name) > name_w else name
            mark_idle = idle_mark() if s in idle and not view.over else ""
            room = max(1, name_w - len(mark_idle))
            shown = (name if len(name) <= room else name[: room - 1] + "…") + mark_idle
            t.append(f"{shown:<{name_w}}", Style(bold=mine))
            t.append(f" {view.hand_sizes[s]:>3} {view.pile_counts[s]:>4}")
            if view.out[s]:
                t.append("  " + _("out"), Style(dim=True))
            elif view.stuck[s]:
                t.append("  " + _("STUCK"), Style(bold=True, reverse=True))
            if view.places is not None and not winner:
                t.append(f"  {view.places[s]}.", Style(dim=True))
        self.update(t, layout=False)


_PLAYED = re.compile(r"(\d+) \(±([123])\)")


def feed_line(line: str, *, newest: bool = False) -> Text:
    """A feed line as plain text, with each card in it (``7 (±3)``) drawn as a card chip."""
    line = safe(line)
    slow = _("too slow") in line  # (the feed's words: tui.games.highvoltage.words)
    style = Style(bold=True) if newest or slow else Style()
    if line.endswith(_("%(who)s drew a card.") % {"who": ""}) and not newest:
        style = Style(dim=True)  # draws are many: the plays should stand out
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append("✗ " if slow else "· ", style)
    pos = 0
    for m in _PLAYED.finditer(line):
        t.append(line[pos : m.start()], style)
        mod = int(m.group(2))
        # the chip alone, no padding: the sentence's own spaces and full stop stand as written
        t.append(f"{m.group(1)} {mod_label(mod)}", Style(color=MOD_FG[mod], bgcolor=MOD_BG[mod], bold=True))
        pos = m.end()
    t.append(line[pos:], style)
    return t


class HVFeed(Widget):
    """What happened, newest first (the values played, as the rules ask them said aloud).

    Only the newest lines that fit are drawn, and a new line redraws this widget
    alone: a feed that scrolled would relayout the whole screen on every play.
    Each line is wrapped at word boundaries (continuations indented) and only
    whole lines are drawn: the oldest line that does not fit is left out rather
    than shown cut ("…face dow").  The lines are ``no_wrap`` texts, so the wrap
    must say ``no_wrap=False``, or rich hands each line back whole and the
    widget's edge cuts it."""

    DEFAULT_CSS = """
    HVFeed { height: 1fr; text-wrap: nowrap; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.lines: list[str] = []

    def show(self, lines: Sequence[str]) -> None:
        if len(lines) == len(self.lines) and list(lines) == self.lines:
            return
        self.lines = list(lines)
        self.refresh()

    def render(self) -> Text:
        height, width = max(self.size.height, 1), max(self.size.width, 10)
        rows: list[Text] = []
        for i, line in enumerate(reversed(self.lines[-height:])):
            text = feed_line(line, newest=i == 0)
            # wrap by hand (continuation lines indented), so the newest lines always fit
            wrapped = text.wrap(self.app.console, width - 2, overflow="fold", no_wrap=False)
            if rows and len(rows) + len(wrapped) > height:
                break  # an older line that no longer fits whole: left out, not cut
            for j, part in enumerate(wrapped):
                part.rstrip()
                rows.append(part if j == 0 else Text("  ").append_text(part))
            if len(rows) >= height:
                break
        t = Text(no_wrap=True, overflow="ellipsis")
        for i, row in enumerate(rows[:height]):
            if i:
                t.append("\n")
            t.append_text(row)
        return t
