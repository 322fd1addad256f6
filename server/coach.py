"""The coach's worker: hints in a match and the analysis of a finished one, off the loop.

The Expert search behind a hint or an analysis runs in the coach's own workers, never the
bots' pool: processes at the lowest CPU priority (``os.nice(19)``), so a live match's bots,
which think in their own pool at normal priority, always come first and keep to their caps
(:data:`engine.voltage.bots.THINK_CAPS`) however many people ask for the coach.  Hints have
a worker of their own beside the analyses' (a hint, a second's search asked by a player at
the table, waited behind a minute-long analysis and timed out on the split server); each
queues its requests in order.

- :meth:`Coach.hint`: the Expert's move in a seat's view (:func:`engine.voltage.coach.hint`).
- :meth:`Coach.analysis`: a finished Voltage match's analysis (:class:`Analysis`), read from
  the store when it was made before, else made once on the worker (with its progress) and
  stored with the match.  One analysis per player at a time: another asked meanwhile by the
  same player is refused (``analysis_busy``).

A process-wide coach (:func:`shared`) serves the hosts' hints; the lobby's coach also
keeps analyses in its store.  Tests give a coach a thread executor.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from engine.voltage import coach as K
from engine.voltage import rules as V
from server.errors import ServerError

log = logging.getLogger(__name__)

#: The search budget of an analysis, per decision: half the Expert's move (its trees and
#: depth), so a match of ~100 decisions takes about a minute of one core, once.
ANALYSIS_ITERATIONS = 1400
#: The game the coach knows (Voltage's engine coach).
GAME = "voltage"


class CoachError(ServerError):
    """The coach turned a request down (``analysis_busy``, ``not_analysable``)."""


def _lowest_priority() -> None:  # pragma: no cover - runs in the worker process
    try:
        os.nice(19)
    except OSError:
        pass


def _new_worker() -> Executor:
    """One worker process at the lowest priority (a thread where processes cannot be made)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

    try:
        return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("forkserver"),
                                   initializer=_lowest_priority)
    except Exception:  # pragma: no cover - no process support here
        return ThreadPoolExecutor(max_workers=1, thread_name_prefix="coach")


def _hint(view: V.VoltageView, iterations: int | None) -> K.Hint:
    return K.hint(view, iterations=iterations)


def _analyse(seed: int, actions: tuple[str, ...], iterations: int | None, progress: Any) -> list[K.Move]:
    report: Callable[[int, int], None] | None = None
    if progress is not None:
        def report(done: int, total: int) -> None:
            progress.put((done, total))
    return K.analyse(seed, actions, iterations=iterations, progress=report)


class _Job:
    """An analysis running: its task, and the screens following its progress."""

    def __init__(self) -> None:
        self.task: asyncio.Future[Analysis]
        self.listeners: list[Callable[[int, int], None]] = []

    def tell(self, done: int, total: int) -> None:
        for listener in list(self.listeners):
            listener(done, total)


@dataclass(frozen=True)
class Analysis:
    """A finished match's analysis: each decision (:class:`engine.voltage.coach.Move`), in order."""

    match_id: int
    moves: tuple[K.Move, ...]

    @property
    def mistakes(self) -> tuple[K.Move, ...]:
        return tuple(m for m in self.moves if m.mistake)

    def to_json(self) -> str:
        return json.dumps([[m.step, m.seat, round(m.chance, 4), round(m.best, 4), m.better] for m in self.moves])

    @classmethod
    def from_json(cls, match_id: int, text: str) -> Analysis:
        return cls(match_id, tuple(K.Move(int(s), int(seat), float(c), float(b), better)
                                   for s, seat, c, b, better in json.loads(text)))


class Coach:
    """Hints and analyses on one low-priority worker (see the module docstring)."""

    def __init__(self, store: Any = None, executor: Executor | None = None, *,
                 hint_iterations: int | None = None, analysis_iterations: int | None = ANALYSIS_ITERATIONS,
                 hint_executor: Executor | None = None) -> None:
        """``executor``: the analyses' (and, unless ``hint_executor`` is given, the hints'); none:
        a worker process of its own for each, made when first needed."""
        self.store = store
        self._executor = executor
        self._hint_executor = hint_executor if hint_executor is not None else executor
        self._own = executor is None
        self._own_hints = hint_executor is None and executor is None
        self.hint_iterations = hint_iterations
        self.analysis_iterations = analysis_iterations
        self._busy: set[str] = set()  # the players with an analysis running
        self._parent: Coach | None = None  # the coach whose worker this one shares (with_store)
        self._jobs: dict[int, _Job] = {}  # the analyses running, by match

    def with_store(self, store: Any) -> Coach:
        """This coach (its worker and its players' analyses) keeping analyses in ``store``."""
        if store is None or store is self.store:
            return self
        twin = Coach(store, hint_iterations=self.hint_iterations, analysis_iterations=self.analysis_iterations)
        twin._busy, twin._jobs = self._busy, self._jobs  # one analysis per player (and per match), whichever store
        twin._parent = self
        twin._own = twin._own_hints = False
        return twin

    @property
    def executor(self) -> Executor:
        if self._parent is not None:
            return self._parent.executor
        if self._executor is None:
            self._executor = _new_worker()
        return self._executor

    @property
    def hint_executor(self) -> Executor:
        if self._parent is not None:
            return self._parent.hint_executor
        if self._hint_executor is None:
            self._hint_executor = _new_worker()
        return self._hint_executor

    async def hint(self, view: V.VoltageView) -> K.Hint:
        """The Expert's move in ``view``, thought on the hints' worker."""
        return await asyncio.get_running_loop().run_in_executor(self.hint_executor, _hint, view, self.hint_iterations)

    def stored(self, match_id: int) -> Analysis | None:
        """The analysis of ``match_id`` made before, if the store has it."""
        if self.store is None:
            return None
        try:
            found = self.store.analysis(match_id, K.ANALYSIS_VERSION)
        except Exception:
            log.exception("could not read the analysis of match %s", match_id)
            return None
        return Analysis.from_json(match_id, found) if found is not None else None

    async def analysis(self, record: Any, who: str | None,
                       progress: Callable[[int, int], None] | None = None) -> Analysis:
        """The analysis of a finished Voltage ``record`` for the player ``who`` (None: anyone),
        stored once made; ``progress(done, total)`` on the loop as it goes.  Raises
        :class:`CoachError` (``analysis_busy``: this player's other analysis still runs)."""
        if record.game != GAME or not record.finished:
            raise CoachError("not_analysable", match=record.id)
        found = self.stored(record.id)
        if found is not None:
            return found
        job = self._jobs.get(record.id)
        if job is None:  # (one already running for this match: joined, whoever asked)
            key = who or f"match:{record.id}"
            if key in self._busy:
                raise CoachError("analysis_busy")
            self._busy.add(key)
            job = self._jobs[record.id] = _Job()
            job.task = asyncio.ensure_future(self._make(record, job, key))
        if progress is not None:
            job.listeners.append(progress)
        try:
            # Shielded: a screen closed meanwhile stops listening, and the analysis still
            # ends and is kept (the player's next look finds it).
            return await asyncio.shield(job.task)
        finally:
            if progress in job.listeners:
                job.listeners.remove(progress)

    async def _make(self, record: Any, job: _Job, key: str) -> Analysis:
        try:
            moves = await self._run(record, job.tell)
            result = Analysis(record.id, tuple(moves))
            if self.store is not None and not getattr(self.store, "readonly", False):
                try:
                    await asyncio.wrap_future(self.store.save_analysis(record.id, K.ANALYSIS_VERSION,
                                                                       result.to_json()))
                except Exception:
                    log.exception("could not store the analysis of match %s", record.id)
            return result
        finally:
            self._busy.discard(key)
            self._jobs.pop(record.id, None)

    async def _run(self, record: Any, progress: Callable[[int, int], None] | None) -> list[K.Move]:
        """The analysis on the worker; its progress comes back through a queue the worker
        can reach (a manager's, for a process), drained on the loop."""
        loop = asyncio.get_running_loop()
        queue: Any = None
        manager: Any = None
        if progress is not None:
            from concurrent.futures import ProcessPoolExecutor

            if isinstance(self.executor, ProcessPoolExecutor):
                import multiprocessing

                manager = multiprocessing.get_context("forkserver").Manager()
                queue = manager.Queue()
            else:
                import queue as Q

                queue = Q.SimpleQueue()
        job = loop.run_in_executor(self.executor, _analyse, record.seed, tuple(record.actions or ()),
                                   self.analysis_iterations, queue)
        try:
            while queue is not None and not job.done():
                await asyncio.wait([job], timeout=0.25)
                _drain(queue, progress)
            moves = await job
            if queue is not None:
                _drain(queue, progress)
            return moves
        finally:
            if manager is not None:
                manager.shutdown()

    def close(self) -> None:
        if self._own and self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
        if self._own_hints and self._hint_executor is not None:
            self._hint_executor.shutdown(wait=False, cancel_futures=True)
            self._hint_executor = None


def _drain(queue: Any, progress: Callable[[int, int], None] | None) -> None:
    last = None
    while True:
        try:
            last = queue.get_nowait()
        except Exception:
            break
    if last is not None and progress is not None:
        progress(*last)


class ReplayAnalysis:
    """A replay's analysis through a coach (a :class:`tui.games.voltage.chart.AnalysisSource`):
    the one stored with the match, or one made now for the player ``who``."""

    def __init__(self, coach: Coach, record: Any, who: str | None, known: Analysis | None = None) -> None:
        self.coach = coach
        self.record = record
        self.who = who
        self.known = known

    def stored(self) -> tuple[K.Move, ...] | None:
        found = self.known or self.coach.stored(self.record.id)
        return found.moves if found is not None else None

    async def run(self, progress: Callable[[int, int], None]) -> tuple[K.Move, ...]:
        return (await self.coach.analysis(self.record, self.who, progress)).moves


def attach_analysis(replay: Any, store: Any, who: str | None, *, read_now: bool = False) -> Any:
    """Give a Voltage ``replay`` its analysis (``replay.analysis``) through the process's coach,
    kept in ``store``; a replay of another game is returned as it is.  ``read_now``: the
    analysis kept there is read at once, and one made later is not kept (a store about
    to close: ``voltage replay``'s read-only one)."""
    if replay.record.game == GAME:
        if read_now:
            replay.analysis = ReplayAnalysis(shared(), replay.record, who, Coach(store).stored(replay.record.id))
        else:
            replay.analysis = ReplayAnalysis(shared().with_store(store), replay.record, who)
    return replay


_SHARED: Coach | None = None


def shared() -> Coach:
    """The process's coach for hints (made on first use: a process that never hints never
    starts its worker; it stops with the process)."""
    global _SHARED
    if _SHARED is None:
        import atexit

        _SHARED = Coach()
        atexit.register(_SHARED.close)
    return _SHARED


def use(coach: Coach | None) -> None:
    """Make ``coach`` the process's coach (tests: one on a thread; None: make one on next use)."""
    global _SHARED
    _SHARED = coach
