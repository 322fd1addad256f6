"""Denial of service without credentials, measured: what one attacker costs everyone else.

    python benchmarks/attack.py [--quick]

The server (the real app, no store) runs in a child process, so the clients'
own work does not count as the server's; the clients are real asyncssh
connections.  Scenarios:

1. **flood**: one session writes a burst (16 KB, 64 KB of keys; 1 MB of
   unterminated escape sequences) in one go while a probe session, on the name
   screen, types a key every 100 ms; printed: the probe's keypress-to-screen
   latency (max, p95) over the window, and whether the flooder was closed.
2. **not reading**: two clients advertise a 1 GiB window (and a 4 KB socket
   receive buffer), stop reading and keep asking for 1000x500 <-> 999x499 (and, as an attacker would adapt,
   400x200 <-> 399x199, under the new clamp); printed: the server's RSS
   growth, the probe's latency, and when the server closed them.
3. **ended sessions**: N sessions log in, choose a name, and leave; printed:
   the server's RSS kept per ended session after a full collection, and how
   many App objects are still alive.
4. **slots**: 20 silent sockets from one address; printed: how long a real
   login from that address then takes.

To compare with an older tree, run the same script from that tree (it only
uses what both have): ``git worktree add /tmp/old 66a292d; cp
benchmarks/attack.py /tmp/old/benchmarks/; python /tmp/old/benchmarks/attack.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


# -- the server (child process) ------------------------------------------------


def serve() -> None:
    """Run a server; print its port; answer ``gc`` on stdin with RSS and live apps."""
    from concurrent.futures import ThreadPoolExecutor

    from textual.app import App

    from server.config import ServerConfig
    from server.serve import local_sessions
    from server.session.app import harden_app
    from server.ssh.server import VoltageServer
    from tui.app import make_app

    def factory(backend, player_name):
        return harden_app(make_app(backend, player_name=player_name))

    async def main() -> None:
        config = ServerConfig(host="127.0.0.1", port=0)
        srv = VoltageServer(config, local_sessions(config, executor=ThreadPoolExecutor(1), app_factory=factory))
        await srv.start()
        print(json.dumps({"port": srv.port}), flush=True)
        loop = asyncio.get_running_loop()
        done = asyncio.Event()

        def on_line() -> None:
            line = sys.stdin.readline()
            if not line:
                done.set()
                return
            gc.collect()
            apps = sum(1 for o in gc.get_objects() if isinstance(o, App))
            sessions = srv.sessions.running
            print(json.dumps({"rss_kb": rss_kb(os.getpid()), "apps": apps, "sessions": sessions}), flush=True)

        loop.add_reader(sys.stdin.fileno(), on_line)
        await done.wait()
        srv.close()

    asyncio.run(main())


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Server:
    def __enter__(self) -> Server:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            stderr=subprocess.DEVNULL,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None  # both piped
        self.stdin, self.stdout = self.proc.stdin, self.proc.stdout
        self.port = json.loads(self.stdout.readline())["port"]
        return self

    def stats(self) -> dict:
        self.stdin.write("gc\n")
        self.stdin.flush()
        return json.loads(self.stdout.readline())

    def rss_kb(self) -> int:
        return rss_kb(self.proc.pid)

    def __exit__(self, *exc) -> None:
        self.proc.kill()
        self.proc.wait()


# -- the clients -------------------------------------------------------------


async def probe_latencies(t, stop_at: float, every: float = 0.1, cap: float = 60.0) -> list[float]:
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


def fmt(lat: list[float]) -> str:
    if not lat:
        return "no samples"
    q = statistics.quantiles(lat, n=20)[-1] if len(lat) >= 2 else lat[0]
    return f"keypress-to-screen max {max(lat) * 1000:.0f} ms, p95 {q * 1000:.0f} ms ({len(lat)} keys)"


async def probe(port: int):
    from tests.support.terminal import Terminal

    t = await Terminal(100, 32).connect(port, "probe")
    await t.wait_for("Your name")
    t.send("\x15")
    await t.wait_for(r"Your name")
    return t


async def flood(srv: Server, label: str, payload: bytes, window: float) -> None:
    from tests.support.terminal import Terminal

    p = await probe(srv.port)
    a = await Terminal(100, 32).connect(srv.port, "flood")
    await a.wait_for("Your name")
    await asyncio.sleep(0.3)
    t0 = time.monotonic()
    a.channel.write(payload)
    lat = await probe_latencies(p, t0 + window)
    closed = f"flooder closed after {a.closed_at - t0:.1f} s" if a.closed_at is not None else "flooder still connected"
    print(f"  flood {label:<22} {fmt(lat)}; {closed}", flush=True)
    await a.close()
    await p.close()


async def not_reading(srv: Server, sizes: list[tuple[int, int]], seconds: float) -> None:
    from tests.support.terminal import Terminal

    p = await probe(srv.port)
    rss0 = srv.rss_kb()
    bad = []
    for name in ("sink1", "sink2"):
        # A small receive buffer (set before connecting, as an attacker would), so the
        # kernel's buffers do not hide for minutes what piles up in the server.
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", srv.port))
        t = await Terminal(200, 60).connect(srv.port, name, window=1 << 30, sock=sock)
        await t.wait_for("Your name")
        assert t.conn is not None and t.conn._transport is not None
        t.conn._transport.pause_reading()  # asyncssh's own transport: a client that stops reading
        bad.append(t)
    t0 = time.monotonic()
    peak = rss0

    async def resize_forever() -> None:
        nonlocal peak
        i = 0
        while time.monotonic() - t0 < seconds:
            for t in bad:
                if not t.closed.is_set():
                    t.channel.change_terminal_size(*sizes[i % 2])
            i += 1
            peak = max(peak, srv.rss_kb())
            await asyncio.sleep(0.05)

    task = asyncio.get_running_loop().create_task(resize_forever())
    lat = await probe_latencies(p, t0 + seconds)
    await task
    closed = [f"{t.closed_at - t0:.0f} s" if t.closed_at is not None else "never" for t in bad]
    print(f"  not reading {sizes[0][0]}x{sizes[0][1]}: RSS +{(peak - rss0) / 1024:.0f} MB in {seconds:.0f} s "
          f"(peak {peak / 1024:.0f} MB); {fmt(lat)}; closed: {', '.join(closed)}", flush=True)
    for t in bad:
        if t.conn is not None and t.conn._transport is not None:
            t.conn._transport.abort()
    await p.close()


async def ended(srv: Server, n: int) -> None:
    from tests.support.terminal import Terminal

    async def one(i: int) -> None:
        t = await Terminal(100, 32).connect(srv.port, f"u{i}")
        await t.wait_for("Your name")
        t.press("enter")
        await t.wait_for(f"you: u{i}")
        t.press("down", "up")
        await t.close()

    async def settled() -> dict:
        # every session ended, and a moment for their tasks to finish
        for _ in range(200):
            s = srv.stats()
            if s["sessions"] == 0:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)
        return srv.stats()

    for i in range(3):  # warm up: caches, imports
        await one(1000 + i)
    s0 = await settled()
    for i in range(n):
        await one(i)
    s1 = await settled()
    print(f"  ended sessions: {n} ended, RSS +{(s1['rss_kb'] - s0['rss_kb']) / n:.0f} KB per ended session, "
          f"live apps {s0['apps']} -> {s1['apps']}", flush=True)


async def slots(srv: Server) -> None:
    from tests.support.terminal import ssh_connect

    socks = [await asyncio.open_connection("127.0.0.1", srv.port) for _ in range(20)]
    t0 = time.monotonic()
    tries = 0
    while True:
        tries += 1
        try:
            conn = await asyncio.wait_for(ssh_connect(srv.port), 40)
            async with conn:
                await conn.run("who")
            break
        except Exception:
            if time.monotonic() - t0 > 60:
                print("  slots: no login in 60 s", flush=True)
                break
            await asyncio.sleep(0.2)
    else:  # pragma: no cover
        pass
    print(f"  slots: with 20 silent sockets open, a login from that address took {time.monotonic() - t0:.1f} s "
          f"({tries} tries)", flush=True)
    for _r, w in socks:
        w.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="shorter windows, fewer sessions")
    ap.add_argument("--only", default="flood,reading,ended,slots")
    args = ap.parse_args()
    if args.serve:
        serve()
        return
    only = set(args.only.split(","))
    window = 10.0 if args.quick else 20.0

    async def run() -> None:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
        print(f"tree: {ROOT}  ({head})")
        if "flood" in only:
            for label, payload in (
                ("16 KB of keys", b"a" * 16384),
                ("64 KB of keys", b"a" * 65536),
                ("1 MB of open escapes", (b"\x1b[" + b"9;" * 7) * 65536),
            ):
                with Server() as srv:
                    await flood(srv, label, payload, window)
        if "reading" in only:
            for sizes in ([(1000, 500), (999, 499)], [(400, 200), (399, 199)]):
                with Server() as srv:
                    # longer than the 30 s a session's output may stay stuck
                    await not_reading(srv, sizes, 25.0 if args.quick else 45.0)
        if "ended" in only:
            with Server() as srv:
                await ended(srv, 40 if args.quick else 100)
        if "slots" in only:
            with Server() as srv:
                await slots(srv)

    asyncio.run(run())


if __name__ == "__main__":
    main()
