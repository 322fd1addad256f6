"""SVG snapshots of the match screen at 80x24 and 120x40.

Textual's own screenshot export, compared against the files in ``snapshots/``.
The drawn text is always compared; the full SVG (colours, styles) only under the
Textual version that made the files (``snapshots/TEXTUAL_VERSION``), since another
version may draw the same screen with other style ids.  To accept a change, run
``VOLTAGE_UPDATE_SNAPSHOTS=1 python -m pytest tests/tui/test_snapshots.py`` and
look at the new files (``rsvg-convert`` makes PNGs of them).
"""

from __future__ import annotations

import difflib
import os
import random
from importlib.metadata import version
from pathlib import Path

import pytest

from engine.voltage import rules as V
from server.host.common import Seat
from server.host.voltage import Match
from tests.tui.helpers import ContractHandle, FixedBackend, screen_text
from tui.app import make_app
from tui.pacing import NO_FLASH

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("VOLTAGE_UPDATE_SNAPSHOTS") == "1"
VERSION_FILE = SNAPSHOTS / "TEXTUAL_VERSION"


async def position() -> Match:
    """A mid-game position, the same every time: a dozen seeded plays and draws."""
    m = Match([Seat("Ann", "a"), Seat("Medium bot", bot=None)], seed=2024, bot_delay=0)
    rng = random.Random(7)
    n = 0
    while n < 24 or m.state.to_move != 0 or m.state.phase != V.START:
        view = m.view(m.state.to_move)
        plays = [a for a in view.legal if isinstance(a, V.Play)]
        action: V.Action
        if view.phase == "start" and plays and rng.random() < 0.8:
            action = rng.choice(plays)  # mostly "play one, then draw one": hands stay full
        elif view.phase == "second" and V.DRAW in view.legal and rng.random() < 0.8:
            action = V.DRAW
        else:
            action = rng.choice(view.legal)
        await m.handle(m.state.to_move).submit(action)
        n += 1
    return m


def text_of_svg(svg: str) -> str:
    import html
    import re

    lines: dict[str, list[str]] = {}
    for y, text in re.findall(r'<text[^>]*y="([^"]+)"[^>]*>([^<]*)</text>', svg):
        lines.setdefault(y, []).append(html.unescape(text).replace("\xa0", " "))
    return "\n".join("".join(parts).rstrip() for _, parts in sorted(lines.items(), key=lambda kv: float(kv[0])))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_match_screen_snapshot(size):
    m = await position()
    app = make_app(FixedBackend([ContractHandle(m.handle(0))]), player_name="Ann", pacing=NO_FLASH)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        svg = app.export_screenshot(title="Voltage")
        assert "Σ" in screen_text(app)
    name = f"match_{size[0]}x{size[1]}.svg"
    path = SNAPSHOTS / name
    textual = version("textual")
    if UPDATE or not path.exists():
        SNAPSHOTS.mkdir(exist_ok=True)
        path.write_text(svg, encoding="utf-8")
        VERSION_FILE.write_text(textual + "\n", encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"wrote a new snapshot {path}; look at it and run again")
        return
    want = path.read_text(encoding="utf-8")
    got_text, want_text = text_of_svg(svg), text_of_svg(want)
    if got_text != want_text:
        (SNAPSHOTS / f"{name}.new").write_text(svg, encoding="utf-8")
        diff = "\n".join(difflib.unified_diff(want_text.splitlines(), got_text.splitlines(), lineterm=""))
        pytest.fail(f"the {size} screen reads differently (new one beside the old, .new):\n{diff}")
    if VERSION_FILE.exists() and VERSION_FILE.read_text().strip() == textual:
        if svg != want:
            (SNAPSHOTS / f"{name}.new").write_text(svg, encoding="utf-8")
            pytest.fail(f"the {size} screen's colours or styles changed (new one beside the old, .new)")
