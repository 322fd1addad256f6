"""The Voltage replay: :class:`ReplayScreen`, the Voltage match screen stepping through a
finished match (see :mod:`tui.screens.stepping` for what both games' replays share).

The board's two positions stay (the viewer's own seat at the bottom if they played,
else seat 0); the bottom hand is the match screen's own
:class:`~tui.games.voltage.hand.HandView` with faces, and the top seat's hand, where the
live screen has its backs, is an :class:`OpenHand`: the same cards painted by the same
painter as the own hand (``hand._paint_card``: reused, not copied), in rows that fit the
narrow column, under the usual name line.  That cell grows (the log under it shrinks;
the board, which spans both, keeps its height); its cards are sized for a full hand, so
they keep their size from step to step.  Both hands are drawn in full ink: the live
screen dims the cards that cannot be played now, and in a replay none can.  In a seat's
view the board's bottom side is labelled with that seat's name, not "your side", unless
it is the viewer's own seat.

A replay that brings its analysis (``replay.analysis``, a
:class:`~tui.games.voltage.chart.AnalysisSource`: the server's coach) offers ``c``: the
win-chance chart (:class:`~tui.games.voltage.chart.WinChart`) in the bottom band, in place
of the bottom hand and the piles (``c`` again: the hands).  The analysis kept with the
match shows at once; else it is made in the background from the first ``c`` on, with a
progress bar (only then: a replay only looked through costs no search).  ``m`` steps to
the next mistake, whose better move the chart's line names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from rich.segment import Segment
from rich.text import Text
from textual.binding import Binding, BindingType

from engine.voltage.cards import Card
from engine.voltage.coach import Move
from tui import words as W
from tui.games.voltage import words
from tui.games.voltage.chart import AnalysisSource, WinChart
from tui.games.voltage.hand import SLOTS, OpponentHand, Slot, _paint_card
from tui.games.voltage.match import MatchScreen
from tui.games.voltage.piles import Piles
from tui.games.voltage.present import side_label
from tui.i18n import N_, _, ngettext
from tui.ports import Refused
from tui.screens.stepping import Stepping
from tui.text import name_text
from tui.widgets.lines import LineWidget, Row, fit, text_rows

# -- the hands, face up --------------------------------------------------------------

#: card sizes an :class:`OpenHand` tries, largest first: the own hand's sizes (wide and
#: tall, wide, compact), then a three-line card whose one line still reads `` 2 O`` and its V.
OPEN_SIZES = ((10, 6), (10, 4), (8, 4), (7, 3))


class OpenHand(LineWidget):
    """The top seat's hand face up (Voltage replays, every hand shown): the live
    opponent's name line, then the cards as the own hand draws them, in as many rows as
    the cell needs (largest cards that fit; a hand that cannot fit says how many more)."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.owner = ""
        self.cards: tuple[Card, ...] = ()
        self.to_move = False

    def show(self, name: str, cards: Sequence[Card], *, to_move: bool) -> None:
        state = (name, tuple(cards), to_move)
        if state == (self.owner, self.cards, self.to_move):
            return
        self.owner, self.cards, self.to_move = state
        self.repaint()

    @staticmethod
    def card_sizes(n: int, width: int, height: int) -> tuple[int, int, int]:
        """(card width, card height, cards per row) for ``n`` cards under the name line.

        Sized for a full hand (six) at least, so the cards keep their size from step
        to step as the hand grows and shrinks."""
        n = max(n, SLOTS)
        for cw, ch in OPEN_SIZES:
            per_row = max(1, (width + 1) // (cw + 1))
            if 1 + -(-n // per_row) * ch <= height:
                return cw, ch, per_row
        cw, ch = OPEN_SIZES[-1]
        return cw, ch, max(1, (width + 1) // (cw + 1))

    def paint(self, width: int, height: int) -> list[Row]:
        pal = self.palette()
        n = len(self.cards)
        head = Text(no_wrap=True, overflow="ellipsis")
        head.append("▲ ", style="bold")
        head.append_text(name_text(self.owner, "bold"))
        if self.to_move:
            head.append("  " + _("◀ to move"), style="bold reverse")
        count = "  " + ngettext("%(n)d card", "%(n)d cards", n) % {"n": n}
        if head.cell_len + len(count) <= width:  # (the cards show it too: it goes first)
            head.append(count, style="dim")
        rows: list[Row] = [fit(text_rows(head)[0], width)]
        cw, ch, per_row = self.card_sizes(n, width, height)
        fits = max(0, (height - 1) // ch) * per_row
        shown = self.cards if n <= fits else self.cards[: max(0, fits - 1)]
        for start in range(0, len(shown), per_row):
            band: list[Row] = [[] for _ in range(ch)]
            for i, card in enumerate(shown[start : start + per_row]):
                painted = _paint_card(Slot(card, transformer=card.transformer, playable=True), cw, ch, pal, pal.bg)
                for y in range(ch):
                    if i:
                        band[y].append(Segment(" "))
                    band[y].extend(painted[y])
            rows.extend(band)
        if len(shown) < n:  # (never silently: a cell too small says what it left out)
            rows[-1].append(Segment(f" +{n - len(shown)}", pal.style(bold=True)))
        return rows


def _keys() -> list[BindingType]:
    """The replay's keys with the chart's (shown when there is an analysis) after step and
    set, and home/end last: at 80 columns the key bar leaves those out (they still work)."""
    keys = Stepping.keys("set")
    return [*keys[:4], Binding("c", "chart", N_("chart")), Binding("m", "next_mistake", N_("mistake")), *keys[6:],
            *keys[4:6]]


class ReplayScreen(Stepping, MatchScreen, inherit_bindings=False):
    """Step through a finished Voltage match with the board as it was at each step, every
    hand face up (or one seat's view: ``s``)."""

    BINDINGS = _keys()
    WORDS = words

    # Screen CSS (not DEFAULT_CSS): it must win over match.tcss.  Only the right column's
    # top cell grows; the board spans it and the log, so the board keeps every row.
    CSS = """
    ReplayScreen #open-hand { display: none; margin: 0 0 0 1; height: 1fr; }
    ReplayScreen.-all-hands #opponent { display: none; }
    ReplayScreen.-all-hands #open-hand { display: block; }
    ReplayScreen.-all-hands #main { grid-rows: 1 7 1fr 1 4; }
    ReplayScreen.-all-hands.-wide #main { grid-rows: 1 9 1fr 1 4; }
    ReplayScreen.-all-hands.-tall #main { grid-rows: 1 13 1fr 1 6; }
    ReplayScreen.-chart #hand, ReplayScreen.-chart #piles { display: none; }
    ReplayScreen.-chart #chart { display: block; }
    """

    #: the analysis, when the replay brings one (None: no chart, no keys for it)
    analysis: AnalysisSource | None = None
    moves: tuple[Move, ...] | None = None
    _progress: tuple[int, int] | None = None
    _chart_line = ""

    def compose(self):
        for widget in super().compose():
            yield widget
            if isinstance(widget, OpponentHand):  # (still inside the grid: its cell, when shown)
                yield OpenHand(id="open-hand")
            elif isinstance(widget, Piles):  # (the bottom band's cells, when the chart shows)
                yield WinChart(id="chart")

    def on_mount(self) -> None:
        super().on_mount()
        self.analysis = getattr(self.replay, "analysis", None)
        self._asked = False

    def _ask(self) -> None:
        """The analysis: the one kept, else made now (once) in the background."""
        if self.analysis is None or self._asked:
            return
        self._asked = True
        stored = self.analysis.stored()
        if stored is not None:
            self.moves = tuple(stored)
        else:
            self._progress = (0, self.replay.last)
            self.run_worker(self._analyse(self.analysis), group="analysis")
        self.refresh_bindings()

    async def _analyse(self, source: AnalysisSource) -> None:
        def progress(done: int, total: int) -> None:
            self._progress = (done, total)
            self._show_chart()

        try:
            self.moves = tuple(await source.run(progress))
        except Refused as e:
            self._chart_line = words.refusal(e)
        except Exception as e:
            self._chart_line = W.refusal(e)
        self._progress = None
        self.refresh_bindings()
        self._show_chart()

    def _show_chart(self) -> None:
        if self.analysis is None or not self.is_mounted:
            return
        moves = self.moves
        step = self.handle.step
        line = self._chart_line if moves is None else words.step_line(moves, step, self.names, self._better)
        self.query_one(WinChart).show(self.names, moves, self.replay.last, step, line, self._progress)

    def _better(self, move: Move) -> str:
        """The better move of a mistake, as the mover would have read it."""
        view = self.replay.seat_view(move.step - 1, move.seat)
        return words.better_move(move.better or "", view)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "chart":
            return self.analysis is not None
        if action == "next_mistake":
            return self.moves is not None and any(m.mistake for m in self.moves)
        return super().check_action(action, parameters)

    def action_chart(self) -> None:
        """The chart, or the bottom hand and the piles, in the bottom band."""
        self._ask()
        self.toggle_class("-chart")
        self._show_chart()

    def action_next_mistake(self) -> None:
        steps = [m.step for m in self.moves or () if m.mistake]
        if steps:
            self.add_class("-chart")
            self.go(next((s for s in steps if s > self.handle.step), steps[0]))

    def _detect_moments(self, prev: Any, now: Any) -> None:
        if self._forward:  # a flip or a scored set lights up when stepped into, not back out of
            super()._detect_moments(prev, now)

    def _playing(self) -> bool:
        return False

    def _explain(self, text: str) -> None:
        return None

    def _render_all(self) -> None:
        super()._render_all()
        if not self.is_mounted:
            return
        self._show_bar()
        self._w["prompt"].show(self.step_text(), mine=False)
        self._show_hands()
        self._show_chart()

    def _show_hands(self) -> None:
        view, names = self.view, self.names
        me, opp = self.me, 1 - self.me
        hands = self.handle.hands()
        if self.has_class("-all-hands") != (hands is not None):
            self.set_class(hands is not None, "-all-hands")
        moving = None if view.over else view.to_move
        if hands is not None:
            # Drawn as cards that could be played (full ink), like the top hand: in a replay
            # nothing can be, and the idle look would only make every card harder to read.
            bright = {i: "" for i in range(len(hands[me]))}
            self._w["hand"].show_faces(hands[me], keys=bright, selected=None, cursor=None, my_turn=moving == me)
            self.query_one(OpenHand).show(names[opp], hands[opp], to_move=moving == opp)
        elif view.seat is not None and view.seat != self.replay.seat:
            # Another seat's view: its side is named, "your side" is the viewer's own.
            board = self._w["board"]
            label = side_label(names[me])
            board.show(tuple(replace(t, bottom=replace(t.bottom, label=label)) for t in board.states))

    def _sync_buttons(self) -> None:
        return None  # no buttons: the key bar says everything
