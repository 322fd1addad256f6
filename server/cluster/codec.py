"""Values across the bus: per-seat views, actions, lobby facts as JSON, and back.

The host and its edges run the same code, so a value is carried by its class's
name and fields: a dataclass or a NamedTuple as ``{"$": "module:Class", "f": [...]}``
(fields in declaration order), a tuple as ``{"$t": [...]}`` (JSON has no tuples,
and a view compares by tuple), a dict with non-string keys as ``{"$d": [[k, v]...]}``,
an enum as ``{"$e": "module:Class", "v": value}``.  Decisions:

- **An allow-list of modules** (``engine.``, ``server.lobby.models``, ``server.backend``,
  ``server.cluster.``, ``server.store.db``: a finished match's record, for a replay;
  ``tui.ports``: a seat's :class:`~tui.ports.Update`, whatever fields it grows):
  decoding never imports or builds anything else, so a message on the bus cannot
  make an edge construct an arbitrary object (this is why the codec is not pickle).
- ``hook(value)`` on encode lets the host replace an object it must not send (a seat
  handle: its match is the state) by a descriptor, and ``hook`` on decode lets the
  edge turn the descriptor back into its remote handle (``{"$h": ...}``; a challenge
  is ``{"$c": ...}`` the same way).
- Frozen, slotted dataclasses are built through ``__init__`` (their fields are init
  fields), so a decoded view is equal to the one the host made.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
from collections.abc import Callable
from typing import Any

ALLOWED = ("engine.", "server.lobby.models", "server.backend", "server.cluster.", "server.store.db", "tui.ports")

Hook = Callable[[Any], Any]


class CodecError(ValueError):
    """A message names a class outside the allow-list, or is malformed."""


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _allowed(module: str) -> bool:
    return any(module == a.rstrip(".") or module.startswith(a) for a in ALLOWED)


_classes: dict[str, type] = {}


def _cls(name: str) -> type:
    cls = _classes.get(name)
    if cls is not None:
        return cls
    module, _, qual = name.partition(":")
    if not _allowed(module):
        raise CodecError(f"class {name!r} may not cross the bus")
    obj: Any = importlib.import_module(module)
    for part in qual.split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, type):
        raise CodecError(f"{name!r} is not a class")
    _classes[name] = obj
    return obj


def encode(value: Any, hook: Hook | None = None) -> Any:
    """``value`` as JSON-able data (``hook(value)`` first: not None replaces it)."""
    if hook is not None:
        replaced = hook(value)
        if replaced is not None:
            return replaced
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return {"$e": _name(type(value)), "v": encode(value.value, hook)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # NamedTuple
        return {"$": _name(type(value)), "f": [encode(v, hook) for v in value]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fs = [f.name for f in dataclasses.fields(value) if f.init]
        return {"$": _name(type(value)), "f": [encode(getattr(value, n), hook) for n in fs]}
    if isinstance(value, tuple):
        return {"$t": [encode(v, hook) for v in value]}
    if isinstance(value, (list, set, frozenset)):
        return [encode(v, hook) for v in value]
    if isinstance(value, dict):
        if all(isinstance(k, str) for k in value):
            if not any(k.startswith("$") for k in value):
                return {k: encode(v, hook) for k, v in value.items()}
        return {"$d": [[encode(k, hook), encode(v, hook)] for k, v in value.items()]}
    raise CodecError(f"cannot send a {type(value).__name__} across the bus")


def decode(data: Any, hook: Hook | None = None) -> Any:
    """The value :func:`encode` made ``data`` from (``hook(dict)`` for a ``{"$h": ...}``)."""
    if isinstance(data, list):
        return [decode(v, hook) for v in data]
    if not isinstance(data, dict):
        return data
    if "$t" in data:
        return tuple(decode(v, hook) for v in data["$t"])
    if "$" in data:
        cls = _cls(data["$"])
        args = [decode(v, hook) for v in data["f"]]
        if issubclass(cls, tuple):
            return cls(*args)
        if not dataclasses.is_dataclass(cls):
            raise CodecError(f"{data['$']!r} is not a dataclass")
        names = [f.name for f in dataclasses.fields(cls) if f.init]
        return cls(**dict(zip(names, args, strict=True)))
    if "$e" in data:
        return _cls(data["$e"])(decode(data["v"], hook))
    if "$d" in data:
        return {decode(k, hook): decode(v, hook) for k, v in data["$d"]}
    if "$h" in data or "$c" in data:
        if hook is None:
            raise CodecError("a seat handle or challenge arrived where none was expected")
        return hook(data)
    return {k: decode(v, hook) for k, v in data.items()}
