"""A :class:`~tui.widgets.menu.Menu` over a long list that draws only the rows it shows.

The lobby's Online and Matches lists may hold hundreds of lines, a few of which fit.
:class:`RowMenu` reads its rows from a :class:`RowSource` (a sorted index the screen
keeps up to date) and builds a line only when Textual paints the widget: the rows in
its window, none while it is hidden (the chat in its place, another screen on top).
A change tells it the first row that moved (:meth:`RowMenu.rows_changed`); a change
below its window costs nothing.  The window starts at the top and follows the cursor.
"""

from __future__ import annotations

from typing import Protocol

from rich.text import Text
from textual import events
from textual.geometry import Region

from tui.widgets.menu import Menu


class RowSource(Protocol):
    """The rows of a :class:`RowMenu`, in order."""

    def __len__(self) -> int: ...

    def key(self, n: int) -> str:
        """Row ``n``'s item id (``-...``: a heading, shown, never chosen)."""
        ...

    def line(self, n: int) -> Text:
        """Row ``n`` as shown (built when asked)."""
        ...

    def index(self, item: str) -> int | None:
        """Where ``item`` is (None: not listed)."""
        ...


class _NoRows:
    def __len__(self) -> int:
        return 0

    def key(self, n: int) -> str:
        raise IndexError(n)

    def line(self, n: int) -> Text:
        raise IndexError(n)

    def index(self, item: str) -> int | None:
        return None


class RowMenu(Menu):
    """A :class:`Menu` whose items come from a :class:`RowSource`, drawn a window at a time."""

    def __init__(self, source: RowSource | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.source: RowSource = source if source is not None else _NoRows()
        self.top = 0  # the first row shown
        self._item: str | None = None  # the id under the cursor
        self.renders = 0  # times Textual asked for its lines (what a test counts)

    # -- the rows ---------------------------------------------------------------

    def set_source(self, source: RowSource) -> None:
        self.source = source
        self.rows_changed(0)

    def rows_changed(self, first: int) -> None:
        """Rows from ``first`` on may have changed (arrived, gone, reworded): the cursor stays
        on its item, and the rows of its window from the first that changed (or the cursor's, if it
        moved) down are painted again; none when all of them are below its window."""
        top, index = self.top, self.index
        self._place()
        height = self._height()
        start = min(first, index, self.index) if index != self.index else first
        if start >= self.top + height:
            return
        if self.top != top or start <= self.top:
            self.refresh()  # (the window moved, or all of it changed)
            return
        self.refresh(Region(0, start - self.top, self.content_size.width, height - (start - self.top)))

    def _height(self) -> int:
        return max(1, self.content_size.height)

    def _place(self) -> None:
        """The cursor back on its item (or near where it was), off headings; the window on it."""
        n = len(self.source)
        where = self.source.index(self._item) if self._item is not None else None
        if where is None:
            where = min(self.index, max(0, n - 1))
        self.index = where
        self._settle(1)
        self._item = self.source.key(self.index) if n else None
        self._follow()

    def _follow(self) -> None:
        height = self.content_size.height
        if height <= 0:
            return  # (hidden, or not laid out yet: placed when it is painted)
        if self.index < self.top:
            self.top = self.index
        elif self.index >= self.top + height:
            self.top = self.index - height + 1
        self.top = max(0, min(self.top, max(0, len(self.source) - 1)))

    # -- Menu, over the source ------------------------------------------------------

    def set_items(self, items: list[tuple[str, Text]], *, keep_place: bool = True) -> None:
        raise TypeError("a RowMenu's rows come from its source (set_source)")

    def _selectable(self) -> list[int]:
        # (only near the cursor: a long list has at most a heading or two)
        return [n for n in range(len(self.source)) if not self.heading(self.source.key(n))]

    def _settle(self, direction: int) -> None:
        n = len(self.source)
        if not n or not self.heading(self.source.key(self.index)):
            return
        for step in (direction, -direction):
            at = self.index + step
            while 0 <= at < n:
                if not self.heading(self.source.key(at)):
                    self.index = at
                    return
                at += step

    def _draw(self) -> None:
        self.refresh()

    def render(self) -> Text:
        self.renders += 1
        n = len(self.source)
        if not n:
            return Text(self.empty_text, style="dim")
        self._follow()
        out = Text(no_wrap=True, overflow="ellipsis")
        for row in range(self.top, min(n, self.top + self._height())):
            if row > self.top:
                out.append("\n")
            self._append_row(out, self.source.key(row), self.source.line(row), row == self.index)
        return out

    def action_move(self, delta: int) -> None:
        n = len(self.source)
        if not n:
            return
        step = 1 if delta > 0 else -1
        at, last = self.index, self.index
        for _ in range(abs(delta)):
            at += step
            while 0 <= at < n and self.heading(self.source.key(at)):
                at += step
            if not 0 <= at < n:
                break
            last = at
        if self.heading(self.source.key(last)):
            return
        self.index = last
        self._item = self.source.key(last)
        self._follow()
        self.refresh()

    def action_adjust(self, delta: int) -> None:
        pass  # (no row of a long list has a setting)

    def action_choose(self) -> None:
        if len(self.source) and not self.heading(self.source.key(self.index)):
            self.post_message(self.Chosen(self, self.source.key(self.index)))

    def on_click(self, event: events.Click) -> None:
        row = self.top + event.y - self.gutter.top
        if self.top <= row < len(self.source) and not self.heading(self.source.key(row)):
            self.index = row
            self._item = self.source.key(row)
            self.refresh()
            self.action_choose()
