"""What a screen changes of Textual: a compositor that renders only the rows a partial update needs,
and a new screen styled once.

**Row renders.**  Textual's ``Compositor._get_renders(crop)`` picks the widgets to render for a
partial update by whether their *clip* overlaps the crop.  A widget's clip is its container's visible
area, for most widgets of a screen the whole screen, so every visible widget was asked for all of its
lines to repaint one changed row.  :class:`RowCompositor` keeps Textual's order and output and only
narrows the work: a widget is rendered when its visible region (region and clip intersected) overlaps
the crop, and only for the crop's rows (``_render_chops`` places the strips by the region it is given,
so the narrowed region carries them to the same cells).  A full update passes the whole screen as its
crop and is unchanged.  ``tests/tui/test_frames.py`` checks that the screen a terminal shows after
every partial update is the one a full render draws.

**Styled once.**  A new screen's styles are worked out as it mounts; :class:`PresetScreen` sets its
breakpoint classes before, so the first resize changes none, and its first resume does not restyle
what has just been styled (a screen resumed later, after another, still is): it styles the screen's
own node alone, which was styled before the screen's CSS was read.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual import events
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip

from tui.textual_compat.gate import enabled, private

_Compositor: Any = private("textual._compositor", "Compositor")


def _row_compositor_class() -> Any:
    """The compositor class of the ``row-renders`` piece (None where Textual has no such compositor)."""
    if _Compositor is None or not hasattr(_Compositor, "_get_renders"):
        return None

    class RowCompositor(_Compositor):
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

    return RowCompositor


RowCompositor: Any = _row_compositor_class()


def install_row_renders(screen: Screen[Any]) -> bool:
    """Give ``screen`` (before it is mounted) a :class:`RowCompositor`: piece ``row-renders``."""
    if RowCompositor is None or not enabled("row-renders"):
        return False
    if type(getattr(screen, "_compositor", None)) is not _Compositor:
        return False
    screen._compositor = RowCompositor()
    return True


class PresetScreen(Screen[Any]):
    """Textual's Screen with the pieces that act on a screen: ``row-renders`` and ``first-style``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        install_row_renders(self)  # a one-row repaint renders one row
        self._resumed = not enabled("first-style")
        if not self._resumed:
            self._preset_breakpoints()

    # A new screen's styles are worked out once, as it mounts (a third of a session's
    # first frame was styling the same nodes again): its breakpoint classes are set
    # before, so the first resize changes none, and its first resume does not restyle
    # what has just been styled (a screen resumed later, after another, still does).
    def _preset_breakpoints(self) -> None:
        try:
            width, height = self.app.size
        except Exception:  # no app running (a screen made outside one)
            return
        for dimension, breakpoints in ((width, self.HORIZONTAL_BREAKPOINTS), (height, self.VERTICAL_BREAKPOINTS)):
            self.add_class(*self._get_breakpoint_classes(dimension, breakpoints or []))

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._resumed:
            self._resumed = True
            event.refresh_styles = False
            # The screen's own node was styled as it was registered, before its CSS (its ``CSS``
            # or ``CSS_PATH``, read as it is first pushed) was in the stylesheet: its children
            # have their styles, the node may not (a first start screen not centred).
            self.app.stylesheet.update_nodes([self])
        textual_own = getattr(super(), "_on_screen_resume", None)  # (another Textual may have none)
        if textual_own is not None:
            textual_own(event)
