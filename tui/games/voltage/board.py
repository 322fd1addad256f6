"""The table: four terminals, each with the opponent's side above, the +/- block
in the middle and the player's own side below.

One widget paints all four (see :mod:`.lines`): the match screen hands it a
:class:`TerminalState` per terminal, it draws them and posts a message when a
side, a block or a frame is clicked.  It holds no game logic.

Decisions:

- Which way a terminal scores is written in its frame at every size, never
  left to the block's glyph and colour: "+ high wins" when there is room, then
  "+ high" beside the count, then the sign alone.
- A flip choice keeps the player's Σ total: the flip key goes on the same row
  ("Σ 3 ▶o flip", then "Σ 3 ▶o"), since the totals are what the choice is
  about.
- A key on a target card is written ``1)`` and set apart from the card's own
  value by a cell: ``▶1) 3 B`` never reads as "1 3".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Offset
from textual.message import Message

from engine.voltage.cards import Card
from tui.games.voltage.words import colour as colour_name
from tui.i18n import _, translations
from tui.text import CARD_BG, TERMINAL_FG, card_lines, fit_forms, sign, slot_lines
from tui.widgets.lines import LineWidget, Palette, Row, box, centred, fit, with_background


@dataclass(frozen=True)
class SideState:
    cards: tuple[Card, ...] = ()
    total: int = 0
    dest_key: str = ""  # non-empty: a legal destination, reached with this key
    target_keys: dict[int, str] = field(default_factory=dict)  # card index -> key
    cursor: bool = False  # the keyboard cursor is here
    cursor_index: int | None = None  # ... on this card
    label: str = ""  # whose side this is, shown faintly when there is room

    def __hash__(self) -> int:
        return hash((
            self.cards, self.total, self.dest_key, tuple(self.target_keys.items()), self.cursor, self.cursor_index,
            self.label,
        ))


@dataclass(frozen=True)
class TerminalState:
    top: SideState = SideState()
    bottom: SideState = SideState()
    plus: bool = True
    count: int = 0
    flip_key: str = ""  # non-empty: this block may be flipped now, with this key
    flip_cursor: bool = False
    pick_key: str = ""  # non-empty: this terminal may be picked (a special's terminal)
    note: str = ""  # a passing note: "flipped", "scored: Alice"
    flash: bool = False  # a flip or a set just happened here
    first: bool = False  # the first card of this turn went here

    @property
    def active(self) -> bool:
        """A choice is pending here (its frame is drawn heavy)."""
        return bool(self.pick_key) or bool(self.flip_key)


KEY_STYLE = Style(bold=True, reverse=True)
BLOCK_HEIGHT = 5


def key_label(key: str) -> str:
    return {"up": "↑", "down": "↓", "space": "space"}.get(key, key)


def _label_forms(t: int, plus: bool, count: int) -> tuple[tuple[str, str], ...]:
    letter, colour = "OGBP"[t], colour_name(t)
    s = sign(plus)
    p = {"sign": s, "count": count}
    return (
        (f"{letter} {colour} {count}/5", (_("%(sign)s high wins") if plus else _("%(sign)s low wins")) % p),
        (f"{letter} {colour}", (_("%(sign)s high %(count)d/5") if plus else _("%(sign)s low %(count)d/5")) % p),
        (f"{letter} {colour}", f"{s} {count}/5"),
        (f"{letter}", f"{s} {count}/5"),
        (f"{letter}", s),
    )


def label_level(states: tuple[TerminalState, ...], width: int) -> int:
    """The longest form of frame labels that fits every terminal ``width`` cells wide
    (one form for all four, so the frames read alike)."""
    key = (tuple((s.plus, s.count) for s in states), width, translations())
    level = _LEVELS.get(key)
    if level is None:
        if len(_LEVELS) >= 1024:
            _LEVELS.clear()
        level = _LEVELS[key] = _label_level(states, width)
    return level


_LEVELS: dict[tuple, int] = {}  # label_level's answers, for the process (every board asks on every paint)


def _label_level(states: tuple[TerminalState, ...], width: int) -> int:
    room = width - 4  # the corners and a space each side of a label
    n = len(_label_forms(0, True, 0))
    for level in range(n):
        if all(
            max(len(x) for x in _label_forms(t, s.plus, s.count)[level]) <= room for t, s in enumerate(states)
        ):
            return level
    return n - 1


def frame_labels(t: int, plus: bool, count: int, level: int) -> tuple[str, str]:
    """A terminal's title and subtitle at a form ``level`` (0: the longest)."""
    return _label_forms(t, plus, count)[level]


class Hit(NamedTuple):
    """What a cell of the board is: a terminal's frame, block, or a side (and the card there)."""

    terminal: int
    part: str  # "frame", "block", "top" or "bottom"
    card: int | None = None  # the card's index on that side (not ``index``: a tuple has an index method)


class Board(LineWidget):
    """The four terminals side by side."""

    DEFAULT_CSS = """
    Board { width: 1fr; height: 1fr; }
    """

    class SideClicked(Message):
        def __init__(self, terminal: int, position: str, index: int | None) -> None:
            super().__init__()
            self.terminal = terminal
            self.position = position  # "top" or "bottom"
            self.index = index  # the card clicked, if a card was

    class BlockClicked(Message):
        def __init__(self, terminal: int) -> None:
            super().__init__()
            self.terminal = terminal

    class FrameClicked(Message):
        """A terminal's frame (title or border) was clicked."""

        def __init__(self, terminal: int) -> None:
            super().__init__()
            self.terminal = terminal

    def __init__(self) -> None:
        super().__init__(id="board")
        self.states: tuple[TerminalState, ...] = tuple(TerminalState() for _ in range(4))
        self._columns: dict[tuple, tuple[list[Row], list[Hit]]] = {}  # the last paint's
        self._last_columns: dict[tuple, tuple[list[Row], list[Hit]]] = {}  # the one before
        self._hits: list[list[Hit]] = []  # per column x: the hit of each row
        self._spans: list[tuple[int, int]] = []  # per terminal: [x0, x1)

    def show(self, states: tuple[TerminalState, ...]) -> None:
        if states == self.states:
            return
        self.states = states
        self.repaint()

    # -- painting ---------------------------------------------------------------

    def paint(self, width: int, height: int) -> list[Row]:
        pal = self.palette()
        base, extra = divmod(width, 4)
        widths = [base + (1 if t >= 4 - extra else 0) for t in range(4)]
        columns = []
        self._spans = []
        self._hits = []
        x = 0
        level = label_level(self.states, min(widths))
        # the columns of this paint and the last: a key pressed changes one or two terminals,
        # and Esc goes back to the last picture (more kept: memory a screen holds for nothing)
        recent, older = self._columns, self._last_columns
        self._last_columns, self._columns = recent, {}
        for t in range(4):
            key = (t, self.states[t], widths[t], height, pal.bg, pal.fg, level)
            col = recent.get(key) or older.get(key)
            if col is None:
                col = _paint_terminal(t, self.states[t], widths[t], height, pal, level)
            self._columns[key] = col
            columns.append(col[0])
            self._hits.append(col[1])
            self._spans.append((x, x + widths[t]))
            x += widths[t]
        return [[seg for col in columns for seg in col[y]] for y in range(height)]

    # -- the mouse --------------------------------------------------------------

    def hit(self, x: int, y: int) -> Hit | None:
        for t, (x0, x1) in enumerate(self._spans):
            if x0 <= x < x1:
                hits = self._hits[t]
                return hits[y] if 0 <= y < len(hits) else None
        return None

    def point_of(self, terminal: int, part: str, index: int | None = None) -> Offset:
        """Where to click for ``part`` of ``terminal`` (and card ``index`` of a side)."""
        x0, x1 = self._spans[terminal]
        for y, h in enumerate(self._hits[terminal]):
            if h.part == part and (index is None or h.card == index):
                return Offset((x0 + x1) // 2, y)
        raise LookupError(f"no {part} {index} on terminal {terminal}")

    def on_click(self, event: events.Click) -> None:
        event.stop()
        h = self.hit(event.x, event.y)
        if h is None:
            return
        if h.part in ("top", "bottom"):
            self.post_message(self.SideClicked(h.terminal, h.part, h.card))
        elif h.part == "block":
            self.post_message(self.BlockClicked(h.terminal))
        else:
            self.post_message(self.FrameClicked(h.terminal))


def _paint_terminal(
    t: int, s: TerminalState, width: int, height: int, pal: Palette, level: int = 0
) -> tuple[list[Row], list[Hit]]:
    """One terminal as rows of ``width`` cells, and what each row is, for clicks."""
    inner_w, inner_h = max(1, width - 2), max(1, height - 2)
    bg = pal.mix(0.10) if s.flash else pal.mix(0.06) if s.first else None
    under = bg or pal.bg
    block_h = BLOCK_HEIGHT if inner_h >= BLOCK_HEIGHT + 2 else 3
    top_h = max(1, (inner_h - block_h) // 2)
    bottom_h = max(1, inner_h - block_h - top_h)

    top_rows, top_idx = _paint_side(s.top, "top", inner_w, top_h, pal, under)
    block_rows = _paint_block(s, inner_w, block_h, pal, under)
    bottom_rows, bottom_idx = _paint_side(s.bottom, "bottom", inner_w, bottom_h, pal, under)
    rows = top_rows + block_rows + bottom_rows
    rows = [with_background(fit(r, inner_w), bg) for r in rows[:inner_h]]
    while len(rows) < inner_h:
        rows.append(with_background([Segment(" " * inner_w)], bg))

    title, rule = frame_labels(t, s.plus, s.count, level)
    kind = "double" if s.flash else "heavy" if s.active else "round"
    line = pal.style(CARD_BG[t], bg)
    framed = box(
        rows,
        width,
        kind=kind,
        line=line,
        title=[Segment(title, pal.style(TERMINAL_FG[t], bg, bold=True))],
        subtitle=[Segment(rule, pal.style(pal.mix(0.6, under), bg, bold=True))],
    )
    hits = [Hit(t, "frame")]
    hits += [Hit(t, "top", i) for i in top_idx]
    hits += [Hit(t, "block")] * block_h
    hits += [Hit(t, "bottom", i) for i in bottom_idx]
    hits = hits[: 1 + inner_h]
    while len(hits) < 1 + inner_h:
        hits.append(Hit(t, "frame"))
    hits.append(Hit(t, "frame"))
    return framed[:height], hits[:height]


def _paint_side(
    s: SideState, position: str, width: int, height: int, pal: Palette, under
) -> tuple[list[Row], list[int | None]]:
    """One seat's side: its cards, hugging the block; its owner's label at the far edge."""
    bg = pal.mix(0.16, under) if s.cursor else pal.mix(0.09, under) if (s.dest_key or s.target_keys) else None
    keyed = bool(s.target_keys)
    n = len(s.cards) + (1 if s.dest_key else 0)
    # The largest cards that fit: 3 lines each with a gap, then 3, 2, 1.
    card_h, gap = 1, 0
    for h, g in ((3, 1), (3, 0), (2, 1), (2, 0)):
        if n * h + (n - 1) * g <= height:
            card_h, gap = h, g
            break
    card_w = max(6, min(width - (5 if keyed else 2), 14))
    lines: list[tuple[Row, int | None]] = []
    for i, card in enumerate(s.cards):
        if lines and gap:
            lines.append(([], None))
        key = s.target_keys.get(i)
        block = card_lines(card, card_w, card_h)
        for j, text in enumerate(block):
            row: Row = []
            if keyed:
                if key and j == (len(block) - 1) // 2:
                    mark = "▶" if s.cursor_index == i else " "
                    row.append(Segment(f"{mark}{key_label(key)})", KEY_STYLE))
                    row.append(Segment(" "))
                else:
                    row.append(Segment("    "))
            row.append(Segment(text.plain, text.style if isinstance(text.style, Style) else None))
            if keyed:
                row.append(Segment("  "))
            lines.append((row, i))
    if s.dest_key:
        if lines and gap:
            lines.append(([], None))
        mark = "▶" if s.cursor else ""
        label = _("%(key)s here") % {"key": f"{mark}{key_label(s.dest_key)}"}
        style = KEY_STYLE if card_h == 1 else pal.style(bold=True)
        for line in slot_lines(label, card_w, card_h):
            lines.append(([Segment(line, style)], None))
    if len(lines) > height:  # never drop a card silently: squeeze the placeholder first
        lines = [x for x in lines if x[1] is not None][-height:]
    spare = height - len(lines)
    label_rows: list[tuple[Row, int | None]] = []
    if s.label and spare >= 2:
        side = fit_forms(s.label, width - 2)  # (its shorter forms: tui.games.voltage.present.side_labels)
        label_rows = [([Segment(side, pal.style(italic=True, dim=True))], None)]
        spare -= 1
    filler: list[tuple[Row, int | None]] = [([], None)] * spare
    if position == "top":
        lines = label_rows + filler + lines
    else:
        lines = lines + filler + label_rows
    rows: list[Row] = []
    for row, _index in lines:
        n = Segment.get_line_length(row)
        left = max(0, (width - n) // 2)
        rows.append(with_background(fit([Segment(" " * left), *row] if left else row, width), bg))
    return rows, [i for _, i in lines]


def _paint_block(s: TerminalState, w: int, height: int, pal: Palette, under) -> list[Row]:
    """The +/- block, each side's total above and below it (or a passing note)."""
    bg = pal.mix(0.09, under) if s.flip_key else None
    bw = max(5, min(w - 4, 11))
    if bw % 2 == 0:
        bw -= 1
    half = bw // 2
    block_style = (
        Style(color="#000000", bgcolor="#f0f0f0", bold=True)
        if s.plus
        else Style(color="#ffffff", bgcolor="#3a3a3a", bold=True)
    )
    bold = pal.style(bold=True)
    rows: list[Row] = []
    if s.note:
        rows.append(centred(s.note, w, KEY_STYLE))
    else:
        rows.append(centred(f"Σ {s.top.total}", w, bold))
    if height >= 5:
        pad = " " * half
        if s.plus:
            glyph = [pad + "┃" + pad, "━" * half + "╋" + "━" * half, pad + "┃" + pad]
        else:
            glyph = [" " * bw, "━" * bw, " " * bw]
        rows.extend(centred(g, w, block_style) for g in glyph)
    else:
        rows.append(centred(" " * (half - 1) + sign(s.plus) + " " * (half - 1), w, block_style))
    total = f"Σ {s.bottom.total}"
    if s.flip_key:  # the key beside the total, never instead of it
        mark = "▶" if s.flip_cursor else " "
        key = f"{mark}{key_label(s.flip_key)}"
        label = next((k for k in (_("%(key)s flip") % {"key": key} + " ", key) if len(total) + 1 + len(k) <= w), key)
        n = len(total) + 1 + len(label)
        left = max(0, (w - n) // 2)
        rows.append([
            Segment(" " * left), Segment(total, bold), Segment(" "), Segment(label, KEY_STYLE),
            Segment(" " * max(0, w - n - left)),
        ])
    else:
        rows.append(centred(total, w, bold))
    return [with_background(r, bg) for r in rows]
