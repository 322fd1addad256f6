"""Whether the pieces of :mod:`tui.textual_compat` apply in this process: one decision, one log line.

Every piece was written against one Textual (:data:`WRITTEN_FOR`, the version pyproject pins and the
SVG snapshots record).  On that version they apply; on any other they back off to Textual's own code,
which draws the same screens, only slower, and the first piece that asks logs one warning naming them
all (once per process, however many sessions follow).

``VOLTAGE_TEXTUAL_COMPAT`` changes the decision, for measuring: ``off`` backs every piece off on
the pinned version too (what they buy is then what a benchmark loses), a comma-separated list of
pieces backs off only those, and ``force`` applies every piece on another version (what
``make textual-latest`` runs second, to find which pieces still hold on the newest Textual).
"""

from __future__ import annotations

import importlib
import inspect
import logging
import os
from collections.abc import Callable, Iterable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

log = logging.getLogger("tui.textual_compat")

WRITTEN_FOR = "8.2.8"

# The pieces, as the warning and ``make textual-latest`` name them (the package's docstring says what
# each buys and what backing it off costs).
PIECES = (
    "frames",  # frames written as the cells that changed (App._display)
    "paint-now",  # a widget's changed rows written without a compositor frame
    "direct-rows",  # painted widgets' changed rows written together, without a compositor frame
    "row-renders",  # a partial update renders only its rows (Compositor._get_renders)
    "covered-rows",  # a widget's rows drawn over whole by the widgets in front are not rendered
    "plain-lines",  # painted widgets' lines past the styles cache
    "first-style",  # a new screen styled once (breakpoints preset, first resume)
    "one-layout",  # a screen laid out once per size, no frame rendered while the app batches
    "prompt-update",  # a screen's update after a quiet spell drawn at once, not an update period later
    "title-rows",  # a border title's change repaints its row, not the widget whole
    "style-cache",  # a node's rules found once per process for its path (Stylesheet.apply)
    "strips",  # strips that neither cache themselves nor make caches before a write
    "dismantle",  # ended apps' cycles broken by hand, which the collector policy needs
    "input-parser",  # the xterm parser's key cache per session (XTermParser._parse_extended_key)
    "escape-deadline",  # a lone Escape is a key once the parser's own delay is over
    "method-caches",  # Textual's method caches keyed by widgets cleared at a session's end
    "shared-css",  # parsed CSS shared by every app of the process
    "param-counts",  # a callback's parameters counted once per function's code (count_parameters)
    "dispatch-plans",  # a message's handlers found once per receiver and message class (_get_dispatch_methods)
    "content-strips",  # a widget's content rendered once per process for the same words, size and styles
    "theme-tokens",  # the theme's CSS variables tokenized once per process, not once per app
    "no-overlays",  # no tooltip and no toast rack on every screen (nothing shows either)
    "known-size",  # a painted widget's size kept with the screen map's entry it was read from
)

_state: dict[str, Any] = {}


def installed_version() -> str:
    """The Textual this process imports ("" when its metadata is missing)."""
    try:
        return version("textual")
    except PackageNotFoundError:  # pragma: no cover - a Textual without metadata
        return ""


def _decide() -> frozenset[str]:
    """The pieces that apply (logs the process's one line when some do not)."""
    installed = installed_version() or "(unknown)"
    setting = os.environ.get("VOLTAGE_TEXTUAL_COMPAT", "").strip().lower()
    every = frozenset(PIECES)
    if setting in ("", "on", "force"):
        off: frozenset[str] = frozenset()
    elif setting == "off":
        off = every
    else:
        off = frozenset(p.strip() for p in setting.split(",") if p.strip())
    if installed != WRITTEN_FOR and setting != "force":
        log.warning(
            "Textual %s is installed, tui.textual_compat was written for %s: its pieces are off and Textual's own "
            "code runs instead (the same screens, slower): %s", installed, WRITTEN_FOR, ", ".join(PIECES),
        )
        return frozenset()
    if installed != WRITTEN_FOR:
        log.warning("Textual %s is installed, tui.textual_compat was written for %s: "
                    "VOLTAGE_TEXTUAL_COMPAT=force applies its pieces all the same", installed, WRITTEN_FOR)
    elif off:
        unknown = sorted(off - every)
        log.warning("VOLTAGE_TEXTUAL_COMPAT=%s: Textual's own code runs instead of: %s%s", setting,
                    ", ".join(p for p in PIECES if p in off) or "nothing",
                    f" (no such piece: {', '.join(unknown)})" if unknown else "")
    return every - off


def enabled(piece: str) -> bool:
    """Whether ``piece`` (a name of :data:`PIECES`) applies in this process."""
    on = _state.get("on")
    if on is None:
        on = _state["on"] = _decide()
    return piece in on


def backed_off() -> list[str]:
    """The pieces that do not apply in this process, in :data:`PIECES` order."""
    return [piece for piece in PIECES if not enabled(piece)]


def reset() -> None:
    """Forget the decision (tests; the next question decides, and logs, again)."""
    _state.clear()


def private(module: str, name: str) -> Any:
    """Textual's private ``module.name``, or None where this Textual has none (so that importing
    this package never fails on another version: the pieces that need it are off there)."""
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def may_patch(piece: str, applied: dict[str, Any], unexpected: Callable[[], list[str]], warning: str) -> bool | None:
    """The start of a piece's patch: True when it is in place already (``applied`` holds the
    originals), False when the piece is off, or Textual's code is not what it was written for
    (``unexpected()`` names what differs; ``warning`` is logged once); None: go on and apply it."""
    if applied:
        return True
    if not enabled(piece):
        return False
    if unexpected():
        log.warning(warning)
        return False
    return None


def source_of(obj: Any) -> str:
    """``obj``'s source ("" where it has none to read)."""
    try:
        return inspect.getsource(obj)
    except (AttributeError, OSError, TypeError):
        return ""


def reads_as(obj: Any, needles: Iterable[str]) -> bool:
    """Whether ``obj``'s source holds every one of ``needles``: Textual's code is the one a piece
    was written for (False where there is no source to read)."""
    source = source_of(obj)
    return all(needle in source for needle in needles)
