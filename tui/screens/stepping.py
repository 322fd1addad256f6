"""A finished match, step by step, on the match screen's own board: what both games share.

Each game's replay screen is its match screen stepping (:class:`Stepping` mixed in
before it): :class:`tui.games.voltage.replay.ReplayScreen` and
:class:`tui.games.highvoltage.replay.HVReplayScreen`, each reading a
:class:`ReplayHandle` instead of a live seat: the handle answers ``view()``,
``hands()`` and ``log`` for the step being shown, from a
:class:`tui.ports.ReplaySource` (``server.replay.Replay``).  Nothing can be played: the
screens' keys only move through the match (:class:`Stepping`, shared by both).  Each
game's module says how it shows every hand, and gives its words module
(:attr:`Stepping.WORDS`): this module names no game, as the games' modules import it.

Every hand, by default.  A replay is of a finished match, whose
hidden cards no longer matter to anyone, so it opens showing every hand face
up, whoever watches; ``s`` (seat view) cycles every hand → seat 0's view →
seat 1's view → ... → every hand, a seat's view being exactly what that seat
saw (its own hand, the others' backs).  The replay bar says which is shown
(``s every hand``, ``s Alice's view``, ``s your view``), then who watches ("as a
spectator", "as NAME": a player's own seat is at the bottom).

Keys: ``←``/``→`` one step, ``[``/``]`` (or PgUp/PgDn) the start of the
previous/next set (High Voltage: round, which ends when the pile is flipped),
Home/End the deal and the end, ``s`` the next viewpoint, ``q``/Esc leave (the
key bar groups ``←→`` and ``[]`` so every key fits on 80 columns).  The top
line says where the replay is and whose hands are shown; the prompt line shows
what the step's action did, in the match log's words (the game's words module).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.widgets import Static

from engine.errors import IllegalActionError
from tui import words as W
from tui.i18n import N_, _
from tui.ports import Entry, ReplaySource, Unsubscribe, UpdateCallback
from tui.text import safe

if TYPE_CHECKING:
    from tui.screens.base import PlayScreen
    from tui.words import GameWords

    # Stepping is mixed in before a match screen: type checkers see it as one (at run time it derives from object,
    # so the MRO is Stepping, the game's match screen, PlayScreen, ...).
    _MatchScreen = PlayScreen
else:
    _MatchScreen = object


class ReplayHandle:
    """A seat handle over a replay (a :class:`tui.ports.SeatHandle`): the match screen
    reads it like a live match's."""

    notice = ()
    countdown: int | None = None  # a replay's countdown is shown face down, not counted
    extras: Mapping[str, Any] = MappingProxyType({})  # (no clock, no offers, no idle marks in a replay)

    def __init__(self, replay: ReplaySource, step: int = 0) -> None:
        self.replay = replay
        self.step = replay.clamp(step)
        #: what is shown: the replay's first viewpoint (every hand) or a seat's own view
        self.viewpoint: int | str = replay.viewpoints[0]

    @property
    def all_hands(self) -> bool:
        return self.viewpoint == self.replay.viewpoints[0]

    @property
    def seat(self) -> int | None:
        return self.replay.seat

    @property
    def match(self) -> Any:  # the screens only compare it; a replay has none
        return None

    def subscribe_messages(self, callback: Any) -> Any:
        return lambda: None  # (a replay says nothing beside its moves)

    @property
    def game(self) -> str:
        return self.replay.record.game

    @property
    def version(self) -> int:
        """The step shown (the actions applied so far)."""
        return self.step

    @property
    def spectator(self) -> bool:
        return self.seat is None

    @property
    def names(self) -> tuple[str, ...]:
        return self.replay.names

    @property
    def log(self) -> list[Entry]:
        return self.replay.entries(self.step)

    def view(self) -> Any:
        """Every hand: the viewer's own view (or a spectator's), the screen adds the hands;
        a seat: that seat's view at the time."""
        seat = self.viewpoint
        if self.all_hands or not isinstance(seat, int):  # (every viewpoint but the first is a seat)
            return self.replay.view(self.step)
        return self.replay.seat_view(self.step, seat)

    def hands(self) -> tuple[tuple[Any, ...], ...] | None:
        """Every seat's hand at this step when every hand is shown, else ``None``."""
        return self.replay.hands(self.step) if self.all_hands else None

    def subscribe(self, callback: UpdateCallback) -> Unsubscribe:
        return lambda: None  # a replay never changes by itself

    async def submit(self, action: Any) -> None:
        raise IllegalActionError("replay_only")

    async def resign(self) -> None:
        raise IllegalActionError("replay_only")


class Stepping(_MatchScreen):
    """What both replay screens share: the keys, where the replay is, the top bar and
    the step's words.  Mixed in before the game's match screen, which sets
    ``BINDINGS = Stepping.keys(...)`` (Textual reads bindings from widget classes only)."""

    SHOWS_RESULTS = False  # the last step is the end

    #: The game's words module (its replay screen sets it): the step's words, as its match log's.
    WORDS: GameWords

    if TYPE_CHECKING:  # what the match screen it is mixed into gives it beyond PlayScreen (types only)
        error: str

        def refresh_match(self, *args: Any, **kwargs: Any) -> None: ...  # (Voltage's takes first=)

    def __init__(self, replay: ReplaySource, step: int = 0) -> None:
        # The match screen's own __init__ (next in the MRO), watching the replay's one handle.
        super().__init__([self._start_replay(replay, step)], None)

    @staticmethod
    def keys(unit: str) -> list[BindingType]:
        """The replay keys; ``unit`` names what ``[``/``]`` jump between (the stretch's id:
        set, round)."""
        unit = W.STRETCHES.get(unit, unit)  # (marked: the key bar words it when drawn)
        steps = Binding.Group(N_("step"), compact=True)
        sets = Binding.Group(unit, compact=True)
        return [
            Binding("left", "step(-1)", N_("back"), key_display="←", group=steps),
            Binding("right", "step(1)", N_("next"), key_display="→", group=steps),
            Binding("left_square_bracket,pageup", "prev_set", unit, key_display="[", group=sets),
            Binding("right_square_bracket,pagedown", "next_set", unit, key_display="]", group=sets),
            Binding("home", "first", N_("deal"), key_display="home"),
            Binding("end", "last", N_("end"), key_display="end"),
            Binding("s", "viewpoint", N_("seat view"), key_display="s"),
            Binding("q,escape", "leave", N_("leave"), key_display="q"),
        ]

    replay: ReplaySource
    handle: ReplayHandle
    _forward: bool

    def _start_replay(self, replay: ReplaySource, step: int) -> ReplayHandle:
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

    def action_viewpoint(self) -> None:
        """Every hand → seat 0's view → seat 1's → ... → every hand."""
        self.handle.viewpoint = self.replay.next_viewpoint(self.handle.viewpoint)
        self._forward = False  # the same position: nothing lights up
        self._new_viewpoint()
        self.error = ""
        self.refresh_match()

    def _new_viewpoint(self) -> None:
        """What a screen forgets when the hands shown change."""

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
        yield from super().compose()

    def bar_text(self, width: int | None = None) -> Text:
        """The replay bar in the longest form that fits ``width`` cells (the bar's own width
        by default): where the replay is, whose cards show (``s``), who watches and the
        players.  Shortened by meaning: the position's words first ("#12  step 3/40  set
        1/5", then "3/40  set 1/5"), then who watches goes; the names stay, cut with an
        ellipsis only when nothing else is left to shorten."""
        r, step = self.replay, self.handle.step
        if width is None:
            width = max(1, self.app.size.width - 2)  # (the bar's padding)
        total = max(r.sets if r.set_steps and r.set_steps[-1] == r.last else r.sets + 1, 1)
        at, unit = min(r.set_at(step), total), W.stretch(r.unit)
        values = {"id": r.record.id, "step": step, "last": r.last, "unit": unit, "at": at, "total": total}
        where = (_("match #%(id)s  step %(step)d/%(last)d  %(unit)s %(at)d of %(total)d") % values,
                 _("#%(id)s  step %(step)d/%(last)d  %(unit)s %(at)d/%(total)d") % values,
                 f"{step}/{r.last}  {unit} {at}/{total}")
        watching = self.watcher_words()
        names = safe(" v ".join(r.names))
        forms = [(where[0], watching), (where[1], watching), (where[2], watching), (where[1], ""), (where[2], "")]
        for position, who in forms:
            t = self._bar(position, who, names)
            if t.cell_len <= width:
                return t
        t.truncate(width, overflow="ellipsis")
        return t

    def _bar(self, position: str, who: str, names: str) -> Text:
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(_(" REPLAY "), style="bold reverse")
        t.append(f"  {position}  ")
        t.append(" s ", style="bold reverse")
        t.append(" " + self.viewpoint_words(), style="bold")
        if who:
            t.append(f"  {who}", style="dim")
        t.append("  ·  " + names)  # last: the names are cut last of all, when nothing else can go
        return t

    def watcher_words(self) -> str:
        """Who watches, when it tells whose seat is at the bottom: with every hand shown
        ("as Alice", "as a spectator"); a seat's view puts that seat at the bottom and
        says so itself ("your view", "Bob's view")."""
        if not self.handle.all_hands:
            return ""
        if self.replay.seat is None:
            return _("as a spectator")
        return _("as %(name)s") % {"name": safe(self.replay.names[self.replay.seat])}

    def viewpoint_words(self) -> str:
        """Whose cards are shown: every hand, or one seat's view (``your view``: the viewer's)."""
        vp = self.handle.viewpoint
        if self.handle.all_hands:
            return _("every hand")
        if vp == self.replay.seat:
            return _("your view")
        return _("%(name)s's view") % {"name": safe(self.replay.names[vp])}  # type: ignore[index]

    def step_text(self) -> str:
        step = self.handle.step
        lines = self.WORDS.lines(self.replay.step_entries(step), self.replay.names)
        if step == 0:
            return _("The deal.") + " " + " ".join(lines) if lines else _("The deal.")
        return " · ".join(lines) if lines else (self.replay.action(step) or "")

    def _show_bar(self) -> None:
        for bar in self.query("#replay-bar").results(Static):  # (none before compose)
            bar.update(self.bar_text())

    def on_resize(self) -> None:
        self._show_bar()  # (its form is the one that fits the new width)
