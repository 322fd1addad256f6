"""Rows drawn over whole by the widgets in front are not rendered (piece ``covered-rows``), and the
picture is Textual's own, cell for cell."""

from __future__ import annotations

import random
from functools import partial
from typing import Any

import pytest
from textual.geometry import Region
from textual.strip import Strip

from server.host.common import Seat
from server.host.voltage import Match
from tests.support.compat import needs
from tests.tui.helpers import FixedBackend, local_app
from tui.app import make_app
from tui.pacing import FAST
from tui.textual_compat.gate import private
from tui.textual_compat.screens import _uncovered_runs


def test_a_row_is_left_out_exactly_where_the_spans_in_front_cover_it() -> None:
    rng = random.Random(5)
    for _ in range(300):
        drawn: dict[int, list[tuple[int, int]]] = {}
        cells: dict[int, set[int]] = {}  # the same, cell by cell
        for _ in range(rng.randint(1, 8)):
            x0 = rng.randint(0, 30)
            x1 = x0 + rng.randint(1, 20)
            y0 = rng.randint(0, 10)
            y1 = y0 + rng.randint(1, 6)
            runs = _uncovered_runs(drawn, x0, x1, y0, y1)
            rendered = {y for r0, r1 in runs for y in range(r0, r1)}
            expected = {y for y in range(y0, y1) if not set(range(x0, x1)) <= cells.get(y, set())}
            assert rendered == expected
            assert all(r0 < r1 for r0, r1 in runs) and runs == sorted(runs)
            for y in range(y0, y1):
                cells.setdefault(y, set()).update(range(x0, x1))
        for y, spans in drawn.items():  # merged: sorted, apart, the cells drawn
            assert all(a1 < b0 for (_a0, a1), (b0, _b1) in zip(spans, spans[1:], strict=False))
            assert {x for s0, s1 in spans for x in range(s0, s1)} == cells[y]


def _apps() -> dict[str, Any]:
    match = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=3, bot_delay=0)
    return {
        "start": lambda: local_app()[0],
        "voltage-match": lambda: make_app(FixedBackend([match.handle(0)]), player_name="Ann", pacing=FAST),
    }


@needs("row-renders", "covered-rows")
@pytest.mark.parametrize("screen", ["start", "voltage-match"])
async def test_a_full_frame_renders_only_the_rows_not_covered_and_shows_textual_s_picture(screen: str) -> None:
    app = _apps()[screen]()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        assert type(compositor).__name__ == "RowCompositor"
        region = compositor.size.region

        def picture(get_renders: Any) -> tuple[list[list[tuple[str, Any]]], int]:
            rendered = [0]

            def counted(crop: Region | None = None) -> Any:
                for where, clip, strips in get_renders(crop):
                    rendered[0] += len(strips)
                    yield where, clip, strips

            compositor._get_renders = counted
            try:
                chops = compositor._render_chops(region, lambda y: True)
            finally:
                del compositor._get_renders
            return [[(s.text, s.style) for s in Strip.join(chop.values())] for chop in chops], rendered[0]

        ours, our_lines = picture(compositor._get_renders)
        textual = private("textual._compositor", "Compositor")
        theirs, their_lines = picture(partial(textual._get_renders, compositor))  # Textual's own renders

    assert ours == theirs  # the same cells, the same styles
    assert our_lines >= region.height  # every row is somebody's
    # the containers under the panels, the screen under them all: their covered rows are left out
    assert our_lines < their_lines * 0.75, (our_lines, their_lines)
