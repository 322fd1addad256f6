"""Learn Voltage: the first lesson, one rule at a time on the match screen's own board.

:class:`LessonScreen` is the match screen over a :class:`LessonHandle`: a seat handle over
one of :data:`engine.voltage.lessons.LESSONS` (a real engine position, the learner in seat 0
and to move) instead of a hosted match.  The top line states the rule, the prompt line asks
for the move that wins the point; the learner plays it with the usual keys and clicks.  The
handle applies each move through the engine: a move that solves the lesson stays on the
board ("✓", then ``n`` the next lesson); one that lets the turn pass without it (or gives a
set away) is explained (what it did, from :func:`engine.voltage.coach.explain`, and the
rule again) and the position comes back to try again; a move the rules refuse is refused
in their words (drawing two with six cards: the six-card limit).

After the last lesson, ``n`` starts a match against Easy with the coach on: a hint shows by
itself at each of the learner's turns (the match is then not rated, as any hinted match).
Nothing here reaches a server: the match comes from the backend (``start_match`` offline,
``play_bot`` in the lobby).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from textual.binding import Binding

from engine.errors import RuleError
from engine.voltage import lessons as L
from engine.voltage import rules as V
from engine.voltage.coach import explain
from tui.games.lessons import open_lesson
from tui.games.voltage import words
from tui.games.voltage.match import MatchScreen
from tui.i18n import N_
from tui.ports import Entry, Unsubscribe, Update, UpdateCallback

GAME = "voltage"


class LessonHandle:
    """A seat handle (:class:`tui.ports.SeatHandle`) over a lesson's position: the learner's
    moves go through the engine and are judged (see the module docstring)."""

    seat = 0
    spectator = False
    notice = ()
    countdown: int | None = None
    game = GAME
    extras: Mapping[str, Any] = MappingProxyType({})  # (no clock, no offers in a lesson)

    def __init__(self, name: str, index: int = 0) -> None:
        self.names = (name or words.learner(), words.coach_name())
        self._callbacks: list[UpdateCallback] = []
        self.version = 0
        self.load(index)

    def load(self, index: int) -> None:
        """Set up lesson ``index`` (its position, an empty log)."""
        self.index = index
        self.lesson = L.LESSONS[index]
        self.start = self.lesson.start()
        self.state = self.start
        self.log: list[Entry] = []
        self.solved = False
        self.version += 1

    def view(self) -> V.VoltageView:
        return V.view(self.state, 0)

    def subscribe(self, callback: UpdateCallback) -> Unsubscribe:
        self._callbacks.append(callback)
        return lambda: self._callbacks.remove(callback) if callback in self._callbacks else None

    def subscribe_messages(self, callback: Any) -> Unsubscribe:
        return lambda: None  # (nothing but moves in a lesson)

    def _tell(self, entries: tuple[Entry, ...]) -> None:
        self.version += 1
        for cb in list(self._callbacks):
            cb(Update(self.view(), entries, (), None, self.version, self.names))

    async def submit(self, action: Any) -> None:
        if self.solved:
            raise RuleError("lesson_solved")
        before = self.state
        after, events = V.apply(before, action, 0)  # (the rules' refusals pass through, worded as in a match)
        verdict = L.judge(self.lesson, self.start, after)
        if verdict == L.FAILED:
            reason = explain(V.view(before, 0), action)
            self.state = self.start
            self.log = []
            self._tell(())
            raise RuleError("lesson_wrong", lesson=self.lesson.id, reason=reason)
        self.state = after
        self.log.extend(events)
        self.solved = verdict == L.SOLVED
        self._tell(tuple(events))

    async def resign(self) -> None:
        raise RuleError("lesson_only")


class LessonScreen(MatchScreen):
    """The lessons, one after the other, then a match against Easy with the coach on."""

    BINDINGS = [Binding("n", "next_lesson", N_("next"))]

    def __init__(self, backend: Any, player: str = "", *, start_match: Callable[[], Any] | None = None) -> None:
        self.lesson_handle = LessonHandle(player)
        super().__init__([self.lesson_handle], backend)
        self._start_match = start_match

    # -- what is shown ---------------------------------------------------------------

    def _lesson_words(self) -> tuple[str, str]:
        """(the rule, the task or the verdict) for the lesson shown."""
        h = self.lesson_handle
        rule = words.lesson_rule(h.lesson.id, h.index + 1, len(L.LESSONS))
        if h.solved:
            last = h.index + 1 == len(L.LESSONS)
            return rule, words.lesson_solved(last)
        return rule, words.lesson_task(h.lesson.id)

    def _render_all(self) -> None:
        rule, task = self._lesson_words()
        self.notice = rule
        super()._render_all()
        if self.is_mounted and not self.error:
            self._w["prompt"].show(task, mine=True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "next_lesson":
            return self.lesson_handle.solved
        if action == "leave":
            return True
        if action in ("resign", "hint", "abort", "offer_draw"):
            return False
        return super().check_action(action, parameters)

    def action_leave(self) -> None:
        self.app.pop_screen()

    def action_next_lesson(self) -> None:
        h = self.lesson_handle
        if not h.solved:
            return
        if h.index + 1 < len(L.LESSONS):
            h.load(h.index + 1)
            self.error = ""
            self.refresh_match()
            return
        self.app.pop_screen()
        if self._start_match is not None:
            self._start_match()


def learn(app: Any, backend: Any) -> None:
    """Open the first lesson (the registry's ``learn`` for Voltage); it ends with a match against
    Easy with the coach on (the hint shows at each of the learner's turns)."""
    open_lesson(app, backend, LessonScreen, GAME, "easy",
                lambda handles, backend: MatchScreen(handles, backend, coach=True))
