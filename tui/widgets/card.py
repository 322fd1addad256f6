"""A card in a hand: a small box with its key, value, colour letter and transformer mark."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.message import Message
from textual.widget import Widget

from engine.cards import Card

from .util import flag_classes
from ..text import BACK_BG, BACK_FG, CARD_BG, CARD_FG, SPECIAL_BG, SPECIAL_FG, TRANSFORMER_MARK, card_lines


class HandCard(Widget):
    """One hand slot.  Shows a face, a back (hidden or the opponent's), or nothing."""

    DEFAULT_CSS = """
    HandCard {
        width: 8;
        height: 4;
        border: round $foreground 60%;
        border-title-align: left;
        border-subtitle-align: right;
        margin: 0 1 0 0;
    }
    HandCard.-empty { border: blank; }
    """

    class Clicked(Message):
        def __init__(self, slot: int) -> None:
            super().__init__()
            self.slot = slot

    def __init__(self, slot: int) -> None:
        super().__init__(classes="-empty")
        self.slot = slot
        self.card: Card | None = None
        self.is_back = False
        self.transformer = False
        self.key = ""
        self._shown: tuple | None = None
        self._colours: tuple[str, str] = ("", "")

    def show(
        self,
        card: Card | None,
        *,
        back: bool = False,
        transformer: bool = False,
        key: str = "",
        playable: bool = False,
        selected: bool = False,
        cursor: bool = False,
    ) -> None:
        key_ = (card, back, transformer, key, playable, selected, cursor)
        if key_ == self._shown:
            return
        self._shown = key_
        self.card = card
        self.is_back = back
        self.transformer = card.transformer if card is not None else transformer
        self.key = key
        flag_classes(
            self,
            {
                "-empty": card is None and not back,
                "-back": back,
                "-playable": playable,
                "-idle": card is not None and not playable,
                "-selected": selected,
                "-cursor": cursor,
            },
        )
        if back:
            colours = (BACK_BG, BACK_FG)
        elif card is not None:
            colours = (SPECIAL_BG, SPECIAL_FG) if card.special else (CARD_BG[card.colour], CARD_FG[card.colour])
        else:  # an empty slot keeps its place (no relayout), drawn as nothing
            colours = ("transparent", "transparent")
        if colours != self._colours:
            self._colours = colours
            self.styles.background, self.styles.color = colours
        mark = ("▶" if cursor else "") + key
        self.border_title = Text(mark, style="bold") if mark else None
        self.border_subtitle = Text(TRANSFORMER_MARK, style="bold") if self.transformer else None
        self.refresh()

    def render(self) -> Text:
        card = self.card
        lines = max(1, self.size.height)
        width = max(1, self.size.width)
        if self.is_back:
            return Text("\n".join(["▒" * width] * lines))
        if card is None:
            return Text("")
        face = Card(card.face)  # the transformer mark is on the border
        rows = card_lines(face, width, min(lines, 3))
        if lines >= 4:  # room: a blank line between the corner and the name
            rows = [rows[0], Text(""), rows[1], rows[2]] if len(rows) == 3 else rows
        out = Text(no_wrap=True)
        for i, r in enumerate(rows):
            if i:
                out.append("\n")
            r.stylize("bold")
            out.append_text(r)
        return out

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if self.card is not None:
            self.post_message(self.Clicked(self.slot))
