"""Learn High Voltage: the first lesson, one rule at a time, on the table's own cards.

:class:`HVLessonScreen` shows one of :data:`engine.highvoltage.lessons.LESSONS` (a real
engine position, the learner in seat 0, play open): the rule on the top line, the top card
large, the task, the learner's hand as in a match (:class:`~tui.games.highvoltage.table.HVHand`,
its keys ``1``-``9``), and the keys.  There is no clock and no countdown in a lesson:
each action goes through the engine at once.  A card that does not fit is refused by the
rules and explained (the two values that fit on that top); a draw or a stuck declaration
that misses the point is explained and the position comes back; the play that solves the
lesson stays on the table ("✓", then ``n`` the next lesson).  In the stuck lesson the
flip turns up the bottom card, and play goes on on it.

After the last lesson, ``n`` starts a table against a slow bot (High Voltage's easiest
level): offline with practice on (the fitting cards marked), in the lobby through
``play_bot``.  Every word is the session's language (:mod:`tui.games.highvoltage.words`);
the keys are said in one line of words, not the key bar, so they are worded too.
"""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Static

from engine.errors import IllegalActionError, RuleError
from engine.highvoltage import lessons as L
from engine.highvoltage import rules as H
from tui.games.highvoltage import words
from tui.games.highvoltage.card import MOD_INK, TOP_BG, TOP_FG, big, mod_label
from tui.games.highvoltage.table import CARD_KEYS, HVHand
from tui.games.lessons import open_lesson

GAME = "high-voltage"
BOT = "slow"  # the table after the lessons: High Voltage's easiest bot


def top_card(face: H.Face) -> Text:
    """The top card, large: its value and its modifier in block digits, in the modifier's ink."""
    ink = Style(color=MOD_INK[face.mod], bgcolor=TOP_BG, bold=True)
    base = Style(color=TOP_FG, bgcolor=TOP_BG, bold=True)
    rows_v, rows_m = big(str(face.value)), big(mod_label(face.mod))
    inner = len(rows_v[0]) + 4 + len(rows_m[0])
    pad = max(2, (26 - inner) // 2)  # (as wide as a match's top card, about)
    t = Text(justify="center", no_wrap=True)
    t.append("┏" + "━" * (inner + 2 * pad) + "┓\n", ink)
    t.append("┃" + " " * (inner + 2 * pad) + "┃\n", ink)
    for v, m in zip(rows_v, rows_m, strict=True):
        t.append("┃" + " " * pad, ink)
        t.append(v + "    ", base)
        t.append(m, ink)
        t.append(" " * pad + "┃\n", ink)
    t.append("┃" + " " * (inner + 2 * pad) + "┃\n", ink)
    t.append("┗" + "━" * (inner + 2 * pad) + "┛", ink)
    return t


class HVLessonScreen(Screen[None]):
    """The lessons, one after the other, then a table against a slow bot."""

    BINDINGS = [
        *[Binding(k, f"play_slot({i})", "play", show=False) for i, k in enumerate(CARD_KEYS[:9])],
        Binding("d", "draw", "draw", show=False),
        Binding("s", "stuck", "stuck", show=False),
        Binding("n", "next_lesson", "next", show=False),
        Binding("q", "leave", "leave", show=False),
        Binding("escape", "leave", "leave", show=False),
    ]
    DEFAULT_CSS = """
    HVLessonScreen { layout: vertical; }
    HVLessonScreen #hvl-rule { height: auto; padding: 0 1; background: $panel; text-style: bold; }
    HVLessonScreen #hvl-top { height: 1fr; content-align: center middle; }
    HVLessonScreen #hvl-info { height: 1; padding: 0 1; color: $text-muted; }
    HVLessonScreen #hvl-task { height: auto; padding: 0 1; background: $panel; }
    HVLessonScreen #hvl-task.-error { color: $error; }
    HVLessonScreen #hvl-hand { padding: 0 0 0 1; }
    HVLessonScreen #hvl-keys { height: 1; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, backend: Any = None, player: str = "", *, start_match: Any = None) -> None:
        super().__init__()
        self.backend = backend
        self.player = player
        self._start_match = start_match
        self.said = ""  # a refusal's or a wrong move's explanation, or what the flip did
        self.error = False
        self._composed = False
        self.load(0)

    # -- the lesson ---------------------------------------------------------------------

    def load(self, index: int) -> None:
        self.index = index
        self.lesson = L.LESSONS[index]
        self.start = self.lesson.start()
        self.state = self.start
        self.solved = False
        self.said, self.error = "", False

    @property
    def view(self) -> H.HighVoltageView:
        return H.view(self.state, 0)

    def act(self, action: H.Action) -> None:
        """The learner's ``action``, judged (see the module docstring)."""
        if self.solved:
            return
        before = self.state
        if L.wrong(self.lesson, before, action):
            kind = "draw" if isinstance(action, H.Draw) else "stuck_pile" if before.piles[0] else "stuck"
            self.state = self.start
            self._say(words.lesson_not_now(kind), error=True)
            return
        try:
            after, events = H.apply(before, action, 0)
        except (IllegalActionError, RuleError) as e:
            if e.code == "does_not_fit" and isinstance(action, H.Play):
                self._say(words.lesson_no_fit(action.card, action.aimed_at), error=True)
            else:
                self._say(words.refusal(e), error=True)
            return
        flipped = after.phase == H.COUNTDOWN and not after.over
        if flipped:  # (no countdown in a lesson: play opens again at once)
            after, _e = H.apply(after, H.GO)
        self.state = after
        self.solved = L.judge(self.lesson, after) == L.SOLVED
        self._say(words.lesson_flipped(H.CARD_FACE[after.top]) if flipped and not self.solved else "")

    def _say(self, text: str, *, error: bool = False) -> None:
        self.said, self.error = text, error
        self._show()

    # -- what is shown ------------------------------------------------------------------

    def compose(self):
        with Vertical():
            yield Static("", id="hvl-rule")
            yield Static("", id="hvl-top")
            yield Static("", id="hvl-info")
            yield Static("", id="hvl-task")
            yield HVHand(id="hvl-hand")
            yield Static("", id="hvl-keys")

    def on_mount(self) -> None:
        self._composed = True
        self._show()

    def task_line(self) -> str:
        if self.solved:
            return words.lesson_solved(self.index + 1 == len(L.LESSONS))
        return self.said or words.lesson_task(self.lesson.id)

    def _show(self) -> None:
        if not self._composed:
            return
        view = self.view
        self.query_one("#hvl-rule", Static).update(
            Text(words.lesson_rule(self.lesson.id, self.index + 1, len(L.LESSONS))))
        self.query_one("#hvl-top", Static).update(top_card(view.top) if view.top_no >= 0 else Text(""))
        self.query_one("#hvl-info", Static).update(Text(words.lesson_pile(view.pile_counts[0])))
        task = self.query_one("#hvl-task", Static)
        task.set_class(self.error and not self.solved, "-error")
        task.update(Text(self.task_line()))
        self.query_one(HVHand).show(list(view.hand or ()))
        self.query_one("#hvl-keys", Static).update(Text(words.lesson_keys()))

    # -- keys ---------------------------------------------------------------------------

    def action_play_slot(self, slot: int) -> None:
        hand = self.view.hand or ()
        if slot < len(hand):
            self.act(self.view.aim(hand[slot]))

    def action_draw(self) -> None:
        self.act(H.Draw(0))

    def action_stuck(self) -> None:
        self.act(H.Stuck(0))

    @on(HVHand.Clicked)
    def card_clicked(self, message: HVHand.Clicked) -> None:
        self.action_play_slot(message.slot)

    def action_leave(self) -> None:
        self.app.pop_screen()

    def action_next_lesson(self) -> None:
        if not self.solved:
            return
        if self.index + 1 < len(L.LESSONS):
            self.load(self.index + 1)
            self._show()
            return
        self.app.pop_screen()
        if self._start_match is not None:
            self._start_match()


def learn(app: Any, backend: Any) -> None:
    """Open the first lesson (the registry's ``learn`` for High Voltage); it ends with a table
    against the slow bot (practice on, offline)."""
    from tui.games.highvoltage.match import HVMatchScreen

    open_lesson(app, backend, HVLessonScreen, GAME, BOT,
                lambda handles, backend: HVMatchScreen(handles, backend, practice=True))
