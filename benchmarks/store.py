"""What durability costs: microseconds per committed action, ``synchronous=NORMAL`` vs ``FULL``.

Each action is its own transaction (as a match host commits it before accepting it),
through the store's writer thread as the hosts use it (``append_action_async``
awaited one at a time, like moves of one match) and, for comparison, the bare
SQLite commit on the writer's connection.  In WAL mode ``NORMAL`` writes the WAL
without an fsync at commit (a power loss or OS crash, or a file system turned
read-only, may lose every commit since the last checkpoint); ``FULL`` fsyncs the
WAL at every commit.

    python benchmarks/store.py                 # 500 commits each, in a temporary directory
    python benchmarks/store.py --dir /srv/x    # on the disk the server's data will live on
    python benchmarks/store.py --commits 2000
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.store.db import Store  # noqa: E402

SEATS = [{"name": "a", "identity": "SHA256:a"}, {"name": "b", "identity": "SHA256:b"}]


def bare(store: Store, mid: int, start: int, n: int) -> list[float]:
    """Commit ``n`` action rows straight on the writer's connection (on its thread)."""

    def job(c) -> list[float]:
        out = []
        for i in range(start, start + n):
            t0 = time.perf_counter()
            c.execute("BEGIN IMMEDIATE")
            c.execute("INSERT INTO actions (match_id, idx, action) VALUES (?, ?, 'play 3o orange 0')", (mid, i))
            c.execute("COMMIT")
            out.append(time.perf_counter() - t0)
        return out

    return store.in_writer(job).result()


async def hosted(store: Store, mid: int, start: int, n: int) -> list[float]:
    """Commit ``n`` actions as a match host does: awaited one after the other."""
    out = []
    for i in range(start, start + n):
        t0 = time.perf_counter()
        await store.append_action_async(mid, i, "play 3o orange 0")
        out.append(time.perf_counter() - t0)
    return out


def run(directory: Path, mode: str, commits: int) -> dict[str, list[float]]:
    with Store.open(directory / mode.lower()) as store:
        store.in_writer(lambda c: c.execute(f"PRAGMA synchronous={mode}")).result()
        mid = store.create_match("voltage", 1, SEATS)
        bare(store, mid, 0, 20)  # warm up
        b = bare(store, mid, 20, commits)
        h = asyncio.run(hosted(store, mid, 20 + commits, commits))
    return {"bare": b, "hosted": h}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", type=Path, help="where to put the test databases (default: a temporary directory)")
    ap.add_argument("--commits", type=int, default=500)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        print(f"{args.commits} commits per row, in {tmp}")
        print(f"{'synchronous':<12} {'path':<7} {'median µs':>10} {'p90 µs':>8} {'p99 µs':>8} {'mean µs':>8}")
        for mode in ("NORMAL", "FULL"):
            for path, times in run(Path(tmp), mode, args.commits).items():
                us = sorted(t * 1e6 for t in times)
                p90, p99 = (us[min(len(us) - 1, int(q * len(us)))] for q in (0.9, 0.99))
                print(f"{mode:<12} {path:<7} {statistics.median(us):>10.0f} {p90:>8.0f} {p99:>8.0f} "
                      f"{statistics.fmean(us):>8.0f}")


if __name__ == "__main__":
    main()
