"""JSON on the bus: what crossed with the standard library still crosses, and reads back the same."""

from __future__ import annotations

import json

from server.bus import wire


def test_values_cross_and_read_back_the_same_as_with_the_standard_library():
    value = {"v": 3, "f": False, "p": {"names": ["Zoë", "Łukasz", "名前"], "t": [1, 2.5, None], "e": {}}}
    assert wire.loads(wire.dumps(value)) == value == json.loads(json.dumps(value))
    assert wire.loads(json.dumps(value)) == value  # an older peer's message reads the same


def test_a_dict_with_number_keys_crosses_as_the_standard_library_sent_it():
    value = {"scores": {1: 4, 2: 3}}
    assert wire.loads(wire.dumps(value)) == json.loads(json.dumps(value)) == {"scores": {"1": 4, "2": 3}}
