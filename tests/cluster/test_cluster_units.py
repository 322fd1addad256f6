"""The split server's parts on a real Redis, without SSH: the remote seat's version checks
(a gap asks for the full view), and what crosses the update channels (the wire's own
tests are in tests/wire)."""

from __future__ import annotations

import asyncio
import uuid

from engine.voltage import rules as V
from server.bus import FullRequest
from server.bus.redis import RedisBus
from server.edge.backend import handle_class
from server.wire import messages as M
from server.wire.table import WIRE
from tui.ports import Note, Update


class _Client:
    def __init__(self, bus):
        self.bus, self.edge, self.host_away, self.calls = bus, "e1", False, None


class _Session:
    id = "s1"

    def next_seq(self):
        return 1


EXTRAS = {"clock": None, "abort_from": None, "draw_offer": None, "against_human": True}


def _descriptor(version: int) -> M.SeatDescriptor:
    s = V.new_match(1)
    return M.SeatDescriptor("ABCD", 0, "voltage", 0, ("a", "b"), (DEALT,), (), None, version, V.view(s, 0), EXTRAS)


def _update(update: Update, log: tuple | None = None) -> dict:
    return WIRE.encode(M.SeatUpdate(update) if log is None else M.FullUpdate(update, log))


DEALT, ONE, TWO, THREE = (V.Event("start", seat=0), Note("back", {"name": "one"}), V.Event("pass", seat=0),
                          V.Event("pass", seat=1))


async def test_a_remote_seat_asks_for_the_full_view_on_subscribing_and_on_a_gap(redis_url):
    ns = f"t{uuid.uuid4().hex[:8]}"
    host = await RedisBus.connect(redis_url, namespace=ns)
    edge = await RedisBus.connect(redis_url, namespace=ns, consumer="edge")
    feed = host.intents().__aiter__()
    try:
        h = handle_class("voltage")(_Client(edge), _Session(), _descriptor(0))
        got: list = []
        h.subscribe(got.append)
        first = await asyncio.wait_for(feed.__anext__(), 10)
        assert first == FullRequest("ABCD", 0)  # once subscribed: nothing missed stays missed
        await host.ack(first)
        view = V.view(V.new_match(1), 0)
        await host.publish_update("ABCD", 0, 1, _update(Update(view, (ONE,), version=1, extras=EXTRAS)))
        await _until(lambda: len(got) == 1)
        assert got[0].version == 1 and got[0].entries == (ONE,) and h.log == [DEALT, ONE]
        await host.publish_update("ABCD", 0, 3, _update(Update(view, (THREE,), version=3, extras=EXTRAS)))
        asked = await asyncio.wait_for(feed.__anext__(), 10)
        assert asked == FullRequest("ABCD", 0) and len(got) == 1 and h.version == 1  # a gap: not applied
        notice = (Note("waiting_reconnect", {"name": "b", "seconds": 5}),)
        await host.publish_update("ABCD", 0, 3, _update(Update(view, notice=notice, version=3, extras=EXTRAS),
                                                        (DEALT, ONE, TWO, THREE)), full=True)
        await _until(lambda: len(got) == 2)
        assert got[1].version == 3 and got[1].entries == (TWO, THREE) and got[1].notice == notice
        await h.close()
    finally:
        await host.close()
        await edge.close()


async def _until(predicate, timeout=10.0):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)
