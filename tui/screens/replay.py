"""A finished match, step by step, on the match screen's own board.

:class:`ReplayScreen` is the Voltage match screen
(:class:`tui.games.voltage.match.MatchScreen`) and :class:`HVReplayScreen` the High
Voltage one (:class:`tui.games.highvoltage.match.HVMatchScreen`), each reading a
:class:`ReplayHandle` instead of a live seat: the handle answers ``view()``,
``hands()`` and ``log`` for the step being shown, from a
:class:`server.replay.Replay`.  Nothing can be played: the screens' keys only
move through the match (:class:`Stepping`, shared by both).
:func:`replay_screen` picks the screen for a replay; the lobby's "Your
matches", ``ssh -t HOST replay ID`` and ``voltage replay ID`` all come here.

Every hand, by default (issue 14).  A replay is of a finished match, whose
hidden cards no longer matter to anyone, so it opens showing every hand face
up, whoever watches; ``s`` (seat view) cycles every hand → seat 0's view →
seat 1's view → ... → every hand, a seat's view being exactly what that seat
saw (its own hand, the others' backs).  The replay bar says which is shown
(``s every hand``, ``s Alice's view``, ``s your view``), then who watches ("as a
spectator", "as NAME": a player's own seat is at the bottom).

- Voltage: the board's two positions stay (the viewer's own seat at the
  bottom if they played, else seat 0); the bottom hand is the match screen's
  own :class:`~tui.games.voltage.hand.HandView` with faces, and the top seat's hand,
  where the live screen has its backs, is an :class:`OpenHand`: the same cards
  painted by the same painter as the own hand (``hand._paint_card``: reused,
  not copied), in rows that fit the narrow column, under the usual name line.
  That cell grows (the log under it shrinks; the board, which spans both, keeps
  its height); its cards are sized for a full hand, so they keep their size
  from step to step.  Both hands are drawn in full ink: the live screen dims
  the cards that cannot be played now, and in a replay none can.  In a seat's view the board's bottom side is labelled with that
  seat's name, not "your side", unless it is the viewer's own seat.
- High Voltage: every hand is an :class:`OpenHands` panel at the bottom, a
  line per seat with each card as the feed's chip, instead of the one seat's
  hand; the feed stays on screen at every step, the countdowns included (a
  live countdown hides it behind the big number, which a replay does not
  have).  The hands show during a countdown too, said to be face down then.
  Together they take at most :data:`HANDS_LINES` lines, a share per seat (a
  hand longer than its share ends in ``+N``), so the top card keeps its room.
  The live hand's note ("draw (d)", "Watching: ...") is for a live player and
  never shows here.

Keys: ``←``/``→`` one step, ``[``/``]`` (or PgUp/PgDn) the start of the
previous/next set (High Voltage: round, which ends when the pile is flipped),
Home/End the deal and the end, ``s`` the next viewpoint, ``q``/Esc leave (the
key bar groups ``←→`` and ``[]`` so every key fits on 80 columns).  The top
line says where the replay is and whose hands are shown; the prompt line shows
what the step's action did, in the match log's words.

:class:`ReplayBackend` is the backend of an app that only replays (``voltage
replay MATCH_ID`` and ``ssh -t HOST replay MATCH_ID``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Static

from engine.voltage.cards import Card
from engine.errors import IllegalActionError

from tui.text import name_text, safe
from tui.games.voltage.hand import SLOTS, OpponentHand, Slot, _paint_card
from tui.games.highvoltage.card import chip as hv_chip
from tui.games.highvoltage.table import HVHand
from tui.widgets.lines import LineWidget, Row, fit, text_rows
from tui.widgets.prompt import ActionButton
from tui.games.highvoltage.match import HVMatchScreen
from tui.games.voltage.match import MatchScreen
from tui.ports import ReplaySource, Unsubscribe, UpdateCallback


class ReplayHandle:
    """A seat handle over a replay (a :class:`tui.ports.SeatHandle`): the match screen
    reads it like a live match's."""

    notice = ""
    countdown: int | None = None  # a replay's countdown is shown face down, not counted

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
    def log(self) -> list[str]:
        return self.replay.lines(self.step)

    def view(self) -> Any:
        """Every hand: the viewer's own view (or a spectator's), the screen adds the hands;
        a seat: that seat's view at the time."""
        if self.all_hands:
            return self.replay.view(self.step)
        return self.replay.seat_view(self.step, self.viewpoint)

    def hands(self) -> tuple[tuple[Any, ...], ...] | None:
        """Every seat's hand at this step when every hand is shown, else ``None``."""
        return self.replay.hands(self.step) if self.all_hands else None

    def subscribe(self, callback: UpdateCallback) -> Unsubscribe:
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

    def __init__(self, replay: ReplaySource, step: int = 0) -> None:
        # The match screen's own __init__ (next in the MRO), watching the replay's one handle.
        super().__init__([self._start_replay(replay, step)], None)  # type: ignore[call-arg]

    @staticmethod
    def keys(unit: str) -> list[Binding]:
        """The replay keys; ``unit`` names what ``[``/``]`` jump between (set, round)."""
        steps = Binding.Group("step", compact=True)
        sets = Binding.Group(unit, compact=True)
        return [
            Binding("left", "step(-1)", "back", key_display="←", group=steps),
            Binding("right", "step(1)", "next", key_display="→", group=steps),
            Binding("left_square_bracket,pageup", "prev_set", unit, key_display="[", group=sets),
            Binding("right_square_bracket,pagedown", "next_set", unit, key_display="]", group=sets),
            Binding("home", "first", "deal", key_display="home"),
            Binding("end", "last", "end", key_display="end"),
            Binding("s", "viewpoint", "seat view", key_display="s"),
            Binding("q,escape", "leave", "leave", key_display="q"),
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
        yield from super().compose()  # type: ignore[misc]

    def bar_text(self) -> Text:
        r, step = self.replay, self.handle.step
        rec = r.record
        total = r.sets if r.set_steps and r.set_steps[-1] == r.last else r.sets + 1
        t = Text(no_wrap=True, overflow="ellipsis")
        t.append(" REPLAY ", style="bold reverse")
        t.append(f"  match #{rec.id}  step {step}/{r.last}  {r.unit} {min(r.set_at(step), max(total, 1))} of {max(total, 1)}")
        t.append("  ")  # what is shown, before who watches: cut last on a narrow screen
        t.append(" s ", style="bold reverse")
        t.append(" " + self.viewpoint_words(), style="bold")
        if r.seat is None:  # who is watching (a player sees their own seat at the bottom)
            t.append("  as a spectator", style="dim")
        else:
            t.append(f"  as {safe(r.names[r.seat])}", style="dim")
        t.append("  ·  " + safe(" v ".join(r.names)))  # last: the names are cut first on a narrow screen
        return t

    def viewpoint_words(self) -> str:
        """Whose cards are shown: every hand, or one seat's view (``your view``: the viewer's)."""
        vp = self.handle.viewpoint
        if self.handle.all_hands:
            return "every hand"
        if vp == self.replay.seat:
            return "your view"
        return f"{safe(self.replay.names[vp])}'s view"  # type: ignore[index]

    def step_text(self) -> str:
        step = self.handle.step
        lines = self.replay.step_lines(step)
        if step == 0:
            return "The deal. " + " ".join(lines) if lines else "The deal."
        return " · ".join(lines) if lines else (self.replay.action(step) or "")

    def _show_bar(self) -> None:
        for bar in self.query("#replay-bar").results(Static):  # (none before compose)
            bar.update(self.bar_text())


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
    def layout(n: int, width: int, height: int) -> tuple[int, int, int]:
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
            head.append("  ◀ to move", style="bold reverse")
        count = f"  {n} card{'s' if n != 1 else ''}"
        if head.cell_len + len(count) <= width:  # (the cards show it too: it goes first)
            head.append(count, style="dim")
        rows: list[Row] = [fit(text_rows(head)[0], width)]
        cw, ch, per_row = self.layout(n, width, height)
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
        self.border_title = "every hand (dealt face down: the countdown)" if face_down else "every hand"
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
            name = safe(self.names[seat]) if seat < len(self.names) else f"Player {seat + 1}"
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


class ReplayScreen(Stepping, MatchScreen, inherit_bindings=False):
    """Step through a finished Voltage match with the board as it was at each step, every
    hand face up (or one seat's view: ``s``)."""

    BINDINGS = Stepping.keys("set")

    # Screen CSS (not DEFAULT_CSS): it must win over match.tcss.  Only the right column's
    # top cell grows; the board spans it and the log, so the board keeps every row.
    CSS = """
    ReplayScreen #open-hand { display: none; margin: 0 0 0 1; height: 1fr; }
    ReplayScreen.-all-hands #opponent { display: none; }
    ReplayScreen.-all-hands #open-hand { display: block; }
    ReplayScreen.-all-hands #main { grid-rows: 1 7 1fr 1 4; }
    ReplayScreen.-all-hands.-wide #main { grid-rows: 1 9 1fr 1 4; }
    ReplayScreen.-all-hands.-tall #main { grid-rows: 1 13 1fr 1 6; }
    """

    def compose(self):
        for widget in super().compose():
            yield widget
            if isinstance(widget, OpponentHand):  # (still inside the grid: its cell, when shown)
                yield OpenHand(id="open-hand")

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
            label = f"{safe(names[me])}'s side"
            board.show(tuple(replace(t, bottom=replace(t.bottom, label=label)) for t in board.states))

    def _sync_buttons(self) -> None:  # type: ignore[override]
        return None  # no buttons: the key bar says everything


class HVReplayScreen(Stepping, HVMatchScreen, inherit_bindings=False):
    """Step through a finished High Voltage match: the top card, the players' counts and
    the feed as they were at each step, and every hand (or one seat's view: ``s``)."""

    BINDINGS = Stepping.keys("round")

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
            return "Everyone was stuck: the bottom card\nof the pile is on top now.\nThe countdown: hands face down."
        return "The countdown: hands face down."

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


def replay_screen(replay: ReplaySource, step: int = 0) -> ReplayScreen | HVReplayScreen:
    """The screen that shows ``replay``: its game's match screen, stepping."""
    if getattr(replay, "game", "voltage") == "high-voltage":
        return HVReplayScreen(replay, step)
    return ReplayScreen(replay, step)


class ReplayBackend:
    """The backend of an app that only shows one replay (its home screen)."""

    online = False
    named = True
    name_prefill = ""

    def __init__(self, replay: ReplaySource, *, player: Any = None) -> None:
        self.replay = replay
        self.player = player

    def home_screen(self) -> ReplayScreen | HVReplayScreen:
        return replay_screen(self.replay)

    async def rematch(self, handles: Any) -> None:
        return None  # (a replay's screens offer none)

    def rating_change(self, handles: Any) -> None:
        return None

    def close(self) -> None:
        pass
