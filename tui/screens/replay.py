"""A finished match, step by step, on the match screen's own board.

:class:`ReplayScreen` is the Voltage match screen
(:class:`tui.screens.match.MatchScreen`) and :class:`HVReplayScreen` the High
Voltage one (:class:`tui.screens.hv_match.HVMatchScreen`), each reading a
:class:`ReplayHandle` instead of a live seat: the handle answers ``view()`` and
``log`` for the step being shown, from a :class:`server.replay.Replay` (whose
views are a spectator's, or the viewer's own seat's if they played in the
match).  Nothing can be played: the screens' keys only move through the match
(:class:`Stepping`, shared by both).  :func:`replay_screen` picks the screen for
a replay.

Keys: ``←``/``→`` one step, ``[``/``]`` (or PgUp/PgDn) the start of the
previous/next set (High Voltage: round, which ends when the pile is flipped),
Home/End the deal and the end, ``q``/Esc leave.  The top line says where the
replay is; the prompt line shows what the step's action did, in the match
log's words.

:class:`ReplayBackend` is the backend of an app that only replays (``voltage
replay MATCH_ID`` and ``ssh -t HOST replay MATCH_ID``).
"""

from __future__ import annotations

from typing import Any, Callable

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Static

from engine.errors import IllegalActionError

from ..text import safe
from ..widgets.prompt import ActionButton
from .hv_match import HVMatchScreen
from .match import MatchScreen


class ReplayHandle:
    """A seat handle over a replay: the match screen reads it like a live match's."""

    notice = ""

    def __init__(self, replay: Any, step: int = 0) -> None:
        self.replay = replay
        self.step = replay.clamp(step)

    @property
    def seat(self) -> int | None:
        return self.replay.seat

    @property
    def match(self) -> Any:  # the screens only compare it; a replay has none
        return None

    @property
    def game(self) -> str:
        return self.replay.record.game

    @property
    def spectator(self) -> bool:
        return self.seat is None

    @property
    def names(self) -> tuple[str, ...]:
        return self.replay.names

    @property
    def log(self) -> list[str]:
        return self.replay.lines(self.step)

    def view(self) -> Any:
        return self.replay.view(self.step)

    def subscribe(self, callback: Callable[[Any], None]) -> Callable[[], None]:
        return lambda: None  # a replay never changes by itself

    async def submit(self, action: Any) -> None:
        raise IllegalActionError("this is a replay: nothing can be played")

    async def resign(self) -> None:
        raise IllegalActionError("this is a replay: nothing can be played")


class Stepping:
    """What both replay screens share: the keys, where the replay is, the top bar and
    the step's words.  Mixed in before the game's match screen, which sets
    ``BINDINGS = Stepping.keys(...)`` (Textual reads bindings from widget classes only)."""

    SHOWS_RESULTS = False  # the last step is the end

    def __init__(self, replay: Any, step: int = 0) -> None:
        # The match screen's own __init__ (next in the MRO), watching the replay's one handle.
        super().__init__([self._start_replay(replay, step)], None)  # type: ignore[call-arg]

    @staticmethod
    def keys(unit: str) -> list[Binding]:
        """The replay keys; ``unit`` names what ``[``/``]`` jump between (set, round)."""
        return [
            Binding("left", "step(-1)", "back", key_display="←"),
            Binding("right", "step(1)", "next", key_display="→"),
            Binding("left_square_bracket,pageup", "prev_set", unit, key_display="["),
            Binding("right_square_bracket,pagedown", "next_set", unit, key_display="]"),
            Binding("home", "first", "deal", key_display="home"),
            Binding("end", "last", "end", key_display="end"),
            Binding("q,escape", "leave", "leave", key_display="q"),
        ]

    replay: Any
    handle: ReplayHandle
    _forward: bool

    def _start_replay(self, replay: Any, step: int) -> ReplayHandle:
        self.replay = replay
        self.handle = ReplayHandle(replay, step)
        self._forward = False
        return self.handle

    # -- where we are ----------------------------------------------------------

    @property
    def step_no(self) -> int:
        return self.handle.step

    def go(self, step: int) -> None:
        """Show ``step`` (clamped to the match)."""
        step = self.replay.clamp(step)
        self._forward = step == self.handle.step + 1
        self.handle.step = step
        self.error = ""
        self.refresh_match()

    def action_step(self, delta: int) -> None:
        self.go(self.handle.step + delta)

    def action_next_set(self) -> None:
        self.go(self.replay.next_set(self.handle.step))

    def action_prev_set(self) -> None:
        self.go(self.replay.prev_set(self.handle.step))

    def action_first(self) -> None:
        self.go(0)

    def action_last(self) -> None:
        self.go(self.replay.last)

    def action_leave(self) -> None:
        if getattr(self.app, "home", None) is self or len(self.app.screen_stack) <= 2:
            self.app.exit()
        else:
            self.app.pop_screen()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return True

    async def submit(self, action: Any) -> None:
        return None

    # -- words -----------------------------------------------------------------

    def compose(self):
        yield Static("", id="replay-bar")  # styled in tui/global.tcss
        yield from super().compose()  # type: ignore[misc]

    def bar_text(self) -> Text:
        r, step = self.replay, self.handle.step
        rec = r.record
        total = r.sets if r.set_steps and r.set_steps[-1] == r.last else r.sets + 1
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(" REPLAY ", style="bold reverse")
        t.append(f"  match #{rec.id}  step {step}/{r.last}  {r.unit} {min(r.set_at(step), max(total, 1))} of {max(total, 1)}")
        if r.seat is None:
            t.append("  as a spectator", style="dim")
        else:
            t.append(f"  as {safe(r.names[r.seat])}", style="dim")
        t.append("  ·  " + safe(" v ".join(r.names)))  # last: the names are cut first on a narrow screen
        return t

    def step_text(self) -> str:
        step = self.handle.step
        lines = self.replay.step_lines(step)
        if step == 0:
            return "The deal. " + " ".join(lines) if lines else "The deal."
        return " · ".join(lines) if lines else (self.replay.action(step) or "")

    def _show_bar(self) -> None:
        for bar in self.query("#replay-bar").results(Static):  # (none before compose)
            bar.update(self.bar_text())


class ReplayScreen(Stepping, MatchScreen, inherit_bindings=False):
    """Step through a finished Voltage match with the board as it was at each step."""

    BINDINGS = Stepping.keys("set")

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

    def _sync_buttons(self) -> None:  # type: ignore[override]
        return None  # no buttons: the key bar says everything


class HVReplayScreen(Stepping, HVMatchScreen, inherit_bindings=False):
    """Step through a finished High Voltage match: the top card, the players' counts and
    the feed as they were at each step (and the viewer's own hand if they played)."""

    BINDINGS = Stepping.keys("round")

    def on_mount(self) -> None:
        for button in self.query(ActionButton):  # nothing to press in a replay
            button.remove()
        super().on_mount()

    def _countdown_caption(self) -> str:
        if self.view.flips:
            return "Everyone was stuck: the bottom card\nof the pile is on top now.\nThe countdown: hands face down."
        return "The countdown: hands face down."

    def _render_all(self) -> None:
        super()._render_all()
        self._show_bar()

    def _render_prompt(self) -> None:
        text = self.step_text()
        self._put("#hv-prompt", ("replay", text), lambda: Text(" · " + safe(text), no_wrap=True, overflow="ellipsis"))


def replay_screen(replay: Any, step: int = 0) -> Stepping:
    """The screen that shows ``replay``: its game's match screen, stepping."""
    if getattr(replay, "game", "voltage") == "high-voltage":
        return HVReplayScreen(replay, step)
    return ReplayScreen(replay, step)


class ReplayBackend:
    """The backend of an app that only shows one replay (its home screen)."""

    online = False
    named = True
    name_prefill = ""

    def __init__(self, replay: Any, *, player: Any = None) -> None:
        self.replay = replay
        self.player = player

    def home_screen(self) -> Stepping:
        return replay_screen(self.replay)

    def rating_change(self, handles: Any) -> None:
        return None

    def close(self) -> None:
        pass
