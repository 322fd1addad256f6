"""Hands: the player's own cards (faces, keyed 1-6) and the opponent's backs."""

from __future__ import annotations

from rich.text import Text
from textual.containers import Horizontal
from textual.widgets import Static

from engine.cards import Card

from ..text import BACK_BG, BACK_FG, backs, name_text
from .card import HandCard

SLOTS = 6


class HandView(Horizontal):
    """Up to six cards.  A concealed hand (hot-seat, between turns) shows only backs."""

    def __init__(self, id: str = "hand") -> None:
        super().__init__(id=id)
        self.cards = [HandCard(i) for i in range(SLOTS)]

    def compose(self):
        yield from self.cards

    def show_faces(
        self,
        hand: tuple[Card, ...],
        *,
        keys: dict[int, str],
        selected: int | None,
        cursor: int | None,
    ) -> None:
        for i, w in enumerate(self.cards):
            if i < len(hand):
                w.show(
                    hand[i],
                    key=keys.get(i, ""),
                    playable=i in keys or i == selected,
                    selected=i == selected,
                    cursor=i == cursor,
                )
            else:
                w.show(None)

    def show_backs(self, flags: tuple[bool, ...]) -> None:
        for i, w in enumerate(self.cards):
            if i < len(flags):
                w.show(None, back=True, transformer=flags[i])
            else:
                w.show(None)


class OpponentHand(Static):
    """The opponent's name and hand as card backs (transformer backs show their V)."""

    def show(self, name: str, flags: tuple[bool, ...], *, to_move: bool) -> None:
        tall = self.size.height >= 3
        if (name, flags, to_move, tall) == getattr(self, "_shown", None):
            return
        self._shown = (name, flags, to_move, tall)
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append("▲ ", style="bold")
        t.append_text(name_text(name, "bold"))
        if to_move:
            t.append("  ◀ to move", style="bold reverse")
        count = f"{len(flags)} card{'s' if len(flags) != 1 else ''}"
        if tall:  # card backs two lines tall
            t.append(f"  {count}", style="dim")
            style = f"bold {BACK_FG} on {BACK_BG}"
            for row in (0, 1):
                t.append("\n")
                for i, tr in enumerate(flags):
                    if i:
                        t.append(" ")
                    t.append(("▒V▒" if tr and row == 0 else "▒▒▒"), style=style)
        else:
            t.append("\n")
            t.append_text(backs(flags))
            t.append(f"  {count}", style="dim")
        self.update(t, layout=False)
