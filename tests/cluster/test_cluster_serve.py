"""``voltage serve --redis URL --edges N`` as people run it: one host process and N edge
processes on one port (SO_REUSEPORT), every edge with the same host key; an unreachable
Redis is one line and exit 1."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.terminal import ssh_connect

ROOT = Path(__file__).resolve().parents[2]


def test_an_unreachable_redis_is_one_clear_line_and_exit_1(tmp_path):
    for args in (["serve", "--redis", "redis://127.0.0.1:1/0", "--data-dir", str(tmp_path)],
                 ["edge", "--redis", "redis://127.0.0.1:1/0", "--host-key", str(tmp_path / "key")],
                 ["host", "--redis", "redis://127.0.0.1:1/0", "--data-dir", str(tmp_path)]):
        if args[0] == "edge":
            import asyncssh

            (tmp_path / "key").write_bytes(asyncssh.generate_private_key("ssh-ed25519").export_private_key())
        r = subprocess.run([sys.executable, "-m", "voltage", *args], cwd=ROOT, capture_output=True, text=True,
                           timeout=30)
        assert r.returncode == 1, (args, r.stdout, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and "cannot reach Redis at redis://127.0.0.1:1/0" in lines[0], r.stderr
        assert "Traceback" not in r.stderr


async def test_serve_with_redis_runs_a_host_and_two_edges_on_one_port_with_one_host_key(redis_url, tmp_path):
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "voltage", "serve", "--redis", redis_url, "--edges", "2", "--host", "127.0.0.1",
        "--port", "0", "--data-dir", str(tmp_path / "data"),
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    out: list[str] = []
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        while not out or not out[-1].startswith("Connect with"):
            line = await asyncio.wait_for(proc.stdout.readline(), max(0.1, deadline - time.monotonic()))
            assert line, "serve stopped:\n" + "".join(out)
            out.append(line.decode())
        edges = [re.match(r"edge (\w+) serving on port (\d+) \(pid (\d+)\)", line) for line in out]
        edges = [m for m in edges if m]
        assert len(edges) == 2 and edges[0].group(1) != edges[1].group(1), out
        port = int(edges[0].group(2))
        assert int(edges[1].group(2)) == port  # one port, two processes
        assert f"ssh -p {port} 127.0.0.1" in out[-1]

        keys = set()
        for _ in range(6):  # whichever edge the kernel picks, the same host key
            async with await ssh_connect(port, "dave") as conn:
                keys.add(conn.get_server_host_key().get_fingerprint())
                who = (await conn.run("who")).stdout
                assert "online" in who, who
        assert len(keys) == 1
        pids = [int(m.group(3)) for m in edges]
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 30)
    assert code == 0, "".join(out)
    for pid in pids:  # every edge stopped with it
        deadline = time.monotonic() + 10
        while _alive(pid):
            assert time.monotonic() < deadline, f"edge {pid} still running"
            await asyncio.sleep(0.05)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) is not running
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


async def test_serve_with_redis_starts_a_killed_edge_or_host_again(redis_url, tmp_path):
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "voltage", "serve", "--redis", redis_url, "--edges", "1", "--host", "127.0.0.1",
        "--port", "0", "--data-dir", str(tmp_path / "data"),
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )
    out: list[str] = []

    async def line_matching(pattern: str) -> re.Match[str]:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        while True:
            line = await asyncio.wait_for(proc.stdout.readline(), max(0.1, deadline - time.monotonic()))
            assert line, "serve stopped:\n" + "".join(out)
            out.append(line.decode())
            m = re.search(pattern, out[-1])
            if m:
                return m

    try:
        edge = await line_matching(r"edge \w+ serving on port (\d+) \(pid (\d+)\)")
        port = int(edge.group(1))
        await line_matching("Connect with")
        os.kill(int(edge.group(2)), signal.SIGKILL)
        await line_matching("an edge stopped")
        again = await line_matching(r"edge \w+ serving on port (\d+) \(pid (\d+)\)")
        assert int(again.group(1)) == port
        host_pid = next(int(p) for p in _children(proc.pid) if p != int(again.group(2)))
        os.kill(host_pid, signal.SIGKILL)
        await line_matching("the host stopped")
        await line_matching("host ready")
        async with await ssh_connect(port, "dave") as conn:
            who = (await conn.run("who")).stdout
        assert "online" in who, who
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), 30)
    assert code == 0, "".join(out)


def _children(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
