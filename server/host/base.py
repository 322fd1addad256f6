"""The one match host: any game's seats, watchers and log, and the one loop every action
goes through, written once and driven by the game's :class:`~engine.game.Rules`.

An accepted action runs, with the host's lock held:
check (``rules.apply``, which refuses with an :class:`~engine.errors.IllegalActionError`)
-> commit (:class:`~server.host.common.SaveGate`: stored before anything changes)
-> apply (the new state) -> log (the engine's events, then the host's own notes)
-> the ``on_action`` hooks -> at the end, ``recorder.finish`` then the ``on_end`` hooks
-> broadcast (each seat's view and the new entries).
The host never imports a game's module: each game's host (:mod:`server.host.voltage`,
:mod:`server.host.highvoltage`, or this class itself for a game with nothing more)
derives from :class:`MatchHost` and adds its extras through the hooks below
(``_check_intent``, ``_used_ms``, ``_accepted``, ``_ended``, ``_after_apply``,
``_refused``, ``_update_extras``); a restart folds the stored log through the same rules
(:func:`restore_log`).  A turn-based game's bots need nothing more: a bot in the seat to
move plays :meth:`MatchHost.bot_action` (by default its first legal action) after
``bot_delay`` seconds; Voltage's and High Voltage's hosts bring bots of their own.

The log is data: engine events and :class:`~tui.ports.Note`\\ s (a seat's private
notes, High Voltage's "too slow", go to that seat's :meth:`MatchHost.feed` only); every
session words them in its own language.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from engine.errors import IllegalActionError, InvalidActionError
from engine.game import Outcome, Rules
from server.errors import RestoreError
from server.host.common import (
    REQUEST,
    Callback,
    HostNotices,
    SaveFailed,
    SaveGate,
    Seat,
    SeatDoor,
    Subscribers,
    run_to_end,
)
from tui.ports import Entry, Notice, NoticeChanged, SeatMessage, Update

S = TypeVar("S")
A = TypeVar("A")
E = TypeVar("E")
V = TypeVar("V")


class MatchHost(HostNotices, Generic[S, A, E, V]):
    """One match of any game between its seats (people or bots), watched by anyone."""

    #: the handle a seat is given (a game's own handle adds its extras)
    handle_class: ClassVar[type[SeatDoor[Any, Any]]] = SeatDoor

    def __init__(self, rules: Rules[S, A, E, V], seats: list[Seat], seed: int | None = None, *,
                 code: str = "", bot_delay: float = 0.7) -> None:
        rules.info.check_seats(len(seats))
        self.rules = rules
        self.game = rules.info.id
        self.seats = seats
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**63)
        self.code = code
        self.state = rules.new_match(self.seed, len(seats))
        self.actions: list[A] = []
        self.requests: dict[str, int] = {}  # the id of an intent that made an action -> its index
        self.log: list[Entry] = list(rules.start_events(self.state))
        self._private: dict[int, list[tuple[int, Entry]]] = {}  # seat -> (log position, entry)
        self._notice: Notice = ()
        self.countdown: int | None = None  # a real-time game's countdown showing (3, 2, 1)
        self.started = False
        self.started_at = time.time()
        self.ended_at: float | None = None
        self._subs = Subscribers()
        self._lock = asyncio.Lock()
        self._closed = False
        self.bot_delay = bot_delay
        self.hinted = False  # a seat asked the coach for a hint: the match is never rated
        self._bot_task: asyncio.Task[None] | None = None
        # Storage (server.store.persist.Recording): commits each action before it is accepted.
        self.recorder: Any = None
        self.saving = SaveGate(self)
        # Hooks for the lobby: called after each accepted (and stored) action / at the end.
        self.on_action: list[Callable[[Any, A], None]] = []
        self.on_end: list[Callable[[Any], None]] = []

    # -- facts ---------------------------------------------------------------

    @property
    def state(self) -> S:
        return self._state

    @state.setter
    def state(self, state: S) -> None:
        self._state = state
        self._outcome = self.rules.outcome(state)

    @property
    def outcome(self) -> Outcome | None:
        """How the match ended (None: it runs)."""
        return self._outcome

    @property
    def over(self) -> bool:
        return self._outcome is not None

    @property
    def winner(self) -> int | None:
        return self._outcome.winner if self._outcome is not None else None

    @property
    def places(self) -> tuple[int, ...] | None:
        return self._outcome.places if self._outcome is not None else None

    @property
    def players(self) -> int:
        return len(self.seats)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.label for s in self.seats)

    @property
    def scores(self) -> tuple[int, ...]:
        """What a lobby's list of matches shows as the score (sets won, cards left...)."""
        return self.rules.standing(self.state)

    def view(self, seat: int | None) -> V:
        return self.rules.view(self.state, seat)

    def resignation(self, seat: int) -> A:
        return self.rules.resignation(seat)

    def feed(self, seat: int | None) -> list[Entry]:
        """Every entry ``seat`` has seen, oldest first: the public log with its own private ones."""
        private = self._private.get(seat, []) if seat is not None else []
        if not private:
            return list(self.log)
        out: list[Entry] = []
        j = 0
        for i, entry in enumerate(self.log):
            while j < len(private) and private[j][0] <= i:
                out.append(private[j][1])
                j += 1
            out.append(entry)
        out.extend(entry for _, entry in private[j:])
        return out

    def handle(self, seat: int | None) -> Any:
        """A handle for ``seat`` (``None``: a spectator)."""
        if seat is not None and not 0 <= seat < self.players:
            raise ValueError(f"no seat {seat}")
        return self.handle_class(self, seat)

    # -- subscriptions -------------------------------------------------------

    def subscribe(self, seat: int | None, callback: Callback | None,
                  on_message: Callable[[Any], None] | None = None) -> Callable[[], None]:
        """Follow ``seat``'s updates (``callback``) and its second stream (``on_message``: a
        notice change comes there, not as an update; see :class:`~server.host.common.Subscribers`)."""
        return self._subs.add(seat, callback, on_message)

    def say(self, message: SeatMessage, seats: Collection[int | None] | None = None) -> None:
        """A message on the second stream of ``seats`` (None: every seat and the spectators):
        not a move, never in the log, never versioned."""
        self._subs.say(message, seats)

    def _broadcast(self, entries: tuple[Entry, ...], only: int | None = None, notice_only: bool = False) -> None:
        """Send every subscriber (or only ``only``'s) its fresh view and ``entries``
        (``notice_only``: only the status notice changed, said as a message to those who
        take messages)."""
        notice, version, names, countdown = self.notice, len(self.actions), self.names, self.countdown
        if notice_only:
            self.say(NoticeChanged(notice))
        self._subs.send(self.view, lambda view: Update(view, entries, notice, countdown, version, names,
                                                       self._update_extras(view)), only, notice_only)

    def _update_extras(self, view: V) -> dict[str, Any]:
        """The game's extras of an :class:`~tui.ports.Update` for the seat of ``view``, by the
        names its server registry entry declares (``server.games.Extra``)."""
        return {}

    def extras(self, seat: int | None) -> dict[str, Any]:
        """The game's extras for ``seat`` now (what its handle gives a screen at start)."""
        return self._update_extras(self.view(seat))

    def _tell(self, seat: int, entry: Entry) -> None:
        """An entry in ``seat``'s feed only (kept in its :meth:`feed`)."""
        self._private.setdefault(seat, []).append((len(self.log), entry))
        self._broadcast((entry,), only=seat)

    # -- actions: the one loop -------------------------------------------------

    async def submit(self, seat: int, action: A) -> None:
        """Apply ``seat``'s intent (in arrival order); raise :class:`IllegalActionError` (its code)
        if refused.  Runs to the end even if the caller is cancelled (see
        :func:`server.host.common.run_to_end`)."""
        await run_to_end(self._submit(seat, action))
        self._after_submit()

    async def _submit(self, seat: int, action: A) -> None:
        request = REQUEST.get()  # (read here: a seat's intent, never a bot's move it wakes)
        async with self._lock:
            if request is not None and request in self.requests:
                return  # applied already (a retry): its first answer stands
            if 0 <= seat < self.players and self.seats[seat].is_bot and action != self.rules.resignation(seat):
                raise IllegalActionError("bot_plays_seat")
            self._check_intent(seat, action)
            await self._apply(seat, action, request)

    async def _apply(self, seat: int | None, action: A, request: str | None = None) -> None:
        """Check, commit, then apply (the lock is held; see the module docstring).  Raises
        :class:`IllegalActionError` (:class:`SaveFailed` if it could not be stored).  ``seat``
        None: the host (a clock's timeout, a countdown's end); ``request``: the id of the
        intent that made it, stored with it (:attr:`requests`)."""
        if self.saving.paused:
            raise SaveFailed()
        before = self.state
        try:
            state, events = self.rules.apply(before, action, seat)
        except IllegalActionError as e:
            self._refused(seat, e)
            raise
        used = self._used_ms()
        await self.saving.commit(len(self.actions), action, used, request)
        self.state = state
        if request is not None:
            self.requests[request] = len(self.actions)
        self.actions.append(action)
        entries: list[Entry] = [*events, *self._accepted(seat, action, before, used)]
        self.log.extend(entries)
        for hook in self.on_action:
            hook(self, action)
        if self.over:
            self._ended()
            self.ended_at = time.time()
            if self.recorder is not None:
                await self.recorder.finish(self)
            for end_hook in self.on_end:
                end_hook(self)
        self._broadcast(tuple(entries))
        self._after_apply()

    # -- the hooks a game's host fills ----------------------------------------------

    def _check_intent(self, seat: int, action: A) -> None:
        """Refuse (raise :class:`IllegalActionError`) what a seat may not send to this host
        beyond the rules (Voltage: a timeout, an abort too soon)."""

    def _used_ms(self) -> int | None:
        """The time the seat to move used on this action, stored with it (None: not kept)."""
        return None

    def _accepted(self, seat: int | None, action: A, before: S, used: int | None) -> Sequence[Entry]:
        """After an accepted action changed the state: the game's bookkeeping; returns the
        host's notes to log after the engine's events."""
        return ()

    def _ended(self) -> None:
        """The match just ended (before the recorder and the ``on_end`` hooks)."""

    def _after_apply(self) -> None:
        """After the broadcast of an accepted action."""

    def _after_submit(self) -> None:
        """After a seat's intent was applied (a bot may move next)."""
        self._schedule_bot()

    def _refused(self, seat: int | None, error: IllegalActionError) -> None:
        """The rules refused ``seat``'s action (High Voltage: too slow, told to the sender)."""

    # -- the lobby's levers ------------------------------------------------------

    def start(self) -> None:
        """Begin play (needs a running loop): a bot to move moves."""
        asyncio.get_running_loop()
        self.started = True
        self._schedule_bot()

    def set_bot(self, seat: int, bot: str | None) -> None:
        """Hand ``seat`` to a bot (``bot`` a name) or back to its human (``None``)."""
        self.seats[seat].bot = bot
        self._broadcast(())
        self._schedule_bot()

    def close(self) -> None:
        self._closed = True
        self.saving.close()
        if self._bot_task is not None:
            self._bot_task.cancel()

    # -- a turn-based game's bots --------------------------------------------------

    def bot_action(self, bot: str, seat: int) -> A:
        """What ``bot`` plays in ``seat`` now (its first legal action; a game's host may
        choose better)."""
        return self.rules.legal_actions(self.state, seat)[0]

    def _bot_seat(self) -> int | None:
        """The seat a bot should move in now (None: no bot's turn)."""
        if self._closed or self.over or not self.started:
            return None
        seat = self.rules.to_move(self.state)
        return seat if seat is not None and self.seats[seat].is_bot else None

    def _schedule_bot(self) -> None:
        if self._bot_seat() is None or (self._bot_task is not None and not self._bot_task.done()):
            return
        self._bot_task = asyncio.get_running_loop().create_task(self._bot_turns())

    async def _bot_turns(self) -> None:
        while (seat := self._bot_seat()) is not None:
            if self.saving.paused:
                await self.saving.wait_resumed()
                continue
            await asyncio.sleep(self.bot_delay)
            await run_to_end(self._bot_move(seat))

    async def _bot_move(self, seat: int) -> None:
        async with self._lock:
            bot = self.seats[seat].bot
            if self._bot_seat() != seat or bot is None:
                return  # the seat changed hands, or the match ended, meanwhile
            try:
                await self._apply(seat, self.bot_action(bot, seat))
            except SaveFailed:
                return  # paused: the loop waits for the store


@dataclass(frozen=True)
class Folded:
    """One stored action folded back in by :func:`restore_log`: who was to move before it,
    the time it used (None: not stored) and whether it passed the turn on."""

    mover: int | None
    used_ms: int | None
    passed: bool


def restore_log(host: MatchHost[Any, Any, Any, Any], record: Any) -> list[Folded]:
    """Fold a stored ``record``'s actions into a fresh ``host`` (its seed, seats and code
    already the record's): the state, the actions and the log as they were, and the start
    time.  Raises :class:`~server.errors.RestoreError` if the log no longer replays."""
    rules = host.rules
    state = host.state
    used_all = getattr(record, "used_ms", None) or ()
    requests = getattr(record, "requests", None) or ()
    folded: list[Folded] = []
    for n, text in enumerate(record.actions or ()):
        mover = rules.to_move(state)
        try:
            action, state, events = rules.apply_logged(state, text)
        except (InvalidActionError, IllegalActionError) as e:
            raise RestoreError("does_not_replay", index=n, text=text, why=str(e)) from e
        if n < len(requests) and requests[n]:
            host.requests[requests[n]] = n
        host.actions.append(action)
        host.log.extend(events)
        after = rules.to_move(state)
        folded.append(Folded(mover, used_all[n] if n < len(used_all) else None,
                             after is not None and after != mover))
    host.state = state
    host.started_at = getattr(record, "started", host.started_at)
    host.hinted = bool(getattr(record, "hinted", False))
    return folded


def restored_seats(record: Any) -> list[Seat]:
    """A stored record's seats: people not connected yet (they come back), bots as they were."""
    return [Seat(s.name, s.identity, s.bot, connected=s.bot is not None) for s in record.seats]
