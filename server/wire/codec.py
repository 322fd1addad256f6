"""The machinery of the declared wire: a table of types, each with a stable tag, explicit
fields and its own encoding; values become JSON-able data and back.

Modelled on lila-ws's ``LilaIn``/``LilaOut``: every message and every value inside one is
declared once, and nothing else crosses.  Decisions:

- **A tag, never a class path.**  A record is ``{"$": tag, field: value, ...}``; the tag is
  a short stable string chosen in its declaration (``"v.view"``, ``"note"``), so renaming
  or moving a Python class changes nothing on the wire.
- **Explicit fields, by name.**  Each field has a :class:`Spec` (``INT``, ``opt(STR)``,
  ``tup(ref(Card))``...).  A record whose fields are not exactly the declared ones (an
  older or newer peer's) is refused with a :class:`CodecError` naming the tag and the
  field; so is a value of the wrong kind.  A field is never filled in or dropped quietly.
- **The decoder builds only what is declared**: a tag it does not know is an error, and a
  record is built through its declared constructor with its declared fields.
- **Where a field may hold one of several types** (a log entry, an action, a game's view),
  :data:`VALUE` carries any declared value by its tag, or plain JSON (numbers, strings,
  booleans, None, arrays, which come back as tuples, and objects with string keys).
- **Calls** (:class:`Call`): a request with named, typed arguments and a typed result, as
  ``{"$": tag, arg: value, ...}``; decoded into an :class:`Invocation`.
- **Speed**: a record's encoder and decoder are generated once per table (plain
  Python source compiled with ``exec``, as :mod:`dataclasses` makes ``__init__``): a field
  whose encoding is the value itself (numbers, strings, tuples of them) is copied, not
  called, and a decoded scalar is checked inline.  A tuple of plain values is handed to
  the JSON writer as it is.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Enc = Callable[[Any], Any]
Dec = Callable[[Any], Any]

TAG = "$"  # the key of a record's tag


class CodecError(ValueError):
    """Data that does not match its declaration: a tag nobody declared, a field missing or
    unknown, a value of the wrong kind.  ``where`` is the path (``"seat.update"``,
    ``"update.view"``) from the outermost record to the error."""

    def __init__(self, message: str, where: Sequence[str] = ()) -> None:
        self.message = message
        self.where = tuple(where)
        super().__init__(f"{' > '.join(self.where)}: {message}" if self.where else message)

    def within(self, tag: str, field: str | None) -> CodecError:
        """The same error, seen from the record ``tag`` (in its ``field``)."""
        return CodecError(self.message, (f"{tag}.{field}" if field else tag, *self.where))


def _kind(x: Any) -> str:
    return {dict: "an object", list: "an array", tuple: "an array", str: "a string", bool: "a boolean",
            int: "a number", float: "a number", type(None): "null"}.get(type(x), type(x).__name__)


def _identity(x: Any) -> Any:
    return x


# -- specs: how one field's value crosses ----------------------------------------------


class Spec:
    """How a value crosses: :meth:`compile` gives its encoder and decoder for a table.
    ``plain``: the encoded form is the value itself (so a record copies it, not calls)."""

    plain = False

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        raise NotImplementedError


class Scalar(Spec):
    """A JSON scalar of one of ``types``, carried as it is."""

    plain = True

    def __init__(self, name: str, types: tuple[type, ...]) -> None:
        self.name = name
        self.types = frozenset(types)

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        types, name = self.types, self.name

        def dec(x: Any) -> Any:
            if x.__class__ in types:
                return x
            raise CodecError(f"expected {name}, got {_kind(x)}")

        return _identity, dec

    def __repr__(self) -> str:
        return self.name


INT = Scalar("int", (int, bool))
FLOAT = Scalar("float", (float, int))
STR = Scalar("str", (str,))
BOOL = Scalar("bool", (bool,))


class _Raw(Spec):
    """JSON left as it is, for an envelope whose receiver decodes the content with the spec
    it expects (a reply's value: the caller knows the call's result)."""

    plain = True

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        return _identity, _identity

    def __repr__(self) -> str:
        return "raw"


RAW = _Raw()


class Opt(Spec):
    """``inner`` or None."""

    def __init__(self, inner: Spec) -> None:
        self.inner = inner
        self.plain = inner.plain

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        e, d = table.compiled(self.inner)
        enc = _identity if self.plain else (lambda v: None if v is None else e(v))
        return enc, lambda x: None if x is None else d(x)

    def __repr__(self) -> str:
        return f"opt({self.inner!r})"


class Seq(Spec):
    """A tuple (``kind`` tuple) or list of ``inner``, as a JSON array."""

    def __init__(self, inner: Spec, kind: type = tuple) -> None:
        self.inner = inner
        self.kind = kind
        self.plain = inner.plain and kind is tuple  # (orjson writes a tuple as an array)

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        e, d = table.compiled(self.inner)
        kind, name = self.kind, repr(self)
        enc = _identity if self.plain else (lambda v: [e(i) for i in v])
        if isinstance(self.inner, Scalar):
            types = self.inner.types

            def dec(x: Any) -> Any:
                if x.__class__ is not list and x.__class__ is not tuple:
                    raise CodecError(f"expected {name}, got {_kind(x)}")
                for i in x:
                    if i.__class__ not in types:
                        d(i)  # (raises, saying what it got)
                return x if x.__class__ is kind else kind(x)
        else:

            def dec(x: Any) -> Any:
                if x.__class__ is not list and x.__class__ is not tuple:
                    raise CodecError(f"expected {name}, got {_kind(x)}")
                return kind([d(i) for i in x])

        return enc, dec

    def __repr__(self) -> str:
        return f"{'tup' if self.kind is tuple else 'lst'}({self.inner!r})"


class Fixed(Spec):
    """A tuple of fixed length, each place its own spec (``(name, rating, games)``)."""

    def __init__(self, *items: Spec) -> None:
        self.items = items
        self.plain = all(s.plain for s in items)

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        compiled = [table.compiled(s) for s in self.items]
        encs, decs = [e for e, _ in compiled], [d for _, d in compiled]
        n, name = len(self.items), repr(self)
        enc = _identity if self.plain else (lambda v: [e(i) for e, i in zip(encs, v, strict=True)])

        def dec(x: Any) -> Any:
            if (x.__class__ is not list and x.__class__ is not tuple) or len(x) != n:
                raise CodecError(f"expected {name}, got {_kind(x)}")
            return tuple(d(i) for d, i in zip(decs, x, strict=True))

        return enc, dec

    def __repr__(self) -> str:
        return f"fixed({', '.join(map(repr, self.items))})"


class Dict(Spec):
    """A mapping of strings to ``inner``, as a JSON object."""

    def __init__(self, inner: Spec) -> None:
        self.inner = inner
        self.plain = inner.plain

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        e, d = table.compiled(self.inner)
        name = repr(self)

        def enc(v: Any) -> Any:
            return {k: e(i) for k, i in v.items()}

        def dec(x: Any) -> Any:
            if x.__class__ is not dict:
                raise CodecError(f"expected {name}, got {_kind(x)}")
            out = {}
            for k, i in x.items():
                if k.__class__ is not str or k == TAG:
                    raise CodecError(f"{name} with a key {k!r}")
                out[k] = d(i)
            return out

        return (_identity if self.plain else enc), dec

    def __repr__(self) -> str:
        return f"dict({self.inner!r})"


class Ref(Spec):
    """One declared type (a record or a custom type), named by its class."""

    def __init__(self, cls: type) -> None:
        self.cls = cls

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        return table.declared(self.cls).compile(table)

    def __repr__(self) -> str:
        return f"ref({self.cls.__name__})"


class OneOf(Spec):
    """One of several declared types (an action, a push), told apart by the tag."""

    def __init__(self, *classes: type) -> None:
        self.classes = classes

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        by_class: dict[type, Enc] = {}
        by_tag: dict[str, Dec] = {}
        for cls in self.classes:
            declared = table.declared(cls)
            by_class[cls], _ = declared.compile(table)
            by_tag[declared.tag] = declared.tagged(table)
        name = repr(self)

        def enc(v: Any) -> Any:
            e = by_class.get(v.__class__)
            if e is None:
                raise CodecError(f"a {type(v).__name__} where {name} was declared")
            return e(v)

        def dec(x: Any) -> Any:
            d = by_tag.get(x.get(TAG)) if x.__class__ is dict else None  # type: ignore[arg-type]  # (a non-str tag: None)
            if d is None:
                raise CodecError(f"expected {name}, got {x.get(TAG) if x.__class__ is dict else _kind(x)!r}")
            return d(x)

        return enc, dec

    def __repr__(self) -> str:
        return f"one_of({', '.join(c.__name__ for c in self.classes)})"


class _Value(Spec):
    """Any declared value, by its tag, or plain JSON (see the module docstring)."""

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        return table.encode, table.decode

    def __repr__(self) -> str:
        return "value"


VALUE = _Value()


class Cached(Spec):
    """``inner``, its encoding of each (hashable) value kept while it keeps coming: the
    lobby's lines, most of which stay the same from one snapshot to the next."""

    def __init__(self, inner: Spec, size: int = 4096) -> None:
        self.inner = inner
        self.size = size

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        e, d = table.compiled(self.inner)
        return functools.lru_cache(maxsize=self.size)(e), d

    def __repr__(self) -> str:
        return repr(self.inner)


def opt(inner: Spec) -> Spec:
    return Opt(inner)


def tup(inner: Spec) -> Spec:
    return Seq(inner, tuple)


def lst(inner: Spec) -> Spec:
    return Seq(inner, list)


def fixed(*items: Spec) -> Spec:
    return Fixed(*items)


def dict_of(inner: Spec) -> Spec:
    return Dict(inner)


def ref(cls: type) -> Spec:
    return Ref(cls)


def one_of(*classes: type) -> Spec:
    return OneOf(*classes)


def cached(inner: Spec, size: int = 4096) -> Spec:
    return Cached(inner, size)


# -- declared types ------------------------------------------------------------------


class Declared:
    """A type in a table: its class, its tag, how it is encoded."""

    cls: type
    tag: str

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        """Its encoder and decoder where a field declares it (the decoder checks the tag)."""
        raise NotImplementedError

    def tagged(self, table: Table) -> Dec:
        """Its decoder for data already known by its tag to be this type."""
        return self.compile(table)[1]

    def as_value(self, table: Table) -> tuple[Enc, Dec]:
        """Its encoder and decoder where any value may stand (:data:`VALUE`): tagged."""
        return self.compile(table)


class Record(Declared):
    """A dataclass or a NamedTuple: ``{"$": tag, field: value, ...}``, built through
    ``build`` (its class) with its declared fields as keywords."""

    def __init__(self, cls: type, tag: str, fields: Sequence[tuple[str, Spec]],
                 build: Callable[..., Any] | None = None) -> None:
        self.cls = cls
        self.tag = tag
        self.fields = tuple(fields)
        self.build = build or cls

    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.fields)

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        return table.cached(self, lambda: _compile_record(self, table))

    def __repr__(self) -> str:
        return f"record {self.tag!r} ({self.cls.__name__})"


def record(cls: type, tag: str, build: Callable[..., Any] | None = None, **fields: Spec) -> Record:
    """Declare ``cls`` as the record ``tag`` with ``fields`` (in their order), e.g.
    ``record(Note, "note", id=STR, params=dict_of(VALUE))``."""
    return Record(cls, tag, tuple(fields.items()), build)


def _shape(rec: Record, x: Any) -> None:
    """Raise the clearest error for data that is not ``rec``'s record."""
    if x.__class__ is not dict:
        raise CodecError(f"expected the record {rec.tag!r}, got {_kind(x)}")
    if x.get(TAG) != rec.tag:
        raise CodecError(f"expected the record {rec.tag!r}, got {x.get(TAG)!r}")
    names = rec.names()
    for name in names:
        if name not in x:
            raise CodecError(f"missing field {name!r}", (rec.tag,))
    for key in x:
        if key != TAG and key not in names:
            raise CodecError(f"unknown field {key!r}", (rec.tag,))
    raise CodecError("malformed", (rec.tag,))  # pragma: no cover - one of the above holds


def _compile_record(rec: Record, table: Table) -> tuple[Enc, Dec]:
    ns: dict[str, Any] = {"TAG": rec.tag, "build": rec.build, "CodecError": CodecError,
                          "shape": functools.partial(_shape, rec)}
    enc_items: list[str] = []
    check: list[str] = []
    args: list[str] = []
    for i, (name, spec) in enumerate(rec.fields):
        if not name.isidentifier():
            raise ValueError(f"{rec.tag}: field {name!r} is not a Python name")
        e, d = table.compiled(spec)
        ns[f"e{i}"], ns[f"d{i}"] = e, d
        enc_items.append(f"{name!r}: " + (f"v.{name}" if spec.plain else f"e{i}(v.{name})"))
        if isinstance(spec, Scalar):  # checked inline: no call
            ns[f"t{i}"] = spec.types
            check.append(f"    a{i} = x[{name!r}]\n"
                         f"    if a{i}.__class__ not in t{i}: f = {name!r}; d{i}(a{i})")
        else:
            check.append(f"    f = {name!r}; a{i} = d{i}(x[{name!r}])")
        args.append(f"{name}=a{i}")
    n = len(rec.fields) + 1
    source = (
        "def enc(v):\n"
        f"    return {{'$': TAG{''.join(', ' + item for item in enc_items)}}}\n"
        "def dec(x):\n"
        f"    if x.__class__ is not dict or len(x) != {n} or x.get('$') != TAG:\n"
        "        shape(x)\n"
        "    f = None\n"
        "    try:\n"
        + "".join("    " + line + "\n" for c in check for line in c.split("\n"))
        + ("        pass\n" if not check else "")
        + "    except CodecError as error:\n"
        "        raise error.within(TAG, f) from None\n"
        "    except KeyError:\n"
        "        shape(x)\n"
        f"    return build({', '.join(args)})\n"
    )
    exec(compile(source, f"<wire {rec.tag}>", "exec"), ns)  # noqa: S102 - generated from the declaration above
    return ns["enc"], ns["dec"]


class Custom(Declared):
    """A type with its own compact form (a card as ``"O2v"``, an enum as its value): in a
    field that declares it, ``encode(value)`` as it is; where any value may stand, wrapped
    as ``{"$": tag, "v": ...}``.  ``decode`` raises ``ValueError`` (or ``KeyError``) on
    data it does not know."""

    def __init__(self, cls: type, tag: str, encode: Enc, decode: Dec) -> None:
        self.cls = cls
        self.tag = tag
        self._encode = encode
        self._decode = decode

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        encode, decode, tag = self._encode, self._decode, self.tag

        def dec(x: Any) -> Any:
            try:
                return decode(x)
            except (ValueError, KeyError, TypeError, IndexError):
                raise CodecError(f"not a {tag}: {x!r}"[:200]) from None

        return encode, dec

    def as_value(self, table: Table) -> tuple[Enc, Dec]:
        encode, tag = self._encode, self.tag
        _, dec = self.compile(table)
        return (lambda v: {TAG: tag, "v": encode(v)}), self.tagged(table)

    def tagged(self, table: Table) -> Dec:
        tag = self.tag
        _, dec = self.compile(table)

        def unwrap(x: Any) -> Any:
            if len(x) != 2 or "v" not in x:
                raise CodecError("expected exactly the field 'v'", (tag,))
            return dec(x["v"])

        return unwrap

    def __repr__(self) -> str:
        return f"custom {self.tag!r} ({self.cls.__name__})"


def custom(cls: type, tag: str, encode: Enc, decode: Dec) -> Custom:
    return Custom(cls, tag, encode, decode)


def enum_type(cls: type, tag: str) -> Custom:
    """An enum, by its value."""
    return Custom(cls, tag, lambda e: e.value, cls)


# -- calls ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Invocation:
    """A call with its arguments, as decoded (``call.method(**args)``, said the host)."""

    call: Call
    args: Mapping[str, Any]


class Call(Declared):
    """A request by tag with named, typed ``args`` and a typed ``result``: the lobby's calls
    and a game's seat calls.  ``method`` is what the receiver calls (the port's method):
    the tag stays when the method is renamed.  Encoded as ``{"$": tag, arg: value, ...}``,
    decoded into an :class:`Invocation`."""

    cls = Invocation

    def __init__(self, tag: str, method: str, args: Sequence[tuple[str, Spec]], result: Spec) -> None:
        self.tag = tag
        self.method = method
        self.args = tuple(args)
        self.result = result
        self._record = Record(Invocation, tag, self.args, build=lambda **a: Invocation(self, a))

    def names(self) -> tuple[str, ...]:
        return self._record.names()

    def __call__(self, **args: Any) -> Invocation:
        """This call with ``args`` (every declared one, no other)."""
        if set(args) != set(self.names()):
            raise TypeError(f"{self.tag} takes {', '.join(self.names()) or 'nothing'}, not {', '.join(args)}")
        return Invocation(self, args)

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        def make() -> tuple[Enc, Dec]:
            enc, dec = self._record.compile(table)
            return (lambda inv: enc(_Args(inv.args))), dec

        return table.cached(self, make)

    def __repr__(self) -> str:
        return f"call {self.tag!r}"


class _Args:
    """An invocation's arguments as attributes (what a record's encoder reads)."""

    def __init__(self, args: Mapping[str, Any]) -> None:
        self.__dict__.update(args)


def call(tag: str, method: str | None = None, *, result: Spec = RAW, **args: Spec) -> Call:
    """Declare a call: ``call("lobby.claim_name", "claim_name", result=STR, name=STR)``."""
    return Call(tag, method or tag.rsplit(".", 1)[-1], tuple(args.items()), result)


# -- the table ----------------------------------------------------------------------------


_PLAIN = frozenset({str, int, float, bool, type(None)})


class Table:
    """Every declared type by class and by tag; ``encode``/``decode`` any declared value.

    ``more()`` gives declarations that may grow (each game's, from its registry entry: a
    game registered later, a test's toy game, is found at the first value of it)."""

    def __init__(self, declarations: Iterable[Declared], more: Callable[[], Iterable[Declared]] | None = None) -> None:
        self._by_class: dict[type, Declared] = {}
        self._by_tag: dict[str, Declared] = {}
        self._more = more
        self._compiled: dict[int, tuple[Any, Any]] = {}
        self._enc: dict[type, Enc] = {}  # as values (tagged), filled as they come
        self._dec: dict[str, Dec] = {}
        self.add(declarations)

    def add(self, declarations: Iterable[Declared]) -> None:
        for d in declarations:
            known = self._by_tag.get(d.tag)
            if known is d:
                continue
            if known is not None:
                raise ValueError(f"the tag {d.tag!r} is declared twice: {known!r} and {d!r}")
            self._by_tag[d.tag] = d
            if not isinstance(d, Call):
                if d.cls in self._by_class:
                    raise ValueError(f"{d.cls.__name__} is declared twice: {self._by_class[d.cls]!r} and {d!r}")
                self._by_class[d.cls] = d

    def refresh(self) -> bool:
        """Take in what ``more()`` declares now; True if anything was new."""
        if self._more is None:
            return False
        before = len(self._by_tag)
        self.add(self._more())
        return len(self._by_tag) != before

    def declarations(self) -> list[Declared]:
        self.refresh()
        return list(self._by_tag.values())

    def declared(self, cls: type) -> Declared:
        d = self._by_class.get(cls)
        if d is None and self.refresh():
            d = self._by_class.get(cls)
        if d is None:
            raise CodecError(f"a {cls.__name__} is not declared on the wire")
        return d

    def by_tag(self, tag: str) -> Declared | None:
        d = self._by_tag.get(tag)
        if d is None and self.refresh():
            d = self._by_tag.get(tag)
        return d

    def cached(self, key: object, make: Callable[[], tuple[Enc, Dec]]) -> tuple[Enc, Dec]:
        got = self._compiled.get(id(key))
        if got is None or got[0] is not key:
            made = make()
            self._compiled[id(key)] = (key, made)
            return made
        return got[1]

    def compiled(self, spec: Spec) -> tuple[Enc, Dec]:
        """``spec``'s encoder and decoder in this table (made once)."""
        return self.cached(spec, lambda: spec.compile(self))

    # -- any value ----------------------------------------------------------------------

    def encode(self, value: Any) -> Any:
        """Any declared value (tagged), or plain JSON."""
        kind = value.__class__
        if kind in _PLAIN:
            return value
        e = self._enc.get(kind)
        if e is None:
            e = self._encoder_of(kind)
        return e(value)

    def _encoder_of(self, kind: type) -> Enc:
        if kind is Invocation:
            return lambda inv: self.compiled_call(inv.call)[0](inv)
        d = self._by_class.get(kind)
        if d is None and self.refresh():
            d = self._by_class.get(kind)
        if d is not None:
            e = d.as_value(self)[0]
        elif kind is tuple or kind is list:
            encode = self.encode

            def e(v: Any) -> Any:
                return [encode(i) for i in v]
        elif kind is dict:
            e = self._encode_dict
        elif issubclass(kind, (str, int, float)) and not dataclasses.is_dataclass(kind):
            e = _identity  # (an IntEnum, a str subclass: its value)
        else:
            raise CodecError(f"a {kind.__name__} is not declared on the wire")
        self._enc[kind] = e
        return e

    def compiled_call(self, c: Call) -> tuple[Enc, Dec]:
        return c.compile(self)

    def _encode_dict(self, value: dict[Any, Any]) -> Any:
        out = {}
        for k, v in value.items():
            if k.__class__ is not str or k == TAG:
                raise CodecError(f"an object with the key {k!r} cannot cross (keys are strings, never {TAG!r})")
            out[k] = self.encode(v)
        return out

    def decode(self, data: Any) -> Any:
        """What :meth:`encode` made ``data`` from (a JSON array comes back as a tuple)."""
        kind = data.__class__
        if kind is dict:
            tag = data.get(TAG)
            if tag is None:
                decode = self.decode
                return {k: decode(v) for k, v in data.items()}
            d = self._dec.get(tag)
            if d is None:
                d = self._decoder_of(tag)
            return d(data)
        if kind is list or kind is tuple:
            decode = self.decode
            return tuple([decode(v) for v in data])
        return data

    def _decoder_of(self, tag: Any) -> Dec:
        declared = self.by_tag(tag) if isinstance(tag, str) else None
        if declared is None:
            raise CodecError(f"no type is declared with the tag {tag!r}")
        d = self.compiled_call(declared)[1] if isinstance(declared, Call) else declared.tagged(self)
        self._dec[tag] = d
        return d

    # -- one spec -------------------------------------------------------------------------

    def encoder(self, spec: Spec) -> Enc:
        return self.compiled(spec)[0]

    def decoder(self, spec: Spec) -> Dec:
        return self.compiled(spec)[1]


def missing_fields(declared: Iterable[Declared]) -> list[str]:
    """Every declared record whose fields are not its class's (init) fields: what a test
    asks, so that a field added to a class cannot be forgotten on the wire."""
    out: list[str] = []
    for d in declared:
        if not isinstance(d, Record) or d.build is not d.cls:
            continue
        cls = d.cls
        if dataclasses.is_dataclass(cls):
            want = tuple(f.name for f in dataclasses.fields(cls) if f.init)
        elif issubclass(cls, tuple) and hasattr(cls, "_fields"):
            want = tuple(cls._fields)
        else:
            continue
        if set(want) != set(d.names()):
            gone = [n for n in want if n not in d.names()]
            extra = [n for n in d.names() if n not in want]
            out.append(f"{d.tag} ({cls.__name__}): not declared {gone}, declared but not fields {extra}")
    return out


def error_record(cls: type, tag: str) -> Record:
    """An error that is data (``engine.errors.RuleError``, ``tui.ports.Refused`` and theirs):
    its ``code`` and ``params``, rebuilt with ``cls.of(code, params)`` whatever its
    constructor's spelling."""
    rebuild: Callable[[str, Mapping[str, Any]], Any] = cls.of  # type: ignore[attr-defined]  # (the errors' own)
    return Record(cls, tag, (("code", STR), ("params", Dict(VALUE))), build=lambda code, params: rebuild(code, params))


class _Error(Spec):
    """An error that is data, by its nearest declared class (a host's ``SaveFailed`` crosses
    as the engine's ``IllegalActionError`` it derives from)."""

    def compile(self, table: Table) -> tuple[Enc, Dec]:
        def enc(error: Any) -> Any:
            for cls in type(error).__mro__:
                d = table._by_class.get(cls)
                if isinstance(d, Record):
                    return table.compiled(Ref(cls))[0](error)
            raise CodecError(f"a {type(error).__name__} is not declared on the wire")

        return enc, table.decode

    def __repr__(self) -> str:
        return "error"


ERROR = _Error()

__all__ = [
    "BOOL", "ERROR", "FLOAT", "INT", "RAW", "STR", "VALUE", "Call", "CodecError", "Custom", "Declared",
    "Invocation", "Record", "Spec", "Table", "cached", "call", "custom", "dict_of", "enum_type", "error_record",
    "fixed", "lst", "missing_fields", "one_of", "opt", "record", "ref", "tup",
]

