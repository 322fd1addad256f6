"""The prompt line: whose turn it is, the choice pending, a one-line refusal, and buttons."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from ..text import safe
from .util import flag_classes


class ActionButton(Static):
    """A one-line button for the mouse (the same choice has a key in the footer)."""

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


class PromptBar(Horizontal):
    def __init__(self) -> None:
        super().__init__(id="prompt-bar")
        self.text = Static("", id="prompt")
        self._shown: tuple = ()

    def compose(self):
        yield self.text

    def show(self, prompt: str, *, error: str = "", mine: bool = False) -> None:
        if (prompt, error, mine) == self._shown:
            return
        self._shown = (prompt, error, mine)
        t = Text(no_wrap=True, overflow="ellipsis")
        if error:
            t.append(" ✗ ", style="bold reverse")
            t.append(" " + safe(error), style="bold")
        else:
            t.append(" ▶ " if mine else " · ", style="bold reverse" if mine else "bold")
            t.append(" " + safe(prompt), style="bold" if mine else "")
        flag_classes(self, {"-error": bool(error), "-mine": mine and not error})
        self.text.update(t)

    async def set_buttons(self, buttons: list[tuple[str, str]]) -> None:
        """``buttons``: (label, name) pairs, drawn at the right of the line."""
        have = [(b.action_name, b.label) for b in self.query(ActionButton)]
        want = [(n, l) for l, n in buttons]
        if have == want:
            return
        await self.query(ActionButton).remove()
        if buttons:
            await self.mount_all([ActionButton(l, n) for l, n in buttons])
