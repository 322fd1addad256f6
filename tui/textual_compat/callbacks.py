"""How many parameters a callback takes, counted once per function's code, not per call.

Textual invokes every handler, timer callback and signal subscriber through
``textual._callback.count_parameters``, which keeps the count on the callable.  A callable made
afresh for each call (a ``functools.partial``, as a signal wraps its subscribers in, or a closure
made per key) keeps it nowhere: each call asked ``inspect.signature`` again, about 40 microseconds,
several times per keypress (3 % of a keypress's CPU in ``benchmarks/render.py``).  The count
depends only on the function's code (and on whether it is bound), so it is kept per code object,
and for an object called as a function (Textual's ``AwaitMount`` and ``AwaitRemove``, ten per
session's start) per its class's ``__call__``; the rest is Textual's function as written
(:func:`patch_parameter_counts`).
"""

from __future__ import annotations

import inspect
import logging
from functools import partial
from types import CodeType, FunctionType, MethodType
from typing import Any

from tui.textual_compat.gate import enabled, private, reads_as

log = logging.getLogger(__name__)

_BY_CODE: dict[tuple[CodeType, bool], int] = {}
_ORIGINAL: dict[str, Any] = {}


def _signature_count(func: Any) -> int:
    """``len(inspect.signature(func).parameters)``, kept per code for plain functions and methods."""
    function = func.__func__ if type(func) is MethodType else func
    bound = function is not func
    if type(function) is not FunctionType and type(type(func).__dict__.get("__call__")) is FunctionType and not (
            hasattr(func, "__signature__") or hasattr(func, "__wrapped__")):
        function = type(func).__dict__["__call__"]  # (an object called as a function: its class's __call__,
        bound = True                               # as Textual's AwaitMount and AwaitRemove are, once a mount)
    if type(function) is not FunctionType or "__wrapped__" in function.__dict__ or "__signature__" in function.__dict__:
        return len(inspect.signature(func).parameters)
    key = (function.__code__, bound)
    count = _BY_CODE.get(key)
    if count is None:
        count = _BY_CODE[key] = len(inspect.signature(func).parameters)
    return count


def count_parameters(func: Any) -> int:
    """Textual's ``count_parameters``, with :func:`_signature_count` for ``inspect.signature``."""
    try:
        return int(func._param_count)
    except AttributeError:
        pass
    if isinstance(func, partial):
        param_count = _signature_count(func.func) - (len(func.args) + len(func.keywords))
    elif hasattr(func, "__self__"):
        func = func.__func__  # a bound method: the count is kept on its function
        param_count = _signature_count(func) - 1
    else:
        param_count = _signature_count(func)
    try:
        func._param_count = param_count
    except (TypeError, AttributeError):
        pass
    return param_count


# What Textual's function must read as for the patch to apply.
_EXPECTED = ("func._param_count", "isinstance(func, partial)", 'hasattr(func, "__self__")', "func.__func__")


def patch_parameter_counts() -> bool:
    """Put :func:`count_parameters` where Textual calls it (its ``_callback`` and ``reactive``
    modules).  True when applied (now or before); False where the piece is off or Textual's
    function is not the one expected."""
    if _ORIGINAL:
        return True
    if not enabled("param-counts"):
        return False
    original = private("textual._callback", "count_parameters")
    if original is None or not reads_as(original, _EXPECTED):
        log.warning("textual's count_parameters is not the one expected; callbacks' signatures are read per call")
        return False
    import textual._callback
    import textual.reactive

    _ORIGINAL["callback"] = textual._callback.count_parameters
    _ORIGINAL["reactive"] = textual.reactive.count_parameters
    textual._callback.count_parameters = count_parameters
    textual.reactive.count_parameters = count_parameters
    return True


def unexpected() -> list[str]:
    """What of Textual's ``count_parameters`` this piece misses (for the probe)."""
    original = _ORIGINAL.get("callback") or private("textual._callback", "count_parameters")
    if original is None:
        return ["textual._callback.count_parameters"]
    return [] if reads_as(original, _EXPECTED) else ["textual._callback.count_parameters (its source)"]
