"""A real ``voltage serve`` process for the restart and damage tests.

It listens on port 0 and the tests read the port it got from its "Connect with" line, so
tests running side by side (pytest-xdist) never race for a port: the old ``free_port()``
(bind 0, close, hand the number on) left a moment in which another worker could take it.
"""

from __future__ import annotations

import asyncio
import re
import signal
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_PORT = re.compile(rb"Connect with:\s+ssh -p (\d+) ")


class ServerProcess:
    """``python -m voltage serve`` on a data directory; ``port=0`` takes any free port (read back into ``port``)."""

    def __init__(self, data_dir: Path, port: int = 0) -> None:
        self.data_dir, self.port = data_dir, port
        self.proc: asyncio.subprocess.Process | None = None
        self.out: list[str] = []

    async def start(self) -> ServerProcess:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "voltage", "serve", "--host", "127.0.0.1",
            "--port", str(self.port), "--data-dir", str(self.data_dir),
            cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 30
        while True:
            line = await asyncio.wait_for(self.proc.stdout.readline(), max(0.1, deadline - time.monotonic()))
            if not line:
                raise AssertionError("the server stopped:\n" + "".join(self.out))
            self.out.append(line.decode())
            if line.startswith(b"Connect with"):
                m = _PORT.match(line)
                assert m, line
                self.port = int(m.group(1))
                return self

    async def stop(self, sig: int) -> int:
        assert self.proc is not None
        self.proc.send_signal(sig)
        return await asyncio.wait_for(self.proc.wait(), 15)

    async def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


def ctrl_c_reaches_it() -> None:
    """``preexec_fn`` of a child a test will Ctrl-C: SIGINT back to its default before the exec.
    A shell without job control starts a background job with SIGINT ignored, and a child
    inherits that: a suite run in the background (``... &``, ``nohup``) would send its Ctrl-C
    to a process that never hears it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
