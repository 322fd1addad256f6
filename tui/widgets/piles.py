"""The draw pile (count, and a V when its top card is a transformer) and the discard pile."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widgets import Static

from engine.cards import Card

from ..text import back, chip
from .util import flag_classes


class DrawPile(Static):
    """Clickable: draws (two at the start of a turn; one, ending it, after a first card)."""

    class Clicked(Message):
        pass

    def show(self, count: int, top_transformer: bool, action: str) -> None:
        wide = self.size.width >= 18
        if (count, top_transformer, action, wide) == getattr(self, "_shown", None):
            return
        self._shown = (count, top_transformer, action, wide)
        t = Text(no_wrap=True)
        t.append_text(back(top_transformer) if count else Text("  ", style="dim"))
        t.append(f" {count}", style="bold")
        t.append(f" card{'' if count == 1 else 's'}" if wide else "")
        t.append("\n")
        if top_transformer:
            t.append("V on top" if not wide else "V: a transformer on top", style="bold")
        self.border_title = Text("draw")
        self.border_subtitle = Text("space" if action else "", style="bold reverse") if action else None
        flag_classes(self, {"-active": bool(action)})
        self.update(t, layout=False)

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.post_message(self.Clicked())


class DiscardPile(Static):
    def show(self, count: int, top: Card | None) -> None:
        wide = self.size.width >= 18
        if (count, top, wide) == getattr(self, "_shown", None):
            return
        self._shown = (count, top, wide)
        t = Text(no_wrap=True)
        if top is None:
            t.append(" —", style="dim")
        else:
            t.append_text(chip(top))
            if wide:
                t.append(f" {top.name}", style="dim")
        t.append("\n")
        t.append(f"{count} card{'' if count == 1 else 's'}", style="bold" if count else "dim")
        self.border_title = Text("discard")
        self.update(t, layout=False)
