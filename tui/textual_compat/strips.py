"""Two fixes to Textual's ``Strip`` (a rendered line) for a server of many apps: piece ``strips``.

Applied by :func:`server.gcpolicy.install` (``VOLTAGE_GC_STRIPS=cyclic`` leaves
strips as Textual made them, for measuring).  Besides the version's gate, each checks
the source of what it replaces and leaves a different one alone, with one warning line.

1. **No strip caches itself.**  ``divide`` stored ``[self]`` when the cut is the
   whole strip (the compositor does that for nearly every line of every frame) and
   ``crop_extend`` stored ``self`` when nothing is cropped (as the log widgets do).
   Each such strip was a reference cycle (strip, its cache, the cache's dict), so
   every frame left its lines for the cyclic collector: 60,000 objects a second
   with 10 sessions, 95 % of what a full collection found.  The patched methods
   return the same values without storing ``self``.

2. **A strip's caches are made when first written.**  ``Strip.__init__`` makes
   seven ``FIFOCache`` objects for its results (divide, crop, style, filter, line
   length, crop-extend, offsets).  Most strips live one frame, or store one or two
   results: counted on two match screens, the caches were 3,337 of a session's
   11,689 objects the collector tracks (29 %; a young collection traverses every
   one), with ~130 bytes each.  So ``__init__`` leaves those slots empty, and each
   slot reads as a shared :class:`_NotYet` (no entries) until the strip stores a
   result, which makes that one cache.  Textual only ever uses a cache as
   ``self._x_cache.get(key)`` then ``self._x_cache[key] = value``, each through a
   fresh attribute read, which is what :class:`_NotYet` relies on (it remembers the
   strip of the last read).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from tui.textual_compat.gate import enabled, reads_as, source_of

log = logging.getLogger(__name__)


# -- 1. no strip caches itself ---------------------------------------------------


def _strip_divide(self: Any, cuts: Any) -> list:
    cell_length = self.cell_length
    cuts = [cut for cut in cuts if cut <= cell_length]
    if cuts == [cell_length]:
        return [self]  # what the original returns (and caches, making a cycle)
    return _ORIGINAL["divide"](self, cuts)


def _strip_crop_extend(self: Any, start: int, end: int, style: Any) -> Any:
    cache_key = (start, end, style)
    cached = self._crop_extend_cache.get(cache_key)
    if cached is not None:
        return cached
    strip = self.extend_cell_length(end, style).crop(start, end)
    if strip is not self:  # caching itself would make a cycle
        self._crop_extend_cache[cache_key] = strip
    return strip


# -- 2. caches made when first written ----------------------------------------------

# Each cache slot and its size, as Textual's Strip.__init__ makes them.
_CACHES = {
    "_divide_cache": 4,
    "_crop_cache": 16,
    "_style_cache": 16,
    "_filter_cache": 4,
    "_line_length_cache": 4,
    "_crop_extend_cache": 4,
    "_offsets_cache": 4,
}
# Everything Textual's __init__ sets, so that the replacement sets the rest the same.
_INIT_SETS = {"_segments", "_cell_length", "_render_cache", "_link_ids", "_cell_count", *_CACHES}


class _NotYet:
    """What an empty cache slot of a strip reads as: a cache with no entries that,
    when a result is stored in it, makes the strip's real cache (one per slot, shared
    by every strip; single-threaded, like the event loop that renders)."""

    __slots__ = ("_slot", "_size", "_factory", "strip")

    def __init__(self, slot: Any, size: int, factory: Callable[[int], Any]) -> None:
        self._slot = slot  # the slot's own member descriptor
        self._size = size
        self._factory = factory
        self.strip: Any = None

    def get(self, key: Any, default: Any = None) -> Any:
        return default

    def __getitem__(self, key: Any) -> Any:
        raise KeyError(key)

    def __contains__(self, key: Any) -> bool:
        return False

    def __len__(self) -> int:
        return 0

    def keys(self) -> list:
        return []

    def clear(self) -> None:
        pass

    def __setitem__(self, key: Any, value: Any) -> None:
        strip, self.strip = self.strip, None
        if strip is None:  # pragma: no cover - a write not preceded by its read: nowhere to store it
            return
        cache = self._factory(self._size)
        cache[key] = value
        self._slot.__set__(strip, cache)


class _LazySlot:
    """The class attribute standing for a cache slot: the strip's cache once made, else the shared empty one."""

    __slots__ = ("_slot", "_empty")

    def __init__(self, slot: Any, empty: _NotYet) -> None:
        self._slot = slot
        self._empty = empty

    def __get__(self, strip: Any, owner: Any = None) -> Any:
        if strip is None:
            return self
        try:
            return self._slot.__get__(strip, owner)
        except AttributeError:
            empty = self._empty
            empty.strip = strip
            return empty

    def __set__(self, strip: Any, value: Any) -> None:
        self._slot.__set__(strip, value)

    def __delete__(self, strip: Any) -> None:
        self._slot.__delete__(strip)


def _strip_init(self: Any, segments: Any, cell_length: int | None = None) -> None:
    self._segments = list(segments)
    self._cell_length = cell_length
    self._render_cache = None
    self._link_ids = None
    self._cell_count = None


# -- applying them ---------------------------------------------------------------------

_ORIGINAL: dict[str, Any] = {}
_PATCHES: dict[str, Callable[..., Any]] = {"divide": _strip_divide, "crop_extend": _strip_crop_extend}
# What the patched methods must look like for the patch to apply.
_EXPECTED = {
    "divide": ("strips = [self]", "self._divide_cache[cache_key] = strips"),
    "crop_extend": (
        "self.extend_cell_length(end, style).crop(start, end)",
        "self._crop_extend_cache[cache_key] = strip",
    ),
}


def _init_is_expected(init: Any) -> bool:
    source = source_of(init)
    sets = set(re.findall(r"self\.(\w+)\s*(?::[^=]*)?=", source))
    if sets != _INIT_SETS:
        return False
    sizes = dict(re.findall(r"self\.(\w+_cache)\b[^=]*=\s*FIFOCache\((\d+)\)", source.replace("\n", " ")))
    return {k: int(v) for k, v in sizes.items()} == _CACHES


def patch_textual_strips() -> bool:
    """Apply both fixes (see the module's notes).  True when applied (now or before);
    False, with one warning, when this Textual's strips are not the ones expected."""
    from textual.cache import FIFOCache
    from textual.strip import Strip

    if _ORIGINAL:
        return True
    if not enabled("strips"):
        return False
    for name, needles in _EXPECTED.items():
        if not reads_as(getattr(Strip, name), needles):
            log.warning("textual's Strip.%s is not the one expected; its strips stay cyclic", name)
            return False
    lazy = _init_is_expected(Strip.__init__)
    if not lazy:
        log.warning("textual's Strip.__init__ is not the one expected; every strip keeps making seven caches")
    # setattr: replacing a class's methods is what this does (mypy refuses ``Strip.divide = ...``).
    for name, replacement in _PATCHES.items():
        _ORIGINAL[name] = getattr(Strip, name)
        setattr(Strip, name, replacement)
    if lazy:
        # The slots' stand-ins stay once made (unpatching keeps them: a strip made
        # meanwhile, say a cached blank line, has empty slots), and read a slot the
        # original constructor filled just as the slot itself would.
        for name, size in _CACHES.items():
            slot = Strip.__dict__[name]
            if not isinstance(slot, _LazySlot):
                setattr(Strip, name, _LazySlot(slot, _NotYet(slot, size, FIFOCache)))
        _ORIGINAL["__init__"] = Strip.__init__
        setattr(Strip, "__init__", _strip_init)  # noqa: B010 - a class's constructor, replaced
    return True


def unexpected() -> list[str]:
    """The methods of Textual's Strip that are not the ones these fixes were written for."""
    from textual.strip import Strip

    def original(name: str) -> Any:
        return _ORIGINAL.get(name, getattr(Strip, name))

    out = [f"Strip.{name} (its source)" for name, needles in _EXPECTED.items()
           if not reads_as(original(name), needles)]
    if not _init_is_expected(original("__init__")):
        out.append("Strip.__init__ (its source)")
    return out


def unpatch_textual_strips() -> None:
    """Textual's own methods again (for tests)."""
    if _ORIGINAL:
        from textual.strip import Strip

        for name in list(_ORIGINAL):
            setattr(Strip, name, _ORIGINAL.pop(name))
