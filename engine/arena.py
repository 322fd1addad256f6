"""What the games' arenas (``voltage arena``: :mod:`engine.voltage.arena`,
:mod:`engine.highvoltage.arena`) share."""

from __future__ import annotations

import contextlib
import json
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any


def write_json_line(record: Any) -> None:
    """``record`` as one JSON line on stdout, flushed, in one write: ``print()`` writes the text and
    its newline apart, and a Ctrl-C between the two glued the line to the summary that follows it."""
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


@contextlib.contextmanager
def ctrl_c_held() -> Iterator[None]:
    """A Ctrl-C in the block waits for its end: an arena counts a match and writes its line as one
    step, so its summary never counts a match whose line a Ctrl-C between the two kept from being
    written (a CI failure: 5 counted, 4 lines).  Outside the main thread (no signal handlers there)
    the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
    if pressed:
        raise KeyboardInterrupt


__all__ = ["ctrl_c_held", "write_json_line"]
