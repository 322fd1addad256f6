"""The piles, painted as one widget: the draw pile (count, and a V when its top card is a
transformer) and the discard pile (its top card and count).

Each line is the longest of its forms that fits the box ("V: a transformer on
top", "transformer on top", "V on top"), never a form cut mid-word.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.message import Message

from engine.voltage.cards import Card
from tui.games.voltage.words import card_name
from tui.i18n import _, ngettext, pgettext, translations
from tui.text import Forms, back, chip, fit_forms
from tui.widgets.lines import LineWidget, Palette, Row, box, fit, text_rows


def transformer_on_top() -> Forms:
    """The draw pile's note when its top card is a transformer, longest form first."""
    return Forms(_("V: a transformer on top"), _("V: transformer on top"), _("transformer on top"), _("V on top"),
                 "V")


class Piles(LineWidget):
    """Posts :class:`Piles.DrawClicked` when the draw pile is clicked (it draws: two at
    the start of a turn; one, ending it, after a first card)."""

    DEFAULT_CSS = """
    Piles { width: 24; height: 4; }
    """

    class DrawClicked(Message):
        pass

    def __init__(self, id: str = "piles") -> None:
        super().__init__(id=id)
        self.draw: tuple[int, bool, str] = (0, False, "")
        self.discard: tuple[int, Card | None] = (0, None)
        self._pictures: list[tuple[tuple, list[Row]]] = []  # (what was drawn, its rows): the last two

    def show(self, draw: tuple[int, bool, str], discard: tuple[int, Card | None]) -> None:
        """``draw``: (count, top is a transformer, the draw action's label or "");
        ``discard``: (count, top card)."""
        if (draw, discard) == (self.draw, self.discard):
            return
        self.draw, self.discard = draw, discard
        self.repaint()

    def _widths(self, width: int) -> tuple[int, int]:
        wide = width >= 40
        return (20, 20) if wide else (11, 13)

    def paint(self, width: int, height: int) -> list[Row]:
        # the last two pictures kept: a card chosen takes the draw pile's key away, Esc gives it back
        pal = self.palette()
        key = (self.draw, self.discard, width, height, pal.bg, pal.fg, translations())
        for known in self._pictures:
            if known[0] == key:
                return known[1]
        rows = self._paint(width, height, pal)
        self._pictures = [(key, rows), *self._pictures[:1]]
        return rows

    def _paint(self, width: int, height: int, pal: Palette) -> list[Row]:
        dw, cw = self._widths(width)
        wide = dw >= 18
        h = min(height, 5 if height >= 6 else 4)
        inner_h = h - 2
        # the draw pile
        count, top_transformer, action = self.draw
        t = Text(no_wrap=True)
        t.append_text(back(top_transformer) if count else Text("  ", style="dim"))
        if wide:  # the count in bold, its word beside it as the language puts it
            before, _n, after = ngettext("%(n)d card", "%(n)d cards", count).partition("%(n)d")
            t.append(f" {before}{count}", style="bold")
            t.append(after)
        else:
            t.append(f" {count}", style="bold")
        t.append("\n")
        if top_transformer:
            t.append(fit_forms(transformer_on_top(), dw - 2), style="bold")
        line = pal.style(pal.fg if action else pal.mix(0.4))
        draw = box(
            _inner(t, dw - 2, inner_h),
            dw,
            kind="heavy" if action else "round",
            line=line,
            title=[Segment(pgettext("pile", "draw"), line)],
            subtitle=[Segment("space", pal.style(bold=True, reverse=True))] if action else (),
            align="split",
        )
        # the discard pile
        count, top = self.discard
        t = Text(no_wrap=True)
        if top is None:
            t.append(" —", style="dim")
        else:
            t.append_text(chip(top))
            if wide:
                t.append(f" {card_name(top)}", style="dim")
        t.append("\n")
        cards = ngettext("%(n)d card", "%(n)d cards", count) % {"n": count}
        t.append(f" {cards}", style="bold" if count else "dim")  # under the top's value
        line = pal.style(pal.mix(0.4))
        discard = box(
            _inner(t, cw - 2, inner_h), cw, kind="round", line=line, title=[Segment(pgettext("pile", "discard"), line)],
            align="split",
        )
        return [draw[y] + discard[y] for y in range(h)]

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if event.x < self._widths(self.size.width)[0]:
            self.post_message(self.DrawClicked())


def _inner(text: Text, width: int, height: int) -> list[Row]:
    rows = [fit(r, width) for r in text_rows(text)[:height]]
    return rows + [[Segment(" " * width)] for _ in range(height - len(rows))]
