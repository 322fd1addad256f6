"""The split server's parts on a real Redis, without SSH: the codec, the remote seat's
version checks (a gap asks for the full view), and what crosses the update channels."""

from __future__ import annotations

import asyncio
import json
import random
import uuid

import pytest

from engine.highvoltage import rules as H
from engine.voltage import rules as V
from server.bus import FullRequest
from server.bus.redis import RedisBus
from server.cluster.codec import CodecError, decode, encode
from server.edge.backend import RemoteSeatHandle
from tui.ports import Note, Update


def _round_trip(value):
    return decode(json.loads(json.dumps(encode(value))))


def test_views_and_actions_of_both_games_cross_as_json_and_come_back_equal():
    rng = random.Random(7)
    s = V.new_match(3)
    while not V.view(s, None).over:
        for seat in (0, 1, None):
            v = V.view(s, seat)
            assert _round_trip(v) == v
        a = rng.choice(V.legal_actions(s))
        assert _round_trip(a) == a
        V.step(s, a)
    h = H.new_match(5, 3)
    for seat in (0, 1, 2, None):
        v = H.view(h, seat)
        assert _round_trip(v) == v


def test_a_message_naming_a_class_outside_the_allow_list_is_refused():
    with pytest.raises(CodecError):
        decode({"$": "subprocess:Popen", "f": [["true"]]})
    with pytest.raises(CodecError):
        decode({"$": "os:system", "f": ["true"]})


def test_a_message_with_too_few_or_too_many_fields_is_refused_not_filled_in():
    data = encode(V.view(V.new_match(3), 0))
    short, long = dict(data, f=data["f"][:-1]), dict(data, f=[*data["f"], 1])
    for broken in (short, long):
        with pytest.raises(CodecError, match="fields"):
            decode(broken)


class _Client:
    def __init__(self, bus):
        self.bus, self.edge, self.host_away, self.calls = bus, "e1", False, None


class _Session:
    id = "s1"

    def next_seq(self):
        return 1


def _descriptor(version: int) -> dict:
    s = V.new_match(1)
    return {"$h": 1, "m": "ABCD", "s": 0, "game": "voltage", "seat": 0, "names": ["a", "b"],
            "log": encode([DEALT]), "notice": encode(()), "countdown": None, "version": version,
            "view": encode(V.view(s, 0))}


DEALT, ONE, TWO, THREE = (V.Event("start", seat=0), Note("back", {"name": "one"}), V.Event("pass", seat=0),
                          V.Event("pass", seat=1))


async def test_a_remote_seat_asks_for_the_full_view_on_subscribing_and_on_a_gap(redis_url):
    ns = f"t{uuid.uuid4().hex[:8]}"
    host = await RedisBus.connect(redis_url, namespace=ns)
    edge = await RedisBus.connect(redis_url, namespace=ns, consumer="edge")
    feed = host.intents().__aiter__()
    try:
        h = RemoteSeatHandle(_Client(edge), _Session(), _descriptor(0))
        got: list = []
        h.subscribe(got.append)
        first = await asyncio.wait_for(feed.__anext__(), 30)
        assert first == FullRequest("ABCD", 0)  # once subscribed: nothing missed stays missed
        await host.ack(first)
        view = V.view(V.new_match(1), 0)
        await host.publish_update("ABCD", 0, 1, {"u": encode(Update(view, (ONE,), version=1))})
        await _until(lambda: len(got) == 1)
        assert got[0].version == 1 and got[0].entries == (ONE,) and h.log == [DEALT, ONE]
        await host.publish_update("ABCD", 0, 3, {"u": encode(Update(view, (THREE,), version=3))})
        asked = await asyncio.wait_for(feed.__anext__(), 30)
        assert asked == FullRequest("ABCD", 0) and len(got) == 1 and h.version == 1  # a gap: not applied
        notice = (Note("waiting_reconnect", {"name": "b", "seconds": 5}),)
        await host.publish_update("ABCD", 0, 3, {"u": encode(Update(view, notice=notice, version=3)),
                                                 "log": encode([DEALT, ONE, TWO, THREE])}, full=True)
        await _until(lambda: len(got) == 2)
        assert got[1].version == 3 and got[1].entries == (TWO, THREE) and got[1].notice == notice
        await h.close()
    finally:
        await host.close()
        await edge.close()


async def _until(predicate, timeout=30.0):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)
