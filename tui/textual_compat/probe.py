"""What each piece needs of Textual that the installed one lacks: for ``make textual-latest``.

The gate backs every piece off on another version; this says, per piece, whether the private names it
reaches for are still there (and the code it replaces still reads as expected), so a newer Textual can
be judged piece by piece before the pin is raised.  A piece that finds everything may still draw
differently: the suite run with ``VOLTAGE_TEXTUAL_COMPAT=force`` says that.
"""

from __future__ import annotations

from typing import Any

from tui.textual_compat import callbacks, content_strips, dispatch, overlays, screens, session, strips, styles
from tui.textual_compat.dismantle import component_classes_as_expected
from tui.textual_compat.gate import PIECES, private


def _has(obj: Any, *names: str) -> list[str]:
    kind = obj if isinstance(obj, type) else type(obj)
    return [f"{kind.__name__}.{name}" for name in names if not hasattr(obj, name)]


def _module(module: str, *names: str) -> list[str]:
    return [f"{module}.{name}" for name in names if private(module, name) is None]


def missing() -> dict[str, list[str]]:
    """Per piece (every name of :data:`PIECES`), what it needs that this Textual lacks; an empty
    list where everything is there."""
    from textual.app import App
    from textual.cache import LRUCache
    from textual.css.stylesheet import Stylesheet
    from textual.screen import Screen
    from textual.widget import Widget

    app: App[None] = App()
    screen: Screen[None] = Screen()
    widget = Widget()
    parser_class = private("textual._xterm_parser", "XTermParser")
    parser = parser_class() if parser_class is not None else None
    styles_cache = private("textual._styles_cache", "StylesCache")
    extended = getattr(parser_class, "_parse_extended_key", None)
    compositor = private("textual._compositor", "Compositor")
    row_renders = (_module("textual._compositor", "Compositor") + _has(screen, "_compositor")
                   + ([] if compositor is None else _has(compositor, "_get_renders")))
    found: dict[str, list[str]] = {
        "frames": _module("textual._compositor", "CompositorUpdate", "ChopsUpdate", "LayoutUpdate")
        + _has(app, "_display", "_driver", "_batch_count", "_begin_update", "_end_update", "_handle_exception",
               "_running", "_closed")
        + _has(app.console, "_color_system"),
        "paint-now": _has(screen, "_compositor", "_layout_required", "_scroll_required", "_message_queue", "_nodes")
        + _has(widget, "_styles_cache", "_layout_required", "_scroll_required", "_refresh_styles_required")
        + _has(screen._message_queue, "values"),
        "direct-rows": _has(screen, "_compositor", "_layout_required", "_scroll_required", "_message_queue", "_nodes")
        + _has(widget, "_styles_cache", "_layout_required", "_scroll_required", "_refresh_styles_required")
        + _has(screen._message_queue, "values"),
        "row-renders": row_renders,
        "covered-rows": row_renders + ([] if compositor is None else _has(compositor, "_render_chops")),
        "plain-lines": _has(widget, "_styles_cache"),
        "first-style": _has(screen, "_on_screen_resume", "_get_breakpoint_classes"),
        "one-layout": _has(screen, "_refresh_layout", "_screen_resized", "_compositor_refresh", "_compositor",
                           "_layout_required", "_layout_widgets", "_repaint_required")
        + screens._size_updated_unexpected()
        + _has(screen._compositor, "_dirty_regions", "size")
        + _has(app, "_on_resize", "_end_batch", "_batch_count", "_size", "get_default_screen", "is_inline"),
        "prompt-update": _has(screen, "_on_timer_update", "_layout_required", "_scroll_required", "_repaint_required",
                              "_recompose_required", "_dirty_widgets")
        + _has(Screen, "is_current", "is_attached")
        + _has(app, "_batch_count", "_registry", "_message_queue")
        + screens.prompt_update_unexpected(),
        "title-rows": _module("textual.widget", "_BorderTitle") + _has(widget, "_border_title", "_border_subtitle"),
        "style-cache": styles.unexpected(),
        "strips": strips.unexpected(),
        "dismantle": _module("textual._context", "active_app") + _has(app, "_registry")
        + _has(LRUCache(1), "_cache") + component_classes_as_expected(Stylesheet),
        "input-parser": _module("textual._xterm_parser", "XTermParser")
        + ([] if hasattr(extended, "__wrapped__") else ["XTermParser._parse_extended_key (an lru_cache)"]),
        "escape-deadline": [] if parser is None else _has(parser, "_timeout_time"),
        "method-caches": _module("textual._styles_cache", "StylesCache")
        + ([] if hasattr(getattr(styles_cache, "get_inner_outer", None), "cache_clear")
           else ["StylesCache.get_inner_outer (an lru_cache)"]),
        "shared-css": _has(app.stylesheet, "_parse_cache", "_variables"),
        "param-counts": callbacks.unexpected(),
        "dispatch-plans": dispatch.unexpected(),
        "content-strips": content_strips.unexpected(),
        "theme-tokens": session.theme_tokens_unexpected(app.stylesheet),
        "no-overlays": overlays.unexpected(),
        "known-size": _has(screen._compositor, "_full_map", "_full_map_invalidated")
        + ([] if isinstance(getattr(Widget, "size", None), property) else ["Widget.size (a property)"]),
    }
    assert set(found) == set(PIECES)
    return found
