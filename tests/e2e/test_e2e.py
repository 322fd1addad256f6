"""End to end: real SSH clients with PTYs, screens rendered by a terminal emulator
(pyte), the real app, playing by keystrokes through the server.

The tests read the server-side match only as an oracle (whose turn it is, what
is legal) to decide which keys to press and when the screen is ready for them.
"""

from __future__ import annotations

import asyncio

import asyncssh

from tests.support.e2e import (
    alice_and_bob,
    enter,
    match_of,
    not_flipping,
    play,
    quick_pair,
    screens_agree,
    top_line,
)
from tests.support.ssh import lobby_of
from tests.support.terminal import Terminal
from tests.support.wait import until


async def test_two_players_quick_match_play_watch_and_rematch(game_server):
    srv = game_server
    async with alice_and_bob(srv) as (alice, bob):
        await alice.wait_for(r"Online \(2\)")
        hosted = await quick_pair(srv, alice, bob)
        assert hosted is not None and hosted.match.names == ("alice", "bob")

        # A third player watches from the lobby's list of matches.
        carol = await enter(srv, "carol")
        await carol.wait_for(hosted.code)
        carol.press("w")
        app = srv.apps["carol"]
        await until(lambda: getattr(app.focused, "id", None) == "matches", what="focus on the matches")
        carol.press("enter")
        await carol.wait_for("Watching")
        assert "carol" in {p.name for p in hosted.spectators}
        # The palette (whose commands include writing screenshots) is not there.
        carol.press("\x10")  # ctrl+p
        await asyncio.sleep(0.2)  # deliberately: nothing may open in this time
        assert not carol.has("Search for commands")

        terms = {0: alice, 1: bob}
        apps = {0: srv.apps["alice"], 1: srv.apps["bob"]}
        await play(srv, hosted, terms, apps, stop=lambda: len(hosted.match.actions) >= 12 and not_flipping(hosted))
        await screens_agree(hosted.match, terms, spectator=carol)
        await play(srv, hosted, terms, apps)
        v = hosted.match.view(None)
        winner = hosted.match.names[v.winner] if v.winner is not None else None
        for t in (alice, bob):
            await t.wait_for(f"{winner} wins the match" if winner else "drawn")
            await t.wait_for("rematch")

        # Rematch: both agree.
        alice.press("r")
        await alice.wait_for("Asking for a rematch")
        await bob.wait_for("alice wants a rematch")
        bob.press("r")
        await until(lambda: match_of(srv, "alice") is not None, what="the rematch")
        again = match_of(srv, "alice")
        assert again.match is not hosted.match and set(again.match.names) == {"alice", "bob"}
        for t in (alice, bob):
            await t.wait_for("turn 1")
        await carol.close()


async def test_a_dropped_player_comes_back_then_a_bot_holds_the_seat_until_they_return(game_server):
    srv = game_server
    ka = asyncssh.generate_private_key("ssh-ed25519")
    kb = asyncssh.generate_private_key("ssh-ed25519")
    alice = await enter(srv, "alice", ka)
    bob = await enter(srv, "bob", kb)
    try:
        alice.press("down", "enter")  # a private room
        code = (await alice.wait_for(r"Room ([A-Z]{4})")).group(1)
        # The line for a friend can be pasted as it is: the server's port and host are in it.
        await alice.wait_for(rf"ssh -t -p {srv.port} 127\.0\.0\.1 join {code}")
        bob.press("down", "down", "enter")
        await bob.wait_for("room code")
        bob.send(code.lower())
        bob.press("enter")
        await bob.wait_for("VOLTAGE")
        hosted = match_of(srv, "alice")
        apps = {0: srv.apps["alice"], 1: srv.apps["bob"]}
        await play(srv, hosted, {0: alice, 1: bob}, apps,
                   stop=lambda: len(hosted.match.actions) >= 4 and not_flipping(hosted))

        # Alice drops; Bob sees the countdown; Alice comes back inside it, to her seat (a
        # grace no loaded machine's reconnection outlasts).
        lobby = lobby_of(srv)
        grace, lobby.grace_seconds = lobby.grace_seconds, 60.0
        await alice.close()
        await bob.wait_for(r"waiting for alice to reconnect \((1:00|0:[0-5]\d)\)")
        alice = await Terminal(100, 32).connect(srv.port, "alice", client_keys=[ka])
        await alice.wait_for("VOLTAGE")
        await bob.wait_gone("waiting for alice")
        assert not hosted.match.seats[0].is_bot
        apps[0] = srv.apps["alice"]
        await screens_agree(hosted.match, {0: alice, 1: bob})

        # Dropped past the grace period (the server's short one): a bot plays her seat, shown as such.
        lobby.grace_seconds = grace
        await alice.close()
        await until(lambda: "alice (bot playing)" in top_line(bob), what="the bot in the top bar")
        before = len(hosted.match.actions)
        await play(srv, hosted, {1: bob}, apps,
                   stop=lambda: len(hosted.match.actions) >= before + 3 and not_flipping(hosted))
        # She takes the seat back on return.
        alice = await Terminal(100, 32).connect(srv.port, "alice", client_keys=[ka])
        await alice.wait_for("VOLTAGE")
        await until(lambda: "bot playing" not in top_line(bob), what="alice back in the top bar")
        assert not hosted.match.seats[0].is_bot
        apps[0] = srv.apps["alice"]
        await screens_agree(hosted.match, {0: alice, 1: bob})
    finally:
        await alice.close()
        await bob.close()


async def test_join_and_watch_by_code_from_the_command_line_and_the_bot_offer(game_server):
    srv = game_server
    dave = await enter(srv, "dave")
    try:
        dave.press("down", "enter")
        code = (await dave.wait_for(r"Room ([A-Z]{4})")).group(1)
        erin = await Terminal(100, 32).connect(srv.port, "erin", command=f"join {code}")
        await erin.wait_for("Your name")
        erin.press("enter")
        await erin.wait_for("VOLTAGE")
        await dave.wait_for("VOLTAGE")
        frank = await Terminal(100, 32).connect(srv.port, "frank", command=f"watch {code}")
        await frank.wait_for("Your name")
        frank.press("enter")
        await frank.wait_for("Watching")
        nobody = await Terminal(100, 32).connect(srv.port, "gina", command="watch ZZZZ")
        await nobody.wait_for("Your name")
        nobody.press("enter")
        await nobody.wait_for("you: ")
        await nobody.wait_for("no match ZZZZ")
        # Alone in the queue: after a while a bot is offered, and b takes it.
        nobody.press("enter")
        await nobody.wait_for("press b to play a bot")
        nobody.press("b")
        await nobody.wait_for("VOLTAGE")
        await nobody.wait_for(r"Bot \(")
        for t in (erin, frank, nobody):
            await t.close()
    finally:
        await dave.close()
