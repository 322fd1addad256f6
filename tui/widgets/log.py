"""The match log: what happened, in words, newest first.

A painted line widget (see :mod:`.lines`): each entry is wrapped once to the
width and its rows kept, so a new entry costs one entry's wrap.  The newest
entries are at the top; the mouse wheel scrolls to older ones, and the last row
says how many more lines lie below.  No scroll view: on a server drawing many
screens, its scroll bar and relayouts cost more than the log itself.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual import events

from tui.i18n import ngettext
from tui.text import LOG_MARK, classify_log, safe
from tui.widgets.lines import _CONSOLE, LineWidget, Row, text_rows

SHOWN = 200  # the newest lines kept
EMPHASISED = 3  # the newest entries are drawn in full strength, the rest dim
DIMMED_KEPT = 64  # entries kept dimmed (drawn ones; more are made again when scrolled to)

STYLE = {"score": "bold", "flip": "bold", "end": "bold reverse", "transformer": "", "plain": ""}
DIM_INK = 0.66  # a dim line's ink: this much of the theme's foreground over its background


class MatchLog(LineWidget, can_focus=False):
    """Not focusable: the arrow keys belong to the game, the mouse wheel scrolls the log."""

    DEFAULT_CSS = """
    MatchLog { width: 1fr; height: 1fr; }
    """

    def __init__(self, id: str = "log") -> None:
        super().__init__(id=id)
        self.lines: list[str] = []
        self._entries: list[str] = []  # newest first
        self._wrapped: dict[tuple[str, int], list[Row]] = {}  # (line, width) -> rows
        self._dimmed: dict[tuple, list[Row]] = {}
        self.top = 0  # the first row shown (0: the newest entry's first row)

    def show(self, lines: list[str]) -> None:
        if lines == self.lines:
            return
        self.lines = list(lines)
        self._entries = list(reversed(lines[-SHOWN:]))
        self.top = 0
        self.repaint()

    # -- wrapping ---------------------------------------------------------------

    def _wrap(self, line: str, width: int) -> list[Row]:
        key = (line, width)
        rows = self._wrapped.get(key)
        if rows is None:
            if len(self._wrapped) > 4 * SHOWN:  # forget entries no longer shown (and old widths)
                self._wrapped.clear()
                self._dimmed.clear()
            kind = classify_log(line)
            t = Text(f"{LOG_MARK[kind]} {safe(line)}", style=STYLE[kind])
            rows = []
            for part in t.wrap(_CONSOLE, width, overflow="fold"):
                rows.extend(text_rows(part))
            self._wrapped[key] = rows
        return rows

    def _entry_rows(self, line: str, emphasised: bool, width: int) -> list[Row]:
        rows = self._wrap(line, width)
        if emphasised:
            return rows
        pal = self.palette()
        dkey = (line, width, pal.bg, pal.fg)
        dimmed = self._dimmed.get(dkey)
        if dimmed is None:
            if len(self._dimmed) > DIMMED_KEPT:  # (only what is drawn is dimmed: a screenful or two)
                self._dimmed.clear()
            ink = pal.style(pal.mix(DIM_INK))  # keeps a line's bold, unlike the dim attribute
            dimmed = [[Segment(s.text, (s.style + ink) if s.style else ink) for s in r] for r in rows]
            self._dimmed[dkey] = dimmed
        return dimmed

    def _count(self, width: int) -> int:
        """How many rows every entry wraps to."""
        return sum(len(self._wrap(line, width)) for line in self._entries)

    def _rows(self, width: int, upto: int | None = None) -> list[Row]:
        """Every wrapped row, newest entry first (or the first ``upto`` of them)."""
        rows: list[Row] = []
        for i, line in enumerate(self._entries):
            rows.extend(self._entry_rows(line, i < EMPHASISED, width))
            if upto is not None and len(rows) >= upto:
                break
        return rows

    def paint(self, width: int, height: int) -> list[Row]:
        rows = self._rows(width, self.top + height + 1)
        shown = rows[self.top : self.top + height]
        if len(rows) > self.top + height:  # more below: say so on the last row
            below = self._count(width) - self.top - (height - 1)  # the note takes a row
            pal = self.palette()
            note = "▼ " + ngettext("%(n)d more line", "%(n)d more lines", below) % {"n": below}
            shown[-1] = [Segment(note.rjust(width)[-width:], pal.style(pal.mix(0.6), italic=True))]
        return shown

    # -- scrolling --------------------------------------------------------------

    def _scroll(self, delta: int) -> None:
        width, height = self.size
        most = max(0, self._count(width) - height)
        top = max(0, min(most, self.top + delta))
        if top != self.top:
            self.top = top
            self.repaint()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._scroll(3)

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._scroll(-3)

