"""Load benchmark for ``voltage serve``: N concurrent SSH sessions playing N/2 matches.

    python benchmarks/load.py -n 50 --seconds 30
    python benchmarks/load.py -n 200 --seconds 600 --pace 2-5     # realistic play, 10 minutes
    python benchmarks/load.py -n 50 --tree /tmp/old-perf           # the same run on another checkout
    python benchmarks/load.py --ramp 100:500:50 --pace 3 --seconds 30 --repeat 3   # the capacity
    python benchmarks/load.py --arrivals 100,300 --repeat 3          # arrivals only: 300 against 100

Starts ``voltage serve`` in a subprocess on a free port (from ``--tree``, default
this checkout), then from this process:

1. connects lone players one at a time and times the first frame (connect,
   SSH handshake, PTY, until the lobby is on the screen);
2. opens N sessions (the arrivals, timed) and names them, times lone players again
   while the N are in the lobby, then pairs them through quick match;
3. plays for ``--seconds``: whoever is to move acts after ``--pace`` seconds
   (a number, +-20 %, or a range such as ``2-5``: a human takes 2-5 s per
   Voltage decision), by keystrokes chosen from what its screen shows; at a
   match's end both ask for a rematch, so the load lasts; every key that should
   change the screen is timed until the next output from the server
   (keypress-to-frame latency);
4. prints the latency p50/p95/p99, the server's CPU milliseconds and output bytes
   per action, the collector's pauses (max, p99, by generation), the server's
   memory (per session, and its growth while playing) and what these clients
   cost beside the server.

Honest measuring, the decisions:

- **Cheap clients.**  A client does not emulate a terminal (pyte cost 34-74 % of
  a core beside the server, distorting the figure it measured).  It keeps only
  the rows of text: following the cursor moves the server writes (CSI H, the
  relative CSI A-D, ESC D, CR, LF, BS) and the clears, stripping the other escapes
  (colours, modes, titles) and writing each run into its row is all it takes to
  read the prompt line and the hand.  Output is parsed only when the client looks
  at its screen.  The clients' CPU is printed beside the server's, with their
  ratio (the target is at most a third).
- **One ruler for the collector.**  The server runs under a probe installed
  before any project code (``-c`` bootstrap, like the shared
  ``tools/gcprobe``): it times every collection, so the old and the new code are
  measured the same way.  The probe writes ``monotonic-time generation ms`` per
  collection; the play window is cut out by time.  If the server logs its own
  ``gc pauses since start`` line (``server/gcpolicy.py``), the last one is
  printed as well.
- **The loop's lag, on both sides.**  A thread in the server asks its event loop to note
  the time every 20 ms; how late the note comes is how long a key arriving then waits before
  the loop can look at it (p50/p95/p99/max over the play, and the share over 50 ms).  The
  clients' own loop is watched the same way (a 20 ms sleep's overshoot), so a latency that
  comes from these clients, not the server, shows.
- **Where the loop's time goes** (``--handles``): the probe also times every callback the
  server's event loop runs (each ``Handle``: a task's step named by its coroutine, or the
  callback), and the play window's are summed by name: the share of the window each takes,
  how often it ran and its mean.  Timing and writing a line costs the server 2-3 us a
  callback (a loop of bare callbacks: 2.7-4.0 -> 5.3-5.7 us each), under 1 % of a core at
  the 1,400 callbacks a second of 250 sessions playing, so it is asked for, not always on;
  unlike a sampler, nothing stops the process, so the figures printed beside it stand.
- **No compression** (as OpenSSH clients by default): what the server sends is
  what a player's link carries.

- **Capacity, printed directly** (``--ramp``): the session count grows until a point's
  p95 (the median over ``--repeat`` runs) passes ``--p95`` or a session is not connected
  and paired; the last point that held is the capacity.  Every point is a fresh server.
- **Repeated, with the machine beside** (``--repeat``; :mod:`machine`): each point runs
  ``--repeat`` times and its spread is printed (median, least-most), and every run says
  the machine's steal and idle time over it and its load average during it: the machine
  is shared, and a figure taken beside other work says so.
- **Arrivals** (``--arrivals``): the time for N sessions to arrive, ``--connect-batch``
  at a time, each until named in the lobby, and a lone player's first frame while the N
  are there; no play.  Several counts give the growth (300 against 100).

This is a benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import asyncssh

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine import watching  # noqa: E402

PROMPT_FLIP = "You drew a transformer"
PROMPT_PASS = "You cannot act"
PROMPT_SECOND = ("Second card", "No second card")
PROMPT_START = "Your turn: play a card, or draw two"
PROMPT_FULL = "Your turn: play a card (your hand is full"
PROMPT_SIDE = "side or yours?"
PROMPT_TERMINAL = "which terminal?"
PROMPT_TARGET = "which card does it"
REMATCH = "rematch [r]"

HERE = Path(__file__).resolve().parent.parent

# Runs in the server before any project code: times every collection (all of them,
# not only the long ones) into a file: monotonic time, generation, wall ms, CPU ms (this
# thread's: the wall figure is what players wait, the CPU one the collector's own
# work, without the time the OS gave other processes), objects collected.
PROBE_BOOT = r"""
import gc, os, sys, time, atexit
_out = open(os.environ["VOLTAGE_LOAD_GC_LOG"], "w", buffering=1 << 16)
_t = [0.0, 0.0]
_pc, _cpu, _mono = time.perf_counter, time.thread_time, time.monotonic
def _cb(phase, info):
    if phase == "start":
        _t[0] = _pc()
        _t[1] = _cpu()
    else:
        _out.write("%.4f %d %.3f %.3f %d\n" % (_mono(), info.get("generation", -1), (_pc() - _t[0]) * 1000,
                                               (_cpu() - _t[1]) * 1000, info.get("collected", 0)))
gc.callbacks.insert(0, _cb)
atexit.register(_out.flush)
# The event loop's lag: a thread asks the loop to note the time every 20 ms; how late the note
# comes is how long anything arriving then (a key) waits before the loop can look at it.
import threading, asyncio.runners as _runners
_lag = open(os.environ["VOLTAGE_LOAD_LAG_LOG"], "w", buffering=1 << 16)
atexit.register(_lag.flush)
def _noted(t0):
    _lag.write("%.4f %.3f\n" % (t0, (_mono() - t0) * 1000))
def _asker(loop):
    while not loop.is_closed():
        time.sleep(0.02)
        try:
            loop.call_soon_threadsafe(_noted, _mono())
        except RuntimeError:  # closed meanwhile
            return
# (the main thread's asyncio.run: its loop, whichever kind the server's policy makes: asyncio's or uvloop's)
_run = _runners.Runner.run
def _run_probed(self, coro, **kw):
    if threading.current_thread() is threading.main_thread() and not getattr(_runners, "_lag_asked", False):
        _runners._lag_asked = True
        threading.Thread(target=_asker, args=(self.get_loop(),), daemon=True).start()
    return _run(self, coro, **kw)
_runners.Runner.run = _run_probed
# --handles: every callback the loop runs, timed: monotonic end, wall ms, its name.
if os.environ.get("VOLTAGE_LOAD_HANDLES_LOG"):
    import asyncio, asyncio.events as _events
    _hl = open(os.environ["VOLTAGE_LOAD_HANDLES_LOG"], "w", buffering=1 << 20)
    atexit.register(_hl.flush)
    _Task = asyncio.Task
    def _handle_name(h):
        cb = h._callback
        owner = getattr(cb, "__self__", None)
        if isinstance(owner, _Task):
            coro = owner.get_coro()
            return "task " + getattr(coro, "__qualname__", type(coro).__name__)
        return getattr(cb, "__qualname__", None) or type(cb).__name__
    _handle_run = _events.Handle._run
    def _timed_run(self):
        t0 = _pc()
        try:
            return _handle_run(self)
        finally:
            _hl.write("%.4f %.4f %s\n" % (_mono(), (_pc() - t0) * 1000, _handle_name(self)))
    _events.Handle._run = _timed_run
"""

# Runs a ``voltage`` command (the arguments after ``-c ROOMY_BOOT``): every client comes from 127.0.0.1,
# so no budget of new sessions per address (a tree without one: none).  Also the end of PROBE_BOOT.
ROOMY_BOOT = r"""
import sys
try:
    from server.session.budget import StartLimits
    StartLimits.__init__.__defaults__ = (1e6, 1e-6, 1e6, 1e6)
except ImportError:
    pass
sys.argv = ["voltage"] + sys.argv[1:]
from voltage.cli import main
sys.exit(main())
"""
PROBE_BOOT += ROOMY_BOOT


class Guest(asyncssh.SSHClient):
    def kbdint_auth_requested(self):
        return ""

    def kbdint_challenge_received(self, name, instructions, lang, prompts):
        return ["" for _ in prompts]


# Escapes that do not move the cursor or clear: colours, modes, OSC titles, charsets.
_OTHER = re.compile(
    r"\x1b\[[0-9;:?<>=]*[ -/]*[@E-GIK-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78EMc]"
)
# What moves the cursor (tui/frames.py writes the shortest move) or clears: CSI H, J, A-D;
# ESC D (index: one row down); CR, LF, BS.
_MOVE = re.compile(r"\x1b\[([0-9;]*)([HJABCD])|\x1bD|[\r\n\b]")
_COMPLETE = re.compile(
    r"\x1b\[[0-9;:?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[^\[\]()]"
)


class Rows:
    """Just the text of a terminal's rows (see the module's notes): cursor moves,
    clears and text runs; everything else is dropped."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.blank = " " * width
        self.rows = [self.blank] * height
        self.x = self.y = 0
        self._carry = ""
        self._pending: list[str] = []
        self._text: str | None = ""
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode

    def feed(self, data: bytes) -> None:
        self._pending.append(self._decode(data))
        self._text = None

    def text(self) -> str:
        if self._text is None:
            chunk = self._carry + "".join(self._pending)
            self._pending.clear()
            i = chunk.rfind("\x1b")
            if i != -1 and not _COMPLETE.match(chunk, i) and len(chunk) - i < 4096:
                self._carry, chunk = chunk[i:], chunk[:i]
            else:
                self._carry = ""
            self._apply(_OTHER.sub("", chunk))
            self._text = "\n".join(self.rows)
        return self._text

    def _apply(self, chunk: str) -> None:
        pos = 0
        for m in _MOVE.finditer(chunk):
            if m.start() > pos:
                self._write(chunk[pos : m.start()])
            pos = m.end()
            args, final = m.group(1), m.group(2)
            if final == "H":
                row, _, col = args.partition(";")
                self.y = min(self.height - 1, max(0, int(row or 1) - 1))
                self.x = min(self.width, max(0, int(col or 1) - 1))
            elif final == "J":
                if args in ("2", "3"):  # clear the screen
                    self.rows = [self.blank] * self.height
            elif final:
                n = int(args or 1)
                if final == "A":
                    self.y = max(0, self.y - n)
                elif final == "B":
                    self.y = min(self.height - 1, self.y + n)
                elif final == "C":
                    self.x = min(self.width, self.x + n)
                else:
                    self.x = max(0, self.x - n)
            else:
                token = m.group(0)
                if token == "\r":
                    self.x = 0
                elif token == "\b":
                    self.x = max(0, self.x - 1)
                else:  # LF, ESC D
                    self.y = min(self.height - 1, self.y + 1)
        self._write(chunk[pos:])

    def _write(self, text: str) -> None:
        if not text:
            return
        row, x = self.rows[self.y], self.x
        end = min(self.width, x + len(text))
        self.rows[self.y] = row[:x] + text[: end - x] + row[end:]
        self.x = end


class Player:
    def __init__(self, name: str, width: int = 100, height: int = 32) -> None:
        self.name = name
        self.screen = Rows(width, height)
        self.width, self.height = width, height
        self.conn: asyncssh.SSHClientConnection | None = None
        self.chan: asyncssh.SSHClientChannel[bytes] | None = None
        self.output = asyncio.Event()
        self.closed = False
        self.received = 0  # bytes from the server

    async def connect(self, port: int) -> None:
        self.conn = await asyncssh.connect(
            "127.0.0.1", port, username=self.name, known_hosts=None, client_factory=Guest,
            client_keys=None, agent_path=None, preferred_auth="keyboard-interactive",
            compression_algs=None,
        )
        me = self

        class Session(asyncssh.SSHClientSession):
            def data_received(self, data, datatype):
                me.received += len(data)
                me.screen.feed(data)
                me.output.set()

            def connection_lost(self, exc):
                me.closed = True
                me.output.set()

        self.chan, _ = await self.conn.create_session(
            Session, term_type="xterm-256color", term_size=(self.width, self.height), encoding=None
        )

    @property
    def channel(self) -> asyncssh.SSHClientChannel[bytes]:
        """The session's channel (``connect`` first)."""
        assert self.chan is not None, "not connected"
        return self.chan

    def text(self) -> str:
        return self.screen.text()

    async def wait_for(self, pattern: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.text()):
            left = deadline - time.monotonic()
            if left <= 0 or self.closed:
                raise TimeoutError(f"{self.name}: no {pattern!r} on screen:\n{self.text()}")
            self.output.clear()
            try:
                await asyncio.wait_for(self.output.wait(), min(left, 1.0))
            except TimeoutError:
                pass

    async def key(self, key: str, latencies: list[float] | None, timeout: float = 3.0) -> bool:
        """Send one key; with ``latencies``, time it until the server's next output."""
        self.output.clear()
        t0 = time.perf_counter()
        self.channel.write(key.encode())
        try:
            await asyncio.wait_for(self.output.wait(), timeout)
        except TimeoutError:
            return False
        if latencies is not None:
            latencies.append(time.perf_counter() - t0)
        # Let the rest of the frame arrive before reading the screen.
        while True:
            self.output.clear()
            try:
                await asyncio.wait_for(self.output.wait(), 0.03)
            except TimeoutError:
                return True

    async def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def server_only_rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except FileNotFoundError:
        pass
    return 0


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time the process ``pid`` has used so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(p / 100 * (len(values) - 1)))))
    return values[k]


def parse_pace(text: str) -> tuple[float, float]:
    """``1.5`` -> (1.2, 1.8) (+-20 %); ``2-5`` -> (2, 5)."""
    try:
        if "-" in text.strip().lstrip("-"):
            lo, hi = (float(v) for v in text.split("-", 1))
        else:
            v = float(text)
            lo, hi = v * 0.8, v * 1.2
    except ValueError:
        raise argparse.ArgumentTypeError(f"--pace takes seconds (1.5) or a range (2-5), not {text!r}") from None
    if lo < 0 or hi < lo:
        raise argparse.ArgumentTypeError(f"--pace: a range goes from low to high, at least 0, not {text!r}")
    return lo, hi


async def play_turns(p: Player, stop_at: float, latencies: list[float], pace: tuple[float, float],
                     tally: dict[str, int]) -> int:
    """Act whenever the screen says it is this player's turn, after ``pace`` seconds;
    at the end of a match, ask for a rematch."""
    actions = 0
    rng = random.Random(p.name)
    asked_rematch = False
    while time.monotonic() < stop_at and not p.closed:
        text = p.text()
        if "to reconnect" in text:
            break
        if REMATCH in text:
            if not asked_rematch:
                asked_rematch = True
                tally["rematches"] += 1
                await p.key("r", None)
                continue
        else:
            asked_rematch = False
        mine = any(s in text for s in (PROMPT_FLIP, PROMPT_PASS, PROMPT_START, PROMPT_FULL, *PROMPT_SECOND))
        if not mine:
            p.output.clear()
            try:
                await asyncio.wait_for(p.output.wait(), 1.0)
            except TimeoutError:
                pass
            continue
        await asyncio.sleep(rng.uniform(*pace))
        if time.monotonic() >= stop_at:
            break
        text = p.text()
        if PROMPT_FLIP in text:
            await p.key("o", latencies)
        elif PROMPT_PASS in text or any(s in text for s in PROMPT_SECOND) or PROMPT_START in text:
            await p.key(" ", latencies)
        elif PROMPT_FULL in text:
            await p.key("1", latencies)  # pick the first card
            text = p.text()
            if PROMPT_SIDE in text:
                await p.key("\x1b[B", latencies)  # down: own side
            elif PROMPT_TERMINAL in text:
                for k in "ogbp":
                    await p.key(k, None, timeout=0.5)
                    if PROMPT_TERMINAL not in p.text():
                        break
                if PROMPT_TARGET in p.text():
                    await p.key("1", latencies)
        else:
            continue
        actions += 1
    return actions


def gc_figures(path: Path, t_from: float = 0.0, t_to: float = float("inf")) -> dict:
    """The probe's collections between two monotonic times: count by generation, and the
    wall and CPU pauses' max, p99 and total (each generation's too)."""
    rows: list[tuple[int, float, float]] = []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) != 5:
                    continue
                t = float(parts[0])
                if t_from <= t <= t_to:
                    rows.append((int(parts[1]), float(parts[2]), float(parts[3])))
    except FileNotFoundError:
        pass

    def figures(sel: list[tuple[int, float, float]]) -> dict:
        wall = [r[1] for r in sel]
        cpu = [r[2] for r in sel]
        return {
            "count": len(sel), "max": max(wall, default=0.0), "p99": pct(wall, 99) if wall else 0.0,
            "total": sum(wall), "over_20": sum(1 for v in wall if v > 20),
            "cpu_max": max(cpu, default=0.0), "cpu_p99": pct(cpu, 99) if cpu else 0.0, "cpu_total": sum(cpu),
        }

    out = figures(rows)
    out["gens"] = [figures([r for r in rows if r[0] == g]) for g in range(3)]
    return out


def lag_figures(path: Path, t_from: float = 0.0, t_to: float = float("inf")) -> dict:
    """The loop-lag probe's notes between two monotonic times (see ``PROBE_BOOT``)."""
    lags: list[float] = []
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and t_from <= float(parts[0]) <= t_to:
                    lags.append(float(parts[1]))
    except FileNotFoundError:
        pass
    return lag_summary(lags)


def handles_figures(path: Path, t_from: float, t_to: float) -> dict:
    """The callbacks the server's loop ran between two monotonic times (``--handles``), summed
    by name: the window's length, and per name its count and total wall ms."""
    per: dict[str, list[float]] = {}
    first = last = None
    try:
        with open(path) as f:
            for line in f:
                parts = line.rstrip("\n").split(" ", 2)
                if len(parts) != 3:
                    continue
                t = float(parts[0])
                if not t_from <= t <= t_to:
                    continue
                first = t if first is None else first
                last = t
                entry = per.setdefault(parts[2], [0, 0.0])
                entry[0] += 1
                entry[1] += float(parts[1])
    except FileNotFoundError:
        pass
    span = (last - first) if first is not None and last is not None else 0.0
    return {"seconds": span, "per": per}


def handles_text(g: dict, top: int = 8) -> str:
    seconds, per = g["seconds"], g["per"]
    if seconds <= 0 or not per:
        return "none noted"
    busy = sum(total for _count, total in per.values()) / 1000 / seconds
    ranked = sorted(per.items(), key=lambda kv: -kv[1][1])[:top]
    parts = [f"{name} {total / 10 / seconds:.1f}% ({count / seconds:.0f}/s, {total / count:.2f} ms)"
             for name, (count, total) in ranked]
    return f"busy {busy:.0%} of {seconds:.0f} s; " + "; ".join(parts)


def lag_summary(lags: list[float]) -> dict:
    return {"count": len(lags), "p50": pct(lags, 50) if lags else 0.0, "p95": pct(lags, 95) if lags else 0.0,
            "p99": pct(lags, 99) if lags else 0.0, "max": max(lags, default=0.0),
            "over_50": sum(1 for v in lags if v > 50) / max(1, len(lags))}


def lag_text(g: dict) -> str:
    return (f"{g['count']} looks: p50 {g['p50']:.1f} ms, p95 {g['p95']:.1f} ms, p99 {g['p99']:.1f} ms,"
            f" max {g['max']:.0f} ms; {g['over_50']:.1%} of looks over 50 ms late")


async def note_lag(lags: list[float], stop_at: float, every: float = 0.02) -> None:
    """This process's own loop lag (the clients'): how late a 20 ms sleep wakes, until ``stop_at``."""
    while (t0 := time.monotonic()) < stop_at:
        await asyncio.sleep(every)
        lags.append(max(0.0, (time.monotonic() - t0 - every) * 1000))


def gc_text(g: dict) -> str:
    head = (f"{g['count']} collections: wall max {g['max']:.1f} ms, p99 {g['p99']:.2f} ms, total {g['total']:.0f} ms,"
            f" {g['over_20']} over 20 ms; CPU max {g['cpu_max']:.1f} ms, p99 {g['cpu_p99']:.2f} ms,"
            f" total {g['cpu_total']:.0f} ms")
    gens = "; ".join(
        f"gen{i} {x['count']}: max {x['max']:.1f} / CPU {x['cpu_max']:.1f} ms,"
        f" p99 {x['p99']:.1f} / {x['cpu_p99']:.1f} ms"
        for i, x in enumerate(g["gens"]) if x["count"]
    )
    return f"{head}\n    {gens}"


@dataclass
class Run:
    """One run's figures (see :func:`run`); ``ok``: every session connected and paired."""

    n: int
    connected: int = 0
    paired: int = 0
    connect_s: float = float("nan")  # the n arrivals, ``--connect-batch`` at a time
    connect_cpu: float = float("nan")  # the server's CPU seconds for them (less bent by a busy machine)
    lone: float = float("nan")  # a lone player's first frame (median), before the others came
    lone_while: float = float("nan")  # the same while the n are connected (in the lobby)
    p50: float = float("nan")
    p95: float = float("nan")
    p99: float = float("nan")
    cpu_ms: float = float("nan")  # the server's CPU per accepted action
    mb_per_session: float = float("nan")
    machine: str = ""

    @property
    def ok(self) -> bool:
        return self.connected == self.n and self.paired == self.n


def spread(values: list[float], scale: float = 1.0, unit: str = "") -> str:
    """A figure over repeated runs: its median and range."""
    values = [v * scale for v in values if v == v]
    if not values:
        return "n/a"
    if len(values) == 1:
        return f"{values[0]:.1f}{unit}"
    return f"{statistics.median(values):.1f}{unit} ({min(values):.1f}-{max(values):.1f})"


def summary(runs: list[Run]) -> str:
    ms = 1000.0
    played = any(r.p50 == r.p50 for r in runs)
    head = (f"{runs[0].n} sessions x {len(runs)}: arrivals {spread([r.connect_s for r in runs], unit=' s')} "
            f"(server CPU {spread([r.connect_cpu for r in runs], unit=' s')}), "
            f"lone first frame while connected {spread([r.lone_while for r in runs], ms, ' ms')}")
    if not played:
        return head + f", {sum(r.connected == r.n for r in runs)}/{len(runs)} runs all connected"
    return head + (f", p50 {spread([r.p50 for r in runs], ms)} / p95 {spread([r.p95 for r in runs], ms)} / "
                   f"p99 {spread([r.p99 for r in runs], ms)} ms, CPU/action {spread([r.cpu_ms for r in runs])} ms, "
                   f"{sum(r.ok for r in runs)}/{len(runs)} runs all connected and paired")


async def run(args: argparse.Namespace, n: int, env: dict[str, str], tree: Path, *, play: bool = True) -> Run:
    """One server, ``n`` sessions: arrivals, then (``play``) pairing and play; prints its figures."""
    data_dir = tempfile.mkdtemp(prefix="voltage-load-")
    gc_log = Path(data_dir) / "gc-probe.log"
    lag_log = Path(data_dir) / "lag-probe.log"
    env = dict(env, VOLTAGE_LOAD_GC_LOG=str(gc_log), VOLTAGE_LOAD_LAG_LOG=str(lag_log))
    handles_log = Path(data_dir) / "handles-probe.log"
    if args.handles:
        env["VOLTAGE_LOAD_HANDLES_LOG"] = str(handles_log)
    limits = ["--max-connections", str(n + 100), "--max-per-address", str(n + 100)]
    if "--max-startups" in (tree / "voltage" / "cli.py").read_text():
        # Every client comes from one address: the budgets of connections not yet logged in
        # (what holds off a real flood of silent sockets) must let the arrivals through.
        budget = f"{n + 100}:100:{n + 100}"
        limits += ["--max-startups", budget, "--max-startups-per-address", budget]
    proc = subprocess.Popen(
        [sys.executable, "-c", PROBE_BOOT, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir,
         *limits],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tree, env=env,
    )
    server_lines: list[str] = []
    port_seen = threading.Event()
    result = Run(n)

    def drain() -> None:  # never let the server block on a full pipe
        assert proc.stdout is not None
        for line in proc.stdout:
            server_lines.append(line.rstrip("\n"))
            if "serving on port" in line:
                port_seen.set()
        port_seen.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    await asyncio.get_running_loop().run_in_executor(None, port_seen.wait, 60)
    port = None
    for line in server_lines:
        m = re.search(r"serving on port (\d+)", line)
        if m:
            port = int(m.group(1))
    if port is None:
        print("the server did not start:", *server_lines[-5:], sep="\n", file=sys.stderr)
        proc.kill()
        return result
    mono = time.monotonic
    gc_windows: tuple = ()
    client_lag: list[float] = []
    ms = lambda s: f"{s * 1000:.0f} ms"  # noqa: E731

    async def lone_frames(label: str) -> list[float]:
        """Lone players connecting one at a time: the time to the lobby on their screen."""
        lone = []
        for i in range(args.lone):
            p = Player(f"{label}{i}")
            t0 = time.perf_counter()
            await p.connect(port)
            await p.wait_for("Your name")
            lone.append(time.perf_counter() - t0)
            await p.close()
            await asyncio.sleep(0.05)
        return lone

    players: list[Player] = []
    machine = watching()
    try:
        await asyncio.sleep(0.5)
        # 1. A lone connecting player: time to the lobby on screen.
        lone = await lone_frames("lone")
        result.lone = statistics.median(lone)
        await asyncio.sleep(1.0)
        idle_rss = server_only_rss_kb(proc.pid)

        # 2. N sessions, named (the arrivals), then a lone player again while they are there.
        players = [Player(f"p{i}") for i in range(n)]
        first_frames: list[float] = []
        failed = 0

        async def arrive(p: Player) -> None:
            nonlocal failed
            try:
                t0 = time.perf_counter()
                await p.connect(port)
                await p.wait_for("Your name", timeout=60)
                first_frames.append(time.perf_counter() - t0)
                p.channel.write(b"\r")
                await p.wait_for(f"you: {p.name}", timeout=60)  # named: the menu has the focus
            except Exception:
                failed += 1

        t_arrive, cpu_arrive = mono(), cpu_seconds(proc.pid)
        for i in range(0, n, args.connect_batch):
            await asyncio.gather(*(arrive(p) for p in players[i : i + args.connect_batch]))
        result.connect_s = mono() - t_arrive
        result.connect_cpu = cpu_seconds(proc.pid) - cpu_arrive
        result.connected = n - failed
        await asyncio.sleep(1.5)  # (the lobby told everyone of the last arrivals)
        lone_while = await lone_frames("while")
        result.lone_while = statistics.median(lone_while)
        rss_lobby = server_only_rss_kb(proc.pid)
        print(f"voltage serve: {n} arrivals ({args.connect_batch} at a time): {result.connected} named in "
              f"{result.connect_s:.1f} s (server CPU {result.connect_cpu:.1f} s); first frame while they arrive: "
              f"median {ms(pct(first_frames, 50))},"
              f" p95 {ms(pct(first_frames, 95))}; a lone player's first frame (median of {len(lone)}): "
              f"{ms(result.lone)} before, {ms(result.lone_while)} while {n} are in the lobby; "
              f"memory {(rss_lobby - idle_rss) / n / 1024:.2f} MB per session in the lobby")
        if not play:
            result.mb_per_session = (rss_lobby - idle_rss) / n / 1024
            return result

        # 3. Paired through quick match; the queue pairs them as they come.
        live = [p for p in players if not p.closed and p.chan is not None]
        for p in live:
            p.channel.write(b"\r")
            await asyncio.sleep(0.01)
        got = await asyncio.gather(*(p.wait_for("VOLTAGE", timeout=120) for p in live), return_exceptions=True)
        result.paired = sum(not isinstance(g, BaseException) for g in got)
        await asyncio.sleep(1.0)
        rss_start = server_only_rss_kb(proc.pid)

        # 4. Play.
        latencies: list[float] = []
        tally = {"rematches": 0}
        samples: list[tuple[float, int]] = [(0.0, rss_start)]
        t_play = mono()
        stop_at = t_play + args.seconds
        server_cpu, client_cpu = cpu_seconds(proc.pid), time.process_time()
        received = sum(p.received for p in players)

        async def sample() -> None:
            while mono() < stop_at:
                await asyncio.sleep(min(args.sample, max(0.0, stop_at - mono())))
                samples.append((mono() - t_play, server_only_rss_kb(proc.pid)))

        sampler = asyncio.ensure_future(sample())
        lagger = asyncio.ensure_future(note_lag(client_lag, stop_at))
        counts = await asyncio.gather(*(play_turns(p, stop_at, latencies, args.pace, tally) for p in live))
        t_end = mono()
        sampler.cancel()
        lagger.cancel()
        played = t_end - t_play
        server_cpu = cpu_seconds(proc.pid) - server_cpu
        client_cpu = time.process_time() - client_cpu
        received = sum(p.received for p in players) - received
        await asyncio.sleep(2.0)
        rss_after = server_only_rss_kb(proc.pid)

        total = sum(counts)
        per_action = max(1, total)
        lo, hi = args.pace
        result.p50, result.p95, result.p99 = pct(latencies, 50), pct(latencies, 95), pct(latencies, 99)
        result.cpu_ms = server_cpu * 1000 / per_action
        result.mb_per_session = (rss_start - idle_rss) / n / 1024
        print(f"voltage serve load: {n} sessions, {n // 2} matches, {args.seconds:.0f} s of play, "
              f"pace {lo:g}-{hi:g} s; server from {tree}")
        print(f"paired: {result.paired}/{n}; actions played: {total} ({total / played:.1f}/s, "
              f"{total / played / (n // 2):.2f}/s per match), {tally['rematches']} rematch requests")
        print(f"keypress-to-frame latency over {len(latencies)} keys: p50 {ms(result.p50)}, "
              f"p95 {ms(result.p95)}, p99 {ms(result.p99)}, max {ms(max(latencies, default=0))}")
        print(f"server per action: {result.cpu_ms:.1f} ms CPU,"
              f" {received / per_action / 1024:.1f} KiB sent")
        print(f"CPU while playing: server {server_cpu / played:.0%} of a core, these clients {client_cpu / played:.0%}"
              f" of a core = {client_cpu / max(server_cpu, 1e-9):.2f} x the server's (target <= 0.33)")
        print(f"server memory: idle {idle_rss / 1024:.1f} MB, with {n} sessions {rss_start / 1024:.1f} MB, "
              f"after play {rss_after / 1024:.1f} MB:"
              f" {(rss_start - idle_rss) / n / 1024:.2f} MB per session at the start,"
              f" {(rss_after - idle_rss) / n / 1024:.2f} after play")
        if len(samples) > 2:
            print("server memory while playing (s: MB): "
                  + ", ".join(f"{t:.0f}: {kb / 1024:.0f}" for t, kb in samples)
                  + f"; growth {(samples[-1][1] - samples[0][1]) / 1024:+.1f} MB")
        gc_windows = (("while playing", t_play, t_end), ("whole run", 0.0, float("inf")))
    finally:
        result.machine = machine.stop().text()
        print(result.machine)
        for p in players:
            await p.close()
        proc.terminate()
        try:
            await asyncio.get_running_loop().run_in_executor(None, proc.wait, 20)
        except subprocess.TimeoutExpired:
            proc.kill()
        reader.join(5)
    for label, t_from, t_to in gc_windows:
        print(f"gc pauses (probe), {label}: {gc_text(gc_figures(gc_log, t_from, t_to))}")
    for label, t_from, t_to in gc_windows[:1]:
        print(f"server's loop lag (probe), {label}: {lag_text(lag_figures(lag_log, t_from, t_to))}")
        if client_lag:
            print(f"these clients' loop lag, {label}: {lag_text(lag_summary(client_lag))}")
        if args.handles:
            callbacks = handles_figures(handles_log, t_from, t_to)
            print(f"the server's loop callbacks (probe), {label}: {handles_text(callbacks)}")
    if args.server_log is not None:
        args.server_log.write_text("".join(line + "\n" for line in server_lines))
    own = [line for line in server_lines if "gc pauses since start" in line]
    if own:
        print("the server's own gc line:", own[-1].split("gcpolicy: ", 1)[-1])
    return result


def sizes(text: str) -> list[int]:
    """``100:500:50`` -> 100, 150, ... 500; ``100,300`` -> 100, 300."""
    if ":" in text:
        lo, hi, step = (int(v) for v in text.split(":"))
        return list(range(lo, hi + 1, step))
    return [int(v) for v in text.split(",")]


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", "-n", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60.0, help="how long the matches play")
    ap.add_argument("--lone", type=int, default=15, help="lone connections timed for the first frame")
    ap.add_argument("--pace", type=parse_pace, default=(0.8, 1.2),
                    help="seconds a player takes per decision: a number (+-20%%) or a range like 2-5 (default 1)")
    ap.add_argument("--connect-batch", type=int, default=10, help="connections opened at once")
    ap.add_argument("--tree", type=Path, default=HERE, help="the checkout whose server runs (default: this one)")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                    help="an environment variable for the server (e.g. VOLTAGE_GC=off); repeatable")
    ap.add_argument("--server-log", type=Path, default=None, help="write the server's output to this file")
    ap.add_argument("--handles", action="store_true",
                    help="also time every callback of the server's loop: the play window's shares by name")
    ap.add_argument("--sample", type=float, default=30.0, help="seconds between memory samples while playing")
    ap.add_argument("--repeat", type=int, default=1, help="run each point this many times; the spread is printed")
    ap.add_argument("--ramp", type=sizes, default=None, metavar="LO:HI:STEP",
                    help="session counts, growing (100:500:50 or 100,200,300): the capacity, the largest whose "
                         "p95 stays within --p95 with every session connected and paired (stops at the first "
                         "that does not)")
    ap.add_argument("--p95", type=float, default=150.0, help="the p95 (ms) a point of --ramp must keep")
    ap.add_argument("--arrivals", type=sizes, default=None, metavar="N,N",
                    help="only arrivals: for each count, the time for that many to arrive and a lone player's "
                         "first frame while they are there (no play); the last against the first as a ratio")
    args = ap.parse_args()
    env = dict(os.environ)
    for item in args.env:
        key, eq, value = item.partition("=")
        if not eq or not key:
            ap.error(f"--env takes KEY=VALUE, not {item!r}")
        env[key] = value
    tree = args.tree.resolve()
    if not (tree / "voltage" / "cli.py").is_file():
        ap.error(f"--tree: {tree} is not a Voltage checkout (no voltage/cli.py)")
    env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    even = lambda n: n - n % 2  # noqa: E731
    if args.arrivals:
        points = {n: [await run(args, even(n), env, tree, play=False) for _ in range(args.repeat)]
                  for n in args.arrivals}
        print(f"arrivals, server from {tree}:")
        for runs in points.values():
            print("  " + summary(runs))
        first, last = list(points.values())[0], list(points.values())[-1]
        if len(points) > 1:
            a = statistics.median(r.connect_s for r in first)
            b = statistics.median(r.connect_s for r in last)
            print(f"  {last[0].n} arrivals take {b / a:.2f} x the time of {first[0].n} ({b:.1f} s vs {a:.1f} s)")
            a = statistics.median(r.connect_cpu for r in first)
            b = statistics.median(r.connect_cpu for r in last)
            print(f"  and {b / a:.2f} x the server's CPU ({b:.1f} s vs {a:.1f} s)")
        return 0
    if args.ramp:
        capacity = 0
        for n in args.ramp:
            runs = [await run(args, even(n), env, tree) for _ in range(args.repeat)]
            p95 = statistics.median(r.p95 for r in runs)
            ok = all(r.ok for r in runs) and p95 * 1000 <= args.p95
            print(f"ramp: {summary(runs)}: {'within' if ok else 'past'} p95 <= {args.p95:g} ms")
            for r in runs:
                print(f"    ({r.machine})")
            if not ok:
                break
            capacity = even(n)
        print(f"capacity (server from {tree}): {capacity} sessions at pace {args.pace[0]:g}-{args.pace[1]:g} s "
              f"with p95 <= {args.p95:g} ms, every session connected and paired"
              + (f" (the first point, {args.ramp[0]}, did not hold)" if not capacity else ""))
        return 0
    n = even(args.sessions)
    if n < 2:
        ap.error("--sessions: at least 2")
    runs = [await run(args, n, env, tree) for _ in range(args.repeat)]
    if len(runs) > 1:
        print(summary(runs))
        for r in runs:
            print(f"    ({r.machine})")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
