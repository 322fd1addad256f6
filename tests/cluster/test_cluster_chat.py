"""Chat on a split server (a real Redis, the real host): a line said on one edge reaches a
player on another, the lobby's on its own stream, a match's on the seats' second stream,
and the spectators' room reaches the spectators only."""

from __future__ import annotations

import asyncio

from server.edge.backend import EdgeClient
from tests.support.wait import until


async def test_a_line_from_one_edge_reaches_a_player_on_another(cluster):
    one = await EdgeClient.connect(cluster.url)
    two = await EdgeClient.connect(cluster.url)
    try:
        ann = await one.open_session("SHA256:ann", "ann", None, {})
        bob = await two.open_session("SHA256:bob", "bob", None, {})
        cid = await two.open_session("SHA256:cid", "cid", None, {})
        for b, name in ((ann, "ann"), (bob, "bob"), (cid, "cid")):
            assert await b.claim_name(name) == name
            await b.enter_lobby()
        lobby_ann, lobby_bob = ann.lobby_chat(), bob.lobby_chat()
        heard: list = []
        lobby_bob.listen(heard.append)
        said = await lobby_ann.say("hello from edge one")
        await until(lambda: [line.text for line in heard] == ["hello from edge one"])
        assert heard[0].id == said.id and heard[0].author == "ann"
        assert [line.text for line in await lobby_bob.lines()] == ["hello from edge one"]

        (ha,), (hb,) = await asyncio.wait_for(asyncio.gather(ann.quick_match("voltage"), bob.quick_match("voltage")),
                                              20)
        (hc,) = await cid.watch(ha.match)
        rooms = {name: b.match_chat([h]) for name, b, h in (("ann", ann, ha), ("bob", bob, hb), ("cid", cid, hc))}
        got: dict[str, list] = {name: [] for name in rooms}
        for name, room in rooms.items():
            room.listen(got[name].append)
        assert rooms["cid"].rooms == ("spectators",)
        await rooms["ann"].say("good luck")
        await rooms["cid"].say("ann looks strong")
        await rooms["bob"].say("", phrase="glhf")
        await until(lambda: len(got["ann"]) == 2 and len(got["cid"]) == 1)
        await asyncio.sleep(0.3)  # deliberately: nothing more may arrive
        assert [(x.author, x.text or x.phrase) for x in got["ann"]] == [("ann", "good luck"), ("bob", "glhf")]
        assert [(x.author, x.text) for x in got["cid"]] == [("cid", "ann looks strong")]
        assert [x.text for x in await rooms["cid"].lines()] == ["ann looks strong"]
        # Over: everyone who was there reads both rooms.
        await ha.resign()
        await until(lambda: ha.view().over)
        assert [x.text or x.phrase for x in await rooms["cid"].lines()] == ["good luck", "ann looks strong", "glhf"]
        assert [x.text or x.phrase for x in await rooms["bob"].lines()] == ["good luck", "ann looks strong", "glhf"]
    finally:
        await one.close()
        await two.close()
