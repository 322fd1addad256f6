"""Hosting a Voltage match: one engine state, its seats and its spectators.

A :class:`Match` is the shared match host (:class:`server.host.base.MatchHost`: the
state, the seats, the one loop of check, commit, apply, log, hooks, finish, broadcast)
with Voltage's extras: the clock, the abort wait, draw offers and the bot worker pool.
Every screen reaches it through a :class:`SeatHandle` (a seat's, or a spectator's): the
handle gives the current *view*, calls back with an :class:`~tui.ports.Update` after every
accepted action, and takes the seat's intents.  Local play (``voltage play``) and SSH
play hand the TUI the same kind of handle, so the screens cannot tell them apart.

Bots think off the event loop, in an executor (a process pool on the server),
so one bot's search never freezes another player's screen; a search bot's move is
due within its cap (:data:`engine.voltage.bots.THINK_CAPS`), time queued included.

Saving is part of accepting, as in every match host: see :mod:`server.host.common`.
A restart brings a match back with :func:`restore` (its clock folded from the stored
times).

Clocks (:mod:`engine.clock`).  A match with a ``control`` keeps a :class:`~engine.clock.Clock`:
the bank of the seat to move runs from the moment its turn starts (``start()``, then
each accepted action), and each accepted action's used time (monotonic, in ms) goes to
the store with it, charged to the seat that was to move, with the increment when the
move passed on.  When a human's bank reaches 0 the host logs ``timeout SEAT`` (the
engine ends the match on time), so the log, results, history, export and ratings all
count it.  Bots have clocks too but never lose on time: their think caps are far below
the increment.  Decisions:

- **The clock keeps running while a dropped seat is in its grace period**: a drop is not
  a pause button (pulling the cable would buy a stalling player a minute per drop), and
  the grace period is shorter than a default bank anyway.
- The clock *stops* while the store cannot write (:class:`SaveGate` paused): nobody can
  move then, through no fault of theirs.  It stops too while a player cannot reach the
  host (:meth:`SaveGate.hold`: a split server whose edges lost Redis); a move that does
  arrive meanwhile is taken, charged only the time that ran before the hold.  After a restart the clock resumes at
  ``start()``: the time the server was down is not charged.
- Abort (``abort SEAT``): while nobody has moved either seat may abort; once the first
  player has moved, they may abort after the other's first turn has run
  :data:`ABORT_WAIT` s without a move.  No winner, no rating change.
- Draw offers live on the host, not in the log (a restart forgets a pending one): one
  pending at a time, from the match's :data:`FIRST_DRAW_TURN` (before that both players
  have not yet moved, and abort is the key), at most one per player per
  :data:`DRAW_OFFER_TURNS` of their turns, lapsing when the offerer's opponent moves
  instead of answering; an accepted one is logged as ``agree SEAT``.  Each seat's update
  says from which turn it may offer (``draw_from``), so its screen shows the key only
  when it works.  A bot declines at once.  Offers and answers are notes in the log
  (``draw_offered``...), worded by each screen.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Any

from engine import clock as C
from engine.errors import IllegalActionError
from engine.registry import RULES
from engine.voltage import rules as V
from engine.voltage.bots import THINK_CAPS
from server.errors import RestoreError
from server.host.base import MatchHost, restore_log, restored_seats
from server.host.common import SaveFailed, Seat, SeatDoor, run_to_end
from tui.ports import Entry, Note

log = logging.getLogger(__name__)

GAME = "voltage"

ABORT_WAIT = 30.0  # seconds the second player's first turn runs before the first player may abort
DRAW_OFFER_TURNS = 3  # a player offers a draw at most once per this many of their turns
FIRST_DRAW_TURN = 3  # the first turn a draw may be offered in: both players have had one


def _bot_choose(bot_name: str, seed: int, view: V.VoltageView, deadline: float | None = None) -> V.Action:
    """Runs in a worker: build the bot from its name and seed, and let it choose by
    ``deadline`` (a ``time.time()``; see :data:`engine.voltage.bots.THINK_CAPS`)."""
    from engine.voltage.bots import choose_action  # the bots module's worker entry point

    return choose_action(bot_name, seed, view, deadline=deadline)


class SeatHandle(SeatDoor[V.VoltageView, V.Action]):
    """A screen's door into a Voltage match: the view, updates, and intents for one seat
    (a :class:`tui.ports.SeatHandle`; the common part is :class:`~server.host.common.SeatDoor`)."""

    RESIGN = "play"

    def __init__(self, match: Match, seat: int | None) -> None:
        super().__init__(match, seat)
        self.match: Match = match

    # -- Voltage's calls: abort, draws (its extras: Match._update_extras) -----

    async def abort(self) -> None:
        await self.submit(V.Abort(self.own_seat("play")))

    async def offer_draw(self) -> None:
        await self.match.offer_draw(self.own_seat("play"))

    async def answer_draw(self, accept: bool) -> None:
        await self.match.answer_draw(self.own_seat("play"), accept)

    # -- the coach ------------------------------------------------------------

    @property
    def may_hint(self) -> bool:
        """Does the coach give this seat hints (a seat against a bot: never between people)?"""
        return self.seat is not None and self.match.may_hint(self.seat)

    @property
    def hinted(self) -> bool:
        """Was a hint given in this match (it is not rated)?"""
        return self.match.hinted

    async def hint(self) -> Any:
        """The Expert's move for this seat now and why (an :class:`engine.voltage.coach.Hint`);
        the match is marked hinted, and never rated, from the first one."""
        return await self.match.hint(self.own_seat("play"))


class Match(MatchHost[V.State, V.Action, V.Event, V.VoltageView]):
    """One match of Voltage between two seats (people or bots), watched by anyone."""

    handle_class = SeatHandle

    def __init__(
        self,
        seats: list[Seat],
        seed: int | None = None,
        *,
        code: str = "",
        bot_delay: float = 0.7,
        executor: Executor | None = None,
        control: C.TimeControl | None = None,
    ) -> None:
        super().__init__(RULES[GAME], seats, seed, code=code, bot_delay=bot_delay)
        self.executor = executor
        # The clock (see the module docstring): the bank of the seat to move runs while
        # ``_mark`` is set (monotonic); ``_carried_ms`` is what ran before a pause.
        self.control = control
        self.clock: C.Clock | None = C.Clock(control) if control is not None else None
        self.used_ms: list[int] = []  # per accepted action
        self._mark: float | None = None
        self._carried_ms = 0.0
        self._flag_timer: asyncio.TimerHandle | None = None
        self._flag_task: asyncio.Task | None = None
        self._turn_began = time.monotonic()  # when the seat to move began its turn
        self._turn_began_wall = time.time()
        self.abort_wait = ABORT_WAIT
        # Draw offers (host state, never logged): the seat offering, and each seat's last offer's turn.
        self.draw_offer: int | None = None
        self._offered_turn = [-(10**6), -(10**6)]
        self.coach: Any = None  # the coach giving hints (None: the process's, server.coach.shared())

    # -- facts ---------------------------------------------------------------

    @property
    def names(self) -> tuple[str, str]:
        return (self.seats[0].label, self.seats[1].label)

    def handle(self, seat: int | None) -> SeatHandle:
        """A handle for ``seat`` (``None``: a spectator)."""
        if seat is not None and seat not in (0, 1):
            raise ValueError(f"no seat {seat}")
        return SeatHandle(self, seat)

    def _update_extras(self, view: V.VoltageView) -> dict[str, Any]:
        """The turn clocks, the wall time from which this seat may abort, the seat whose draw
        offer waits, whether a person sits opposite (a draw is offered to people only), the
        turn from which this seat may offer one (None: it may not in this match) and whether
        the coach gives this seat hints (an edge's handle reads it: :meth:`may_hint`)."""
        seat = view.seat
        against_human = seat is not None and not self.seats[1 - seat].is_bot
        return {"clock": self.clock_view(), "abort_from": self.abort_from(seat), "draw_offer": self.draw_offer,
                "draw_from": self.draw_from(seat) if against_human else None, "against_human": against_human,
                "may_hint": seat is not None and self.may_hint(seat)}

    # -- the clock -----------------------------------------------------------

    def _running_ms(self) -> float:
        """How long the seat to move has used since its last charge (0 when stopped)."""
        ran = self._carried_ms
        if self._mark is not None:
            ran += (time.monotonic() - self._mark) * 1000
        return ran

    def _run_clock(self) -> None:
        """Start (or restart) the running bank now, the time before it not charged."""
        if self._mark is None and not self.over and not self.saving.stopped:
            self._mark = time.monotonic()
        self._arm_flag()

    def _stop_clock(self) -> None:
        """Stop the running bank, keeping what it ran (a paused store)."""
        if self._mark is not None:
            self._carried_ms = self._running_ms()
            self._mark = None
        self._disarm_flag()

    def clock_view(self) -> C.ClockView | None:
        """The banks as a screen shows them now (None: no clock in this match)."""
        if self.clock is None:
            return None
        running = None if self.over or self._mark is None else self.state.to_move
        return self.clock.view(running, self._running_ms(), time.time())

    def remaining_ms(self, seat: int) -> int | None:
        """``seat``'s bank now (None: no clock)."""
        if self.clock is None:
            return None
        return self.clock.remaining_ms(seat, self._running_ms() if seat == self.state.to_move else 0)

    def _disarm_flag(self) -> None:
        if self._flag_timer is not None:
            self._flag_timer.cancel()
            self._flag_timer = None

    def _arm_flag(self) -> None:
        """Wake when the human to move runs out of time (bots never lose on time)."""
        self._disarm_flag()
        if self.clock is None or self._closed or self.over or self._mark is None:
            return
        seat = self.state.to_move
        if self.seats[seat].is_bot:
            return
        left = self.clock.remaining_ms(seat, self._running_ms())
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # pragma: no cover - no loop: nothing can play anyway
            return
        self._flag_timer = loop.call_later(max(0.0, left / 1000), self._on_flag)

    def _on_flag(self) -> None:
        self._flag_timer = None
        if self._flag_task is None or self._flag_task.done():
            self._flag_task = asyncio.get_running_loop().create_task(run_to_end(self._flag()))

    async def _flag(self) -> None:
        async with self._lock:
            if self.clock is None or self._closed or self.over or self.saving.stopped:
                return
            seat = self.state.to_move
            if self.seats[seat].is_bot or not self.clock.flagged(seat, self._running_ms()):
                self._arm_flag()  # handed over meanwhile, or woken early
                return
            try:
                await self._apply(None, V.Timeout(seat))
            except SaveFailed:
                return  # the clock stopped with the store; it flags again on resume

    def _notice_changed(self) -> None:
        if self.saving.stopped:
            self._stop_clock()
        elif self.started:
            self._run_clock()
        self._broadcast(())

    # -- abort and draws -------------------------------------------------------

    def abort_from(self, seat: int | None) -> float | None:
        """The wall time from which ``seat`` may abort (None: it may not, now or later this turn)."""
        if seat not in (0, 1) or self.over or not V.may_abort(self.state, seat):
            return None
        if not V.moved(self.state, self.state.first_player):
            return self.started_at
        return self._turn_began_wall + self.abort_wait

    def draw_from(self, seat: int | None) -> int | None:
        """The turn from which ``seat`` may offer a draw: the match's :data:`FIRST_DRAW_TURN`,
        and :data:`DRAW_OFFER_TURNS` of its own turns after its last offer (None: not a
        seat, or the match is over)."""
        if seat not in (0, 1) or self.over:
            return None
        return max(FIRST_DRAW_TURN, self._offered_turn[seat] + 2 * DRAW_OFFER_TURNS)

    def may_offer_draw(self, seat: int | None) -> bool:
        """May ``seat`` offer a draw now (a live match, no offer pending, not too soon)?"""
        start = self.draw_from(seat)
        return start is not None and self.draw_offer is None and self.state.turns >= start

    async def offer_draw(self, seat: int) -> None:
        """``seat`` offers a draw; raises :class:`IllegalActionError` saying why not (its code)."""
        async with self._lock:
            if self.over:
                raise IllegalActionError("match_over")
            if self.draw_offer is not None:
                raise IllegalActionError("draw_offer_pending")
            if not self.may_offer_draw(seat):
                raise IllegalActionError("draw_offer_from", turn=self.draw_from(seat))
            self._offered_turn[seat] = self.state.turns
            other = 1 - seat
            if self.seats[other].is_bot:
                self.announce(Note.of("draw_offered_declined", name=self.names[seat], other=self.names[other]))
                return
            self.draw_offer = seat
            self.announce(Note.of("draw_offered", name=self.names[seat]))

    async def answer_draw(self, seat: int, accept: bool) -> None:
        """``seat`` answers the other's pending offer (accepting ends the match drawn)."""
        if accept:
            await run_to_end(self._submit(seat, V.AgreeDraw(seat)))
            return
        async with self._lock:
            if self.draw_offer is None or self.draw_offer == seat:
                raise IllegalActionError("no_draw_offer_to_answer")
            self.draw_offer = None
            self.announce(Note.of("draw_declined", name=self.names[seat]))

    # -- the coach --------------------------------------------------------------------

    def may_hint(self, seat: int) -> bool:
        """Hints are for a seat against a bot (between people, never: nor while a bot plays a
        dropped person's seat, which keeps its identity)."""
        if seat not in (0, 1):
            return False
        other = self.seats[1 - seat]
        return not self.seats[seat].is_bot and other.is_bot and other.identity is None

    async def hint(self, seat: int) -> Any:
        """The coach's hint for ``seat`` to move (see :mod:`server.coach`): the first one marks
        the match hinted (stored, a note in the log), so it is never rated.  Raises
        :class:`IllegalActionError` (``no_hints_vs_people``, ``not_your_turn``, ``match_over``)."""
        from server import coach as coaching

        if self.over:
            raise IllegalActionError("match_over")
        if not self.may_hint(seat):
            raise IllegalActionError("no_hints_vs_people")
        view = self.view(seat)
        if not view.my_turn:
            raise IllegalActionError("not_your_turn")
        if not self.hinted:
            self.hinted = True
            if self.recorder is not None:
                self.recorder.mark_hinted()
            self.announce(Note.of("hint_used", name=self.names[seat]))
        return await (self.coach or coaching.shared()).hint(view)

    # -- the loop's hooks ---------------------------------------------------------

    def _check_intent(self, seat: int, action: V.Action) -> None:
        if isinstance(action, V.Timeout):
            raise IllegalActionError("host_clock_only")
        if isinstance(action, V.Abort):
            start = self.abort_from(seat)
            if start is None:
                raise IllegalActionError("abort_too_late")
            if time.time() < start:
                raise IllegalActionError("abort_wait", name=self.names[1 - seat], seconds=self.abort_wait)
        if isinstance(action, V.AgreeDraw) and (self.draw_offer is None or self.draw_offer == seat):
            raise IllegalActionError("no_draw_offer_to_accept")

    def _used_ms(self) -> int:
        return int(round(self._running_ms()))

    def _accepted(self, seat: int | None, action: V.Action, before: V.State, used: int | None) -> Sequence[Entry]:
        state, mover = self.state, before.to_move
        used = used or 0
        self.used_ms.append(used)
        ends_turn = not state.over and state.to_move != mover
        if self.clock is not None:
            self.clock.charge(mover, used, ends_turn)
        self._carried_ms = 0.0
        if self._mark is not None:
            self._mark = time.monotonic()
        if ends_turn:
            self._turn_began = time.monotonic()
            self._turn_began_wall = time.time()
        if self.draw_offer is not None and (state.over or (seat is not None and seat != self.draw_offer)):
            self.draw_offer = None  # answered by moving on (or the match ended)
        if state.over:
            self._mark = None
            self._disarm_flag()
        else:
            self._arm_flag()
        return ()

    # -- the lobby's levers -----------------------------------------------------

    def start(self) -> None:
        """Begin play: the clock of the seat to move runs, and if a bot moves first, it
        thinks.  Needs a running loop."""
        self.started = True
        self._turn_began = time.monotonic()
        self._turn_began_wall = time.time()
        self._run_clock()
        self._schedule_bot()

    def set_bot(self, seat: int, bot: str | None) -> None:
        """Hand ``seat`` to a bot (``bot`` a name) or back to its human (``None``)."""
        self.seats[seat].bot = bot
        self._arm_flag()
        self._broadcast(())
        self._schedule_bot()

    def close(self) -> None:
        super().close()
        self._disarm_flag()

    # -- bots: they think in the executor (see the module docstring) ----------------

    def _schedule_bot(self) -> None:
        if self._closed or self.over:
            return
        seat = self.state.to_move
        if not self.seats[seat].is_bot:
            return
        if self._bot_task is not None and not self._bot_task.done():
            return
        self._bot_task = asyncio.get_running_loop().create_task(self._bot_turn())

    async def _bot_turn(self) -> None:
        while not self._closed and not self.over:
            if self.saving.paused:
                await self.saving.wait_resumed()
                continue
            seat = self.state.to_move
            bot = self.seats[seat].bot
            if bot is None:
                return
            view = self.view(seat)
            seed = (self.seed * 7919 + len(self.actions)) % (2**63)
            t0 = time.monotonic()
            cap = THINK_CAPS.get(bot)
            deadline = time.time() + cap if cap is not None else None  # waiting in the queue counts
            try:
                action = await asyncio.get_running_loop().run_in_executor(
                    self.executor, _bot_choose, bot, seed, view, deadline
                )
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("bot %s failed; playing a random legal action", bot)
                action = random.Random(seed).choice(view.legal)
            rest = self.bot_delay - (time.monotonic() - t0)
            if rest > 0:
                await asyncio.sleep(rest)
            await run_to_end(self._bot_chose(seat, bot, view, action, seed))

    async def _bot_chose(self, seat: int, bot: str, view: V.VoltageView, action: V.Action, seed: int) -> None:
        async with self._lock:
            # The seat may have changed hands, or the match ended, while the bot thought.
            if self._closed or self.over or self.state.to_move != seat or self.seats[seat].bot != bot:
                return
            if self.view(seat) != view:
                return
            try:
                await self._apply(seat, action)
            except SaveFailed:
                return  # paused: the loop waits for the store, then thinks again
            except IllegalActionError:
                log.exception("bot %s chose an illegal action %r", bot, action)
                try:
                    await self._apply(seat, random.Random(seed).choice(view.legal))
                except SaveFailed:
                    return


def restore(record: Any, executor: Executor | None = None, bot_delay: float = 0.7) -> Match:
    """A Voltage :class:`Match` at the position of a stored ``record``'s log (not attached,
    not started).  Raises :class:`~server.errors.RestoreError` if it cannot be.

    Its clock is folded from the stored time each action used (charged to the seat that
    was to move, with the increment when the move passed on), so each seat's bank is the
    control less what it used; the seat to move resumes with that bank when the match
    starts (the time the server was down is not charged)."""
    try:
        control = C.parse(record.time_control)
    except ValueError as e:
        raise RestoreError("bad_time_control", text=record.time_control, why=str(e)) from e
    m = Match(restored_seats(record), seed=record.seed, code=record.code, bot_delay=bot_delay, executor=executor,
              control=control)
    folded = restore_log(m, record)
    if control is not None:
        m.clock = C.Clock.fold(control, [(f.mover if f.mover is not None else 0, f.used_ms, f.passed)
                                         for f in folded])
    m.used_ms = [f.used_ms or 0 for f in folded]
    return m
