"""Replays: a finished match, step by step, as the viewer may see it.

One :class:`Replay` for every game, driven by the game's rules (``engine.registry``:
``new_match``, ``start_events``, ``apply_logged``, ``replay_view``, ``hands``,
``ends_stretch``); it never imports a game's module.  It is built from a stored
:class:`~server.store.db.MatchRecord` (seed + action log).  Step 0 is the deal; step ``i``
is the position after action ``i``; the last step is the end.  A screen asks for
``view(i)`` (a frozen engine view: a replay cannot be played), ``entries(i)`` (the
match log up to that step, as data: the screen words it) and the boundaries to jump
between (``set_steps``, ``set_start(k)``): a stretch ends at an event the rules say ends
one (Voltage: a scored set; High Voltage: a round, when the stuck pile is flipped), and
``unit`` is what the game calls it (an id the screens word: "set", "round").

Hidden information: a replay is only ever of a finished match, and once a
match is over its hidden cards no longer matter to anyone (the rules hide a
hand from the other players *during* play).  So a replay shows every hand by
default: :meth:`Replay.hands` gives each seat's hand at a step, whatever the viewer.
Each seat's honest view, exactly what that seat saw at the time (its own hand,
the others' backs), is still there: :meth:`Replay.seat_view`, and the screens'
seat-view key cycles through the :attr:`Replay.viewpoints` (:data:`ALL`, seat
0, seat 1, ... and back).  ``seat`` is the viewer's own seat (when the
viewer's identity played in the match, which :meth:`Replay.load` works out)
and :meth:`Replay.view` that seat's view, or a spectator's (no hand).

The unfinished-match refusal is what makes the hands safe to show: a running
match's log would reveal hands to a player still in it, so ``Replay`` refuses
an unfinished record outright, and :meth:`Replay.hands` checks again.

- ``Replay.load(store, match_id, viewer=None)``: the replay of any game; raises
  :class:`ReplayError` (its code) for an unknown or unfinished match.
- ``replay_of(record, seat=None)``: from a record already read.
"""

from __future__ import annotations

from typing import Any

from engine.errors import IllegalActionError, InvalidActionError
from engine.registry import RULES
from server.errors import ServerError
from server.store.db import MatchRecord, Store
from tui.ports import Entry


class ReplayError(ServerError):
    """The match cannot be replayed; its code says why."""


#: The viewpoint that shows every hand (the default): the other viewpoints are seats.
ALL = "all"


class Replay:
    """A finished match of any game: every position, its log, and its stretches (sets, rounds)."""

    def __init__(self, record: MatchRecord, seat: int | None = None) -> None:
        rules = RULES.get(record.game)
        if rules is None:
            raise ReplayError("unknown_game", match=record.id, game=record.game)
        if not record.finished:
            raise ReplayError("not_finished", match=record.id)
        if seat is not None and not 0 <= seat < len(record.seats):
            raise ReplayError("no_such_seat_in", match=record.id, seat=seat)
        self.rules = rules
        self.record = record
        self.seat = seat
        self.names: tuple[str, ...] = tuple(s.name for s in record.seats)
        #: what the stretches between ``set_steps`` are called (an id the screens word)
        self.unit = rules.info.stretch
        state = rules.new_match(record.seed, len(record.seats))
        self._states: list[Any] = [state]
        self._actions: list[Any] = []
        self._step_entries: list[tuple[Entry, ...]] = [tuple(rules.start_events(state))]
        #: step numbers right after a set (round) ended, in order (set k ends at set_steps[k-1])
        self.set_steps: list[int] = []
        for n, text in enumerate(record.actions or ()):
            try:
                action, state, events = rules.apply_logged(state, text)
            except (InvalidActionError, IllegalActionError) as e:
                raise ReplayError("does_not_replay", match=record.id, index=n, text=text, why=str(e)) from e
            self._states.append(state)
            self._actions.append(action)
            self._step_entries.append(tuple(events))
            if any(rules.ends_stretch(e) for e in events):
                self.set_steps.append(n + 1)

    @property
    def game(self) -> str:
        return self.record.game

    def seat_view(self, step: int, seat: int | None) -> Any:
        """``seat``'s view at ``step``, exactly what it saw (``None``: a spectator's)."""
        return self.rules.replay_view(self._states[self.clamp(step)], seat)

    def view(self, step: int) -> Any:
        """What the viewer sees at ``step``: their seat's view, or a spectator's."""
        return self.seat_view(step, self.seat)

    def hands(self, step: int) -> tuple[tuple[Any, ...], ...]:
        """Every seat's hand at ``step``, faces shown (the match is over: nothing is hidden now)."""
        if not self.record.finished:  # (the constructor refuses these; never reveal a running match)
            raise ReplayError("hands_hidden", match=self.record.id)
        return self.rules.hands(self._states[self.clamp(step)])

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
            raise ReplayError("no_such_match", match=match_id)
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
        """The stored text of the action that led to ``step`` (``None`` for the deal)."""
        step = self.clamp(step)
        return self.rules.action_text(self._actions[step - 1]) if step else None

    def step_entries(self, step: int) -> tuple[Entry, ...]:
        """The events the action leading to ``step`` caused (the deal's for 0)."""
        return self._step_entries[self.clamp(step)]

    def entries(self, step: int) -> list[Entry]:
        """The whole match log up to and including ``step``."""
        out: list[Entry] = []
        for chunk in self._step_entries[: self.clamp(step) + 1]:
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


def replay_of(record: MatchRecord, seat: int | None = None) -> Replay:
    """The replay of ``record`` (any registered game) from ``seat`` (``None``: a spectator)."""
    return Replay(record, seat)
