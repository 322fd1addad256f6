"""What a screen changes of Textual: a compositor that renders only the rows a partial update needs,
and a new screen styled once.

**Row renders.**  Textual's ``Compositor._get_renders(crop)`` picks the widgets to render for a
partial update by whether their *clip* overlaps the crop.  A widget's clip is its container's visible
area, for most widgets of a screen the whole screen, so every visible widget was asked for all of its
lines to repaint one changed row.  :class:`RowCompositor` keeps Textual's order and output and only
narrows the work: a widget is rendered when its visible region (region and clip intersected) overlaps
the crop, and only for the crop's rows (``_render_chops`` places the strips by the region it is given,
so the narrowed region carries them to the same cells).  A full update passes the whole screen as its
crop and is unchanged.  With ``covered-rows`` the rows of a widget that the widgets in front of it
draw over whole are not rendered either: ``_render_chops`` keeps the front one's cells, whoever
comes after (a container under its children, the screen under everything).
``tests/tui/test_frames.py`` checks that the screen a terminal shows after every partial update is
the one a full render draws; ``tests/tui/test_covered_rows.py`` that a full render is Textual's.

**Styled once.**  A new screen's styles are worked out as it mounts; :class:`PresetScreen` sets its
breakpoint classes before, so the first resize changes none, and its first resume does not restyle
what has just been styled (a screen resumed later, after another, still is): it styles the screen's
own node alone, which was styled before the screen's CSS was read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from time import monotonic
from typing import Any

from textual import events
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from tui.textual_compat.gate import enabled, private, reads_as

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
            hidden = enabled("covered-rows")
            drawn: dict[int, list[tuple[int, int]]] = {}  # per row, the spans drawn already (covered-rows)
            # visible_widgets is front to back, as Textual's own loop goes
            for widget, (region, clip) in self.visible_widgets.items():
                shown = intersection(region, clip)
                if not shown or not crop_overlaps(shown):
                    continue
                y0 = max(shown.y, top)
                y1 = min(shown.bottom, bottom)
                runs = _uncovered_runs(drawn, shown.x, shown.right, y0, y1) if hidden else ((y0, y1),)
                for r0, r1 in runs:
                    rows = Region(shown.x, r0, shown.width, r1 - r0)
                    strips = widget.render_lines(Region(rows.x - region.x, r0 - region.y, rows.width, rows.height))
                    yield rows, rows, strips

    return RowCompositor


def _add_span(spans: list[tuple[int, int]], x0: int, x1: int) -> bool:
    """Add the cells ``x0``-``x1`` to a row's ``spans`` (sorted, merged); False if they held them all
    already (nothing is added then)."""
    merged: list[tuple[int, int]] = []
    a, b = x0, x1
    for s0, s1 in spans:
        if s0 <= x0 and x1 <= s1:
            return False
        if s1 < a or s0 > b:
            merged.append((s0, s1))
        else:
            a, b = min(a, s0), max(b, s1)
    merged.append((a, b))
    merged.sort()
    spans[:] = merged
    return True


def _uncovered_runs(drawn: dict[int, list[tuple[int, int]]], x0: int, x1: int, y0: int,
                    y1: int) -> list[tuple[int, int]]:
    """The runs of rows ``y0``-``y1`` whose cells ``x0``-``x1`` are not all drawn already by the widgets
    in front (``drawn``: each row's spans, merged); the spans ``x0``-``x1`` of these rows are added."""
    runs: list[tuple[int, int]] = []
    start = -1
    for y in range(y0, y1):
        if _add_span(drawn.setdefault(y, []), x0, x1):
            if start < 0:
                start = y
        elif start >= 0:
            runs.append((start, y))
            start = -1
    if start >= 0:
        runs.append((start, y1))
    return runs


RowCompositor: Any = _row_compositor_class()


def install_row_renders(screen: Screen[Any]) -> bool:
    """Give ``screen`` (before it is mounted) a :class:`RowCompositor`: piece ``row-renders``."""
    if RowCompositor is None or not enabled("row-renders"):
        return False
    if type(getattr(screen, "_compositor", None)) is not _Compositor:
        return False
    screen._compositor = RowCompositor()
    return True


# -- a layout's sizes given without asking for another layout (one-layout) ------------------------
# Textual gives each widget its size after a layout as a reactive that asks for a layout and a
# repaint of the widget when it changes: every layout that resized anything was followed by a second
# layout of the screen and a repaint of what the first had just drawn (the whole screen, when the
# screen's own size changed: every first frame).  In a PresetScreen's layout the sizes are given as
# Textual gives them after a scroll (``layout=False``): the widgets resized are drawn by the layout's
# own frame (Textual marks them dirty), and scrollbars that come or go still ask for a layout (their
# own reactives do).  Scroll views keep their own ``_size_updated``.

_LAYING_OUT = [0]  # PresetScreen layouts under way (one at a time: a layout is synchronous)
_SIZE_UPDATED: dict[str, Any] = {}


def _quiet_sizes() -> bool:
    """Widget._size_updated wrapped once per process (True where it could be)."""
    if "original" in _SIZE_UPDATED:
        return True
    original = getattr(Widget, "_size_updated", None)
    if original is None or _size_updated_unexpected(original):
        return False

    def _size_updated(self: Widget, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        if layout and _LAYING_OUT[0]:
            layout = False
        return bool(original(self, size, virtual_size, container_size, layout))

    _SIZE_UPDATED["original"] = original
    setattr(Widget, "_size_updated", _size_updated)  # noqa: B010 - a class's method, wrapped
    return True


def _size_updated_unexpected(method: Any = None) -> list[str]:
    """What of Textual's ``Widget._size_updated`` the wrap misses (for the probe)."""
    method = _SIZE_UPDATED.get("original") or method or getattr(Widget, "_size_updated", None)
    needles = ("layout: bool = True", "self.set_reactive(Widget.virtual_size, virtual_size)")
    return [] if reads_as(method, needles) else ["Widget._size_updated (its source)"]


UPDATE_PERIOD: float = private("textual.screen", "UPDATE_PERIOD") or 1 / 60  # (Textual's update timer's)


def prompt_update_unexpected() -> list[str]:
    """What of Textual's screen update the ``prompt-update`` piece misses (for the probe)."""
    lacks = [] if private("textual.screen", "UPDATE_PERIOD") else ["textual.screen.UPDATE_PERIOD"]
    idle = getattr(Screen, "_on_idle", None)
    needles = ("self._update_timer.resume()", "self._dirty_widgets")
    return lacks + ([] if reads_as(idle, needles) else ["Screen._on_idle (its source)"])


def _all_quiet(app: Any) -> bool:
    """Has every node of the app handled its messages (nothing more on its way to the screen)?"""
    return not app._message_queue.qsize() and all(not node._message_queue.qsize() for node in app._registry)


class PresetScreen(Screen[Any]):
    """Textual's Screen with the pieces that act on a screen: ``row-renders``, ``first-style`` and
    ``one-layout``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        install_row_renders(self)  # a one-row repaint renders one row
        self._resumed = not enabled("first-style")
        if not self._resumed:
            self._preset_breakpoints()
        self._laid_out_at: Size | None = None  # the size of its last whole layout (one-layout)

    # -- laid out once per size (one-layout) ----------------------------------------------------
    # Textual lays a screen out again on every Resize it is sent, though nothing changed: its own
    # first layout sends the screen a Resize (the screen is a widget just shown), which lays it and
    # every screen under it out again; the app sends each screen the terminal's size again when the
    # driver says the size it already had.  A screen laid out at this size, with no layout asked
    # for since, would come out the same: it is not laid out again (a layout asked for is done by
    # Textual's update timer, as always).

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        whole = not (scroll and not self._layout_widgets)  # (Textual's test: a scroll alone reflows less)
        quiet = enabled("one-layout") and _quiet_sizes()
        if quiet:
            _LAYING_OUT[0] += 1
        try:
            super()._refresh_layout(size, scroll)
        finally:
            if quiet:
                _LAYING_OUT[0] -= 1
        if whole:
            self._laid_out_at = self.outer_size if size is None else size
            if enabled("one-layout"):
                # (what was asked before is in this layout: Textual's update timer says so after its
                # own layouts, not after a resize's or a resume's, and so laid the screen out again)
                self._layout_required = False

    # -- an update after a quiet spell drawn at once (prompt-update) ---------------------------------
    # Textual draws a screen's changes on its update timer, which the screen's idle resumes: a change
    # after a quiet spell (a session's first frame, a key in the lobby) waited up to an update period
    # (1/60 s) with nothing to do.  Such a change is drawn as soon as the app has handled every message
    # on its way (a mount's focus, a notice: the screen would be drawn again for them), looked at once
    # per turn of the loop; changes that come faster than the period still wait for the timer (which
    # runs as ever, in case), so a burst is drawn no more often than before.

    _updated_at = float("-inf")
    _prompt_looks = -1  # turns of the loop the pending prompt update has looked (-1: none pending)
    PROMPT_LOOKS = 16  # turns of the loop a prompt update waits for the app's messages, at most

    def _on_timer_update(self) -> None:
        self._updated_at = monotonic()
        super()._on_timer_update()

    def _update_due(self) -> bool:
        return (
            monotonic() - self._updated_at >= UPDATE_PERIOD
            and not self.app._batch_count
            and bool(self._layout_required or self._scroll_required or self._repaint_required
                     or self._recompose_required or self._dirty_widgets)
            and self.is_current
        )

    async def _on_idle(self, event: events.Idle) -> None:
        # (Textual's own ``_on_idle``, which resumes the timer, runs after this one unless it drew)
        if not enabled("prompt-update") or not self._update_due():
            return
        if _all_quiet(self.app):
            event.prevent_default()
            self._on_timer_update()
        elif self._prompt_looks < 0:  # (one look per turn of the loop, however many idles come meanwhile)
            self._prompt_looks = 0
            asyncio.get_running_loop().call_soon(self._prompt_update)

    def _prompt_update(self) -> None:
        if not self.is_attached or not self._update_due():
            self._prompt_looks = -1  # (drawn by the timer meanwhile, or gone)
        elif _all_quiet(self.app):
            self._prompt_looks = -1
            self._on_timer_update()
        elif self._prompt_looks < self.PROMPT_LOOKS:
            self._prompt_looks += 1
            asyncio.get_running_loop().call_soon(self._prompt_update)
        else:
            self._prompt_looks = -1  # (the timer draws it)

    def _screen_resized(self, size: Size) -> None:
        if (size == self._laid_out_at and not self._layout_required and not self._layout_widgets
                and enabled("one-layout")):
            return
        super()._screen_resized(size)

    # Textual's screen repaints itself whole when the focus moves (its ``focused`` is a reactive that
    # repaints): the two widgets the focus left and reached restyle and repaint themselves already.
    _focusing = False

    def set_focus(self, *args: Any, **kwargs: Any) -> None:
        self._focusing = enabled("one-layout")
        try:
            super().set_focus(*args, **kwargs)
        finally:
            self._focusing = False

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False,
                recompose: bool = False) -> Any:
        if self._focusing and not (regions or layout or recompose):
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    # A screen laid out while the app batches its updates (the app's start: its first screen is
    # composed, mounted and laid out inside Textual's own batch) rendered a whole frame that
    # Textual then threw away.  It renders nothing then; its next frame after the batch is whole.
    def _compositor_refresh(self) -> None:
        app = self.app
        if app._batch_count and self is app.screen and not app.is_inline and enabled("one-layout"):
            self._compositor._dirty_regions.add(self._compositor.size.region)
            self._repaint_required = True  # (the screen's next idle draws it, once the batch is over)
            return
        whole = self._compositor.size.region in self._compositor._dirty_regions and self is app.screen
        super()._compositor_refresh()
        if whole and not app.is_inline and enabled("one-layout"):
            self._repaint_required = False  # (it was just drawn whole: not once more after a layout)

    # A new screen's styles are worked out once, as it mounts (a third of a session's
    # first frame was styling the same nodes again): its breakpoint classes are set
    # before, so the first resize changes none, and its first resume does not restyle
    # what has just been styled (a screen resumed later, after another, still does).
    def _preset_breakpoints(self) -> None:
        try:
            width, height = self.app.size
        except Exception:  # no app running (a screen made outside one)
            return
        # (no restyle now: the screen is styled as it is registered, and again as it first resumes, below)
        classes = [name for dimension, breakpoints in ((width, self.HORIZONTAL_BREAKPOINTS),
                                                       (height, self.VERTICAL_BREAKPOINTS))
                   for name in self._get_breakpoint_classes(dimension, breakpoints or [])]
        if classes:
            self.add_class(*classes, update=False)

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
