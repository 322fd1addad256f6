"""The split server under outages, end to end: a real redis-server stopped and started
again, edges killed (-9) and restarted, the host killed and restarted, with real SSH
clients.  What is asserted is what a player notices: a clear line instead of a
traceback, a bank that is not charged for time nobody could play, a notice that says the
match is paused and goes when it resumes, a match between two people that carries on
with both seats and is stored once."""

from __future__ import annotations

import pytest

from tests.support.terminal import ssh_connect
from tests.support.wait import until


@pytest.mark.parametrize(("lang", "line"), [
    ("C", "voltage: the game server is not reachable right now"),
    ("es_ES.UTF-8", "voltage: el servidor de juego no está disponible ahora mismo"),
])
async def test_who_during_a_redis_outage_is_one_clear_line_and_exit_1(cluster, lang, line):
    edge = await cluster.add_edge()
    async with await ssh_connect(edge.port, "dave") as conn:  # the edge answers while Redis is up
        assert (await conn.run("who")).exit_status == 0
    cluster.redis.stop()
    try:
        for command in ("who", "leaderboard", "export 3"):
            async with await ssh_connect(edge.port, "dave") as conn:
                r = await conn.run(command, env={"LANG": lang})
            assert r.exit_status == 1, (command, r.stdout, r.stderr)
            assert r.stderr.strip() == line and not r.stdout, (command, r.stderr)
        log = edge.log.read_text(errors="replace")
        assert "Traceback" not in log and "NoReply" not in log, log
    finally:
        cluster.redis.start()

    async def answered() -> bool:  # and back once Redis is (the host's reader retries within seconds)
        async with await ssh_connect(edge.port, "dave") as conn:
            return (await conn.run("who")).exit_status == 0

    await until(answered, what="who answered again once Redis is back")


OUTAGE = 10.0  # seconds Redis is down in the outage test (the figure)


async def test_a_redis_outage_stops_the_clocks_and_the_players_are_told_the_match_is_paused(cluster):
    import asyncio
    import time

    from tests.cluster.test_cluster_e2e import pair_across, play, seated

    e0, e1, ka, kb, alice, bob = await pair_across(cluster)
    try:
        hosted, seats = await seated(cluster, alice, bob)
        match = hosted.match
        await play(hosted, seats, stop=lambda: len(match.actions) >= 4)
        assert match.clock is not None
        mover = match.state.to_move
        before, began = match.remaining_ms(mover), time.monotonic()
        cluster.redis.stop()
        await until(lambda: match.saving.held, what="the host to hold the match's clocks")
        playable = time.monotonic() - began  # what ran before the host knew (charged: it was playable)
        for t in (alice, bob):  # each edge says so itself (it cannot hear the host)
            await t.wait_for("paused: the game server cannot be reached", timeout=10)
        await asyncio.sleep(OUTAGE)  # the outage itself (what the clocks must not charge), not a wait for a state
        held = match.remaining_ms(mover)
        cluster.redis.start()
        await until(lambda: not match.saving.held, what="the host to release the clocks", timeout=30)
        after = match.remaining_ms(mover)
        assert held is not None and before is not None and after is not None
        assert before - held <= playable * 1000 + 300, (before, held, playable)
        assert before - after <= playable * 1000 + 1000, (before, after, playable)  # not the 10 s outage
        for t in (alice, bob):  # the notice is replaced once it resumes
            await t.wait_gone("paused:", timeout=30)
        await play(hosted, seats)
        assert match.over
        for t in (alice, bob):
            await t.wait_for("wins the match|drawn")
    finally:
        if cluster.redis.process is None:
            cluster.redis.start()
        await alice.close()
        await bob.close()


async def test_the_host_killed_between_storing_a_move_and_answering_it_applies_it_once(kept_cluster):
    # The race behind a flake of the host-kill test, made to happen every time: the host
    # stores alice's move, then dies before it answers the edge or acks the intent.  The
    # restarted host has the move from the store and finds the intent still pending; the
    # edge re-opens its sessions and sends the move again.  It is applied once, and the
    # player is never told the seat is not theirs.
    from tests.cluster.test_cluster_e2e import pair_across, play, seated, shows
    from tests.support.e2e import hands_of, keys_for

    cluster = kept_cluster
    cluster.grace = cluster.lobby.grace_seconds = 60.0
    e0, e1, ka, kb, alice, bob = await pair_across(cluster)
    try:
        hosted, seats = await seated(cluster, alice, bob)
        code, names = hosted.code, hosted.match.names
        await play(hosted, seats, stop=lambda: len(hosted.match.actions) >= 4)
        done = len(hosted.match.actions)
        stopped = []

        def die_after_storing(point, intent):
            if point == "applied" and not stopped:
                stopped.append(intent)
                return True
            return False

        cluster.service.fault = die_after_storing
        match = hosted.match
        mover = match.state.to_move
        view = match.view(mover)
        await until(lambda: shows(seats[mover], view, names), what="the mover's screen at its turn")
        seats[mover].press(*keys_for(view, names, app_mode=False, hands=hands_of(seats[mover])))
        await until(lambda: stopped and len(match.actions) == done + 1, what="the move stored, not answered")
        kept = list(match.actions)
        await cluster.kill_host()
        await cluster.start_host()
        again = cluster.lobby.matches[code]
        assert list(again.match.actions) == kept  # the store has it, once
        await until(lambda: all(s.connected for s in again.match.seats), what="both players back in their seats")
        for t in (alice, bob):
            await t.wait_gone("restarting", timeout=30)
        await until(lambda: cluster.service.applied >= 1, what="the pending move answered")
        assert list(again.match.actions) == kept  # not applied a second time
        for t in (alice, bob):  # (every byte it was sent: a line shown a moment, then replaced, too)
            assert b"not yours" not in t.raw, t.text()
        await play(again, seats)
        assert again.match.over
        for t in (alice, bob):
            await t.wait_for("wins the match|drawn")
            assert b"not yours" not in t.raw
        record = cluster.store.match_record(again.match.recorder._current_id())
        assert record is not None and list(record.actions) == [again.match.rules.action_text(a)
                                                               for a in again.match.actions]
    finally:
        await alice.close()
        await bob.close()


# -- two people across an edge's or the host's kill ------------------------------------------


async def pair_on_one_edge(cluster):
    """One edge, alice's and bob's keys on it, paired through Voltage's quick match."""
    import asyncssh

    from tests.cluster.test_cluster_e2e import enter

    edge = await cluster.add_edge()
    ka, kb = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    alice = await enter(edge.port, "alice", ka)
    bob = await enter(edge.port, "bob", kb)
    await alice.wait_for("you: alice")
    await bob.wait_for("you: bob")
    alice.press("home", "enter")
    await alice.wait_for("Waiting for an opponent")
    bob.press("home", "enter")
    for t in (alice, bob):
        await t.wait_for("VOLTAGE")
    return edge, ka, kb, alice, bob


async def stored_once(store, code: str, keys) -> None:
    """The match ``code`` is stored as finished (waited for), one row, rated once for each player."""
    await until(lambda: store.read("SELECT status FROM matches WHERE code = ?", (code,))[0]["status"] == "finished",
                what="the result stored")
    rows = store.read("SELECT id, status FROM matches WHERE code = ?", (code,))
    assert [r["status"] for r in rows] == ["finished"], [dict(r) for r in rows]
    changes = store.read("SELECT identity FROM rating_history WHERE match_id = ?", (rows[0]["id"],))
    assert sorted(r["identity"] for r in changes) == sorted(keys), [dict(r) for r in changes]
    for key in keys:
        assert store.rating(key, "voltage")[2] == 1


def banks_sane(match, before, since: float) -> None:
    """Each bank is above 0 and has lost at most the time that ran since ``since`` (monotonic)."""
    import time

    ran = (time.monotonic() - since) * 1000
    for seat, was in enumerate(before):
        now = match.remaining_ms(seat)
        assert 0 < now <= was + match.clock.control.increment_s * 1000 and was - now <= ran + 500, (seat, was, now, ran)


@pytest.mark.parametrize("back", ["after the host saw them go", "at once"])
async def test_two_people_on_one_edge_killed_and_started_again_carry_on_and_the_result_is_stored_once(
        kept_cluster, back):
    # "at once": they are back on the new edge before the host has judged the old one gone
    # (its sessions there still open: closing them later must not drop the seats again).
    import time

    from tests.cluster.test_cluster_e2e import play, seated
    from tests.support.terminal import Terminal

    cluster = kept_cluster
    cluster.grace = cluster.lobby.grace_seconds = 60.0
    edge, ka, kb, alice, bob = await pair_on_one_edge(cluster)
    try:
        hosted, seats = await seated(cluster, alice, bob)
        match, code, names = hosted.match, hosted.code, hosted.match.names
        await play(hosted, seats, stop=lambda: len(match.actions) >= 5)
        done, before, killed = len(match.actions), [match.remaining_ms(s) for s in (0, 1)], time.monotonic()
        edge.kill()  # kill -9: both players' sessions go at once
        if back != "at once":
            await until(lambda: not any(s.connected for s in match.seats), what="the host to see both seats dropped")
        for t in (alice, bob):
            await t.close()
        again = await cluster.add_edge()  # the edge started again (a new process, the same host key)
        alice = await Terminal(100, 32).connect(again.port, "alice", client_keys=[ka])
        bob = await Terminal(100, 32).connect(again.port, "bob", client_keys=[kb])
        for t in (alice, bob):
            await t.wait_for("VOLTAGE")
        await until(lambda: all(s.connected and not s.is_bot for s in match.seats), what="both seats back")
        await until(lambda: not [s for s in cluster.service.sessions.values() if s.edge == edge.id],
                    what="the old edge's sessions closed")
        assert all(s.connected and not s.is_bot for s in match.seats) and not hosted.grace
        assert len(match.actions) == done and not match.over
        banks_sane(match, before, killed)
        await play(hosted, {names.index("alice"): alice, names.index("bob"): bob})
        assert match.over
        for t in (alice, bob):
            await t.wait_for("wins the match|drawn")
        await stored_once(cluster.store, code, [s.identity for s in match.seats])
    finally:
        await alice.close()
        await bob.close()


async def test_two_people_on_one_edge_across_a_host_kill_carry_on_and_the_result_is_stored_once(kept_cluster):
    import time

    from tests.cluster.test_cluster_e2e import play, seated

    cluster = kept_cluster
    cluster.grace = cluster.lobby.grace_seconds = 60.0
    edge, ka, kb, alice, bob = await pair_on_one_edge(cluster)
    try:
        hosted, seats = await seated(cluster, alice, bob)
        code = hosted.code
        await play(hosted, seats, stop=lambda: len(hosted.match.actions) >= 5)
        done, before = len(hosted.match.actions), [hosted.match.remaining_ms(s) for s in (0, 1)]
        identities = [s.identity for s in hosted.match.seats]
        killed = time.monotonic()
        await cluster.kill_host()
        for t in (alice, bob):
            await t.wait_for("restarting: the game will resume", timeout=30)
        await cluster.start_host()
        again = cluster.lobby.matches[code]
        assert len(again.match.actions) == done
        await until(lambda: all(s.connected for s in again.match.seats), what="both players back in their seats")
        for t in (alice, bob):
            await t.wait_gone("restarting", timeout=30)
        banks_sane(again.match, before, killed)
        await play(again, seats)
        assert again.match.over
        for t in (alice, bob):
            await t.wait_for("wins the match|drawn")
            assert b"not yours" not in t.raw
        await stored_once(cluster.store, code, identities)
    finally:
        await alice.close()
        await bob.close()


async def test_a_high_voltage_table_with_one_edge_cut_off_from_redis_carries_on_and_ends_the_same_for_both(cluster):
    # A partition, not an outage: the host and alice's edge reach Redis, bob's edge does not.  bob's
    # screen says so (its edge cannot hear the host); the host, which no longer sees bob's edge, closes
    # its session (bob's seat waits for him, as for a dropped player); once the cut heals, the edge
    # sees that its presence lapsed and opens its sessions at the host again, so bob is back at the
    # same table (he was left paused for good before), which both play to one end both screens show.
    import asyncio

    from tests.cluster.test_cluster_e2e import hv_played_to_end, hv_room_across, named_across
    from tests.support.partition import Relay

    hv = cluster.lobby.tables["high-voltage"]
    hv.bot_speed = 40.0
    relay = await Relay(cluster.url).start()
    _e0, _e1, alice, bob = await named_across(cluster, second_url=relay.url, keyed=True)
    try:
        await hv_room_across(alice, bob, 2)
        for t in (alice, bob):
            await t.wait_for("HIGH VOLTAGE")
            await t.wait_for("hand pile")
        hosted = next(h for h in cluster.lobby.matches.values() if h.game == "high-voltage" and h.running)
        match = hosted.match
        done = asyncio.Event()
        match.on_end.append(lambda _m: done.set())
        # (cut once the table is under way on both screens, the countdown over)
        for t in (alice, bob):
            await t.wait_gone("Wait for the countdown", timeout=30)

        relay.cut()
        await bob.wait_for("paused: the game server cannot be reached", timeout=30)
        # The host hears nothing from bob's edge: his seat is a dropped player's (grace, then a bot).
        await until(lambda: not match.seats[1].connected, what="bob's seat seen as dropped", timeout=30)
        assert not match.over
        relay.heal()
        await bob.wait_gone("paused:", timeout=30)
        await until(lambda: match.seats[1].connected, what="bob back in his seat", timeout=30)

        pressed = await hv_played_to_end(match, done, (alice, bob))
        assert pressed[1] > 0
        assert relay.cuts > 0
    finally:
        await relay.close()
        await alice.close()
        await bob.close()
