"""The match log: what happened, in words, newest first.

A line-API scroll view: each entry is wrapped once to the width and its lines
kept (keyed by the entry, its emphasis and the width), and only the lines in
view are drawn.  A new entry costs one entry's wrap, and neither a relayout of
the screen nor a redraw of the other 199 entries.  It draws exactly what a
``Static`` of all the entries inside a ``VerticalScroll`` drew before.
"""

from __future__ import annotations

from rich.style import Style as RichStyle
from rich.segment import Segment
from rich.text import Text
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip
from textual.visual import Visual, visualize

from ..text import LOG_MARK, classify_log, safe

SHOWN = 200  # the newest lines kept on screen

STYLE = {"score": "bold", "flip": "bold", "end": "bold reverse", "transformer": "", "plain": ""}
EMPHASISED = 3  # the newest entries are drawn in full strength, the rest dim


class MatchLog(ScrollView, can_focus=False):
    """Not focusable: the arrow keys belong to the game, the mouse wheel scrolls the log."""

    DEFAULT_CSS = """
    MatchLog { width: 1fr; height: 1fr; overflow-x: hidden; overflow-y: auto; scrollbar-size-vertical: 1; }
    """

    def __init__(self, id: str = "log") -> None:
        super().__init__(id=id)
        self.lines: list[str] = []
        self._entries: list[tuple[str, bool]] = []  # newest first: (line, emphasised)
        self._wrapped: dict[tuple[str, bool, int], list[Strip]] = {}  # (line, emphasised, width) -> strips
        self._rows: list[tuple[tuple[str, bool, int], int, int]] = []  # every wrapped line, top to bottom
        self._shifted: dict[tuple[tuple[str, bool, int], int, int], Strip] = {}
        self._width = 0
        self._style_key: object = None
        self._pad: tuple[object, RichStyle] = (object(), RichStyle())

    def show(self, lines: list[str]) -> None:
        if lines == self.lines:
            return
        self.lines = list(lines)
        newest = list(reversed(lines[-SHOWN:]))
        self._entries = [(line, i < EMPHASISED) for i, line in enumerate(newest)]
        self._relayout()
        self.scroll_home(animate=False)

    # -- wrapping --------------------------------------------------------------

    def _entry_strips(self, line: str, emphasised: bool, width: int) -> list[Strip]:
        key = (line, emphasised, width)
        strips = self._wrapped.get(key)
        if strips is None:
            kind = classify_log(line)
            style = STYLE[kind] + ("" if emphasised else " dim")
            t = Text()
            t.append(f"{LOG_MARK[kind]} ", style=style)
            t.append(safe(line), style=style)
            visual = visualize(self, t)
            strips = Visual.to_strips(self, visual, width, None, self.visual_style)
            self._wrapped[key] = strips
        return strips

    def _wrap_all(self, width: int) -> list[tuple[tuple[str, bool, int], int, int]]:
        """Each wrapped line as (its entry's key, its line within the entry, the entry's index)."""
        rows: list[tuple[tuple[str, bool, int], int, int]] = []
        for i, (line, emphasised) in enumerate(self._entries):
            key = (line, emphasised, width)
            n = len(self._entry_strips(line, emphasised, width))
            rows.extend((key, j, i) for j in range(n))
        return rows

    def _row_strip(self, row: tuple[tuple[str, bool, int], int, int]) -> Strip:
        """A wrapped line, its selection offsets naming the entry's line in the whole log
        (as one ``Static`` of every entry numbers them)."""
        key, j, i = row
        strip = self._wrapped[key][j]
        if i == 0:
            return strip
        shifted = self._shifted.get((key, j, i))
        if shifted is None:
            segments = []
            for text, style, control in strip:
                if style is not None and style._meta:
                    offset = style.meta.get("offset")
                    if offset is not None:
                        style = style + RichStyle.from_meta({"offset": (offset[0], i)})
                segments.append(Segment(text, style, control))
            shifted = Strip(segments, strip.cell_length)
            if len(self._shifted) > 1000:
                self._shifted.clear()
            self._shifted[(key, j, i)] = shifted
        return shifted

    def _relayout(self) -> None:
        """Wrap the entries to the width left beside the scroll bar, if one is needed."""
        style_key = (self.visual_style, self.styles.scrollbar_size_vertical)
        if style_key != self._style_key:
            self._style_key = style_key
            self._wrapped.clear()
            self._shifted.clear()
        width = self.size.width  # the scroll bar's column included
        if width <= 0:
            self._rows = []
            return
        rows = self._wrap_all(width)
        bar = self.styles.scrollbar_size_vertical
        if len(rows) > self.size.height and bar and width > bar:
            width -= bar
            rows = self._wrap_all(width)
        if len(self._wrapped) > 4 * SHOWN:  # forget entries no longer shown (and old widths)
            keep = {(line, emphasised, width) for line, emphasised in self._entries}
            self._wrapped = {k: v for k, v in self._wrapped.items() if k in keep}
            self._shifted.clear()
        self._rows = rows
        self._width = width
        size = Size(width, len(rows))
        if size == self.virtual_size:
            self.refresh()
            return
        show_bar = len(rows) > self.container_size.height
        if self.is_mounted and self.container_size and show_bar == self.show_vertical_scrollbar:
            # The scroll bar stays (or stays away): no relayout of the screen, only
            # the bar's proportions and this widget's lines.
            self.set_reactive(ScrollView.virtual_size, size)
            self._scroll_update(size)
            self.refresh()
        else:
            self.virtual_size = size
            self.refresh()

    def on_resize(self) -> None:
        self._relayout()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted:
            self._relayout()

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The selected text (offsets number the entries newest first, as drawn)."""
        text = "\n".join(f"{LOG_MARK[classify_log(line)]} {safe(line)}" for line, _ in self._entries)
        return selection.extract(text), "\n"

    # -- drawing ---------------------------------------------------------------

    def _pad_style(self) -> RichStyle:
        """The background alone: what the room right of (and below) the text is drawn with."""
        bgcolor = self.visual_style.rich_style.bgcolor
        if self._pad[0] != bgcolor:
            self._pad = (bgcolor, RichStyle(bgcolor=bgcolor))
        return self._pad[1]

    def render_line(self, y: int) -> Strip:
        _, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        rich_style = self._pad_style()
        index = scroll_y + y
        if 0 <= index < len(self._rows):
            return self._row_strip(self._rows[index]).crop_extend(0, width, rich_style)
        return Strip.blank(width, rich_style)
