"""The split server end to end: a real redis-server, the host, two ``voltage edge`` processes,
real SSH clients on different edges (each edge on its own port, so the test chooses
where each client lands; in production the edges share one port through SO_REUSEPORT,
which a test cannot steer).  The host's lobby is the oracle (whose turn, what is legal);
what each player sees is read from their terminal only."""

from __future__ import annotations

import asyncssh

from tests.support.e2e import hands_of, keys_for, top_line
from tests.support.terminal import Terminal
from tests.support.wait import until
from tui.games.voltage import choices


async def enter(port: int, username: str, key=None, *, command=None) -> Terminal:
    t = await Terminal(100, 32).connect(port, username, client_keys=[key] if key else (), command=command)
    await t.wait_for("Your name")
    t.press("enter")
    return t


async def pair_across(cluster):
    """Two edges, alice's key on the first and bob's on the second, both in the lobby and
    paired through Voltage's quick match (alice waits, bob joins): the edges, the keys
    and the two terminals."""
    e0 = await cluster.add_edge()
    e1 = await cluster.add_edge()
    ka, kb = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    alice = await enter(e0.port, "alice", ka)
    bob = await enter(e1.port, "bob", kb)
    await alice.wait_for("you: alice")
    await bob.wait_for("you: bob")
    alice.press("home", "enter")
    await alice.wait_for("Waiting for an opponent")
    bob.press("home", "enter")
    return e0, e1, ka, kb, alice, bob


async def named_across(cluster, *, second_url: str | None = None, keyed: bool = False):
    """Two edges, alice (80x24) on the first and bob on the second (on Redis through
    ``second_url``, when given), both named in the lobby (each with a key of their own when
    ``keyed``, else guests): the edges and the two terminals."""
    e0 = await cluster.add_edge()
    e1 = await cluster.add_edge(second_url)
    keys = [[asyncssh.generate_private_key("ssh-ed25519")] if keyed else () for _ in range(2)]
    alice = await Terminal(80, 24).connect(e0.port, "alice", client_keys=keys[0])
    bob = await Terminal(80, 24).connect(e1.port, "bob", client_keys=keys[1])
    for t, name in ((alice, "alice"), (bob, "bob")):
        await t.wait_for("Your name")
        t.press("enter")
        await t.wait_for(f"you: {name}")
    return e0, e1, alice, bob


async def hv_room_across(alice: Terminal, bob: Terminal, seats: int) -> str:
    """alice opens a High Voltage room of ``seats`` from the lobby and bob joins it by its code
    (on his own edge): the code."""
    alice.press(*["down"] * 8)  # High Voltage's private room
    await alice.wait_for("> Private room for 4")
    alice.press(*["left"] * (4 - seats), "enter")
    code = (await alice.wait_for(rf"Room ([A-Z]{{4}}) \(High Voltage\): 1 of {seats} seated: alice")).group(1)
    bob.press("down", "down", "enter")  # join a friend's room
    await bob.wait_for("room code")
    bob.send(code.lower())
    bob.press("enter")
    return code


async def hv_played_to_end(match, done, players: tuple[Terminal, ...], watchers: tuple[Terminal, ...] = ()
                           ) -> list[int]:
    """``players`` play the High Voltage ``match`` as people would until it ends (``done``), and
    every screen, the ``watchers``' too, shows its winner: the keys each player pressed."""
    import asyncio
    import re

    from tests.support.hv_player import play as hv_play

    pressed = await asyncio.wait_for(asyncio.gather(*(hv_play(t, done) for t in players)), 120)
    await asyncio.wait_for(done.wait(), 30)
    assert match.over and match.winner is not None
    winner = match.names[match.winner]
    for t in (*players, *watchers):
        await t.wait_for(f"{re.escape(winner)} wins High Voltage", timeout=30)
    return list(pressed)


async def seated(cluster, alice: Terminal, bob: Terminal):
    """The Voltage match alice and bob were paired in, once both screens show it: the hosted
    match and their terminals by seat (for :func:`play`)."""
    for t in (alice, bob):
        await t.wait_for("VOLTAGE")
    hosted = match_of(cluster.lobby, "alice")
    names = hosted.match.names
    return hosted, {names.index("alice"): alice, names.index("bob"): bob}


def match_of(lobby, name):
    for h in lobby.matches.values():
        if h.running and any(p is not None and p.name == name for p in h.humans):
            return h
    return None


def shows(term: Terminal, view, names) -> bool:
    """The terminal shows the position ``view`` is of: its turn, and the step's prompt."""
    if f"turn {view.turn}" not in top_line(term):
        return False
    prompt = choices.step_for(view, choices.NOTHING, names).prompt
    return prompt[:40] in term.text().replace("\n", "")


async def play(hosted, terms: dict[int, Terminal], *, stop=None) -> None:
    """Play by keystrokes, each seat's keys once its own screen shows its position."""
    match = hosted.match
    names = match.names
    n = 0
    while not match.over and not (stop and stop()):
        seat = match.state.to_move
        view = match.view(seat)
        term = terms[seat]
        await until(lambda term=term, view=view: shows(term, view, names),
                    what=lambda term=term, view=view, seat=seat: f"seat {seat} at turn {view.turn} "
                    f"({choices.step_for(view, choices.NOTHING, names).prompt!r}):\n{term.text()}")
        before = len(match.actions)
        term.press(*keys_for(view, names, app_mode=bool(n % 2), hands=hands_of(term)))
        await until(lambda before=before: len(match.actions) > before or match.over,
                    what=lambda term=term, seat=seat: f"the action of seat {seat}:\n{term.text()}")
        n += 1


class ChannelTap:
    """Every message on the seat channels (``voltage:u:MATCH:SEAT``), read as any process
    on the bus could: to check what crosses it."""

    def __init__(self, url: str) -> None:
        import redis.asyncio as aioredis

        self.client = aioredis.Redis.from_url(url, decode_responses=True)
        self.seen: list[tuple[str, int, dict]] = []

    async def start(self) -> None:
        import asyncio
        import json

        self.pubsub = self.client.pubsub()
        await self.pubsub.psubscribe("voltage:u:*")

        async def read() -> None:
            async for m in self.pubsub.listen():
                if m["type"] == "pmessage":
                    _ns, _u, match, seat = m["channel"].split(":")
                    self.seen.append((match, int(seat), json.loads(m["data"])))

        self.task = asyncio.get_running_loop().create_task(read())

    async def stop(self) -> None:
        self.task.cancel()
        await self.pubsub.aclose()
        await self.client.aclose()


async def test_a_quick_match_across_two_edges_to_the_end_with_a_spectator(cluster):
    from server.wire.table import WIRE

    tap = ChannelTap(cluster.url)
    await tap.start()
    e0 = await cluster.add_edge()
    e1 = await cluster.add_edge()
    assert e0.port != e1.port
    ka, kb = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    alice = await enter(e0.port, "alice", ka)
    bob = await enter(e1.port, "bob", kb)
    carol = None
    try:
        await alice.wait_for("you: alice")
        await bob.wait_for("you: bob")
        await alice.wait_for(r"Online \(2\)")  # the lobby snapshot crossed the bus
        alice.press("home", "enter")
        await alice.wait_for("Waiting for an opponent")
        bob.press("home", "enter")
        await alice.wait_for("VOLTAGE")
        await bob.wait_for("VOLTAGE")
        hosted = match_of(cluster.lobby, "alice")
        assert hosted is not None and set(hosted.match.names) == {"alice", "bob"}
        sessions = {s.backend.name: s.edge for s in cluster.service.sessions.values()}
        assert sessions["alice"] == e0.id and sessions["bob"] == e1.id  # two edges, one match

        carol = await Terminal(100, 32).connect(e1.port, "carol", command=f"watch {hosted.code}")
        await carol.wait_for("Your name")
        carol.press("enter")
        await carol.wait_for("Watching")

        seats = {i: (alice if name == "alice" else bob) for i, name in enumerate(hosted.match.names)}
        await play(hosted, seats)
        v = hosted.match.view(None)
        winner = hosted.match.names[v.winner] if v.winner is not None else None
        for t in (alice, bob):
            await t.wait_for(f"{winner} wins the match" if winner else "drawn")
        await carol.wait_for(f"{winner} wins" if winner else "drawn")
        assert hosted.match.over and len(hosted.match.actions) > 20

        # Only per-seat views crossed the bus: each seat's channel carried that seat's view
        # (its own hand), the spectators' channel the spectator view (no hand), no state.
        assert {seat for _m, seat, _d in tap.seen} == {0, 1, -1}
        for match, seat, data in tap.seen:
            assert match == hosted.code and data["$"] == "bus.update" and set(data) == {"$", "version", "full",
                                                                                        "payload"}
            view = WIRE.decode(data["payload"]).update.view
            assert type(view).__name__ == "VoltageView"
            assert view.seat == (None if seat == -1 else seat)
            assert (view.hand is None) == (seat == -1)

        # Rematch, asked and agreed on the two edges.
        for t in (alice, bob):
            await t.wait_for("rematch")
        alice.press("r")
        await alice.wait_for("Asking for a rematch")
        await bob.wait_for("alice wants a rematch")
        bob.press("r")
        await until(lambda: match_of(cluster.lobby, "alice") not in (None, hosted), what="the rematch")
        again = match_of(cluster.lobby, "alice")
        assert set(again.match.names) == {"alice", "bob"}
        for t in (alice, bob):
            await t.wait_for("turn 1")
        # The spectator (on the second edge) follows the rematch.
        await until(lambda: any(p.name == "carol" for p in again.spectators), what="carol follows")
        await carol.wait_for("turn 1")
    finally:
        await tap.stop()
        for t in (alice, bob, carol):
            if t is not None:
                await t.close()


async def test_a_refusal_from_the_host_reads_as_in_one_process(cluster):
    """A name held on one edge, claimed on the other: the lobby's own line, on the screen."""
    import asyncssh

    e0 = await cluster.add_edge()
    e1 = await cluster.add_edge()
    alice = await enter(e0.port, "alice", asyncssh.generate_private_key("ssh-ed25519"))
    other = await Terminal(100, 32).connect(e1.port, "alice")
    try:
        await alice.wait_for("you: alice")
        await other.wait_for("Your name")
        other.press(*["backspace"] * 16)
        other.send("alice")
        other.press("enter")
        await other.wait_for("alice is already playing here: choose another name")
        other.press(*["backspace"] * 16)
        other.send("alicia")
        other.press("enter")
        await other.wait_for("you: alicia")
        # Alone in the queue, offered a bot after a while (the host's timing), and takes it.
        other.press("home", "enter")
        await other.wait_for("press b to play a bot")
        other.press("b")
        await other.wait_for("VOLTAGE")
        await other.wait_for(r"Bot \(")
        h = match_of(cluster.lobby, "alicia")
        assert h is not None and any(seat.is_bot for seat in h.match.seats)
    finally:
        await alice.close()
        await other.close()


async def test_clocks_show_and_a_draw_offered_on_one_edge_is_accepted_on_the_other(cluster):
    """The Voltage extras cross the bus: both banks in the top bar from the first frame,
    the offer (=) seen and accepted (y) across edges, the match drawn by agreement."""
    e0, e1, ka, kb, alice, bob = await pair_across(cluster)
    try:
        for t in (alice, bob):
            await t.wait_for(r"alice ○○○○  0/4 \d:\d\d")  # the clock, before any move
        hosted = match_of(cluster.lobby, "alice")
        assert hosted is not None
        m = hosted.match
        while m.state.turns < 3:  # a draw may be offered from turn 3 (before, abort is the key)
            await m.handle(m.state.to_move).submit(m.view(m.state.to_move).legal[0])
        for t in (alice, bob):
            await t.wait_for("= offer draw")
        alice.press("=")
        await bob.wait_for("alice offers a draw: \\[y\\] accept")
        bob.press("y")
        for t in (alice, bob):
            await t.wait_for("drawn by agreement")
        assert hosted.match.over and hosted.match.winner is None
    finally:
        await alice.close()
        await bob.close()


async def test_a_room_clock_chosen_on_an_edge_is_the_hosts_room_clock(cluster):
    """The lobby screen passes a room's clock by keyword; through an edge it reaches the host's table."""
    e0 = await cluster.add_edge()
    alice = await enter(e0.port, "alice", asyncssh.generate_private_key("ssh-ed25519"))
    try:
        await alice.wait_for("you: alice")
        alice.press("home", "down", "left")  # Private room: Voltage, 5+5 -> 3+2 (shortest first)
        await alice.wait_for(r"Private room: Voltage 3\+2")
        alice.press("enter")
        await alice.wait_for(r"Room \w+ \(clock 3\+2\)")
        (table,) = cluster.lobby.tables["voltage"].tables.values()
        assert (table.time_control.initial_s, table.time_control.increment_s) == (180, 2)
    finally:
        await alice.close()


async def test_an_edge_killed_mid_match_its_player_gets_the_seat_back_through_the_other_edge(cluster):
    cluster.lobby.grace_seconds = 60.0  # the usual grace: the seat waits for its player
    e0, e1, ka, kb, alice, bob = await pair_across(cluster)
    try:
        await alice.wait_for("VOLTAGE")
        await bob.wait_for("VOLTAGE")
        hosted = match_of(cluster.lobby, "alice")
        seat_a = hosted.match.names.index("alice")
        seats = {seat_a: alice, 1 - seat_a: bob}
        await play(hosted, seats, stop=lambda: len(hosted.match.actions) >= 6)

        e0.kill()  # kill -9: no goodbye to the host; its presence key just expires
        await until(lambda: not hosted.match.seats[seat_a].connected,
                    what="the host to see alice's edge gone")
        await bob.wait_for("waiting for alice to reconnect")
        assert not hosted.match.seats[seat_a].is_bot  # the grace, not a bot at once

        await alice.close()
        alice = await Terminal(100, 32).connect(e1.port, "alice", client_keys=[ka])  # the other edge
        await alice.wait_for("VOLTAGE")
        await bob.wait_gone("waiting for alice")
        assert hosted.match.seats[seat_a].connected and not hosted.match.seats[seat_a].is_bot
        seats[seat_a] = alice
        await play(hosted, seats)
        assert hosted.match.over
        for t in (alice, bob):
            await t.wait_for("wins the match|drawn")
    finally:
        await alice.close()
        await bob.close()


async def test_a_high_voltage_table_across_both_edges_played_watched_and_listed(cluster):
    import asyncio
    import re

    from tests.support.terminal import ssh_connect

    hv = cluster.lobby.tables["high-voltage"]
    hv.countdown_seconds = 0.3
    hv.bot_speed = 40.0
    hv.fill_seconds = 0.3
    cluster.lobby.notify_delay = 0.1
    e0, e1, alice, bob = await named_across(cluster)
    carol = None
    try:
        code = await hv_room_across(alice, bob, 3)
        await bob.wait_for(f"Room {code} \\(High Voltage\\): 2 of 3 seated: alice, bob")
        await alice.wait_for("2 of 3 seated: alice, bob")
        alice.press("s")  # start now: a bot takes the third seat
        for t in (alice, bob):
            await t.wait_for("HIGH VOLTAGE")
            await t.wait_for("hand pile")
        hosted = next(h for h in cluster.lobby.matches.values() if h.game == "high-voltage" and h.running)
        match = hosted.match
        assert hosted.code == code and match.names[:2] == ("alice", "bob") and match.seats[2].is_bot
        done = asyncio.Event()
        match.on_end.append(lambda _m: done.set())

        carol = await Terminal(80, 24).connect(e0.port, "carol", command=f"watch {code}")
        await carol.wait_for("Your name")
        carol.press("enter")
        await carol.wait_for("Watching")
        async with await ssh_connect(e1.port, "dave") as conn:  # `who` through an edge
            who = (await conn.run("who")).stdout
        assert re.search(rf"{code}  High Voltage: alice \d+, bob \d+, Bot \(medium\) \d+ cards left", who), who

        pressed = await hv_played_to_end(match, done, (alice, bob), (carol,))
        assert all(p > 0 for p in pressed)
    finally:
        for t in (alice, bob, carol):
            if t is not None:
                await t.close()


async def test_a_high_voltage_quick_table_counts_down_on_both_edges_then_starts(cluster):
    # The start's countdown is the host's answer counted down by each edge (asked again
    # in the background, never a blocking round trip from the lobby screen's tick).
    import re

    hv = cluster.lobby.tables["high-voltage"]
    hv.fill_seconds = 6.0
    hv.countdown_seconds = 0.3
    cluster.lobby.notify_delay = 0.1
    _, _, alice, bob = await named_across(cluster)
    try:
        alice.press(*["down"] * 7)
        await alice.wait_for("> Quick match: High Voltage")
        alice.press("enter")
        await alice.wait_for("High Voltage: 1 at the table")
        bob.press(*["down"] * 7, "enter")
        starting = r"Starting in 0:0(\d) unless more sit down"
        seconds = {}
        for t in (alice, bob):
            seconds[t] = [int((await t.wait_for(starting)).group(1))]
        for t in (alice, bob):  # it goes down, on each edge's screen
            await until(lambda t=t: (m := re.search(starting, t.text())) is not None
                        and int(m.group(1)) < seconds[t][0])
        for t in (alice, bob):
            await t.wait_for("HIGH VOLTAGE", timeout=30)
    finally:
        for h in list(cluster.lobby.matches.values()):
            h.match.close()
        for t in (alice, bob):
            await t.close()


async def test_the_host_killed_and_restarted_mid_match_the_screens_carry_on(kept_cluster):
    cluster = kept_cluster
    # The usual grace, for the restarted host too: the players' seats wait for the edges to
    # bring them back, however long a loaded machine takes (a bot in a seat is another test's).
    cluster.grace = cluster.lobby.grace_seconds = 60.0
    e0, e1, ka, kb, alice, bob = await pair_across(cluster)
    try:
        hosted, seats = await seated(cluster, alice, bob)
        code = hosted.code
        await play(hosted, seats, stop=lambda: len(hosted.match.actions) >= 6)
        done = len(hosted.match.actions)

        await cluster.kill_host()
        for t in (alice, bob):  # the edges keep the sessions and say what is going on
            await t.wait_for("restarting: the game will resume", timeout=30)
        await cluster.start_host()
        again = cluster.lobby.matches[code]
        assert len(again.match.actions) == done  # the store restored it where it was
        await until(lambda: all(s.connected for s in again.match.seats),
                    what="both players back in their seats")
        for t in (alice, bob):
            await t.wait_gone("restarting", timeout=30)
        await play(again, seats)
        assert again.match.over
        for t in (alice, bob):
            await t.wait_for("wins the match|drawn")
    finally:
        await alice.close()
        await bob.close()


async def test_redis_restarted_mid_match_the_match_goes_on(cluster):
    e0, e1, ka, kb, alice, bob = await pair_across(cluster)
    try:
        hosted, seats = await seated(cluster, alice, bob)
        await play(hosted, seats, stop=lambda: len(hosted.match.actions) >= 6)
        cluster.redis.restart()  # kill -9 and start again, empty (no persistence)
        await play(hosted, seats)
        assert hosted.match.over
        for t in (alice, bob):
            await t.wait_for("wins the match|drawn")
    finally:
        await alice.close()
        await bob.close()


async def test_a_key_opened_on_the_other_edge_takes_its_match_and_the_old_session_is_told(cluster):
    key = asyncssh.generate_private_key("ssh-ed25519")
    e0 = await cluster.add_edge()
    e1 = await cluster.add_edge()
    first = await enter(e0.port, "alice", key)
    second = None
    try:
        await first.wait_for("you: alice")
        first.press("down", "down", "down", "enter")  # the first "Play a bot" choice
        await first.wait_for("VOLTAGE")
        hosted = match_of(cluster.lobby, "alice")
        assert hosted is not None
        second = await Terminal(100, 32).connect(e1.port, "root", client_keys=[key])
        await second.wait_for("VOLTAGE")  # the newest session, on the other edge, in the match
        await second.wait_for("alice")
        await first.wait_for("opened in another session")  # told through its own edge
        await first.wait_for("Your name")
        assert not hosted.grace  # the seat never went empty
        first.press("enter")  # and takes it back
        await first.wait_for("VOLTAGE")
        await second.wait_for("opened in another session")
    finally:
        await first.close()
        if second is not None:
            await second.close()


async def test_the_kept_commands_through_an_edge_leaderboard_export_replay(kept_cluster):
    import asyncio
    import json

    from tests.support.store import KA, KB, finished_match
    from tests.support.terminal import ssh_connect

    store = kept_cluster.store
    store.upsert_player(KA, "Alice")
    store.upsert_player(KB, "Bob")
    mid = finished_match(store, 11)
    running = store.create_match("voltage", 13, [{"name": "Alice", "identity": KA}, {"name": "Bob", "identity": KB}])
    edge = await kept_cluster.add_edge()
    async def run(command: str):
        async with await ssh_connect(edge.port, "dave") as conn:  # (one session per connection)
            return await conn.run(command)

    r = await run(f"export {mid}")
    assert r.exit_status == 0 and json.loads(r.stdout)["seed"] == 11
    r = await run(f"export {running}")
    assert r.exit_status == 1 and "not finished" in r.stderr and not r.stdout
    r = await run("export abc")
    assert r.exit_status == 2 and "usage" in r.stderr
    r = await run("leaderboard")
    assert r.exit_status == 0 and "Alice" in r.stdout
    t = await Terminal(100, 32).connect(edge.port, "carol", command=f"replay {mid}")
    try:
        await t.wait_for(rf"REPLAY.*#{mid}.*step 0/")
        await t.wait_for("as a spectator")
        t.press("right", "right", "right")
        await t.wait_for(r"step 3/")
    finally:
        await t.close()
    t = await Terminal(100, 32).connect(edge.port, "carol", command=f"replay {running}")
    await asyncio.wait_for(t.closed.wait(), 30)
    assert t.exit_status == 1
