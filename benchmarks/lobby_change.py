"""What one lobby change costs one lobby screen, with N players online (CPU, in one process).

    python benchmarks/lobby_change.py -n 100,300 --changes 40
    python benchmarks/lobby_change.py -n 100,300 --tree /tmp/old     # another checkout's code

A real lobby with N players and one lobby screen (Textual, headless, 80x24); then
``--changes`` arrivals, each told to the screen (the lobby's notice) and drawn.  Printed:
the CPU milliseconds per change (the screen's update and its frame, and the lobby's own
part), the median of the changes.  Every lobby screen on a server pays this at each change,
so it is the part of an arrival that grows with the players online.  CPU time of this
process, so a busy machine bends it less than a wall-clock figure (the load is printed).
A benchmark: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent

CHILD = r"""
import asyncio, statistics, sys, time
from server.backend import SSHBackend
from server.lobby.core import Lobby
from tui.app import make_app

async def main(n, changes):
    lobby = Lobby(seed=1)
    lobby.notify_delay = 3600.0  # (told by hand below, once a change)
    for i in range(n):
        lobby.claim_name(lobby.connect(None, f"u{i}"), f"player{i:04}")
    backend = SSHBackend(lobby, lobby.connect(None, "alice"))
    app = make_app(backend, player_name="alice")
    costs = []
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        for _ in range(5):
            await pilot.pause()
        for i in range(changes):
            lobby.claim_name(lobby.connect(None, f"new{i}"), f"m{i:04}")
            t0 = time.process_time()
            lobby.presence.close()
            lobby.presence._notify()  # (what the lobby's timer does)
            await pilot.pause(0.05)  # (and the frame: the screen's update timer)
            costs.append(time.process_time() - t0)
    print(f"{statistics.median(costs) * 1000:.2f} {min(costs) * 1000:.2f} {max(costs) * 1000:.2f}")
    lobby.presence.close()

asyncio.run(main(int(sys.argv[1]), int(sys.argv[2])))
"""


def loadavg() -> str:
    try:
        with open("/proc/loadavg") as f:
            return f.read().split()[0]
    except OSError:
        return "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", default="100,300", help="players online, comma-separated")
    ap.add_argument("--changes", type=int, default=40)
    ap.add_argument("--tree", type=Path, default=HERE, help="the checkout whose code runs (default: this one)")
    args = ap.parse_args()
    tree = args.tree.resolve()
    env = dict(os.environ, PYTHONPATH=str(tree))
    for n in (int(v) for v in args.n.split(",")):
        before = loadavg()
        out = subprocess.run([sys.executable, "-c", CHILD, str(n), str(args.changes)], cwd=tree, env=env,
                             capture_output=True, text=True, check=False)
        if out.returncode:
            print(out.stderr[-2000:], file=sys.stderr)
            return 1
        med, lo, hi = (float(v) for v in out.stdout.split()[-3:])
        print(f"{n} players online: one lobby change costs one screen {med:.2f} ms CPU (median of {args.changes};"
              f" {lo:.2f}-{hi:.2f}); code from {tree}; load average {before}-{loadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
