"""How fast the Voltage engine plays: complete uniform-random matches per second.

The loop is the bots' inner loop (``legal_actions`` + ``random.choice`` + ``step``
on one state, no views, no checks), like the arena without its bots.

    python benchmarks/engine_speed.py                  # 5 seconds on one core
    python benchmarks/engine_speed.py --matches 20000
    python benchmarks/engine_speed.py --processes 2    # aggregate over a process pool

Target: at least 3000 matches per second on one core.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.voltage import rules as V  # noqa: E402

TARGET = 3000


def play(seed: int, matches: int | None, seconds: float | None) -> tuple[int, int, float, float]:
    """Play random matches from seeds ``seed, seed + 1, ...`` until ``matches`` are done or
    ``seconds`` have passed; return (matches, actions, wall seconds, CPU seconds)."""
    rng = random.Random(seed)
    choice = rng.choice
    legal_actions, step, new_match, over = V.legal_actions, V.step, V.new_match, V.OVER
    clock = time.perf_counter
    n = actions = 0
    c0 = time.process_time()
    t0 = clock()
    deadline = t0 + seconds if seconds is not None else None
    while True:
        if matches is not None and n >= matches:
            break
        if deadline is not None and n % 16 == 0 and clock() >= deadline:
            break
        s = new_match(seed + n)
        while s.phase != over:
            step(s, choice(legal_actions(s)))
            actions += 1
        n += 1
    return n, actions, clock() - t0, time.process_time() - c0


def _worker(job: tuple[int, int | None, float | None]) -> tuple[int, int, float, float]:
    return play(*job)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--seconds", type=float, default=None, help="run for this long (default 5)")
    budget.add_argument("--matches", type=int, default=None, help="play this many matches (split over processes)")
    p.add_argument("--processes", type=int, default=1, help="processes to play in (default 1)")
    p.add_argument("--seed", type=int, default=0, help="the first match's seed")
    args = p.parse_args(argv)
    seconds = args.seconds if args.seconds is not None or args.matches is not None else 5.0
    procs = max(1, args.processes)

    play(args.seed, 50, None)  # warm up
    if procs == 1:
        wall0 = time.perf_counter()
        results = [play(args.seed, args.matches, seconds)]
        wall = time.perf_counter() - wall0
    else:
        share = None if args.matches is None else -(-args.matches // procs)
        jobs = [(args.seed + i * 10_000_000, share, seconds) for i in range(procs)]
        with multiprocessing.Pool(procs) as pool:
            pool.map(_worker, [(j[0], 20, None) for j in jobs])  # start the workers and warm them up
            wall0 = time.perf_counter()
            results = pool.map(_worker, jobs)
            wall = time.perf_counter() - wall0

    total_m = sum(r[0] for r in results)
    total_a = sum(r[1] for r in results)
    print(f"Voltage engine speed: uniform-random matches, {procs} process{'es' if procs > 1 else ''}")
    for i, (m, a, t, cpu) in enumerate(results):
        print(
            f"  process {i + 1}: {m} matches, {a} actions in {t:.2f} s: "
            f"{m / t:,.0f} matches/s, {a / t:,.0f} actions/s "
            f"(per CPU second: {m / cpu:,.0f} matches, {a / cpu:,.0f} actions)"
        )
    if procs > 1:
        print(f"  aggregate: {total_m / wall:,.0f} matches/s, {total_a / wall:,.0f} actions/s (wall {wall:.2f} s)")
    print(f"  mean actions per match: {total_a / total_m:.1f}")
    m, _, t, cpu = results[0]
    one = m / t
    print(f"  one core: {one:,.0f} matches/s (target >= {TARGET}: {'met' if one >= TARGET else 'NOT met'})")
    if cpu < 0.9 * t:
        print(f"  note: this process had the CPU only {100 * cpu / t:.0f}% of the time (a busy machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
