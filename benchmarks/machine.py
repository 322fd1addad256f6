"""What the machine was doing during a benchmark run: steal time, idle time, load average.

The benchmarks run on a machine shared with other work (two cores, several engineers),
so every figure is printed beside what the machine gave it: the share of CPU time
stolen by the hypervisor and left idle (``/proc/stat``, over the run) and the load
average (``/proc/loadavg``, sampled during the run: its least, mean and most).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field


def _cpu_times() -> list[int]:
    """The machine's CPU ticks: user nice system idle iowait irq softirq steal ..."""
    try:
        with open("/proc/stat") as f:
            first = f.readline().split()
    except OSError:
        return []
    return [int(v) for v in first[1:]]


def loadavg() -> float:
    """The one-minute load average (nan where there is no /proc)."""
    try:
        with open("/proc/loadavg") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return float("nan")


@dataclass
class Machine:
    """Steal and idle over a span, and the load averages sampled in it."""

    start: list[int] = field(default_factory=_cpu_times)
    end: list[int] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)
    task: asyncio.Future[None] | None = None

    def stop(self) -> Machine:
        """The span ends here."""
        if self.task is not None:
            self.task.cancel()
            self.task = None
        self.loads.append(loadavg())
        self.end = _cpu_times()
        return self

    def share(self, column: int) -> float:
        """The share of all CPU ticks in the span that went to ``column`` (7: steal, 3: idle)."""
        if not self.start or not self.end or len(self.end) <= column:
            return float("nan")
        delta = [b - a for a, b in zip(self.start, self.end, strict=False)]
        total = sum(delta[:8])  # (guest time is counted in user already)
        return delta[column] / total if total else float("nan")

    @property
    def steal(self) -> float:
        return self.share(7)

    @property
    def idle(self) -> float:
        return self.share(3) + self.share(4)

    def text(self) -> str:
        loads = self.loads or [loadavg()]
        return (f"machine: steal {self.steal:.1%}, idle {self.idle:.0%}, load average "
                f"{min(loads):.1f}-{max(loads):.1f} (mean {sum(loads) / len(loads):.1f})")


def watching(every: float = 5.0) -> Machine:
    """A :class:`Machine` from now until its :meth:`Machine.stop`, the load sampled every
    ``every`` seconds (in the running loop)."""
    machine = Machine()

    async def sample() -> None:
        while True:
            machine.loads.append(loadavg())
            await asyncio.sleep(every)

    machine.task = asyncio.ensure_future(sample())
    return machine
