"""The match: the board, both hands, the piles, the log, and the choice pending.

The screen talks to the match only through seat handles (:class:`tui.ports.SeatHandle`),
and data flows one way: it reads ``handle.view()``, ``log``, ``names`` and ``notice``
once, on mount, then lives on the updates (:class:`tui.ports.Update`) its subscriptions bring
(the latest view, the new log entries worded and appended, the notice, the names), and sends intents
with ``await handle.submit(action)`` without reading the match again afterwards: the
update for an accepted action arrives while it is sent.  (A replay steps by reading its
handle afresh: :meth:`MatchScreen.refresh_match`.)  With one handle it plays (or watches,
for a spectator's handle); with two it is a hot-seat match, and a pass-the-keyboard
screen hides each hand until its owner is at the keyboard.

Everything offered (keys, clicks, footer, buttons) comes from
:func:`tui.games.voltage.choices.step_for`, built from ``view.legal``.

A match with a clock (the ``clock`` extra, an :class:`engine.clock.ClockView`) shows both
banks in the top bar; a 1 Hz timer repaints only that bar while a clock runs, counting
the mover's bank down from the last update (the host flags; the screen only shows).
``a`` aborts (shown only while the host allows it, the ``abort_from`` extra), ``=`` offers
a draw against a human (shown from the turn the host allows it, the ``draw_from`` extra;
pressed before, it says from when), and ``y``/``n`` answer the other's offer (the
``draw_offer`` extra).
``h`` asks the coach for the Expert's move and why (a seat against a bot, on its turn: the
seat's ``may_hint`` extra and its handle's ``hint()``); it thinks off the loop, and the prompt line says so, then
shows the hint until the position changes.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.containers import Container
from textual.message import Message
from textual.widgets import Static

from engine import clock as CL
from engine.errors import IllegalActionError, RuleError
from engine.voltage import rules as V
from engine.voltage.cards import Card
from tui import words as W
from tui.chat.panel import ChatPanel, MatchChat, phrase_bindings
from tui.games.voltage import choices as C
from tui.games.voltage import present as P
from tui.games.voltage import words
from tui.games.voltage.board import Board
from tui.games.voltage.hand import HandView, OpponentHand, Places, keep_places
from tui.games.voltage.piles import Piles
from tui.games.voltage.scores import LOW_MS, TopBar
from tui.i18n import N_, _
from tui.pacing import pacing_of
from tui.ports import Backend, SeatHandle, Update
from tui.screens.base import PlayScreen, TooSmall
from tui.text import safe
from tui.widgets.keybar import KeyBar
from tui.widgets.log import MatchLog
from tui.widgets.prompt import ActionButton, PromptBar

SAVE_FAILED = "save_failed"  # a refusal's code: the server could not save the move (the match pauses)
PAUSED = "paused"  # a note of the match's notice: paused until the server can save moves again

log = logging.getLogger(__name__)

HERE = Path(__file__).parent

# The key bar words each description (and a group's) in the session's language when it shows it.
CARD = Binding.Group(N_("card"), compact=True)
TERMINAL = Binding.Group(N_("terminal"), compact=True)
TARGET = Binding.Group(N_("take"), compact=True)
FLIP = Binding.Group(N_("flip"), compact=True)
MOVE = Binding.Group(N_("choose"), compact=True)


def _index(parameters: tuple[object, ...]) -> int:
    """An action's first parameter, a number: the bindings pass literals (``pick_card(0)``)."""
    value = parameters[0]
    if isinstance(value, (int, str)):
        return int(value)
    raise TypeError(f"not an index: {value!r}")


class MatchScreen(PlayScreen):
    CSS_PATH = [HERE / "match.tcss"]
    STEADY_KEYS = ("offer_draw", "resign")

    BINDINGS = [
        *[Binding(k, f"pick_card({i})", N_("card"), group=CARD) for i, k in enumerate(C.HAND_KEYS)],
        *[Binding(k, f"pick_target({i})", N_("take"), group=TARGET) for i, k in enumerate(C.TARGET_KEYS)],
        Binding("up", "side('theirs')", N_("theirs"), key_display="↑/u"),
        Binding("u", "side('theirs')", N_("theirs"), show=False),
        Binding("down", "side('mine')", N_("mine"), key_display="↓/d"),
        Binding("d", "side('mine')", N_("mine"), show=False),
        *[Binding(k, f"pick_terminal({t})", N_("terminal"), group=TERMINAL) for t, k in enumerate(C.TERMINAL_KEYS)],
        *[Binding(k, f"flip({t})", N_("flip"), group=FLIP) for t, k in enumerate(C.TERMINAL_KEYS)],
        Binding("space", "draw", N_("draw"), key_display="space"),
        Binding("left", "cursor(-1)", N_("move"), group=MOVE, key_display="←"),
        Binding("right", "cursor(1)", N_("move"), group=MOVE, key_display="→"),
        Binding("enter", "confirm", N_("choose"), group=MOVE, key_display="⏎"),
        Binding("escape", "cancel", N_("cancel"), key_display="esc"),
        Binding("enter", "results", N_("results"), key_display="⏎"),
        Binding("ctrl+r", "resign", N_("resign")),
        Binding("a", "abort", N_("abort")),
        Binding("equals_sign", "offer_draw", N_("offer draw"), key_display="="),
        Binding("equals_sign", "draw_not_yet", show=False),  # (says from which turn it will work)
        Binding("y", "answer_draw(True)", N_("accept draw")),
        Binding("n", "answer_draw(False)", N_("decline")),
        Binding("q", "leave", N_("leave")),
        Binding("tab", "chat", N_("chat"), key_display="tab"),
        *phrase_bindings(),
        Binding("h", "hint", N_("hint")),
    ]

    class Changed(Message):
        """Updates arrived (posted from the handles' update callback; see :meth:`_drain`)."""

    def __init__(self, handles: Sequence[SeatHandle[V.VoltageView]], backend: Backend | None = None, *,
                 coach: bool = False) -> None:
        super().__init__()
        if not handles:
            raise ValueError("a match screen needs at least one seat handle")
        self.handles = list(handles)
        self.backend = backend
        self.hotseat = len(self.handles) > 1
        self.viewer = self.handles[0]
        self.concealed = False  # hot-seat: the hand stays hidden until its owner confirms
        self.sel = C.NOTHING
        self.cursor = 0
        self.error = ""
        self._save_error = ""  # the error shown for a move the store could not save: it goes when play resumes
        self._paused_seen = False  # ... once the pause it caused was seen to end
        self.notice = W.notice(self.viewer.notice)  # the status line, worded
        self.view: V.VoltageView = self.viewer.view()
        self.places: Places = keep_places(self.view.hand or ())  # where each hand card stands (its key)
        self._placed: tuple[tuple[int | None, int], tuple[Card, ...]] = ((self.view.seat, self.view.turn),
                                                                          self.view.hand or ())
        self.lines: list[str] = []  # the log shown, worded: the first read, then each update's new entries
        self._views: dict[int | None, V.VoltageView] = {}  # each handle's seat -> its latest view
        self._versions: dict[int | None, int] = {}  # ... and that view's version
        self._inbox: list[tuple[int | None, Update[V.VoltageView]]] = []  # updates not yet shown
        self.step = C.Step(C.WAIT, "")
        self.notes: dict[int, str] = {}
        self._note_gen = [0, 0, 0, 0]
        self._score_flash: int | None = None
        self._unsubscribe: list[Any] = []
        self._busy = False
        self._results_done = not self.SHOWS_RESULTS
        self._passing = False
        self.names: tuple[str, ...] = tuple(self.viewer.names)
        # Voltage's extras (declared with its server registry entry), read once here, then from each update.
        extras = self.viewer.extras
        self.clock: CL.ClockView | None = extras.get("clock")
        self.abort_from: float | None = extras.get("abort_from")
        self.draw_offer: int | None = extras.get("draw_offer")
        self.draw_from: int | None = extras.get("draw_from")
        self._vs_human = bool(extras.get("against_human", False))
        self._coached = bool(extras.get("may_hint", False))  # the coach gives this seat hints
        self._abort_shown = False
        self._tick_handle: asyncio.TimerHandle | None = None
        self._retick = False
        self._phase = random.random()  # where in each second this screen's clock ticks (_schedule_tick)
        self.chat = MatchChat(backend, self.handles)  # (none in a local match or a replay)
        # The coach's hint (a seat against a bot): its line, and the position it is for.
        self.hint_line = ""
        self.hint_why = ""
        self._hint_at: tuple[int, str] | None = None
        self.coach_on = coach  # a hint shows by itself at each of the seat's turns (the lesson's match)

    # -- layout --------------------------------------------------------------

    def compose(self):
        yield TooSmall(id="too-small")
        yield Static("", id="notice")
        # One grid, no nested containers: every widget Textual must visit on a
        # redraw costs time on a server drawing hundreds of these screens.
        with Container(id="main"):
            yield TopBar(id="topbar")
            yield Board()
            yield OpponentHand(id="opponent")
            yield MatchLog()
            yield from self.chat.compose()
            yield PromptBar()
            yield HandView()
            yield Piles()
        yield KeyBar()

    def on_mount(self) -> None:
        self._w: dict[str, Any] = {
            "notice": self.query_one("#notice", Static),
            "topbar": self.query_one(TopBar),
            "board": self.query_one(Board),
            "opponent": self.query_one(OpponentHand),
            "log": self.query_one(MatchLog),
            "piles": self.query_one(Piles),
            "hand": self.query_one(HandView),
            "prompt": self.query_one(PromptBar),
        }
        self.chat.mount(self._w["log"])
        for h in self.handles:  # (hot-seat: both seats' views come, each in its own update)
            self._unsubscribe.append(h.subscribe(lambda update, seat=h.seat: self._match_updated(seat, update)))
        # What changed between __init__ and subscribing (a reconnect) is read once, here.
        if self.hotseat:
            self._seat_viewer(self.handles[0].view().to_move)
        self.refresh_match(first=True)
        self._schedule_tick()

    def _schedule_tick(self) -> None:
        """The next tick: when the shown clocks change, or abort's wait is over; none while neither can.

        The running bank's shown second changes once a second (:func:`engine.clock.format_ms`
        rounds up).  Above :data:`LOW_MS` the screen shows it at its own phase within the
        second (:attr:`_phase`, a second late at most), so that a server's screens do not all
        repaint in the same instant when their matches' turns began together; under it, at
        each whole second, as the bank falls.  Abort is looked at once, when its wait is over.
        A clock stopped and no abort to come: no timer at all.

        A loop timer, not a Textual one: a Textual interval costs a task's wake-up and a
        message per screen per second, a third of a tick's cost with hundreds of screens."""
        self._cancel_tick()
        now = time.time()
        delays: list[float] = []
        clock = self.clock
        if clock is not None and clock.running is not None:
            ms = clock.remaining(clock.running, now)
            if ms > LOW_MS + 1000:  # (a timer that fires a hair early must not tick twice)
                delay = (self._phase - now) % 1.0
                delays.append(delay if delay > 0.01 else delay + 1.0)
            elif ms > 0:
                delays.append((ms % 1000 or 1000) / 1000 + 0.002)
        if self.abort_from is not None and self.abort_from > now:
            delays.append(self.abort_from - now + 0.002)
        if delays:
            self._tick_handle = asyncio.get_running_loop().call_later(min(delays), self._tick)

    def _cancel_tick(self) -> None:
        if self._tick_handle is not None:
            self._tick_handle.cancel()
            self._tick_handle = None

    def on_unmount(self) -> None:
        self._cancel_tick()
        for unsubscribe in self._unsubscribe:
            try:
                unsubscribe()
            except Exception:  # pragma: no cover - a finished match may already be gone
                log.exception("unsubscribe failed")
        self._unsubscribe.clear()

    def _match_updated(self, seat: int | None, update: Update[V.VoltageView]) -> None:
        """Runs on the event loop from the match's broadcast: keep the update, and wake
        the screen with a message (its handler, or the end of a submit, shows it)."""
        self._inbox.append((seat, update))
        self.post_message(self.Changed())

    @on(Changed)
    def _changed(self, message: Changed) -> None:
        self._drain()

    def _drain(self) -> bool:
        """Show the updates that arrived: the latest view per seat, the new log lines (of
        the first handle: the log is the same for every seat), the notice and the names.
        A hot-seat screen waits until both seats' views are of one version (they come as
        two updates of one change), so it never shows one seat's new view beside the
        other's old one.  True if it redrew."""
        if not self._inbox:
            return False
        inbox, self._inbox = self._inbox, []
        for seat, update in inbox:
            self._views[seat] = update.view
            self._versions[seat] = update.version
            if seat == self.handles[0].seat:
                if update.names:
                    self.names = W.seat_names(update.names)
                self.lines.extend(words.lines(update.entries, self.names))  # worded as they come
                self.notice = W.notice(update.notice)
                self._note_pause(update.notice)
                clock = update.extra("clock")
                if clock != self.clock:
                    self.clock = clock
                    self._retick = True
                abort_from = update.extra("abort_from")
                if abort_from != self.abort_from:
                    self.abort_from = abort_from
                    self._retick = True
                self.draw_offer = update.extra("draw_offer")
                self.draw_from = update.extra("draw_from")
                self._coached = bool(update.extra("may_hint", False))
        if len(set(self._versions.values())) > 1:
            return False
        self._show()
        if self._retick and self.is_mounted:
            self._retick = False
            self._schedule_tick()  # the running bank's seconds fall at new times, or abort's wait moved
        return True

    def on_resize(self) -> None:
        self.call_after_refresh(self._render_all)

    # -- the state of the screen ---------------------------------------------

    def _seat_viewer(self, seat: int) -> None:
        for h in self.handles:
            if h.seat == seat:
                self.viewer = h
                return

    def refresh_match(self, *, first: bool = False) -> None:
        """Read the match afresh through the handles and redraw: the first time, and a
        replay's every step (a live match's changes come as updates: :meth:`_drain`)."""
        self._inbox.clear()
        for h in self.handles:
            self._views[h.seat] = h.view()
            self._versions[h.seat] = h.version
        self.names = W.seat_names(self.viewer.names)
        self.lines = words.lines(self.viewer.log, self.names)
        self.notice = W.notice(self.viewer.notice)
        self._show(first=first)

    def _show(self, *, first: bool = False) -> None:
        """Show the latest views (the seat to move's, in hot-seat) and what follows from them."""
        if self.hotseat:
            now = self._views[self.viewer.seat]
            if not now.over and now.to_move != self.viewer.seat:
                self._seat_viewer(now.to_move)
                self.concealed = True
                self.sel = C.NOTHING
            elif first and not now.over:
                self.concealed = True
        prev = self.view
        self.view = self._views[self.viewer.seat]
        self._place_cards()
        if not first:
            self._detect_moments(prev, self.view)
            if not self.hotseat and prev.my_turn != self.view.my_turn:
                alert = getattr(self.app, "turn_alert", None)
                if alert is not None:
                    alert(self.view.my_turn)  # "your turn" (a bell and the window's title), or not
        self._recompute()
        self._render_all()
        if self.hotseat and self.concealed and not self._passing and not self.view.over:
            self._ask_to_pass()
        self.chat.seen(self.view.over)
        if self.view.over and not self._results_done:
            self._results_done = True
            self.results_after(pacing_of(self.app).results_delay)
        if self.coach_on and self._may_hint() and self._hint_at != (self.view.turn, self.view.phase):
            self.action_hint()

    def _place_cards(self) -> None:
        """The hand's places: kept for the rest of a turn (a card's key does not change after
        the first card of two), closed up when the turn or the seat changes."""
        view, hand = self.view, self.view.hand or ()
        (seat_turn, before), now = self._placed, (view.seat, view.turn)
        shown = [before[i] if i is not None and i < len(before) else None for i in self.places]
        self.places = keep_places(hand, shown if now == seat_turn else ())
        self._placed = (now, hand)

    def _hand_index(self, place: int) -> int | None:
        """The hand card at ``place`` (a key's index), if any."""
        return self.places[place] if 0 <= place < len(self.places) else None

    def place_of(self, index: int) -> int:
        """Where the hand card of that index stands."""
        return self.places.index(index)

    def _recompute(self) -> None:
        old_kind, old_sel = self.step.kind, self.sel
        if self.concealed:
            name = self.names[self.view.to_move]
            self.step = C.Step(C.WAIT, _("Pass the keyboard to %(who)s.") % {"who": name})
        else:
            self.step = C.step_for(self.view, self.sel, self.names)
        self.sel = self.step.selection
        if self.step.kind != old_kind or self.sel != old_sel:
            self.cursor = 0
        n = len(self.step.cursor_options)
        self.cursor = self.cursor % n if n else 0
        self.refresh_bindings()

    def _detect_moments(self, prev: V.VoltageView, now: V.VoltageView) -> None:
        """A flip and a scored set are moments: a highlight on the terminal, a line in the log."""
        for t in range(4):
            if prev.plus[t] != now.plus[t]:
                self._note(t, _("↕ now %(sign)s") % {"sign": "+" if now.plus[t] else "−"})
        if now.scores != prev.scores:
            winner = 0 if now.scores[0] > prev.scores[0] else 1
            for t in range(4):
                if now.count(t) == 0 and prev.count(t) > 0:
                    self._note(t, f"★ {safe(self.names[winner])}")
            self._score_flash = winner
            self._after(self._flash_seconds(), self._end_score_flash)

    def _after(self, delay: float, callback: Any) -> None:
        if delay > 0:
            self.set_timer(delay, callback)
        else:  # a zero timer is not allowed: run it after the next refresh
            self.call_after_refresh(callback)

    def _flash_seconds(self) -> float:
        return pacing_of(self.app).flash_seconds

    def _note(self, t: int, text: str) -> None:
        self.notes[t] = text
        self._note_gen[t] += 1
        gen = self._note_gen[t]

        def clear() -> None:
            if self._note_gen[t] == gen:
                self.notes.pop(t, None)
                self._render_all()

        self._after(self._flash_seconds(), clear)

    def _end_score_flash(self) -> None:
        self._score_flash = None
        self._render_all()

    # -- drawing -------------------------------------------------------------

    @property
    def me(self) -> int:
        return C.me_of(self.view)

    def _cursor_option(self) -> C.Option | None:
        opts = self.step.cursor_options
        return opts[self.cursor] if opts else None

    def _render_all(self) -> None:
        if not self.is_mounted:
            return
        view, step, names = self.view, self.step, self.names
        me, opp = self.me, 1 - self.me
        cur = self._cursor_option()

        w = self._w
        notice = w["notice"]
        hinted = self._hint_at == (view.turn, view.phase) and view.my_turn and bool(self.hint_line)
        shown = self.notice or (self.hint_why if hinted else "")  # (the hint's why, under any status)
        if notice.display != bool(shown) or shown:
            notice.update(Text(safe(shown)))
            notice.display = bool(shown)

        self._show_topbar()

        w["board"].show(P.terminals(view, step, names, me=me, cursor=cur, notes=self.notes))

        w["opponent"].show(
            names[opp], view.hand_backs[opp], to_move=not view.over and view.to_move == opp
        )
        w["log"].show(self.lines)
        w["piles"].show((view.draw_count, view.draw_top_transformer, P.draw_label(step)),
                        (view.discard_count, view.discard_top))

        hand = w["hand"]
        my_turn = view.my_turn and not self.concealed
        if view.hand is None or self.concealed:
            hand.show_backs(view.hand_backs[me], my_turn=my_turn)
        else:
            keys: dict[int, str] = {}
            if step.kind == C.CARD:
                playable = C.playable_slots(view)
                keys = {i: C.HAND_KEYS[p] for p, i in enumerate(self.places[:len(C.HAND_KEYS)]) if i in playable}
            cursor_slot = cur.slot if cur is not None else None
            hand.show_faces(view.hand, keys=keys, selected=self.sel.slot, cursor=cursor_slot, my_turn=my_turn,
                            places=self.places)

        offer = self.draw_offer
        offered = offer is not None and view.seat is not None and offer != view.seat
        w["prompt"].show(
            _("%(who)s offers a draw: [y] accept, [n] decline") % {"who": safe(names[offer])}
            if offer is not None and offered
            else self.hint_line if hinted else step.prompt,
            error=self.error,
            mine=offered or P.prompt_is_mine(step),
            buttons=P.prompt_buttons(step, view, selecting=not self.sel.empty),
        )

    def _clocks(self) -> tuple[tuple[str, bool], tuple[str, bool]] | None:
        """Each seat's bank as shown now, and whether it is low (None: no clock)."""
        clock = self.clock
        if clock is None:
            return None
        now = time.time()
        ms = [clock.remaining(s, now) for s in (0, 1)]
        return ((CL.format_ms(ms[0]), ms[0] < LOW_MS), (CL.format_ms(ms[1]), ms[1] < LOW_MS))

    def _show_topbar(self, *, now: bool = False) -> None:
        view = self.view
        self._w["topbar"].show(
            self.names,
            view.scores,
            self.me,
            None if view.over else view.to_move,
            view.turn,
            flash=self._score_flash,
            clocks=self._clocks(),
            now=now,
        )

    def _tick(self) -> None:
        """Repaint the clocks (only the top bar's digits), and offer abort when its wait is over."""
        self._tick_handle = None
        if not self.is_mounted:
            return
        try:
            if self.clock is not None and self.clock.running is not None:
                self._show_topbar(now=True)  # only the digits change: no frame for them
            if self._may_abort() != self._abort_shown:
                self.refresh_bindings()
        except Exception:  # a loop callback: Textual does not see its errors
            log.exception("clock tick failed")
        self._schedule_tick()

    def _may_abort(self) -> bool:
        """Abort is offered online only (offline, an unrated match is just left), while the host allows it."""
        return (self.abort_from is not None and not self.hotseat and self.view.seat is not None
                and bool(getattr(self.backend, "online", False))
                and not self.view.over and time.time() >= self.abort_from)

    # -- choosing ------------------------------------------------------------

    def _playing(self) -> bool:
        return not self.concealed and not self._busy and not self.too_small

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("chat", "chat_phrase"):
            return self.chat.room is not None
        step = self.step
        kind = step.kind
        if action in ("pick_card", "side", "pick_terminal", "pick_target", "flip", "draw", "cursor", "confirm"):
            if not self._playing():
                return False
        if action == "pick_card":
            i = self._hand_index(_index(parameters))
            return kind == C.CARD and i is not None and i in C.playable_slots(self.view)
        if action == "side":
            key = C.THEIRS_KEY if parameters[0] == "theirs" else C.MINE_KEY
            return kind == C.SIDE and step.by_key(key) is not None
        if action == "pick_terminal":
            return kind == C.TERMINAL and step.by_key(C.TERMINAL_KEYS[_index(parameters)]) is not None
        if action == "pick_target":
            return kind == C.TARGET and step.by_key(C.TARGET_KEYS[_index(parameters)]) is not None
        if action == "flip":
            return kind == C.FLIP and step.by_key(C.TERMINAL_KEYS[_index(parameters)]) is not None
        if action == "draw":
            return bool(step.buttons)
        if action == "cursor":
            return bool(step.cursor_options)
        if action == "confirm":  # the choice under the cursor, or the only one (the draw pile, pass)
            return self._confirmed() is not None
        if action == "cancel":
            return not self.sel.empty or bool(self.error)
        if action == "results":
            return self.view.over
        if action == "resign":
            return self.view.seat is not None and not self.view.over and not self.concealed
        if action == "leave":
            return self.view.seat is None or self.view.over
        if action == "abort":
            self._abort_shown = self._may_abort()
            return self._abort_shown and not self.concealed
        if action in ("offer_draw", "draw_not_yet"):
            start = self.draw_from
            if not (self._vs_human and not self.hotseat and self.view.seat is not None and not self.view.over
                    and self.draw_offer is None and start is not None):
                return False
            return (self.view.turn >= start) == (action == "offer_draw")
        if action == "hint":
            return self._may_hint()
        if action == "answer_draw":
            return (self.draw_offer is not None and self.view.seat is not None and not self.view.over
                    and self.draw_offer != self.view.seat)
        return True

    def _may_hint(self) -> bool:
        """The coach offers hints to a seat against a bot, on its turn (never between people)."""
        return not self.hotseat and not self.concealed and self.view.my_turn and self._coached

    def action_hint(self) -> None:
        """Ask the coach for the Expert's move (it thinks off the loop; the prompt says so)."""
        at = (self.view.turn, self.view.phase)
        if self._hint_at == at:
            return  # asked already: thinking, or shown
        self._hint_at = at
        self.hint_line = words.hint_thinking()
        self.hint_why = ""
        self._render_all()
        self.run_worker(self._ask_hint(at), group="hint")

    async def _ask_hint(self, at: tuple[int, str]) -> None:
        view = self.view
        why = ""
        try:
            hint = await self.viewer.hint()  # (offered only by handles that have it: _may_hint)
        except (IllegalActionError, RuleError) as e:
            line = words.refusal(e)
        except Exception as e:
            log.exception("hint failed")
            line = words.hint_failed(e)
        else:
            line, why = words.hint_line(view, hint), words.hint_why(hint)
        if self._hint_at == at:
            self.hint_line, self.hint_why = line, why
            self._render_all()

    def _redraw(self) -> None:
        self._recompute()
        self._render_all()

    async def _choose(self, option: C.Option | None) -> None:
        if option is None:
            return
        self.error = ""
        if option.action is not None:
            await self.submit(option.action)
        else:
            self.sel = option.select or C.NOTHING
            self._redraw()

    def _refused(self, e: Exception) -> None:
        """A refusal shown in the prompt's line (one for a move the store could not save stays
        until the match resumes, then goes: :meth:`_drain`)."""
        self.error = words.refusal(e)
        self._save_error = self.error if getattr(e, "code", None) == SAVE_FAILED else ""
        self._paused_seen = False
        self._note_pause(self.viewer.notice)

    def _note_pause(self, notice: Any) -> None:
        """Follow the match's pause while the store cannot save: once a notice without it follows one
        with it, play has resumed, and the error of the move that could not be saved goes."""
        if not self._save_error:
            return
        if any(getattr(n, "id", None) == PAUSED for n in notice):
            self._paused_seen = True
        elif self._paused_seen:
            if self.error == self._save_error:
                self.error = ""
            self._save_error = ""

    async def submit(self, action: V.Action) -> None:
        """Send an intent through the handle; a refusal is shown in one line and loses nothing."""
        if self._busy:
            return
        self._busy = True
        try:
            await self.viewer.submit(action)
        except (IllegalActionError, RuleError) as e:
            self._refused(e)
        except Exception as e:  # a connection problem must not crash the screen
            log.exception("submit failed")
            self.error = _("could not send that: %(error)s") % {"error": e}
        else:
            self.error = ""
            self.sel = C.NOTHING
        finally:
            self._busy = False
        # The match's update for this action came while it was sent: show it (no second
        # read of the match); a refusal changed nothing but the prompt's line.
        if not self._drain():
            self._redraw()

    def action_chat(self) -> None:
        self.chat.toggle()

    async def action_chat_phrase(self, phrase: str) -> None:
        await self.chat.phrase(phrase)

    @on(ChatPanel.Left)
    def _chat_left(self) -> None:
        self.chat.left()

    async def action_pick_card(self, place: int) -> None:
        hand = self.view.hand or ()
        slot = self._hand_index(place)
        if slot is None or slot >= len(hand):
            return
        self.error = ""
        if self.sel.slot == slot:
            self.sel = C.NOTHING
        else:
            self.sel = C.Selection(slot, hand[slot])
        self._redraw()

    async def action_side(self, which: str) -> None:
        await self._choose(self.step.by_key(C.THEIRS_KEY if which == "theirs" else C.MINE_KEY))

    async def action_pick_terminal(self, t: int) -> None:
        await self._choose(self.step.by_key(C.TERMINAL_KEYS[t]))

    async def action_pick_target(self, i: int) -> None:
        await self._choose(self.step.by_key(C.TARGET_KEYS[i]))

    async def action_flip(self, t: int) -> None:
        await self._choose(self.step.by_key(C.TERMINAL_KEYS[t]))

    async def action_draw(self) -> None:
        buttons = self.step.buttons
        if buttons:
            await self._choose(buttons[0])

    def action_cursor(self, delta: int) -> None:
        n = len(self.step.cursor_options)
        if n:
            self.cursor = (self.cursor + delta) % n
            self._render_all()

    def _confirmed(self) -> C.Option | None:
        """What Enter picks: the option under the cursor, or a step's one button when it
        has nothing else (drawing two with an empty hand, done, pass)."""
        option = self._cursor_option()
        if option is None and len(self.step.buttons) == 1:
            option = self.step.buttons[0]
        return option

    async def action_confirm(self) -> None:
        await self._choose(self._confirmed())

    def action_cancel(self) -> None:
        self.error = ""
        self.sel = self.sel.back()
        self._redraw()

    @property
    def playing(self) -> bool:
        return self.view.seat is not None and not self.view.over

    def action_resign(self) -> None:
        from tui.dialogs.confirm import ConfirmScreen

        async def done(yes: bool | None) -> None:
            if yes and self.view.seat is not None and not self.view.over:
                await self.submit(V.Resign(self.view.seat))

        self.app.push_screen(ConfirmScreen(_("Resign this match?"), yes=_("resign"), no=_("keep playing")), done)

    def action_abort(self) -> None:
        from tui.dialogs.confirm import ConfirmScreen

        async def done(yes: bool | None) -> None:
            if yes and self.view.seat is not None and not self.view.over:
                await self.submit(V.Abort(self.view.seat))

        self.app.push_screen(ConfirmScreen(_("Abort this match? (no result, no rating change)"),
                                           yes=_("abort"), no=_("keep playing")), done)

    async def action_offer_draw(self) -> None:
        await self._extra("offer_draw")

    def action_draw_not_yet(self) -> None:
        """``=`` before a draw may be offered: when it may (the key shows from then on)."""
        if self.draw_from is not None:
            self._explain(words.refusal(IllegalActionError("draw_offer_from", turn=self.draw_from)))

    async def action_answer_draw(self, accept: bool) -> None:
        await self._extra("answer_draw", accept)

    async def _extra(self, name: str, *args: Any) -> None:
        """A draw offer or its answer, through the handle; a refusal shows in the prompt's line."""
        call = getattr(self.viewer, name, None)
        if call is None:
            return
        try:
            await call(*args)
        except (IllegalActionError, RuleError) as e:
            self._refused(e)
        except Exception as e:
            log.exception("%s failed", name)
            self.error = _("could not send that: %(error)s") % {"error": e}
        else:
            self.error = ""
        if not self._drain():
            self._redraw()

    def rematch_screen(self, handles: Any) -> Any:
        return MatchScreen(handles, self.backend)

    # -- hot-seat ------------------------------------------------------------

    def _ask_to_pass(self) -> None:
        from tui.dialogs.pass_keyboard import PassKeyboardScreen

        self._passing = True
        name = self.names[self.view.to_move]

        def ready(_: object = None) -> None:
            self._passing = False
            self.concealed = False
            self.error = ""
            self._show()

        self.app.push_screen(PassKeyboardScreen(name, self._last_moves()), ready)

    def _last_moves(self) -> list[str]:
        """The public lines since the other player's turn began (for the pass screen)."""
        return words.lines(self.viewer.log[-6:], self.names)

    # -- mouse ---------------------------------------------------------------

    @on(Board.SideClicked)
    async def side_clicked(self, message: Board.SideClicked) -> None:
        view, step = self.view, self.step
        t = message.terminal
        side = (1 - self.me) if message.position == "top" else self.me
        card = None
        if message.index is not None:
            cards = view.board[t][side]
            if message.index < len(cards):
                card = cards[message.index]
        if not self._playing():
            self._explain(C.explain_click(view, self.sel, t, side) if not self.concealed else "")
            return
        if step.kind == C.TARGET and t != self.sel.terminal and self.sel.card is not None:
            # a click on another terminal: go back to choosing the terminal
            step = C.step_for(view, C.Selection(self.sel.slot, self.sel.card), self.names)
        if step.kind == C.TARGET:
            for o in step.options:
                if o.terminal == t and o.side == side and card is not None and o.target == card:
                    await self._choose(o)
                    return
            if self.sel.card is not None:
                self._explain(_("Click one of the highlighted cards your %(card)s can take.") % {
                    "card": words.card_name(self.sel.card)})
            else:
                self._explain(_("Click one of the highlighted cards your card can take."))
            return
        for o in step.options:
            if o.terminal == t and o.side == side and o.target is None and not o.block:
                if step.kind == C.TERMINAL and o.select is not None and card is not None:
                    # a special aimed straight at a card it can take
                    sub = C.step_for(view, o.select, self.names)
                    for so in sub.options:
                        if so.target == card:
                            await self._choose(so)
                            return
                await self._choose(o)
                return
        self._explain(C.explain_click(view, self.sel, t, side))

    @on(Board.BlockClicked)
    async def block_clicked(self, message: Board.BlockClicked) -> None:
        await self._terminal_clicked(message.terminal)

    @on(Board.FrameClicked)
    async def frame_clicked(self, message: Board.FrameClicked) -> None:
        await self._terminal_clicked(message.terminal)

    async def _terminal_clicked(self, t: int) -> None:
        if not self._playing():
            return
        step = self.step
        for o in step.options:
            if o.terminal == t and (o.block or step.kind == C.TERMINAL):
                await self._choose(o)
                return
        self._explain(C.explain_click(self.view, self.sel, t, None))

    @on(HandView.CardClicked)
    async def hand_card_clicked(self, message: HandView.CardClicked) -> None:
        place, slot = message.slot, self._hand_index(message.slot)
        if slot is None:
            return
        if not self._playing():
            if self.view.seat is not None and not self.view.my_turn and not self.view.over:
                self._explain(_("It is not your turn."))
            return
        if self.step.kind in (C.CARD, C.SIDE, C.TERMINAL, C.TARGET) and slot in C.playable_slots(self.view):
            await self.action_pick_card(place)
            return
        self._explain(self._why_not_card(slot))

    def _why_not_card(self, slot: int) -> str:
        view = self.view
        if view.phase == "flip":
            return _("Flip a block first: click a terminal's +/− block.")
        if not view.my_turn:
            return _("It is not your turn.")
        hand = view.hand or ()
        if view.phase == "second" and slot < len(hand) and hand[slot].colour == view.first_terminal:
            return _("The second card must go to a terminal other than %(colour)s.") % {
                "colour": words.colour(view.first_terminal)}
        return _("That card cannot be played now.")

    @on(Piles.DrawClicked)
    async def draw_clicked(self) -> None:
        if not self._playing():
            return
        if self.step.buttons:
            await self._choose(self.step.buttons[0])
        elif self.view.my_turn:
            await self.submit(V.DRAW)  # refused with the engine's reason (worded by the screen)
        else:
            self._explain(_("It is not your turn."))

    @on(ActionButton.Pressed)
    async def button_pressed(self, message: ActionButton.Pressed) -> None:
        name = message.action
        if name in ("draw", "pass"):
            await self.action_draw()
        elif name == "cancel":
            self.action_cancel()
        elif name == "results":
            self.show_results()

    def _explain(self, text: str) -> None:
        self.error = text
        self._render_all()
