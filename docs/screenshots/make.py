"""Make the screenshots in this folder: ``python docs/screenshots/make.py`` (needs rsvg-convert).

The match screen in the snapshot tests' position (tests/tui/test_snapshots.py), at
80x24 and 120x40 on the dark theme, plus 80x24 on the light theme and without colour.
Textual exports SVG; rsvg-convert makes the PNGs (the SVG's per-span text widths
are dropped first, since librsvg misplaces text that starts with no-break spaces).
"""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from tests.tui.helpers import ContractHandle, FixedBackend  # noqa: E402
from tests.tui.test_snapshots import position  # noqa: E402
from tui.app import make_app  # noqa: E402


def to_png(svg: str, png: Path) -> None:
    svg = re.sub(r' textLength="[^"]*"', "", svg).replace("<svg ", '<svg xml:space="preserve" ', 1)
    tmp = png.with_suffix(".tmp.svg")
    tmp.write_text(svg, encoding="utf-8")
    try:
        subprocess.run(["rsvg-convert", "-o", str(png), str(tmp)], check=True)
    finally:
        tmp.unlink()


async def shot(name: str, size: tuple[int, int], *, theme: str = "textual-dark", no_color: bool = False) -> None:
    if no_color:
        os.environ["NO_COLOR"] = "1"
    try:
        m = await position()
        app = make_app(FixedBackend([ContractHandle(m.handle(0))]), player_name="Ann")
        app.flash_seconds = 0
        app.theme = theme
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await app.workers.wait_for_complete()
            await pilot.pause()
            to_png(app.export_screenshot(title="Voltage"), HERE / f"{name}.png")
    finally:
        os.environ.pop("NO_COLOR", None)
    print(HERE / f"{name}.png")


async def main() -> None:
    await shot("match-80x24", (80, 24))
    await shot("match-120x40", (120, 40))
    await shot("match-80x24-light", (80, 24), theme="textual-light")
    await shot("match-80x24-no-color", (80, 24), no_color=True)


if __name__ == "__main__":
    asyncio.run(main())
