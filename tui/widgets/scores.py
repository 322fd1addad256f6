"""The top bar: both score tracks (0 to 4), whose turn it is, and the turn number."""

from __future__ import annotations

from rich.text import Text

from ..text import name_text, score_track
from .lines import TextLines


class TopBar(TextLines):
    def show(
        self,
        names: tuple[str, str],
        scores: tuple[int, int],
        me: int,
        to_move: int | None,
        turn: int,
        *,
        flash: int | None = None,
    ) -> None:
        wide = self.size.width >= 110
        key = (names, scores, me, to_move, turn, flash, wide)
        if key == getattr(self, "_shown", None):
            return
        self._shown = key
        opp = 1 - me
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(" VOLTAGE ", style="bold reverse")
        for seat, arrow in ((opp, "▲"), (me, "▼")):
            t.append("   ")
            style = "bold reverse" if flash == seat else "bold"
            t.append(f"{arrow} ", style="bold")
            t.append_text(name_text(names[seat][:24], style))
            t.append(" ")
            t.append_text(score_track(scores[seat], wide=wide))
            if to_move == seat:
                t.append(" ◀", style="bold")
        t.append(f"   turn {turn}", style="dim")
        self.set_text(t)
