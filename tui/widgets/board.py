"""The table: four terminals, each with the opponent's side above, the +/- block
in the middle and the player's own side below.

The widgets draw what the match screen hands them (:class:`TerminalState`) and
post a message when clicked; they hold no game logic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rich.style import Style
from rich.text import Text
from textual import events
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget

from engine.cards import COLOURS, Card

from ..text import TERMINAL_FG, chip, sign
from .util import flag_classes


@dataclass(frozen=True)
class SideState:
    cards: tuple[Card, ...] = ()
    total: int = 0
    dest_key: str = ""  # non-empty: a legal destination, reached with this key
    target_keys: dict[int, str] = field(default_factory=dict)  # card index -> key
    cursor: bool = False  # the keyboard cursor is here
    cursor_index: int | None = None  # ... on this card


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
NBSP = "\u00a0"  # padding that centring cannot strip


def key_label(key: str) -> str:
    return {"up": "↑", "down": "↓", "space": "space"}.get(key, key)


class SideView(Widget):
    """One seat's side of one terminal: its cards, one per line."""

    DEFAULT_CSS = """
    SideView { height: 1fr; min-height: 1; content-align: center bottom; text-align: center; }
    SideView.-bottom { content-align: center top; }
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
        wide = self.size.width >= 18
        lines: list[tuple[Text, int | None]] = []
        for i, card in enumerate(s.cards):
            key = s.target_keys.get(i)
            t = Text(no_wrap=True)
            if key:
                mark = "▶" if s.cursor_index == i else " "
                t.append(f"{mark}{key_label(key)}", style=KEY_STYLE)
                t.append(" ")
            t.append_text(chip(card, wide=wide))
            if key:
                t.append("   ")
            lines.append((t, i))
        if s.dest_key:
            mark = "▶" if s.cursor else " "
            label = f"{mark}{key_label(s.dest_key)} here "
            lines.append((Text(f"╌{label}╌", style=KEY_STYLE), None))
        if self.position == "top":
            pass  # cards read top-down, the newest nearest the block
        height = max(1, self.size.height)
        if len(lines) > height:  # never drop a card silently: squeeze the placeholder first
            lines = [x for x in lines if x[1] is not None][-height:] if height else []
        self._rows = [i for _, i in lines]
        out = Text("\n").join(t for t, _ in lines) if lines else Text("")
        return out

    def _first_row(self) -> int:
        # The content hugs the block: the top side's lines sit at its bottom.
        return self.size.height - len(self._rows) if self.position == "top" else 0

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
    BlockView { height: 5; text-align: center; }
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
        block_style = (
            Style(color="#000000", bgcolor="#f0f0f0", bold=True)
            if s.plus
            else Style(color="#ffffff", bgcolor="#3a3a3a", bold=True)
        )
        rows: list[Text] = []
        if s.note:
            rows.append(Text(s.note[: w - 1], style="bold reverse"))
        else:
            rows.append(Text(f"Σ {s.top.total}", style="bold"))
        half = bw // 2
        if big:
            pad = NBSP * half
            if s.plus:
                glyph = [pad + "┃" + pad, "━" * half + "╋" + "━" * half, pad + "┃" + pad]
            else:
                glyph = [NBSP * bw, "━" * bw, NBSP * bw]
            for i, g in enumerate(glyph):
                t = Text(no_wrap=True)
                t.append(g, style=block_style)
                rows.append(t)
        else:
            t = Text(no_wrap=True)
            t.append(NBSP * (half - 1) + sign(s.plus) + NBSP * (half - 1), style=block_style)
            rows.append(t)
        if s.flip_key:
            mark = "▶" if s.flip_cursor else " "
            rows.append(Text(f"{mark}{key_label(s.flip_key)} flip ", style=KEY_STYLE))
        else:
            rows.append(Text(f"Σ {s.bottom.total}", style="bold"))
        out = Text("\n", justify="center", no_wrap=True).join(rows)
        out.justify = "center"
        return out

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
        if state.pick_key:
            title = f"{key_label(state.pick_key)}▸{title}"
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
        flag_classes(self, {"-active": self._active, "-flash": flash, "-first": first})

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
