"""The garbage collector's policy for ``voltage serve``: one long-lived process
running many Textual apps, where every full collection freezes every session.

Why: with CPython's default policy a full (generation 2) collection traverses
every tracked object of the process: the imported modules, the classes, and
each session's app, its screens and widgets.  With 50 sessions those pauses
were measured at 65 ms to over a second, 31 of them a minute; every one stops
every session's keypresses and frames.

What this module does (wired with three calls, see :func:`install`,
:func:`session_started` and :func:`session_ended`):

- **The policy runs the old generation, not CPython.**  The thresholds
  (``DEFAULT_THRESHOLDS = (300, 3, 1_000_000)``) keep CPython's young
  collections (generation 0 every 300 net allocations, generation 1 every
  third of those) and take away its full collections: a full collection would
  traverse everything, and it is exactly the pause to remove.  Generation 0 is
  collected more often than CPython's 700: the count is *net* allocations, and
  with frames freed by reference counts (below) old objects die as fast as new
  ones are made, so the young list grows far past the count; measured with 200
  sessions, 700 gave young pauses up to 34 ms of CPU (p99 14 ms), 300 up to
  23 ms (p99 7 ms), for the same total.
- **Freeze what survives.**  ``gc.freeze()`` moves every tracked object into
  the permanent generation, which no collection traverses (an object frozen
  while alive that later dies is still freed by its reference count).  Done
  after start-up (the imports), and then on the policy's tick (every
  ``tick_interval`` s, on the event loop) whenever a young collection has moved
  survivors to the old generation (at most once every ``promote_interval`` s),
  and after a new session's app is up (its first frame: ``_running`` for
  ``settle`` s; coalesced, at most once every ``freeze_interval`` s).  So the
  traversed generations only ever hold what the last second allocated.  (With
  thresholds that let CPython run full collections, ``VOLTAGE_GC_THRESHOLDS``,
  a full collection slower than ``pause_budget_ms`` asks for a freeze after a
  full collection, at most every ``slow_freeze_interval`` s.)
- **Collect before freezing.**  ``gc.freeze()`` freezes garbage too: a cycle
  already unreachable would become immortal.  The start-up freeze runs a full
  collection first; a routine freeze collects the young generations
  (``freeze_collects = 1``), where nearly all garbage is found; the old
  generation holds at most the survivors of the last second, so the garbage it
  can hide is what the majors below reclaim.  (A full collection before each
  routine freeze was measured: 50-130 ms with 50 sessions, because the old
  generation holds a second's worth of rendered lines still alive; the young
  collection: under 10 ms.)
- **Ended apps free themselves; no majors.**  A *cycle* that dies frozen (a
  Textual app and its DOM with parent links, a screen replaced by another) is
  never freed by a collection that skips the frozen generation, and the only
  collection that does not skip it (``gc.unfreeze()``, a full collection,
  ``gc.freeze()``: a *major*) walked 7-8 million objects in 10 s with 200
  sessions, a 10-second freeze of every session.  So the cycles are broken by
  hand instead, and reference counting frees the objects at once, frozen or not:

  * :func:`session_started` (before the app runs) swaps the app's ``_registry``
    for a :class:`_RecordingSet` that also remembers, weakly, every node ever
    registered; ``DOMNode.__init__`` is wrapped to add the nodes made while the
    app is the active one (widgets never mounted; the stylesheet's virtual
    nodes are reached through their widget's ``_component_styles`` instead:
    recording them cost measurable CPU).
  * :func:`session_ended` (``server/session/driver.py``'s ``run_app`` calls it once
    ``run_async`` has returned, every task of the app done) runs
    :func:`dismantle`: every recorded node's ``__dict__`` is emptied (parent and
    children links, styles, timers, queues, signals), then the app's own helpers
    (its animator and timers, stylesheet, driver, the driver's parser, whose
    generator frame refers to the parser, and key sequencer) and the app.
    Found with ``gc.DEBUG_SAVEALL`` after a session over SSH: 7,845 cyclic
    objects per session before, 163 after (asyncssh's own connection objects,
    about 40 KB); verified by ``tests/e2e/test_ssh_gc_free.py`` with the
    collector off and everything frozen.  (An app may outlive its end by about
    a second: a lobby notice scheduled from the app's context holds that
    context until it runs.)
  * Textual's ``LRUCache`` keeps its entries in a ring of ``[prev, next, key,
    value]`` lists, a cycle its ``clear()`` left behind (and Textual clears a
    widget's query cache on every DOM change): ``clear`` is wrapped to unlink the
    ring first, and :func:`dismantle` unlinks the rings of the caches it drops.
  * The policy's tick sweeps ``sweep_per_tick`` live apps in turn
    (:func:`dismantle_removed`): nodes removed from the DOM, closed and with
    their task done are cleared on the sweep after the one that first saw them
    (by then no compositor map or pending refresh reaches them).  Clearing a
    node still running was measured to fail its task with AttributeError.
  * ``tui/keys.py``'s key sequencer followed each key with a closure that called
    itself (a cycle per key, holding the app): now a method.

  What remains is a safety net that never runs in a real server: a major only
  while at most ``major_max_frozen`` objects are frozen (default 0: never; the
  tests set it), when the frozen apps that have ended number at least
  ``major_fraction`` of the live ones (and ``major_min_ended``), or at most every
  ``major_every`` s when the frozen generation grew by ``major_growth``.  An app
  still alive ``held_after`` s after its end is a leak (a reference holds it, or
  a cycle outside its DOM): counted as ``held`` in the summary, the first three
  logged with their referrers' types, and forgotten.  (``gc.get_freeze_count()``
  walks the whole frozen list: asked on every tick with a million objects frozen
  it cost 28 % of the server's CPU, so it is asked only when majors may run; the
  summary logged each minute leaves it out, as it stopped every session for about
  200 ms with half a million objects frozen; the one at shutdown has it.)
- **No cycles per rendered line.**  Most of the server's cyclic garbage was not
  the game's: Textual's ``Strip`` caches its own results, and two of its methods
  cache *itself* (``divide`` stores ``[self]`` when the cut is the whole strip,
  which the compositor does for nearly every line of every frame;
  ``crop_extend`` stores ``self`` when nothing is cropped, as the log widgets
  do).  Each such strip is a reference cycle (strip, its cache, the cache's
  dict), so every frame left its lines, their segments and seven caches each
  for the cyclic collector: measured at 60,000 objects a second with 10
  sessions, 95 % of everything a full collection found.
  With the default thresholds that garbage alone made 2,800 young and 13 full
  collections in 30 s of play with 50 sessions.
  :func:`server.strips.patch_textual_strips` makes those two methods return the
  same values without caching ``self`` (a cache hit on ``self`` saved nothing), so
  a frame's strips are freed by their reference counts as soon as the frame is
  written, and makes a strip's seven caches only when it stores a result (see
  that module).
- **Measure.**  A ``gc.callbacks`` hook times every collection into a bounded
  log-scale histogram (about 9 % per bucket; the maximum is exact).  A summary
  line (``gc pauses since start: ...``) is logged every ``report_every`` s and
  at shutdown; the load benchmark parses it from the server's stderr.

Environment, for measuring (a bad value is one warning line and the default):
``VOLTAGE_GC=off`` leaves the collector alone (pauses are still measured);
``VOLTAGE_GC_THRESHOLDS=700,10,10`` overrides the thresholds; ``VOLTAGE_GC_LOG=debug``
logs every freeze and major with its pause; ``VOLTAGE_GC_STRIPS=cyclic`` leaves
Textual's strips unpatched; ``VOLTAGE_GC_DISMANTLE=off`` leaves ended apps to the
collector.

Everything runs on the server's event loop (a timer every ``tick_interval`` s); the
callback may also run on any thread (a collection can happen anywhere) and
only touches the histogram.
"""

from __future__ import annotations

import asyncio
import atexit
import gc
import logging
import math
import os
import time
import types
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

# (the strip patches are in server/strips.py; named here too, as the policy applies them)
from server.strips import patch_textual_strips as patch_textual_strips
from server.strips import unpatch_textual_strips as unpatch_textual_strips

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
    return bool(getattr(app, "_running", False))


def _app_ended(app: Any) -> bool:
    # Textual's MessagePump sets _closed once the app's messages are closed (its end).
    return bool(getattr(app, "_closed", False))


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
        self._tracked.pop(key, None)

    # -- the decisions ---------------------------------------------------------

    def tick(self) -> str | None:
        """One look at the sessions; freezes or runs a major when due.  Returns what it
        did ("freeze", "major") or None.  Logs the summary every ``report_every`` s."""
        now = self.clock()
        self._sweep()
        did = self._decide(now) if self.manage else None
        if now - self._last_report >= self.report_every:
            self._last_report = now
            log.info("%s; last %.0f s: %s", self.summary(count_frozen=False), self.report_every, self.window.text())
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
                dismantle_removed(app)
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
            f"{self.freezes} freezes, {self.majors} majors, {frozen}"
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
    if os.environ.get("VOLTAGE_GC_STRIPS", "").strip().lower() != "cyclic":
        patch_textual_strips()
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
        track_nodes(app)
    if _policy is not None:
        _policy.session_started(app)


def session_ended(app: Any) -> None:
    """A session's app has returned from ``run_async``: break its cycles (see
    :func:`dismantle`), so reference counting frees it, frozen or not."""
    if _dismantling():
        try:
            dismantle(app)
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


# ---------------------------------------------------------------------------
# Ended apps free themselves


class _RecordingSet(weakref.WeakSet):
    """An app's ``_registry`` that also remembers, weakly, every node ever
    registered: the nodes removed since (a replaced screen) are found there."""

    def __init__(self, data: Any = ()) -> None:
        super().__init__(data)
        self.ever: weakref.WeakSet = weakref.WeakSet(data)
        self.retired: weakref.WeakSet = weakref.WeakSet()

    def add(self, item: Any) -> None:
        super().add(item)
        self.ever.add(item)


_NODE_INIT: list[Any] = []


_LRU: Any = None


def _patch_node_init() -> None:
    """Every DOM node made while an app runs (in its context) is recorded in that
    app's set: widgets never mounted and the stylesheet's virtual nodes for
    component classes are cyclic too (node <-> styles), and no registry has them."""
    if _NODE_INIT:
        return
    from textual._context import active_app
    from textual.cache import LRUCache
    from textual.dom import DOMNode

    global _LRU
    _LRU = LRUCache
    if not hasattr(LRUCache.clear, "__wrapped__"):
        original_clear = LRUCache.clear

        def clear(self: Any) -> None:
            # Unlink the ring first: Textual clears a widget's query and line caches
            # on every DOM change, and each cleared ring was a cycle of garbage.
            for link in self._cache.values():
                link.clear()
            original_clear(self)

        clear.__wrapped__ = original_clear  # type: ignore[attr-defined]
        LRUCache.clear = clear  # type: ignore[method-assign]

    original = DOMNode.__init__
    _NODE_INIT.append(original)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        if type(self) is DOMNode:
            return  # a virtual node: its widget's _component_styles reaches it (_clear_node)
        app = active_app.get(None)
        if app is not None:
            registry = app.__dict__.get("_registry")
            if type(registry) is _RecordingSet:
                registry.ever.add(self)

    __init__.__wrapped__ = original  # type: ignore[attr-defined]
    DOMNode.__init__ = __init__  # type: ignore[method-assign]
    _patch_component_classes(DOMNode)


def _patch_component_classes(node_class: Any) -> None:
    """A widget with component classes gets new virtual nodes at every style update
    (``Stylesheet._process_component_classes``: one ``DOMNode`` per class, cyclic with
    its styles), and the old ones are dropped as cyclic garbage.  The collector policy
    freezes what survives young collections, so those that reached the old generation
    stayed frozen for good: counted in a server under load, 31 virtual nodes and 1,300
    objects per session.  Now the replaced virtual nodes are emptied, so their
    reference counts free them.  Left alone, with a warning, on a Textual whose method
    is not the one this was written for."""
    import inspect

    from textual.css.stylesheet import Stylesheet

    original = Stylesheet._process_component_classes
    if hasattr(original, "__wrapped__"):
        return
    try:
        source = inspect.getsource(original)
    except (OSError, TypeError):
        source = ""
    if "virtual_node = DOMNode(classes=component)" not in source or "_component_styles.clear()" not in source:
        log.warning("gc: Textual's component classes are not made as expected: their virtual nodes are left alone")
        return

    def _process_component_classes(self: Any, node: Any) -> None:
        before = list(node._component_styles.values())
        original(self, node)
        if not before:
            return
        kept = {id(styles) for styles in node._component_styles.values()}
        for styles in before:
            virtual = getattr(styles, "node", None)
            if id(styles) not in kept and type(virtual) is node_class:
                _clear(virtual)

    _process_component_classes.__wrapped__ = original  # type: ignore[attr-defined]
    Stylesheet._process_component_classes = _process_component_classes  # type: ignore[method-assign]


def track_nodes(app: Any) -> bool:
    """Record every node ``app`` registers or makes from now on (call before it runs)."""
    _patch_node_init()
    d: dict[str, Any] = getattr(app, "__dict__", {})
    registry = d.get("_registry")
    if isinstance(registry, _RecordingSet):
        return True
    if not isinstance(registry, weakref.WeakSet):
        return False
    d["_registry"] = _RecordingSet(registry)
    return True


def _clear_lru(cache: Any) -> None:
    # Textual's LRUCache keeps its entries in a ring of [prev, next, key, value] lists:
    # a cycle of its own, which its clear() leaves behind (the patched one does not).
    for link in list(cache._cache.values()):
        link.clear()
    cache.clear()


def _clear(obj: Any, helpers: tuple[str, ...] = (), depth: int = 0) -> None:
    """Empty ``obj``'s ``__dict__``; first its LRU caches' rings, its generators (a
    parser's frame refers to the parser), and, ``depth`` levels down, the values
    whose classes come from a ``helpers`` module (the app's own driver and parser)."""
    d = getattr(obj, "__dict__", None)
    if d is None:
        return
    for value in list(d.values()):
        kind = type(value)
        if kind is _LRU:
            _clear_lru(value)
        elif isinstance(value, types.GeneratorType):
            value.close()
        elif depth > 0 and kind.__module__.startswith(helpers) and value is not obj:
            _clear(value, helpers, depth - 1)
    d.clear()


def _clear_node(node: Any) -> None:
    d = getattr(node, "__dict__", None)
    if d is None:
        return
    for styles in list(d.get("_component_styles", {}).values()):  # the virtual nodes (see above)
        virtual = getattr(styles, "node", None)
        if virtual is not None:
            _clear(virtual)
    _clear(node)


def dismantle_removed(app: Any) -> int:
    """Clear the nodes ``app`` has removed and closed (a replaced screen, a results
    panel): they are no longer its, and their cycles would outlive them."""
    registry = getattr(app, "__dict__", {}).get("_registry")
    if not isinstance(registry, _RecordingSet):
        return 0
    n = 0
    for node in list(registry.ever):
        task = getattr(node, "_task", None)
        if node not in registry and getattr(node, "_closed", False) and (task is None or task.done()):
            # Cleared on the sweep after the one that first saw it closed: by then no
            # compositor map or pending refresh of the app can still reach it.
            if node in registry.retired:
                registry.ever.discard(node)
                _clear_node(node)
                n += 1
            else:
                registry.retired.add(node)
    return n


# The modules whose objects an app owns alone (its animator and timers, its
# stylesheet, its driver, the driver's parser and key sequencer): cleared with it.
_OWN_HELPERS = ("textual._animator", "textual.css.stylesheet", "textual.timer", "server.session.driver",
                "textual._xterm_parser", "tui.keys")


def dismantle(app: Any) -> int:
    """Break the reference cycles of an ended app so reference counting frees it (and
    its screens, widgets, styles, caches) at once, frozen or not.  Returns the count
    of nodes cleared."""
    d = getattr(app, "__dict__", None)
    if d is None:
        return 0
    registry = d.get("_registry")
    nodes = list(registry.ever) if isinstance(registry, _RecordingSet) else list(registry or ())
    for node in nodes:
        _clear_node(node)
    # The app's own helpers with cycles of their own (the animator and its timer, the
    # stylesheet and its parse cache), then the app.
    _clear(app, _OWN_HELPERS, 2)
    return len(nodes) + 1
