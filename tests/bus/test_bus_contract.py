"""One contract, both buses: what host and edge code may rely on (see ``server/bus/__init__.py``).

Every test runs over the in-process bus and over a real private redis-server; the
last ones are about Redis's own faults (restart mid-stream, unreachable URL, a host
restarting with intents read but not acked).
"""

from __future__ import annotations

import asyncio
import time

import pytest

from server.bus import BusUnavailable, FullRequest, Intent, SeatMessage, Update, gap
from tests.support.wait import until


async def read_unacked(sides, pump, n):
    """``n`` intents (seq 0..n-1) sent and read by a host that acks none of them yet:
    (its pump, what it read)."""
    first = pump(sides.host, ack=False)
    for seq in range(n):
        await sides.edge.send_intent(Intent("m1", 0, "s", seq, {}))
    return first, await first.take(n)


async def restart_host(sides, pump, first):
    """The host stops (its pump, then its bus, as a crash would leave it) and a new one
    starts on the same bus: the new one's pump."""
    await first.stop()
    await sides.host.close()
    return pump(await sides.another())


async def test_intents_arrive_in_order_and_a_retry_once(sides, pump):
    host = pump(sides.host)
    accepted = []
    for seq in range(20):
        intent = Intent("m1", seq % 2, "sess-a", seq, {"action": f"play {seq}"})
        accepted.append(await sides.edge.send_intent(intent))
        if seq % 3 == 0:  # the edge retries (it lost the reply): no second delivery
            assert await sides.edge.send_intent(intent) is False
    assert accepted == [True] * 20
    got = await host.take(20)
    assert [(i.seq, i.payload["action"], i.seat, i.match, i.session) for i in got] == [
        (s, f"play {s}", s % 2, "m1", "sess-a") for s in range(20)
    ]
    # the same seq from another session is a different intent
    assert await sides.edge.send_intent(Intent("m1", 0, "sess-b", 0, {})) is True
    (other,) = await host.take(1)
    assert other.session == "sess-b"
    assert host.items.empty()


async def test_a_seat_never_sees_another_seats_updates(sides):
    seat0 = await sides.edge.subscribe_updates("m1", 0)
    seat1 = await sides.edge.subscribe_updates("m1", 1)
    other_match = await sides.edge.subscribe_updates("m2", 0)
    await sides.host.publish_update("m1", 1, 1, {"hand": ["secret of seat 1"]})
    await sides.host.publish_update("m1", 0, 1, {"hand": ["seat 0's own"]})
    await sides.host.publish_update("m2", 0, 7, {"hand": ["m2"]})
    u0 = await seat0.get(5)
    assert (u0.match, u0.seat, u0.version, u0.payload) == ("m1", 0, 1, {"hand": ["seat 0's own"]})
    u1 = await seat1.get(5)
    assert u1.payload == {"hand": ["secret of seat 1"]}
    assert (await other_match.get(5)).payload == {"hand": ["m2"]}
    # seat 0 got nothing else: the next thing it sees is the next seat-0 update
    await sides.host.publish_update("m1", 1, 2, {"hand": ["seat 1 again"]})
    await sides.host.publish_update("m1", 0, 2, {"hand": ["seat 0 again"]})
    assert (await seat0.get(5)).payload == {"hand": ["seat 0 again"]}
    await seat1.close()
    await sides.host.publish_update("m1", 1, 3, {"x": 1})
    async for _ in seat1:  # a closed subscription ends, with nothing more
        pytest.fail("a closed subscription delivered an update")
    for sub in (seat0, other_match):
        await sub.close()


async def test_updates_published_together_reach_each_seat_in_order(sides):
    seats = [await sides.edge.subscribe_updates("m1", seat) for seat in (0, 1)]
    spectators = await sides.edge.subscribe_updates("m1", -1)
    batch = []
    for version in (1, 2, 3):
        batch += [("m1", 0, version, {"hand": [f"0@{version}"]}, False),
                  ("m1", 1, version, {"hand": [f"1@{version}"]}, version == 3),
                  ("m1", -1, version, {"board": version}, False)]
    await sides.host.publish_updates(batch)
    for seat, sub in enumerate(seats):
        got = [await sub.get(5) for _ in range(3)]
        assert [(u.seat, u.version, u.payload["hand"]) for u in got] == [(seat, v, [f"{seat}@{v}"]) for v in (1, 2, 3)]
        assert [u.full for u in got] == [False, False, seat == 1]
    assert [(await spectators.get(5)).payload for _ in range(3)] == [{"board": v} for v in (1, 2, 3)]
    for sub in (*seats, spectators):
        await sub.close()


async def test_a_version_gap_is_seen_and_request_full_reaches_the_host(sides, pump):
    host = pump(sides.host)
    sub = await sides.edge.subscribe_updates("m1", 0)
    await sides.host.publish_update("m1", 0, 3, {"board": "full at 3"}, full=True)
    await sides.host.publish_update("m1", 0, 4, {"play": "a"})
    await sides.host.publish_update("m1", 0, 6, {"play": "c"})  # 5 went missing
    seen, version, asked = [], None, False
    while len(seen) < 3:
        update = await sub.get(5)
        if gap(version, update):
            assert not asked, "only one gap in this stream"
            asked = True
            await sides.edge.request_full("m1", 0)
            (req,) = await host.take(1)
            assert req == FullRequest("m1", 0)
            await sides.host.publish_update("m1", 0, 6, {"board": "full at 6"}, full=True)
            continue
        version = update.version
        seen.append((update.version, update.full, update.payload))
    assert asked
    assert seen == [(3, True, {"board": "full at 3"}), (4, False, {"play": "a"}), (6, True, {"board": "full at 6"})]
    await sub.close()


async def test_a_seats_second_stream_carries_messages_beside_its_updates_never_versioned(sides):
    """Updates and messages of one seat reach its subscription in the order they were
    published; the messages carry no version, so the updates' versions run on with no gap."""
    seat0 = await sides.edge.subscribe_seat("m1", 0)
    updates_only = await sides.edge.subscribe_updates("m1", 0)
    await sides.host.publish([Update("m1", 0, 1, {"play": 1}), SeatMessage("m1", 0, {"note": "Bob is back"}),
                              SeatMessage("m1", 0, {"note": "again"})])
    await sides.host.publish_update("m1", 0, 2, {"play": 2})
    await sides.host.publish_message("m1", 0, {"line": "good game"})
    got = [await seat0.get(5) for _ in range(5)]
    assert [type(i).__name__ for i in got] == ["Update", "SeatMessage", "SeatMessage", "Update", "SeatMessage"]
    assert [i.payload for i in got] == [{"play": 1}, {"note": "Bob is back"}, {"note": "again"}, {"play": 2},
                                        {"line": "good game"}]
    versions, last = [], None
    for item in got:
        if isinstance(item, Update):
            assert not gap(last, item) or last is None
            versions.append(item.version)
            last = item.version
    assert versions == [1, 2]
    # A subscriber of the updates alone never sees a message.
    assert [(await updates_only.get(5)).version for _ in range(2)] == [1, 2]
    with pytest.raises(TimeoutError):
        await updates_only.get(0.3)  # (nothing else comes: deliberately waited for)
    for sub in (seat0, updates_only):
        await sub.close()


async def test_a_message_reaches_only_the_seat_it_was_said_to(sides):
    """A seat's messages reach its subscribers only: the players' seats and the spectators'
    (-1) are different streams, so what is said to one never reaches the other."""
    players = [await sides.edge.subscribe_seat("m1", seat) for seat in (0, 1)]
    spectators = await sides.edge.subscribe_seat("m1", -1)
    for seat in (0, 1):
        await sides.host.publish_message("m1", seat, {"room": "players", "to": seat})
    await sides.host.publish_message("m1", -1, {"room": "spectators"})
    for seat, sub in enumerate(players):
        got = await sub.get(5)
        assert isinstance(got, SeatMessage) and (got.match, got.seat, got.payload) == (
            "m1", seat, {"room": "players", "to": seat})
    assert (await spectators.get(5)).payload == {"room": "spectators"}
    for sub in (*players, spectators):
        with pytest.raises(TimeoutError):
            await sub.get(0.3)  # (nothing more: deliberately waited for)
        await sub.close()


def test_gap_rules():
    from server.bus import Update

    assert gap(None, Update("m", 0, 5, {}))
    assert not gap(None, Update("m", 0, 5, {}, full=True))
    assert not gap(4, Update("m", 0, 5, {}))
    assert not gap(5, Update("m", 0, 5, {}))  # a second update at one action count (a clock, an offer)
    assert gap(4, Update("m", 0, 6, {}))
    assert gap(6, Update("m", 0, 5, {}))  # stale


async def test_lobby_publishes_are_coalesced_latest_wins(sides):
    sub = await sides.edge.lobby()
    t0 = time.monotonic()
    for n in range(10):
        await sides.host.publish_lobby({"rooms": n})
        await asyncio.sleep(0.01)
    # (held back, it would wait for a subscriber that reads only afterwards: for ever)
    assert time.monotonic() - t0 < 10.0, "the publisher is never held back"
    got = [(await sub.get(5))["rooms"]]
    while got[-1] != 9:
        got.append((await sub.get(5))["rooms"])
    assert got[0] == 0 and got[-1] == 9
    assert len(got) <= 2, f"at most one publish per second, got {got}"
    late = await sides.edge.lobby()  # a new edge starts from the latest snapshot
    assert (await late.get(5)) == {"rooms": 9}
    await sub.close()
    await late.close()


async def test_a_lobby_offered_as_a_function_is_made_only_when_it_goes_out(sides):
    sub = await sides.edge.lobby()
    made: list[int] = []

    def snapshot(n: int):
        def make():
            made.append(n)
            return {"rooms": n}
        return make

    for n in range(10):
        await sides.host.publish_lobby(snapshot(n))
        await asyncio.sleep(0.01)
    got = [(await sub.get(5))["rooms"]]
    while got[-1] != 9:
        got.append((await sub.get(5))["rooms"])
    assert made == got, "each snapshot made is published, and none replaced is made"
    assert made[0] == 0 and made[-1] == 9 and len(made) <= 2
    await sub.close()


async def test_presence_expires_so_the_host_sees_an_edge_die(sides):
    await sides.edge.heartbeat("edge-a", 0.3)
    await sides.edge.heartbeat("edge-b", 60)
    assert await sides.host.alive_edges() >= {"edge-a", "edge-b"}

    async def a_gone():
        return "edge-a" not in await sides.host.alive_edges()

    await until(a_gone, what="edge-a's heartbeat to expire")
    assert "edge-b" in await sides.host.alive_edges()
    await sides.edge.heartbeat("edge-a", 60)  # it came back
    assert "edge-a" in await sides.host.alive_edges()


async def test_close_ends_the_feeds(sides, pump):
    sub = await sides.edge.subscribe_updates("m1", 0)
    host = pump(sides.host)
    await sides.edge.close()
    if sides.host is not sides.edge:
        await sides.host.close()
    assert sides.edge.state == "closed"
    async for _ in sub:
        pytest.fail("nothing after close")
    await asyncio.wait_for(host.task, 30)
    with pytest.raises(BusUnavailable, match="closed"):
        await sides.edge.send_intent(Intent("m1", 0, "s", 0, {}))
    with pytest.raises(BusUnavailable, match="closed"):
        await sides.edge.publish_update("m1", 0, 1, {})


def test_local_strict_bus_refuses_what_redis_could_not_carry():
    from server.bus.local import LocalBus

    async def go():
        bus = LocalBus(strict=True)
        with pytest.raises(TypeError):
            await bus.send_intent(Intent("m", 0, "s", 0, {"card": object()}))
        await bus.close()

    asyncio.run(go())


# -- Redis's own faults ----------------------------------------------------------


async def test_unreachable_redis_is_one_clear_error(tmp_path):
    from server.bus.redis import RedisBus

    url = f"unix://{tmp_path}/nobody-here.sock"
    with pytest.raises(BusUnavailable, match=rf"^cannot reach Redis at {url}: .+") as info:
        await RedisBus.connect(url)
    assert info.value.__cause__ is None and info.value.__suppress_context__
    with pytest.raises(BusUnavailable, match=r"^cannot reach Redis at redis://127\.0\.0\.1:1/0: "):
        await RedisBus.connect("redis://127.0.0.1:1/0")
    with pytest.raises(BusUnavailable, match=r"^cannot reach Redis at nonsense://x: "):
        await RedisBus.connect("nonsense://x")


async def test_redis_restart_mid_stream_reconnects_and_loses_nothing_accepted(redis_sides, redis_server, pump):
    sides = redis_sides
    states: list[str] = []
    sides.edge.on_state(states.append)
    host = pump(sides.host)
    sub = await sides.edge.subscribe_seat("m1", 0)  # (both of the seat's streams)
    lobby = await sides.edge.lobby()
    await sides.host.publish_lobby({"rooms": 1})
    assert await lobby.get(5) == {"rooms": 1}
    for seq in range(5):
        await sides.edge.send_intent(Intent("m1", 0, "s", seq, {"n": seq}))
    assert [i.seq for i in await host.take(5)] == list(range(5))  # and acked

    redis_server.stop()
    sending = asyncio.ensure_future(sides.edge.send_intent(Intent("m1", 0, "s", 5, {"n": 5})))
    await until(lambda: sides.edge.state == "reconnecting", what="the edge to report the lost connection")
    assert not sending.done()  # held, retried with backoff, not raised
    redis_server.start()
    assert await asyncio.wait_for(sending, 15) is True
    for seq in range(6, 10):
        await sides.edge.send_intent(Intent("m1", 0, "s", seq, {"n": seq}))
    got = await host.take(6, timeout=30)
    intents = [i for i in got if isinstance(i, Intent)]
    assert [i.seq for i in intents] == list(range(5, 10))  # nothing acknowledged before came again
    assert states[0] == "reconnecting" and states[-1] == "connected"
    # the seat's subscription came back by itself, and asked once for the view it may have
    # missed (its messages are of the moment: nothing is asked for them)
    assert [i for i in got if not isinstance(i, Intent)] == [FullRequest("m1", 0)]
    await sides.host.publish_update("m1", 0, 10, {"board": "full"}, full=True)
    await sides.host.publish_message("m1", 0, {"note": "back"})
    assert (await sub.get(15)).payload == {"board": "full"}
    assert (await sub.get(15)).payload == {"note": "back"}
    await sides.host.publish_lobby({"rooms": 2})  # and the lobby's subscription came back too
    assert await lobby.get(15) == {"rooms": 2}
    assert host.items.empty()
    await sub.close()
    await lobby.close()


async def test_a_restarted_host_gets_what_it_read_but_never_acked(redis_sides, pump):
    sides = redis_sides
    first, got = await read_unacked(sides, pump, 4)
    await sides.host.ack(got[0])
    await sides.host.ack(got[1])  # committed two, then crashed
    restarted = await restart_host(sides, pump, first)
    assert [i.seq for i in await restarted.take(2)] == [2, 3]
    await sides.edge.send_intent(Intent("m1", 0, "s", 4, {}))
    assert [i.seq for i in await restarted.take(1)] == [4]


async def test_acks_made_at_once_all_commit_and_a_later_one_too(redis_sides, pump):
    # several intents applied at the same moment are acknowledged together (one XACK):
    # each ack returns once its own tag is committed, so a restart sees only the rest
    sides = redis_sides
    first, got = await read_unacked(sides, pump, 8)
    await asyncio.gather(*(sides.host.ack(i) for i in got[:5]))
    await sides.host.ack(got[6])  # alone, later
    restarted = await restart_host(sides, pump, first)
    assert [i.seq for i in await restarted.take(2)] == [5, 7]


async def test_what_one_moment_sends_goes_together_and_a_refused_command_fails_only_its_caller(redis_sides, pump):
    # an action's updates, its reply to the edge and its ack share one pipeline; a
    # command Redis refuses (a reply key that is not a list) fails that caller alone
    import redis.asyncio as aioredis
    from redis.exceptions import ResponseError

    sides = redis_sides
    raw = aioredis.Redis.from_url(sides.url, decode_responses=True)
    await raw.set(f"{sides.namespace}:not-a-list", "x")
    first, got = await read_unacked(sides, pump, 2)
    seat = await sides.edge.subscribe_updates("m1", 0)
    results = await asyncio.gather(
        sides.host.publish_updates([("m1", 0, 1, {"n": 1}, False), ("m1", 0, 2, {"n": 2}, False)]),
        sides.host.push_list(f"{sides.namespace}:inbox:e1", '{"id": "r1"}', 60),
        sides.host.push_list(f"{sides.namespace}:not-a-list", '{"id": "r2"}', 60),
        sides.host.ack(got[0]),
        return_exceptions=True,
    )
    assert [type(r) for r in results] == [type(None), type(None), ResponseError, type(None)]
    assert [(await seat.get(5)).payload["n"] for _ in range(2)] == [1, 2]
    assert await raw.lrange(f"{sides.namespace}:inbox:e1", 0, -1) == ['{"id": "r1"}']
    assert 0 < await raw.ttl(f"{sides.namespace}:inbox:e1") <= 60
    restarted = await restart_host(sides, pump, first)
    assert [i.seq for i in await restarted.take(1)] == [1], "the ack beside the refused command committed"
    await seat.close()
    await raw.aclose()


async def test_a_slow_subscriber_loses_its_oldest_updates_and_sees_a_gap():
    from server.bus import Subscription, Update

    sub: Subscription[Update] = Subscription(maxsize=3)
    for v in range(1, 6):
        sub.put(Update("m", 0, v, {}))
    got = [(await sub.get(1)).version for _ in range(3)]
    assert got == [3, 4, 5]  # memory stays bounded; 1 and 2 are gone
    assert gap(0, Update("m", 0, got[0], {}))  # so the subscriber asks for the full view
