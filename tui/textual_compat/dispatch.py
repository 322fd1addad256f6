"""Which methods handle a message, found once per class and kind of message, not per message.

Textual's ``MessagePump._get_dispatch_methods`` walks the receiver's MRO for every message it
dispatches, reading each class's decorated handlers for every class of the message's MRO and
building the message's MRO list again: 4 % of a keypress's CPU in ``benchmarks/render.py`` (a key
is a dozen messages: the key, idle prompts, callbacks, updates).  What it finds depends only on the
receiver's class, the handler's name and the message's class, so the walk is kept per that triple
(a plan: per class of the MRO with a handler, its decorated handlers and its named one); what
depends on the message itself is still looked at per message, as Textual does: whether a handler
prevented the default (before each class), and the ``@on`` selectors.  :func:`patch_dispatch`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from tui.textual_compat.gate import may_patch, private, reads_as

log = logging.getLogger(__name__)

# (receiver class, handler name, message class) -> per class with handlers: (class, decorated, named)
_Plan = list[tuple[type, list[tuple[Callable[..., Any], Any]], Any]]
_PLANS: dict[tuple[type, str, type], _Plan] = {}
_ORIGINAL: dict[str, Any] = {}


def _plan(receiver: type, method_name: str, message_class: type) -> _Plan:
    from textual.message import Message

    message_mro = [t for t in message_class.__mro__ if issubclass(t, Message)]
    plan: _Plan = []
    for cls in receiver.__mro__:
        decorated_handlers = cls.__dict__.get("_decorated_handlers")
        decorated: list[tuple[Callable[..., Any], Any]] = []
        if decorated_handlers:
            for message_type in message_mro:
                decorated.extend(decorated_handlers.get(message_type, []))
        method = cls.__dict__.get(f"_{method_name}") or cls.__dict__.get(method_name)
        named = method if method is not None and not getattr(method, "_textual_on", None) else None
        if decorated or named is not None:
            plan.append((cls, decorated, named))
    return plan


def _get_dispatch_methods(self: Any, method_name: str, message: Any) -> Iterable[tuple[type, Callable[..., Any]]]:
    """Textual's ``MessagePump._get_dispatch_methods``, its MRO walk kept (see the module's notes)."""
    from textual.widget import Widget

    key = (type(self), method_name, type(message))
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = _plan(*key)
    methods_dispatched: set[Callable[..., Any]] = set()
    for cls, decorated, named in plan:
        if message._no_default_action:
            break
        for method, selectors in decorated:
            if method in methods_dispatched:
                continue
            if not selectors:
                yield cls, method.__get__(self, cls)
                methods_dispatched.add(method)
            else:
                if not message._sender:
                    continue
                for attribute, selector in selectors.items():
                    node = getattr(message, attribute)
                    if node is None:
                        break
                    if not isinstance(node, Widget):
                        raise _OnNoWidget(f"on decorator can't match against {attribute!r} as it is not a widget.")
                    if not _match(selector, node):
                        break
                else:
                    yield cls, method.__get__(self, cls)
                    methods_dispatched.add(method)
        if named is not None:
            yield cls, named.__get__(self, cls)


_OnNoWidget: Any = private("textual._on", "OnNoWidget")
_match: Any = private("textual.css.match", "match")

# What Textual's method must read as for the replacement to be the same.
_EXPECTED = (
    "message._no_default_action",
    'cls.__dict__.get("_decorated_handlers")',
    "decorated_handlers.get(message_class, [])",
    'cls.__dict__.get(f"_{method_name}") or cls.__dict__.get(',
    'getattr(method, "_textual_on", None)',
    "match(selector, node)",
)


def unexpected() -> list[str]:
    """What of Textual's dispatch this piece misses (for the probe)."""
    from textual.message_pump import MessagePump

    original = _ORIGINAL.get("method") or MessagePump._get_dispatch_methods
    missing = [] if reads_as(original, _EXPECTED) else ["MessagePump._get_dispatch_methods (its source)"]
    if _OnNoWidget is None:
        missing.append("textual._on.OnNoWidget")
    if _match is None:
        missing.append("textual.css.match.match")
    return missing


def patch_dispatch() -> bool:
    """Put :func:`_get_dispatch_methods` in place of Textual's (every message pump of the process).
    True when applied (now or before); False where the piece is off or Textual's is not the one expected."""
    ready = may_patch("dispatch-plans", _ORIGINAL, unexpected,
                      "textual's MessagePump._get_dispatch_methods is not the one expected; its MRO walk stays")
    if ready is not None:
        return ready
    from textual.message_pump import MessagePump

    _ORIGINAL["method"] = MessagePump._get_dispatch_methods
    setattr(MessagePump, "_get_dispatch_methods", _get_dispatch_methods)  # noqa: B010 - a class's method, replaced
    return True
