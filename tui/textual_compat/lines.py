"""Painted widgets' lines drawn without Textual's styles cache: piece ``plain-lines``.

What the styles cache does to a plain widget's line (no padding, outline, tint, hatch or opacity, no
border but a top one) is nothing but copy it into a new strip (``StylesCache.render_line``, its case
C) and filter it; the copy defeats the strip's own filter cache, so every frame filtered every dirty
line again.  :class:`tui.widgets.lines.LineWidget` hands its painted strips over itself where
:func:`plain_lines` says so, filtered as the styles cache would filter them; this module is what
it knows of the styles cache and of Textual's line filters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual.geometry import Size
from textual.widget import Widget

from tui.textual_compat.gate import enabled

if TYPE_CHECKING:
    from textual.color import Color
    from textual.filter import LineFilter
    from textual.strip import Strip


def plain_lines() -> bool:
    """Whether a plain painted widget may draw its lines itself (else Textual's styles cache draws them)."""
    return enabled("plain-lines")


def forget_drawn_lines(widget: Any) -> None:
    """Drop the lines ``widget``'s styles cache kept (they may be from the other path)."""
    if enabled("plain-lines"):
        widget._styles_cache.clear()


def filters_for_rows(widget: Any, kinds: frozenset[str]) -> tuple[tuple[LineFilter, ...], Color] | None:
    """The app's enabled line filters and ``widget``'s background (what a filter blends with), when
    every filter is one of Textual's own named in ``kinds`` (those that act on each segment's style
    alone, so a row's styles can be filtered once, when the row is made); else None."""
    filters = tuple(widget.app.get_line_filters())
    if not all(type(f).__name__ in kinds and type(f).__module__ == "textual.filter" for f in filters):
        return None
    return filters, widget.background_colors[1]


def filter_lines(
    widget: Any, strips: list[Strip], filtered: tuple[tuple[LineFilter, ...], Color] | None
) -> list[Strip]:
    """``strips`` of ``widget`` through the app's line filters, as the styles cache filters a line;
    unchanged when they were painted through these very filters (``filtered``)."""
    filters = widget.app.get_line_filters()
    if filters and (filtered is None or tuple(filters) != filtered[0]):
        background = widget.background_colors[1]
        for f in filters:
            strips = [strip.apply_filter(f, background) for strip in strips]
    return strips


_WIDGET_SIZE: Callable[[Widget], Size] | None = vars(Widget)["size"].fget  # Textual's own Widget.size


def content_size(widget: Widget) -> Size:
    """``widget.size`` (its content's size, Textual's ``Widget.size``), without walking up to the screen
    and looking the widget up in the screen's map each time (piece ``known-size``).

    The size is kept on the widget with the entry of the map it was read from, and is good while the
    map holds that very entry: a layout makes a new map and new entries (a new size, a new place or a
    new gutter all come with one), and a map Textual marks as out of date is never trusted.  The widget
    must not move to another screen (nothing here moves one)."""
    known = widget.__dict__.get("_known_size")  # (the compositor, its map's entry, the size)
    if known is not None:
        compositor = known[0]
        if not compositor._full_map_invalidated and compositor._full_map.get(widget) is known[1]:
            return known[2]
    assert _WIDGET_SIZE is not None
    size: Size = _WIDGET_SIZE(widget)
    if enabled("known-size") and widget.is_attached:
        try:
            compositor = widget.screen._compositor
        except Exception:  # no screen (yet, or any more): nothing to keep
            return size
        if not compositor._full_map_invalidated:
            entry = compositor._full_map.get(widget)
            if entry is not None:
                widget.__dict__["_known_size"] = (compositor, entry, size)
    return size
