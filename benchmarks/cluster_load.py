"""Load benchmark for the split server: the same load against one edge and against two.

    python benchmarks/cluster_load.py -n 40 --seconds 30
    python benchmarks/cluster_load.py -n 200 --seconds 120 --pace 3      # the issue's target run

In one invocation: a private ``redis-server`` (temp dir, unix socket, no persistence),
then for each configuration (``--edges 1,2``) a fresh ``voltage host`` and that many
``voltage edge`` processes sharing one port (SO_REUSEPORT), and the load of
``benchmarks/load.py`` against the port: N guest sessions named, paired by quick
match, playing for ``--seconds`` at ``--pace``, every key timed until the next frame.
Printed per configuration: accepted actions per second, keypress-to-frame p50/p95/p99,
the host's CPU per action, each edge's memory per session, and whether every
session connected.  ``benchmarks/load.py`` with the same ``-n/--seconds/--pace`` is the
embedded server's figure to compare with (the bus's cost on the median).

A fresh host per configuration: the previous run's guests left, and a guest's seat
goes to a bot at once, so the old host would still be playing their matches out.
The clients run in this process (load.py's cheap clients); on a machine with few
cores they compete with the servers, so compare the configurations with each
other, run on the same machine, more than with the targets.  A benchmark: it
prints figures and asserts nothing.

**Capacity in sessions** (``--ramp``, ``--repeat``, as ``benchmarks/load.py``'s)::

    python benchmarks/cluster_load.py --edges 2 --ramp 200:500:50 --pace 3 --seconds 30 --repeat 3

a fresh host and edges per run, the session count growing until a point's p95 passes
``--p95`` or a session is not connected and paired (or told "not answering"); each run
prints the machine's steal, idle and load average beside its figures (:mod:`machine`).
``--tree`` runs another checkout's host and edges (old against new).

**Capacity: two edges against one** (``--pace-ramp``, ``--edge-cpu``)::

    python benchmarks/cluster_load.py -n 200 --edges 1,2 --edge-cpu 0.5 --pace-ramp 4,3,2,1.5,1.2,1 --seconds 30

``--pace-ramp`` plays one window of ``--seconds`` per pace, faster and faster, without
reconnecting; each window prints its accepted actions per second and its latency,
and a configuration's capacity is the best rate of a window whose p95 stays within
``--p95`` (150 ms).  The last line compares the capacities.  An edge is made to
draw one core's worth of sessions, and on a two-core machine two edges would have
to share the cores with the host, Redis and the clients: ``--edge-cpu F`` caps
each edge at ``F`` of a core (a cgroup of its own, CFS quota: the kernel's limit,
the edge is not told), so that each edge has a "core" of its own and the rest has
the remainder, as on a machine with a core per edge.  It needs a writable cgroup
(root; v1 ``cpu`` or v2 with the cpu controller).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import ROOMY_BOOT, Player, cpu_seconds, parse_pace, pct, play_turns, server_only_rss_kb, sizes  # noqa: E402
from machine import watching  # noqa: E402

HERE = Path(__file__).resolve().parent.parent


def start_redis(directory: Path) -> tuple[subprocess.Popen[bytes], str]:
    sock = directory / "redis.sock"
    proc = subprocess.Popen(
        ["redis-server", "--port", "0", "--unixsocket", str(sock), "--unixsocketperm", "700", "--dir", str(directory),
         "--save", "", "--appendonly", "no", "--loglevel", "warning"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while not sock.exists():
        if time.monotonic() > deadline or proc.poll() is not None:
            raise SystemExit("redis-server did not start (apt-get install -y redis-server)")
        time.sleep(0.02)
    return proc, f"unix://{sock}"


class Child:
    """A ``voltage host``/``voltage edge`` process, its first line read, its output drained."""

    def __init__(self, args: list[str], cap: CpuCap | None = None, tree: Path = HERE) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.proc = subprocess.Popen([sys.executable, "-c", ROOMY_BOOT, *args], cwd=tree, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, preexec_fn=cap.enter if cap else None,
                                     env=env)
        self.lines: list[str] = []
        self.first = threading.Event()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            self.first.set()
        self.first.set()

    def ready(self, timeout: float = 60) -> str:
        self.first.wait(timeout)
        if not self.lines:
            raise SystemExit(f"{self.proc.args!r} did not start")
        return self.lines[0]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class CpuCap:
    """A cgroup of its own with a CFS quota of ``share`` of a core (v1 ``cpu`` or v2).

    ``enter`` is a ``preexec_fn``: the child joins the group before it runs anything,
    so every thread it starts is capped with it."""

    V1 = Path("/sys/fs/cgroup/cpu")
    V2 = Path("/sys/fs/cgroup")

    def __init__(self, name: str, share: float) -> None:
        period = 10_000  # µs: a short period spreads the quota (after a burst, 100 ms would stall the edge)
        quota = max(1000, int(share * period))
        if (self.V1 / "cpu.cfs_quota_us").exists():
            self.path = self.V1 / name
            self.path.mkdir(exist_ok=True)
            (self.path / "cpu.cfs_period_us").write_text(str(period))
            (self.path / "cpu.cfs_quota_us").write_text(str(quota))
        elif "cpu" in (self.V2 / "cgroup.subtree_control").read_text().split():
            self.path = self.V2 / name
            self.path.mkdir(exist_ok=True)
            (self.path / "cpu.max").write_text(f"{quota} {period}")
        else:
            raise OSError("no cgroup cpu controller to write to")
        self._procs = str(self.path / "cgroup.procs")

    def enter(self) -> None:
        with open(self._procs, "w") as f:
            f.write(str(os.getpid()))

    def remove(self) -> None:
        try:
            self.path.rmdir()
        except OSError:
            pass


async def run(url: str, edges: int, args: argparse.Namespace, tmp: Path, n: int) -> dict:
    data = tmp / f"data{edges}-{n}-{time.monotonic_ns()}"
    tree = args.tree.resolve()
    host = Child(["host", "--redis", url, "--data-dir", str(data)], tree=tree)
    host.ready()
    key = data / "ssh_host_ed25519_key"
    import asyncssh

    key.write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key())
    kids: list[Child] = []
    port = 0
    budget = f"{n + 100}:100:{n + 100}"  # every client comes from one address: let the arrivals in
    limits = ["--max-connections", str(n + 100), "--max-per-address", str(n + 100),
              "--max-startups", budget, "--max-startups-per-address", budget]
    caps = [CpuCap(f"voltage-bench-{os.getpid()}-{edges}-{i}", args.edge_cpu) for i in range(edges)] \
        if args.edge_cpu else []
    for i in range(edges):
        e = Child(["edge", "--redis", url, "--host-key", str(key), "--host", "127.0.0.1", "--port", str(port),
                   *limits], cap=caps[i] if caps else None, tree=tree)
        line = e.ready()
        port = int(line.split("port ")[1].split()[0])
        kids.append(e)
    players = [Player(f"p{i}") for i in range(n)]
    failed = refused_name = 0
    machine = watching()
    try:
        async def arrive(p: Player) -> None:
            nonlocal failed, refused_name
            try:
                await p.connect(port)
                await p.wait_for("Your name", timeout=60)
                p.channel.write(b"\r")
                await p.wait_for(f"you: {p.name}", timeout=60)
            except Exception:
                failed += 1
                refused_name += "not answering" in p.text()

        idle = [server_only_rss_kb(k.proc.pid) for k in kids]
        t0 = time.monotonic()
        for i in range(0, n, args.connect_batch):
            await asyncio.gather(*(arrive(p) for p in players[i:i + args.connect_batch]))
        connect_s = time.monotonic() - t0
        live = [p for p in players if not p.closed and p.chan is not None]
        for p in live:
            p.channel.write(b"\r")
            await asyncio.sleep(0.01)
        got = await asyncio.gather(*(p.wait_for("VOLTAGE", timeout=120) for p in live), return_exceptions=True)
        left_out = [p for p, g in zip(live, got, strict=True) if isinstance(g, BaseException)]
        first_left_out = len(left_out)
        not_answering = sum("not answering" in p.text() for p in left_out)
        if left_out:  # what they see says why; a player told to try again does (once)
            print(f"  {len(left_out)} not in a match at first; {left_out[0].name}'s screen:\n{left_out[0].text()}",
                  file=sys.stderr)
            for p in left_out:
                p.channel.write(b"\r")
            again = await asyncio.gather(*(p.wait_for("VOLTAGE", timeout=60) for p in left_out),
                                         return_exceptions=True)
            left_out = [p for p, g in zip(left_out, again, strict=True) if isinstance(g, BaseException)]
        in_match = len(live) - len(left_out)
        await asyncio.sleep(1.0)
        paired = [server_only_rss_kb(k.proc.pid) for k in kids]
        tally = {"rematches": 0}
        windows = []
        for pace in args.pace_ramp or [args.pace]:
            latencies: list[float] = []
            host_cpu = cpu_seconds(host.proc.pid)
            edge_cpu = [cpu_seconds(k.proc.pid) for k in kids]
            t_play = time.monotonic()
            stop_at = t_play + args.seconds
            counts = await asyncio.gather(*(play_turns(p, stop_at, latencies, pace, tally) for p in live))
            played = time.monotonic() - t_play
            host_cpu = cpu_seconds(host.proc.pid) - host_cpu
            edge_cpu = [cpu_seconds(k.proc.pid) - c for k, c in zip(kids, edge_cpu, strict=True)]
            total = sum(counts)
            windows.append({
                "pace": pace, "actions": total, "rate": total / played, "keys": len(latencies),
                "p50": pct(latencies, 50), "p95": pct(latencies, 95), "p99": pct(latencies, 99),
                "host_ms": host_cpu * 1000 / max(1, total), "edge_cpu": [c / played for c in edge_cpu],
            })
        played_rss = [server_only_rss_kb(k.proc.pid) for k in kids]

        def per_session(rss: list[int]) -> list[float]:
            return [(b - a) / max(1, n / edges) / 1024 for a, b in zip(idle, rss, strict=True)]

        return {
            "edges": edges, "sessions": n, "connected": n - failed, "in_match": in_match, "connect_s": connect_s,
            "left_out": first_left_out, "not_answering": not_answering, "refused_name": refused_name,
            "windows": windows, "mb_per_session": per_session(paired), "mb_after_play": per_session(played_rss),
            "machine": machine.stop().text(),
        }
    finally:
        if machine.task is not None:
            machine.stop()
        for who, child in (("host", host), *((f"edge {i}", k) for i, k in enumerate(kids))):
            for line in child.lines[1:]:
                if " WARNING " in line or " ERROR " in line or "Traceback" in line:
                    print(f"  {who}: {line}", file=sys.stderr)
        for p in players:
            await p.close()
        for k in kids:
            k.stop()
        host.stop()
        for cap in caps:
            cap.remove()


def capacity(r: dict, p95_limit: float) -> float:
    """The best accepted actions per second of a window whose p95 stayed within the limit."""
    return max((w["rate"] for w in r["windows"] if w["keys"] and w["p95"] <= p95_limit), default=0.0)


def show(r: dict, args: argparse.Namespace) -> None:
    ms = lambda s: f"{s * 1000:.0f} ms"  # noqa: E731
    print(f"{r['edges']} edge{'s' if r['edges'] != 1 else ''}: {r['connected']}/{r['sessions']} sessions connected "
          f"in {r['connect_s']:.1f} s, {r['in_match']} in a match"
          + (f"; each edge capped at {args.edge_cpu:g} of a core" if args.edge_cpu else ""))
    print(f"  {r['refused_name']} told the server is not answering while naming themselves; quick match pressed "
          f"by every session within {r['in_match'] * 0.01:.1f} s: {r['left_out']} not in a match at first, "
          f"{r['not_answering']} of them told the server is not answering")
    for w in r["windows"]:
        pace = w["pace"]
        print(f"  pace {pace[0]:g}-{pace[1]:g} s: accepted actions: {w['actions']} ({w['rate']:.1f}/s)")
        print(f"    keypress-to-frame over {w['keys']} keys: p50 {ms(w['p50'])}, p95 {ms(w['p95'])}, "
              f"p99 {ms(w['p99'])}")
        print(f"    host CPU per action: {w['host_ms']:.2f} ms; edges' CPU: "
              + ", ".join(f"{c:.0%} of a core" for c in w["edge_cpu"]))
    print("  edge memory per session, paired / after play: "
          + ", ".join(f"{a:.2f} / {b:.2f} MB" for a, b in zip(r["mb_per_session"], r["mb_after_play"], strict=True)))
    if args.pace_ramp:
        print(f"  capacity: {capacity(r, args.p95 / 1000):.1f} accepted actions/s at p95 <= {args.p95:g} ms")
    print(f"  {r['machine']}")


def held(r: dict, p95_limit: float) -> bool:
    """Every session connected and paired (none left out), and the p95 within the limit."""
    w = r["windows"][0]
    return r["connected"] == r["sessions"] == r["in_match"] and not r["left_out"] and w["p95"] <= p95_limit


def spread(values: list[float], unit: str = "") -> str:
    if len(values) == 1:
        return f"{values[0]:.1f}{unit}"
    values = sorted(values)
    return f"{values[len(values) // 2]:.1f}{unit} ({values[0]:.1f}-{values[-1]:.1f})"


def point(runs: list[dict]) -> str:
    """One point's runs: the spread of its figures."""
    w = [r["windows"][0] for r in runs]
    return (f"{runs[0]['sessions']} sessions, {runs[0]['edges']} edge(s), x {len(runs)}: arrivals "
            f"{spread([r['connect_s'] for r in runs], ' s')}, p50 {spread([x['p50'] * 1000 for x in w])} / "
            f"p95 {spread([x['p95'] * 1000 for x in w])} / p99 {spread([x['p99'] * 1000 for x in w])} ms, "
            f"host CPU/action {spread([x['host_ms'] for x in w])} ms, not answering "
            f"{spread([float(r['not_answering'] + r['refused_name']) for r in runs])}, "
            f"{sum(r['connected'] == r['sessions'] == r['in_match'] for r in runs)}/{len(runs)} "
            "all connected and paired")


def parse_ramp(text: str) -> list[tuple[float, float]]:
    return [parse_pace(part) for part in text.split(",")]


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sessions", "-n", type=int, default=40)
    ap.add_argument("--seconds", type=float, default=30.0, help="how long each window plays")
    ap.add_argument("--pace", type=parse_pace, default=(0.8, 1.2))
    ap.add_argument("--pace-ramp", type=parse_ramp, default=None,
                    help="paces of successive windows, comma-separated (e.g. 4,3,2,1.5,1): the capacity in actions/s")
    ap.add_argument("--ramp", type=sizes, default=None, metavar="LO:HI:STEP",
                    help="session counts, growing (200:500:50): the capacity, the largest count whose p95 stays "
                         "within --p95 with every session connected and paired (stops at the first that does not)")
    ap.add_argument("--repeat", type=int, default=1, help="run each point this many times; the spread is printed")
    ap.add_argument("--p95", type=float, default=150.0, help="the latency (ms) a window's p95 must keep for a ramp")
    ap.add_argument("--tree", type=Path, default=HERE, help="the checkout whose host and edges run (default: this one)")
    ap.add_argument("--edge-cpu", type=float, default=None, help="cap each edge at this share of a core (a cgroup)")
    ap.add_argument("--edges", default="1,2", help="the configurations, comma-separated edge counts")
    ap.add_argument("--connect-batch", type=int, default=10)
    args = ap.parse_args()
    if shutil.which("redis-server") is None:
        print("redis-server is not installed: apt-get install -y redis-server", file=sys.stderr)
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="voltage-cluster-load-"))
    redis, url = start_redis(tmp)
    results = []
    try:
        for edges in [int(x) for x in args.edges.split(",")]:
            if args.ramp:
                capacity_n = 0
                for n in args.ramp:
                    runs = []
                    for _ in range(args.repeat):
                        runs.append(await run(url, edges, args, tmp, n))
                        show(runs[-1], args)
                    p95 = sorted(r["windows"][0]["p95"] for r in runs)[len(runs) // 2]
                    ok = all(held(r, args.p95 / 1000) for r in runs) and p95 <= args.p95 / 1000
                    print(f"ramp: {point(runs)}: {'within' if ok else 'past'} p95 <= {args.p95:g} ms")
                    if not ok:
                        break
                    capacity_n = n
                print(f"capacity, {edges} edge(s), from {args.tree.resolve()}: {capacity_n} sessions at pace "
                      f"{args.pace[0]:g}-{args.pace[1]:g} s with p95 <= {args.p95:g} ms, every session connected "
                      "and paired")
                continue
            runs = []
            for _ in range(args.repeat):
                r = await run(url, edges, args, tmp, args.sessions)
                show(r, args)
                runs.append(r)
            if len(runs) > 1:
                print(f"repeated: {point(runs)}")
            results.append(runs[0])
    except OSError as error:
        print(f"cannot cap the edges' CPU: {error} (--edge-cpu needs a writable cgroup: run as root)", file=sys.stderr)
        return 1
    finally:
        redis.send_signal(signal.SIGKILL)
        redis.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    if len(results) >= 2:
        first, last = results[0], results[-1]
        if args.pace_ramp:
            a, b = capacity(first, args.p95 / 1000), capacity(last, args.p95 / 1000)
            if a:
                print(f"{last['edges']} edges vs {first['edges']}: {b / a:.2f} x the accepted actions per second "
                      f"at p95 <= {args.p95:g} ms ({b:.1f} vs {a:.1f})")
        elif first["windows"][0]["rate"]:
            print(f"{last['edges']} edges vs {first['edges']}: "
                  f"{last['windows'][0]['rate'] / first['windows'][0]['rate']:.2f} x the accepted actions per second")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(asyncio.run(main()))
