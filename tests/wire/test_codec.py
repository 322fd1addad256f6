"""The wire's machinery on small types of its own: records by tag with named fields, a
field missing or added refused with the tag and the field named, values of the wrong kind
refused, the decoder building nothing undeclared, custom types and calls."""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field
from typing import NamedTuple

import pytest

from server.wire.codec import (
    BOOL,
    FLOAT,
    INT,
    STR,
    VALUE,
    CodecError,
    Invocation,
    Table,
    call,
    custom,
    dict_of,
    enum_type,
    fixed,
    lst,
    missing_fields,
    one_of,
    opt,
    record,
    ref,
    tup,
)


class Pip(NamedTuple):
    face: int
    lit: bool = False


@dataclass(frozen=True, slots=True)
class Move:
    seat: int
    pip: Pip
    to: int | None = None


@dataclass(frozen=True)
class Pass:
    seat: int


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclass(frozen=True)
class Board:
    seat: int | None
    pips: tuple[Pip, ...]
    rows: tuple[tuple[int, ...], ...]
    moves: tuple[Move | Pass, ...]
    names: list[str]
    tally: dict[str, int]
    colour: Colour
    ratio: float
    extra: dict[str, object] = field(default_factory=dict)
    last: tuple[str, int] | None = None


PIP = custom(Pip, "t.pip", lambda p: f"{p.face}{'*' if p.lit else ''}",
             lambda s: Pip(int(s.rstrip("*")), s.endswith("*")))
DECLARED = [
    PIP,
    record(Move, "t.move", seat=INT, pip=ref(Pip), to=opt(INT)),
    record(Pass, "t.pass", seat=INT),
    enum_type(Colour, "t.colour"),
    record(Board, "t.board", seat=opt(INT), pips=tup(ref(Pip)), rows=tup(tup(INT)), moves=tup(one_of(Move, Pass)),
           names=lst(STR), tally=dict_of(INT), colour=ref(Colour), ratio=FLOAT, extra=dict_of(VALUE),
           last=opt(fixed(STR, INT))),
]
PLAY = call("t.play", "play", result=BOOL, move=ref(Move), note=STR)


def table() -> Table:
    return Table([*DECLARED, PLAY])


BOARD = Board(0, (Pip(3), Pip(5, True)), ((1, 2), ()), (Move(0, Pip(3), 1), Pass(1)), ["ann", "bob"], {"a": 1},
              Colour.BLUE, 0.5, {"best": Pip(9, True), "n": 3, "list": (1, "x")}, ("x", 2))


def across(t: Table, value: object) -> object:
    return t.decode(json.loads(json.dumps(t.encode(value))))


def test_a_record_crosses_by_tag_and_field_names_and_comes_back_equal():
    t = table()
    data = t.encode(BOARD)
    assert data["$"] == "t.board" and set(data) == {"$", *(n for n in Board.__dataclass_fields__)}
    assert data["pips"] == ["3", "5*"] and data["moves"][1] == {"$": "t.pass", "seat": 1}
    assert data["extra"]["best"] == {"$": "t.pip", "v": "9*"}  # (a custom type where any value may stand: tagged)
    assert across(t, BOARD) == BOARD
    assert t.decode(data) == BOARD  # (in-process, the tuples as they were)


def test_no_module_or_class_name_crosses_and_a_renamed_class_still_decodes():
    t = table()
    text = json.dumps(t.encode(BOARD))
    for name in ("Board", "Move", "Pip", "tests.", "test_codec", __name__):
        assert name not in text
    saved = Move.__qualname__, Move.__module__
    Move.__qualname__, Move.__module__ = "Renamed", "elsewhere.entirely"  # (monkeypatch cannot undo a qualname)
    try:
        assert table().decode(json.loads(text)) == BOARD
        assert json.dumps(table().encode(BOARD)) == text
    finally:
        Move.__qualname__, Move.__module__ = saved


def test_a_missing_or_added_field_is_refused_naming_the_tag_and_the_field():
    t = table()
    data = json.loads(json.dumps(t.encode(BOARD)))
    del data["moves"][0]["to"]
    with pytest.raises(CodecError, match=r"t\.board\.moves > t\.move: missing field 'to'"):
        t.decode(data)
    data = json.loads(json.dumps(t.encode(BOARD)))
    data["colour_name"] = "blue"
    with pytest.raises(CodecError, match=r"t\.board: unknown field 'colour_name'"):
        t.decode(data)
    data = json.loads(json.dumps(t.encode(BOARD)))
    data["ratio"] = "half"
    with pytest.raises(CodecError, match=r"t\.board\.ratio: expected float, got a string"):
        t.decode(data)
    data["ratio"], data["rows"] = 0.5, [[1, "2"]]
    with pytest.raises(CodecError, match=r"t\.board\.rows: expected int, got a string"):
        t.decode(data)


def test_the_decoder_builds_nothing_undeclared():
    t = table()
    for data in ({"$": "subprocess:Popen", "args": ["true"]}, {"$": "os.system", "v": "true"}, {"$": 3}):
        with pytest.raises(CodecError, match="no type is declared"):
            t.decode(data)
    with pytest.raises(CodecError, match="expected one_of"):
        t.decoder(one_of(Move, Pass))({"$": "t.board"})
    with pytest.raises(CodecError, match="not a t.pip"):
        t.decoder(ref(Pip))("x*")
    with pytest.raises(CodecError, match="not declared"):
        t.encode(object())
    with pytest.raises(CodecError, match="keys are strings"):
        t.encode({1: "one"})


def test_a_call_carries_its_named_arguments_and_its_result_type():
    t = table()
    inv = PLAY(move=Move(0, Pip(2)), note="hi")
    data = json.loads(json.dumps(t.encode(inv)))
    assert data == {"$": "t.play", "move": {"$": "t.move", "seat": 0, "pip": "2", "to": None}, "note": "hi"}
    back = t.decode(data)
    assert isinstance(back, Invocation) and back.call is PLAY and back.args == inv.args
    assert t.decoder(PLAY.result)(True) is True
    with pytest.raises(TypeError):
        PLAY(move=Move(0, Pip(2)))
    data["loud"] = True
    with pytest.raises(CodecError, match="t.play: unknown field 'loud'"):
        t.decode(data)


def test_every_field_of_a_declared_class_must_be_declared():
    assert missing_fields(DECLARED) == []
    short = record(Move, "t.move", seat=INT, pip=ref(Pip))
    assert missing_fields([short]) == ["t.move (Move): not declared ['to'], declared but not fields []"]


def test_a_tag_or_a_class_declared_twice_is_a_mistake_found_at_once():
    with pytest.raises(ValueError, match="declared twice"):
        Table([record(Pass, "t.pass", seat=INT), record(Pass, "t.pass2", seat=INT)])
    with pytest.raises(ValueError, match="declared twice"):
        Table([record(Pass, "t.pass", seat=INT), record(Move, "t.pass", seat=INT, pip=ref(Pip), to=opt(INT))])


def test_declarations_that_grow_are_found_at_the_first_value_of_them():
    more: list = []
    t = Table(DECLARED[:1], more=lambda: more)
    with pytest.raises(CodecError):
        t.encode(Pass(1))
    more.append(record(Pass, "t.pass", seat=INT))
    assert t.decode(t.encode(Pass(1))) == Pass(1)
