"""Tests of what a piece of ``tui/textual_compat`` buys run where the piece applies: on another Textual
(``make textual-latest``) the piece backs off, and its test is skipped, saying so, so that what fails
there is what breaks, not what a piece no longer buys."""

from __future__ import annotations

import pytest

from tui.textual_compat import gate

# What the process's one line says when pieces back off, on another Textual or as VOLTAGE_TEXTUAL_COMPAT
# asks (a command's stderr may hold it).
BACKED_OFF_LINES = (f"tui.textual_compat was written for {gate.WRITTEN_FOR}", "VOLTAGE_TEXTUAL_COMPAT=")


def needs(*pieces: str) -> pytest.MarkDecorator:
    """Skip the test where one of ``pieces`` is backed off."""
    off = [piece for piece in pieces if not gate.enabled(piece)]
    return pytest.mark.skipif(
        bool(off), reason=f"{', '.join(off)} backed off on Textual {gate.installed_version()}")


def without_backed_off_line(text: str) -> str:
    """``text`` (a process's stderr) less the pieces' one line."""
    return "\n".join(line for line in text.splitlines() if not any(m in line for m in BACKED_OFF_LINES))
