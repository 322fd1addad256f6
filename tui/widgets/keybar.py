"""The footer: every key that works right now, in one line; click a key to use it.

A lighter stand-in for Textual's ``Footer`` (which rebuilds a widget per key on
every change of the bindings): one ``Static`` redrawn from the screen's active
bindings, with the clicked span mapped back to its action.

An entry is shown whole or not at all: when the line is too narrow, the last
entries are left out rather than one of them cut ("^q qu").
"""

from __future__ import annotations

from itertools import groupby

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.dom import DOMNode

from tui.widgets.lines import TextLines

KEY_STYLE = "bold reverse"


class KeyBar(TextLines):
    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: 1; width: 1fr; background: $panel; color: $text; }
    """

    def __init__(self) -> None:
        super().__init__(id="keybar")
        self._spans: list[tuple[int, int, DOMNode, str]] = []

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self.call_after_refresh(self.redraw)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def on_resize(self) -> None:
        self.redraw()
        super().on_resize()

    def _bindings_changed(self, screen: object) -> None:
        if self.is_attached and screen is self.screen:
            self.redraw()

    def entries(self) -> list[tuple[str, str, DOMNode, str, bool]]:
        """(keys shown, words, namespace, action, clickable) of every shown, enabled binding."""
        seen: dict[str, tuple[Binding, DOMNode]] = {}
        for node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if binding.show and enabled and binding.action not in seen:
                seen[binding.action] = (binding, node)
        out: list[tuple[str, str, DOMNode, str, bool]] = []
        for group, grouped in groupby(seen.values(), lambda item: item[0].group):
            items = list(grouped)
            if group is not None and len(items) > 1:
                keys = ("" if group.compact else " ").join(self.app.get_key_display(b) for b, _ in items)
                out.append((keys, group.description, items[0][1], items[0][0].action, False))
            else:
                for b, node in items:
                    out.append((self.app.get_key_display(b), b.description, node, b.action, True))
        return out

    def redraw(self) -> None:
        t = Text(" ", no_wrap=True, overflow="ellipsis")
        self._spans = []
        width = self.size.width
        for keys, words, node, action, clickable in self.entries():
            start = t.cell_len
            if width > 0 and start + (2 if start > 1 else 0) + len(keys) + 1 + len(words) > width:
                break  # shown whole or not at all
            if t.cell_len > 1:
                t.append("  ")
            t.append(f"{keys}", style=KEY_STYLE)
            t.append(f" {words}")
            if clickable:  # a group's keys each mean something else: no single click
                self._spans.append((start, t.cell_len, node, action))
        self.set_text(t)

    async def on_click(self, event: events.Click) -> None:
        for start, end, node, action in self._spans:
            if start <= event.x < end:
                event.stop()
                await self.app.run_action(action, node)
                return
