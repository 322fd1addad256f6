"""How long a Voltage bot thinks per move, on one core.

Collects decisions (views with two or more legal actions) from greedy-versus-greedy
matches, then times the bot on each: wall-clock time, which is what a player
waits, and this process's CPU time, which a busy machine does not inflate.

    python benchmarks/bots.py                        # Hard, 200 decisions
    python benchmarks/bots.py --bot expert --decisions 50
    python benchmarks/bots.py --bot ismcts --iterations 2000

Target (issue #5): Hard decides in at most 250 ms median and 500 ms p95 on one core.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.voltage import rules as V  # noqa: E402
from engine.voltage.bots import make_bot  # noqa: E402

TARGET_MEDIAN = 0.250
TARGET_P95 = 0.500


def decisions(n: int, seed: int) -> list[V.VoltageView]:
    """``n`` views with a real choice, spread over greedy-versus-greedy matches."""
    rng = random.Random(seed)
    out: list[V.VoltageView] = []
    match = seed
    while len(out) < n:
        bots = [make_bot("greedy", match), make_bot("greedy", match + 1)]
        s = V.new_match(match)
        match += 1
        while s.phase != V.OVER:
            v = V.view(s, s.to_move)
            if len(v.legal) > 1 and rng.random() < 0.25:
                out.append(v)
            V.step(s, bots[s.to_move].choose(v))
    return out[:n]


def quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bot", default="hard")
    p.add_argument("--decisions", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--iterations", type=int, default=None)
    p.add_argument("--think-ms", type=float, default=None)
    args = p.parse_args(argv)

    options = {}
    if args.iterations is not None:
        options["iterations"] = args.iterations
    if args.think_ms is not None:
        options["time_budget"] = args.think_ms / 1000
    views = decisions(args.decisions, args.seed)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    load0 = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    wall: list[float] = []
    cpu: list[float] = []
    iterations: list[int] = []
    for i, v in enumerate(views):
        bot = make_bot(args.bot, args.seed * 100_003 + i, **options)
        w0, c0 = time.perf_counter(), time.process_time()
        bot.choose(v)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
        iterations.append(getattr(bot, "last_iterations", 0))
    load1 = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")

    def ms(x: float) -> str:
        return f"{1000 * x:.1f} ms"

    print(f"{args.bot} {options or ''} on one core, {len(views)} decisions from greedy-versus-greedy matches")
    for label, xs in (("wall", wall), ("cpu", cpu)):
        print(
            f"  {label}: median {ms(statistics.median(xs))}, p95 {ms(quantile(xs, 0.95))}, "
            f"mean {ms(statistics.fmean(xs))}, max {ms(max(xs))}"
        )
    if any(iterations):
        total_it = sum(iterations)
        print(f"  iterations per decision: mean {total_it / len(iterations):.0f}; "
              f"{total_it / sum(wall):.0f} iterations per wall second")
    share = sum(cpu) / sum(wall)
    print(f"  CPU share of wall time: {100 * share:.0f}%; load average {load0:.2f} -> {load1:.2f}")
    if share < 0.9:
        print("  note: a busy machine; the cpu figures are nearer what one free core gives")
    if args.bot == "hard" and not options:
        med, p95 = statistics.median(wall), quantile(wall, 0.95)
        ok = med <= TARGET_MEDIAN and p95 <= TARGET_P95
        print(
            f"  target: median <= {ms(TARGET_MEDIAN)} and p95 <= {ms(TARGET_P95)} (wall): "
            f"{'met' if ok else 'NOT met'}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
