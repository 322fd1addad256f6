"""The table: four terminals, each with the opponent's side above, the +/- block
in the middle and the player's own side below.

The widgets draw what the match screen hands them (:class:`TerminalState`) and
post a message when clicked; they hold no game logic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget

from engine.cards import COLOURS, Card

from ..text import TERMINAL_FG, card_lines, sign, slot_lines
from .util import flag_classes


@dataclass(frozen=True)
class SideState:
    cards: tuple[Card, ...] = ()
    total: int = 0
    dest_key: str = ""  # non-empty: a legal destination, reached with this key
    target_keys: dict[int, str] = field(default_factory=dict)  # card index -> key
    cursor: bool = False  # the keyboard cursor is here
    cursor_index: int | None = None  # ... on this card
    label: str = ""  # whose side this is, shown faintly when there is room


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
    top_name: str = ""
    bottom_name: str = ""


KEY_STYLE = Style(bold=True, reverse=True)


def key_label(key: str) -> str:
    return {"up": "↑", "down": "↓", "space": "space"}.get(key, key)


class SideView(Widget):
    """One seat's side of one terminal: its cards, one per line."""

    DEFAULT_CSS = """
    SideView { height: 1fr; min-height: 1; }
    """

    class Clicked(Message):
        def __init__(self, terminal: int, position: str, index: int | None) -> None:
            super().__init__()
            self.terminal = terminal
            self.position = position  # "top" or "bottom"
            self.index = index  # the card clicked, if a card was

    def __init__(self, terminal: int, position: str) -> None:
        super().__init__(classes=f"-{position}")
        self.terminal = terminal
        self.position = position
        self.state = SideState()
        self._rows: list[int | None] = []  # rendered line -> card index

    def show(self, state: SideState) -> None:
        if state == self.state:
            return
        self.state = state
        flag_classes(self, {"-dest": bool(state.dest_key) or bool(state.target_keys), "-cursor": state.cursor})
        self.refresh()

    def render(self) -> Text:
        s = self.state
        width, height = self.size.width, max(1, self.size.height)
        keyed = bool(s.target_keys)
        n = len(s.cards) + (1 if s.dest_key else 0)
        # The largest cards that fit: 3 lines each with a gap, then 3, 2, 1.
        card_h, gap = 1, 0
        for h, g in ((3, 1), (3, 0), (2, 1), (2, 0)):
            if n * h + (n - 1) * g <= height:
                card_h, gap = h, g
                break
        card_w = max(6, min(width - (4 if keyed else 2), 14))
        lines: list[tuple[Text, int | None]] = []
        for i, card in enumerate(s.cards):
            if lines and gap:
                lines.append((Text(""), None))
            key = s.target_keys.get(i)
            block = card_lines(card, card_w, card_h)
            for j, line in enumerate(block):
                t = Text(no_wrap=True)
                if keyed:
                    if key and j == (len(block) - 1) // 2:
                        mark = "▶" if s.cursor_index == i else " "
                        t.append(f"{mark}{key_label(key)}", style=KEY_STYLE)
                    else:
                        t.append("  ")
                t.append_text(line)
                if keyed:
                    t.append("  ")
                lines.append((t, i))
        if s.dest_key:
            if lines and gap:
                lines.append((Text(""), None))
            mark = "▶" if s.cursor else ""
            label = f"{mark}{key_label(s.dest_key)} here"
            for row in slot_lines(label, card_w, card_h):
                lines.append((Text(row, style=KEY_STYLE if card_h == 1 else "bold"), None))
        if len(lines) > height:  # never drop a card silently: squeeze the placeholder first
            lines = [x for x in lines if x[1] is not None][-height:]
        # Fill the side to its full height: cards hug the block, the owner's label the far edge.
        spare = height - len(lines)
        label: list[tuple[Text, int | None]] = []
        if s.label and spare >= 2:
            text = s.label if len(s.label) <= width - 2 else ("their side" if self.position == "top" else "")
            label = [(Text(text, style="dim italic"), None)]
            spare -= 1
        filler = [(Text(""), None)] * spare
        if self.position == "top":
            lines = label + filler + lines
        else:
            lines = lines + filler + label
        self._rows = [i for _, i in lines]
        out = Text(no_wrap=True)
        for n, (t, _) in enumerate(lines):
            if n:
                out.append("\n")
            out.append(" " * max(0, (width - t.cell_len) // 2))
            out.append_text(t)
        return out

    def _first_row(self) -> int:
        return 0  # render() fills the whole height

    def row_of(self, index: int) -> int | None:
        """The line (within this widget) where card ``index`` is drawn."""
        for r, i in enumerate(self._rows):
            if i == index:
                return self._first_row() + r
        return None

    def on_click(self, event: events.Click) -> None:
        event.stop()
        index: int | None = None
        row = event.y - self._first_row()
        if 0 <= row < len(self._rows):
            index = self._rows[row]
        self.post_message(self.Clicked(self.terminal, self.position, index))


class BlockView(Widget):
    """The +/- block of a terminal, with each side's total beside it."""

    DEFAULT_CSS = """
    BlockView { height: 5; }
    """

    class Clicked(Message):
        def __init__(self, terminal: int) -> None:
            super().__init__()
            self.terminal = terminal

    def __init__(self, terminal: int) -> None:
        super().__init__()
        self.terminal = terminal
        self.state = TerminalState()

    def show(self, state: TerminalState) -> None:
        if state == self.state:
            return
        self.state = state
        flag_classes(self, {"-plus": state.plus, "-minus": not state.plus, "-flippable": bool(state.flip_key)})
        self.refresh()

    def render(self) -> Text:
        s = self.state
        w = max(7, self.size.width)
        big = self.size.height >= 5
        bw = max(5, min(w - 4, 11))
        if bw % 2 == 0:
            bw -= 1
        half = bw // 2
        block_style = (
            Style(color="#000000", bgcolor="#f0f0f0", bold=True)
            if s.plus
            else Style(color="#ffffff", bgcolor="#3a3a3a", bold=True)
        )

        def centred(text: str, style: Style | str = "") -> Text:
            left = max(0, (w - cell_len(text)) // 2)
            t = Text(" " * left, no_wrap=True)
            t.append(text, style=style)
            return t

        rows: list[Text] = []
        note = s.note if len(s.note) <= w else s.note[: w - 1] + "…"
        rows.append(centred(note, "bold reverse") if s.note else centred(f"Σ {s.top.total}", "bold"))
        if big:
            pad = " " * half
            if s.plus:
                glyph = [pad + "┃" + pad, "━" * half + "╋" + "━" * half, pad + "┃" + pad]
            else:
                glyph = [" " * bw, "━" * bw, " " * bw]
            rows.extend(centred(g, block_style) for g in glyph)
        else:
            rows.append(centred(" " * (half - 1) + sign(s.plus) + " " * (half - 1), block_style))
        if s.flip_key:
            mark = "▶" if s.flip_cursor else " "
            rows.append(centred(f"{mark}{key_label(s.flip_key)} flip ", KEY_STYLE))
        else:
            rows.append(centred(f"Σ {s.bottom.total}", "bold"))
        return Text("\n", no_wrap=True).join(rows)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.terminal))


class TerminalView(Vertical):
    """One terminal: a bordered column, titled with its colour's letter and name and its count."""

    class Clicked(Message):
        """The frame (title or border) was clicked."""

        def __init__(self, terminal: int) -> None:
            super().__init__()
            self.terminal = terminal

    def __init__(self, terminal: int) -> None:
        super().__init__(classes=f"terminal t{terminal}", id=f"terminal-{terminal}")
        self.terminal = terminal
        self.top = SideView(terminal, "top")
        self.block = BlockView(terminal)
        self.bottom = SideView(terminal, "bottom")
        self._titles: tuple[str, str] = ("", "")
        self._active = False

    def compose(self):
        yield self.top
        yield self.block
        yield self.bottom

    def on_mount(self) -> None:
        self.styles.border_title_color = TERMINAL_FG[self.terminal]
        self.show(TerminalState())

    def show(self, state: TerminalState) -> None:
        letter = "OGBP"[self.terminal]
        name = COLOURS[self.terminal]
        wide = self.size.width >= 18
        title = f"{letter} {name}" + (f" {state.count}/5" if wide else "")
        rule = f"{sign(state.plus)} {'high' if state.plus else 'low'} wins" if wide else f"{state.count}/5"
        if (title, rule) != self._titles:
            self._titles = (title, rule)
            self.border_title = Text(title, style="bold")
            self.border_subtitle = Text(rule, style="bold")
        self._active = bool(state.pick_key) or bool(state.flip_key)
        self.top.show(state.top)
        self.block.show(state)
        self.bottom.show(state.bottom)

    def mark(self, *, flash: bool, first: bool) -> None:
        """Classes for the moment: ``-active`` (a choice here), ``-flash`` (a flip or a set), ``-first``."""
        # no rule of a side or a block selects on these: restyle the frame alone
        flag_classes(self, {"-active": self._active, "-flash": flash, "-first": first}, descendants=False)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked(self.terminal))


class Board(Horizontal):
    """The four terminals side by side."""

    def __init__(self) -> None:
        super().__init__(id="board")
        self.terminals = [TerminalView(t) for t in range(4)]

    def compose(self):
        yield from self.terminals
