"""The prompt line: whose turn it is, the choice pending, a one-line refusal, and buttons.

One ``Static`` for the whole line: the buttons are spans of its text (drawn at the
right), so showing or hiding one never re-lays out the screen.

The buttons keep their room; the prompt gets the rest and shows the longest of
its forms that fits (:class:`~tui.text.Forms`), never a sentence cut mid-way
("done, draw …" read as a broken screen).  A refusal is cut, if it must be, at
a word boundary.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

from tui.text import fit_forms, forms_of, safe
from tui.widgets.lines import TextLines

BUTTON_STYLE = "bold reverse"


class ActionButton(Static):
    """A one-line button for the mouse (the same choice has a key in the key bar)."""

    DEFAULT_CSS = """
    ActionButton { width: auto; height: 1; padding: 0 1; margin: 0 0 0 1; text-style: bold; }
    """

    class Pressed(Message):
        def __init__(self, action: str) -> None:
            super().__init__()
            self.action = action

    def __init__(self, label: str, name: str, key: str = "") -> None:
        super().__init__(Text(label), id=f"button-{name}", classes="action-button")
        self.action_name = name
        self.label = label

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Pressed(self.action_name))


class PromptBar(TextLines):
    """Posts :class:`ActionButton.Pressed` when one of its buttons is clicked."""

    DEFAULT_CSS = """
    PromptBar { height: 1; width: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__(id="prompt-bar")
        self._shown: tuple = ()
        self._spans: list[tuple[int, int, str]] = []

    def show(
        self, prompt: str, *, error: str = "", mine: bool = False, buttons: tuple[tuple[str, str], ...] = ()
    ) -> None:
        """``buttons``: (label, name) pairs, drawn at the right of the line."""
        width = max(1, self.size.width)
        key = (prompt, error, mine, buttons, width)
        if key == self._shown:
            return
        self._shown = key
        right = Text(no_wrap=True)
        spans: list[tuple[int, int, str]] = []
        for label, name in buttons:
            right.append(" ")
            start = right.cell_len
            right.append(f" {label} ", style=BUTTON_STYLE)
            spans.append((start, right.cell_len, name))
        left = Text(no_wrap=True, overflow="ellipsis")
        room = max(0, width - right.cell_len - 1)
        words = room - 4  # after the mark and its space
        if error:
            left.append(" ✗ ", style="bold reverse")
            text = fit_forms(tuple(safe(f) for f in forms_of(error)), words)
            left.append(" " + text, style=Style(bold=True, color=self.theme_color("error").rich_color))
        else:
            left.append(" ▶ " if mine else " · ", style="bold reverse" if mine else "bold")
            text = fit_forms(tuple(safe(f) for f in forms_of(prompt)), words)
            left.append(" " + text, style="bold" if mine else "")
        left.truncate(room, overflow="ellipsis", pad=True)
        offset = left.cell_len
        self._spans = [(offset + a, offset + b, name) for a, b, name in spans]
        self.set_text(left + right)

    def on_resize(self) -> None:
        if self._shown:
            prompt, error, mine, buttons, _ = self._shown
            self._shown = ()
            self.show(prompt, error=error, mine=mine, buttons=buttons)

    def on_click(self, event: events.Click) -> None:
        for start, end, name in self._spans:
            if start <= event.x < end:
                event.stop()
                self.post_message(ActionButton.Pressed(name))
                return
