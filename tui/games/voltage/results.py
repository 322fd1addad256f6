"""The end of a match: who won, the sets each won, rematch, back to start.

Shown over the final board.  ``r`` asks the backend for a rematch
(``await backend.rematch(handles)``), ``b``/``esc`` goes back to the home
screen, ``v`` closes this panel to look at the final board (``enter`` there
brings it back).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from tui.i18n import N_, _, ngettext
from tui.screens.results import ResultsBase
from tui.text import name_text, score_track

REASONS = {
    "four sets": N_("first to four sets"),
    "resignation": N_("by resignation"),
    "neither player can act": N_("neither player could act"),
    "agreement": N_("drawn by agreement"),
    "aborted": N_("no result, no rating change"),
    "time": "",  # worded by ResultsScreen: "(alice lost on time)"
}


class ResultsScreen(ResultsBase):
    """A Voltage match: the winner, each player's sets, the turns played."""

    NOBODY = N_("The match is drawn")
    WINS = N_(" wins the match")
    REASONS = REASONS

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The headline's words in the session's language (the base shows these attributes).
        self.NOBODY = _(ResultsScreen.NOBODY)
        self.WINS = _(ResultsScreen.WINS)
        self.REASONS = {k: _(v) if v else "" for k, v in REASONS.items()}

    def you_won(self) -> bool:
        return super().you_won() and len(self.handles) == 1  # hot-seat: both are "you"

    def winner_text(self) -> Text:
        v = self.final
        if v.reason == "aborted":
            t = Text(justify="center")
            t.append(_("The match is aborted"), style="bold")
            t.append(f"\n({_(REASONS['aborted'])})", style="dim")
            return t
        t = super().winner_text()
        if v.reason == "time" and v.winner is not None:  # "(alice lost on time)"
            t.append("\n(" + _("%(who)s lost on time") % {"who": self.names[1 - v.winner]} + ")", style="dim")
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
            sets.append("  " + _("★ winner") if v.winner == seat else "", style="bold")
            if seat == 0:
                sets.append("\n")
        return sets

    def status_text(self) -> str:
        v = self.final
        # An aborted match ended in a turn nobody moved in (the rules allow it no later).
        turns = v.turn - 1 if v.reason == "aborted" else v.turn
        return ngettext("%(n)d turn played", "%(n)d turns played", turns) % {"n": turns}
