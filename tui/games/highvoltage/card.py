"""High Voltage cards: the big top card and the big countdown (the hand: :mod:`.hv_table`).

A High Voltage card shows a value 1-10 and a modifier ±1, ±2 or ±3 whose
colour is turquoise, yellow or red.  Colour is never the only cue: the
modifier is always written with its sign (``±3``), and the big top card
also spells the colour's name.  Every card draws on its own background, so
it reads the same on dark and light themes.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.widget import Widget

from engine.highvoltage.rules import Face
from tui.i18n import N_, _, ngettext

# Modifier colours: a card's background (hand) or its modifier's ink (top card).
MOD_BG = {1: "#22b8ac", 2: "#f0c020", 3: "#d8343f"}
MOD_FG = {1: "#04201d", 2: "#1d1600", 3: "#ffffff"}
MOD_INK = {1: "#3fe0d0", 2: "#ffd23c", 3: "#ff5a5f"}  # on the top card's dark face
TOP_BG = "#16181d"
TOP_FG = "#f4f4f4"
MOD_WORD = {1: N_("turquoise"), 2: N_("yellow"), 3: N_("red")}  # (the engine's MODIFIER_COLOURS, worded)
KEY_STYLE = Style(color="#ffffff", bgcolor="#101010", bold=True)  # a hand card's key, on any card
COUNT_INK = "#ffd23c"

# A 3x5 pixel font; each pixel is drawn two cells wide so digits look square.
_FONT: dict[str, tuple[str, ...]] = {
    "0": ("###", "#.#", "#.#", "#.#", "###"),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"),
    "3": ("###", "..#", ".##", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"),
    "7": ("###", "..#", ".#.", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"),
    "9": ("###", "#.#", "###", "..#", "###"),
    "±": (".#.", "###", ".#.", "...", "###"),
    " ": ("...", "...", "...", "...", "..."),
}
BIG_HEIGHT = 5


def big(text: str) -> list[str]:
    """``text`` (digits, ``±``, spaces) in block letters: five lines, each character 6 cells
    wide with one cell between characters (two after a ``±``, so it never reads as one glyph)."""
    rows = ["" for _ in range(BIG_HEIGHT)]
    for i, ch in enumerate(text):
        glyph = _FONT[ch]
        sep = "" if i == 0 else ("  " if text[i - 1] == "±" else " ")
        for r in range(BIG_HEIGHT):
            rows[r] += sep + "".join("██" if px == "#" else "  " for px in glyph[r])
    return rows


def big_width(text: str) -> int:
    return len(big(text)[0]) if text else 0


def mod_label(mod: int) -> str:
    return f"±{mod}"


def card_style(face: Face) -> Style:
    return Style(color=MOD_FG[face.mod], bgcolor=MOD_BG[face.mod], bold=True)


def chip(face: Face) -> Text:
    """One card on one line: `` 7 ±3 `` on its modifier's colour (for the feed and results)."""
    return Text(f" {face.value} {mod_label(face.mod)} ", style=card_style(face))


class HVTopCard(Widget):
    """The pile's top card, large: its value and its modifier in block digits, the modifier's
    sign and colour name in words, the pile's size, and (practice) the values that fit."""

    DEFAULT_CSS = """
    HVTopCard { width: 1fr; height: 1fr; content-align: center middle; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.face: Face | None = None
        self.top_no = 0
        self.discard = 0
        self.hint = ""
        self.flash = False

    def show(self, face: Face, *, top_no: int, discard: int, hint: str = "", flash: bool = False) -> None:
        state = (face, top_no, discard, hint, flash)
        if state == (self.face, self.top_no, self.discard, self.hint, self.flash):
            return
        self.face, self.top_no, self.discard, self.hint, self.flash = state
        self.refresh()

    def render(self) -> Text:
        face = self.face
        if face is None:
            return Text("")
        width = self.size.width
        ink = MOD_INK[face.mod]
        value_rows = big(str(face.value))
        mod_rows = big(mod_label(face.mod))
        gap = 4
        inner = len(value_rows[0]) + gap + len(mod_rows[0])
        card_w = max(inner + 4, 30)
        card_w = min(card_w, max(width, inner))
        base = Style(color=TOP_FG, bgcolor=TOP_BG, bold=True)
        edge = Style(color=ink, bgcolor=TOP_BG, bold=True)
        t = Text(justify="center", no_wrap=True)

        def line(content: Text | str, style: Style = base) -> None:
            body = content if isinstance(content, Text) else Text(content, style=style)
            pad = card_w - 2 - body.cell_len
            left = max(pad // 2, 0)
            t.append("┃", edge)
            t.append(" " * left, base)
            t.append_text(body)
            t.append(" " * max(pad - left, 0), base)
            t.append("┃", edge)
            t.append("\n")

        title = " " + _("top card #%(n)d") % {"n": self.top_no} + " "
        rule = card_w - 2 - len(title)
        t.append("┏" + "━" * (rule // 2), edge)
        t.append(title, Style(color=TOP_FG, bgcolor=TOP_BG, bold=True))
        t.append("━" * (rule - rule // 2) + "┓\n", edge)
        tall = self.size.height >= BIG_HEIGHT + 6
        if tall:
            line("")
        for v, m in zip(value_rows, mod_rows, strict=True):
            row = Text()
            row.append(v, base)
            row.append(" " * gap, base)
            row.append(m, Style(color=ink, bgcolor=TOP_BG, bold=True))
            line(row)
        line("")
        words = Text()
        words.append(f"{face.value}", base)
        words.append("  ", base)
        words.append(f"{mod_label(face.mod)} {_(MOD_WORD[face.mod])}", Style(color=ink, bgcolor=TOP_BG, bold=True))
        line(words)
        t.append("┗" + "━" * (card_w - 2) + "┛", edge)
        under = ngettext("discard pile: %(n)d card", "discard pile: %(n)d cards", self.discard) % {
            "n": self.discard}
        t.append("\n" + under, Style(dim=True))
        if self.hint:
            t.append("\n" + self.hint, Style(bold=True))
        return t


class HVCountdown(Widget):
    """The shared countdown, big: 3, 2, 1 (empty otherwise)."""

    DEFAULT_CSS = """
    HVCountdown { width: 1fr; height: 1fr; content-align: center middle; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.number: int | None = None
        self.caption = ""

    def show(self, number: int | None, caption: str = "") -> None:
        if (number, caption) != (self.number, self.caption):
            self.number, self.caption = number, caption
            self.refresh()

    def render(self) -> Text:
        t = Text(no_wrap=True)
        rows = big(str(self.number)) if self.number is not None else []
        words = self.caption.splitlines()
        width = max([len(r) for r in rows] + [len(w) for w in words] + [1])
        for row in rows:
            left = (width - len(row)) // 2
            t.append(" " * left + row + " " * (width - len(row) - left) + "\n", Style(color=COUNT_INK, bold=True))
        for i, w in enumerate(words):
            left = (width - len(w)) // 2
            padded = " " * left + w + " " * (width - len(w) - left)
            t.append(("\n" if i else "") + padded, Style(bold=i == len(words) - 1))
        return t
