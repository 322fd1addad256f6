"""Load benchmark for ``voltage serve``: N concurrent SSH sessions playing N/2 matches.

    python benchmarks/load.py --sessions 200 --seconds 60

Starts ``voltage serve`` in a subprocess on a free port, then from this process:

1. connects lone players one at a time and times the first frame (connect,
   SSH handshake, PTY, until the lobby is on the screen);
2. opens N sessions, names them, pairs them through quick match;
3. plays for ``--seconds``: whoever is to move acts about once a second per
   match, by keystrokes chosen from what its screen (a pyte terminal) shows;
   every key that should change the screen is timed until the next output
   from the server (keypress-to-frame latency);
4. prints the first-frame median, the latency p50/p95/p99, and the server's
   resident memory per session (RSS growth from the idle server, divided by N).

This is a benchmark, not a test: it prints figures and asserts nothing.  The
clients share the machine with the server (this process takes a core).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

import asyncssh
import pyte

PROMPT_FLIP = "You drew a transformer"
PROMPT_PASS = "You cannot act"
PROMPT_SECOND = ("Second card", "No second card")
PROMPT_START = "Your turn: play a card, or draw two"
PROMPT_FULL = "Your turn: play a card (your hand is full"
PROMPT_SIDE = "side or yours?"
PROMPT_TERMINAL = "which terminal?"
PROMPT_TARGET = "which card does it"


class Guest(asyncssh.SSHClient):
    def kbdint_auth_requested(self):
        return ""

    def kbdint_challenge_received(self, name, instructions, lang, prompts):
        return ["" for _ in prompts]


class Player:
    def __init__(self, name: str, width: int = 100, height: int = 32) -> None:
        self.name = name
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.width, self.height = width, height
        self.conn = None
        self.chan = None
        self.output = asyncio.Event()
        self.closed = False
        self.t_first: float | None = None

    async def connect(self, port: int) -> None:
        self.conn = await asyncssh.connect(
            "127.0.0.1", port, username=self.name, known_hosts=None, client_factory=Guest,
            client_keys=None, agent_path=None, preferred_auth="keyboard-interactive",
        )
        me = self

        class Session(asyncssh.SSHClientSession):
            def data_received(self, data, datatype):
                me.stream.feed(data)
                me.output.set()

            def connection_lost(self, exc):
                me.closed = True
                me.output.set()

        self.chan, _ = await self.conn.create_session(
            Session, term_type="xterm-256color", term_size=(self.width, self.height), encoding=None
        )

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def wait_for(self, pattern: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.text()):
            left = deadline - time.monotonic()
            if left <= 0 or self.closed:
                raise TimeoutError(f"{self.name}: no {pattern!r} on screen:\n{self.text()}")
            self.output.clear()
            try:
                await asyncio.wait_for(self.output.wait(), min(left, 1.0))
            except asyncio.TimeoutError:
                pass

    async def key(self, key: str, latencies: list[float] | None, timeout: float = 3.0) -> bool:
        """Send one key; with ``latencies``, time it until the server's next output."""
        self.output.clear()
        t0 = time.perf_counter()
        self.chan.write(key.encode())
        try:
            await asyncio.wait_for(self.output.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        if latencies is not None:
            latencies.append(time.perf_counter() - t0)
        # Let the rest of the frame arrive before reading the screen.
        while True:
            self.output.clear()
            try:
                await asyncio.wait_for(self.output.wait(), 0.03)
            except asyncio.TimeoutError:
                return True

    async def close(self) -> None:
        if self.conn is not None:
            self.conn.close()


def server_rss_kb(pid: int) -> int:
    """Resident memory of the server and its children (bot workers), in KiB."""
    total = 0
    pids = [pid]
    try:
        out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
        pids += [int(p) for p in out.split()]
    except FileNotFoundError:
        pass
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def server_only_rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
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


async def play_turns(p: Player, stop_at: float, latencies: list[float], pace: float) -> int:
    """Act whenever the screen says it is this player's turn, about once per ``pace`` s."""
    actions = 0
    rng = random.Random(p.name)
    while time.monotonic() < stop_at and not p.closed:
        text = p.text()
        if "to reconnect" in text:
            break
        mine = any(s in text for s in (PROMPT_FLIP, PROMPT_PASS, PROMPT_START, PROMPT_FULL, *PROMPT_SECOND))
        if not mine:
            p.output.clear()
            try:
                await asyncio.wait_for(p.output.wait(), 1.0)
            except asyncio.TimeoutError:
                pass
            continue
        await asyncio.sleep(pace * rng.uniform(0.8, 1.2))
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


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", "-n", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60.0, help="how long the matches play")
    ap.add_argument("--lone", type=int, default=15, help="lone connections timed for the first frame")
    ap.add_argument("--pace", type=float, default=1.0, help="seconds between a match's actions")
    ap.add_argument("--connect-batch", type=int, default=10, help="connections opened at once")
    args = ap.parse_args()
    n = args.sessions - args.sessions % 2

    data_dir = tempfile.mkdtemp(prefix="voltage-load-")
    proc = subprocess.Popen(
        [sys.executable, "-m", "voltage", "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir,
         "--max-connections", str(n + 100), "--max-per-address", str(n + 100)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    port = None
    line = ""
    for line in proc.stdout:
        m = re.search(r"serving on port (\d+)", line)
        if m:
            port = int(m.group(1))
            break
    if port is None:
        print("the server did not start:", line, file=sys.stderr)
        return 1
    try:
        await asyncio.sleep(0.5)
        idle_rss = server_only_rss_kb(proc.pid)

        # 1. A lone connecting player: time to the lobby on screen.
        lone = []
        for i in range(args.lone):
            p = Player(f"lone{i}")
            t0 = time.perf_counter()
            await p.connect(port)
            await p.wait_for("Your name")
            lone.append(time.perf_counter() - t0)
            await p.close()
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        idle_rss = min(idle_rss, server_only_rss_kb(proc.pid)) or idle_rss
        idle_rss = server_only_rss_kb(proc.pid)

        # 2. N sessions, named, paired through quick match.
        players = [Player(f"p{i}") for i in range(n)]
        first_frames = []

        async def arrive(p: Player) -> None:
            t0 = time.perf_counter()
            await p.connect(port)
            await p.wait_for("Your name", timeout=60)
            first_frames.append(time.perf_counter() - t0)
            p.chan.write(b"\r")
            await p.wait_for(f"you: {p.name}", timeout=60)  # named: the menu has the focus

        t_connect = time.perf_counter()
        for i in range(0, n, args.connect_batch):
            await asyncio.gather(*(arrive(p) for p in players[i : i + args.connect_batch]))
        t_connect = time.perf_counter() - t_connect
        for p in players:  # everyone asks for a quick match; the queue pairs them as they come
            p.chan.write(b"\r")
            await asyncio.sleep(0.01)
        await asyncio.gather(*(p.wait_for("VOLTAGE", timeout=120) for p in players))
        await asyncio.sleep(1.0)
        rss = server_only_rss_kb(proc.pid)
        per_session_mb = (rss - idle_rss) / n / 1024

        # 3. Play.
        latencies: list[float] = []
        stop_at = time.monotonic() + args.seconds
        t_play = time.monotonic()
        server_cpu, client_cpu = cpu_seconds(proc.pid), time.process_time()
        counts = await asyncio.gather(*(play_turns(p, stop_at, latencies, args.pace) for p in players))
        t_play = time.monotonic() - t_play
        server_cpu = (cpu_seconds(proc.pid) - server_cpu) / t_play
        client_cpu = (time.process_time() - client_cpu) / t_play
        rss_after = server_only_rss_kb(proc.pid)

        ms = lambda s: f"{s * 1000:.0f} ms"  # noqa: E731
        print(f"voltage serve load: {n} sessions, {n // 2} matches, {args.seconds:.0f} s of play, pace {args.pace} s")
        print(f"first frame, lone player (median of {len(lone)}): {ms(statistics.median(lone))}"
              f"  (min {ms(min(lone))}, max {ms(max(lone))})")
        print(f"first frame while {n} arrive ({args.connect_batch} at a time): median {ms(statistics.median(first_frames))},"
              f" p95 {ms(pct(first_frames, 95))}; all connected in {t_connect:.1f} s")
        total = sum(counts)
        print(f"actions played: {total} ({total / t_play:.1f}/s, {total / t_play / (n // 2):.2f}/s per match)")
        print(f"keypress-to-frame latency over {len(latencies)} keys: p50 {ms(pct(latencies, 50))}, "
              f"p95 {ms(pct(latencies, 95))}, p99 {ms(pct(latencies, 99))}")
        print(f"CPU while playing: server {server_cpu:.0%} of a core, these clients {client_cpu:.0%} of a core"
              f" (a figure near 100% is the bottleneck)")
        print(f"server memory: idle {idle_rss / 1024:.1f} MB, with {n} sessions {rss / 1024:.1f} MB "
              f"(after play {rss_after / 1024:.1f} MB): {per_session_mb:.2f} MB per session")
        for p in players:
            await p.close()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
