"""Hosting a Voltage match: one engine state, its seats and its spectators.

A :class:`Match` owns the only copy of the state.  Every screen reaches it
through a :class:`SeatHandle` (a seat's, or a spectator's): the handle gives
the current *view*, calls back with an :class:`Update` after every accepted
action, and takes the seat's intents.  Local play (``voltage play``) and SSH
play hand the TUI the same kind of handle, so the screens cannot tell them
apart.

Bots think off the event loop, in an executor (a process pool on the server),
so one bot's search never freezes another player's screen; a search bot's move is
due within its cap (:data:`engine.bots.THINK_CAPS`), time queued included.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import random
import time
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Callable

from engine import voltage as V
from engine.bots import THINK_CAPS
from engine.errors import IllegalActionError

log = logging.getLogger(__name__)

GAME = "voltage"


@dataclass
class Seat:
    """Who sits in a seat.  ``bot`` names the bot playing it (a human seat
    taken over by a bot has both a human ``identity`` and a ``bot``)."""

    name: str
    identity: str | None = None
    bot: str | None = None
    connected: bool = True

    @property
    def is_bot(self) -> bool:
        return self.bot is not None

    @property
    def label(self) -> str:
        """The name as shown to others, marking a bot standing in for a human."""
        if self.bot and self.identity:
            return f"{self.name} (bot playing)"
        return self.name


@dataclass(frozen=True)
class Update:
    """What a screen gets after a change: the fresh view and the new log lines."""

    view: V.VoltageView
    lines: tuple[str, ...] = ()
    notice: str = ""


Callback = Callable[[Update], None]


def in_context(callback: Callable[[Any], None]) -> Callable[[Any], None]:
    """Wrap ``callback`` to run in the context it subscribed from (its own app's):
    Textual keeps "the current app" in a context variable, and an update caused by
    one player's session must not run in that session's context on another's screen."""
    ctx = contextvars.copy_context()

    def call(update: Any) -> None:
        try:
            ctx.run(callback, update)
        except RuntimeError as e:  # already inside that context (a nested update)
            if "cannot enter context" not in str(e):
                raise
            callback(update)

    return call


class Subscribers:
    """The screens following a match: each callback gets an update built from its
    seat's view (one view per seat per change, shared by that seat's screens)."""

    def __init__(self) -> None:
        self._subs: list[tuple[int | None, Callable[[Any], None]]] = []

    def add(self, seat: int | None, callback: Callable[[Any], None]) -> Callable[[], None]:
        """Follow ``seat``'s view (``None``: a spectator's); returns the unsubscribe.

        Each screen's callback runs in the context it subscribed from: on a server,
        many apps share one loop, and Textual finds "the current app" through a
        context variable, so an update must not run in the submitting player's context."""
        entry = (seat, in_context(callback))
        self._subs.append(entry)

        def unsubscribe() -> None:
            if entry in self._subs:
                self._subs.remove(entry)

        return unsubscribe

    def send(self, view: Callable[[int | None], Any], update: Callable[[Any], Any], only: int | None = None) -> None:
        """Call every subscriber (or only seat ``only``'s) with ``update(view(seat))``."""
        views: dict[int | None, Any] = {}
        for seat, callback in list(self._subs):
            if only is not None and seat != only:
                continue
            if seat not in views:
                views[seat] = view(seat)
            try:
                callback(update(views[seat]))
            except Exception:  # one broken screen must not stop the others
                log.exception("update callback failed")


def _bot_choose(bot_name: str, seed: int, view: V.VoltageView, deadline: float | None = None) -> V.Action:
    """Runs in a worker: build the bot from its name and seed, and let it choose by
    ``deadline`` (a ``time.time()``; see :data:`engine.bots.THINK_CAPS`)."""
    from engine.bots import choose_action  # the bots module's worker entry point

    return choose_action(bot_name, seed, view, deadline=deadline)


class Match:
    """One match of Voltage between two seats (people or bots), watched by anyone."""

    game = GAME

    def __init__(
        self,
        seats: list[Seat],
        seed: int | None = None,
        *,
        code: str = "",
        bot_delay: float = 0.7,
        executor: Executor | None = None,
    ) -> None:
        if len(seats) != 2:
            raise ValueError("Voltage is played by two seats")
        self.seats = seats
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2**63)
        self.code = code
        self.bot_delay = bot_delay
        self.executor = executor
        self.state = V.new_match(self.seed)
        self.actions: list[V.Action] = []
        self.log: list[str] = [e.text(self.names) for e in V.start_events(self.state)]
        self.notice = ""
        self.started_at = time.time()
        self.ended_at: float | None = None
        self._subs = Subscribers()
        self._bot_task: asyncio.Task | None = None
        self._lock = asyncio.Lock()
        self._closed = False
        # Hooks for the lobby and storage: called after each accepted action / at the end.
        self.on_action: list[Callable[[Match, V.Action], None]] = []
        self.on_end: list[Callable[[Match], None]] = []

    # -- facts ---------------------------------------------------------------

    @property
    def names(self) -> tuple[str, str]:
        return (self.seats[0].label, self.seats[1].label)

    @property
    def over(self) -> bool:
        return self.state.phase == V.OVER

    @property
    def winner(self) -> int | None:
        return self.state.winner

    def view(self, seat: int | None) -> V.VoltageView:
        return V.view(self.state, seat)

    def handle(self, seat: int | None) -> SeatHandle:
        """A handle for ``seat`` (``None``: a spectator)."""
        if seat is not None and seat not in (0, 1):
            raise ValueError(f"no seat {seat}")
        return SeatHandle(self, seat)

    # -- subscriptions -------------------------------------------------------

    def subscribe(self, seat: int | None, callback: Callback) -> Callable[[], None]:
        return self._subs.add(seat, callback)

    def _broadcast(self, lines: tuple[str, ...]) -> None:
        self._subs.send(self.view, lambda view: Update(view, lines, self.notice))

    def set_notice(self, text: str) -> None:
        """A status line every screen shows (e.g. waiting for a reconnect)."""
        self.notice = text
        self._broadcast(())

    # -- actions -------------------------------------------------------------

    async def submit(self, seat: int, action: V.Action) -> None:
        """Apply ``seat``'s intent; raise :class:`IllegalActionError` with a reason if refused."""
        async with self._lock:
            if seat in (0, 1) and self.seats[seat].is_bot and not isinstance(action, V.Resign):
                raise IllegalActionError("a bot is playing this seat")
            self._apply(seat, action)
        self._schedule_bot()

    def _apply(self, seat: int, action: V.Action) -> None:
        state, events = V.apply(self.state, action, seat)
        self.state = state
        self.actions.append(action)
        lines = tuple(e.text(self.names) for e in events)
        self.log.extend(lines)
        for hook in self.on_action:
            hook(self, action)
        if self.over:
            self.ended_at = time.time()
            for hook in self.on_end:
                hook(self)
        self._broadcast(lines)

    def start(self) -> None:
        """Begin play: if a bot moves first, let it think.  Needs a running loop."""
        self._schedule_bot()

    def set_bot(self, seat: int, bot: str | None) -> None:
        """Hand ``seat`` to a bot (``bot`` a name) or back to its human (``None``)."""
        self.seats[seat].bot = bot
        self._broadcast(())
        self._schedule_bot()

    def close(self) -> None:
        self._closed = True
        if self._bot_task is not None:
            self._bot_task.cancel()

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
            async with self._lock:
                # The seat may have changed hands, or the match ended, while the bot thought.
                if self._closed or self.over or self.state.to_move != seat or self.seats[seat].bot != bot:
                    continue
                if self.view(seat) != view:
                    continue
                try:
                    self._apply(seat, action)
                except IllegalActionError:
                    log.exception("bot %s chose an illegal action %r", bot, action)
                    self._apply(seat, random.Random(seed).choice(view.legal))


class SeatHandle:
    """A screen's door into a match: the view, updates, and intents for one seat."""

    def __init__(self, match: Match, seat: int | None) -> None:
        self.match = match
        self.seat = seat

    @property
    def game(self) -> str:
        return self.match.game

    @property
    def names(self) -> tuple[str, str]:
        return self.match.names

    @property
    def log(self) -> list[str]:
        """Every log line so far, oldest first."""
        return list(self.match.log)

    @property
    def notice(self) -> str:
        return self.match.notice

    @property
    def spectator(self) -> bool:
        return self.seat is None

    def view(self) -> V.VoltageView:
        return self.match.view(self.seat)

    def subscribe(self, callback: Callback) -> Callable[[], None]:
        """Call ``callback(update)`` on the event loop after every change; returns an unsubscribe."""
        return self.match.subscribe(self.seat, callback)

    async def submit(self, action: V.Action) -> None:
        """Send an intent.  Raises :class:`IllegalActionError` (one-line reason) if refused."""
        if self.seat is None:
            raise IllegalActionError("spectators cannot play")
        await self.match.submit(self.seat, action)

    async def resign(self) -> None:
        await self.submit(V.Resign(self.seat if self.seat is not None else 0))
