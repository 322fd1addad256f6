"""What every match host shares, whatever its game: saving, seats, subscribers, notices,
and the seat handle's common part (the host itself, and its one loop, is :mod:`server.host.base`).

Saving is part of accepting.  A match with a ``recorder`` (see
:class:`server.store.persist.Recording`) applies an action only once the recorder
has committed it: the host checks the action, awaits ``recorder.commit``
(the store's writer thread does the disk work, so the event loop never waits
on the disk) and only then changes the state, runs the ``on_action`` hooks
and tells the screens.  The host's lock is held across that await, so the
log's order is the order of acceptance (High Voltage's arrival order too).
If the commit fails, the action is refused with :class:`SaveFailed` (code
``save_failed``: the same path as an illegal move, so the screens show it in their one line
and lose nothing), the match pauses (:class:`SaveGate`: a notice on every
screen, every intent refused with that code, bots and countdowns wait) and a
retry loop probes the store until a write succeeds, then resumes.  A commit
that is merely slow (a stalled disk) is waited for: after
:data:`SLOW_SAVE_SECONDS` every screen is told why nothing moves.  The notices are
notes (:data:`PAUSED`, :data:`SLOW`), worded by each screen.  The end
is recorded (``recorder.finish``) before the ``on_end`` hooks run, so a
results screen finds the rating changes.  Once sent, a move runs to the end
in a task of its own (:func:`run_to_end`): a screen closed or a bot replaced
mid-commit must not leave a committed row unapplied.

:class:`SeatDoor` is the part of a seat handle (:class:`tui.ports.SeatHandle`) that does
not depend on the game: its match, seat, names, log, notice, version, view and intents.
Each game's handle derives from it with its own view and action types and adds its own
calls (Voltage's draw offers, High Voltage's idle votes), so neither game's handle derives
from the other's; what a game shows beside the view travels in ``extras``.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections.abc import Callable, Collection
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from engine.errors import IllegalActionError
from tui import ports
from tui.ports import Entry, Note, Notice
from tui.words import BOT_PLAYING

log = logging.getLogger(__name__)

PAUSED = Note("paused")  # the store cannot write: play waits
SLOW = Note("slow_save")  # the store is slow to write the last move
HELD = Note("held")  # a player cannot reach the host (a split server's edge cut off): the clocks wait
SLOW_SAVE_SECONDS = 2.0
RETRY_SECONDS = (0.2, 0.5, 1.0, 2.0, 5.0)  # between probes of a store that failed; the last repeats
#: The id of the intent being applied (a split server's host sets it around a seat's call): stored
#: with the action it makes, so a retry of the intent is answered, never applied twice.
REQUEST: ContextVar[str | None] = ContextVar("request", default=None)


class SaveFailed(IllegalActionError):
    """An action refused because the store could not commit it (code ``save_failed``; the
    match is paused)."""

    def __init__(self) -> None:
        super().__init__("save_failed")


class SaveGate:
    """Saving for a match host: commits its actions through its ``recorder``, and
    pauses it while the store cannot write (see the module docstring).

    ``host`` has ``recorder``, ``code``, ``_closed`` and ``_notice_changed()``."""

    def __init__(self, host: Any) -> None:
        self.host = host
        self.paused = False
        self.held = False  # the players cannot all reach the host: the clocks stop (see hold)
        self._store: Notice = ()  # the store's part of the notice (paused, slow)
        self._resumed = asyncio.Event()
        self._resumed.set()
        self._retry: asyncio.Task | None = None
        self.pauses = 0  # how many times the store failed this match

    async def commit(self, index: int, action: Any, used_ms: int | None = None, request: str | None = None) -> None:
        """Commit action ``index`` (``used_ms``: the time its seat used, if kept; ``request``: the
        id of the intent that made it, if any; the recorder stores the action's text,
        ``host.rules.action_text``); raise :class:`SaveFailed` (and pause) if it cannot be."""
        recorder = self.host.recorder
        if self.paused:
            raise SaveFailed()
        if recorder is None:
            return
        kept: dict[str, Any] = {}
        if used_ms is not None:
            kept["used_ms"] = used_ms
        if request is not None:
            kept["request"] = request
        coro = recorder.commit(self.host, index, action, **kept)
        fut = asyncio.ensure_future(coro)
        slow = False
        try:
            done, _ = await asyncio.wait({fut}, timeout=SLOW_SAVE_SECONDS)
            if not done:  # a stalled disk: wait (never cancel a write half-way), and say why
                slow = True
                self._set_notice((SLOW,))
                await asyncio.shield(fut)
            fut.result()
        except asyncio.CancelledError:
            raise
        except Exception as e:
            log.error("match %s: could not store action %d (%s); paused until the store can write",
                      self._label(), index, e)
            self.pause()
            raise SaveFailed() from e
        finally:
            if slow and not self.paused:
                self._set_notice(())

    def pause(self) -> None:
        if self.paused:
            return
        self.paused = True
        self.pauses += 1
        self._resumed.clear()
        self._set_notice((PAUSED,))
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # pragma: no cover - no loop: nothing can play anyway
            return
        self._retry = loop.create_task(self._probe_until_it_works())

    async def _probe_until_it_works(self) -> None:
        n = 0
        while self.paused and not self.host._closed:
            await asyncio.sleep(RETRY_SECONDS[min(n, len(RETRY_SECONDS) - 1)])
            n += 1
            recorder = self.host.recorder
            try:
                if recorder is not None:
                    await recorder.probe()
            except asyncio.CancelledError:
                raise
            except Exception as e:
                if n in (1, 10) or n % 60 == 0:
                    log.warning("match %s: the store still cannot write (%s); still paused",
                                self._label(), e)
                continue
            log.warning("match %s: the store can write again; resuming", self._label())
            self.resume()

    def resume(self) -> None:
        if not self.paused:
            return
        self.paused = False
        self._set_notice(())
        self._resumed.set()

    @property
    def notice(self) -> Notice:
        """What saving says before the host's own notice: the store's state, then the hold."""
        return self._store + ((HELD,) if self.held and not self.paused else ())

    @property
    def stopped(self) -> bool:
        """Do the clocks stand still (the store cannot write, or a player cannot reach the host)?"""
        return self.paused or self.held

    def hold(self, on: bool) -> None:
        """Stop the clocks (``on``) while a player cannot reach the host through no fault of
        theirs (a split server's edge cut off from it), as they stop while the store cannot
        write; the notice says so.  A move that does arrive is taken: only time stands still."""
        if on == self.held:
            return
        self.held = on
        self.host._notice_changed()

    async def wait_resumed(self) -> None:
        await self._resumed.wait()

    def close(self) -> None:
        if self._retry is not None:
            self._retry.cancel()
        self._resumed.set()  # wake whatever waits, so it sees the host closed

    def _label(self) -> str:
        """How the log names the match: its store id (and code) when it has them."""
        code = getattr(self.host, "code", "") or ""
        recorder = self.host.recorder  # (None: a match not stored)
        ident = recorder.safe_id() if recorder is not None else "?"
        return f"{ident} ({code})" if code else ident

    def _set_notice(self, notes: Notice) -> None:
        if notes != self._store:
            self._store = notes
            self.host._notice_changed()


async def run_to_end(coro: Any) -> Any:
    """Await ``coro`` in a task of its own that runs to the end even if the awaiting task
    is cancelled (a screen closed, a bot replaced).  An action whose row is being
    committed must then still be applied, with the host's lock held throughout, or the
    store and the match would disagree about the log."""
    try:
        task = asyncio.ensure_future(coro)
    except BaseException:  # no loop to run it on (it is closing): the coroutine is dropped, not left unawaited
        coro.close()
        raise
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        task.add_done_callback(_retrieve)
        raise


def _retrieve(task: asyncio.Task) -> None:
    if not task.cancelled():
        task.exception()  # nobody waits for it any more: mark it seen


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
            return self.name + BOT_PLAYING  # (each reader words the mark: tui.words.seat_names)
        return self.name


#: What a screen gets after a change (:class:`tui.ports.Update`): the seat's fresh view,
#: the new log entries, the notice, and the match's version (its action count).  Declared
#: in the tui's seams, since it is what an edge receives from a remote host.
Update = ports.Update

Callback = ports.UpdateCallback


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
    """The screens (and the split server's publishers) following a match: each update
    callback gets an update built from its seat's view (one view per seat per change,
    shared by that seat's subscribers), each message callback the seat's second stream."""

    def __init__(self) -> None:
        self._subs: list[tuple[int | None, Callable[[Any], None] | None, Callable[[Any], None] | None]] = []

    def add(self, seat: int | None, callback: Callable[[Any], None] | None,
            on_message: Callable[[Any], None] | None = None) -> Callable[[], None]:
        """Follow ``seat``'s view (``None``: a spectator's) and, with ``on_message``, its
        second stream (:data:`tui.ports.SeatMessage`); returns the unsubscribe.

        A subscriber with ``on_message`` gets a change of the status notice alone as a
        :class:`~tui.ports.NoticeChanged` message, not as an update (an edge's publisher:
        a notice need not carry every seat's view across); one without gets it as an
        update, as a screen always has.  Each callback runs in the context it subscribed
        from: on a server, many apps share one loop, and Textual finds "the current app"
        through a context variable, so an update must not run in the submitting player's
        context."""
        entry = (seat, in_context(callback) if callback is not None else None,
                 in_context(on_message) if on_message is not None else None)
        self._subs.append(entry)

        def unsubscribe() -> None:
            if entry in self._subs:
                self._subs.remove(entry)

        return unsubscribe

    def send(self, view: Callable[[int | None], Any], update: Callable[[Any], Any], only: int | None = None,
             notice_only: bool = False) -> None:
        """Call every update subscriber (or only seat ``only``'s) with ``update(view(seat))``
        (``notice_only``: the status notice alone changed, so not those who take messages)."""
        views: dict[int | None, Any] = {}
        for seat, callback, on_message in list(self._subs):
            if callback is None or (only is not None and seat != only) or (notice_only and on_message is not None):
                continue
            if seat not in views:
                views[seat] = view(seat)
            try:
                callback(update(views[seat]))
            except Exception:  # one broken screen must not stop the others
                log.exception("update callback failed")

    def say(self, message: Any, seats: Collection[int | None] | None = None) -> None:
        """Give ``message`` to the message subscribers of ``seats`` (None: every seat and
        the spectators)."""
        for seat, _callback, on_message in list(self._subs):
            if on_message is None or (seats is not None and seat not in seats):
                continue
            try:
                on_message(message)
            except Exception:  # one broken subscriber must not stop the others
                log.exception("message callback failed")


class HostNotices:
    """What every match host says beside the moves: the status notice (the store's state,
    paused or slow, then the lobby's notes) and notes in the log.  A host has ``saving``
    (its :class:`SaveGate`), ``_notice``, ``log`` and ``_broadcast(entries)``."""

    saving: SaveGate
    _notice: Notice
    log: list[Entry]

    def _broadcast(self, entries: tuple[Entry, ...], only: int | None = None, notice_only: bool = False) -> None:
        raise NotImplementedError

    @property
    def notice(self) -> Notice:
        """The status notice: the store's state (paused, slow) first, then the lobby's."""
        return self.saving.notice + self._notice

    @property
    def paused(self) -> bool:
        """Is play paused because the store cannot write?"""
        return self.saving.paused

    def hold(self, on: bool) -> None:
        """Stop the clocks while a player cannot reach the host (see :meth:`SaveGate.hold`)."""
        self.saving.hold(on)

    def set_notice(self, *notes: Note) -> None:
        """The lobby's part of the status notice every screen shows (none: ``set_notice()``),
        e.g. waiting for a reconnect."""
        self._notice = tuple(notes)
        self._broadcast((), notice_only=True)

    def announce(self, note: Note) -> None:
        """A note in every screen's log that is no move (the lobby's news: "Bob is back.")."""
        self.log.append(note)
        self._broadcast((note,))

    def _notice_changed(self) -> None:
        """The store's part of the notice changed (paused, slow)."""
        self._broadcast((), notice_only=True)


ViewT = TypeVar("ViewT")
ActionT = TypeVar("ActionT")


ViewT_co = TypeVar("ViewT_co", covariant=True)
ActionT_contra = TypeVar("ActionT_contra", contravariant=True)


class HostedMatch(Protocol[ViewT_co, ActionT_contra]):
    """What :class:`SeatDoor` asks of its match host (:class:`server.host.base.MatchHost`)."""

    game: str
    code: str
    actions: list[Any]
    countdown: int | None

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def notice(self) -> Notice: ...

    def view(self, seat: int | None) -> ViewT_co: ...

    def extras(self, seat: int | None) -> dict[str, Any]: ...

    def feed(self, seat: int | None) -> list[Entry]: ...

    def resignation(self, seat: int) -> Any: ...

    def subscribe(self, seat: int | None, callback: Callback | None,
                  on_message: Callable[[Any], None] | None = None) -> Callable[[], None]: ...

    async def submit(self, seat: int, action: ActionT_contra) -> None: ...


class SeatDoor(Generic[ViewT, ActionT]):
    """A screen's door into a match, the part every game shares (see the module docstring)."""

    #: what a spectator's resignation is refused as ("spectators cannot resign")
    RESIGN = "resign"

    def __init__(self, match: HostedMatch[ViewT, ActionT], seat: int | None) -> None:
        self.match = match
        self.seat = seat

    @property
    def game(self) -> str:
        return self.match.game

    @property
    def names(self) -> tuple[str, ...]:
        return self.match.names

    @property
    def log(self) -> list[Entry]:
        """Every entry of this seat's log so far (its own private ones included), oldest first."""
        return self.match.feed(self.seat)

    @property
    def notice(self) -> Notice:
        return self.match.notice

    @property
    def countdown(self) -> int | None:
        """The countdown number showing (3, 2, 1), or None (a turn-based game never counts)."""
        return self.match.countdown

    @property
    def version(self) -> int:
        """How many actions the match has accepted (an :class:`Update`'s ``version``)."""
        return len(self.match.actions)

    @property
    def spectator(self) -> bool:
        return self.seat is None

    @property
    def extras(self) -> dict[str, Any]:
        """The game's extras for this seat now (as an :class:`Update` carries them)."""
        return self.match.extras(self.seat)

    def view(self) -> ViewT:
        return self.match.view(self.seat)

    def subscribe(self, callback: Callback) -> Callable[[], None]:
        """Call ``callback(update)`` on the event loop after every change; returns an unsubscribe."""
        return self.match.subscribe(self.seat, callback)

    def subscribe_messages(self, callback: Callable[[Any], None]) -> Callable[[], None]:
        """Call ``callback(message)`` with each message said to this seat (its second stream)."""
        return self.match.subscribe(self.seat, None, on_message=callback)

    async def submit(self, action: ActionT) -> None:
        """Send an intent.  Raises :class:`IllegalActionError` (its code) if refused."""
        await self.match.submit(self.own_seat("play"), action)

    async def resign(self) -> None:
        seat = self.own_seat(self.RESIGN)
        await self.match.submit(seat, self.match.resignation(seat))

    def own_seat(self, verb: str) -> int:
        """This handle's seat; a spectator's handle refuses to ``verb`` (code ``spectator``)."""
        if self.seat is None:
            raise IllegalActionError("spectator", act=verb)
        return self.seat
