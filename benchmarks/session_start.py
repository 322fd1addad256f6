"""A session's start, in one process without SSH: what a new session costs until its first
frame, and what each arrival costs the lobby screens already there.

    python benchmarks/session_start.py [--crowd 100] [--lone 15] [--size 80x24] [--profile FILE]

The sessions are the server's own (``server.serve.local_sessions``, the app the server makes),
each over an in-memory terminal channel that counts what it is written; no SSH, no client
emulating a terminal: the figures are the app's and the lobby's.

``--calls`` counts the Python function calls as well (per start, per arrival): on a machine shared
with other work, CPU time moves with the neighbours' load; the calls do not.

1. ``--lone`` lone sessions, one at a time: CPU (this process's) and wall time from the start
   of the session until its name box is on the screen (the first frame), and what Textual did
   before it: layout passes of the screen, style updates (nodes restyled), compositor renders
   (whole and partial), refreshes asked of widgets;
2. ``--crowd`` sessions arrive, 10 at a time, each until it is named in the lobby: CPU per
   arrival, and per arrival what the lobby screens already there did (renders of their
   Online/Matches lists, partial and whole frames);
3. the lone sessions again, while the crowd is in the lobby.

``--profile FILE`` writes a cProfile of part 1 and 3 (the lone starts; ``--profile-part crowd``: of
part 2, the arrivals) to ``FILE``, and prints its top functions by their own and cumulative time.
This is a benchmark: it prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.config import ServerConfig  # noqa: E402
from server.serve import local_sessions  # noqa: E402
from server.session.driver import TerminalChannel  # noqa: E402
from server.session.identity import Identity  # noqa: E402

try:
    from server.session.budget import StartLimits  # noqa: E402

    ROOMY: dict[str, Any] = {"session_starts": StartLimits(1e6, 1e-6, 1e6, 1e6)}
except ImportError:  # (an older tree: no budget of new sessions)
    ROOMY = {}


class Channel(TerminalChannel):
    """A terminal in memory: keeps the text written (escapes and all), takes keys from a queue."""

    def __init__(self, size: tuple[int, int]) -> None:
        self._size = size
        self.out = bytearray()
        self.bytes = 0
        self.input: asyncio.Queue[bytes] = asyncio.Queue()
        self.changed = asyncio.Event()
        self.closed = False

    def write(self, data: bytes) -> None:
        self.bytes += len(data)
        self.out += data
        self.changed.set()

    async def read(self) -> bytes:
        return await self.input.get()

    def pending_output(self) -> int:
        return 0

    def close(self) -> None:
        self.closed = True
        self.input.put_nowait(b"")

    def closing(self) -> bool:
        return self.closed

    @property
    def size(self) -> tuple[int, int]:
        return self._size

    async def wait_for(self, text: str, timeout: float = 60.0) -> None:
        want = text.encode()
        deadline = time.monotonic() + timeout
        while want not in self.out:
            self.changed.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {text!r} written")
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                pass

    def forget(self) -> None:
        self.out.clear()


class Counts:
    """What Textual did, counted by wrapping a few of its methods (a benchmark's instrument)."""

    def __init__(self) -> None:
        self.c: Counter[str] = Counter()

    def install(self) -> None:
        from textual.css.stylesheet import Stylesheet
        from textual.screen import Screen
        from textual.widget import Widget

        counts = self.c

        def wrap(cls: Any, name: str, label: str, size: Any = None) -> None:
            original = getattr(cls, name)

            def counted(*args: Any, **kwargs: Any) -> Any:
                counts[label] += 1 if size is None else size(*args, **kwargs)
                return original(*args, **kwargs)

            setattr(cls, name, counted)

        wrap(Screen, "_refresh_layout", "layout passes")
        wrap(Stylesheet, "update_nodes", "nodes restyled", lambda self, nodes, animate=False: len(list(nodes)))
        wrap(Widget, "refresh", "widget refreshes")
        try:
            from textual._compositor import Compositor
        except ImportError:
            return
        wrap(Compositor, "render_full_update", "whole renders")
        wrap(Compositor, "render_partial_update", "partial renders")
        try:
            from tui.widgets.rows import RowMenu
        except ImportError:  # (an older tree: its lists were Menus, not counted apart)
            return
        wrap(RowMenu, "render", "list renders")

    def take(self) -> Counter[str]:
        out = Counter(self.c)
        self.c.clear()
        return out

    def count_calls(self) -> None:
        """Count every Python function call too (``--calls``): a figure the machine's other work does
        not move, unlike CPU time on a shared machine (the calls are the work, not its time)."""
        counts = self.c

        def profile(frame: Any, event: str, arg: Any) -> None:
            if event == "call":
                counts["python calls"] += 1

        sys.setprofile(profile)
        threading.setprofile(profile)


async def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--crowd", type=int, default=100, help="sessions in the lobby for part 2 and 3")
    p.add_argument("--lone", type=int, default=15)
    p.add_argument("--size", default="80x24")
    p.add_argument("--profile", default="", help="write a cProfile of the lone starts to this file")
    p.add_argument("--profile-part", choices=("lone", "crowd"), default="lone",
                   help="what --profile profiles: the lone starts, or the crowd's arrivals")
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--calls", action="store_true",
                   help="also count Python function calls (slower; a figure other processes do not move)")
    args = p.parse_args()
    width, height = (int(v) for v in args.size.split("x"))

    sessions = local_sessions(ServerConfig(host="127.0.0.1", port=0, **ROOMY))
    sessions.start()
    counts = Counts()
    counts.install()
    if args.calls:
        counts.count_calls()
    profile = cProfile.Profile() if args.profile else None
    tasks: list[asyncio.Task[int]] = []

    async def lone(label: str) -> None:
        cpu, wall, seen = [], [], Counter[str]()
        for i in range(args.lone):
            channel = Channel((width, height))
            await asyncio.sleep(0.05)
            counts.take()
            if profile is not None and args.profile_part == "lone":
                profile.enable()
            c0, t0 = time.process_time(), time.perf_counter()
            task = asyncio.ensure_future(sessions.play(channel, Identity.guest(f"{label}{i}"), {}))
            await channel.wait_for("Your name")
            c1, t1 = time.process_time(), time.perf_counter()
            if profile is not None and args.profile_part == "lone":
                profile.disable()
            seen += counts.take()
            cpu.append(c1 - c0)
            wall.append(t1 - t0)
            channel.close()
            await task
        n = args.lone
        print(f"{label}: first frame CPU median {statistics.median(cpu) * 1000:.1f} ms, wall median "
              f"{statistics.median(wall) * 1000:.1f} ms (of {n}); per start: "
              + ", ".join(f"{k} {v / n:.1f}" for k, v in sorted(seen.items())))

    await lone("lone")
    channels = []
    c0, t0 = time.process_time(), time.perf_counter()
    counts.take()

    async def arrive(i: int) -> None:
        channel = Channel((width, height))
        channels.append(channel)
        tasks.append(asyncio.ensure_future(sessions.play(channel, Identity.of_key(f"SHA256:k{i}", f"p{i}"), {})))
        await channel.wait_for("Your name")
        channel.input.put_nowait(b"\r")
        await channel.wait_for(f"you: p{i}")

    if profile is not None and args.profile_part == "crowd":
        profile.enable()
    for i in range(0, args.crowd, 10):
        await asyncio.gather(*(arrive(j) for j in range(i, min(args.crowd, i + 10))))
    c1, t1 = time.process_time(), time.perf_counter()
    if profile is not None and args.profile_part == "crowd":
        profile.disable()
    await asyncio.sleep(1.0)  # (the lobby has told everyone of the last arrivals)
    seen = counts.take()
    n = max(1, args.crowd)
    print(f"crowd: {args.crowd} arrivals in {t1 - t0:.1f} s, CPU {c1 - c0:.1f} s ({(c1 - c0) * 1000 / n:.1f} ms per "
          f"arrival); per arrival: " + ", ".join(f"{k} {v / n:.1f}" for k, v in sorted(seen.items())))
    await lone(f"lone with {args.crowd} in the lobby")
    for channel in channels:
        channel.close()
    await asyncio.gather(*tasks, return_exceptions=True)
    sessions.services.close()
    if profile is not None:
        profile.dump_stats(args.profile)
        stats = pstats.Stats(args.profile)
        stats.sort_stats("tottime").print_stats(args.top)
        stats.sort_stats("cumtime").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
