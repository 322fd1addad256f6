"""High Voltage: the pile's top card, big; your hand; the others; the feed; the countdown.

Real time, so there is no selection step: a card's key (``1``-``9``, ``0``,
then letters), a click on it, or ``Enter`` on the card under the cursor
(``←``/``→``) plays it at once, aimed at the top card on the screen; ``d``
draws from your pile, ``s`` declares "stuck".  A play that arrives after
someone else covered that top card is refused ("too slow: ...") and the card
stays in your hand.  Input during the countdown is ignored with a message.

"The top card on the screen" means the one last *drawn*, not the newest view:
an update can be read (``self.view`` already shows the next top card) a frame
before it is painted, and a key pressed in that frame was aimed at the card the
player saw.  Aiming at ``self.view`` let such a key land on a card the player had
never seen (3 of 44 simultaneous races).  So the top card widget records what
it paints (:class:`AimedTopCard`), and every input path (number and letter keys,
arrows and Enter, a click, practice alike) goes through :meth:`HVMatchScreen.play_slot`
and :meth:`HVMatchScreen.aim`, which aim there.

Idling: the seats the host marks idle (the ``idle`` extra) show as
"Bob (idle)" in the players' list on every screen.  A seat still in that may vote
gets a line "Bob is idle: press K to continue without Bob" and the key ``K``
(capital: every free lower-case letter is a card's key); a seat a bot plays for its
idle person (the ``bot_playing`` extra) is told so, its card keys are refused with the
reason, and ``t`` takes the seat back (``t`` is a card's key otherwise: its binding
comes first and is enabled only then).  Both keys need a handle that can vote and
take a seat back (:class:`IdleVoting`); a replay's cannot, and shows neither.

The screen never says which cards fit (finding them is the game), except in
practice mode (local play only), which marks them and names the values that
fit.

Like :class:`tui.games.voltage.match.MatchScreen`, it talks to the match only through
its seat handle (:class:`tui.ports.SeatHandle`), one way: ``view()``, ``log``,
``names``, ``notice`` and ``countdown`` are read once, on mount; after that the screen
keeps the latest :class:`tui.ports.Update` (view, countdown, notice, names) and appends
each update's feed lines, and ``submit`` is never followed by a second read.  The words
shown come from :mod:`tui.games.highvoltage.present`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from rich.text import Text
from textual import on
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Static

from engine.errors import IllegalActionError, RuleError
from engine.highvoltage import rules as H
from tui import words as W
from tui.chat.panel import ChatPanel, MatchChat, phrase_bindings
from tui.games.highvoltage import present as P
from tui.games.highvoltage import words
from tui.games.highvoltage.card import HVCountdown, HVTopCard
from tui.games.highvoltage.table import CARD_KEYS, HVFeed, HVHand, HVPlayers, reconcile
from tui.i18n import N_, _
from tui.pacing import DEFAULT, pacing_of
from tui.ports import Backend, SeatHandle, Update
from tui.screens.base import PlayScreen, TooSmall
from tui.text import safe
from tui.widgets.keybar import KeyBar
from tui.widgets.prompt import ActionButton

log = logging.getLogger(__name__)

HERE = Path(__file__).parent

ERROR_SECONDS = DEFAULT.hv_error_seconds  # how long a refusal stays on the prompt line
# A key pressed this soon after the top card changed on screen was most likely aimed at
# the card before (a person needs about this long to see a change): when the card does
# not fit the new top but fits that one, it is aimed there, and the host answers "too
# slow" rather than "does not fit".  (Both are :class:`tui.pacing.Pacing` fields: the
# app's pacing decides; these name people's values.)
AIM_GRACE_SECONDS = DEFAULT.hv_aim_grace


@runtime_checkable
class IdleVoting(Protocol):
    """A seat handle that can vote to continue without idle seats and take its own seat
    back from a bot (:class:`server.host.highvoltage.HVSeatHandle`)."""

    async def continue_without(self, seat: int | None = None) -> None: ...

    async def take_seat_back(self) -> None: ...


class AimedTopCard(HVTopCard):
    """The top card, remembering the card it last painted (``drawn``: face and number):
    what the player has seen, so what a play is aimed at.  ``on_drawn(before, now)`` is
    called when that changes."""

    def __init__(self, id: str | None = None, on_drawn: Any = None) -> None:
        super().__init__(id=id)
        self.drawn: tuple[H.Face, int] | None = None
        self._on_drawn = on_drawn

    def render(self) -> Text:
        # Called by the compositor as it paints this widget, not when show() stores a card.
        if self.face is not None and (self.face, self.top_no) != self.drawn:
            before, self.drawn = self.drawn, (self.face, self.top_no)
            if self._on_drawn is not None:
                self._on_drawn(before, self.drawn)
        return super().render()


class HVMatchScreen(PlayScreen):
    """A High Voltage match seen from one seat (or by a spectator)."""

    BINDINGS = [
        # first: while a bot plays this seat, t takes it back (else t plays a card)
        Binding("t", "take_back", N_("take my seat back")),
        # first too, as the key bar keeps the first keys that fit: the vote of the moment before
        # the keys the prompt's buttons also offer
        Binding("K", "continue_without", N_("continue without idle"), key_display="K"),
        Binding(CARD_KEYS[0], "play_slot(0)", N_("play"), key_display="1-9 0 a…"),
        *[Binding(k, f"play_slot({i})", N_("play"), show=False) for i, k in enumerate(CARD_KEYS) if i],
        Binding("left", "cursor(-1)", N_("move"), key_display="←→", show=False),
        Binding("right", "cursor(1)", N_("move"), show=False),
        Binding("enter", "play_cursor", N_("play ⏎"), key_display="⏎", show=False),
        Binding("d", "draw", N_("draw")),
        Binding("s", "stuck", N_("stuck")),
        Binding("enter", "results", N_("results"), key_display="⏎"),
        Binding("ctrl+r", "resign", N_("resign")),
        Binding("q", "leave", N_("leave")),
        Binding("tab", "chat", N_("chat"), key_display="tab"),
        *phrase_bindings(),
    ]

    CSS_PATH = [HERE / "match.tcss"]

    class Changed(Message):
        """Updates arrived (posted from the handle's update callback; see :meth:`_drain`)."""

    def __init__(self, handles: Sequence[SeatHandle[H.HighVoltageView]], backend: Backend | None = None, *,
                 practice: bool = False) -> None:
        super().__init__()
        if not handles:
            raise ValueError("a match screen needs a seat handle")
        self.handles = list(handles)
        self.handle = self.handles[0]
        self.backend = backend
        # Practice marks the cards that fit; never online.
        self.practice = bool(practice) and not (backend is not None and backend.online)
        self.view: H.HighVoltageView = self.handle.view()
        self.names: tuple[str, ...] = tuple(self.handle.names)
        self.lines: list[str] = []  # the feed shown: the first read, then each update's new lines
        self.notice = ""
        self._countdown: int | None = None
        self.idle: tuple[int, ...] = ()  # seats marked idle
        self.bot_playing: tuple[int, ...] = ()  # seats of people a bot plays now
        self._inbox: list[Update[H.HighVoltageView]] = []  # updates not yet shown
        self.slots: list[H.Face | None] = []
        self.cursor: int | None = None
        self.error = ""
        self._error_gen = 0
        self._unsubscribe: Any = None
        self._results_done = not self.SHOWS_RESULTS
        self._composed = False
        self._shown: dict[str, object] = {}
        self._allowed: tuple[bool, ...] | None = None
        self._previous_top: tuple[H.Face, int, float] | None = None  # (face, number, covered at)
        if self.view.hand is not None:
            self.slots = reconcile([], self.view.hand)
        self.chat = MatchChat(backend, self.handles)  # (none in a local match or a replay)

    # -- layout --------------------------------------------------------------

    def compose(self):
        yield TooSmall()
        with Vertical(id="hv-main"):
            yield Static("", id="hv-notice")
            yield Static("", id="hv-status")
            with Horizontal(id="hv-middle"):
                with Vertical(id="hv-pile"):
                    yield AimedTopCard(id="hv-top", on_drawn=self._top_drawn)
                with Vertical(id="hv-side"):
                    yield HVPlayers(id="hv-players")
                    yield HVCountdown(id="hv-countdown")
                    yield HVFeed(id="hv-feed")
                    yield from self.chat.compose()
            with Horizontal(id="hv-prompt-row"):
                yield Static("", id="hv-prompt")
                yield ActionButton(_("draw") + " [d]", "draw")
                yield ActionButton(_("stuck") + " [s]", "stuck")
            yield Static("", id="hv-idle")
            yield Static("", id="hv-hand-note")
            yield HVHand(id="hv-hand")
        yield KeyBar()

    def on_mount(self) -> None:
        self._composed = True
        self.query_one("#hv-feed", HVFeed).border_title = _("feed, newest first")
        self.chat.mount(self.query_one("#hv-feed", HVFeed))
        self._unsubscribe = self.handle.subscribe(self._match_changed)
        self.refresh_match()
        # The players' column is sized to the side panel, which has no width before the
        # first layout: draw once more after it.
        self.call_after_refresh(self._render_all)

    def on_unmount(self) -> None:
        if self._unsubscribe is not None:
            try:
                self._unsubscribe()
            except Exception:  # pragma: no cover - a finished match may be gone
                log.exception("unsubscribe failed")
            self._unsubscribe = None

    def _match_changed(self, update: Update[H.HighVoltageView]) -> None:
        """Runs on the event loop from the match's broadcast: keep the update, and wake
        the screen with a message (its handler, or the end of a send, shows it)."""
        self._inbox.append(update)
        self.post_message(self.Changed())

    @on(Changed)
    def _changed(self, message: Changed) -> None:
        self._drain()

    def _drain(self) -> bool:
        """Show the updates that arrived: the latest view, countdown, notice and names, and
        every update's new feed lines.  True if it redrew."""
        if not self._inbox:
            return False
        inbox, self._inbox = self._inbox, []
        for update in inbox:
            if update.names:
                self.names = W.seat_names(update.names)
            self.lines.extend(words.lines(update.entries, self.names))  # worded as they come
        last = inbox[-1]
        self.view, self._countdown, self.notice = last.view, last.countdown, W.notice(last.notice)
        self.idle, self.bot_playing = tuple(last.extra("idle", ())), tuple(last.extra("bot_playing", ()))
        self._show()
        return True

    # -- the state of the screen ---------------------------------------------

    @property
    def me(self) -> int | None:
        return self.view.seat

    @property
    def countdown(self) -> int | None:
        """The countdown number showing (3, 2, 1), or None: the latest update's."""
        return self._countdown

    @property
    def benched(self) -> bool:
        """A bot plays this seat for its (idle) person, who may take it back."""
        return (self.me is not None and self.me in self.bot_playing and not self.view.over
                and isinstance(self.handle, IdleVoting))

    @property
    def can_vote(self) -> bool:
        """This seat may vote to continue without the others marked idle."""
        me = self.me
        return (me is not None and not self.view.over and not self.view.out[me] and not self.benched
                and any(s != me for s in self.idle) and isinstance(self.handle, IdleVoting))

    @property
    def playing(self) -> bool:
        me = self.view.seat
        return me is not None and not self.view.over and not self.view.out[me]

    def refresh_match(self) -> None:
        """Read the match afresh through the handle and redraw: the first time, and a
        replay's every step (a live match's changes come as updates: :meth:`_drain`)."""
        self._inbox.clear()
        self.view = self.handle.view()
        self.names = W.seat_names(self.handle.names)
        self.lines = words.lines(self.handle.log, self.names)
        self.notice = W.notice(self.handle.notice)
        self._countdown = self.handle.countdown
        extras = self.handle.extras
        self.idle = tuple(extras.get("idle", ()))
        self.bot_playing = tuple(extras.get("bot_playing", ()))
        self._show()

    def _show(self) -> None:
        """Show the latest view and what follows from it (the hand's slots, the keys, the end)."""
        if self.view.hand is not None:
            self.slots = reconcile(self.slots, self.view.hand)
            if self.cursor is not None and (self.cursor >= len(self.slots) or self.slots[self.cursor] is None):
                self.cursor = self._nearest(self.cursor)
        self._render_all()
        # What check_action allows changes only with these; refreshing the bindings
        # redraws the key bar, which is too slow to do on every play.
        me = self.view.seat
        allowed = (self.view.over, me is not None and self.view.out[me], self.benched, self.can_vote)
        if allowed != self._allowed:
            self._allowed = allowed
            self.refresh_bindings()
        self.chat.seen(self.view.over)
        if self.view.over and not self._results_done:
            self._results_done = True
            self.results_after(pacing_of(self.app).results_delay)

    def _nearest(self, i: int) -> int | None:
        held = [j for j, f in enumerate(self.slots) if f is not None]
        if not held:
            return None
        return min(held, key=lambda j: (abs(j - i), j))

    def fitting_slots(self) -> set[int]:
        """Practice only: the slots whose card fits the top."""
        if not self.practice or self.view.hand is None:
            return set()
        return {i for i, f in enumerate(self.slots) if f is not None and H.fits(f, self.view.top)}

    # -- drawing -------------------------------------------------------------

    def _put(self, selector: str, key: object, build) -> None:
        """Update the Static ``selector`` with ``build()`` unless ``key`` is what it shows
        already: on a busy table every redraw counts."""
        if self._shown.get(selector) == key:
            return
        self._shown[selector] = key
        self.query_one(selector, Static).update(build(), layout=False)

    def _render_all(self) -> None:
        if not self._composed:
            return
        view, names = self.view, self.names
        text = self.notice
        notice = self.query_one("#hv-notice", Static)
        if notice.display != bool(text):
            notice.display = bool(text)
        self._put("#hv-notice", text, lambda: Text(safe(text)))
        self._put("#hv-status", (view.players, view.plays, view.flips, self.practice, self.app.size.width),
                  self._status)

        hint = P.practice_hint(view) if self.practice else ""
        self.query_one(HVTopCard).show(view.top, top_no=view.top_no, discard=view.discard_count, hint=hint)

        side = self.query_one("#hv-side")
        self.query_one(HVPlayers).show(view, names, width=max(side.size.width - 1, 30), idle=self.idle)
        self.query_one(HVFeed).show(self.lines)
        counting = view.counting_down and not view.over
        if self.has_class("-counting") != counting:
            self.set_class(counting, "-counting")
        self.query_one(HVCountdown).show(self.countdown if counting else None, self._countdown_caption())

        hand = self.query_one(HVHand)
        note = self.query_one("#hv-hand-note", Static)
        if self.me is None:
            hand.show([], backs=0)
        elif view.hand is None:
            hand.show([], backs=view.hand_sizes[self.me])
        else:
            hand.show(self.slots, cursor=self.cursor, fits=self.fitting_slots())
        note_text = P.hand_note(view, holding=bool(self.slots))
        if note.display != bool(note_text):
            note.display = bool(note_text)
        self._put("#hv-hand-note", note_text, lambda: Text(note_text))
        idle_text = P.idle_line(view, names, self.idle, benched=self.benched, can_vote=self.can_vote)
        idle_line = self.query_one("#hv-idle", Static)
        if idle_line.display != bool(idle_text):
            idle_line.display = bool(idle_text)
        self._put("#hv-idle", idle_text, lambda: Text(idle_text))
        self._render_prompt()

    def _status(self) -> Text:
        """The top line (:func:`~tui.games.highvoltage.present.status`)."""
        return P.status(self.view, practice=self.practice, width=self.app.size.width - 2)

    def _countdown_caption(self) -> str:
        return P.countdown_caption(self.view, self.countdown)

    def _prompt(self) -> str:
        return P.prompt(self.view, self.names, self.countdown, benched=self.benched)

    def _render_prompt(self) -> None:
        row = self.query_one("#hv-prompt-row")
        mine = self.me is not None and self.view.can_act
        prompt, error = self._prompt(), self.error
        if row.has_class("-error") != bool(error):
            row.set_class(bool(error), "-error")
        self._put("#hv-prompt", (error, prompt, mine), lambda: P.prompt_line(prompt, error=error, mine=mine))
        can = self.me is not None and not self.view.over and not self.view.out[self.me]
        for button in self.query(ActionButton):
            if button.display != can:
                button.display = can

    def _say(self, text: str) -> None:
        """A one-line message (a refusal, or why input is ignored) for a few seconds."""
        self.error = text
        self._error_gen += 1
        gen = self._error_gen

        def clear() -> None:
            if self._error_gen == gen:
                self.error = ""
                if self._composed:
                    self._render_prompt()

        self.set_timer(pacing_of(self.app).hv_error_seconds, clear)
        self._render_prompt()

    # -- acting --------------------------------------------------------------

    def action_chat(self) -> None:
        self.chat.toggle()

    async def action_chat_phrase(self, phrase: str) -> None:
        await self.chat.phrase(phrase)

    @on(ChatPanel.Left)
    def _chat_left(self) -> None:
        self.chat.left()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("chat", "chat_phrase"):
            return self.chat.room is not None
        view = self.view
        seated = self.me is not None and not view.out[self.me]
        if action in ("play_slot", "cursor", "play_cursor", "draw", "stuck"):
            return seated and not view.over and not self.too_small  # (too small: only ? and quit work)
        if action == "results":
            return view.over
        if action == "resign":
            return seated and not view.over
        if action == "leave":
            return self.me is None or view.over or view.out[self.me]
        if action == "take_back":
            return self.benched
        if action == "continue_without":
            return self.can_vote
        return True

    def _blocked(self) -> bool:
        """True (and says why) when input must be ignored now."""
        view = self.view
        if self.too_small or self.me is None or view.over:
            return True
        if view.out[self.me]:
            self._say(_("You have left this match."))
            return True
        if self.benched:
            self._say(_("A bot plays your seat now: press t to take it back."))
            return True
        if view.counting_down:
            n = self.countdown
            self._say(_("Wait for the countdown: %(n)d…") % {"n": n} if n is not None
                      else _("Wait: the match has not started."))
            return True
        return False

    async def send(self, action: H.Action) -> bool:
        """Send an intent through the handle; a refusal is shown in one line and loses nothing."""
        try:
            await self.handle.submit(action)
        except (IllegalActionError, RuleError) as e:
            self._say(words.refusal(e))
            self._drain()  # (too slow: the play that covered the top came as an update)
            return False
        except Exception as e:  # a connection problem must not crash the screen
            log.exception("submit failed")
            self._say(_("could not send that: %(error)s") % {"error": e})
            return False
        self.error = ""
        self._error_gen += 1
        # The match's update for this play came while it was sent: show it (no second
        # read of the match).
        if not self._drain():
            self._render_all()
        return True

    async def play_slot(self, slot: int) -> None:
        if self._blocked():
            return
        face = self.slots[slot] if slot < len(self.slots) else None
        if face is None:
            key = CARD_KEYS[slot] if slot < len(CARD_KEYS) else "?"
            self._say(_("No card on key %(key)s.") % {"key": key})
            return
        await self.send(self.aim(face))

    def _top_drawn(self, before: tuple[H.Face, int] | None, now: tuple[H.Face, int]) -> None:
        """The top card widget painted a new top card: the one before is the previous top."""
        if before is not None and before[1] != now[1]:
            self._previous_top = (before[0], before[1], time.monotonic())

    def shown_top(self) -> tuple[H.Face, int]:
        """The top card (face, number) as last drawn on this screen; the view's before the
        first paint."""
        drawn = self.query_one(AimedTopCard).drawn if self._composed else None
        return drawn if drawn is not None else (self.view.top, self.view.top_no)

    def aim(self, face: H.Face) -> H.Play:
        """The play of ``face`` on the top card drawn on the screen, or on the one it just
        replaced (see :data:`AIM_GRACE_SECONDS`)."""
        seat = self.view.seat
        if seat is None:
            raise ValueError("a spectator cannot play")
        top, top_no = self.shown_top()
        prev = self._previous_top
        if prev is not None and not H.fits(face, top) and H.fits(face, prev[0]):
            grace = pacing_of(self.app).hv_aim_grace
            if time.monotonic() - prev[2] <= grace:
                return H.Play(seat, face, prev[0], prev[1])
        return H.Play(seat, face, top, top_no)

    async def action_play_slot(self, slot: int) -> None:
        await self.play_slot(slot)

    def action_cursor(self, delta: int) -> None:
        held = [j for j, f in enumerate(self.slots) if f is not None]
        if not held or self.view.hand is None:
            return
        if self.cursor is None or self.cursor not in held:
            self.cursor = held[0] if delta > 0 else held[-1]
        else:
            self.cursor = held[(held.index(self.cursor) + delta) % len(held)]
        self._render_all()

    async def action_play_cursor(self) -> None:
        if self.cursor is None:
            if not self._blocked():
                self._say(_("Pick a card with ← → first (or press its key)."))
            return
        await self.play_slot(self.cursor)

    async def action_draw(self) -> None:
        me = self.me
        if self._blocked() or me is None:  # (blocked when there is no seat: the second test is for type checkers)
            return
        if self.view.pile_counts[me] == 0:
            self._say(_("Your pile is empty: play a card, or declare stuck (s)."))
            return
        await self.send(H.Draw(me))

    async def action_stuck(self) -> None:
        me = self.me
        if self._blocked() or me is None:
            return
        if self.view.stuck[me]:
            self._say(_("You have already declared stuck."))
            return
        await self.send(H.Stuck(me))

    def action_resign(self) -> None:
        from tui.dialogs.confirm import ConfirmScreen

        async def done(yes: bool | None) -> None:
            if yes and self.me is not None and not self.view.over:
                await self.send(H.Resign(self.me))

        self.app.push_screen(ConfirmScreen(_("Leave this match (resign)?"), yes=_("resign"), no=_("keep playing")),
                             done)

    async def _idle_request(self, send: Any) -> None:
        """A vote or a take-back through the handle; a refusal is shown in one line."""
        try:
            await send()
        except (IllegalActionError, RuleError) as e:
            self._say(words.refusal(e))
        except Exception as e:  # a connection problem must not crash the screen
            log.exception("idle request failed")
            self._say(_("could not send that: %(error)s") % {"error": e})
        if not self._drain():
            self._render_all()

    async def action_continue_without(self) -> None:
        if isinstance(self.handle, IdleVoting) and self.can_vote:
            await self._idle_request(self.handle.continue_without)

    async def action_take_back(self) -> None:
        if isinstance(self.handle, IdleVoting) and self.benched:
            await self._idle_request(self.handle.take_seat_back)

    def rematch_screen(self, handles: Any) -> Any:
        return HVMatchScreen(handles, self.backend, practice=self.practice)

    # -- mouse ---------------------------------------------------------------

    @on(HVHand.Clicked)
    async def card_clicked(self, message: HVHand.Clicked) -> None:
        self.cursor = message.slot
        await self.play_slot(message.slot)

    @on(ActionButton.Pressed)
    async def button_pressed(self, message: ActionButton.Pressed) -> None:
        if message.action == "draw":
            await self.action_draw()
        elif message.action == "stuck":
            await self.action_stuck()
