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
    kind = type(value)
    if kind in _PLAIN:
        return value
    how = _encoders.get(kind)
    if how is None:
        how = _encoders[kind] = _encoder_for(kind)
    return how(value, hook)


_PLAIN = frozenset({type(None), bool, int, float, str})

#: How each type is encoded, chosen once per type (a view is mostly the same few
#: dataclasses again and again; finding their fields was most of the host's encoding).
_encoders: dict[type, Callable[[Any, Hook | None], Any]] = {}


def _encoder_for(kind: type) -> Callable[[Any, Hook | None], Any]:
    if issubclass(kind, (bool, int, float, str)):  # an IntEnum or a str subclass too: its value
        return lambda value, hook: value
    if issubclass(kind, enum.Enum):
        name = _name(kind)
        return lambda value, hook: {"$e": name, "v": encode(value.value, hook)}
    if issubclass(kind, tuple) and hasattr(kind, "_fields"):  # NamedTuple
        name = _name(kind)
        return lambda value, hook: {"$": name, "f": [encode(v, hook) for v in value]}
    if dataclasses.is_dataclass(kind):
        name, fields = _name(kind), _init_fields(kind)
        return lambda value, hook: {"$": name, "f": [encode(getattr(value, n), hook) for n in fields]}
    if issubclass(kind, tuple):
        return lambda value, hook: {"$t": [encode(v, hook) for v in value]}
    if issubclass(kind, (list, set, frozenset)):
        return lambda value, hook: [encode(v, hook) for v in value]
    if issubclass(kind, dict):
        return _encode_dict
    raise CodecError(f"cannot send a {kind.__name__} across the bus")


def _encode_dict(value: dict[Any, Any], hook: Hook | None) -> Any:
    if all(isinstance(k, str) for k in value):
        if not any(k.startswith("$") for k in value):
            return {k: encode(v, hook) for k, v in value.items()}
    return {"$d": [[encode(k, hook), encode(v, hook)] for k, v in value.items()]}


_fields_of: dict[type, tuple[str, ...]] = {}


def _init_fields(cls: type) -> tuple[str, ...]:
    """A dataclass's init fields in declaration order: what is carried, and how it is built."""
    names = _fields_of.get(cls)
    if names is None:
        names = _fields_of[cls] = tuple(f.name for f in dataclasses.fields(cls) if f.init)
    return names


def decode(data: Any, hook: Hook | None = None) -> Any:
    """The value :func:`encode` made ``data`` from (``hook(dict)`` for a ``{"$h": ...}``)."""
    if isinstance(data, list):
        return [decode(v, hook) for v in data]
    if not isinstance(data, dict):
        return data
    if "$t" in data:
        return tuple(decode(v, hook) for v in data["$t"])
    if "$" in data:
        build = _builders.get(data["$"]) or _builder_for(data["$"])
        return build([decode(v, hook) for v in data["f"]])
    if "$e" in data:
        return _cls(data["$e"])(decode(data["v"], hook))
    if "$d" in data:
        return {decode(k, hook): decode(v, hook) for k, v in data["$d"]}
    if "$h" in data or "$c" in data:
        if hook is None:
            raise CodecError("a seat handle or challenge arrived where none was expected")
        return hook(data)
    return {k: decode(v, hook) for k, v in data.items()}


#: How each class named on the bus is built from its fields, found once per name.
_builders: dict[str, Callable[[list[Any]], Any]] = {}


def _builder_for(name: str) -> Callable[[list[Any]], Any]:
    cls = _cls(name)
    if not issubclass(cls, tuple) and not dataclasses.is_dataclass(cls):
        raise CodecError(f"{name!r} is not a dataclass")
    if issubclass(cls, tuple):
        fields: tuple[str, ...] = tuple(getattr(cls, "_fields", ()))
    else:
        fields = _init_fields(cls)
    by_name = dataclasses.is_dataclass(cls) and any(f.kw_only for f in dataclasses.fields(cls) if f.init)

    def build(args: list[Any]) -> Any:
        if len(args) != len(fields) and fields:
            raise CodecError(f"{name!r} carries {len(args)} fields, not {len(fields)}")
        return cls(**dict(zip(fields, args, strict=True))) if by_name else cls(*args)

    _builders[name] = build
    return build
