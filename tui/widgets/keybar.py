"""The footer: every key that works right now, in one line; click a key to use it.

A lighter stand-in for Textual's ``Footer`` (which rebuilds a widget per key on
every change of the bindings): one ``Static`` redrawn from the screen's active
bindings, with the clicked span mapped back to its action.

An entry is shown whole or not at all: when the line is too narrow, the last
entries are left out rather than one of them cut ("^q qu").

The keys that work all the time, the app's own (quit, rules) and those a screen
names in ``STEADY_KEYS`` (a match's resign), stand at the right end, and the keys
of the moment at the left: choosing a card changes the left ones only, so the
steady ones never move under the player's eyes (and are not written again).

A binding's description (and a group's) is a message marked where the binding is made
(``N_("back")``) and worded here, when drawn, in the session's language: bindings are made
once, at import, for every session.  A screen that changes language asks the bar to draw
again (:meth:`KeyBar.reword`).  When the entries do not all fit, their short forms are tried
first (a language's ``short`` entry for a description, marked ``NP_("short", "back")`` anywhere:
:func:`tui.i18n.short`), and only then are entries left out.
"""

from __future__ import annotations

from itertools import groupby

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.dom import DOMNode

from tui.i18n import _, short
from tui.widgets.lines import TextLines

KEY_STYLE = "bold reverse"

Entry = tuple[str, str, DOMNode, str, bool]  # keys shown, words, namespace, action, clickable


class KeyBar(TextLines):
    DEFAULT_CSS = """
    KeyBar { dock: bottom; height: 1; width: 1fr; background: $panel; color: $text; }
    """

    def __init__(self) -> None:
        super().__init__(id="keybar")
        self._spans: list[tuple[int, int, DOMNode, str]] = []
        self._drawn_from: tuple[int, set[str], list[Entry]] | None = None  # (width, steady keys, entries) last drawn

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

    def entries(self, brief: bool = False) -> list[Entry]:
        """(keys shown, words, namespace, action, clickable) of every shown, enabled binding;
        ``brief``: each description's short form, where the language has one."""
        word = short if brief else _
        seen: dict[str, tuple[Binding, DOMNode]] = {}
        for node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if binding.show and enabled and binding.action not in seen:
                seen[binding.action] = (binding, node)
        out: list[Entry] = []
        for group, grouped in groupby(seen.values(), lambda item: item[0].group):
            items = list(grouped)
            if group is not None and len(items) > 1:
                keys = ("" if group.compact else " ").join(self.app.get_key_display(b) for b, _ in items)
                out.append((keys, word(group.description), items[0][1], items[0][0].action, False))
            else:
                for b, node in items:
                    out.append((self.app.get_key_display(b), word(b.description), node, b.action, True))
        return out

    def reword(self) -> None:
        """The session's language changed: the words again."""
        self.redraw()

    def redraw(self) -> None:
        width = self.size.width
        steady = set(getattr(self.screen, "STEADY_KEYS", ()))
        entries = self.entries()
        drawn = (width, steady, entries)  # what the line is made of: the same, the same line
        if drawn == self._drawn_from:
            return
        self._drawn_from = drawn
        if width > 0 and _width(entries) + 2 > width:  # too wide: the short words, where there are any
            entries = self.entries(brief=True)
        right = [e for e in entries if e[2] is self.app or e[3] in steady]
        left = [e for e in entries if e not in right]
        if width > 0 and _width(entries) + 2 > width:  # not all of them: which stay
            if _width(right) * 5 <= width * 3:  # the steady ones keep their place, the others fit
                left = _fit(left, width - 2 - _width(right) - (2 if right else 0))
            else:  # too narrow for that: the first ones, whole
                shown = _fit(entries, width - 2)
                left, right = [e for e in left if e in shown], [e for e in right if e in shown]
        t = Text(" ", no_wrap=True, overflow="ellipsis")
        self._spans = []
        self._append(t, left)
        if right:  # flush right, a margin at each end
            gap = width - 2 - _width(left) - _width(right) if width > 0 else 0
            t.append(" " * max(2 if left else 0, gap))
            self._append(t, right)
        self.set_text(t)

    def _append(self, t: Text, entries: list[Entry]) -> None:
        for i, (keys, words, node, action, clickable) in enumerate(entries):
            if i:
                t.append("  ")
            start = t.cell_len
            t.append(f"{keys}", style=KEY_STYLE)
            t.append(f" {words}")
            if clickable:  # a group's keys each mean something else: no single click
                self._spans.append((start, t.cell_len, node, action))

    async def on_click(self, event: events.Click) -> None:
        for start, end, node, action in self._spans:
            if start <= event.x < end:
                event.stop()
                await self.app.run_action(action, node)
                return


def _width(entries: list[Entry]) -> int:
    """Cells the entries take in a row, two between each."""
    return sum(len(keys) + 1 + len(words) for keys, words, *_ in entries) + 2 * max(0, len(entries) - 1)


def _fit(entries: list[Entry], room: int) -> list[Entry]:
    """The first entries that fit in ``room`` cells, each whole."""
    shown: list[Entry] = []
    for e in entries:
        if _width([*shown, e]) > room:
            break
        shown.append(e)
    return shown
