"""The garbage collector's policy for ``voltage serve``: one long-lived process
running many Textual apps, where every full collection freezes every session
(65 ms to over a second with 50 sessions, under CPython's default policy).

The policy keeps CPython's young collections and takes away its full ones
(:data:`DEFAULT_THRESHOLDS`); it freezes (``gc.freeze()``, after a young
collection) what survives them, on its tick and after a new session is up, so
the traversed generations only ever hold what the last second allocated.  Frozen
cycles are never collected, so an ended app's cycles are broken by hand instead
(:func:`session_started` records its nodes, :func:`session_ended` dismantles it:
:mod:`tui.textual_compat.dismantle`) and reference counting frees it; Textual's
strips are patched not to make cycles per rendered line.  Where that dismantling
is off (another Textual), the policy leaves the collector to CPython.  Every
pause is timed; a summary line is logged each minute (at INFO only when a pause passed its
budget) and at shutdown.  The reasons, the measurements and the environment switches are in
``docs/design/collector.md``.
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import logging
import math
import os
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from server import memory
from tui import textual_compat as compat

log = logging.getLogger(__name__)

DEFAULT_THRESHOLDS = (300, 3, 1_000_000)


# ---------------------------------------------------------------------------
# Pause statistics


class PauseStats:
    """Collection pauses in a bounded log-scale histogram: count, total, exact max,
    and quantiles to within one bucket (a ratio of 2**(1/8), about 9 %)."""

    PER_OCTAVE = 8
    FLOOR_MS = 0.001  # bucket 0 holds everything up to 1 microsecond
    BUCKETS = PER_OCTAVE * 30  # up to about 1e6 s: nothing is ever dropped

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.counts = [0] * self.BUCKETS
        self.count = 0
        self.total_ms = 0.0
        self.max_ms = 0.0
        self.by_gen = [0, 0, 0]

    def add(self, generation: int, ms: float) -> None:
        if ms > self.FLOOR_MS:
            i = min(self.BUCKETS - 1, int(math.log2(ms / self.FLOOR_MS) * self.PER_OCTAVE) + 1)
        else:
            i = 0
        self.counts[i] += 1
        self.count += 1
        self.total_ms += ms
        if ms > self.max_ms:
            self.max_ms = ms
        if 0 <= generation <= 2:
            self.by_gen[generation] += 1

    def quantile(self, q: float) -> float:
        """The ``q`` quantile (0..1) of the pauses, in ms: the upper edge of its bucket
        (never above the maximum); 0.0 when nothing was recorded."""
        if not self.count:
            return 0.0
        rank = max(1, math.ceil(q * self.count))
        seen = 0
        for i, n in enumerate(self.counts):
            seen += n
            if seen >= rank:
                upper = self.FLOOR_MS * 2 ** (i / self.PER_OCTAVE)
                return min(upper, self.max_ms)
        return self.max_ms  # pragma: no cover - rank <= count

    def text(self) -> str:
        g0, g1, g2 = self.by_gen
        return (
            f"{self.count} collections (gen0 {g0}, gen1 {g1}, gen2 {g2}), max {self.max_ms:.1f} ms, "
            f"p99 {self.quantile(0.99):.1f} ms, total {self.total_ms:.0f} ms"
        )


# ---------------------------------------------------------------------------
# The policy


@dataclass
class _Tracked:
    ref: weakref.ref
    noted_at: float
    ready_at: float | None = None
    frozen: bool = False
    ended_at: float | None = None

    @property
    def ended(self) -> bool:
        return self.ended_at is not None


def _app_running(app: Any) -> bool:
    return bool(getattr(app, "is_running", False))


def _app_ended(app: Any) -> bool:
    return compat.is_closed(app)  # its messages closed: its end


@dataclass
class Policy:
    """See the module's notes.  ``clock`` and :meth:`tick` are public so tests can
    drive the policy without waiting."""

    thresholds: tuple[int, int, int] | None = DEFAULT_THRESHOLDS
    manage: bool = True  # False: measure only (VOLTAGE_GC=off)
    tick_interval: float = 1.0
    freeze_interval: float = 5.0
    slow_freeze_interval: float = 30.0
    promote_freeze: int = 1
    promote_interval: float = 1.0
    freeze_collects: int = 1  # the generation collected before a routine freeze (2: everything)
    settle: float = 0.5
    pause_budget_ms: float = 5.0
    major_fraction: float = 0.25
    major_min_ended: int = 8
    major_every: float = 3600.0
    major_growth: float = 0.5
    major_max_frozen: int = 0  # a major only with at most this many objects frozen (0: never)
    held_after: float = 5.0
    # memory given back (server.memory.release) once this many apps (or this share of those
    # tracked) have gone since the last time, and none for release_quiet s (a crowd's leaving done)
    release_min_gone: int = 8
    release_fraction: float = 0.25
    release_quiet: float = 2.0
    # ... and with a full collection first (a major: what died frozen, cycles the dismantling
    # leaves, is freed too) while at most this many sessions are live: it stops them meanwhile
    # (100-300 ms after fifty 400x200 sessions, on a busy machine)
    release_major_max_live: int = 16
    sweep_per_tick: int = 25
    report_every: float = 60.0
    clock: Callable[[], float] = time.monotonic
    is_running: Callable[[Any], bool] = _app_running
    is_ended: Callable[[Any], bool] = _app_ended

    stats: PauseStats = field(default_factory=PauseStats)
    window: PauseStats = field(default_factory=PauseStats)
    freezes: int = 0
    majors: int = 0
    held: int = 0
    releases: int = 0

    def __post_init__(self) -> None:
        self._tracked: dict[int, _Tracked] = {}
        self._t0 = 0.0
        self._in_collect = False
        self._slow_full = False
        self._last_freeze = -math.inf
        self._last_major = 0.0
        self._last_report = 0.0
        self._frozen_after_major = 0
        self._promoted_base = 0
        self._old_thresholds = gc.get_threshold()
        self._handle: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = False
        self._started_at = 0.0
        self._sweep_at = 0
        self._gone = 0  # apps freed since memory was last given back
        self._last_gone = -math.inf

    # -- life ------------------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Measure from now on; set the thresholds; collect and freeze what start-up
        left; tick on ``loop`` (the running loop, or later, at the first session)."""
        if self._started:
            return
        self._started = True
        now = self.clock()
        self._started_at = self._last_report = self._last_major = now
        gc.callbacks.append(self._on_gc)
        if self.manage:
            if self.thresholds is not None:
                gc.set_threshold(*self.thresholds)
            self._freeze(now)
            self._frozen_after_major = gc.get_freeze_count()
        self._attach(loop)

    def stop(self) -> None:
        """Stop measuring and ticking, put the collector back as it was (thresholds,
        nothing frozen), and log the summary once more."""
        if not self._started:
            return
        self._started = False
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        try:
            gc.callbacks.remove(self._on_gc)
        except ValueError:
            pass
        log.info("%s (at shutdown)", self.summary())
        if self.manage and log.isEnabledFor(logging.DEBUG):
            frozen = gc.get_freeze_count()
            gc.unfreeze()
            self._collect(f"check at shutdown (of {frozen} frozen)")
        if self.manage:
            gc.unfreeze()
            gc.set_threshold(*self._old_thresholds)

    def _attach(self, loop: asyncio.AbstractEventLoop | None) -> None:
        if self._loop is not None and not self._loop.is_closed():
            return
        if loop is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return  # no loop yet: the first session_started() attaches
        self._loop = loop
        self._handle = loop.call_later(self.tick_interval, self._on_timer)

    def _on_timer(self) -> None:
        self._handle = None
        if not self._started:
            return
        try:
            self.tick()
        except Exception:  # pragma: no cover - a policy bug must never take the server down
            log.exception("gc policy tick failed")
        if self._started and self._loop is not None and not self._loop.is_closed():
            self._handle = self._loop.call_later(self.tick_interval, self._on_timer)

    # -- sessions --------------------------------------------------------------

    def session_started(self, app: Any) -> None:
        """Note a session's app (call it any time before or after the app starts): its
        objects are frozen once it is up, and reclaimed once it has ended."""
        if not self._started:
            return
        self._attach(None)
        key = id(app)
        if key in self._tracked:
            return
        try:
            ref = weakref.ref(app, partial(self._forget, key))
        except TypeError:
            return  # not weak-referenceable: nothing to track
        self._tracked[key] = _Tracked(ref, self.clock())

    def _forget(self, key: int, _ref: weakref.ref[Any]) -> None:
        """The weakref's callback: the app ``key`` is gone."""
        if self._tracked.pop(key, None) is not None:
            self._gone += 1
            self._last_gone = self.clock()

    # -- the decisions ---------------------------------------------------------

    def tick(self) -> str | None:
        """One look at the sessions; freezes, runs a major or gives memory back when due.
        Returns what it did ("freeze", "major", "release") or None.  Logs the summary every ``report_every`` s."""
        now = self.clock()
        self._sweep()
        did = self._decide(now) if self.manage else None
        if did is None and self._release_due(now):
            did = "release"
        if now - self._last_report >= self.report_every:
            self._last_report = now
            # At INFO only when a pause of the last minute passed its budget: else a quiet server's
            # log would be this line, every minute.
            level = logging.INFO if self.window.max_ms > self.pause_budget_ms else logging.DEBUG
            if log.isEnabledFor(level):
                log.log(level, "%s; last %.0f s: %s", self.summary(count_frozen=False), self.report_every,
                        self.window.text())
            self.window.reset()
        return did

    def _decide(self, now: float) -> str | None:
        fresh = False
        ended_frozen = live_frozen = 0
        for t in list(self._tracked.values()):
            app = t.ref()
            if app is None:
                continue
            if t.ready_at is None and self.is_running(app):
                t.ready_at = now
            if not t.ended and self.is_ended(app):
                t.ended_at = now
            if t.frozen:
                if t.ended_at is not None:
                    # Counted once it has been over a while: its session task lets go first.
                    ended_frozen += now - t.ended_at >= self.settle
                else:
                    live_frozen += 1
            elif not t.ended and t.ready_at is not None and now - t.ready_at >= self.settle:
                fresh = True
        app = None  # this frame must not keep the last app alive through a major
        # (gc.get_freeze_count() walks the whole frozen list: with a million objects frozen
        # it cost 28 % of the server's CPU when asked every tick, so only when majors may run.)
        if self.major_max_frozen > 0 and gc.get_freeze_count() <= self.major_max_frozen:
            if ended_frozen and ended_frozen >= max(self.major_min_ended, self.major_fraction * live_frozen):
                self._major(now)
                return "major"
            if now - self._last_major >= self.major_every and gc.get_freeze_count() > self._frozen_after_major * (
                1 + self.major_growth
            ):
                self._major(now)
                return "major"
        else:
            self._note_held(now)
        since = now - self._last_freeze
        if self._slow_full and since >= self.slow_freeze_interval:
            self._freeze(now, 2)
            return "freeze"
        # gc.get_count()[2] counts the young collections that moved survivors to the old
        # generation (the thresholds leave its collection to this policy).
        promoted = gc.get_count()[2]
        promoted -= self._promoted_base if promoted >= self._promoted_base else 0
        if (promoted >= self.promote_freeze and since >= self.promote_interval) or (
            fresh and since >= self.freeze_interval
        ):
            self._freeze(now, self.freeze_collects)
            return "freeze"
        return None

    def _release_due(self, now: float) -> bool:
        """Give memory back (:func:`server.memory.release`) when a crowd has left: see
        ``release_min_gone``."""
        if self._gone < max(self.release_min_gone, self.release_fraction * len(self._tracked)):
            return False
        if now - self._last_gone < self.release_quiet:
            return False
        self._gone = 0
        self.releases += 1
        live = sum(1 for t in self._tracked.values() if not t.ended)
        major = self.manage and live <= self.release_major_max_live
        ms = memory.release(partial(self._major, now) if major else None)
        log.debug("gc: memory given back after sessions ended (%.1f ms, %s)", ms,
                  "with a major" if major else "no major")
        return True

    def _sweep(self) -> None:
        """Free the nodes live apps have removed (a replaced screen, a results panel):
        ``sweep_per_tick`` apps a tick, in turn, so a tick stays short."""
        live = [t for t in self._tracked.values() if not t.ended]
        if not live or self.sweep_per_tick <= 0 or not _dismantling():
            return
        start = self._sweep_at % len(live)
        for t in (live[start:] + live[:start])[: self.sweep_per_tick]:
            app = t.ref()
            if app is not None:
                compat.dismantle_removed(app)
        self._sweep_at = start + self.sweep_per_tick

    def _note_held(self, now: float) -> None:
        """An app that ended ``held_after`` s ago and is still here was not freed by its
        reference counts: something holds it (a leak) or a cycle outside its DOM does."""
        for key, t in list(self._tracked.items()):
            if t.ended_at is not None and now - t.ended_at >= self.held_after:
                app = t.ref()
                if app is not None:
                    self.held += 1
                    if self.held <= 3:
                        log.warning("gc: an ended %s is still alive %.0f s after its end (held by %s)",
                                    type(app).__name__, now - t.ended_at,
                                    ", ".join(sorted({type(r).__name__ for r in gc.get_referrers(app)})[:6]))
                del self._tracked[key]

    def _collect(self, what: str, generation: int = 2) -> None:
        self._in_collect = True
        t0 = time.perf_counter()
        try:
            found = gc.collect(generation)
        finally:
            self._in_collect = False
        if log.isEnabledFor(logging.DEBUG):
            log.debug("gc %s: %d unreachable found in %.1f ms; %d objects tracked, %d frozen", what, found,
                      (time.perf_counter() - t0) * 1000, len(gc.get_objects()), gc.get_freeze_count())

    def _freeze(self, now: float, generation: int = 2) -> None:
        self._collect(f"freeze (gen{generation})", generation)  # never freeze garbage (see the notes)
        gc.freeze()
        self._promoted_base = gc.get_count()[2]
        self.freezes += 1
        self._last_freeze = now
        self._slow_full = False
        for t in self._tracked.values():
            # Alive now, so frozen now, up or not: a session that ends before its
            # first frame leaves frozen cycles all the same.
            if t.ref() is not None:
                t.frozen = True

    def _major(self, now: float) -> None:
        gc.unfreeze()
        self._collect("major")
        # What ended a while ago and is still here is held by a reference, not by the freeze.
        for key, t in list(self._tracked.items()):
            if t.ended_at is not None and now - t.ended_at >= self.settle and t.ref() is not None:
                self.held += 1
                del self._tracked[key]
            else:
                t.frozen = False
        gc.freeze()
        self._promoted_base = gc.get_count()[2]
        for t in self._tracked.values():
            t.frozen = True
        self.majors += 1
        self._last_major = self._last_freeze = now
        self._slow_full = False
        self._frozen_after_major = gc.get_freeze_count()

    # -- measuring -------------------------------------------------------------

    def _on_gc(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._t0 = time.perf_counter()
            return
        ms = (time.perf_counter() - self._t0) * 1000
        gen = info.get("generation", -1)
        self.stats.add(gen, ms)
        self.window.add(gen, ms)
        if gen == 2 and ms > self.pause_budget_ms and not self._in_collect:
            self._slow_full = True
            log.debug("gc: a full collection took %.1f ms (%d unreachable)", ms, info.get("collected", 0))

    def summary(self, *, count_frozen: bool = True) -> str:
        """The pauses since start, the policy's work and the sessions.  ``count_frozen``:
        with the number of objects frozen, which walks the whole frozen list (200 ms with
        half a million objects, every session stopped meanwhile: not for the periodic line)."""
        up = self.clock() - self._started_at
        sessions = sum(1 for t in self._tracked.values() if t.ref() is not None and not t.ended)
        frozen = f"{gc.get_freeze_count()} objects frozen, " if count_frozen else ""
        return (
            f"gc pauses since start ({up:.0f} s): {self.stats.text()}; "
            f"{self.freezes} freezes, {self.majors} majors, {self.releases} releases of memory, {frozen}"
            f"{sessions} sessions, {self.held} ended sessions held by references"
        )


# ---------------------------------------------------------------------------
# The process's policy: what the server calls

_policy: Policy | None = None


def _env_policy_kwargs() -> dict[str, Any]:
    kw: dict[str, Any] = {}
    mode = os.environ.get("VOLTAGE_GC", "").strip().lower()
    if mode in ("off", "0", "default"):
        kw["manage"] = False
    elif mode not in ("", "on", "1", "policy"):
        log.warning("VOLTAGE_GC=%r: expected 'off' or 'on'; using the policy", mode)
    text = os.environ.get("VOLTAGE_GC_THRESHOLDS", "").strip()
    if text:
        try:
            values = tuple(int(v) for v in text.split(","))
            if len(values) != 3 or values[0] < 1 or min(values) < 0:
                raise ValueError
            kw["thresholds"] = values
        except ValueError:
            log.warning("VOLTAGE_GC_THRESHOLDS=%r: expected three counts like 10000,20,100; using %s",
                        text, ",".join(map(str, DEFAULT_THRESHOLDS)))
    return kw


def install(**kwargs: Any) -> Policy:
    """Start the process's policy (once; later calls return the same one).  Call it
    when start-up is done, from the server's event loop (e.g. right after the
    server starts listening).  The summary is logged every minute and at exit."""
    global _policy
    if _policy is not None and _policy._started:
        return _policy
    if os.environ.get("VOLTAGE_GC_LOG", "").strip().lower() == "debug":
        log.setLevel(logging.DEBUG)
    elif log.getEffectiveLevel() > logging.INFO:
        log.setLevel(logging.INFO)  # the summary lines are the point; the server logs warnings only
    options = {**_env_policy_kwargs(), **kwargs}
    if not compat.enabled("dismantle"):
        options["manage"] = False  # frozen ended apps would never be freed: CPython's collector runs
    if os.environ.get("VOLTAGE_GC_STRIPS", "").strip().lower() != "cyclic":
        compat.patch_textual_strips()
    _policy = Policy(**options)
    _policy.start()
    atexit.register(_at_exit)
    return _policy


def _at_exit() -> None:
    # The last summary only: unfreezing now would hand the interpreter's final
    # collection the whole heap, which costs a long exit and saves nothing.
    if _policy is not None and _policy._started:
        log.info("%s (at shutdown)", _policy.summary())


def _dismantling() -> bool:
    return os.environ.get("VOLTAGE_GC_DISMANTLE", "").strip().lower() not in ("off", "0", "no")


def session_started(app: Any) -> None:
    """Note a session's app (call it before it runs): its nodes are recorded, so that
    :func:`session_ended` can free them; and the policy (with :func:`install`) tracks it."""
    if _dismantling():
        compat.track_nodes(app)
    if _policy is not None:
        _policy.session_started(app)


def session_ended(app: Any) -> None:
    """A session's app has returned from ``run_async``: break its cycles (see
    :func:`tui.textual_compat.dismantle`), so reference counting frees it, frozen or not."""
    if _dismantling():
        try:
            compat.dismantle(app)
        except Exception:  # pragma: no cover - freeing must never break a session's end
            log.exception("gc: dismantling an ended app failed")


def uninstall() -> None:
    """Stop the process's policy and put the collector back (tests)."""
    global _policy
    if _policy is not None:
        _policy.stop()
        atexit.unregister(_at_exit)
        _policy = None


def current() -> Policy | None:
    return _policy
