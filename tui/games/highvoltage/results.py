"""The end of a High Voltage match: the ranking, then rematch or back.

A :class:`tui.screens.results.ResultsBase`, as Voltage's results are (the same keys): ``r``
asks the backend for a rematch (``await backend.rematch(handles)``),
``b``/``esc`` goes back to the home screen, ``v`` closes the panel to look at
the final table (``enter`` there brings it back).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.binding import Binding

from engine.highvoltage.rules import HighVoltageView
from tui import words as W
from tui.i18n import N_, _, ngettext
from tui.screens.results import ResultsBase
from tui.text import name_text

REASONS = {
    "last card": N_("laid the last card"),
    "resignation": N_("everyone else left"),
    "blocked": N_("nobody could play any more"),
}


def place_word(place: int) -> str:
    return W.ordinal(place)


def ranking(view: HighVoltageView, names: Sequence[str]) -> Text:
    """One line per seat, best place first: place, name, cards left (hand plus pile)."""
    places = view.places or tuple(1 if s == view.winner else 2 for s in range(view.players))
    order = sorted(range(view.players), key=lambda s: (places[s], s))
    width = min(max([len(n) for n in names[: view.players]] + [6]), 20)
    t = Text(no_wrap=True)
    for i, s in enumerate(order):
        if i:
            t.append("\n")
        first = places[s] == 1
        t.append(f"{place_word(places[s]):>4}  ", "bold" if first else "")
        n = name_text(names[s][:20], "bold" if first else "")
        n.pad_right(width - n.cell_len + 2)
        t.append_text(n)
        left = view.cards_left(s)
        # TRANSLATORS: the two spaces in the singular keep the column aligned with the plural's.
        t.append(ngettext("%(n)s card  left", "%(n)s cards left", left) % {"n": f"{left:>3}"},
                 "dim" if not first else "")
        if view.out[s]:
            t.append("  " + _("(left)"), "dim")
        if s == view.seat:
            t.append("  " + _("◀ you"), "bold")
    return t


class HVResultsScreen(ResultsBase):
    """A High Voltage match: the winner, everyone's place and cards left, the plays made."""

    BINDINGS = [Binding("v", "board", N_("see the table"))]
    DEFAULT_CSS = """
    HVResultsScreen #results-box { width: 60; }
    HVResultsScreen #winner { content-align: center middle; }
    """
    NOBODY = N_("Nobody wins: the table is blocked")
    WINS = N_(" wins High Voltage")
    REASONS = REASONS
    HOME_LABEL = N_("back [b]")
    BOARD_LABEL = N_("table [v]")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The headline's and buttons' words in the session's language (the base shows these attributes).
        self.NOBODY = _(HVResultsScreen.NOBODY)
        self.WINS = _(HVResultsScreen.WINS)
        self.REASONS = {k: _(v) for k, v in REASONS.items()}
        self.HOME_LABEL = _(HVResultsScreen.HOME_LABEL)
        self.BOARD_LABEL = _(HVResultsScreen.BOARD_LABEL)

    def body_text(self) -> Text:
        return ranking(self.final, self.names)

    def status_text(self) -> str:
        v = self.final
        played = ngettext("%(n)d card played", "%(n)d cards played", v.plays) % {"n": v.plays}
        if not v.flips:
            return played
        return played + ", " + ngettext("%(n)d flip", "%(n)d flips", v.flips) % {"n": v.flips}
