"""The one table of the wire: every declared type crosses and comes back (hypothesis builds
each from its declaration, and real matches of every game give real views, actions and
events), no module path or class name crosses, every field of a declared class is declared,
an older or newer peer's message is refused naming the tag and the field, a renamed class
still decodes, and each game's extras and calls are what its host has."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import IllegalActionError, InvalidActionError, RuleError
from engine.registry import RULES
from server import games
from server.bus import wire
from server.host.common import Seat
from server.wire import codec as K
from server.wire import messages as M
from server.wire.table import WIRE
from tui.ports import Note, Refused, Update

# -- strategies from the declarations --------------------------------------------------------

JSON_SCALARS = st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8)
KEYS = st.text(max_size=6).filter(lambda k: k != "$")


def _examples() -> dict[type, list[Any]]:
    """A custom type's values (a card, a face): each game's own list of them."""
    from server.host import highvoltage_wire, voltage_wire

    return {cls: list(values) for cls, values in (
        (voltage_wire.Card, voltage_wire._CARDS), (highvoltage_wire.Face, highvoltage_wire._FACES))}


ERRORS = st.sampled_from([RuleError("not_allowed"), IllegalActionError("not_your_turn"),
                          InvalidActionError("bad_action", text="x"), Refused("no_room", code="KCUZ")])


def strategy(spec: K.Spec, depth: int = 0) -> st.SearchStrategy[Any]:
    if isinstance(spec, K.Scalar):
        return {"int": st.integers(-(2**62), 2**62), "float": st.floats(allow_nan=False, allow_infinity=False),
                "str": st.text(max_size=8), "bool": st.booleans(), "null": st.none()}[spec.name]
    if spec is K.RAW:
        return JSON_SCALARS
    if spec is K.VALUE:
        return value_strategy(depth)
    if spec is K.ERROR:
        return ERRORS
    if isinstance(spec, K.Opt):
        return st.none() | strategy(spec.inner, depth)
    if isinstance(spec, K.Seq):
        return st.lists(strategy(spec.inner, depth + 1), max_size=3).map(spec.kind)
    if isinstance(spec, K.Fixed):
        return st.tuples(*(strategy(s, depth + 1) for s in spec.items))
    if isinstance(spec, K.Dict):
        return st.dictionaries(KEYS, strategy(spec.inner, depth + 1), max_size=3)
    if isinstance(spec, K.Cached):
        return strategy(spec.inner, depth)
    if isinstance(spec, K.Ref):
        return declared_strategy(WIRE.declared(spec.cls), depth + 1)
    if isinstance(spec, K.OneOf):
        return st.one_of(*(declared_strategy(WIRE.declared(c), depth + 1) for c in spec.classes))
    raise AssertionError(f"no strategy for {spec!r}: add one here")


def declared_strategy(d: K.Declared, depth: int = 0) -> st.SearchStrategy[Any]:
    if isinstance(d, K.Custom):
        return st.sampled_from(_examples()[d.cls])
    if isinstance(d, K.Call):
        return st.fixed_dictionaries({n: strategy(s, depth) for n, s in d.args}).map(lambda a: d(**a))
    assert isinstance(d, K.Record), d
    if d.build is not d.cls:  # (an error record)
        return ERRORS.filter(lambda e: WIRE.declared(type(e)) is d) if d.cls in (
            RuleError, IllegalActionError, InvalidActionError, Refused) else st.just(d.cls.of("x", {}))  # type: ignore[attr-defined]  # (an error record's class has .of)
    return st.fixed_dictionaries({n: strategy(s, depth) for n, s in d.fields}).map(lambda f: d.cls(**f))


def value_strategy(depth: int) -> st.SearchStrategy[Any]:
    leaves = JSON_SCALARS | st.sampled_from([Note("back", {"name": "Bob"})] + _examples()[_card()][:3])
    if depth > 2:
        return leaves
    return st.recursive(leaves, lambda inner: st.lists(inner, max_size=3).map(tuple)
                        | st.dictionaries(KEYS, inner, max_size=3), max_leaves=6)


def _card() -> type:
    from engine.voltage.cards import Card

    return Card


# -- comparing what came back ------------------------------------------------------------------


def norm(v: Any) -> Any:
    """A value with its errors as (class, code, params) (errors do not compare equal)."""
    if isinstance(v, BaseException):
        return (type(v), getattr(v, "code", None), norm(getattr(v, "params", None)))
    if dataclasses.is_dataclass(v) and not isinstance(v, type):
        return (type(v), *(norm(getattr(v, f.name)) for f in dataclasses.fields(v)))
    if isinstance(v, K.Invocation):
        return (v.call.tag, norm(dict(v.args)))
    if isinstance(v, tuple) and not hasattr(v, "_fields"):
        return tuple(norm(i) for i in v)
    if isinstance(v, list):
        return [norm(i) for i in v]
    if isinstance(v, dict):
        return {k: norm(i) for k, i in v.items()}
    return v


def across(value: Any) -> Any:
    """``value`` as an edge gets it from the host: encoded, written, read, decoded."""
    return WIRE.decode(wire.loads(wire.dumps(WIRE.encode(value))))


def tags_in(data: Any) -> Iterator[str]:
    if isinstance(data, dict):
        if isinstance(data.get("$"), str):
            yield data["$"]
        for v in data.values():
            yield from tags_in(v)
    elif isinstance(data, list | tuple):
        for v in data:
            yield from tags_in(v)


# -- real matches of every game ---------------------------------------------------------------


def played(game: str, seed: int, seats: int, steps: int = 60) -> Iterator[Any]:
    """Views of every seat, actions and events of a random match of ``game``."""
    rules = RULES[game]
    rng = random.Random(seed)
    state = rules.new_match(seed, seats)
    yield from rules.start_events(state)
    for _ in range(steps):
        for seat in (*range(seats), None):
            yield rules.view(state, seat)
        if rules.outcome(state) is not None:
            return
        movers = [s for s in (rules.to_move(state), *range(seats)) if s is not None]
        for seat in [None, *movers]:
            legal = list(rules.legal_actions(state, seat))
            if legal:
                action = rng.choice(legal)
                yield action
                state, events = rules.apply(state, action, seat)
                yield from events
                break
        else:
            return


def real_values() -> list[Any]:
    out: list[Any] = []
    for game in games.GAMES:
        info = RULES[game].info
        for seats in {info.min_seats, info.max_seats}:
            out += list(played(game, seats * 7 + 1, seats))
    from engine.highvoltage import rules as H
    from engine.voltage import rules as V

    out += [V.Resign(0), V.Timeout(1), V.Abort(0), V.AgreeDraw(1), H.Go(), H.Resign(2), H.Stuck(1),
            H.TooSlowError(0, H.Face(3, 1), H.Face(5, 2), H.Face(6, 1))]
    return out


def test_every_value_of_real_matches_of_every_game_crosses_and_comes_back_equal():
    values = real_values()
    kinds = {type(v) for v in values}
    assert len(kinds) >= 12  # views, actions and events of both games
    for value in values:
        back = across(value)
        assert type(back) is type(value) and norm(back) == norm(value), value
        update = Update(value, (value,), (Note("back", {"name": "x"}),), None, 3, ("a", "b"), {"x": value})
        assert norm(across(M.SeatUpdate(update))) == norm(M.SeatUpdate(update))


@pytest.mark.parametrize("tag", sorted(d.tag for d in WIRE.declarations()))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_declared_type_crosses_and_comes_back(tag, data):
    declared = WIRE.by_tag(tag)
    assert declared is not None
    value = data.draw(declared_strategy(declared))
    encoded = WIRE.encode(value)
    assert tag in set(tags_in(encoded))
    back = WIRE.decode(json.loads(json.dumps(encoded)))
    assert norm(back) == norm(value)
    assert WIRE.decode(wire.loads(wire.dumps(encoded))) is not None or value is None


def test_no_module_path_or_class_name_is_on_the_wire():
    values = real_values()
    text = json.dumps([WIRE.encode(v) for v in values])
    modules = {d.cls.__module__ for d in WIRE.declarations()}
    assert len(modules) > 5
    for name in (*modules, "engine.", "server.", "tui.", "VoltageView", "HighVoltageView", "ClockView"):
        assert name not in text, name


def test_every_field_of_every_declared_class_is_declared():
    assert K.missing_fields(WIRE.declarations()) == []


def test_a_message_from_an_older_or_newer_peer_is_refused_naming_the_tag_and_the_field():
    from engine.voltage import rules as V

    view = V.view(V.new_match(3), 0)
    data = json.loads(json.dumps(WIRE.encode(M.SeatUpdate(Update(view, version=1)))))
    older = json.loads(json.dumps(data))
    del older["update"]["view"]["flips_pending"]
    with pytest.raises(K.CodecError, match=r"seat-update\.update > update\.view > v\.view: missing field "
                                           r"'flips_pending'"):
        WIRE.decode(older)
    newer = json.loads(json.dumps(data))
    newer["update"]["mood"] = "calm"
    with pytest.raises(K.CodecError, match=r"seat-update\.update > update: unknown field 'mood'"):
        WIRE.decode(newer)
    renamed = json.loads(json.dumps(data))
    renamed["update"]["view"]["$"] = "v.sight"
    with pytest.raises(K.CodecError, match="no type is declared with the tag 'v.sight'"):
        WIRE.decode(renamed)


def test_a_renamed_or_moved_class_changes_nothing_on_the_wire():
    from engine.voltage import rules as V

    view = V.view(V.new_match(3), 0)
    before = json.dumps(WIRE.encode(view))
    saved = V.VoltageView.__qualname__, V.VoltageView.__module__
    V.VoltageView.__qualname__, V.VoltageView.__module__ = "SeatSight", "engine.elsewhere"
    try:
        assert json.dumps(WIRE.encode(view)) == before
        assert WIRE.decode(json.loads(before)) == view
    finally:
        V.VoltageView.__qualname__, V.VoltageView.__module__ = saved


async def test_each_games_extras_are_what_its_host_gives_and_its_calls_are_its_handles():
    for gid, game in games.GAMES.items():
        info = RULES[gid].info
        host = game.new_host([Seat(f"p{i}", f"k{i}") for i in range(info.min_seats)], "ABCD", games.HostConfig())
        for seat in (0, None):
            assert set(host.extras(seat)) == {e.name for e in game.extras}, gid
        handle = host.handle(0)
        for c in game.calls:
            assert callable(getattr(handle, c.method, None)), (gid, c.method)
        host.close()


async def test_a_third_game_registered_later_crosses_with_its_own_declarations(monkeypatch):
    """The toy game's types are found in the table at its first value (its registry entry
    declares them, nothing shared does), and its matches cross like the others'."""
    from server.bus import frames
    from server.wire import table, types
    from tests.support.toy import register
    from tests.support.toy import rules as T

    fresh = K.Table([*types.DECLARED, *M.DECLARED, *frames.DECLARED], more=table._games)  # (as WIRE is made)
    with pytest.raises(K.CodecError, match="not declared"):
        fresh.encode(T.Resign(0))
    register(monkeypatch)
    values = list(played("toy", 5, 2))
    assert {type(v).__name__ for v in values} >= {"ToyView", "Play", "Event"}
    for value in values:
        back = fresh.decode(wire.loads(wire.dumps(fresh.encode(value))))
        assert norm(back) == norm(value)
    assert K.missing_fields(fresh.declarations()) == []
