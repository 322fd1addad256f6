"""The match log: what happened, in words, newest first."""

from __future__ import annotations

from rich.text import Text
from textual.containers import VerticalScroll
from textual.widgets import Static

from ..text import LOG_MARK, classify_log, safe

SHOWN = 200  # the newest lines kept on screen

STYLE = {"score": "bold", "flip": "bold", "end": "bold reverse", "transformer": "", "plain": ""}


class MatchLog(VerticalScroll, can_focus=False):
    """Not focusable: the arrow keys belong to the game, the mouse wheel scrolls the log."""

    DEFAULT_CSS = """
    MatchLog { scrollbar-size-vertical: 1; }
    MatchLog > Static { width: 1fr; }
    """

    def __init__(self, id: str = "log") -> None:
        super().__init__(id=id)
        self.body = Static("", id="log-body")
        self.lines: list[str] = []

    def compose(self):
        yield self.body

    def show(self, lines: list[str]) -> None:
        if lines == self.lines:
            return
        self.lines = list(lines)
        t = Text()
        newest = list(reversed(lines[-SHOWN:]))
        for i, line in enumerate(newest):
            kind = classify_log(line)
            if i:
                t.append("\n")
            style = STYLE[kind] + ("" if i < 3 else " dim")
            t.append(f"{LOG_MARK[kind]} ", style=style)
            t.append(safe(line), style=style)
        self.body.update(t)
        self.scroll_home(animate=False)
