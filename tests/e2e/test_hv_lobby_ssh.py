"""High Voltage from the SSH lobby, end to end: real SSH clients with PTYs rendered by
pyte at 80x24, the real app, keys only.

Alice opens a private High Voltage room for three, Bob joins it by its code, Alice
starts it early so a bot takes the third seat; both play to the end from what their
own screens show (the players of ``test_hv_ssh.py``) while Carol watches from the
lobby's list of matches and ``ssh HOST who`` lists the match.  Every screen names the
same winner.  A second test pairs two quick matches of High Voltage.
"""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from server.session.app import harden_app
from tests.support.hv_player import play
from tests.support.ssh import lobby_of
from tests.support.terminal import Terminal, ssh_connect
from tests.support.wait import until

tui_app = pytest.importorskip("tui.app")

# The lobby's Play menu: Voltage's quick match, room, join, its 4 bots, then High Voltage's
# quick match, room (←→ seats) and bots.
DOWN_TO_HV_QUICK = 7
DOWN_TO_HV_ROOM = 8


@pytest.fixture
async def hv_server(start_server):
    apps = {}

    def factory(backend, player_name):
        app = harden_app(tui_app.make_app(backend, player_name=player_name))
        app.results_delay = 0.1
        apps[backend.player.username] = app
        return app

    srv = await start_server(factory, grace=2.0, bot_offer_after=30.0, bot_delay=0.0)
    srv.apps = apps
    hv = lobby_of(srv).tables["high-voltage"]
    hv.countdown_seconds = 0.3  # the 3-2-1 at the start and after each flip
    hv.bot_speed = 40.0
    hv.fill_seconds = 0.3  # a quick table of two starts this soon after the second sits down
    lobby_of(srv).notify_delay = 0.1
    return srv


async def enter(srv, username: str) -> Terminal:
    t = await Terminal(80, 24).connect(srv.port, username)
    await t.wait_for("Your name")
    t.press("enter")
    await t.wait_for(f"you: {username}")
    return t


def hv_match(srv):
    return next(h for h in lobby_of(srv).matches.values() if h.game == "high-voltage" and h.running)


async def test_a_room_for_three_joined_by_code_started_early_played_watched_and_listed(hv_server):
    srv = hv_server
    alice, bob, carol = [await enter(srv, name) for name in ("alice", "bob", "carol")]
    try:
        alice.press(*["down"] * DOWN_TO_HV_ROOM)
        await alice.wait_for("> Private room for 4")
        alice.press("left", "enter")  # 4 -> 3 seats
        code = (await alice.wait_for(r"Room ([A-Z]{4}) \(High Voltage\): 1 of 3 seated: alice")).group(1)
        await alice.wait_for("s: start now")

        bob.press("down", "down", "enter")  # join a friend's room
        await bob.wait_for("room code")
        bob.send(code.lower())
        bob.press("enter")
        await bob.wait_for(f"Room {code} \\(High Voltage\\): 2 of 3 seated: alice, bob")
        await alice.wait_for("2 of 3 seated: alice, bob")
        alice.press("s")  # start now: a bot takes the third seat

        for t in (alice, bob):
            await t.wait_for("HIGH VOLTAGE")
            await t.wait_for("hand pile")
        hosted = hv_match(srv)
        match = hosted.match
        assert hosted.code == code and match.names[:2] == ("alice", "bob") and match.seats[2].is_bot
        done = asyncio.Event()
        match.on_end.append(lambda _m: done.set())

        # Carol watches from the lobby's list; `who` lists the match.
        # (at 80 columns the list is narrow: the short form, so the row is not cut)
        await carol.wait_for(rf"{code}  HV: alice, bob, Bot \(medium\) ")
        carol.press("w")
        await until(lambda: getattr(srv.apps["carol"].focused, "id", None) == "matches")
        carol.press("enter")
        await carol.wait_for("Watching")
        async with await ssh_connect(srv.port, "dave") as conn:
            who = (await conn.run("who")).stdout
        assert re.search(rf"{code}  High Voltage: alice \d+, bob \d+, Bot \(medium\) \d+ cards left", who), who
        assert "carol  (watching" in who and f"alice  (playing {code})" in who

        t0 = time.monotonic()
        pressed = await asyncio.wait_for(asyncio.gather(play(alice, done), play(bob, done)), 120)
        await asyncio.wait_for(done.wait(), 30)
        assert match.over and match.winner is not None and all(p > 0 for p in pressed)
        winner = match.names[match.winner]
        for t in (alice, bob, carol):
            await t.wait_for(f"{re.escape(winner)} wins High Voltage", timeout=30)
        people = [a for a in match.actions if getattr(a, "seat", None) in (0, 1)]
        assert people, "the people played by keys"
        print(f"{len(match.actions)} actions ({len(people)} by alice and bob, keys {pressed}), "
              f"winner {winner}, in {time.monotonic() - t0:.1f}s")
    finally:
        for h in list(lobby_of(srv).matches.values()):
            h.match.close()
        for t in (alice, bob, carol):
            await t.close()


async def test_two_quick_matches_of_high_voltage_meet(hv_server):
    srv = hv_server
    ann, ben = [await enter(srv, name) for name in ("ann", "ben")]
    try:
        ann.press(*["down"] * DOWN_TO_HV_QUICK)
        await ann.wait_for("> Quick match: High Voltage")
        ann.press("enter")
        await ann.wait_for("High Voltage: 1 at the table")
        ben.press(*["down"] * DOWN_TO_HV_QUICK, "enter")
        for t in (ann, ben):
            await t.wait_for("HIGH VOLTAGE")
            await t.wait_for("hand pile")
        match = hv_match(srv).match
        assert sorted(match.names) == ["ann", "ben"] and not any(s.is_bot for s in match.seats)
    finally:
        for h in list(lobby_of(srv).matches.values()):
            h.match.close()
        for t in (ann, ben):
            await t.close()
