"""A compositor that renders only the rows a partial update needs.

Textual's ``Compositor._get_renders(crop)`` picks the widgets to render for a
partial update by whether their *clip* overlaps the crop.  A widget's clip is
its container's visible area, which for most widgets of a screen is the whole
screen, so every visible widget is asked for all of its lines (and Textual
walks every one of them) to repaint one changed row.  A match screen's clock
repaints its top bar once a second: with this, that tick renders the top bar's
line and the one row of each widget beside it, instead of every line of eleven
widgets.

:class:`RowCompositor` keeps Textual's order and output and only narrows the
work: a widget is rendered when its visible region (region and clip intersected)
overlaps the crop, and only for the crop's rows.  ``_render_chops`` places the
strips by the region it is given, so the narrowed region carries them to the same
cells.  A full update passes the whole screen as its crop and is unchanged.

``tests/tui/test_frames.py`` checks, over random match updates and keys, that the
screen a terminal shows after every partial update is the screen a full render
draws (it fails with the rows shifted by one).  The override is of a private
method, so ``pyproject`` pins ``textual<9`` and that test is what tells whether a
new Textual still calls it the same way.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class RowCompositor(Compositor):
    def _get_renders(self, crop: Region | None = None) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if crop is None:
            yield from super()._get_renders(None)
            return
        crop_overlaps = crop.overlaps
        intersection = Region.intersection
        top, bottom = crop.y, crop.bottom
        # visible_widgets is front to back, as Textual's own loop goes
        for widget, (region, clip) in self.visible_widgets.items():
            shown = intersection(region, clip)
            if not shown or not crop_overlaps(shown):
                continue
            y0 = max(shown.y, top)
            y1 = min(shown.bottom, bottom)
            rows = Region(shown.x, y0, shown.width, y1 - y0)
            strips = widget.render_lines(Region(rows.x - region.x, y0 - region.y, rows.width, rows.height))
            yield rows, rows, strips


def install(screen: object) -> None:
    """Give ``screen`` (a Textual Screen, before it is mounted) a :class:`RowCompositor`."""
    compositor = getattr(screen, "_compositor", None)
    if type(compositor) is Compositor:
        screen._compositor = RowCompositor()  # type: ignore[attr-defined]  # Textual's private attribute
