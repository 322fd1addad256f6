"""Hosting a High Voltage match: one engine state, 2 to 4 seats, one shared clock.

:class:`HVMatch` is the shared match host (:class:`server.host.base.MatchHost`: the
state, the seats, the one loop of check, commit, apply, log, hooks, finish, broadcast,
and the seats' private entries) with High Voltage's extras: the countdown, the private
"too slow" entries, idle marks and votes, and its bots' tasks.  Like Voltage's it
satisfies :class:`tui.ports.Host`, so the lobby, the screens and persistence treat both
alike.  Screens reach it through an :class:`HVSeatHandle`, a :class:`tui.ports.SeatHandle`
of its own (the idle votes); it does not derive from Voltage's handle, whose view is
Voltage's.  A restart brings a match back with :func:`restore`.

Real time, decided here:

- **Arrival order.**  Intents are applied one at a time under an
  :class:`asyncio.Lock`, in the order they arrive.  A play names the top card
  it was aimed at (:meth:`~engine.highvoltage.rules.HighVoltageView.aim`), so of two
  plays aimed at the same top the first is accepted and the second is refused
  with :class:`~engine.highvoltage.rules.TooSlowError` ("too slow: the 7 was covered
  by a 3 a moment ago"): the card stays in hand, the sender's feed gets the
  ``slow`` event (once per state of the table: a flood of plays aimed at covered
  tops is refused without a line and an update each), nothing else changes.
- **One countdown for everyone.**  At the start and after every flip the host
  counts 3, 2, 1 (``countdown_seconds`` in all, :data:`COUNTDOWN_SECONDS` by
  default): every screen gets an update per number (``update.countdown`` /
  ``handle.countdown``), then the host applies ``Go``.  Input before "go" is
  refused by the engine with "wait for the countdown"; it costs nothing.
- **Bots** (levels of :mod:`engine.highvoltage.bots`) run one asyncio task per seat,
  like the simulated arena (:mod:`engine.highvoltage.arena`) so that its numbers hold
  here: the bot looks (``decide``, cheap, on the loop), waits its delay
  (divided by ``bot_speed``; tests use a large one), and sends what it chose,
  aimed at the top it saw.  Beaten to it, it is refused as too slow and looks
  again at once; after its own action it looks again at once; with nothing to
  do it waits for the next accepted action.  A countdown drops whatever it was
  about to do.  A pending action is *not* restarted when someone else draws:
  a player who keeps drawing must not be able to freeze a bot.
- **Saving** works as in :mod:`server.host.voltage` (the same :class:`SaveGate`): a
  play is checked, committed by the recorder with the lock held (so the
  stored order is the arrival order), then applied.  A play refused as too
  slow is never stored.  While the store cannot write, the match is paused:
  every intent is refused (code ``save_failed``), bots and the countdown's "go" wait
  for the resume.  The idle clocks stand still while the store cannot write and while a
  player cannot reach a split server's host (:meth:`~server.host.common.SaveGate.hold`).
- **Idling**.  A person who does nothing for :data:`IDLE_SECONDS` (60 s)
  while they could act is marked idle (``idle``; every screen gets it in
  ``update.idle`` and the feed says "Bob is idle ...").  "Could act", decided
  here: in play (phase ``play``), not out, not played by a bot, connected (a
  dropped seat has the lobby's grace instead), and not *stuck* in the engine's
  sense (:func:`~engine.highvoltage.rules.is_stuck`): holding a card that fits,
  or able to draw, and not declared stuck.  Why drawing counts: a player who
  could draw but does nothing is the one the others' flip waits for (a flip
  needs everyone stuck), so they stall the table exactly as one sitting on a
  fitting card does; one who cannot play (stuck, or declared it) stalls nobody
  and is never idle.  The clock is the host's (``time.monotonic``): it runs only
  while the seat could act, so it restarts at every "go" (the start of the
  match and each flip), at every accepted action of that seat, and whenever
  the seat comes to be able to act again (a new top that fits after none did).
  It is checked after every accepted action and every :data:`IDLE_TICK` seconds
  (the task sleeps to the next deadline, at most that long).  A seat is marked
  only while another person is still in: against bots alone nobody waits.
  Any accepted action of the seat (or its vote) clears the mark.
- **Continuing without them.**  Any other person still in may vote
  (:meth:`HVMatch.continue_without`; the screen's ``K``).  The vote passes with a
  strict majority of the *electorate*: the other people still in, connected,
  not themselves idle and not played by a bot (one voter among them: at once;
  two: both; three: two).  It is counted again whenever the electorate shrinks.
  Then a bot takes the seat (:meth:`set_bot`, at the level the table's own bots
  play, else :data:`DEFAULT_BOT`), the feed says so, and the idle person's feed
  and screen say "You were idle; a bot plays your seat".  Decided: they may take
  it back themselves while the match runs (:meth:`HVMatch.take_seat_back`, the
  screen's ``t``), since they are still connected and a bot was only a stand-in;
  a dropped player gets theirs back through the lobby's resume instead (a seat
  whose person is not connected is refused here).  Votes and marks are not
  actions: they are not stored, and a restart forgets them (the clock restarts).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Sequence
from typing import Any

from engine.errors import IllegalActionError
from engine.highvoltage import rules as H
from engine.highvoltage.bots import HV_BOT_NAMES, make_hv_bot
from engine.registry import RULES
from server.host.base import MatchHost, restore_log, restored_seats
from server.host.common import SaveFailed, Seat, SeatDoor, run_to_end
from tui import ports
from tui.ports import Entry, Note

log = logging.getLogger(__name__)

GAME = "high-voltage"
TITLE = "High Voltage"
COUNTDOWN_SECONDS = H.COUNTDOWN_SECONDS
COUNT_FROM = 3
DEFAULT_BOT = "medium"
#: How long a person may do nothing while they could act before they are marked idle
#: (read when a match is made: tests shorten it, or pass ``idle_seconds``).
IDLE_SECONDS = 60.0
#: The most time between two idle checks (a dropped connection is noticed at the next).
IDLE_TICK = 1.0


#: What a screen gets after a change (:class:`tui.ports.Update`, one message for every
#: game): ``entries`` are the new feed entries for this seat (public ones, and a refused
#: play's ``slow`` event for its sender only); ``countdown`` is the number showing
#: (3, 2, 1) or None; ``version`` the match's action count.
HVUpdate = ports.Update


def bot_level(name: str | None) -> str:
    """A High Voltage bot level for ``name``: itself if it is one, else :data:`DEFAULT_BOT`
    (a lobby may hand a dropped seat to a Voltage bot name)."""
    return name if name in HV_BOT_NAMES else DEFAULT_BOT


def bot_seat(level: str, name: str | None = None) -> Seat:
    """A seat played by a High Voltage bot of ``level`` (named ``Bot (level)`` unless given)."""
    return Seat(name or f"Bot ({level})", bot=level)


def bot_names(levels: Sequence[str]) -> list[str]:
    """Names for bots of these levels: ``Fast bot``, and ``Fast bot 2`` for a second one."""
    out: list[str] = []
    for level in levels:
        base = f"{level.capitalize()} bot"
        n = sum(1 for name in out if name == base or name.startswith(base + " "))
        out.append(base if n == 0 else f"{base} {n + 1}")
    return out


def local_match(player_name: str, bots: str | Sequence[str], seed: int | None = None, **kw) -> HVMatch:
    """A match for ``voltage play``: ``player_name`` in seat 0 against bots of the given levels
    (``"medium,fast"`` or a list; 1 to 3 of :data:`~engine.highvoltage.bots.HV_BOT_NAMES`).  Keyword
    arguments go to :class:`HVMatch` (``countdown_seconds``, ``bot_speed``).  Not started."""
    levels = [b.strip() for b in bots.split(",")] if isinstance(bots, str) else list(bots)
    levels = [b for b in levels if b]
    if not 1 <= len(levels) <= H.MAX_PLAYERS - 1:
        raise ValueError("High Voltage: choose one to three bots")
    for level in levels:
        if level not in HV_BOT_NAMES:
            raise ValueError(f"no High Voltage bot {level!r}: choose from {', '.join(HV_BOT_NAMES)}")
    seats = [Seat(player_name or "You", identity="local")]
    seats += [bot_seat(level, name) for level, name in zip(levels, bot_names(levels), strict=True)]
    return HVMatch(seats, seed, **kw)


class HVSeatHandle(SeatDoor[H.HighVoltageView, H.Action]):
    """A screen's door into a High Voltage match (a :class:`tui.ports.SeatHandle`; the
    common part is :class:`~server.host.common.SeatDoor`, as Voltage's handle's is)."""

    def __init__(self, match: HVMatch, seat: int | None) -> None:
        super().__init__(match, seat)
        self.match: HVMatch = match

    @property
    def started(self) -> bool:
        return self.match.started

    async def continue_without(self, seat: int | None = None) -> None:
        """Vote to continue without ``seat`` (None: everyone marked idle); raises
        :class:`IllegalActionError` (its code) if the vote cannot be cast."""
        await self.match.continue_without(self.own_seat("vote"), seat)

    async def take_seat_back(self) -> None:
        """Play this seat again after a vote gave it to a bot."""
        await self.match.take_seat_back(self.own_seat("take_back"))


class HVMatch(MatchHost[H.State, H.Action, H.Event, H.HighVoltageView]):
    """One match of High Voltage between 2 to 4 seats (people or bots), watched by anyone."""

    handle_class = HVSeatHandle

    def __init__(
        self,
        seats: list[Seat],
        seed: int | None = None,
        *,
        code: str = "",
        countdown_seconds: float = COUNTDOWN_SECONDS,
        bot_speed: float = 1.0,
        executor: object | None = None,  # accepted like Match's; bots here are cheap
        bot_delay: float | None = None,  # accepted like Match's; the levels set the pace
        idle_seconds: float | None = None,  # None: IDLE_SECONDS
    ) -> None:
        if bot_speed <= 0:
            raise ValueError("bot_speed must be positive")
        super().__init__(RULES[GAME], seats, seed, code=code)
        self.countdown_seconds = countdown_seconds
        self.bot_speed = bot_speed
        self.too_slow = 0  # plays refused as too slow (all seats)
        self._slow_told: dict[int, int] = {}  # seat -> the version (actions so far) its last "too slow" was told at
        self._changed = asyncio.Event()  # set (and replaced) after every accepted action
        self._round = 0  # counts countdowns; a bot's pending action belongs to one round
        self._countdown_task: asyncio.Task | None = None
        self._bot_tasks: dict[int, asyncio.Task] = {}
        # Idling (see the module docstring): when each seat's idle clock started (only
        # seats that could act now have one), the seats marked idle (in the order they
        # were marked), and the votes to continue without each of them.
        self.idle_seconds = IDLE_SECONDS if idle_seconds is None else idle_seconds
        self._idle_since: dict[int, float] = {}
        self._stopped_at: float | None = None  # since when the clocks stand still (a paused store, a hold)
        self._idle: list[int] = []
        self._votes: dict[int, set[int]] = {}
        self._idle_task: asyncio.Task | None = None
        self._idle_wakeup = asyncio.Event()  # a new clock ends before the task's next look
        self._idle_wake_at = 0.0

    # -- facts ---------------------------------------------------------------

    @property
    def idle(self) -> tuple[int, ...]:
        """The seats marked idle, in the order they were marked (see the module docstring)."""
        return tuple(self._idle)

    @property
    def bot_playing(self) -> tuple[int, ...]:
        """The seats of people that a bot plays now (dropped, or voted out for idling)."""
        return tuple(i for i, s in enumerate(self.seats) if s.is_bot and s.identity)

    def handle(self, seat: int | None) -> HVSeatHandle:
        """A handle for ``seat`` (``None``: a spectator)."""
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat}")
        return HVSeatHandle(self, seat)

    def _update_extras(self, view: H.HighVoltageView) -> dict[str, Any]:
        """The seats marked idle, and the seats of people a bot plays now."""
        return {"idle": self.idle, "bot_playing": self.bot_playing}

    # -- the loop's hooks (arrival order: the lock is taken in the order intents arrive) ------

    def _refused(self, seat: int | None, error: IllegalActionError) -> None:
        if isinstance(error, H.TooSlowError):
            self.too_slow += 1
            # Told once per state: more plays aimed at the same covered tops are refused all the
            # same, but add nothing to the seat's feed (a flood of them kept a line and an update each).
            if seat is not None and self._slow_told.get(seat) != len(self.actions):
                self._slow_told[seat] = len(self.actions)
                self._tell(seat, error.event)

    def _accepted(self, seat: int | None, action: H.Action, before: H.State, used: int | None) -> Sequence[Entry]:
        return self._track_idle(seat)

    def _ended(self) -> None:
        self._idle.clear()
        self._votes.clear()
        self.countdown = None

    def _after_apply(self) -> None:
        self._wake()
        if not self.over and self.state.phase == H.COUNTDOWN:
            self._begin_countdown()  # a flip: everyone counts again

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    # -- the clock -----------------------------------------------------------

    def start(self) -> None:
        """Begin: the first countdown, then play; bots start looking.  Needs a running loop."""
        asyncio.get_running_loop()  # raise RuntimeError now, before anything changes
        if self.started or self._closed:
            return
        self.started = True
        if self.over:
            return
        for seat, s in enumerate(self.seats):
            if s.is_bot:
                self._start_bot(seat)
        self._track_idle(None)  # (a restored match may start in play)
        self._idle_task = asyncio.get_running_loop().create_task(self._watch_idle())
        if self.state.phase == H.COUNTDOWN:
            self._begin_countdown()

    def _begin_countdown(self) -> None:
        if self._closed or not self.started:
            return
        self._round += 1
        old = self._countdown_task
        if old is not None and not old.done() and old is not asyncio.current_task():
            old.cancel()
        self._countdown_task = asyncio.get_running_loop().create_task(self._count())

    async def _count(self) -> None:
        tick = self.countdown_seconds / COUNT_FROM
        for n in range(COUNT_FROM, 0, -1):
            if self._closed or self.over:
                return
            self.countdown = n
            self._broadcast(())
            await asyncio.sleep(tick)
        while True:
            if self.saving.paused:
                await self.saving.wait_resumed()  # "go" waits for the store
            if await run_to_end(self._go()):
                return

    async def _go(self) -> bool:
        """Apply "go" (the lock taken); False if the store refused it (paused)."""
        async with self._lock:
            self.countdown = None
            if self._closed or self.over or self.state.phase != H.COUNTDOWN:
                return True
            try:
                await self._apply(None, H.GO)
            except SaveFailed:
                return False
            return True

    # -- idling --------------------------------------------------------------

    def _person(self, seat: int) -> bool:
        """A person plays ``seat`` now (no bot), and is still in."""
        return not self.seats[seat].is_bot and not self.state.out[seat]

    def _could_act(self, seat: int) -> bool:
        """Does ``seat``'s idle clock run: a connected person in play who is not stuck
        (holds a card that fits, or can draw; see the module docstring)."""
        return (self.started and not self._closed and not self.over and self.state.phase == H.PLAY
                and self._person(seat) and self.seats[seat].connected and not H.is_stuck(self.state, seat))

    def _track_idle(self, actor: int | None) -> tuple[Entry, ...]:
        """After a change: restart ``actor``'s clock (and clear its mark), start the clocks of
        seats that came to be able to act, stop the others'.  Returns the feed's notes."""
        now = time.monotonic()
        lines: tuple[Entry, ...] = ()
        if actor is not None and 0 <= actor < self.players:
            self._idle_since.pop(actor, None)
            if actor in self._idle:
                lines = self._unmark(actor)
        for seat in range(self.players):
            if not self._could_act(seat):
                self._idle_since.pop(seat, None)
            elif seat not in self._idle_since:
                self._idle_since[seat] = now
                if now + self.idle_seconds < self._idle_wake_at:
                    self._idle_wakeup.set()  # a deadline before the idle task's next look
        return lines

    def _unmark(self, seat: int) -> tuple[Entry, ...]:
        self._idle.remove(seat)
        self._votes.pop(seat, None)
        return (Note.of("playing_again", name=self.seats[seat].name),)

    def _voters(self, target: int) -> list[int]:
        """Who may vote to continue without ``target``: the other connected people still in,
        not idle themselves."""
        return [i for i in range(self.players)
                if i != target and self._person(i) and self.seats[i].connected and i not in self._idle]

    def votes_needed(self, target: int) -> int:
        """How many votes continue without ``target`` now: a strict majority of the voters."""
        return len(self._voters(target)) // 2 + 1

    def _idle_bot(self) -> str:
        """The level for an idle person's seat: the table's own bots', else :data:`DEFAULT_BOT`."""
        levels = [s.bot for s in self.seats if s.is_bot and not s.identity]
        return bot_level(levels[0]) if levels else DEFAULT_BOT

    def _markable(self, seat: int) -> bool:
        """May ``seat`` be marked idle: not yet, and another person is still in."""
        return seat not in self._idle and any(self._person(i) for i in range(self.players) if i != seat)

    def _notice_changed(self) -> None:
        """The store paused (or resumed), or a hold began (or ended): the idle clocks stand
        still meanwhile (nobody could act), so a resume moves each one on by the time stopped."""
        now = time.monotonic()
        if self.saving.stopped and self._stopped_at is None:
            self._stopped_at = now
        elif not self.saving.stopped and self._stopped_at is not None:
            stopped, self._stopped_at = now - self._stopped_at, None
            for seat in self._idle_since:
                self._idle_since[seat] += stopped
        super()._notice_changed()

    def check_idle(self) -> None:
        """Mark the seats whose clock ran out, and count the votes again (the voters change).
        The idle task calls it at each deadline; a test may call it.  Nobody is marked while
        the clocks stand still (:meth:`_notice_changed`)."""
        if self._closed or self.over or not self.started or self.saving.stopped:
            return
        self._track_idle(None)  # (connections change between actions)
        now = time.monotonic()
        for seat, since in sorted(self._idle_since.items()):
            if self._markable(seat) and now - since >= self.idle_seconds:
                self._idle.append(seat)
                self.announce(Note.of("idle", name=self.seats[seat].name, seconds=self.idle_seconds))
        self._count_votes()

    def _count_votes(self) -> None:
        """Continue without every idle seat whose votes are now enough."""
        for target in list(self._idle):
            if target not in self._idle:
                continue  # (a seat handed over meanwhile)
            voters = self._voters(target)
            votes = self._votes.get(target, set()) & set(voters)
            if voters and len(votes) >= len(voters) // 2 + 1:
                self._hand_over(target)

    def _hand_over(self, target: int) -> None:
        level = self._idle_bot()
        name = self.seats[target].name
        self.set_bot(target, level)  # (clears the mark and the votes)
        self.announce(Note.of("continuing_without", name=name, level=level))
        self._tell(target, Note("you_were_idle"))

    async def _watch_idle(self) -> None:
        """The idle clock's task: check at each deadline, and at least every :data:`IDLE_TICK`."""
        while not self._closed and not self.over:
            now = time.monotonic()
            deadlines = [since + self.idle_seconds for seat, since in self._idle_since.items()
                         if self._markable(seat)]
            wait = max(min([IDLE_TICK, *(d - now for d in deadlines)]), 0.001)
            self._idle_wake_at = now + wait
            self._idle_wakeup.clear()
            try:
                await asyncio.wait_for(self._idle_wakeup.wait(), wait)
            except TimeoutError:
                pass
            self.check_idle()

    async def continue_without(self, voter: int, target: int | None = None) -> None:
        """``voter`` votes to continue without ``target`` (None: every other seat marked
        idle); the vote passes at once when it is enough.  Voting shows ``voter`` is there:
        it clears their own mark and restarts their clock.  Raises
        :class:`IllegalActionError` (its code) if it cannot be cast."""
        async with self._lock:
            if not 0 <= voter < self.players or self.over:
                raise IllegalActionError("match_over") if self.over else IllegalActionError("no_seat", seat=voter)
            if self.seats[voter].is_bot:
                raise IllegalActionError("bot_plays_your_seat")
            if self.state.out[voter]:
                raise IllegalActionError("left_match")
            targets = [t for t in self._idle if t != voter] if target is None else [target]
            if not targets or any(t == voter or t not in self._idle for t in targets):
                raise (IllegalActionError("nobody_idle") if target is None or target == voter
                       else IllegalActionError("not_idle", name=self.seats[target].name))
            lines = self._track_idle(voter)
            for t in targets:
                self._votes.setdefault(t, set()).add(voter)
                have, need = len(self._votes[t] & set(self._voters(t))), self.votes_needed(t)
                if have < need:
                    lines += (Note.of("vote", voter=self.seats[voter].name, target=self.seats[t].name,
                                      have=have, need=need),)
            for line in lines:
                self.log.append(line)
            if lines:
                self._broadcast(lines)
            self._count_votes()

    async def take_seat_back(self, seat: int) -> None:
        """The person of ``seat`` plays it again after a vote gave it to a bot.  Refused
        (:class:`IllegalActionError`) when no bot plays it for them, or they are not
        connected (a dropped seat comes back through the lobby's resume)."""
        async with self._lock:
            s = self.seats[seat] if 0 <= seat < self.players else None
            if s is None or self.over or not (s.is_bot and s.identity) or not s.connected:
                raise IllegalActionError("match_over") if self.over else IllegalActionError("no_bot_in_seat")
            self.set_bot(seat, None)
            self.announce(Note.of("seat_taken_back", name=s.name))

    # -- bots ----------------------------------------------------------------

    def set_bot(self, seat: int, bot: str | None) -> None:
        """Hand ``seat`` to a bot (a level; other names get :data:`DEFAULT_BOT`) or back to
        its human (``None``)."""
        self.seats[seat].bot = None if bot is None else bot_level(bot)
        task = self._bot_tasks.pop(seat, None)
        if task is not None:
            task.cancel()
        if bot is not None and self.started:
            self._start_bot(seat)
        if seat in self._idle:
            self._idle.remove(seat)
            self._votes.pop(seat, None)
        self._idle_since.pop(seat, None)  # a bot has no clock; a person's starts afresh
        self._track_idle(None)
        self._broadcast(())
        self._count_votes()  # (one person fewer or more among the voters)

    def _start_bot(self, seat: int) -> None:
        if self._closed or self.over or seat in self._bot_tasks:
            return
        level = bot_level(self.seats[seat].bot)
        self.seats[seat].bot = level
        bot = make_hv_bot(level, (self.seed * 8 + seat) % (2**63))
        task = asyncio.get_running_loop().create_task(self._bot_loop(seat, bot))
        self._bot_tasks[seat] = task
        task.add_done_callback(lambda t: self._bot_done(seat, t))

    def _bot_done(self, seat: int, task: asyncio.Task) -> None:
        if self._bot_tasks.get(seat) is task:
            del self._bot_tasks[seat]
        if not task.cancelled() and task.exception() is not None:
            log.error("High Voltage bot of seat %d failed", seat, exc_info=task.exception())

    async def _bot_loop(self, seat: int, bot) -> None:
        level = bot.name
        while not self._closed and not self.over and self.seats[seat].bot == level:
            if self.saving.paused:
                await self.saving.wait_resumed()
                continue
            changed = self._changed
            if self.state.out[seat]:
                return
            if self.state.phase != H.PLAY:
                await changed.wait()
                continue
            round_ = self._round
            delay, action = bot.decide(self.view(seat))
            if action is None:
                await changed.wait()  # nothing to do until the table changes
                continue
            await asyncio.sleep(delay / self.bot_speed)
            if self._round != round_:
                continue  # a countdown laid the hands down meanwhile
            if not await run_to_end(self._bot_apply(seat, level, action)):
                return
            await asyncio.sleep(0)

    async def _bot_apply(self, seat: int, level: str, action: H.Action) -> bool:
        """A bot's action (the lock taken); False when the bot should stop."""
        async with self._lock:
            if self._closed or self.over or self.seats[seat].bot != level:
                return False
            try:
                await self._apply(seat, action)
            except IllegalActionError:  # SaveFailed too: the loop waits for the resume
                pass  # beaten to it (too slow) or no longer possible: look again at once
            return True

    # -- the end -------------------------------------------------------------

    def close(self) -> None:
        super().close()
        if self._countdown_task is not None:
            self._countdown_task.cancel()
        if self._idle_task is not None:
            self._idle_task.cancel()
        for task in list(self._bot_tasks.values()):
            task.cancel()
        self._bot_tasks.clear()
        self._wake()


def new_hv_match(
    players: Iterable[Seat],
    seed: int | None = None,
    **kw,
) -> HVMatch:
    """An :class:`HVMatch` for ``players`` (Seats, 2 to 4); keyword arguments as HVMatch's."""
    return HVMatch(list(players), seed, **kw)


def restore(record: Any, executor: object | None = None, bot_delay: float = 0.7) -> HVMatch:
    """An :class:`HVMatch` at the position of a stored ``record``'s log (not attached, not
    started).  Raises :class:`~server.errors.RestoreError` if the log no longer replays.
    Starting it runs a fresh countdown when the log stopped in one."""
    m = HVMatch(restored_seats(record), seed=record.seed, code=record.code)
    restore_log(m, record)
    return m

