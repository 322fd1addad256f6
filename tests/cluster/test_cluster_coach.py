"""The coach on the split server (a real Redis, the host in this process, an edge's client
here): a hint against a bot crosses as Voltage's declared seat call and marks the match
hinted (never rated); between people there is none; a replay opened through an edge gets
its analysis from the host's coach, made once with its progress shown, kept, and one per
player at a time."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from engine.errors import IllegalActionError
from engine.voltage import coach as K
from server import coach as C
from server.edge.backend import EdgeClient
from tests.support.store import KA, KB, finished_match
from tests.support.wait import until
from tui.ports import Refused


@pytest.fixture
def coach():
    """The host's coach on a thread, with a small search (the figures are not the point)."""
    pool = ThreadPoolExecutor(max_workers=1)
    c = C.Coach(executor=pool, hint_iterations=40, analysis_iterations=20)
    C.use(c)
    yield c
    C.use(None)
    pool.shutdown(wait=True)


async def _against_bot(client: EdgeClient, key: str, name: str):
    session = await client.open_session(key, name, None, {})
    await session.claim_name(name)
    (handle,) = await session.play_bot("easy", "voltage")
    return session, handle


async def test_a_hint_crosses_from_the_hosts_coach_and_marks_the_match_hinted(cluster, coach):
    client = await EdgeClient.connect(cluster.url)
    try:
        _session, handle = await _against_bot(client, KA, "ann")
        assert handle.extras["may_hint"] is True
        await until(lambda: handle.view().my_turn, timeout=20)
        view = handle.view()
        hint = await handle.hint()
        assert isinstance(hint, K.Hint) and isinstance(hint.reason, K.Reason)
        assert hint.action in view.legal  # a move of this position, as the embedded coach gives it
        match = next(h.match for h in cluster.lobby.matches.values() if h.match.code == handle.match)
        assert match.hinted  # (never rated: the store's rule for a hinted match)
        await until(lambda: any(getattr(e, "id", "") == "hint_used" for e in handle.log))
    finally:
        await client.close()


async def test_a_hinted_match_on_the_split_server_is_stored_as_such_and_never_rated(kept_cluster, coach):
    store = kept_cluster.store
    client = await EdgeClient.connect(kept_cluster.url)
    try:
        session, handle = await _against_bot(client, KA, "ann")
        await until(lambda: handle.view().my_turn, timeout=20)
        await handle.hint()
        match = next(h.match for h in kept_cluster.lobby.matches.values() if h.match.code == handle.match)
        await handle.resign()
        await until(lambda: match.over)
        mid = match.recorder.match_id
        await until(lambda: store.match_record(mid).finished)
        assert store.match_record(mid).hinted and store.rating_changes(mid) == {}
        history = await session.history()  # what the player's "Your matches" shows, through the edge
        assert history and history[0].hinted and history[0].delta is None
    finally:
        await client.close()


async def test_no_hint_between_people_on_the_split_server(cluster, coach):
    client = await EdgeClient.connect(cluster.url)
    try:
        ann = await client.open_session(KA, "ann", None, {})
        bob = await client.open_session(KB, "bob", None, {})
        await ann.claim_name("ann")
        await bob.claim_name("bob")
        await ann.enter_lobby()
        await bob.enter_lobby()
        (ha,), (hb,) = await asyncio.wait_for(asyncio.gather(ann.quick_match("voltage"), bob.quick_match("voltage")),
                                              20)
        assert ha.extras["may_hint"] is False and hb.extras["may_hint"] is False
        await until(lambda: ha.view().my_turn or hb.view().my_turn)
        mover = ha if ha.view().my_turn else hb
        with pytest.raises(IllegalActionError) as refused:
            await mover.hint()
        assert refused.value.code == "no_hints_vs_people"
        assert not any(h.match.hinted for h in cluster.lobby.matches.values())
    finally:
        await client.close()


async def test_a_replay_through_an_edge_is_analysed_once_with_its_progress_and_kept(kept_cluster, coach):
    store = kept_cluster.store
    store.upsert_player(KA, "Alice")
    store.upsert_player(KB, "Bob")
    mid = finished_match(store, 21)
    actions = len(store.match_record(mid).actions)
    client = await EdgeClient.connect(kept_cluster.url)
    try:
        session = await client.open_session(KA, "Alice", None, {})
        replay = await session.open_replay(mid)
        assert replay.analysis.stored() is None  # not made yet
        seen = []  # (done, total), as told
        moves = await replay.analysis.run(lambda done, total: seen.append((done, total)))
        assert len(moves) == actions and all(isinstance(m, K.Move) for m in moves)
        assert seen and seen[-1][1] == actions  # its progress, as it went
        made = C.Coach(store).stored(mid)
        assert made is not None and made.to_json() == C.Analysis(mid, tuple(moves)).to_json()  # kept, once
        again = await client.replay(mid, KB)  # ``ssh HOST replay ID`` on an edge: the kept one at once
        assert tuple(again.analysis.stored()) == made.moves
    finally:
        await client.close()


async def test_one_analysis_per_player_at_a_time_through_an_edge(kept_cluster):
    gate = threading.Event()
    pool = ThreadPoolExecutor(max_workers=1)

    class Held(C.Coach):  # an analysis that ends when the test says
        def with_store(self, store):
            self.store = store
            return self

        async def _run(self, record, progress):
            await asyncio.get_running_loop().run_in_executor(pool, gate.wait)
            return []

    C.use(Held(executor=pool))
    store = kept_cluster.store
    one, two = finished_match(store, 31), finished_match(store, 32)
    client = await EdgeClient.connect(kept_cluster.url)
    try:
        first_replay = await client.replay(one, KA)
        second_replay = await client.replay(two, KA)
        first = asyncio.ensure_future(first_replay.analysis.run(lambda done, total: None))
        await until(lambda: C.shared()._busy)
        with pytest.raises(Refused) as refused:
            await second_replay.analysis.run(lambda done, total: None)
        assert refused.value.code == "analysis_busy"
        gate.set()
        assert tuple(await first) == ()
    finally:
        gate.set()
        await client.close()
        C.use(None)
        pool.shutdown(wait=True)


async def test_h_over_ssh_through_an_edge_shows_the_experts_move(cluster, coach):
    """A real ``voltage edge`` process: alice plays the first bot of the lobby, presses ``h`` on
    her turn and reads the hint on her terminal; the host's match is marked hinted."""
    from tests.cluster.test_cluster_e2e import enter, match_of

    edge = await cluster.add_edge()
    alice = await enter(edge.port, "alice")
    try:
        await alice.wait_for("you: alice")
        alice.press("down", "down", "down", "enter")  # the first "Play a bot" choice
        await alice.wait_for("VOLTAGE")
        hosted = match_of(cluster.lobby, "alice")
        assert hosted is not None
        me = next(i for i, s in enumerate(hosted.match.seats) if not s.is_bot)
        await until(lambda: hosted.match.state.to_move == me, timeout=30)
        # h, until her screen has her turn too (before, the key is not offered and does nothing)
        await until(lambda: "Hint:" in alice.text() or alice.press("h"), timeout=60, what=lambda: alice.text())
        assert hosted.match.hinted
    finally:
        await alice.close()


async def test_a_replays_chart_over_ssh_through_an_edge(kept_cluster, coach):
    """``ssh HOST replay ID`` on an edge: ``c`` shows the chart the host's coach makes, ``m``
    steps to a mistake and names the better move."""
    from tests.support.terminal import Terminal

    store = kept_cluster.store
    store.upsert_player(KA, "Alice")
    store.upsert_player(KB, "Bob")
    mid = finished_match(store, 11)
    edge = await kept_cluster.add_edge()
    t = await Terminal(80, 24).connect(edge.port, "carol", command=f"replay {mid}")
    try:
        await t.wait_for(r"REPLAY.*0/")
        await t.wait_for("c chart")  # (the edge's replay has the host's coach behind it)
        t.press("c")
        await t.wait_for("✗", timeout=120)
        t.press("m")
        await t.wait_for("better:")
        assert C.Coach(store).stored(mid) is not None  # kept with the match
    finally:
        await t.close()
