"""The top bar: both score tracks (0 to 4), whose turn it is, and the turn number.

In a match with a clock, each player's remaining time follows their score
(``alice ●●○○ 4:32``), red under :data:`LOW_MS`; a match without one shows no
clock at all (so an offline match's bar is as it always was).

When the bar is too narrow for both names whole, the names are shortened (each
ending in "…"), never the scores or the turn number, which the right edge would
otherwise cut ("tu").
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text

from tui.text import fit_words, name_text, safe, score_track
from tui.widgets.lines import TextLines

# What the top bar last drew: names, scores, me, to move, turn, flash, width, clocks.
_Clocks = tuple[tuple[str, bool], tuple[str, bool]]
_Shown = tuple[tuple[str, str], tuple[int, int], int, int | None, int, int | None, int, _Clocks | None]
LOW_MS = 30_000  # a bank under this shows red


class TopBar(TextLines):
    _shown: _Shown | None = None

    def show(
        self,
        names: tuple[str, str],
        scores: tuple[int, int],
        me: int,
        to_move: int | None,
        turn: int,
        *,
        flash: int | None = None,
        clocks: tuple[tuple[str, bool], tuple[str, bool]] | None = None,
        now: bool = False,
    ) -> None:
        """``clocks``: per seat, the time shown ("4:32") and whether it is low (None: no clock).
        ``now``: written at once, outside the next frame (a clock's tick: :meth:`LineWidget.repaint`)."""
        wide = self.size.width >= 110
        key = (names, scores, me, to_move, turn, flash, self.size.width, clocks)
        if key == getattr(self, "_shown", None):
            return
        self._shown = key
        opp = 1 - me
        width = self.size.width
        for cap in (24, 16, 12, 8, 4):
            t = self._text(names, scores, me, opp, to_move, turn, flash, wide, cap, clocks)
            if width <= 0 or cell_len(t.plain) <= width:
                break
        self.set_text(t, now=now)

    def _text(self, names, scores, me, opp, to_move, turn, flash, wide, cap, clocks=None) -> Text:  # noqa: ANN001
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(" VOLTAGE ", style="bold reverse")
        for seat, arrow in ((opp, "▲"), (me, "▼")):
            t.append("   ")
            style = "bold reverse" if flash == seat else "bold"
            t.append(f"{arrow} ", style="bold")
            t.append_text(name_text(fit_words(safe(names[seat]), cap), style))
            t.append(" ")
            t.append_text(score_track(scores[seat], wide=wide))
            if clocks is not None:
                shown, low = clocks[seat]
                style = "bold red" if low else ("bold" if to_move == seat else "dim")
                t.append(f" {shown}", style=style)
            if to_move == seat:
                t.append(" ◀", style="bold")
        t.append(f"   turn {turn}", style="dim")
        return t

    def on_resize(self) -> None:
        shown = getattr(self, "_shown", None)
        if shown is not None:
            names, scores, me, to_move, turn, flash, _, clocks = shown
            self._shown = None
            self.show(names, scores, me, to_move, turn, flash=flash, clocks=clocks)
        super().on_resize()
