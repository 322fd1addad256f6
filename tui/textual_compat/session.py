"""What one process of many apps (a server's sessions) changes of Textual, for each app it runs.

- **The input parser** (:func:`input_parser`): Textual's ``XTermParser._parse_extended_key`` is an
  ``lru_cache`` on the method, a process-wide cache keyed by the parser instance: it kept up to 1,024
  ended sessions' parsers, and through them their drivers and apps, alive (~0.5-0.8 MB each).
  :class:`SessionParser` keeps that cache on the instance, so it dies with the session.
- **The escape deadline** (:func:`escape_deadline`): when a lone ESC becomes a key (the parser's own
  delay), so that the driver ticks the parser then and not on a timer.
- **Method caches keyed by widgets** (:func:`forget_session_caches`): ``StylesCache.get_inner_outer``
  (every widget's styles cache with its rendered lines) and ``ANSIToTruecolor.truecolor_style`` are
  bounded, but kept the last ~100 ended sessions' widget caches (~0.4 MB each); cleared when a
  session ends, they refill in a frame.
- **Parsed CSS shared** (:func:`share_css`): every app parses the same CSS; the parsed rules are
  kept once for the process, keyed by the stylesheet's variables too, so a theme change cannot leak
  one app's rules into another's.  Textual's ``Stylesheet.reparse`` (each screen with CSS of its
  own, pushed for the first time in an app: a match's) parses in a fresh ``Stylesheet`` with a cache
  of its own, so every app parsed every source again there (5.5 ms a match screen; 3.6 % of a server's
  CPU while 200 players arrived, paired and played): the stylesheets such a reparse makes share the
  process's cache too.
- **The process's streams** (:func:`keep_process_streams`, on any version): Textual points
  ``sys.stdout`` and ``sys.stderr`` at the app while it runs (process-wide); with many apps in one
  process that would swallow the server's own output and restore the wrong stream when apps end
  out of order.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import TYPE_CHECKING, Any

from textual.app import App

from tui.textual_compat.gate import enabled, may_patch, private, reads_as

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from textual import events

_XTermParser: Any = private("textual._xterm_parser", "XTermParser")


def _session_parser_class() -> Any:
    """The parser class of the ``input-parser`` piece (None where Textual's parser is not the one expected)."""
    uncached: Any = getattr(getattr(_XTermParser, "_parse_extended_key", None), "__wrapped__", None)
    if uncached is None:
        return None

    class SessionParser(_XTermParser):
        """Textual's parser with its extended-key cache on the instance, not the class."""

        _uncached = uncached
        CACHE_LIMIT = 256

        def __init__(self) -> None:
            self._extended: dict[str, Any] = {}
            super().__init__(debug=False)

        def _parse_extended_key(self, sequence: str) -> list[events.Key] | None:
            try:
                return self._extended[sequence]
            except KeyError:
                pass
            keys: list[events.Key] | None = self._uncached(sequence)
            if len(self._extended) >= self.CACHE_LIMIT:
                self._extended.clear()
            self._extended[sequence] = keys
            return keys

    return SessionParser


SessionParser: Any = _session_parser_class()


def input_parser() -> Any:
    """A parser of a terminal's input for one session: piece ``input-parser``, else Textual's own
    (Textual has no public one: a driver of one's own cannot read keys without it)."""
    if SessionParser is not None and enabled("input-parser"):
        return SessionParser()
    if _XTermParser is None:  # pragma: no cover - a Textual that moved its parser
        raise RuntimeError("this Textual has no textual._xterm_parser.XTermParser: a session cannot read keys")
    return _XTermParser(debug=False)


# Textual's own Linux driver ticks its parser every 0.1 s (its input thread's select timeout).
_TICK = 0.1


def escape_deadline(parser: Any) -> float | None:
    """When (in ``time.monotonic``'s, Textual's clock) ``parser.tick()`` should run next: a lone ESC
    becomes a key then; None when nothing waits.  Piece ``escape-deadline``; else every 0.1 s,
    as Textual's own driver ticks."""
    if enabled("escape-deadline"):
        deadline: float | None = parser._timeout_time
        return deadline
    return time.monotonic() + _TICK


def forget_session_caches() -> None:
    """Clear Textual's method caches keyed by widget or app objects: piece ``method-caches``."""
    if not enabled("method-caches"):
        return
    from textual.filter import ANSIToTruecolor

    styles_cache = private("textual._styles_cache", "StylesCache")
    for method in (getattr(styles_cache, "get_inner_outer", None), ANSIToTruecolor.truecolor_style):
        clear = getattr(method, "cache_clear", None)
        if clear is not None:
            clear()


class SharedParseCache:
    """Parsed CSS rules shared by every app of the process (each app parses the same
    CSS).  Keyed by the stylesheet's variables too, so a theme change cannot leak
    one app's rules into another's; ``clear()`` (a theme change) keeps the others."""

    _rules: dict[tuple[Any, ...], Any] = {}
    _themes: dict[tuple[Any, ...], int] = {}  # a stylesheet's variables -> a small number, for the keys
    LIMIT = 512

    def __init__(self, stylesheet: Any) -> None:
        self._stylesheet = stylesheet
        self._variables: Any = None
        self._theme = -1

    def _key(self, key: tuple[Any, ...]) -> tuple[Any, ...]:
        variables = getattr(self._stylesheet, "_variables", {})
        if variables is not self._variables:  # (Textual replaces the dict, never changes it)
            frozen = tuple(sorted(variables.items()))
            self._variables, self._theme = variables, self._themes.setdefault(frozen, len(self._themes))
        return (self._theme, key)

    def __getitem__(self, key: tuple[Any, ...]) -> Any:
        return self._rules[self._key(key)]

    def __setitem__(self, key: tuple[Any, ...], value: Any) -> None:
        if len(self._rules) >= self.LIMIT:
            self._rules.clear()
        self._rules[self._key(key)] = value

    def clear(self) -> None:
        pass


def share_css(app: App[Any]) -> None:
    """``app``'s stylesheet keeps its parsed CSS in the process's :class:`SharedParseCache`, and so do
    the stylesheets its reparses make (:func:`_share_reparses`): piece ``shared-css``; and it is given
    its theme's variables tokenized (:func:`share_theme_tokens`)."""
    stylesheet = getattr(app, "stylesheet", None)
    if enabled("shared-css") and stylesheet is not None and hasattr(stylesheet, "_parse_cache"):
        stylesheet._parse_cache = SharedParseCache(stylesheet)
        _share_reparses()
    if stylesheet is not None:
        share_theme_tokens(stylesheet)


# The theme's CSS variables tokenized, by the variables (a process has one or two themes): piece
# ``theme-tokens``.  Each stylesheet tokenizes its variables the first time a style string or its
# CSS is read (``Stylesheet._variable_tokens``: 168 variables, about 0.8 ms, once per session).
_THEME_TOKENS: dict[tuple[tuple[str, str], ...], dict[str, list[Any]]] = {}
_THEME_TOKENS_LIMIT = 8
_tokenize_values: Any = private("textual.css.tokenize", "tokenize_values")
_TOKENS_ATTRIBUTE = "_Stylesheet__variable_tokens"
_THEME_TOKENS_FIT: dict[type, bool] = {}


def theme_tokens_unexpected(stylesheet: Any) -> list[str]:
    """What of Textual's stylesheet the piece ``theme-tokens`` misses (for the probe)."""
    if _tokenize_values is None:
        return ["textual.css.tokenize.tokenize_values"]
    missing = [f"Stylesheet.{name}" for name in ("_variables", _TOKENS_ATTRIBUTE) if not hasattr(stylesheet, name)]
    prop = getattr(type(stylesheet), "_variable_tokens", None)
    if not (isinstance(prop, property) and reads_as(prop.fget, ["self.__variable_tokens is None",
                                                                "tokenize_values(self._variables)"])):
        missing.append("Stylesheet._variable_tokens (its source)")
    return missing


def share_theme_tokens(stylesheet: Any) -> bool:
    """Give ``stylesheet`` its variables tokenized as the process's last stylesheet with the same
    variables had them (each list its own copy: a stylesheet's CSS that sets a variable again adds
    to that variable's list).  A later change of theme tokenizes afresh, as Textual does."""
    if not enabled("theme-tokens"):
        return False
    fits = _THEME_TOKENS_FIT.get(type(stylesheet))
    if fits is None:  # (read once per process: the check reads Textual's source)
        fits = _THEME_TOKENS_FIT[type(stylesheet)] = not theme_tokens_unexpected(stylesheet)
        if not fits:
            log.warning("textual's Stylesheet._variable_tokens is not the one expected; each app tokenizes its theme")
    if not fits:
        return False
    variables = stylesheet._variables
    key = tuple(variables.items())
    tokens = _THEME_TOKENS.get(key)
    if tokens is None:
        if len(_THEME_TOKENS) >= _THEME_TOKENS_LIMIT:
            _THEME_TOKENS.clear()
        tokens = _THEME_TOKENS[key] = _tokenize_values(variables)
    setattr(stylesheet, _TOKENS_ATTRIBUTE, {name: list(found) for name, found in tokens.items()})
    return True


_REPARSE: dict[str, Any] = {}
_Stylesheet: Any = private("textual.css.stylesheet", "Stylesheet")


def _reparse_unexpected() -> list[str]:
    """What differs from the Textual this was written for: a reparse that parses in a fresh
    ``Stylesheet(variables=...)``, whose cache is made in its ``__init__``."""
    if _Stylesheet is None:
        return ["textual.css.stylesheet.Stylesheet"]
    init = _REPARSE.get("init") or _Stylesheet.__init__
    missing = [] if reads_as(_Stylesheet.reparse, ["Stylesheet(variables=self._variables)", ".parse()"]) else [
        "Stylesheet.reparse (its source)"]
    if not reads_as(init, ["self._parse_cache", "self._variables"]):
        missing.append("Stylesheet.__init__ (its source)")
    return missing


def _share_reparses() -> bool:
    """Every ``Stylesheet`` made from now on in an app's reparse (one made while a shared one
    reparses) keeps its parsed CSS in the process's cache.  True when in place."""
    ready = may_patch("shared-css", _REPARSE, _reparse_unexpected,
                      "textual's Stylesheet.reparse is not the one expected; each reparse parses its CSS again")
    if ready is not None:
        return ready
    init = _REPARSE["init"] = _Stylesheet.__init__
    reparse = _REPARSE["reparse"] = _Stylesheet.reparse
    making = _REPARSING  # (a stylesheet made inside a shared one's reparse is that reparse's fresh one)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        if making and enabled("shared-css"):
            self._parse_cache = SharedParseCache(self)

    def shared_reparse(self: Any) -> None:
        if not isinstance(self._parse_cache, SharedParseCache):
            return reparse(self)
        making.append(self)
        try:
            return reparse(self)
        finally:
            making.pop()

    _Stylesheet.__init__ = __init__
    _Stylesheet.reparse = shared_reparse
    return True


_REPARSING: list[Any] = []  # the shared stylesheets reparsing now (one at a time: the loop's thread)


def keep_process_streams(app: App[Any]) -> None:
    """``app`` leaves ``sys.stdout`` and ``sys.stderr`` as they are while it runs.  Not a piece of the
    gate: made on any Textual whose app has these attributes (backing it off would leave a server's
    streams at whichever app ended last)."""
    if not hasattr(app, "_capture_stdout"):
        return
    # (Textual types these as its _PrintCapture; redirect_stdout takes any stream.)
    app._capture_stdout = sys.stdout  # type: ignore[assignment]
    app._capture_stderr = sys.stderr  # type: ignore[assignment]
