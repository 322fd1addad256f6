"""What the games' arenas (``voltage arena``: :mod:`engine.voltage.arena`,
:mod:`engine.highvoltage.arena`) share."""

from __future__ import annotations

import json
import sys
from typing import Any


def write_json_line(record: Any) -> None:
    """``record`` as one JSON line on stdout, flushed, in one write: ``print()`` writes the text and
    its newline apart, and a Ctrl-C between the two glued the line to the summary that follows it."""
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


__all__ = ["write_json_line"]
