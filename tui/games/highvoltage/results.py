"""The end of a High Voltage match: the ranking, then rematch or back.

A :class:`tui.screens.results.ResultsBase`, as Voltage's results are (the same keys): ``r``
asks the backend for a rematch (``await backend.rematch(handles)``),
``b``/``esc`` goes back to the home screen, ``v`` closes the panel to look at
the final table (``enter`` there brings it back).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.binding import Binding

from engine.highvoltage.rules import HighVoltageView
from tui.screens.results import ResultsBase
from tui.text import name_text

REASONS = {
    "last card": "laid the last card",
    "resignation": "everyone else left",
    "blocked": "nobody could play any more",
}


def place_word(place: int) -> str:
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place, 'th') }"


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
        t.append(f"{left:>3} card{'s' if left != 1 else ' '} left", "dim" if not first else "")
        if view.out[s]:
            t.append("  (left)", "dim")
        if s == view.seat:
            t.append("  ◀ you", "bold")
    return t


class HVResultsScreen(ResultsBase):
    """A High Voltage match: the winner, everyone's place and cards left, the plays made."""

    BINDINGS = [Binding("v", "board", "see the table")]
    DEFAULT_CSS = """
    HVResultsScreen #results-box { width: 60; }
    HVResultsScreen #winner { content-align: center middle; }
    """
    NOBODY = "Nobody wins: the table is blocked"
    WINS = " wins High Voltage"
    REASONS = REASONS
    HOME_LABEL = "back [b]"
    BOARD_LABEL = "table [v]"

    def body_text(self) -> Text:
        return ranking(self.final, self.names)

    def status_text(self) -> str:
        v = self.final
        flips = f", {v.flips} flip{'s' if v.flips != 1 else ''}" if v.flips else ""
        return f"{v.plays} cards played{flips}"
