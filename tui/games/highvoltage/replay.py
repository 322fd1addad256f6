"""The High Voltage replay: :class:`HVReplayScreen`, the High Voltage match screen stepping
through a finished match (see :mod:`tui.screens.stepping` for what both games' replays share).

Every hand is an :class:`OpenHands` panel at the bottom, a line per seat with each card
as the feed's chip, instead of the one seat's hand; the feed stays on screen at every
step, the countdowns included (a live countdown hides it behind the big number, which a
replay does not have).  The hands show during a countdown too, said to be face down
then.  Together they take at most :data:`HANDS_LINES` lines, a share per seat (a hand
longer than its share ends in ``+N``), so the top card keeps its room.  The live hand's
note ("draw (d)", "Watching: ...") is for a live player and never shows here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.style import Style
from rich.text import Text
from textual.widget import Widget
from textual.widgets import Static

from tui.games.highvoltage import words
from tui.games.highvoltage.card import chip as hv_chip
from tui.games.highvoltage.match import HVMatchScreen
from tui.games.highvoltage.table import HVHand
from tui.i18n import _
from tui.screens.stepping import Stepping
from tui.text import safe
from tui.widgets.prompt import ActionButton

#: the most lines every hand together takes (High Voltage): a share for each seat
HANDS_LINES = 8


class OpenHands(Widget):
    """Every seat's hand face up (High Voltage replays, every hand shown): a line per
    seat, its name and count, then its cards as the feed's chips, wrapped under the name
    when long.  ``me`` (the viewer's own seat) is marked as the players' table marks it."""

    DEFAULT_CSS = """
    OpenHands { height: auto; max-height: 9; padding: 0 1; border-top: solid $foreground 30%;
                border-title-align: left; display: none; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.names: tuple[str, ...] = ()
        self.hands: tuple[tuple[Any, ...], ...] = ()
        self.me: int | None = None

    def show(self, names: Sequence[str], hands: Sequence[Sequence[Any]], *, me: int | None, face_down: bool) -> None:
        self.border_title = _("every hand (dealt face down: the countdown)") if face_down else _("every hand")
        state = (tuple(names), tuple(tuple(h) for h in hands), me)
        if state == (self.names, self.hands, self.me):
            return
        self.names, self.hands, self.me = state
        self.refresh(layout=True)

    def rows(self, width: int) -> list[Text]:
        """The lines at ``width``: each seat gets an equal share of :data:`HANDS_LINES` (so
        the top card keeps its room), and a hand longer than its share ends in ``+N``."""
        name_w = max(4, min(12, max((len(safe(n)) for n in self.names), default=4)))
        lead = 2 + name_w + 4  # mark, name, count
        share = max(1, HANDS_LINES // max(1, len(self.hands)))
        out: list[Text] = []
        for seat, hand in enumerate(self.hands):
            lines: list[list[Text]] = [[]]
            used = lead
            for face in hand:
                c = hv_chip(face)
                if used + 1 + c.cell_len > width and lines[-1]:
                    lines.append([])
                    used = lead
                lines[-1].append(c)
                used += 1 + c.cell_len
            more = 0
            if len(lines) > share:
                lines = lines[:share]
                more = len(hand) - sum(map(len, lines))
                while lines[-1] and lead + sum(1 + c.cell_len for c in lines[-1]) + len(f" +{more}") > width:
                    lines[-1].pop()
                    more += 1
            name = safe(self.names[seat]) if seat < len(self.names) else _("Player %(n)d") % {"n": seat + 1}
            shown = name if len(name) <= name_w else name[: name_w - 1] + "…"
            for j, chips in enumerate(lines):
                line = Text(no_wrap=True, overflow="ellipsis")
                if j == 0:
                    line.append("▸ " if seat == self.me else "  ", Style(bold=True))
                    line.append(f"{shown:<{name_w}}", Style(bold=seat == self.me))
                    line.append(f" {len(hand):>2} ")
                else:
                    line.append(" " * lead)
                for c in chips:
                    line.append(" ")
                    line.append_text(c)
                if more and j == len(lines) - 1:
                    line.append(f" +{more}", Style(bold=True))
                out.append(line)
        return out

    def get_content_height(self, container, viewport, width: int) -> int:  # noqa: ANN001
        return max(1, len(self.rows(width)))

    def render(self) -> Text:
        t = Text(no_wrap=True, overflow="ellipsis")
        for i, row in enumerate(self.rows(max(self.content_size.width, 20))):
            if i:
                t.append("\n")
            t.append_text(row)
        return t


class HVReplayScreen(Stepping, HVMatchScreen, inherit_bindings=False):
    """Step through a finished High Voltage match: the top card, the players' counts and
    the feed as they were at each step, and every hand (or one seat's view: ``s``)."""

    BINDINGS = Stepping.keys("round")
    WORDS = words

    # Screen CSS, to win over the match screen's defaults: no big number counts down in a
    # replay, so the countdown's caption takes its lines only and the feed stays.
    CSS = """
    HVReplayScreen #hv-countdown { height: auto; padding: 0 0 1 0; }
    HVReplayScreen.-counting #hv-feed { display: block; }
    HVReplayScreen.-all-hands #hv-hand { display: none; }
    HVReplayScreen.-all-hands #replay-hands { display: block; }
    """

    def compose(self):
        for widget in super().compose():
            yield widget
            if isinstance(widget, HVHand):  # (still inside #hv-main, under the hand's place)
                yield OpenHands(id="replay-hands")

    def _new_viewpoint(self) -> None:
        self.slots = []  # another seat's cards: none keeps the last seat's places
        self.cursor = None

    def on_mount(self) -> None:
        for button in self.query(ActionButton):  # nothing to press in a replay
            button.remove()
        super().on_mount()

    def _countdown_caption(self) -> str:
        if self.view.flips:
            return _("Everyone was stuck: the bottom card\nof the pile is on top now.\nThe countdown: hands face down.")
        return _("The countdown: hands face down.")

    def _render_all(self) -> None:
        super()._render_all()
        if not self._composed:
            return
        self._show_bar()
        hands = self.handle.hands()
        if self.has_class("-all-hands") != (hands is not None):
            self.set_class(hands is not None, "-all-hands")
        note = self.query_one("#hv-hand-note", Static)
        if note.display:  # its words are for a live player ("draw (d)", "Watching: ...")
            note.display = False
        if hands is not None:
            self.query_one(OpenHands).show(self.names, hands, me=self.me, face_down=self.view.counting_down)

    def _render_prompt(self) -> None:
        text = self.step_text()
        self._put("#hv-prompt", ("replay", text), lambda: Text(" · " + safe(text), no_wrap=True, overflow="ellipsis"))
