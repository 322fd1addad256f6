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
from tests.support.wait import settle, until
from tui.ports import Note, Update


class _Client:
    def __init__(self, bus):
        self.bus, self.edge, self.host_away, self.calls = bus, "e1", False, None


class _Session:
    id = "s1"

    def next_seq(self):
        return 1


EXTRAS = {"clock": None, "abort_from": None, "draw_offer": None, "draw_from": None, "against_human": True,
          "may_hint": False}


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
        first = await asyncio.wait_for(feed.__anext__(), 30)
        assert first == FullRequest("ABCD", 0)  # once subscribed: nothing missed stays missed
        await host.ack(first)
        view = V.view(V.new_match(1), 0)
        await host.publish_update("ABCD", 0, 1, _update(Update(view, (ONE,), version=1, extras=EXTRAS)))
        await until(lambda: len(got) == 1)
        assert got[0].version == 1 and got[0].entries == (ONE,) and h.log == [DEALT, ONE]
        await host.publish_update("ABCD", 0, 3, _update(Update(view, (THREE,), version=3, extras=EXTRAS)))
        asked = await asyncio.wait_for(feed.__anext__(), 30)
        assert asked == FullRequest("ABCD", 0) and len(got) == 1 and h.version == 1  # a gap: not applied
        notice = (Note("waiting_reconnect", {"name": "b", "seconds": 5}),)
        await host.publish_update("ABCD", 0, 3, _update(Update(view, notice=notice, version=3, extras=EXTRAS),
                                                        (DEALT, ONE, TWO, THREE)), full=True)
        await until(lambda: len(got) == 2)
        assert got[1].version == 3 and got[1].entries == (TWO, THREE) and got[1].notice == notice
        await h.close()
    finally:
        await host.close()
        await edge.close()


class _Service:
    """What a host's publisher sends, as the host's service would put it on the bus."""

    def __init__(self):
        self.sent, self.said = [], []

    def send(self, match, seat, version, payload, full):
        self.sent.append((seat, version, WIRE.decode(payload)))

    def say(self, match, seat, payload):
        self.said.append((seat, WIRE.decode(payload)))


async def test_a_notice_alone_goes_on_the_seats_second_stream_and_a_screen_here_still_sees_it():
    from server.cluster.host import Publisher
    from server.host.common import Seat
    from server.host.voltage import Match
    from tui.ports import NoticeChanged

    m = Match([Seat("ann", "a"), Seat("bob", "b")], seed=3, bot_delay=0)
    service = _Service()
    publishers = [Publisher(service, m.handle(seat)) for seat in (0, None)]
    screen: list = []
    m.handle(0).subscribe(screen.append)  # (a screen in the host's own process)
    waiting = Note("waiting_reconnect", {"name": "bob", "seconds": 60})
    m.set_notice(waiting)
    assert service.sent == []  # no view crossed for it
    assert service.said == [(0, NoticeChanged((waiting,))), (-1, NoticeChanged((waiting,)))]
    assert len(screen) == 1 and screen[0].notice == (waiting,) and screen[0].version == 0
    m.start()
    view = m.view(m.state.to_move)
    await m.submit(view.to_move, view.legal[0])  # a move: an update, versioned, with the notice
    assert [(seat, version) for seat, version, _u in service.sent] == [(0, 1), (-1, 1)]
    assert all(u.update.notice == (waiting,) for _s, _v, u in service.sent)
    for p in publishers:
        p.close()
    m.close()


async def test_a_remote_seat_shows_a_notice_said_on_its_second_stream_without_a_version(redis_url):
    from tui.ports import NoticeChanged

    ns = f"t{uuid.uuid4().hex[:8]}"
    host = await RedisBus.connect(redis_url, namespace=ns)
    edge = await RedisBus.connect(redis_url, namespace=ns, consumer="edge")
    feed = host.intents().__aiter__()
    try:
        h = handle_class("voltage")(_Client(edge), _Session(), _descriptor(1))
        got: list = []
        said: list = []
        h.subscribe(got.append)
        h.subscribe_messages(said.append)
        await host.ack(await asyncio.wait_for(feed.__anext__(), 10))  # (its first full request)
        notice = (Note("paused", {}),)
        await host.publish_message("ABCD", 0, WIRE.encode(NoticeChanged(notice)))
        await until(lambda: len(got) == 1)
        assert got[0].notice == notice and got[0].version == 1 and h.version == 1 and h.notice == notice
        assert said == [NoticeChanged(notice)] and h.log == [DEALT]  # not in the log
        await h.close()
    finally:
        await host.close()
        await edge.close()


async def test_an_edge_plays_through_the_lobby_without_one_synchronous_redis_call(cluster, monkeypatch):
    """Every call an edge makes is awaited (its loop never waits on Redis): with the
    synchronous client refusing to run, two sessions name themselves, are paired by quick
    match, move, and read their settings, history and ratings."""
    import redis

    from server.edge.backend import EdgeClient

    used: list = []

    def refuse(self, *args, **kwargs):
        used.append(args[:1])
        raise AssertionError("a synchronous Redis call on an edge")

    monkeypatch.setattr(redis.client.Redis, "execute_command", refuse)
    client = await EdgeClient.connect(cluster.url)
    try:
        ann = await client.open_session("SHA256:ann", "ann", None, {})
        bob = await client.open_session("SHA256:bob", "bob", None, {})
        assert await ann.claim_name("ann") == "ann" and await bob.claim_name("bob") == "bob"
        await ann.enter_lobby()
        await bob.enter_lobby()
        (ha,), (hb,) = await asyncio.wait_for(asyncio.gather(ann.quick_match("voltage"), bob.quick_match("voltage")),
                                              20)
        assert ha.match == hb.match and {ha.seat, hb.seat} == {0, 1}
        await until(lambda: ha.view().my_turn or hb.view().my_turn)
        mover = ha if ha.view().my_turn else hb
        await mover.submit(mover.view().legal[0])
        await until(lambda: ha.version == 1 and hb.version == 1)
        assert await ann.settings() == {} and await ann.ratings() == [] and await ann.history() == []
        assert not await ann.refuses_challenges() and await ann.seated("ABCD") is None
    finally:
        await client.close()
    assert used == []


async def _answering_host(url: str, answer: bool) -> tuple:
    """A host that takes one request from ``t:req`` and, if ``answer``, puts "yes" in its inbox."""
    import redis.asyncio as aioredis

    from server.bus import wire
    from server.bus.frames import FRAMES, InboxFrame

    client = aioredis.Redis.from_url(url, decode_responses=True)
    answered = asyncio.Event()

    async def serve() -> None:
        got = await client.blpop(["t:req"], 10)
        assert got is not None, "no request within 10 s"
        _, data = got
        request = FRAMES.decode(wire.loads(data))
        if answer:
            await client.rpush(request.reply, wire.dumps(FRAMES.encode(InboxFrame(request.id, "yes"))))
        answered.set()

    return client, answered, asyncio.create_task(serve())


async def test_an_answer_given_in_time_counts_though_a_busy_edge_reads_its_inbox_late(redis_url, monkeypatch):
    """An edge starved of CPU reads its inbox late: the host's answer, given within the call's
    time, is still its answer (never "not answering")."""
    from server.bus import rpc

    client, answered, host = await _answering_host(redis_url, answer=True)
    real = rpc.pop_batch

    async def busy(conn, key, timeout, count):  # the edge's loop busy until well after the call's time
        if key == "t:inbox:busy":
            await answered.wait()
            await asyncio.sleep(0.5)
        return await real(conn, key, timeout, count)

    monkeypatch.setattr(rpc, "pop_batch", busy)
    calls = rpc.EdgeCalls(redis_url, "busy", namespace="t")
    await calls.start(lambda payload: None)
    try:
        assert await calls.call("s1", "question", timeout=0.2) == "yes"
        await host
    finally:
        await calls.close()
        await client.aclose()


async def test_a_host_that_does_not_answer_is_not_answering(redis_url):
    from server.bus import rpc

    client, answered, host = await _answering_host(redis_url, answer=False)
    calls = rpc.EdgeCalls(redis_url, "quiet", namespace="t")
    await calls.start(lambda payload: None)
    try:
        try:
            await calls.call("s1", "question", timeout=0.2)
        except rpc.NoReply:
            pass
        else:
            raise AssertionError("an answer from a host that gave none")
        await host
        await until(lambda: not calls._waiting)  # nobody waits for it any more
    finally:
        await calls.close()
        await client.aclose()


async def test_a_redis_restart_does_not_take_the_seats_of_a_live_edges_players(redis_server, tmp_path):
    """Redis restarts empty, so every edge's presence key is gone until its next beat: the host
    looking in between must not take that for a dead edge (its players would lose their seats
    while they play).  The edge here beats again only once the host has looked."""
    from concurrent.futures import ThreadPoolExecutor

    from server.bus import rpc
    from server.cluster.host import HostService
    from server.lobby.core import Lobby

    ttl = 2.0
    host_bus = await RedisBus.connect(redis_server.url, consumer="host")
    host_calls = rpc.HostCalls(redis_server.url, bus=host_bus)
    await host_calls.start()
    executor = ThreadPoolExecutor(max_workers=1)
    service = HostService(Lobby(executor), host_bus, host_calls, edge_ttl=ttl)
    looked: list[set[str]] = []  # what each of the host's looks at the presence keys found
    real_alive = host_bus.alive_edges

    async def alive() -> set[str]:
        found = await real_alive()
        looked.append(found)
        return found

    host_bus.alive_edges = alive
    await service.start()
    edge_bus = await RedisBus.connect(redis_server.url, consumer="edge-e1")
    edge_calls = rpc.EdgeCalls(redis_server.url, "e1")
    await edge_calls.start(lambda payload: None)
    try:
        await edge_bus.heartbeat("e1", ttl)
        opened = asyncio.get_running_loop().time()
        answer = WIRE.decode(await edge_calls.call("s1", WIRE.encode(M.OPEN(identity="SHA256:k", username="alice",
                                                                            initial=None, env={})), timeout=10))
        assert isinstance(answer, M.Reply) and "s1" in service.sessions
        # Playing sends intents, not requests: the edge is known by its beats alone.
        while asyncio.get_running_loop().time() - opened < ttl:
            await edge_bus.heartbeat("e1", ttl)
            n = len(looked)
            await until(lambda n=n: len(looked) > n, what="the host's next look at the edges")

        redis_server.restart()  # empty: the edge's key is gone until it beats again
        await until(lambda: any("e1" not in found for found in looked[-1:]), what="the host's look after the restart")
        await edge_bus.heartbeat("e1", ttl)  # the live edge's next beat
        n = len(looked)
        await until(lambda: any("e1" in found for found in looked[n:]) and len(looked) > n + 1,
                    what="the host's looks after the edge's beat")
        assert "s1" in service.sessions and not service.sessions["s1"].closed, "a live edge's session was closed"
        # An edge that beats no more is still seen gone (once Redis has kept the keys for a ttl).
        await until(lambda: "s1" not in service.sessions, what="the host to see the silent edge gone")
    finally:
        await edge_calls.close()
        await edge_bus.close()
        await service.close()
        await host_calls.close()
        await host_bus.close()
        executor.shutdown(wait=False)


async def test_an_edge_says_the_host_is_ready_only_once_its_sessions_are_open_there_again(redis_url):
    # A restarted host is seen by the lobby snapshot and by the heartbeat at once: the
    # heartbeat must not let the moves go while the sessions are still being re-opened (the
    # restarted host would not know them).
    from server.edge.backend import HOST_PRESENCE, EdgeClient

    ns = f"t{uuid.uuid4().hex[:8]}"
    bus = await RedisBus.connect(redis_url, namespace=ns, consumer="edge")
    reopening, release = asyncio.Event(), asyncio.Event()

    class Session:
        id = "s1"

        async def reopen(self):
            reopening.set()
            await release.wait()

    client = EdgeClient(bus, None, "e1")
    client.epoch = "old"
    client.sessions["s1"] = Session()
    looks = []
    alive_edges = bus.alive_edges

    async def counted():
        looks.append(1)
        return await alive_edges()

    bus.alive_edges = counted
    await bus.heartbeat(HOST_PRESENCE + "new", 30)
    saw = asyncio.get_running_loop().create_task(client._saw_epoch("new"))
    beat = asyncio.get_running_loop().create_task(client._beat())
    try:
        await until(reopening.is_set)
        await until(lambda: looks, what="a heartbeat during the re-opening")
        await settle(20)  # (what that heartbeat does next)
        assert not client.host_ready.is_set() and client.host_away
        release.set()
        await until(client.host_ready.is_set)
        assert not client.host_away
    finally:
        release.set()
        beat.cancel()
        await asyncio.gather(saw, beat, return_exceptions=True)
        await bus.close()
