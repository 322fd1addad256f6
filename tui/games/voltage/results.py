"""The end of a match: who won, the sets each won, rematch, back to start.

Shown over the final board.  ``r`` asks the backend for a rematch
(``await backend.rematch(handles)``), ``b``/``esc`` goes back to the home
screen, ``v`` closes this panel to look at the final board (``enter`` there
brings it back).
"""

from __future__ import annotations

from rich.text import Text

from tui.screens.results import ResultsBase
from tui.text import name_text, score_track

REASONS = {
    "four sets": "first to four sets",
    "resignation": "by resignation",
    "neither player can act": "neither player could act",
    "agreement": "drawn by agreement",
    "aborted": "no result, no rating change",
    "time": "",  # worded by ResultsScreen: "(alice lost on time)"
}


class ResultsScreen(ResultsBase):
    """A Voltage match: the winner, each player's sets, the turns played."""

    NOBODY = "The match is drawn"
    WINS = " wins the match"
    REASONS = REASONS

    def you_won(self) -> bool:
        return super().you_won() and len(self.handles) == 1  # hot-seat: both are "you"

    def winner_text(self) -> Text:
        v = self.final
        if v.reason == "aborted":
            t = Text(justify="center")
            t.append("The match is aborted", style="bold")
            t.append(f"\n({REASONS['aborted']})", style="dim")
            return t
        t = super().winner_text()
        if v.reason == "time" and v.winner is not None:  # "(alice lost on time)"
            t.append(f"\n({self.names[1 - v.winner]} lost on time)", style="dim")
        return t

    def body_text(self) -> Text:
        v, names = self.final, self.names
        sets = Text()
        width = max(len(n) for n in names[:2]) if names else 8
        width = min(max(width, 6), 24)
        for seat in (0, 1):
            n = name_text(names[seat][:24], "bold")
            n.pad_right(width - n.cell_len + 2)
            sets.append_text(n)
            sets.append_text(score_track(v.scores[seat], wide=True))
            sets.append("  ★ winner" if v.winner == seat else "", style="bold")
            if seat == 0:
                sets.append("\n")
        return sets

    def status_text(self) -> str:
        v = self.final
        # An aborted match ended in a turn nobody moved in (the rules allow it no later).
        turns = v.turn - 1 if v.reason == "aborted" else v.turn
        return f"{turns} turn{'' if turns == 1 else 's'} played"
