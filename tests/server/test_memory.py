"""Memory given back once a crowd of sessions has gone (server/memory.py): the server processes
run on the C allocator, and the collector policy empties the caches and returns free pages when
many sessions have ended.  (How much comes back is a benchmark figure:
``benchmarks/attack.py --only readers``.)"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path

from rich.cells import cached_cell_len
from rich.segment import Segment
from rich.style import Style
from textual._compositor import LayoutUpdate
from textual.geometry import Region
from textual.strip import Strip

from server import memory
from server.gcpolicy import Policy
from tests.support.wait import until
from tui import frames
from tui.frames import Shadow

ROOT = Path(__file__).resolve().parents[2]


def test_the_server_commands_run_on_the_c_allocator_and_the_others_as_they_are():
    env = {"HOME": "/home/op"}
    for argv in (["serve", "--port", "2222"], ["host", "--redis", "redis://x"], ["edge", "--redis", "redis://x"]):
        assert memory.c_allocator_env(argv, env) == {"HOME": "/home/op", "PYTHONMALLOC": "malloc"}, argv
    for argv in (["play"], ["arena", "--games", "4"], ["--help"], []):
        assert memory.c_allocator_env(argv, env) is None, argv
    # an operator's own choice stands
    assert memory.c_allocator_env(["serve"], {"PYTHONMALLOC": "pymalloc"}) is None


def test_voltage_serve_runs_on_the_c_allocator_in_its_own_process(tmp_path):
    script = Path(sys.executable).parent / "voltage"
    command = [str(script)] if script.exists() else [sys.executable, "-m", "voltage.cli"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONMALLOC"}
    p = subprocess.Popen(command + ["serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", str(tmp_path)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env, cwd=ROOT)
    try:
        assert p.stdout is not None
        line = p.stdout.readline().decode()
        assert "serving on port" in line, line + p.stderr.read().decode() if p.stderr else line
        # the same process (a supervisor's signals reach it), started again on the C allocator
        environ = Path(f"/proc/{p.pid}/environ").read_bytes().split(b"\0")
        assert b"PYTHONMALLOC=malloc" in environ
    finally:
        p.terminate()
        p.communicate(timeout=60)
    assert p.returncode == 0


def _frame(text: str) -> str | None:
    shadow = Shadow()
    line = [Strip([Segment(text, Style(color="red"))], len(text))]
    return shadow.diff(LayoutUpdate([line, line], Region(0, 0, len(text), 2)), (len(text), 2), None)


def test_release_empties_the_process_caches_and_frames_are_drawn_the_same_after():
    before = _frame("hello world, hello there")
    cached_cell_len("a string measured once")
    assert frames._CELLS and cached_cell_len.cache_info().currsize > 0
    memory.release()
    assert not frames._CELLS and not frames._changes and not frames._SEGMENT_CELLS
    assert cached_cell_len.cache_info().currsize == 0
    assert _frame("hello world, hello there") == before


class _App:
    """A session's app as the policy sees it (see tests/server/test_gcpolicy.py)."""

    is_running = True

    def __init__(self) -> None:
        self._closed = False


def test_the_policy_gives_memory_back_once_a_crowd_has_left(monkeypatch):
    released: list[object] = []
    monkeypatch.setattr(memory, "release", lambda collect=None: released.append(collect) or 0.0)
    now = [1000.0]
    p = Policy(clock=lambda: now[0], manage=False, release_min_gone=4, release_quiet=2.0)
    p.start()
    try:
        apps = [_App() for _ in range(10)]
        for app in apps:
            p.session_started(app)
        # three leave: not a crowd
        refs = [weakref.ref(a) for a in apps[:3]]
        del apps[:3]
        gc.collect()
        assert all(r() is None for r in refs)
        now[0] += 10
        assert p.tick() is None and not released
        # a fourth: a crowd, but the last left just now (more may be leaving)
        del apps[0]
        gc.collect()
        assert p.tick() is None and not released
        now[0] += 2.0
        assert p.tick() == "release" and len(released) == 1 and p.releases == 1
        # given back once, not at every tick after
        now[0] += 10
        assert p.tick() is None and len(released) == 1
    finally:
        p.stop()


def test_a_full_collection_goes_with_it_only_while_few_sessions_are_live(monkeypatch):
    released: list[object] = []
    monkeypatch.setattr(memory, "release", lambda collect=None: released.append(collect) or 0.0)
    for live, collected in ((2, True), (30, False)):
        now = [1000.0]
        p = Policy(clock=lambda now=now: now[0], release_min_gone=4, release_fraction=0.0, release_major_max_live=16)
        p.start()
        try:
            apps = [_App() for _ in range(live + 4)]
            for app in apps:
                p.session_started(app)
            del apps[:4]
            gc.collect()
            now[0] += 5
            until_released = len(released) + 1
            p.tick()
            assert len(released) == until_released
            assert (released[-1] is not None) == collected, live
        finally:
            p.stop()
            gc.unfreeze()


async def test_a_crowd_leaving_gives_memory_back_on_the_policys_own_tick(monkeypatch):
    calls: list[float] = []
    real = memory.release
    monkeypatch.setattr(memory, "release", lambda collect=None: calls.append(real(collect)) or calls[-1])
    frames._CELLS[("x", "y")] = ("x", "y")  # a cell some session drew
    p = Policy(tick_interval=0.05, release_min_gone=3, release_quiet=0.1, manage=False)
    p.start()
    try:
        apps = [_App() for _ in range(5)]
        for app in apps:
            p.session_started(app)
        apps.clear()
        gc.collect()
        await until(lambda: calls)
    finally:
        p.stop()
    assert len(calls) == 1 and p.releases == 1
    assert ("x", "y") not in frames._CELLS
