"""Replays: a finished match, step by step, as the viewer may see it.

A :class:`Replay` is built from a stored :class:`~server.store.db.MatchRecord`
(seed + action log).  Step 0 is the deal; step ``i`` is the position after
action ``i``; the last step is the end.  A screen asks for ``view(i)`` (a
frozen engine view: a replay cannot be played), ``lines(i)`` (the match log up
to that step) and the boundaries to jump between (``set_steps``,
``set_start(k)``): in Voltage a set ends when it is scored
(:class:`VoltageReplay`); in High Voltage a round ends when everyone was stuck
and the pile was flipped (:class:`HVReplay`).

Hidden information: a replay is only ever of a finished match, and once a
match is over its hidden cards no longer matter to anyone (RULINGS.md hides a
hand from the other players *during* play).  So a replay shows every hand by
default: :meth:`Replay.hands` gives each seat's hand at a step, in hand order
(Voltage) or in the order taken (High Voltage), whatever the viewer (issue 14).
Each seat's honest view, exactly what that seat saw at the time (its own hand,
the others' backs), is still there: :meth:`Replay.seat_view`, and the screens'
seat-view key cycles through the :attr:`Replay.viewpoints` (:data:`ALL`, seat
0, seat 1, ... and back).  ``seat`` is the viewer's own seat (when the
viewer's identity played in the match, which :meth:`Replay.load` works out)
and :meth:`Replay.view` that seat's view, or a spectator's (no hand): the
screens draw around that view and put the hands on it.

The unfinished-match refusal is what makes the hands safe to show: a running
match's log would reveal hands to a player still in it, so ``Replay`` refuses
an unfinished record outright, and :meth:`Replay.hands` checks again.

- ``Replay.load(store, match_id, viewer=None)``: the replay of either game;
  raises :class:`ReplayError` for an unknown or unfinished match (a running
  match's log would reveal hands to a player still in it).
- ``replay_of(record, seat=None)``: from a record already read.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.errors import IllegalActionError, InvalidActionError
from engine.highvoltage import rules as H
from engine.voltage import rules as V
from engine.voltage.cards import Card
from server.errors import ServerError
from server.store.db import MatchRecord, Store
from tui.games.registry import words


class ReplayError(ServerError):
    """The match cannot be replayed; the message says why."""


#: The viewpoint that shows every hand (the default): the other viewpoints are seats.
ALL = "all"


class Replay:
    """A finished match: every position, its log, and its sets (or rounds).

    Subclasses say how a game starts (``_start``), how a stored action text is
    applied (``_apply``), which events end a set (``_ends_set``), what a seat
    sees (``seat_view``) and what a seat holds (``_hand``).
    """

    game = ""
    #: what the stretches between ``set_steps`` are called on screen
    unit = "set"

    def __init__(self, record: MatchRecord, seat: int | None = None) -> None:
        if record.game != self.game:
            raise ReplayError(f"match {record.id} is {record.game}, not {self.game}")
        if not record.finished:
            raise ReplayError(f"match {record.id} is not finished; only finished matches can be replayed")
        if seat is not None and not 0 <= seat < len(record.seats):
            raise ReplayError(f"match {record.id} has no seat {seat}")
        self.record = record
        self.seat = seat
        self.names: tuple[str, ...] = tuple(s.name for s in record.seats)
        state, start = self._start(record)
        self._states: list[Any] = [state]
        self._actions: list[Any] = []
        self._step_lines: list[tuple[str, ...]] = [tuple(words(record.game).lines(start, self.names))]
        #: step numbers right after a set (round) ended, in order (set k ends at set_steps[k-1])
        self.set_steps: list[int] = []
        for n, text in enumerate(record.actions or ()):
            try:
                action, state, events = self._apply(state, text)
            except (InvalidActionError, IllegalActionError) as e:
                raise ReplayError(f"match {record.id}: action {n} ({text!r}) does not replay: {e}") from e
            self._states.append(state)
            self._actions.append(action)
            self._step_lines.append(tuple(words(record.game).lines(events, self.names)))
            if any(self._ends_set(e) for e in events):
                self.set_steps.append(n + 1)

    def _start(self, record: MatchRecord) -> tuple[Any, list[Any]]:
        raise NotImplementedError

    def _apply(self, state: Any, text: str) -> tuple[Any, Any, list[Any]]:
        raise NotImplementedError

    def _ends_set(self, event: Any) -> bool:
        raise NotImplementedError

    def seat_view(self, step: int, seat: int | None) -> Any:
        """``seat``'s view at ``step``, exactly what it saw (``None``: a spectator's)."""
        raise NotImplementedError

    def _hand(self, state: Any, seat: int) -> tuple[Any, ...]:
        raise NotImplementedError

    def view(self, step: int) -> Any:
        """What the viewer sees at ``step``: their seat's view, or a spectator's."""
        return self.seat_view(step, self.seat)

    def hands(self, step: int) -> tuple[tuple[Any, ...], ...]:
        """Every seat's hand at ``step``, faces shown (the match is over: nothing is hidden now)."""
        if not self.record.finished:  # (the constructor refuses these; never reveal a running match)
            raise ReplayError(f"match {self.record.id} is not finished; its hands are hidden")
        state = self._states[self.clamp(step)]
        return tuple(self._hand(state, seat) for seat in range(len(self.names)))

    # -- viewpoints ----------------------------------------------------------

    @property
    def viewpoints(self) -> tuple[int | str, ...]:
        """What the seat-view key cycles through: every hand, then each seat's own view."""
        return (ALL, *range(len(self.names)))

    def next_viewpoint(self, viewpoint: int | str) -> int | str:
        """The viewpoint after ``viewpoint`` (after the last seat: every hand again)."""
        points = self.viewpoints
        i = points.index(viewpoint) if viewpoint in points else -1
        return points[(i + 1) % len(points)]

    @classmethod
    def load(cls, store: Store, match_id: int, viewer: str | None = None) -> Replay:
        """The replay of ``match_id`` for ``viewer`` (an identity; ``None``: a spectator)."""
        record = store.match_record(match_id)
        if record is None:
            raise ReplayError(f"no match {match_id}")
        return replay_of(record, record.seat_of(viewer))

    # -- steps ---------------------------------------------------------------

    def __len__(self) -> int:
        """The number of steps (actions + 1)."""
        return len(self._states)

    @property
    def last(self) -> int:
        return len(self._states) - 1

    def clamp(self, step: int) -> int:
        return max(0, min(self.last, step))

    def state(self, step: int) -> Any:
        """The full state (hidden cards included): for tests and tools, never for a screen."""
        return self._states[self.clamp(step)]

    def action(self, step: int) -> str | None:
        """The text of the action that led to ``step`` (``None`` for the deal)."""
        step = self.clamp(step)
        return self._actions[step - 1].text() if step else None

    def step_lines(self, step: int) -> tuple[str, ...]:
        """The log lines the action leading to ``step`` produced (the deal's for 0)."""
        return self._step_lines[self.clamp(step)]

    def lines(self, step: int) -> list[str]:
        """The whole match log up to and including ``step``."""
        out: list[str] = []
        for chunk in self._step_lines[: self.clamp(step) + 1]:
            out.extend(chunk)
        return out

    # -- sets ----------------------------------------------------------------

    @property
    def sets(self) -> int:
        """How many sets were scored (rounds ended) in the match."""
        return len(self.set_steps)

    def set_start(self, k: int) -> int:
        """The step where set ``k`` (1-based) began: the deal, or just after set k-1 scored."""
        if not 1 <= k <= self.sets + 1:
            raise ValueError(f"set {k} out of 1..{self.sets + 1}")
        return 0 if k == 1 else self.set_steps[k - 2]

    def set_at(self, step: int) -> int:
        """The set (1-based) being played at ``step``."""
        step = self.clamp(step)
        return 1 + sum(1 for s in self.set_steps if s <= step)

    def next_set(self, step: int) -> int:
        """The next set boundary after ``step`` (or the end)."""
        for s in self.set_steps:
            if s > step:
                return s
        return self.last

    def prev_set(self, step: int) -> int:
        """The last set boundary before ``step`` (or the deal)."""
        for s in reversed(self.set_steps):
            if s < step:
                return s
        return 0


class VoltageReplay(Replay):
    """A finished Voltage match; a set ends when a terminal is scored."""

    game = "voltage"

    def _start(self, record: MatchRecord) -> tuple[V.State, list[V.Event]]:
        state = V.new_match(record.seed)
        return state, V.start_events(state)

    def _apply(self, state: V.State, text: str) -> tuple[V.Action, V.State, list[V.Event]]:
        return V.apply_logged(state, text)

    def _ends_set(self, event: V.Event) -> bool:
        return event.kind == "score"

    def seat_view(self, step: int, seat: int | None) -> V.VoltageView:
        return replace(V.view(self._states[self.clamp(step)], seat), legal=())

    def _hand(self, state: V.State, seat: int) -> tuple[Card, ...]:
        return tuple(Card.of(c) for c in state.hands[seat])


class HVReplay(Replay):
    """A finished High Voltage match; a round ends when the stuck pile is flipped.

    The log holds only accepted actions (a "too slow" play never reached it), each
    applied as the host applied it; the countdown is its ``go`` action, so no clock
    is needed.
    """

    game = "high-voltage"
    unit = "round"

    def _start(self, record: MatchRecord) -> tuple[H.State, list[H.Event]]:
        state = H.new_match(record.seed, len(record.seats))
        return state, H.start_events(state)

    def _apply(self, state: H.State, text: str) -> tuple[H.Action, H.State, list[H.Event]]:
        action = H.parse_action(text)
        state, events = H.apply(state, action, None)
        return action, state, events

    def _ends_set(self, event: H.Event) -> bool:
        return event.kind == "flip"

    def seat_view(self, step: int, seat: int | None) -> H.HighVoltageView:
        return H.view(self._states[self.clamp(step)], seat)

    def _hand(self, state: H.State, seat: int) -> tuple[H.Face, ...]:
        # During a countdown too: the cards were dealt face down then, but the match is over.
        return tuple(H.CARD_FACE[c] for c in state.hands[seat])


def replay_of(record: MatchRecord, seat: int | None = None) -> Replay:
    """The replay of ``record`` (any registered game: :mod:`server.games`) from ``seat``
    (``None``: a spectator)."""
    from server.games import GAMES  # (the registry names this module's classes)

    known = GAMES.get(record.game)
    if known is None:
        raise ReplayError(f"match {record.id} is a game this server cannot replay ({record.game})")
    return known.replay()(record, seat)
