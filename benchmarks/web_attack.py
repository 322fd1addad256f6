"""The web transport under abuse, measured: an SSH player's keypress latency without and with it.

    python benchmarks/web_attack.py [--quick] [--only baseline,oversized,...]

The server (the real app, a store for the link codes) runs in a child process with SSH and
``--web`` on one lobby, with the collector's policy as ``voltage serve`` has it
(:func:`server.gcpolicy.install`; without it every full collection stopped the loop for 70-130 ms of
CPU, several times a window), and each attack in a process of its own, so the clients' work does not
count as the server's.  The attackers start (Python, aiohttp: about a second of CPU each) before the
window opens and attack together when it does: started inside it, six of them starting at once on a
two-core machine starved the probe and the server of the CPU for a second or two, whatever the server
did.  A probe SSH session on the name screen types a key every 100 ms; for each window the probe's
keypress-to-screen latency (max, p95), the server process's CPU time over the window (its share of
one core: what the attack costs the server, apart from the attackers' own work) and the server's
**loop stalls** (callbacks of its event loop that ran over 50 ms of wall time: how many, the longest,
and the CPU time of the longest: a stall with little CPU is the process waiting for a core, not the
server's work) are printed: first with nobody attacking (the figure to compare with), then under
each attack, one after the other in the same run, a fresh server each:

- **oversized**: WebSockets that say hello and send a 64 KiB + 1 frame, again and again (each closed, 1009);
- **resizes**: one tab asking for a big screen (380x124 and 379x123 in turn: each a whole redraw)
  as fast as it can (held back, then closed).  (Sizes growing from 80x24 by one a message, as it
  once sent, favoured a server that read one a second: it redrew small screens only);
- **origin**: upgrades from another site's Origin, again and again (each refused, 403);
- **paths**: ``/../../etc/passwd``, ``%2e%2e`` and the like, again and again (each a 404);
- **idle**: 200 WebSockets that never say hello, kept open (refused past the caps, the rest
  closed after the silent grace);
- **guesses**: 10,000 link codes guessed (refused past the budget of tries, 429);
- **all**: every one of them at once.

``--json FILE`` keeps the figures and ``--old FILE`` (an older tree's ``--json``) prints them beside
these: run an older tree's copy of this script (with ``benchmarks/probe.py``) for that.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, TextIO

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parent))  # (probe.py beside it)
from probe import cpu_seconds, fmt, p95, probe_latencies  # noqa: E402

ATTACKS = ("oversized", "resizes", "origin", "paths", "idle", "guesses")


def serve(data_dir: str) -> None:
    """Run SSH and the web on one lobby; print both ports."""
    from concurrent.futures import ThreadPoolExecutor

    from server.config import ServerConfig
    from server.serve import local_sessions
    from server.session.app import harden_app
    from server.ssh.server import VoltageServer
    from server.store.db import Store
    from tui.app import make_app

    def factory(backend: Any, player_name: str) -> Any:
        return harden_app(make_app(backend, player_name=player_name))

    async def run() -> None:
        config = ServerConfig(host="127.0.0.1", port=0, web_port=0, web_host="127.0.0.1")
        store = Store.open(data_dir)
        sessions = local_sessions(config, executor=ThreadPoolExecutor(1), store=store, app_factory=factory)
        ssh = VoltageServer(config, sessions)
        web = config.web_server(sessions, ssh.ssh_line)
        assert web is not None
        await ssh.start()
        await web.start()
        try:
            from server import gcpolicy

            gcpolicy.install()  # as voltage serve does
        except ImportError:  # (a tree without it)
            pass
        print(json.dumps({"ssh": ssh.port, "web": web.port}), flush=True)
        await watch_lag(out)

    out = watch_stalls(str(Path(data_dir) / STALLS))
    asyncio.run(run())


STALLS = "stalls.log"  # the server's loop stalls, in its data directory
STALL_MS = 50.0


def watch_stalls(path: str) -> TextIO:
    """Note every callback of this process's event loops that runs over :data:`STALL_MS` of wall time
    in ``path``: when it ended (the system's monotonic clock), its wall and CPU (thread) time, and
    what it was.  Returns the file (for :func:`watch_lag`)."""
    import asyncio.events

    out = open(path, "a", buffering=1)  # noqa: SIM115  # (for the process's life)
    run_handle = asyncio.events.Handle._run

    def timed(handle: asyncio.events.Handle) -> None:
        c0, t0 = time.thread_time(), time.perf_counter()
        try:
            run_handle(handle)
        finally:
            wall = time.perf_counter() - t0
            if wall * 1000 > STALL_MS:
                cpu = time.thread_time() - c0
                what = getattr(handle, "_callback", None)
                task = getattr(what, "__self__", None)
                name = getattr(task.get_coro(), "__qualname__", "?") if isinstance(task, asyncio.Task) else repr(what)
                out.write(f"{time.monotonic():.4f} {wall * 1000:.1f} {cpu * 1000:.1f} {name[:120]}\n")

    asyncio.events.Handle._run = timed  # type: ignore[method-assign, assignment]
    return out


async def watch_lag(out: TextIO, every: float = 0.01) -> None:
    """Note in ``out`` (as ``lag``) every time this loop wakes a sleep of ``every`` s over
    :data:`STALL_MS` late: a key arriving then waited as long.  Unlike a stall, a lag may be many
    short callbacks in a row (a burst of connections), or the process waiting for a core (then its
    CPU time over the lag is small)."""
    while True:
        c0, t0 = time.thread_time(), time.perf_counter()
        await asyncio.sleep(every)
        late = time.perf_counter() - t0 - every
        if late * 1000 > STALL_MS:
            out.write(f"{time.monotonic():.4f} {late * 1000:.1f} {(time.thread_time() - c0) * 1000:.1f} lag\n")


def stalls_between(path: Path, t0: float, t1: float) -> list[tuple[float, float, str, float]]:
    """The loop stalls noted in ``path`` that ended between ``t0`` and ``t1``: (wall ms, CPU ms, what,
    when it ended, in seconds from ``t0``)."""
    found = []
    for line in path.read_text().splitlines() if path.exists() else []:
        at, wall, cpu, what = line.split(" ", 3)
        if t0 <= float(at) <= t1:
            found.append((float(wall), float(cpu), what, float(at) - t0))
    return found


class Server:
    def __enter__(self) -> Server:
        import tempfile

        self.tmp = tempfile.TemporaryDirectory()
        self.proc = subprocess.Popen([sys.executable, __file__, "--serve", self.tmp.name], stdout=subprocess.PIPE,
                                     text=True, stderr=subprocess.DEVNULL)
        assert self.proc.stdout is not None
        ports = json.loads(self.proc.stdout.readline())
        self.ssh, self.web = ports["ssh"], ports["web"]
        self.stalls = Path(self.tmp.name) / STALLS
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.kill()
        self.proc.wait()
        self.tmp.cleanup()


# -- the attacks (each in its own process, until ``stop_at``; returns what it saw) -------------


class Target:
    def __init__(self, web: int) -> None:
        self.url = f"http://127.0.0.1:{web}/"
        self.origin = f"http://127.0.0.1:{web}"


async def oversized(srv: Target, http: Any, stop_at: float) -> str:
    closed = refused = 0
    while time.monotonic() < stop_at:
        try:
            ws = await http.ws_connect(srv.url + "ws", headers={"Origin": srv.origin})
        except Exception:
            refused += 1
            await asyncio.sleep(0.05)
            continue
        await ws.send_str(json.dumps({"type": "hello", "cols": 80, "rows": 24}))
        try:
            await ws.send_bytes(b"a" * (64 * 1024 + 1))
        except Exception:
            pass
        async for _msg in ws:
            pass
        closed += ws.close_code == 1009
    return f"{closed} sockets closed for an oversized frame ({refused} refused at the door)"


async def resizes(srv: Target, http: Any, stop_at: float) -> str:
    sent = 0
    ws = await http.ws_connect(srv.url + "ws", headers={"Origin": srv.origin})
    await ws.send_str(json.dumps({"type": "hello", "cols": 80, "rows": 24}))

    async def drain() -> None:
        async for _msg in ws:
            pass

    reader = asyncio.get_running_loop().create_task(drain())
    while time.monotonic() < stop_at and not ws.closed:
        try:
            await ws.send_str(json.dumps({"type": "resize", "cols": 380 - sent % 2, "rows": 124 - sent % 2}))
        except Exception:
            break
        sent += 1
        if sent % 100 == 0:
            await asyncio.sleep(0)
    state = "closed" if ws.closed else "still open"
    reader.cancel()
    await ws.close()
    return f"{sent} resize messages sent, the tab {state}"


async def origin(srv: Target, http: Any, stop_at: float) -> str:
    import aiohttp

    refused = 0
    while time.monotonic() < stop_at:
        try:
            ws = await http.ws_connect(srv.url + "ws", headers={"Origin": "http://evil.example"})
            await ws.close()
        except aiohttp.WSServerHandshakeError as e:
            refused += e.status == 403
    return f"{refused} upgrades refused (403)"


async def paths(srv: Target, http: Any, stop_at: float) -> str:
    from yarl import URL

    tries = ("/../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd", "/static/..%2f..%2fetc%2fpasswd",
             "/static/vendor/", "/%2e%2e/server.py")
    refused = 0
    while time.monotonic() < stop_at:
        for path in tries:
            async with http.get(URL(srv.url[:-1] + path, encoded=True)) as r:
                await r.read()
                refused += r.status == 404
    return f"{refused} requests answered 404"


async def idle(srv: Target, http: Any, stop_at: float) -> str:
    import aiohttp

    sockets, refused = [], 0
    for _ in range(200):
        try:
            sockets.append(await http.ws_connect(srv.url + "ws", headers={"Origin": srv.origin}))
        except aiohttp.WSServerHandshakeError:
            refused += 1
    await asyncio.sleep(max(0.0, stop_at - time.monotonic()))
    for ws in sockets:
        try:
            await asyncio.wait_for(ws.receive(), 0.01)  # (reads the close frame if the server sent one)
        except (TimeoutError, Exception):
            pass
    closed = sum(ws.closed for ws in sockets)
    for ws in sockets:
        await ws.close()
    return f"{refused} of 200 refused, {closed} of the {len(sockets)} admitted closed by the server"


async def guesses(srv: Target, http: Any, stop_at: float) -> str:
    counts: dict[int, int] = {}
    i = 0
    while time.monotonic() < stop_at and i < 10_000:
        async with http.post(srv.url + "link", json={"code": f"{i:08d}"}, headers={"Origin": srv.origin}) as r:
            counts[r.status] = counts.get(r.status, 0) + 1
        i += 1
    return f"{i} guesses: " + ", ".join(f"{n} x {status}" for status, n in sorted(counts.items()))


def attack(name: str, web: int, seconds: float) -> None:
    """One attack, in a process of its own: says ``ready``, attacks for ``seconds`` from the line
    that says go (on its stdin), then prints what it saw and the CPU time it took (JSON)."""
    import aiohttp

    async def run() -> None:
        async with aiohttp.ClientSession() as http:
            print("ready", flush=True)
            await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
            cpu0 = time.process_time()
            seen = await globals()[name](Target(web), http, time.monotonic() + seconds)
        print(json.dumps({"seen": seen, "cpu": time.process_time() - cpu0}), flush=True)

    asyncio.run(run())


FIGURES: dict[str, dict[str, float]] = {}
VERBOSE = False


async def window(srv: Server, attacks: tuple[str, ...], seconds: float) -> None:
    from tests.support.terminal import Terminal

    t = await Terminal(100, 32).connect(srv.ssh, "probe")
    await t.wait_for("Your name")
    t.send("\x15")
    attackers = [await asyncio.create_subprocess_exec(sys.executable, __file__, "--attack", name, "--web",
                                                      str(srv.web), "--seconds", str(seconds),
                                                      stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
                 for name in attacks]
    for a in attackers:  # (each has started: its start-up is not the attack's)
        assert a.stdout is not None and (await a.stdout.readline()).strip() == b"ready"
    await asyncio.sleep(0.5)
    stop_at = time.monotonic() + seconds
    cpu0, t0 = cpu_seconds(srv.proc.pid), time.monotonic()
    for a in attackers:
        assert a.stdin is not None
        a.stdin.write(b"go\n")
    lat = await probe_latencies(t, stop_at)
    t1 = time.monotonic()
    cpu = (cpu_seconds(srv.proc.pid) - cpu0) / (t1 - t0)  # (the probe's own keys included)
    reports = [json.loads((await a.communicate())[0]) for a in attackers]
    seen = [r["seen"] for r in reports]
    theirs = sum(r["cpu"] for r in reports) / (t1 - t0)
    noted = stalls_between(srv.stalls, t0, t1)
    stalls = [s for s in noted if s[2] != "lag"]
    lags = [s for s in noted if s[2] == "lag"]
    await t.close()
    label = "all at once" if len(attacks) == len(ATTACKS) else "+".join(attacks) or "nobody attacking"
    longest = max(stalls, default=(0.0, 0.0, "", 0.0))
    latest = max(lags, default=(0.0, 0.0, "", 0.0))
    print(f"{label:>16}: an SSH player's keypress {fmt(lat, '')}; the server's CPU {cpu * 100:3.0f} %, "
          f"the attackers' {theirs * 100:3.0f} %\n{'':>18}the server's loop: {len(stalls)} callbacks over "
          f"{STALL_MS:.0f} ms (the longest {longest[0]:.0f} ms, {longest[1]:.0f} ms of it CPU), late {len(lags)} "
          f"times (at most {latest[0]:.0f} ms, {latest[1]:.0f} ms of it CPU)", flush=True)
    FIGURES[label] = {"max_ms": max(lat) * 1000, "p95_ms": p95(lat) * 1000, "server_cpu_pct": cpu * 100,
                      "stalls": len(stalls), "stall_max_ms": longest[0], "stall_max_cpu_ms": longest[1],
                      "lags": len(lags), "lag_max_ms": latest[0], "lag_max_cpu_ms": latest[1]}
    if VERBOSE:
        slow = sorted(range(len(lat)), key=lambda i: -lat[i])[:5]
        when = [sum(max(x, 0.1) for x in lat[:i]) for i in range(len(lat))]  # (a key every 0.1 s, or when answered)
        print(f"{'':>18}the slowest keys: " + ", ".join(f"{lat[i] * 1000:.0f} ms at {when[i]:.1f} s" for i in slow),
              flush=True)
    if (stalls or lags) and VERBOSE:
        for wall, cpu_ms, what, at in sorted(stalls + lags, reverse=True)[:8]:
            print(f"{'':>18}at {at:4.1f} s: {what if what == 'lag' else 'a callback'} {wall:4.0f} ms "
                  f"({cpu_ms:3.0f} ms CPU){'' if what == 'lag' else ': ' + what}", flush=True)
    for name, what in zip(attacks, seen, strict=True):
        print(f"{'':>18}{name}: {what}", flush=True)


def show_old(path: str) -> None:
    """An older tree's figures (its ``--json``) beside these."""
    old = json.loads(Path(path).read_text())
    keys = ("max_ms", "p95_ms", "server_cpu_pct", "lag_max_ms", "lag_max_cpu_ms")
    print(f"old ({old.pop('tree', path)}) -> new: keypress max, p95 (ms), the server's CPU (%), its loop "
          "late at most (ms, of it CPU ms)")
    for label, new in FIGURES.items():
        was = old.get(label)
        if not isinstance(was, dict):
            continue
        print(f"{label:>16}: " + ", ".join(f"{was[k]:.0f} -> {new[k]:.0f}" for k in keys if k in was and k in new))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--serve", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--attack", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--web", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--seconds", type=float, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--quick", action="store_true", help="5 s windows instead of 10 s")
    ap.add_argument("--only", default="baseline," + ",".join(ATTACKS) + ",all")
    ap.add_argument("--json", default=None, help="write the figures to this file")
    ap.add_argument("--old", default=None, help="an older tree's --json file, printed beside these figures")
    ap.add_argument("--stalls", action="store_true", help="print each window's five longest loop stalls")
    args = ap.parse_args()
    global VERBOSE
    VERBOSE = args.stalls
    if args.serve:
        serve(args.serve)
        return
    if args.attack:
        attack(args.attack, args.web, args.seconds)
        return
    seconds = 5.0 if args.quick else 10.0

    async def run() -> None:
        head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
        print(f"tree: {ROOT}  ({head}); windows of {seconds:.0f} s, a fresh server each")
        for name in args.only.split(","):
            attacks = () if name == "baseline" else ATTACKS if name == "all" else (name,)
            with Server() as srv:
                await window(srv, attacks, seconds)
        FIGURES["tree"] = f"{ROOT} ({head})"  # type: ignore[assignment]

    asyncio.run(run())
    if args.json:
        Path(args.json).write_text(json.dumps(FIGURES, indent=1))
    if args.old:
        FIGURES.pop("tree", None)
        show_old(args.old)


if __name__ == "__main__":
    main()
