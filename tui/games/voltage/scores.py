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
from rich.segment import Segment
from rich.text import Text
from textual.strip import Strip

from tui.i18n import _
from tui.text import fit_words, name_text, safe, score_track
from tui.widgets.lines import Row, TextLines, text_rows

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
        width = self.size.width
        wide = width >= 110
        key = (names, scores, me, to_move, turn, flash, width, clocks)
        before = self._shown
        if key == before:
            return
        self._shown = key
        if now and clocks is not None and before is not None and before[:7] == key[:7]:  # only the clocks
            if self._tick(before[7], clocks):
                return
        opp = 1 - me
        for cap in (24, 16, 12, 8, 4):
            t = self._text(names, scores, me, opp, to_move, turn, flash, wide, cap, clocks)
            if width <= 0 or cell_len(t.plain) <= width:
                break
        self._cap = cap
        # where each clock's text sits on the row, in cells: a tick rewrites only those
        self._clock_cells = [(seat, cell_len(t.plain[:a]), cell_len(t.plain[:b])) for seat, a, b in self._clock_at]
        self._stale = False
        self.set_text(t, now=now)

    # -- a tick: only the clocks' digits changed ------------------------------------

    _cap = 24
    _clock_at: list[tuple[int, int, int]] = []  # per clock: seat, first and end character
    _clock_cells: list[tuple[int, int, int]] = []  # the same in cells
    _stale = False  # the row on screen was made by a tick: the text and rows are made again when asked
    _clock_seg: tuple[Strip, tuple[int, int]] | None = None  # the row a tick made, and its clocks' segments

    def _tick(self, previous: _Clocks | None, clocks: _Clocks) -> bool:
        """The row as drawn (with the ``previous`` clocks), with the clocks' text swapped in
        place (same lengths, same styles), painted now: no text, no segments of the rest
        made again.  False when the row cannot be made so (a length or a colour changed):
        the caller draws it whole."""
        size = self.size
        strips, width, cells = self._strips, size.width, self._clock_cells
        if (len(strips) != 1 or strips[0].cell_length != width or len(cells) != 2 or previous is None
                or self._painted_size != tuple(size)):
            return False
        if any(previous[seat][1] != clocks[seat][1] for seat in (0, 1)):
            return False  # low time turns a bank red: its style changes
        texts = [f" {clocks[seat][0]}" for seat, _, _ in cells]
        if any(len(text) != b - a for text, (_, a, b) in zip(texts, cells, strict=True)):
            return False
        segments = list(strips[0])
        known = self._clock_seg
        at = known[1] if known is not None and known[0] is strips[0] else self._clock_segments(segments)
        if at is None:
            return False
        changed: list[tuple[int, str]] = []
        for i, text, (_seat, a, _b) in zip(at, texts, cells, strict=True):
            old = segments[i]
            if old.text != text:
                segments[i] = Segment(text, old.style)
                changed.append((a, text))
        strip = Strip(segments, width)
        self._strips = [strip]
        self._clock_seg = (strip, at)  # (the next tick's segments are where this one's were)
        self._raw = []  # the next repaint paints the row afresh
        self._stale = True
        self.text = Text()
        for a, text in changed:  # the running clock's cells, nothing else
            self.paint_chars(a, 0, text)
        return True

    def _clock_segments(self, segments: list[Segment]) -> tuple[int, int] | None:
        """Which of the drawn row's segments are the two clocks' (each exactly one segment,
        where the text put it); None when they are not."""
        at: list[int] = []
        x = 0
        wanted = [(a, b) for _, a, b in self._clock_cells]
        for i, seg in enumerate(segments):
            n = seg.cell_length
            if wanted and x == wanted[0][0]:
                if x + n != wanted[0][1]:
                    return None
                at.append(i)
                wanted.pop(0)
            x += n
        return (at[0], at[1]) if len(at) == 2 and not wanted else None

    def _fresh_text(self) -> Text:
        shown = self._shown
        assert shown is not None
        names, scores, me, to_move, turn, flash, width, clocks = shown
        return self._text(names, scores, me, 1 - me, to_move, turn, flash, width >= 110, self._cap, clocks)

    def render(self) -> Text:
        if self._stale:
            self._stale = False
            self.text = self._fresh_text()
            self._text_rows = text_rows(self.text)
        return self.text

    def paint(self, width: int, height: int) -> list[Row]:
        if self._stale:
            self.render()
        return self._text_rows

    def _text(self, names, scores, me, opp, to_move, turn, flash, wide, cap, clocks=None) -> Text:  # noqa: ANN001
        self._clock_at = []
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
                self._clock_at.append((seat, len(t), len(t) + 1 + len(shown)))
                t.append(f" {shown}", style=style)
            if to_move == seat:
                t.append(" ◀", style="bold")
        t.append("   " + _("turn %(n)d") % {"n": turn}, style="dim")
        return t

    def on_resize(self) -> None:
        shown = getattr(self, "_shown", None)
        if shown is not None:
            names, scores, me, to_move, turn, flash, _width, clocks = shown
            self._shown = None
            self.show(names, scores, me, to_move, turn, flash=flash, clocks=clocks)
        super().on_resize()
