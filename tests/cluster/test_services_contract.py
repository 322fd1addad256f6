"""The session layer's services, one contract for both: the lobby and store of this
process (:class:`LocalServices`) and an edge's link to the host over Redis
(:class:`EdgeServices`) give a session and the commands the same answers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import pytest

from server.edge.backend import EdgeClient
from server.edge.services import EdgeServices
from server.lobby.core import Lobby
from server.replay import ReplayError
from server.session.identity import Identity
from server.session.services import LocalServices, Services
from server.store.db import Store
from tests.cluster.conftest import Cluster
from tests.support.store import KA, KB, finished_match

ALICE = Identity.of_key(KA, "alice")


@dataclass
class Served:
    services: Services
    finished: int
    running: int


def fill(store: Store) -> tuple[int, int]:
    store.upsert_player(KA, "Alice")
    store.upsert_player(KB, "Bob")
    finished = finished_match(store, 11)
    running = store.create_match("voltage", 13, [{"name": "Alice", "identity": KA}, {"name": "Bob", "identity": KB}])
    return finished, running


@pytest.fixture(params=["in-process", "edge"])
async def served(request, tmp_path) -> AsyncIterator[Served]:
    if request.param == "in-process":
        store = Store.open(tmp_path / "data")
        executor = ThreadPoolExecutor(max_workers=1)
        local = LocalServices(Lobby(executor, store=store))
        yield Served(local, *fill(store))
        local.close()
        executor.shutdown(wait=False, cancel_futures=True)
        store.close()
        return
    cluster = Cluster(request.getfixturevalue("redis_url"), tmp_path, keep=True)  # (a sync fixture)
    await cluster.start_host()
    try:
        ids = fill(cluster.store)
        client = await EdgeClient.connect(cluster.url)
        try:
            yield Served(EdgeServices(client), *ids)
        finally:
            await client.close()
    finally:
        await cluster.close()


async def test_who_leaderboard_and_export_answer_alike(served):
    services = served.services
    assert services.keeps_records
    assert (await services.who()).startswith("0 online, 0 matches running")
    board = await services.leaderboard()
    assert board.code == 0 and board.out.startswith("Voltage: top 20") and "Alice" in board.out and not board.err
    got = await services.export(served.finished)
    assert got.code == 0 and json.loads(got.out)["seed"] == 11 and not got.err
    got = await services.export(served.running)
    assert got.code == 1 and "not finished" in got.err and got.err.startswith("voltage: ") and not got.out
    got = await services.export(999)
    assert (got.code, got.out, got.err) == (1, "", "voltage: no match 999\n")


async def test_a_replay_opens_for_a_finished_match_only(served):
    backend: Any = await served.services.open_replay(served.finished, ALICE)
    assert backend.replay.record.id == served.finished and backend.replay.seat == 0  # alice's own seat
    for match_id in (served.running, 999):
        with pytest.raises(ReplayError):
            await served.services.open_replay(match_id, ALICE)


async def test_a_session_opens_with_its_identity_request_and_environment(served):
    opened = await served.services.open(ALICE, ("join", "ABCD"), {"NO_COLOR": "1"})
    backend = opened.backend
    try:
        assert backend.name_prefill == "Alice"  # the key's stored name
        assert not backend.named and not backend.guest
        assert backend.initial == ("join", "ABCD") and backend.env == {"NO_COLOR": "1"}
    finally:
        opened.close()
    guest = await served.services.open(Identity.guest("zed"), None, {})
    try:
        assert guest.backend.guest and guest.backend.name_prefill == "zed"
    finally:
        guest.close()


async def test_a_link_code_links_a_browser_once_and_unlink_forgets_it(served):
    from tui.ports import Refused

    services = served.services
    code = await services.link_code(KA)
    assert await services.redeem_link("WRONG-CODE", "x") is None
    token, key = await services.redeem_link(code, "Chrome on Linux")
    assert key == KA and await services.browser_key(token) == KA
    assert await services.redeem_link(code, "again") is None
    assert await services.browser_key("no such token") is None
    opened = await services.open(ALICE, None, {})
    try:
        [browser] = await opened.backend.linked_browsers()
        assert browser.label == "Chrome on Linux" and browser.last_seen >= browser.linked
    finally:
        opened.close()
    assert await services.unlink(KA) == 1 and await services.browser_key(token) is None
    with pytest.raises(Refused) as refused:
        await services.link_code("SHA256:nobody")
    assert refused.value.code == "link_unknown_key"
