"""The replay's win-chance chart: each move's chance to win for the player who made it, by
the coach's analysis (:mod:`engine.voltage.coach`), across the whole match, mistakes marked.

Four rows, the bottom band of the replay at 80x24 (where the hands and piles are; ``c``
swaps them back): a row of bars per player (``▁``..``█``, that player's chance after each
of their moves, carried until their next one), a row of marks (``✗`` under a mistake, ``▲``
at the step shown), and a line saying what the step shown was worth, or how far the
analysis has come (a progress bar).  A match longer than the chart is wide shares each
column among a few steps (its bar: the last move of that player there; its mark: any
mistake there).

:class:`AnalysisSource` is what a replay offers when the coach can analyse it (the
server's ``server.coach.ReplayAnalysis``): the analysis made before, or one made now.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from rich.segment import Segment

from engine.voltage.coach import Move
from tui.games.voltage import words as W
from tui.text import plain
from tui.widgets.lines import LineWidget, Row, fit, text_cells

BARS = " ▁▂▃▄▅▆▇█"
LABEL = 7  # the players' names before their rows


class AnalysisSource(Protocol):
    """A finished match's analysis, from the coach: ``stored()`` if made before, else
    ``run(progress)`` makes it (``progress(done, total)`` as it goes; raises a
    :class:`tui.ports.Refused` saying why not, ``analysis_busy``)."""

    def stored(self) -> Sequence[Move] | None: ...

    async def run(self, progress: Callable[[int, int], None]) -> Sequence[Move]: ...


def bar(chance: float) -> str:
    """One cell's bar for a chance (0..1)."""
    return BARS[max(0, min(8, round(chance * 8)))] if chance > 0 else BARS[1] if chance == 0 else " "


def columns(last: int, width: int) -> list[tuple[int, int]]:
    """The steps each column covers, ``(first, last)`` inclusive, for moves 1..``last``."""
    if last <= 0 or width <= 0:
        return []
    n = min(last, width)
    return [(j * last // n + 1, (j + 1) * last // n) for j in range(n)]


def rows_of(moves: Sequence[Move], last: int, width: int, step: int) -> tuple[list[str], str]:
    """Each seat's bars and the mark row, ``width`` cells of chart each."""
    cols = columns(last, width)
    by_step = {m.step: m for m in moves}
    seats: list[list[str]] = [[], []]
    marks: list[str] = []
    latest: list[float | None] = [None, None]
    for first, end in cols:
        mistake = False
        for s in range(first, end + 1):
            m = by_step.get(s)
            if m is not None and m.seat in (0, 1):
                latest[m.seat] = m.chance
                mistake = mistake or m.mistake
        for seat in (0, 1):
            value = latest[seat]
            seats[seat].append(" " if value is None else bar(value))
        here = first <= step <= end
        marks.append("▲" if here else "✗" if mistake else " ")
    return ["".join(r) for r in seats], "".join(marks)


class WinChart(LineWidget):
    """The chart (see the module docstring): :meth:`show` with the moves (None: not yet),
    the step shown, and the line under it."""

    DEFAULT_CSS = """
    WinChart { column-span: 2; height: 4; display: none; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.names: tuple[str, ...] = ("", "")
        self.moves: tuple[Move, ...] | None = None
        self.last = 0
        self.step = 0
        self.line = ""
        self.progress: tuple[int, int] | None = None

    def show(self, names: Sequence[str], moves: Sequence[Move] | None, last: int, step: int, line: str,
             progress: tuple[int, int] | None = None) -> None:
        state = (tuple(names), None if moves is None else tuple(moves), last, step, line, progress)
        if state == (self.names, self.moves, self.last, self.step, self.line, self.progress):
            return
        self.names, self.moves, self.last, self.step, self.line, self.progress = state
        self.repaint()

    def paint(self, width: int, height: int) -> list[Row]:
        pal = self.palette()
        dim = pal.style(pal.mix(0.55))
        seat_styles = (pal.style(self.theme_color("primary"), bold=True),
                       pal.style(self.theme_color("warning"), bold=True))
        mistake = pal.style(self.theme_color("error"), bold=True)
        chart = max(1, width - LABEL - 1)
        rows: list[Row] = []
        moves = self.moves or ()
        bars, marks = rows_of(moves, self.last, chart, self.step)
        for seat in (0, 1):
            name = text_cells(plain(self.names[seat] if seat < len(self.names) else "", LABEL), LABEL)
            row: Row = [Segment(f"{name:<{LABEL}} ", seat_styles[seat])]
            if self.moves is not None:
                row.append(Segment(bars[seat], seat_styles[seat]))
            rows.append(fit(row, width))
        mark_row: Row = [Segment(" " * (LABEL + 1))]
        if self.moves is not None:
            for ch in marks:
                mark_row.append(Segment(ch, mistake if ch == "✗" else pal.style(bold=True)))
        rows.append(fit(mark_row, width))
        if self.progress is not None:
            done, total = self.progress
            room = max(10, width - 40)
            filled = room * done // max(1, total)
            words = W.analysing(done, total)
            rows.append(fit([Segment(" " + "█" * filled, pal.style(bold=True)),
                             Segment("░" * (room - filled), dim), Segment("  " + words)], width))
        else:
            rows.append(fit([Segment(" " + text_cells(self.line, width - 1))], width))
        return rows
