"""Local play: Textual's own Linux driver reorders a burst the same way (Textual 8.2
itself, see :mod:`tui.keys`); :class:`tui.textual_compat.drivers.OrderedLinuxDriver` does not.  A real
pseudo-terminal, a real input thread, one ``write`` per burst."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import sys
import termios
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

APP = """
import sys
sys.path.insert(0, {root!r})
from textual.app import App
from textual.widgets import Input

class A(App):
    def compose(self):
        yield Input(id="i")

    def on_input_changed(self, event):
        with open({out!r} + ".tmp", "w") as f:
            f.write(event.value)
        import os
        os.replace({out!r} + ".tmp", {out!r})

app = A()
if sys.argv[1] == "ordered":  # the way voltage play and voltage replay run their app
    from tui.run import run_local
    sys.exit(run_local(app))
app.run()
"""


class Pty:
    def __init__(self, script: Path, mode: str, out: Path) -> None:
        self.out = out
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the app on the pty
            os.environ["TERM"] = "xterm-256color"
            os.execv(sys.executable, [sys.executable, str(script), mode])
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))

    def pump(self) -> None:
        while select.select([self.fd], [], [], 0.02)[0]:
            try:
                if not os.read(self.fd, 65536):
                    return
            except OSError:
                return

    def value(self) -> str | None:
        try:
            return self.out.read_text()
        except FileNotFoundError:
            return None

    def wait_value(self, expected: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while self.value() != expected:
            if time.monotonic() > deadline:
                raise AssertionError(f"the input holds {self.value()!r}, not {expected!r}")
            self.pump()

    def write(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def close(self) -> None:
        try:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        except OSError:
            pass
        os.close(self.fd)


@pytest.mark.parametrize("burst, expected", [("\x15World", "World"), ("\x7fY", "HellY"), ("\x1b[DX", "HellXo")])
def test_local_play_counts_every_key_of_a_burst_in_order(tmp_path, burst, expected):
    out = tmp_path / "value.txt"
    script = tmp_path / "app.py"
    script.write_text(APP.format(root=str(ROOT), out=str(out)))
    p = Pty(script, "ordered", out)
    try:
        deadline = time.monotonic() + 20
        while p.value() != "Hello":  # the app takes a moment to start: type until it listens
            assert time.monotonic() < deadline, "the app never took input"
            p.write("\x15")
            p.pump()
            p.write("Hello")
            t = time.monotonic() + 0.5
            while time.monotonic() < t and p.value() != "Hello":
                p.pump()
        p.write(burst)
        p.wait_value(expected)
    finally:
        p.close()
