"""A light list of choices (:class:`Menu`), shared by the lobby and the settings screen."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Region
from textual.message import Message
from textual.widgets import Static

from tui.textual_compat import set_border_title


class Menu(Static, can_focus=True):
    """A light list of choices: up/down move, Enter or a click chooses, left/right
    adjust (a choice with a setting, e.g. seats).  An item whose id starts with
    ``-`` is a heading: shown, never chosen.

    (Textual's OptionList does this too, at several times the cost of a first
    frame; on a server every session pays for its lobby.)
    """

    DEFAULT_CSS = """
    Menu { height: 1fr; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
    Menu:focus { border: round $accent-lighten-2; }
    """

    BINDINGS = [
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("home", "move(-1000)", show=False),
        Binding("end", "move(1000)", show=False),
        Binding("enter", "choose", show=False),
        Binding("left", "adjust(-1)", show=False),
        Binding("right", "adjust(1)", show=False),
    ]

    class Adjusted(Message):
        """Left/right on an item: change its setting by ``delta``."""

        def __init__(self, menu: Menu, item: str, delta: int) -> None:
            super().__init__()
            self.menu = menu
            self.item = item
            self.delta = delta

        @property
        def control(self) -> Menu:
            return self.menu

    class Chosen(Message):
        def __init__(self, menu: Menu, item: str) -> None:
            super().__init__()
            self.menu = menu
            self.item = item

        @property
        def control(self) -> Menu:
            return self.menu

    def __init__(self, items: list[tuple[str, Text]] | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[tuple[str, Text]] = list(items or ())
        self.index = 0
        self.empty_text = ""

    def on_mount(self) -> None:
        self._draw()

    def set_title(self, title: str, *, subtitle: bool = False) -> None:
        """The border's title (``subtitle``: its subtitle), its row alone repainted when it changed:
        the rows under it are not rendered again (the lobby's lists count their lines in their
        titles, which change with every arrival; Textual's setter draws the widget whole)."""
        if not set_border_title(self, title, subtitle=subtitle) or not self.is_mounted:
            return
        x, y = self.content_offset
        width, height = self.outer_size
        if height <= 0:
            return
        row = Region(-x, height - 1 - y if subtitle else -y, width, 1)  # (in the content's coordinates)
        paint_soon = getattr(self.app, "paint_soon", None)
        if paint_soon is None or not paint_soon(self, row):
            self.refresh(row)

    @staticmethod
    def heading(item: str) -> bool:
        return item.startswith("-")

    def _selectable(self) -> list[int]:
        return [n for n, (item, _l) in enumerate(self.items) if not self.heading(item)]

    def set_items(self, items: list[tuple[str, Text]], *, keep_place: bool = True) -> None:
        """New items; the cursor stays on the same item (``keep_place``), else goes to the first."""
        if keep_place and items == self.items:
            return  # (the same lines, the cursor where it is: nothing to draw)
        current = self.items[self.index][0] if self.items and keep_place else None
        self.items = list(items)
        ids = [i for i, _ in self.items]
        if current in ids:
            self.index = ids.index(current)
        else:
            self.index = min(self.index, max(0, len(ids) - 1)) if keep_place else 0
        self._settle(1)
        self._draw()

    def _settle(self, direction: int) -> None:
        """Off a heading: to the nearest choice in ``direction`` (else the other way)."""
        ok = self._selectable()
        if not ok or self.index in ok:
            return
        ahead = [n for n in ok if (n - self.index) * direction > 0]
        self.index = min(ahead, key=lambda n: abs(n - self.index)) if ahead else min(
            ok, key=lambda n: abs(n - self.index))

    def _draw(self) -> None:
        if not self.items:
            self.update(Text(self.empty_text, style="dim"), layout=self._sized_by_lines())
            return
        out = Text(no_wrap=True, overflow="ellipsis")
        for n, (item, label) in enumerate(self.items):
            if n:
                out.append("\n")
            self._append_row(out, item, label, n == self.index)
        self.update(out, layout=self._sized_by_lines())

    def _sized_by_lines(self) -> bool:
        """Whether its size follows its lines (an auto width or height): only then does a change of
        them lay the screen out again (a cursor's move, a focus, new items in a list of a fixed size
        are a repaint)."""
        width, height = self.styles.width, self.styles.height  # (None: it fills its container)
        return (width is not None and width.is_auto) or (height is not None and height.is_auto)

    def _append_row(self, out: Text, item: str, label: Text, chosen: bool) -> None:
        """One row of the list onto ``out``: a heading as it is, the chosen row marked, the rest indented."""
        if self.heading(item):
            out.append_text(label)
        elif chosen:
            out.append("> ", style="bold")
            marked = label.copy()
            marked.stylize("bold reverse" if self.has_focus else "bold")
            out.append_text(marked)
        else:
            out.append("  ")
            out.append_text(label)

    def watch_has_focus(self, focus: bool) -> None:
        super().watch_has_focus(focus)  # (Textual's own restyles for :focus)
        self._draw()

    def action_move(self, delta: int) -> None:
        ok = self._selectable()
        if ok:
            pos = ok.index(self.index) if self.index in ok else 0
            self.index = ok[max(0, min(len(ok) - 1, pos + delta))]
            self._draw()

    def action_adjust(self, delta: int) -> None:
        if self.items and not self.heading(self.items[self.index][0]):
            self.post_message(self.Adjusted(self, self.items[self.index][0], delta))

    def action_choose(self) -> None:
        if self.items and not self.heading(self.items[self.index][0]):
            self.post_message(self.Chosen(self, self.items[self.index][0]))

    def on_click(self, event: events.Click) -> None:
        line = event.y - self.gutter.top + self.scroll_offset.y
        if 0 <= line < len(self.items) and not self.heading(self.items[line][0]):
            self.index = line
            self._draw()
            self.action_choose()
