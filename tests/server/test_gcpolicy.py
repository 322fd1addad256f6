"""The collector policy of ``voltage serve`` (server/gcpolicy.py): what it freezes,
that frozen garbage is still reclaimed, and how it reports its pauses."""

from __future__ import annotations

import gc
import logging
import weakref

import pytest

from server import gcpolicy
from server.gcpolicy import PauseStats, Policy
from tests.support.compat import needs
from tests.support.wait import until
from tui import textual_compat as compat


class FakeApp:
    """A session's app as the policy sees it: running, then closed; a cycle (like a
    Textual app's DOM) so only the cyclic collector can free it."""

    def __init__(self) -> None:
        self._running = False
        self._closed = False
        self.me = self  # the cycle
        self.payload = [object() for _ in range(50)]

    @property
    def is_running(self) -> bool:
        return self._running


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def collector():
    """Leave the process's collector as it was found, whatever a test does."""
    thresholds = gc.get_threshold()
    yield
    gcpolicy.uninstall()
    compat.unpatch_textual_strips()
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.fixture
def policy(collector):
    made: list[Policy] = []

    def make(**kw) -> Policy:
        kw.setdefault("clock", Clock())
        p = Policy(**kw)
        p.start()
        made.append(p)
        return p

    yield make
    for p in made:
        p.stop()


def test_pause_stats_keep_an_exact_max_and_a_close_p99_in_bounded_memory():
    s = PauseStats()
    for i in range(100_000):
        s.add(i % 3, 1.0)  # 1 ms, mostly
    for _ in range(2_000):
        s.add(2, 40.0)
    s.add(2, 123.4)
    assert s.count == 102_001 and len(s.counts) == PauseStats.BUCKETS
    assert s.max_ms == 123.4
    assert 40.0 <= s.quantile(0.99) <= 40.0 * 1.1  # the 1 % tail is the 40 ms ones
    assert 1.0 <= s.quantile(0.5) <= 1.1
    assert s.by_gen[2] > s.by_gen[0]
    text = s.text()
    assert "max 123.4 ms" in text and "p99 4" in text and "102001 collections" in text


@needs("dismantle")
def test_install_freezes_what_start_up_left_sets_thresholds_and_uninstall_undoes_it(collector):
    p = gcpolicy.install()
    assert gcpolicy.install() is p  # once per process
    assert gc.get_freeze_count() > 1000  # the imported modules, classes, ...
    assert gc.get_threshold() == gcpolicy.DEFAULT_THRESHOLDS
    gcpolicy.uninstall()
    assert gc.get_freeze_count() == 0
    assert gcpolicy.current() is None


def test_garbage_is_never_frozen(policy):
    # An unreachable cycle from before the freeze: gc.freeze() alone would make it immortal.
    a = FakeApp()
    ref = weakref.ref(a)
    del a
    assert ref() is not None  # only the cyclic collector frees it
    policy()
    assert ref() is None


def test_every_collection_is_timed_and_reported(policy, caplog):
    clock = Clock()
    p = policy(clock=clock, report_every=60.0)
    before = p.stats.count
    for _ in range(3):
        gc.collect()
    assert p.stats.count >= before + 3 and p.stats.by_gen[2] >= 3 and p.stats.max_ms > 0
    with caplog.at_level(logging.DEBUG, logger="server.gcpolicy"):
        clock.now += 59
        p.tick()
        assert not [r for r in caplog.records if "gc pauses since start" in r.getMessage()]
        clock.now += 2
        p.tick()
    lines = [r.getMessage() for r in caplog.records if "gc pauses since start" in r.getMessage()]
    assert len(lines) == 1
    assert "max " in lines[0] and "p99 " in lines[0] and "freezes" in lines[0]


def test_the_minutely_line_is_info_only_when_a_pause_passed_its_budget(policy, caplog):
    """A quiet server's log is not a collector line every minute: DEBUG, unless a pause of
    that minute took longer than the budget."""
    for budget, level in ((1e9, logging.DEBUG), (0.0, logging.INFO)):
        clock = Clock()
        p = policy(clock=clock, report_every=60.0, pause_budget_ms=budget)
        gc.collect()
        caplog.clear()
        with caplog.at_level(logging.DEBUG, logger="server.gcpolicy"):
            clock.now += 61
            p.tick()
        lines = [r for r in caplog.records if "gc pauses since start" in r.getMessage()]
        assert [r.levelno for r in lines] == [level], (budget, lines)
        p.stop()


def test_the_minutely_summary_does_not_walk_the_frozen_objects(policy, monkeypatch):
    # gc.get_freeze_count() walks every frozen object: 200 ms with half a million, every
    # session stopped meanwhile.  The line logged each minute leaves the count out.
    clock = Clock()
    p = policy(clock=clock, report_every=60.0)
    walks: list[int] = []
    real = gc.get_freeze_count
    monkeypatch.setattr(gc, "get_freeze_count", lambda: walks.append(1) or real())
    for _ in range(3):
        clock.now += 61
        p.tick()
    assert not walks
    assert "objects frozen" in p.summary()  # (the one at shutdown has it)


def _start_sessions(p: Policy, clock: Clock, n: int) -> list[FakeApp]:
    apps = [FakeApp() for _ in range(n)]
    for app in apps:
        p.session_started(app)
    clock.now += 1
    for app in apps:
        app._running = True  # its first frame is out
    p.tick()  # seen running
    clock.now += p.freeze_interval
    assert p.tick() == "freeze"
    return apps


def test_a_new_sessions_objects_are_frozen_once_it_is_up(policy):
    clock = Clock()
    p = policy(clock=clock)
    apps = [FakeApp() for _ in range(3)]
    for app in apps:
        p.session_started(app)
    clock.now += 60
    assert p.tick() is None  # not running yet: nothing to freeze
    frozen = gc.get_freeze_count()
    for app in apps:
        app._running = True
    p.tick()
    clock.now += p.settle
    assert p.tick() == "freeze"
    assert gc.get_freeze_count() > frozen
    assert p.tick() is None  # coalesced: nothing new


def test_no_major_by_default_an_ended_app_still_alive_is_reported_held(policy, caplog):
    # Ended apps free themselves (dismantled at their end); one that does not (here a
    # FakeApp's own cycle) is a leak to report, never a reason for a full collection.
    clock = Clock()
    p = policy(clock=clock, major_min_ended=1, major_fraction=0.0, major_every=1.0)
    apps = _start_sessions(p, clock, 4)
    ref = weakref.ref(apps[0])
    apps[0]._closed = True
    del apps[0]
    with caplog.at_level(logging.WARNING, logger="server.gcpolicy"):
        for _ in range(10):
            clock.now += 1
            assert p.tick() != "major"
    assert p.majors == 0 and ref() is not None
    assert p.held == 1 and "1 ended sessions held by references" in p.summary()
    assert "an ended FakeApp is still alive" in caplog.text


def test_ended_sessions_frozen_while_alive_are_reclaimed_by_the_safety_net(policy):
    clock = Clock()
    p = policy(clock=clock, major_min_ended=4, major_fraction=0.25, major_max_frozen=10**9)
    apps = _start_sessions(p, clock, 12)
    refs = [weakref.ref(a) for a in apps]
    # Three sessions end: frozen cycles, so nothing frees them yet.
    for app in apps[:3]:
        app._closed = True
    del apps[:3], app
    gc.collect()
    assert all(r() is not None for r in refs[:3])
    clock.now += 1
    assert p.tick() is None  # 3 ended of 9 live: below major_min_ended
    apps[0]._closed = True
    del apps[0]
    clock.now += 1
    assert p.tick() is None  # seen ended; it counts once it has been over for ``settle``
    clock.now += p.settle
    assert p.tick() == "major"
    assert all(r() is None for r in refs[:4])  # reclaimed
    assert all(r() is not None for r in refs[4:])  # the live ones untouched
    assert p.majors == 1 and p.held == 0
    assert gc.get_freeze_count() > 0  # and frozen again


def test_an_ended_session_held_by_a_reference_does_not_cause_majors_forever(policy):
    clock = Clock()
    p = policy(clock=clock, major_min_ended=2, major_fraction=0.0, settle=0.1, major_max_frozen=10**9)
    apps = _start_sessions(p, clock, 4)
    for app in apps[:2]:
        app._closed = True
    held = apps[:2]  # someone keeps them: a leak no collector can fix
    clock.now += 5
    assert p.tick() is None  # seen ended
    clock.now += 5
    assert p.tick() == "major"
    assert p.held == 2
    clock.now += 5
    assert p.tick() is None
    assert "2 ended sessions held by references" in p.summary()
    assert held[0]._closed


def test_frozen_garbage_other_than_sessions_is_reclaimed_eventually(policy):
    clock = Clock()
    p = policy(clock=clock, major_every=600.0, major_growth=0.25, major_max_frozen=10**9)
    start = clock.now
    _start_sessions(p, clock, 1)
    base = gc.get_freeze_count()
    # Lots of long-lived state, frozen while alive (a slow full collection asked for it), then dead.
    state = [FakeApp() for _ in range(max(2000, base // 2))]  # 3 tracked objects each
    ref = weakref.ref(state[0])
    p._slow_full = True
    clock.now += p.slow_freeze_interval
    assert p.tick() == "freeze"
    del state
    assert ref() is not None
    clock.now = start + 599
    assert p.tick() is None  # not before major_every
    clock.now += 2
    assert p.tick() == "major"
    assert ref() is None


@needs("dismantle")
def test_bad_environment_values_are_one_warning_and_the_defaults(collector, monkeypatch, caplog):
    monkeypatch.setenv("VOLTAGE_GC_THRESHOLDS", "lots")
    with caplog.at_level(logging.WARNING, logger="server.gcpolicy"):
        gcpolicy.install()
    assert gc.get_threshold() == gcpolicy.DEFAULT_THRESHOLDS
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "VOLTAGE_GC_THRESHOLDS='lots'" in warnings[0]


def test_off_measures_but_leaves_the_collector_alone(collector, monkeypatch):
    monkeypatch.setenv("VOLTAGE_GC", "off")
    thresholds = gc.get_threshold()
    p = gcpolicy.install()
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds
    gc.collect()
    assert p.stats.count >= 1


@needs("dismantle")
async def test_the_policy_ticks_on_the_running_loop(collector):
    p = gcpolicy.install(tick_interval=0.02, freeze_interval=0.0, settle=0.0)
    app = FakeApp()
    app._running = True
    freezes = p.freezes
    gcpolicy.session_started(app)
    await until(lambda: p.freezes != freezes, "the loop to run the policy")
    assert p.summary().count("1 sessions") == 1


def test_session_started_without_install_is_a_no_op(collector):
    gcpolicy.session_started(FakeApp())
    assert gcpolicy.current() is None and gc.get_freeze_count() == 0


def _render_lines() -> list[object]:
    """What the compositor and the log widgets do with every line of a frame."""
    from rich.segment import Segment
    from rich.style import Style
    from textual.strip import Strip

    out: list[object] = []
    for i in range(50):
        s = Strip([Segment("card ", Style(bold=True)), Segment(f"{i:3d}"), Segment(" ▒▒")])
        n = s.cell_length
        out.append([x.text for x in s.divide([n])])  # the whole line: one cut
        out.append([x.text for x in s.divide([3, n])])
        out.append(s.crop_extend(0, n, None).text)  # nothing cropped
        out.append(s.crop_extend(2, n + 4, None).text)
        out.append(s.crop_extend(0, n, None) is s)
    return out


@needs("strips")
def test_a_frames_strips_are_freed_without_the_cyclic_collector(collector):
    gc.disable()
    try:
        expected = _render_lines()
        gc.collect()
        gcpolicy.install()
        gc.collect()
        assert _render_lines() == expected  # the same strips, cut and cropped the same way
        assert gc.collect() == 0  # and nothing left for the collector
    finally:
        gc.enable()
        compat.unpatch_textual_strips()


@needs("strips")
def test_the_strip_patch_leaves_an_unexpected_textual_alone(collector, monkeypatch, caplog):
    from textual.strip import Strip

    def divide(self, cuts):  # some other Textual's divide
        return [self]

    monkeypatch.setattr(Strip, "divide", divide)
    with caplog.at_level(logging.WARNING, logger="tui.textual_compat.strips"):
        assert compat.patch_textual_strips() is False
    assert Strip.divide is divide
    assert "Strip.divide is not the one expected" in caplog.text


@needs("strips")
def test_a_strip_makes_its_caches_only_when_it_stores_a_result(collector):
    """Seven caches per strip were 29 % of a session's tracked objects: now a strip
    has none until it stores a result, and each strip's results stay its own."""
    from rich.segment import Segment
    from rich.style import Style
    from textual.cache import FIFOCache
    from textual.strip import Strip

    def made(strip: Strip) -> list[str]:
        return [name for name in ("_crop_cache", "_divide_cache", "_style_cache", "_filter_cache")
                if isinstance(getattr(strip, name), FIFOCache)]

    before = [Strip([Segment(f"line {i} of cards")]) for i in range(3)]
    assert all(len(made(s)) == 4 for s in before)  # Textual's own: every cache made up front
    expected = [(s.crop(2, 8).text, [x.text for x in s.divide([4, 9])], s.apply_style(Style(bold=True)).text)
                for s in before]
    assert compat.patch_textual_strips()
    strips = [Strip([Segment(f"line {i} of cards")]) for i in range(3)]
    assert all(made(s) == [] for s in strips)
    got = [(s.crop(2, 8).text, [x.text for x in s.divide([4, 9])], s.apply_style(Style(bold=True)).text)
           for s in strips]
    assert got == expected  # the same results, each strip's own (the stand-in is shared)
    assert all(made(s) == ["_crop_cache", "_divide_cache", "_style_cache"] for s in strips)
    assert strips[1].crop(2, 8) is strips[1].crop(2, 8)  # a stored result is reused
    assert [s.crop(0, 6).text for s in strips] == ["line 0", "line 1", "line 2"]
    compat.unpatch_textual_strips()
    again = Strip([Segment("after")])
    assert len(made(again)) == 4 and again.crop(0, 2).text == "af"
    assert strips[2].crop(1, 4).text == "ine"  # a strip made while patched still works


def test_survivors_of_young_collections_are_frozen_within_a_second_and_young_garbage_is_not(policy):
    clock = Clock()
    p = policy(clock=clock, promote_interval=1.0)
    assert gc.get_threshold()[2] >= 1_000_000  # CPython never starts a full collection itself
    clock.now += 5
    assert p.tick() is None  # nothing promoted since the start-up freeze
    kept = [FakeApp() for _ in range(100)]  # state that lasts
    garbage = FakeApp()
    ref = weakref.ref(garbage)
    del garbage  # a young cycle
    frozen = gc.get_freeze_count()
    gc.collect(1)  # what CPython's thresholds do on their own: survivors go to the old generation
    assert p.tick() == "freeze"
    assert gc.get_freeze_count() >= frozen + 2 * len(kept)
    assert ref() is None
    gc.collect(1)
    junk = FakeApp()
    ref = weakref.ref(junk)
    del junk
    clock.now += 0.5
    assert p.tick() is None  # at most once a second
    clock.now += 0.5
    assert p.tick() == "freeze"
    assert ref() is None  # collected, not frozen
    assert p.tick() is None


def test_a_server_logs_the_summary_at_exit_even_when_it_logs_only_warnings():
    import subprocess
    import sys

    code = (
        "import logging, gc\n"
        "logging.basicConfig(level=logging.WARNING, format='%(levelname)s %(name)s: %(message)s')\n"
        "from server import gcpolicy\n"
        "gcpolicy.install()\n"
        "gc.collect(0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stderr.splitlines() if "gc pauses since start" in line]
    assert len(lines) == 1 and lines[0].endswith("(at shutdown)")
    assert "max " in lines[0] and "p99 " in lines[0]


def test_sessions_that_end_before_their_first_frame_are_reclaimed_too(policy):
    # A connection that leaves at once: never seen running, but alive (and so frozen)
    # when survivors were frozen.
    clock = Clock()
    p = policy(clock=clock, major_min_ended=3, major_fraction=0.25, major_max_frozen=10**9)
    apps = [FakeApp() for _ in range(3)]
    refs = [weakref.ref(a) for a in apps]
    for app in apps:
        p.session_started(app)
    gc.collect(1)
    clock.now += 1
    assert p.tick() == "freeze"
    for app in apps:
        app._closed = True
    del apps, app
    clock.now += 1
    assert p.tick() is None  # seen ended
    clock.now += p.settle
    assert p.tick() == "major"
    assert all(r() is None for r in refs)


@needs("dismantle")
def test_a_cleared_textual_lru_cache_leaves_no_cycle(collector):
    # Textual clears a widget's query cache on every DOM change; its ring of entries
    # was a cycle left for the collector (and frozen, a leak).
    from textual.cache import LRUCache

    compat.track_nodes(object())  # installs the patches (the app itself is not tracked)
    cache: LRUCache = LRUCache(8)
    for i in range(5):
        cache[i] = [i]
    gc.collect()
    gc.disable()
    try:
        class Value:
            pass

        v = Value()
        value = weakref.ref(v)
        cache["v"] = v
        del v
        cache.clear()
        assert value() is None  # freed by reference counts, no collection
        assert len(cache) == 0 and cache.get(1) is None
        cache[1] = "again"
        assert cache.get(1) == "again"
    finally:
        gc.enable()


@needs("dismantle")
async def test_a_widgets_replaced_virtual_nodes_are_freed_without_the_cyclic_collector(collector):
    # Every style update gives a widget with component classes new virtual nodes; the
    # old ones were cyclic garbage, frozen for good once they reached the old generation.
    from textual.app import App
    from textual.dom import DOMNode
    from textual.widget import Widget

    class Marked(Widget):
        COMPONENT_CLASSES = {"marked--one", "marked--two"}
        DEFAULT_CSS = "Marked .marked--one { color: red; } Marked.-on .marked--two { color: blue; }"

    class Demo(App[None]):
        def compose(self):
            yield Marked()

    def virtual_nodes() -> int:
        return sum(1 for o in gc.get_objects() if type(o) is DOMNode)

    app = Demo()
    assert compat.track_nodes(app)
    async with app.run_test() as pilot:
        marked = app.query_one(Marked)
        await pilot.pause()
        gc.collect()
        gc.disable()
        try:
            before = virtual_nodes()
            for _ in range(21):
                marked.toggle_class("-on")  # a style update: new virtual nodes
                app.stylesheet.update(marked)
            after = virtual_nodes()
        finally:
            gc.enable()
        assert after - before <= 2  # (the two in use now)
        blue = marked.get_component_rich_style("marked--two").color  # (-on now: blue)
        assert blue is not None and blue.get_truecolor().blue > 200 and blue.get_truecolor().red < 50
