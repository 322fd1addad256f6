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
5. **readers** (issue 33, item 1): fifty sessions, one per address (127.0.5.1-50), each with a
   400x200 terminal, a 1 GiB SSH window and a 4 KB socket receive buffer, reach the lobby, stop
   reading and change their width between 400 and 399 every 0.1 s; printed: the server's RSS before,
   at its peak and once they are gone (5 s after, the server left to itself), when each was closed,
   and how long a normal login took meanwhile (its name screen shown).  "Before" is taken on a
   server that has had players: three reached the lobby (80x24, 400x200, 120x40) and left first.
6. **packets** (item 2): one client (a process of its own, so its work does not slow the
   measuring) sends 100,000 one-byte SSH packets while a probe session types a key every 100 ms;
   printed: the probe's keypress-to-screen latency over the window and when the flooder was closed.
7. **resizes** (item 3): one session sends 10,000 window-change requests (0x0, 100000x100000,
   65535x65535 among the sizes), three times; printed: the server's RSS after each round.

In scenarios 5-7 the server installs the collector policy, as ``voltage serve`` does
(``server.gcpolicy``: what survives is frozen, so a reference cycle left behind is never freed),
and in every scenario it runs on the allocator ``voltage serve`` runs on (``server/memory.py``:
the C allocator, in a tree that has that module).

To compare with an older tree, run the same script from that tree (it only uses what both have):
``git archive OLD | tar -x -C /tmp/old; cp benchmarks/attack.py benchmarks/probe.py /tmp/old/benchmarks/;
PYTHONPATH=/tmp/old python /tmp/old/benchmarks/attack.py``.  ``--only readers,packets,resizes`` runs
the issue 33 scenarios alone; ``--json FILE`` keeps the figures, and ``--old FILE`` (an older tree's
``--json``) prints them beside these.  ``--waves N`` runs the readers N times on one server (is what
stays after them reused by the next wave, or does it grow?).  To see what stays, ``ATTACK_WHY=1``
prints (on stderr, after the readers) the live objects, the strings they hold, the memory regions
and pymalloc's arenas; ``ATTACK_TRACEMALLOC=1`` what was allocated since the readers came and is
still alive (slow: the server runs several times slower under tracemalloc; ``ATTACK_DEPTH=1`` keeps
one frame per allocation, ``ATTACK_FRAMES`` how many are printed).
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
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parent))  # (probe.py beside it)
from probe import fmt, p95, probe_latencies  # noqa: E402

# -- the server (child process) ------------------------------------------------


def serve(policy: bool = False) -> None:
    """Run a server; print its port; answer ``gc`` on stdin with RSS and live apps after a
    collection, ``rss`` with RSS as it is."""
    from concurrent.futures import ThreadPoolExecutor

    from textual.app import App

    from server import gcpolicy
    from server.config import ServerConfig
    from server.serve import local_sessions
    from server.session.app import harden_app
    from server.ssh.server import VoltageServer
    from tui.app import make_app

    def factory(backend, player_name):
        return harden_app(make_app(backend, player_name=player_name))

    async def main() -> None:
        if os.environ.get("ATTACK_TRACEMALLOC"):
            import tracemalloc

            tracemalloc.start(int(os.environ.get("ATTACK_DEPTH", "25")))
        config = ServerConfig(host="127.0.0.1", port=0)
        try:  # (these scenarios open many sessions from 127.0.0.1: no budget of new sessions here)
            from server.session.budget import StartLimits

            config.session_starts = StartLimits(1e6, 1e-6, 1e6, 1e6)
        except ImportError:  # (an older tree: it had none)
            pass
        srv = VoltageServer(config, local_sessions(config, executor=ThreadPoolExecutor(1), app_factory=factory))
        await srv.start()
        if policy:
            gcpolicy.install()  # as voltage serve does
        print(json.dumps({"port": srv.port}), flush=True)
        loop = asyncio.get_running_loop()
        done = asyncio.Event()

        def on_line() -> None:
            line = sys.stdin.readline()
            if not line:
                done.set()
                return
            if line.strip() == "rss":
                print(json.dumps({"rss_kb": rss_kb(os.getpid()), "sessions": srv.sessions.running}), flush=True)
                return
            if line.strip() in ("mark", "top") and os.environ.get("ATTACK_TRACEMALLOC"):
                # (diagnosis: what was allocated since "mark" and is still alive, by where it was)
                import tracemalloc

                gc.unfreeze()  # (the collector policy's frozen garbage is not what stays)
                gc.collect()
                snap = tracemalloc.take_snapshot()
                if line.strip() == "mark":
                    globals()["_MARK"] = snap
                else:
                    for stat in snap.compare_to(globals()["_MARK"], "traceback")[:30]:
                        print(stat, file=sys.stderr)
                        for frame in stat.traceback.format()[-int(os.environ.get("ATTACK_FRAMES", "16")):]:
                            print("   ", frame, file=sys.stderr)
                print(json.dumps({}), flush=True)
                return
            if line.strip() == "why":  # (diagnosis) what holds the apps still alive, and what is alive
                gc.unfreeze()
                gc.collect()
                counts: dict[str, int] = {}
                for o in gc.get_objects():
                    counts[type(o).__name__] = counts.get(type(o).__name__, 0) + 1
                print(sorted(counts.items(), key=lambda kv: -kv[1])[:40], file=sys.stderr)
                big = sorted((o for o in gc.get_objects() if isinstance(o, (bytearray, list, dict))),
                             key=sys.getsizeof, reverse=True)[:10]
                print([(type(o).__name__, sys.getsizeof(o)) for o in big], file=sys.stderr)
                seen: set[int] = set()
                held: dict[str, list[int]] = {}
                for o in gc.get_objects():
                    for r in gc.get_referents(o):
                        if isinstance(r, (bytes, str, bytearray)) and id(r) not in seen:
                            seen.add(id(r))
                            k = f"{type(r).__name__} in {type(o).__name__}"
                            n = sys.getsizeof(r)
                            held.setdefault(k, [0, 0])
                            held[k][0] += 1
                            held[k][1] += n
                print(sorted(held.items(), key=lambda kv: -kv[1][1])[:10], file=sys.stderr)
                import ctypes

                ctypes.CDLL("libc.so.6").malloc_trim(0)
                regions: dict[str, int] = {}
                name = ""
                with open(f"/proc/{os.getpid()}/smaps") as maps:
                    for row in maps:
                        parts = row.split()
                        if "-" in parts[0] and len(parts) >= 5 and not parts[0].endswith(":"):
                            size = int(parts[0].split("-")[1], 16) - int(parts[0].split("-")[0], 16)
                            name = parts[5] if len(parts) > 5 else f"anon {size // 1024} KB"
                            if name.startswith("/"):
                                name = name.rsplit("/", 1)[-1]
                        elif parts[0] == "Rss:":
                            regions[name] = regions.get(name, 0) + int(parts[1])
                print(sorted(regions.items(), key=lambda kv: -kv[1])[:15], file=sys.stderr)
                sys._debugmallocstats()
                for app in [o for o in gc.get_objects() if isinstance(o, App)][:3]:
                    chain: list[object] = [app]
                    for _ in range(6):
                        refs = [r for r in gc.get_referrers(chain[-1]) if r is not chain and not
                                isinstance(r, type(sys._getframe()))]
                        if not refs:
                            break
                        chain.append(refs[0])
                        desc = getattr(refs[0], "__qualname__", "") or (
                            getattr(getattr(refs[0], "cr_code", None), "co_qualname", ""))
                        print("  <-", type(refs[0]).__name__, desc, repr(refs[0])[:160], file=sys.stderr)
                    print("--", file=sys.stderr)
                print(json.dumps({}), flush=True)
                return
            if line.strip() == "trim":  # what the C allocator keeps but could give back
                import ctypes

                ctypes.CDLL("libc.so.6").malloc_trim(0)
                print(json.dumps({"rss_kb": rss_kb(os.getpid())}), flush=True)
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
    def __init__(self, policy: bool = False) -> None:
        self.policy = policy

    def __enter__(self) -> Server:
        env: Any = os.environ
        try:  # the allocator `voltage serve` runs on, in a tree that chooses one
            from server import memory

            if Path(memory.__file__).resolve().is_relative_to(ROOT):  # (this tree's, not an install's)
                env = memory.c_allocator_env(["serve"], os.environ) or os.environ
        except ImportError:
            pass
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", *(["--policy"] if self.policy else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
            stderr=None if os.environ.get("ATTACK_TRACEMALLOC") or os.environ.get("ATTACK_WHY") else subprocess.DEVNULL,
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

    def command(self, what: str) -> None:
        """(``ATTACK_TRACEMALLOC=1`` only) ``mark``, then ``top``: what stayed since, on stderr."""
        if os.environ.get("ATTACK_TRACEMALLOC"):
            self.stdin.write(what + "\n")
            self.stdin.flush()
            self.stdout.readline()

    def running(self) -> int:
        """Sessions with an app running now (no collection)."""
        self.stdin.write("rss\n")
        self.stdin.flush()
        return json.loads(self.stdout.readline())["sessions"]

    def trimmed_rss_kb(self) -> int:
        """RSS once the C allocator has given back what it could (``malloc_trim``)."""
        self.stdin.write("trim\n")
        self.stdin.flush()
        return json.loads(self.stdout.readline())["rss_kb"]

    def __exit__(self, *exc) -> None:
        self.proc.kill()
        self.proc.wait()


# -- the clients -------------------------------------------------------------


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


# -- issue 33 ---------------------------------------------------------------


FIGURES: dict[str, object] = {}


def figure(key: str, value: object) -> None:
    FIGURES[key] = value


async def connect_from(port: int, address: str, name: str, width: int, height: int, **kw):
    """A test terminal connected from ``address`` (a 127.x.y.z of its own) with a 4 KB receive buffer."""
    from tests.support.terminal import Terminal

    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port))
    return await Terminal(width, height).connect(port, name, sock=sock, **kw)


async def login_time(port: int) -> float:
    """How long a normal login takes: connect, and the name screen shown."""
    from tests.support.terminal import Terminal

    t0 = time.monotonic()
    t = await Terminal(80, 24).connect(port, "normal")
    try:
        await t.wait_for("Your name", timeout=60)
        return time.monotonic() - t0
    finally:
        await t.close()


async def in_lobby(port: int, address: str, name: str, width: int, height: int, **kw):
    """A terminal logged in as ``name`` from ``address``, its lobby shown."""
    t = await connect_from(port, address, name, width, height, **kw)
    await t.wait_for("Your name", timeout=60)
    for _ in range(12):  # (an Enter before the name field has the focus is lost: again)
        t.press("enter")
        try:
            await t.wait_for(f"you: {name}", timeout=5)
            return t
        except AssertionError:
            pass
    raise AssertionError(f"{name} never reached the lobby")


async def readers(srv: Server, n: int, seconds: float, size: tuple[int, int] = (400, 200)) -> None:
    # warm up as a server that has had players: imports, caches, the collector's first freezes, and
    # a lobby drawn small and big (what a server keeps for good is made before the figure "before")
    for i, (width, height) in enumerate(((80, 24), (400, 200), (120, 40))):
        t = await in_lobby(srv.port, f"127.0.4.{i + 1}", f"w{i}", width, height)
        t.chan.change_terminal_size(width - 1, height)
        await t.wait_for(f"you: w{i}", timeout=30)
        await t.close()
    for _ in range(2):
        await login_time(srv.port)
    await asyncio.sleep(2.0)
    rss0 = srv.rss_kb()
    srv.command("mark")
    if os.environ.get("ATTACK_WHY"):
        srv.stdin.write("why\n")
        srv.stdin.flush()
        srv.stdout.readline()
    bad = []
    for i in range(n):
        t = await in_lobby(srv.port, f"127.0.5.{i + 1}", f"r{i}", *size, window=1 << 30)
        t.conn._transport.pause_reading()
        bad.append(t)
    t0 = time.monotonic()
    peak = lobby = srv.rss_kb()
    logins: list[float] = []

    async def resize_forever() -> None:
        nonlocal peak
        i = 0
        while time.monotonic() - t0 < seconds and not all(t.closed.is_set() for t in bad):
            for t in bad:
                if not t.closed.is_set():
                    t.chan.change_terminal_size(size[0] - i % 2, size[1])
            i += 1
            peak = max(peak, srv.rss_kb())
            await asyncio.sleep(0.1)

    task = asyncio.get_running_loop().create_task(resize_forever())
    started: list[float] = []  # when each login began (s after they stopped reading)
    while not task.done():
        started.append(time.monotonic() - t0)
        logins.append(await login_time(srv.port))
        await asyncio.sleep(2.0)
    await task
    closed = sorted(t.closed_at - t0 for t in bad if t.closed.is_set())
    during = srv.rss_kb()
    for t in bad:
        if t.conn is not None and t.conn._transport is not None:
            t.conn._transport.abort()
    for _ in range(300):
        if srv.running() == 0:
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(5.0)  # the collector's tick, the apps' last timers
    after = srv.rss_kb()
    srv.command("top")
    if os.environ.get("ATTACK_WHY"):
        srv.stdin.write("why\n")
        srv.stdin.flush()
        srv.stdout.readline()
    trimmed = srv.trimmed_rss_kb()
    when = (f"{len(closed)} of {n} closed, the first after {closed[0]:.0f} s, the last after {closed[-1]:.0f} s"
            if closed else f"none of {n} closed in {seconds:.0f} s")
    print(f"  readers: {n} sessions at 400x200 stop reading and resize every 0.1 s: RSS {rss0 / 1024:.0f} MB "
          f"before, {lobby / 1024:.0f} MB with them in the lobby, "
          f"peak {peak / 1024:.0f} MB, {during / 1024:.0f} MB at {seconds:.0f} s, {after / 1024:.0f} MB once "
          f"gone ({(after - rss0) / 1024:+.0f} MB; {(trimmed - rss0) / 1024:+.0f} MB after malloc_trim); {when}; "
          f"a normal login meanwhile took max "
          f"{max(logins):.2f} s (begun at {started[logins.index(max(logins))]:.0f} s), median "
          f"{statistics.median(logins):.2f} s ({len(logins)} logins)", flush=True)
    figure("readers", {"rss_before_mb": rss0 / 1024, "rss_lobby_mb": lobby / 1024, "rss_peak_mb": peak / 1024,
                       "rss_after_mb": after / 1024, "rss_trimmed_mb": trimmed / 1024,
                       "closed": len(closed), "of": n, "first_closed_s": closed[0] if closed else None,
                       "last_closed_s": closed[-1] if closed else None, "login_max_s": max(logins),
                       "login_median_s": statistics.median(logins)})


def flooder(port: int, count: int) -> None:
    """(a child process) Connect, reach the name screen, say so, and on "go" send ``count`` one-byte
    packets as fast as asyncssh makes them; print when the server closed the connection."""
    from tests.support.terminal import Terminal

    async def run() -> None:
        t = await Terminal(100, 32).connect(port, "flood")
        await t.wait_for("Your name")
        print("ready", flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        t0 = time.monotonic()
        sent = 0
        for i in range(count):
            if t.closed.is_set():
                break
            t.channel.write(b"a" if i % 2 == 0 else b"\x7f")
            sent += 1
            if i % 200 == 0:
                await asyncio.sleep(0)
        wrote = time.monotonic() - t0
        try:
            await asyncio.wait_for(t.closed.wait(), 60)
        except TimeoutError:
            pass
        closed = time.monotonic() - t0 if t.closed.is_set() else None
        print(json.dumps({"sent": sent, "wrote_s": wrote, "closed_s": closed}), flush=True)

    asyncio.run(run())


async def packets(srv: Server, count: int, window: float) -> None:
    p = await probe(srv.port)
    child = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--flooder", str(srv.port), str(count),
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert child.stdout is not None and child.stdin is not None
    assert (await child.stdout.readline()).strip() == b"ready"
    base = await probe_latencies(p, time.monotonic() + 3.0)
    t0 = time.monotonic()
    child.stdin.write(b"go\n")
    await child.stdin.drain()
    lat = await probe_latencies(p, t0 + window)
    try:  # (it writes, then waits up to 60 s to be closed)
        out = json.loads(await asyncio.wait_for(child.stdout.readline(), 240))
    except TimeoutError:
        out = {"sent": count, "wrote_s": None, "closed_s": None}
        child.kill()
    await child.wait()
    closed = f"the flooder was closed after {out['closed_s']:.1f} s" if out["closed_s"] else "never closed"
    wrote = f"{out['wrote_s']:.1f} s" if out["wrote_s"] is not None else "over 4 minutes"
    print(f"  packets: {out['sent']:,} one-byte packets (written in {wrote}): {fmt(lat)}; "
          f"before the flood {fmt(base)}; {closed}", flush=True)
    figure("packets", {"max_ms": max(lat) * 1000, "p95_ms": p95(lat) * 1000,
                       "base_max_ms": max(base) * 1000, "base_p95_ms": p95(base) * 1000,
                       "closed_s": out["closed_s"], "sent": out["sent"]})
    await p.close()


RESIZE_SIZES = [(0, 0), (100000, 100000), (65535, 65535), (80, 24), (1, 1), (120, 40), (399, 199), (200, 60),
                (65535, 1), (1, 65535)]


async def resizes(srv: Server, rounds: int, per_round: int, sessions: int, rate: float) -> None:
    """``per_round`` resizes spread over ``sessions`` sessions, each at ``rate`` a second (what a packet
    budget lets through), ``rounds`` times; then one session sends them flat out."""
    from tests.support.terminal import Terminal

    terms = []
    for i in range(sessions):
        t = await Terminal(100, 32).connect(srv.port, f"z{i}")
        await t.wait_for("Your name", timeout=60)
        terms.append(t)
    await asyncio.sleep(3.0)
    rss = [srv.rss_kb()]

    async def send(t, n: int) -> None:
        for i in range(n):
            if t.closed.is_set():
                return
            t.chan.change_terminal_size(*RESIZE_SIZES[i % len(RESIZE_SIZES)])
            if rate:
                await asyncio.sleep(1 / rate)
            elif i % 100 == 0:
                await asyncio.sleep(0)

    for _ in range(rounds):
        await asyncio.gather(*(send(t, per_round // sessions) for t in terms))
        await asyncio.sleep(3.0)  # the last ones handled, the collector's tick
        rss.append(srv.rss_kb())
    deltas = [(b - a) / 1024 for a, b in zip(rss, rss[1:], strict=False)]
    closed = sum(t.closed.is_set() for t in terms)
    # Flat out from one more session: as fast as the client makes them.
    flat_t = await Terminal(100, 32).connect(srv.port, "flat")
    await flat_t.wait_for("Your name", timeout=60)
    before = srv.rss_kb()
    t0 = time.monotonic()
    await send_flat(flat_t, per_round)
    await asyncio.sleep(3.0)
    flat = (srv.rss_kb() - before) / 1024
    closed_at = flat_t.closed_at
    fate = f"closed after {closed_at - t0:.1f} s" if closed_at is not None else "not closed"
    print(f"  resizes: {rounds} x {per_round:,} at {rate:.0f}/s from {sessions} sessions: RSS "
          f"{', '.join(f'{d:+.1f}' for d in deltas)} MB per round ({closed} closed); {per_round:,} flat out "
          f"from one session: {flat:+.1f} MB, {fate}", flush=True)
    figure("resizes", {"mb_per_round": deltas, "flat_mb": flat, "flat_closed": flat_t.closed.is_set()})
    for t in [*terms, flat_t]:
        await t.close()


async def send_flat(t, n: int) -> None:
    for i in range(n):
        if t.closed.is_set():
            return
        t.chan.change_terminal_size(*RESIZE_SIZES[i % len(RESIZE_SIZES)])
        if i % 100 == 0:
            await asyncio.sleep(0)


def show_old(path: str) -> None:
    """The figures of an older tree's run, beside these."""
    old = json.loads(Path(path).read_text())
    print(f"old ({old.get('tree', path)}) vs new:")
    for key in ("readers", "packets", "resizes"):
        if key in old and key in FIGURES:
            print(f"  {key}:")
            new = FIGURES[key]
            assert isinstance(new, dict)
            for k, v in old[key].items():
                print(f"    {k:<18} {v!s:>28}  ->  {new.get(k)!s}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--policy", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--flooder", nargs=2, type=int, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="shorter windows, fewer sessions")
    ap.add_argument("--only", default="flood,reading,ended,slots,readers,packets,resizes")
    ap.add_argument("--json", default=None, help="write the issue 33 figures to this file")
    ap.add_argument("--waves", type=int, default=1, help="readers: this many waves of them on one server")
    ap.add_argument("--old", default=None, help="an older tree's --json file, printed beside these figures")
    args = ap.parse_args()
    if args.serve:
        serve(args.policy)
        return
    if args.flooder:
        flooder(*args.flooder)
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
        if "readers" in only:
            with Server(policy=True) as srv:
                await readers(srv, 20 if args.quick else 50, 45.0)
                if args.waves > 1:  # (on the same server: is what stays reused by the next wave?)
                    first = dict(FIGURES["readers"])  # type: ignore[call-overload]
                    for _ in range(args.waves - 1):
                        await readers(srv, 20 if args.quick else 50, 45.0)
                    FIGURES["readers"] = {**first, "rss_after_waves_mb": FIGURES["readers"]["rss_after_mb"]}  # type: ignore[index]
        if "packets" in only:
            with Server(policy=True) as srv:
                await packets(srv, 100_000, 10.0)
        if "resizes" in only:
            with Server(policy=True) as srv:
                await resizes(srv, 2 if args.quick else 3, 10_000, 10, 100.0)
        figure("tree", f"{ROOT} ({head})")

    asyncio.run(run())
    if args.json:
        Path(args.json).write_text(json.dumps(FIGURES, indent=1))
    if args.old:
        show_old(args.old)


if __name__ == "__main__":
    main()
