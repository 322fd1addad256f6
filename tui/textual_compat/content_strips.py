"""A widget's content rendered once per process for the same words, size and styles: piece ``content-strips``.

A widget drawn afresh renders its content to lines (``Content.render_strips``: wrapped, aligned
and styled), and every session draws its screens afresh: each new session's lobby renders the
same headings, menu lines and help in the same width as the last one did.  Counted over a
session's start among others (``benchmarks/session_start.py``), 450 of 492 renders had been made
before by another session.

What ``render_strips`` makes depends on nothing but its arguments: the content (its text and
spans), the width and height, the base style, four of the widget's rules (``text-align``,
``text-overflow``, ``text-wrap``, ``line-pad``), the post style, the selection, and, for a span
whose style is a string, how the widget reads it.  A string naming a component class (``.name``)
is read from the widget's own ancestors, so content with one is rendered as Textual does, and so is
content with a selection (a player selecting text).  Any other string is parsed on its own
(``Style.parse``), the same for every widget.  The rest is kept in a bounded process-wide cache
(:data:`LIMIT` entries, the least recently used dropped), keyed by all of those.  A strip is never
changed once made (what Textual derives from one is a new strip), so the apps share them as they
share the parsed CSS.  :func:`forget_content_strips` empties the cache (a process giving memory
back, :mod:`server.memory`).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from tui.textual_compat.gate import may_patch, private, reads_as

#: How many renders are kept (a lobby's first frame makes about twenty different ones per language
#: and width).
LIMIT = 512

_Content: Any = private("textual.content", "Content")
_KEPT: OrderedDict[tuple[Any, ...], tuple[Any, ...]] = OrderedDict()
_ORIGINAL: dict[str, Any] = {}
# What Textual's method must read as: every input it reads is in the key below.
_EXPECTED = (
    "options.rules.get", '"text_align"', '"text_overflow"', '"text_wrap"', '"line_pad"', "tab_size=8",
    "selection=options.selection", "selection_style=options.selection_style", "post_style=options.post_style",
    "get_style=options.get_style", "line.to_strip(style)", "lines[:height]",
)


def unexpected() -> list[str]:
    """What of Textual's ``Content.render_strips`` this piece misses (for the probe)."""
    if _Content is None:
        return ["textual.content.Content"]
    method = _ORIGINAL.get("render_strips") or getattr(_Content, "render_strips", None)
    missing = [] if method is not None and reads_as(method, _EXPECTED) else ["Content.render_strips (its source)"]
    slots = getattr(_Content, "__slots__", ())
    return missing + [f"Content.{name}" for name in ("_text", "_spans") if name not in slots]


def _key(content: Any, width: int, height: int | None, style: Any, options: Any) -> tuple[Any, ...] | None:
    """What the render of ``content`` depends on, or None where it depends on the widget as well
    (a span styled by a component class's name) or on a selection."""
    if options.selection is not None:
        return None
    spans = content._spans
    for span in spans:
        named = span.style
        if type(named) is str and named.startswith("."):
            return None
    get = options.rules.get
    return (
        content._text, tuple(spans), width, height, style, get("text_align", "left"),
        get("text_overflow", "fold"), get("text_wrap", "wrap"), get("line_pad", 0), options.post_style,
    )


def patch_content_strips() -> bool:
    """Keep ``Content.render_strips``'s results in the process's cache.  True when applied (now or
    before); False where the piece is off or Textual's method is not the one expected."""
    ready = may_patch("content-strips", _ORIGINAL, unexpected,
                      "textual's Content.render_strips is not the one expected; every render is made again")
    if ready is not None:
        return ready
    _ORIGINAL["render_strips"] = _Content.render_strips
    kept = _KEPT

    def render_strips(self: Any, width: int, height: int | None, style: Any, options: Any) -> list[Any]:
        original = _ORIGINAL["render_strips"]  # (Textual's: read per call, so a test may count what reaches it)
        key = _key(self, width, height, style, options) if width else None
        if key is None:
            return original(self, width, height, style, options)
        try:
            found = kept.get(key)
        except TypeError:  # (something unhashable in a span: as Textual renders it)
            return original(self, width, height, style, options)
        if found is None:
            found = kept[key] = tuple(original(self, width, height, style, options))
            if len(kept) > LIMIT:
                kept.popitem(last=False)
        else:
            kept.move_to_end(key)
        return list(found)

    _Content.render_strips = render_strips
    return True


def unpatch_content_strips() -> None:
    """Textual's own method again, and the cache emptied (tests)."""
    if _ORIGINAL:
        _Content.render_strips = _ORIGINAL.pop("render_strips")
    _KEPT.clear()


def forget_content_strips() -> None:
    """Empty the cache (it fills again from the next renders)."""
    _KEPT.clear()
