"""Render benchmark for the match screen: CPU per match update and per keypress,
and bytes of terminal output per update.

    python benchmarks/render.py [--size 80x24] [--actions 60] [--keys 60] [--floor] [--profile FILE]
    python benchmarks/render.py --idle 50 [--idle-seconds 10]

Two apps (one per seat of a two-human match), each on the server's own
:class:`server.session.driver.SSHDriver` over an in-memory channel that counts the bytes
written: the output path is the server's.  The match is driven from outside
(``handle.submit``), as the other player or a bot would, so each action is one
*update* to both screens; the keypress part toggles a hand card's selection
(key ``1``, then ``esc``) on the screen of the player to move.  CPU is process time
from the action until both apps have gone quiet (no output for ``--quiet`` ms),
divided per screen.  ``--floor`` also times the smallest app there is (one widget,
six rows changed per key) on the same path: what Textual itself costs per frame
here, which no screen can go below.  ``--regions`` prints, per keypress and per
update, what the compositor was asked to draw (a whole-screen ``LayoutUpdate`` or
dirty spans in a ``ChopsUpdate``), which widgets were marked dirty, and the bytes each
widget's part of the frame would cost as Textual writes it (the compositor's
``render_update`` wrapped, each span rendered alone and charged to the widget under
its first cell).  ``--idle N`` leaves N matches alone, with a clock and without, and prints the CPU
and the writes per session per second and the share of them in the second's busiest tenth (a
burst: every screen at once).  ``--profile FILE`` writes a pyinstrument HTML profile
(falls back to a cProfile listing when pyinstrument is missing).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual.screen import Screen

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.voltage import rules as V  # noqa: E402
from server.host.common import Seat  # noqa: E402
from server.host.voltage import Match  # noqa: E402
from server.session.driver import TerminalChannel, run_app  # noqa: E402
from tui.app import make_app  # noqa: E402
from tui.games.voltage.match import MatchScreen  # noqa: E402
from tui.ports import Handles, RatingChange  # noqa: E402


class Channel(TerminalChannel):
    """A terminal channel in memory: counts output, takes input from a queue (``abort`` and ``closing`` are
    TerminalChannel's defaults)."""

    def __init__(self, size: tuple[int, int]) -> None:
        self._size = size
        self.bytes = 0
        self.writes = 0
        self.last_write = time.monotonic()
        self.times: list[float] | None = None  # when each write came (--idle)
        self.input: asyncio.Queue[bytes] = asyncio.Queue()

    def write(self, data: bytes) -> None:
        self.bytes += len(data)
        self.writes += 1
        self.last_write = time.monotonic()
        if self.times is not None:
            self.times.append(time.time())

    async def read(self) -> bytes:
        return await self.input.get()

    def pending_output(self) -> int:
        return 0

    def close(self) -> None:
        self.input.put_nowait(b"")

    @property
    def size(self) -> tuple[int, int]:
        return self._size


class Backend:
    """A backend whose home screen is a match screen for the given handles (a :class:`tui.ports.Backend`)."""

    online: bool = False

    def __init__(self, handles: Handles) -> None:
        self.handles = handles

    def home_screen(self) -> Screen[Any]:
        return MatchScreen(self.handles, self)

    async def rematch(self, handles: Handles) -> Handles | None:
        return None

    async def rating_change(self, handles: Handles) -> Sequence[RatingChange] | None:
        return None


def pick(view: V.VoltageView, rng: random.Random) -> V.Action:
    """Mostly plays (the screens change most), some draws; never resigns."""
    legal = [a for a in view.legal if not isinstance(a, V.Resign)]
    plays = [a for a in legal if isinstance(a, V.Play)]
    if plays and rng.random() < 0.75:
        return rng.choice(plays)
    return rng.choice(legal)


async def quiet(channels: list[Channel], ms: float) -> None:
    """Wait until no channel has had output for ``ms`` milliseconds."""
    while True:
        await asyncio.sleep(ms / 1000 / 2)
        last = max(c.last_write for c in channels)
        if time.monotonic() - last >= ms / 1000:
            return


class RegionLog:
    """``--regions``: what each frame asked the compositor for, and what it cost per widget."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self.phase = ""
        self.event: Any = None
        self.last_screen: Any = None
        self.enabled = False

    def install(self) -> None:
        from textual._compositor import ChopsUpdate, Compositor, LayoutUpdate

        log = self
        original = Compositor.render_update

        def owner(screen: Any, x: int, y: int) -> str:
            try:
                widget, _ = screen.get_widget_at(x, y)
            except Exception:
                return "?"
            node = widget
            while node is not None and not node.id and node.parent is not None and node.parent is not screen:
                node = node.parent
            name = type(widget).__name__
            return f"{name}#{node.id}" if node is not None and node.id else name

        def render_update(self: Any, full: bool = False, screen_stack: Any = None, simplify: bool = False) -> Any:
            dirty = list(self._dirty_regions)
            update = original(self, full=full, screen_stack=screen_stack, simplify=simplify)
            if not log.enabled or update is None:
                return update
            screen = self.root
            log.last_screen = screen
            # the app's own console: Rich caches a style's SGR on the style, whatever the colour system
            console = screen.app.console
            per: dict[str, int] = {}
            if isinstance(update, LayoutUpdate):
                kind = "layout"
                for line in update.strips:
                    per["(whole screen)"] = per.get("(whole screen)", 0) + sum(
                        len(s.render(console)) for s in line
                    )
            elif isinstance(update, ChopsUpdate):
                kind = "chops"
                for span in update.spans:
                    one = ChopsUpdate(update.chops, [span], update.chop_ends).render_segments(console)
                    who = owner(screen, span[1], span[0])
                    per[who] = per.get(who, 0) + len(one.encode())
            else:
                kind = type(update).__name__
            log.frames.append(
                {"phase": log.phase, "event": (log.event, id(screen.app)), "kind": kind, "dirty": len(dirty),
                 "cells": sum(r.area for r in dirty), "per": per}
            )
            return update

        Compositor.render_update = render_update  # type: ignore[method-assign]

        # what is written after tui.frames' diff, charged to the widget at each run's start
        import re

        try:
            from tui.frames import Shadow
        except ImportError:  # the code before tui.frames (the benchmark run on an old worktree)
            return

        diff = Shadow.diff
        from rich.cells import cell_len

        # the cursor moves tui.frames writes (absolute, relative, index, CR, BS) and text
        tokens = re.compile(r"\x1b\[([0-9;]*)([A-HJKm])|\x1bD|\r|\x08|[^\x1b\r\x08]+")

        def written(shadow: Any, update: Any, size: Any, color_system: Any) -> Any:
            x, y = shadow_cursor(shadow)
            text = diff(shadow, update, size, color_system)
            if not log.enabled or not text or not log.frames:
                return text
            screen = log.last_screen
            per = log.frames[-1].setdefault("written", {})
            who = owner(screen, x, y)
            for m in tokens.finditer(text):
                token, final = m.group(0), m.group(2)
                moved = True
                if final in ("H", "A", "B", "C", "D"):
                    n = [int(v) if v else 1 for v in (m.group(1) or "").split(";")]
                    if final == "H":
                        y, x = n[0] - 1, (n[1] if len(n) > 1 else 1) - 1
                    elif final == "A":
                        y -= n[0]
                    elif final == "B":
                        y += n[0]
                    elif final == "C":
                        x += n[0]
                    else:
                        x -= n[0]
                elif token == "\x1bD":
                    y += 1
                elif token == "\r":
                    x = 0
                elif token == "\x08":
                    x -= 1
                else:
                    moved = False
                if moved:
                    who = owner(screen, x, y)
                per[who] = per.get(who, 0) + len(token.encode())
                if not moved and final is None:
                    x += cell_len(token)
            return text

        def shadow_cursor(shadow: Any) -> tuple[int, int]:  # where the last frame left it
            col, row = getattr(shadow, "col", -1), getattr(shadow, "row", -1)
            return (max(0, col), max(0, row))

        Shadow.diff = written  # type: ignore[method-assign,assignment]  # the benchmark wraps it on purpose, untyped

    def report(self) -> None:
        for phase in ("key", "update", "move", "tick"):
            frames = [f for f in self.frames if f["phase"] == phase]
            if not frames:
                continue
            events = {f["event"] for f in frames}
            n = max(len(events), 1)
            kinds: dict[str, int] = {}
            per: dict[str, int] = {}
            out: dict[str, int] = {}
            for f in frames:
                kinds[f["kind"]] = kinds.get(f["kind"], 0) + 1
                for k, v in f["per"].items():
                    per[k] = per.get(k, 0) + v
                for k, v in f.get("written", {}).items():
                    out[k] = out.get(k, 0) + v
            total = sum(per.values())
            print(f"{phase}: {len(frames) / n:.2f} frames per screen per {phase}"
                  f" ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}),"
                  f" {total / n:.0f} bytes of regions per {phase}, dirty regions per frame"
                  f" {statistics.mean(f['dirty'] for f in frames):.1f}")
            print(f"    {'widget':<40} {'regions':>8} {'written':>8}  bytes per {phase}")
            for k in sorted(per.keys() | out.keys(), key=lambda k: -per.get(k, 0))[:14]:
                print(f"    {k:<40} {per.get(k, 0) / n:8.0f} {out.get(k, 0) / n:8.0f}")
            if out:
                print(f"    {'(written in all, after the diff)':<40} {'':8} {sum(out.values()) / n:8.0f}")


REGIONS = RegionLog()


async def bench(
    size: tuple[int, int], actions: int, keys: int, quiet_ms: float, seed: int, moves: int = 0, ticks: int = 0
) -> dict[str, float]:
    results: dict[str, float] = {}
    control = None
    if ticks:
        from engine.clock import TimeControl

        control = TimeControl(600.0)
    match = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=seed, bot_delay=0, control=control)
    if control is not None:
        match.start()  # the clock runs from here
    channels = [Channel(size), Channel(size)]
    apps = []
    tasks = []
    for seat in (0, 1):
        app = make_app(Backend([match.handle(seat)]), player_name=match.names[seat])
        apps.append(app)
        # each session runs in its own task (its own context), as on the server
        tasks.append(asyncio.get_running_loop().create_task(run_app(app, channels[seat])))
    await quiet(channels, 300)
    rng = random.Random(seed)

    # -- keypresses: select a hand card, then cancel (esc), on the mover's screen --
    kcpu: list[float] = []
    kout: list[int] = []
    kwrites: list[int] = []
    REGIONS.enabled = True
    for i in range(keys):
        if match.over:
            break
        REGIONS.phase = "key"
        REGIONS.event = ("key", i)
        seat = match.state.to_move
        chan = channels[seat]
        b0, w0 = chan.bytes, chan.writes
        t0 = time.process_time()
        # a lone ESC is a key only after the parser's escape delay: wait longer for it
        chan.input.put_nowait(b"1" if i % 2 == 0 else b"\x1b")
        await quiet(channels, quiet_ms if i % 2 == 0 else max(quiet_ms, 250))
        kcpu.append((time.process_time() - t0) * 1000)
        kout.append(chan.bytes - b0)
        kwrites.append(chan.writes - w0)
    if kcpu:
        results["keys"] = len(kcpu)
        results["key_cpu_ms_mean"] = statistics.mean(kcpu)
        results["key_cpu_ms_median"] = statistics.median(kcpu)
        results["key_bytes_mean"] = statistics.mean(kout)
        results["key_writes_mean"] = statistics.mean(kwrites)

    # -- updates: one action from outside, both screens redraw -----------------
    cpu: list[float] = []
    out: list[int] = []
    writes: list[int] = []
    n = 0
    while n < actions:
        if match.over:
            break
        view = match.view(match.state.to_move)
        action = pick(view, rng)
        REGIONS.phase = "update"
        REGIONS.event = ("update", n)
        b0 = sum(c.bytes for c in channels)
        w0 = sum(c.writes for c in channels)
        t0 = time.process_time()
        await match.handle(view.to_move).submit(action)
        await quiet(channels, quiet_ms)
        cpu.append((time.process_time() - t0) * 1000 / 2)
        out.append((sum(c.bytes for c in channels) - b0) // 2)
        writes.append((sum(c.writes for c in channels) - w0) // 2)
        n += 1
    if cpu:
        results["updates"] = n
        results["update_cpu_ms_mean"] = statistics.mean(cpu)
        results["update_cpu_ms_median"] = statistics.median(cpu)
        results["update_bytes_mean"] = statistics.mean(out)
        results["update_writes_mean"] = statistics.mean(writes)

    # -- moves: the mover acts with its own key (space: draw two; a terminal's key: flip
    # after a transformer), both screens redraw --------
    mcpu: list[float] = []
    mout: list[int] = []
    mframes: list[int] = []
    for n in range(moves):
        if match.over:
            break
        view = match.view(match.state.to_move)
        flips = [a for a in view.legal if isinstance(a, V.Flip)]
        if any(isinstance(a, V.Draw) for a in view.legal):
            key = b" "
        elif flips:
            from tui.games.voltage.choices import TERMINAL_KEYS

            key = TERMINAL_KEYS[flips[0].terminal].encode()
        else:
            break
        REGIONS.phase = "move"
        REGIONS.event = ("move", n)
        b0 = sum(c.bytes for c in channels)
        w0 = sum(c.writes for c in channels)
        version = len(match.actions)
        t0 = time.process_time()
        channels[view.to_move].input.put_nowait(key)
        await quiet(channels, quiet_ms)
        if len(match.actions) == version:
            break  # not accepted (the screen offered no draw)
        mcpu.append((time.process_time() - t0) * 1000)
        mout.append((sum(c.bytes for c in channels) - b0) // 2)
        mframes.append(sum(c.writes for c in channels) - w0)
    if mcpu:
        results["moves"] = len(mcpu)
        results["move_cpu_ms_mean"] = statistics.mean(mcpu)
        results["move_cpu_ms_median"] = statistics.median(mcpu)
        results["move_bytes_mean"] = statistics.mean(mout)
        results["move_frames_mean"] = statistics.mean(mframes) / 2

    # -- clock ticks: nothing happens but the mover's bank counting down ------------
    if ticks and not match.over:
        REGIONS.phase = "tick"
        REGIONS.event = ("tick", 0)
        b0 = sum(c.bytes for c in channels)
        w0 = sum(c.writes for c in channels)
        t0 = time.process_time()
        await asyncio.sleep(ticks + 0.5)
        results["ticks"] = ticks
        results["tick_cpu_ms"] = (time.process_time() - t0) * 1000 / ticks / 2
        results["tick_bytes"] = (sum(c.bytes for c in channels) - b0) / ticks / 2
        results["tick_writes"] = (sum(c.writes for c in channels) - w0) / ticks / 2

    REGIONS.enabled = False
    for app in apps:
        app.exit()
    for c in channels:
        c.close()
    await asyncio.wait(tasks, timeout=5)
    return results


async def idle_bench(size: tuple[int, int], pairs: int, seconds: float, seed: int, clock: bool) -> dict[str, float]:
    """``pairs`` matches (two screens each) left alone for ``seconds``: the CPU and the writes per
    session per second, and how they fall within the second.  With ``clock``, every match's
    clock starts in the same instant (as when a server's matches began their turns together),
    the worst case for bursts; without, nothing changes and nothing should be done."""
    from engine.clock import TimeControl

    matches = []
    for i in range(pairs):
        control = TimeControl(600.0) if clock else None
        matches.append(Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=seed + i, bot_delay=0, control=control))
    if clock:
        for match in matches:  # every clock from the same instant
            match.start()
    channels: list[Channel] = []
    tasks = []
    apps = []
    loop = asyncio.get_running_loop()
    for match in matches:
        for seat in (0, 1):
            chan = Channel(size)
            app = make_app(Backend([match.handle(seat)]), player_name=match.names[seat])
            channels.append(chan)
            apps.append(app)
            tasks.append(loop.create_task(run_app(app, chan)))
    while not all(chan.bytes for chan in channels):  # every screen drawn, then a second without output
        await asyncio.sleep(0.1)
    await quiet(channels, 1000)
    await asyncio.sleep(3)  # the last screens' second frames (a busy machine starts 2N apps slowly)
    for chan in channels:
        chan.times = []
    t0, c0 = time.time(), time.process_time()
    await asyncio.sleep(seconds)
    cpu = time.process_time() - c0
    t1 = time.time()
    times = [t for chan in channels for t in (chan.times or ()) if t0 <= t < t1]
    slots = [0] * 10  # writes per tenth of the second (wall clock)
    for t in times:
        slots[int((t % 1.0) * 10)] += 1
    n = len(channels)
    for app in apps:
        app.exit()
    for chan in channels:
        chan.close()
    await asyncio.wait(tasks, timeout=10)
    return {
        "sessions": n,
        "cpu_ms": cpu * 1000 / n / seconds,
        "writes": len(times) / n / seconds,
        "busiest_tenth": max(slots) / len(times) if times else 0.0,
    }


async def floor_bench(size: tuple[int, int], keys: int, quiet_ms: float) -> float:
    """CPU per keypress of the smallest app there is on the same path: one widget whose
    six rows change on each key.  What no screen can go below, on this machine."""
    from rich.segment import Segment
    from rich.style import Style
    from textual.app import App
    from textual.geometry import Region
    from textual.strip import Strip
    from textual.widget import Widget

    class Rows(Widget):
        DEFAULT_CSS = "Rows { height: 1fr; }"
        n = 0

        def render_line(self, y: int) -> Strip:
            w = self.size.width
            text = f"row {y}, key {self.n if 5 <= y < 11 else 0} " * 8
            return Strip([Segment(text[:w].ljust(w), Style(color="red", bgcolor="black"))], w)

    class Floor(App[None]):
        def compose(self):
            yield Rows()

        def on_key(self) -> None:
            rows = self.query_one(Rows)
            rows.n += 1
            rows.refresh(Region(0, 5, rows.size.width, 6))

    chan = Channel(size)
    app = Floor()
    task = asyncio.get_running_loop().create_task(run_app(app, chan))
    await quiet([chan], 300)
    cpu = []
    for _ in range(keys):
        t0 = time.process_time()
        chan.input.put_nowait(b"1")
        await quiet([chan], quiet_ms)
        cpu.append((time.process_time() - t0) * 1000)
    app.exit()
    chan.close()
    await asyncio.wait([task], timeout=5)
    return statistics.median(cpu)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", default="80x24")
    p.add_argument("--actions", type=int, default=60)
    p.add_argument("--keys", type=int, default=60)
    p.add_argument("--quiet", type=float, default=40.0, help="ms without output that ends a measurement")
    p.add_argument("--seed", type=int, default=11)
    p.add_argument("--profile", default="", help="write a profile of the whole run to this file")
    p.add_argument("--floor", action="store_true", help="also time the smallest possible app on the same path")
    p.add_argument("--regions", action="store_true", help="print the dirty regions and bytes per widget")
    p.add_argument("--moves", type=int, default=0,
                   help="also this many actions by the mover's own key (draw two, flip): frames, bytes, CPU")
    p.add_argument("--ticks", type=int, default=0,
                   help="a match with a clock: also this many seconds idle, bytes per 1 Hz tick")
    p.add_argument("--idle", type=int, default=0, metavar="N",
                   help="only N matches (2N sessions) left alone, with and without a clock: CPU per session"
                        " per second, and the share of the second's writes in its busiest tenth (1.0: a burst)")
    p.add_argument("--idle-seconds", type=float, default=10.0)
    args = p.parse_args()
    if args.regions:
        REGIONS.install()
    w, h = (int(x) for x in args.size.lower().split("x"))
    if args.idle:
        for clock in (False, True):
            r = asyncio.run(idle_bench((w, h), args.idle, args.idle_seconds, args.seed, clock))
            what = "a clock running (all started together)" if clock else "no clock (nothing changes)"
            print(f"idle, {what}: {r['cpu_ms']:.3f} ms CPU and {r['writes']:.2f} writes per session per second,"
                  f" busiest tenth of the second {r['busiest_tenth']:.0%} of the writes  [{int(r['sessions'])}"
                  f" sessions, {args.idle_seconds:g} s]")
        return

    def run() -> dict[str, float]:
        return asyncio.run(bench((w, h), args.actions, args.keys, args.quiet, args.seed, args.moves, args.ticks))

    if args.profile:
        try:  # optional, not a dependency: imported by name so that mypy does not need it installed
            Profiler = importlib.import_module("pyinstrument").Profiler
        except ImportError:
            Profiler = None
        if Profiler is not None:
            prof = Profiler(interval=0.0005)
            prof.start()
            r = run()
            prof.stop()
            Path(args.profile).write_text(prof.output_html())
            print(prof.output_text(unicode=True, color=False, show_all=False)[:20000])
        else:
            import cProfile
            import pstats

            pr = cProfile.Profile()
            pr.enable()
            r = run()
            pr.disable()
            pstats.Stats(pr).sort_stats("cumulative").print_stats(40)
    else:
        r = run()
    print(f"match screen {w}x{h}, headless over the SSH driver's output path")
    if "updates" in r:
        print(
            f"update:   {r['update_cpu_ms_mean']:.1f} ms CPU per screen (median {r['update_cpu_ms_median']:.1f}),"
            f" {r['update_bytes_mean']:.0f} bytes, {r['update_writes_mean']:.1f} writes per screen"
            f"  [{int(r['updates'])} actions]"
        )
    if "keys" in r:
        print(
            f"keypress: {r['key_cpu_ms_mean']:.1f} ms CPU (median {r['key_cpu_ms_median']:.1f}),"
            f" {r['key_bytes_mean']:.0f} bytes, {r['key_writes_mean']:.1f} writes  [{int(r['keys'])} keys]"
        )
    if "moves" in r:
        print(
            f"move:     {r['move_cpu_ms_mean']:.1f} ms CPU per accepted action, both screens"
            f" (median {r['move_cpu_ms_median']:.1f}), {r['move_bytes_mean']:.0f} bytes and"
            f" {r['move_frames_mean']:.2f} frames per screen  [{int(r['moves'])} actions by key]"
        )
    if "ticks" in r:
        print(
            f"tick:     {r['tick_cpu_ms']:.2f} ms CPU, {r['tick_bytes']:.0f} bytes,"
            f" {r['tick_writes']:.2f} writes per screen per second of clock  [{int(r['ticks'])} s]"
        )
    if args.regions:
        REGIONS.report()
    if args.floor:
        ms = asyncio.run(floor_bench((w, h), max(args.keys, 20), args.quiet))
        print(f"floor:    {ms:.1f} ms CPU per keypress (median) for a one-widget app whose six rows change")


if __name__ == "__main__":
    main()
