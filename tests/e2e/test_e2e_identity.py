"""End to end over real SSH (pyte-rendered PTYs): one key opened in a second session
takes over (the old session is told, and is back in the lobby); a spectator's screen
follows the rematch of the match it watched."""

from __future__ import annotations

import asyncssh

from tests.support.e2e import alice_and_bob, enter, match_of, play, quick_pair
from tests.support.ssh import lobby_of
from tests.support.terminal import Terminal
from tests.support.wait import until
from tests.support.words import status_of


async def test_a_key_opened_again_takes_its_match_and_the_old_session_is_told(game_server):
    srv = game_server
    key = asyncssh.generate_private_key("ssh-ed25519")
    first = await enter(srv, "alice", key)
    second = None
    try:
        # Play a bot (the first "Play a bot" choice), then open the key again as "root".
        first.press("down", "down", "down", "enter")
        await first.wait_for("VOLTAGE")
        hosted = match_of(srv, "alice")
        assert hosted is not None
        second = await Terminal(100, 32).connect(srv.port, "root", client_keys=[key])
        # The newest session lands in the match, under the key's own name.
        await second.wait_for("VOLTAGE")
        await second.wait_for("alice")
        await first.wait_for("opened in another session")
        await first.wait_for("Your name")
        assert [p.name for p in lobby_of(srv).snapshot().players] == ["alice"]
        assert not hosted.grace  # no reconnect countdown: the seat never went empty
        # Enter in the old session takes it back: it is in the match again, the other told.
        first.press("enter")
        await first.wait_for("VOLTAGE")
        await second.wait_for("opened in another session")
        assert lobby_of(srv).store is None or lobby_of(srv).store.name_owner("root") is None
    finally:
        await first.close()
        if second is not None:
            await second.close()


async def test_a_spectator_follows_the_rematch(game_server):
    srv = game_server
    ka, kb = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    alice = await enter(srv, "alice", ka)
    bob = await enter(srv, "bob", kb)
    carol = None
    try:
        hosted = await quick_pair(srv, alice, bob)
        carol = await enter(srv, "carol")
        await carol.wait_for(hosted.code)
        carol.press("w")
        app = srv.apps["carol"]
        await until(lambda: getattr(app.focused, "id", None) == "matches", what="focus on the matches")
        carol.press("enter")
        await carol.wait_for("Watching")
        await hosted.match.handle(0).resign()
        for t in (alice, bob):
            await t.wait_for("rematch")
            # The results say where "back" leads: the lobby (offline it is the start screen).
            await t.wait_for(r"back to the lobby \[b\]")
            assert not t.has("back to start")
        alice.press("r")
        await bob.wait_for("alice wants a rematch")
        bob.press("r")
        await until(lambda: match_of(srv, "alice") is not None, what="the rematch")
        again = match_of(srv, "alice")
        assert again.match is not hosted.match
        # The spectator is watching the rematch, on screen and in the lobby's lists.
        await until(lambda: any(p.name == "carol" for p in again.spectators), what="carol follows")
        await carol.wait_for("Watching")
        await carol.wait_for("turn 1")
        status = {p.name: status_of(p) for p in lobby_of(srv).snapshot().players}
        assert status["carol"] == f"watching {again.code}"
    finally:
        for t in (alice, bob, carol):
            if t is not None:
                await t.close()


async def test_the_clients_no_color_is_honoured_over_ssh(game_server):
    srv = game_server
    plain = await Terminal(100, 32).connect(srv.port, "nocolour", env={"NO_COLOR": "1"})
    coloured = await Terminal(100, 32).connect(srv.port, "colour")
    try:
        for t in (plain, coloured):
            await t.wait_for("Your name")
            t.press("enter")
            await t.wait_for("you: ")
        for t in (plain, coloured):
            t.press("s")  # the settings
        await plain.wait_for("Colours: no colour")
        await plain.wait_for("your terminal sent NO_COLOR")
        await coloured.wait_for("Colours: dark")
        # Not one coloured cell for the one who asked; the other keeps its colours.
        assert plain.colours() == set(), plain.colours()
        assert coloured.colours()
    finally:
        await plain.close()
        await coloured.close()


async def test_your_turn_rings_the_bell_and_sets_the_title_unless_switched_off(game_server):
    srv = game_server
    async with alice_and_bob(srv) as (alice, bob):
        # Alice switches the alert off (in the settings: the line after the colours); Bob keeps it.
        alice.press("s")
        await alice.wait_for("Your turn: bell and title")
        alice.press("down", "enter")
        await alice.wait_for("Your turn: no alert")
        alice.press("escape")
        await alice.wait_for("Quick match: Voltage")
        hosted = await quick_pair(srv, alice, bob)
        for t in (alice, bob):
            del t.raw[:]
        seat = {name: hosted.match.names.index(name) for name in ("alice", "bob")}
        terms = {seat["alice"]: alice, seat["bob"]: bob}
        apps = {seat[name]: srv.apps[name] for name in seat}
        await play(srv, hosted, terms, apps, stop=lambda: len(hosted.match.actions) >= 8)
        bell = b"\x07\x1b]2;Voltage: your turn\x07"
        await until(lambda: bell in bob.raw, what="Bob's bell")
        assert b"\x1b]2;Voltage\x07" in bob.raw  # and the title back once he has moved
        assert b"Voltage: your turn" not in alice.raw


async def test_a_challenge_from_the_online_list_starts_a_match_or_says_it_was_declined(game_server):
    srv = game_server
    async with alice_and_bob(srv) as (alice, bob):
        await alice.wait_for(r"Online \(2\)")
        alice.press("o", "enter")  # the Online list; bob is the one choice (alice is you)
        await alice.wait_for("Challenge bob to:")
        alice.press("1")
        await alice.wait_for("waiting for an answer")
        await bob.wait_for("alice challenges you to Voltage")
        bob.press("n")
        await alice.wait_for("bob declined the challenge")
        alice.press("o", "enter")
        await alice.wait_for("Challenge bob to:")
        alice.press("1")
        await bob.wait_for("alice challenges you to Voltage")
        bob.press("y")
        await alice.wait_for("VOLTAGE")
        await bob.wait_for("VOLTAGE")
        hosted = match_of(srv, "alice")
        assert hosted is not None and set(hosted.match.names) == {"alice", "bob"}
