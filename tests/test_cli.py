"""The ``voltage`` command run for real, in a subprocess: every subcommand ends quietly
when its output is closed (no traceback, exit 0 or 141) and on SIGINT (exit 130, at most
one short line on stderr)."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.compat import without_backed_off_line
from tests.support.process import ctrl_c_reaches_it
from voltage.cli import EXIT_INTERRUPTED, EXIT_PIPE, build_parser

ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 90.0  # seconds: a loaded machine, never a timing target


def voltage_command() -> list[str]:
    """The installed console script beside this interpreter, else ``python -m voltage``."""
    script = Path(sys.executable).parent / "voltage"
    if script.exists():
        return [str(script)]
    found = shutil.which("voltage")
    return [found] if found else [sys.executable, "-m", "voltage"]


def start(args: list[str], **kw) -> subprocess.Popen:
    return subprocess.Popen(voltage_command() + args, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
                            preexec_fn=ctrl_c_reaches_it, **kw)


def assert_quiet(stderr: bytes, lines: int = 0) -> None:
    text = without_backed_off_line(stderr.decode(errors="replace"))  # (on another Textual: its one line)
    assert "Traceback" not in text and "Exception ignored" not in text, text
    assert len(text.splitlines()) <= lines, text


def quiet_commands(tmp_path: Path) -> list[list[str]]:
    return [
        ["arena", "--json", "--games", "40", "--workers", "1"],
        ["arena", "--games", "4", "--workers", "1"],
        ["arena", "--game", "high-voltage", "--json", "--games", "40"],
        ["arena", "--game", "high-voltage", "--games", "4"],
        ["--help"],
        ["arena", "--help"],
        ["play", "--help"],
        ["serve", "--help"],
        ["replay", "--help"],
        ["serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", str(tmp_path / "srv")],
    ]


def test_every_command_ends_quietly_when_its_output_is_already_closed(tmp_path):
    for args in quiet_commands(tmp_path):
        r, w = os.pipe()
        os.close(r)  # the reader is gone before the first write: every write fails
        try:
            p = start(args, stdout=w)
        finally:
            os.close(w)
        _, err = p.communicate(timeout=DEADLINE)
        assert_quiet(err)
        assert p.returncode in (0, EXIT_PIPE), (args, p.returncode, err)


@pytest.mark.parametrize("game", ["voltage", "high-voltage"])
def test_arena_json_into_head_stops_quietly_after_the_first_line(game):
    # `voltage arena --json | head -n 1`: read one line, close, the next write ends it.
    p = start(["arena", "--game", game, "--json", "--games", "100000"], stdout=subprocess.PIPE)
    first = p.stdout.readline()
    assert first.startswith(b"{"), first
    p.stdout.close()
    _, err = p.communicate(timeout=DEADLINE)
    assert_quiet(err)
    assert p.returncode == EXIT_PIPE


@pytest.mark.parametrize("game", ["voltage", "high-voltage"])
def test_ctrl_c_ends_an_arena_quietly_with_130(game):
    p = start(["arena", "--game", game, "--json", "--games", "100000"], stdout=subprocess.PIPE)
    assert p.stdout.readline().startswith(b"{")
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=DEADLINE)
    assert_quiet(err, lines=1)
    assert p.returncode == EXIT_INTERRUPTED
    assert b'"interrupted": true' in out  # the summary of what was played still comes


def test_ctrl_c_stops_the_server_quietly_with_130(tmp_path):
    p = start(["serve", "--port", "0", "--host", "127.0.0.1", "--data-dir", str(tmp_path)], stdout=subprocess.PIPE)
    assert p.stdout.readline().startswith(b"Voltage is serving")
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=DEADLINE)
    assert_quiet(err, lines=1)
    assert p.returncode == EXIT_INTERRUPTED


def test_sigint_ends_voltage_play_quietly_with_130():
    # Not on a terminal, Textual draws on stderr: wait for the start screen's key bar.
    p = start(["play"], stdout=subprocess.PIPE)
    seen = b""
    end = time.monotonic() + DEADLINE
    while b"quit" not in seen:
        assert time.monotonic() < end and p.poll() is None, seen[-500:]
        ready, _, _ = select.select([p.stderr], [], [], 0.5)
        if ready:
            seen += os.read(p.stderr.fileno(), 65536)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=DEADLINE)
    assert b"Traceback" not in seen + err and b"KeyboardInterrupt" not in seen + err
    assert p.returncode == EXIT_INTERRUPTED


@pytest.mark.parametrize("value", ["40", "0:5", "2:0", "a:b", "2:5:1"])
def test_a_bad_sessions_per_address_is_refused_with_its_form(value, capsys):
    with pytest.raises(SystemExit) as e:
        build_parser().parse_args(["serve", "--sessions-per-address", value])
    assert e.value.code == 2
    assert "BURST" in capsys.readouterr().err


def test_sessions_per_address_reaches_the_edges_of_a_split_server():
    from voltage.cli import _limits

    args = build_parser().parse_args(["serve", "--sessions-per-address", "40:0.5"])
    assert args.sessions_per_address == (40.0, 0.5)
    assert _limits(args) == {"sessions_per_address": (40.0, 0.5)}
