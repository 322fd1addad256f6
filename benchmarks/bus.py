"""What the bus costs: a seat's update through the declared wire, and the round trip
intent -> update, in-process vs Redis (median and p95 in ms).

The wire first (``--codec`` alone): a Voltage update of the seat to move in the middle of
a match (its hand, the board, its legal actions) and a High Voltage one of three seats,
each made into the bytes that cross (``WIRE.encode`` of the
:class:`~server.wire.messages.SeatUpdate`, then JSON) and read back, best of five runs,
in microseconds per update.  The host encodes one of these per seat per move; each edge
reads the ones of the seats it draws.

One "round trip" is what a keypress pays on the bus: the edge sends an intent, the
host reads it (and acks it), publishes the per-seat update with the next version,
and the edge's subscription receives it.  Both sides run in this one process and
event loop (on Redis each side has its own connection, as separate processes do),
so the Redis figures include both sides' client CPU, which separate processes
would run in parallel.  A private redis-server is started (temp dir, no
persistence) unless ``--redis URL`` names one.

    python benchmarks/bus.py --codec            # the wire alone
    python benchmarks/bus.py                    # and N=2000 each: local, Redis over a unix socket, over TCP loopback
    python benchmarks/bus.py -n 5000
    python benchmarks/bus.py --redis redis://10.0.0.5:6379/0
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from server.bus import Bus, Intent  # noqa: E402
from server.bus.local import LocalBus  # noqa: E402

VIEW = {"hand": ["3o", "5g", "7b", "2r", "9o"], "piles": {"orange": [3, 5], "green": []}, "scores": [12, 9], "turn": 0}


async def round_trips(host: Bus, edge: Bus, n: int, warmup: int = 100) -> list[float]:
    async def serve() -> None:
        version = 0
        async for item in host.intents():
            await host.ack(item)
            version += 1
            await host.publish_update(item.match, item.seat, version, VIEW)

    server = asyncio.get_running_loop().create_task(serve())
    sub = await edge.subscribe_updates("m1", 0)
    out = []
    try:
        for seq in range(warmup + n):
            t0 = time.perf_counter()
            await edge.send_intent(Intent("m1", 0, "bench", seq, {"action": "play 3o orange 0"}))
            update = await sub.get(10)
            dt = time.perf_counter() - t0
            assert update.version == seq + 1, (update.version, seq)
            if seq >= warmup:
                out.append(dt * 1000)
    finally:
        server.cancel()
        try:
            await server
        except asyncio.CancelledError:
            pass
        await sub.close()
    return out


async def run_local(n: int) -> list[float]:
    bus = LocalBus()
    try:
        return await round_trips(bus, bus, n)
    finally:
        await bus.close()


async def run_redis(url: str, n: int) -> list[float]:
    from server.bus.redis import RedisBus

    ns = f"bench{time.time_ns()}"
    host = await RedisBus.connect(url, namespace=ns)
    edge = await RedisBus.connect(url, namespace=ns)
    try:
        return await round_trips(host, edge, n)
    finally:
        await edge.close()
        await host.close()


def sample_updates() -> list[tuple[str, object]]:
    """A Voltage update of the seat to move after 25 random actions, and a High Voltage one."""
    import random

    from engine.highvoltage import rules as H
    from engine.voltage import rules as V
    from server.wire.messages import SeatUpdate
    from tui.ports import Note, Update

    rng = random.Random(3)
    s = V.new_match(3)
    for _ in range(25):
        V.step(s, rng.choice(V.legal_actions(s)))
    seat = V.view(s, None).to_move
    voltage = Update(V.view(s, seat), (V.Event("pass", seat=0),), (Note("back", {"name": "x"}),), None, 25,
                     ("Ann", "Bob"), {"clock": None, "abort_from": None, "draw_offer": None, "against_human": True})
    hv = Update(H.view(H.new_match(5, 3), 0), (), (), None, 3, ("a", "b", "c"), {"idle": (), "bot_playing": ()})
    return [("voltage", SeatUpdate(voltage)), ("high-voltage", SeatUpdate(hv))]


def per_call_us(call: Callable[[], object], n: int = 5000) -> float:
    """The best of five runs of ``n`` calls, in microseconds a call."""
    for _ in range(200):
        call()
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            call()
        best = min(best, (time.perf_counter() - t0) / n * 1e6)
    return best


def codec() -> None:
    from server.bus import wire
    from server.wire.table import WIRE

    for name, message in sample_updates():
        data = wire.dumps(WIRE.encode(message))
        def enc_one(message: Any = message) -> Any:
            return wire.dumps(WIRE.encode(message))

        def dec_one(data: Any = data) -> Any:
            return WIRE.decode(wire.loads(data))

        enc = per_call_us(enc_one)
        dec = per_call_us(dec_one)
        print(f"wire: {name:<13} update {len(data):5d} bytes   encode {enc:6.1f} us   decode {dec:6.1f} us")


def line(name: str, ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=100)
    median = statistics.median(ms)
    return f"{name:<24} median {median:6.3f} ms   p95 {q[94]:6.3f} ms   p99 {q[98]:6.3f} ms   (n={len(ms)})"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=2000, help="round trips per bus (after 100 warm-up ones)")
    parser.add_argument("--redis", metavar="URL", help="an existing Redis instead of a private redis-server")
    parser.add_argument("--codec", action="store_true", help="the wire's figures only")
    args = parser.parse_args()

    codec()
    if args.codec:
        return
    print(line("local (in-process)", asyncio.run(run_local(args.n))))
    if args.redis:
        print(line(f"redis {args.redis}", asyncio.run(run_redis(args.redis, args.n))))
        return
    from tests.support.redis import RedisServer

    for label, port in (("redis (unix socket)", None), ("redis (TCP loopback)", free_port())):
        with tempfile.TemporaryDirectory(prefix="voltage-bench-redis-") as d:
            server = RedisServer(Path(d), port=port)
            server.start()
            try:
                print(line(label, asyncio.run(run_redis(server.url, args.n))))
            finally:
                server.stop()


if __name__ == "__main__":
    main()
