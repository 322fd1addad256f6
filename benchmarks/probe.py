"""What the attack benchmarks measure on the server's side: a probe player's keypress-to-screen
latency, and the server process's CPU time (shared by ``attack.py`` and ``web_attack.py``).

The probe is a test terminal (``tests.support.terminal.Terminal``) on the name screen: it types
into the name field and waits for its screen to change.  The CPU time is read from
``/proc/PID/stat``, so a window's figure is the server's own work, whatever its attackers spend
in their processes.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
from typing import Any


async def probe_latencies(t: Any, stop_at: float, every: float = 0.1, cap: float = 60.0) -> list[float]:
    """Type into the probe's name field every ``every`` s until ``stop_at``; each key's
    time until the probe's screen changes (a key still unanswered at the end counts
    for as long as it waited)."""
    out = []
    i = 0
    while time.monotonic() < stop_at:
        before = t.frames
        t0 = time.monotonic()
        t.send("x" if i % 2 == 0 else "\x7f")
        i += 1
        while t.frames == before and time.monotonic() - t0 < cap and not t.closed.is_set():
            await asyncio.sleep(0.002)
        out.append(time.monotonic() - t0)
        await asyncio.sleep(max(0.0, every - (time.monotonic() - t0)))
    return out


def p95(lat: list[float]) -> float:
    return statistics.quantiles(lat, n=20)[-1] if len(lat) >= 2 else lat[0]


def fmt(lat: list[float], what: str = "keypress-to-screen ") -> str:
    """``lat`` in a few words: its max and p95 in ms, and how many keys."""
    if not lat:
        return "no samples"
    return f"{what}max {max(lat) * 1000:4.0f} ms, p95 {p95(lat) * 1000:4.0f} ms ({len(lat)} keys)"


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) process ``pid`` has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
