"""Chat over real SSH sessions, read on the receiving side by a terminal emulator (pyte):
the lobby's room, a match's two rooms, a hostile line, muting, the rate limit and an
operator's silence."""

from __future__ import annotations

import asyncio
import contextlib
import re

import asyncssh

from tests.support.e2e import alice_and_bob, enter, quick_pair
from tests.support.ssh import ROOMY_STARTS, lobby_of
from tests.support.wait import until


async def chat_open(term) -> None:
    term.press("c")
    await term.wait_for("to the lobby")


async def say(term, text: str) -> None:
    term.send(text)
    term.press("enter")


def bell(output: bytes) -> bool:
    """A BEL of its own in ``output`` (not the one that ends a window-title sequence)."""
    return b"\x07" in re.sub(rb"\x1b\][^\x07\x1b]*(\x07|\x1b\\)", b"", bytes(output))


async def test_two_clients_in_the_lobby_see_each_others_lines(game_server):
    async with alice_and_bob(game_server) as (alice, bob):
        await chat_open(alice)
        await chat_open(bob)
        quiet = len(bob.raw)
        await say(alice, "hello bob")
        await bob.wait_for(r"alice: hello bob")
        rings = len(alice.raw)
        await say(bob, "hi @alice")
        await alice.wait_for(r"bob: hi @alice")
        # A line naming @alice rings her bell (the "your turn" alert is on by default); no other does.
        await until(lambda: bell(alice.raw[rings:]), what="alice's bell")
        assert not bell(bob.raw[quiet:])
        # Esc leaves the input: the Play menu has the keys again, the chat stays.
        bob.press("escape")
        await until(lambda: getattr(game_server.apps["bob"].focused, "id", None) == "choices",
                         what="the menu's focus")
        assert bob.has("alice: hello bob")


HOSTILE = ("\x1b[2J" + "\x1b]52;c;aGVsbG8=\x07" + "\u009b31m" + "[bold]loud[/bold] [@click=app.quit]quit[/]"
           + "\u202eevil\u202c" + "\x08\x08\r" + "x" * 10_000)


async def test_a_hostile_line_reaches_the_other_terminal_as_inert_text(game_server):
    async with alice_and_bob(game_server) as (alice, bob):
        await chat_open(bob)
        lobby = lobby_of(game_server)
        mallory = next(p for p in lobby.players.values() if p.name == "alice")
        before = len(bob.raw)
        await lobby.chat.say(identity=mallory.seat_identity, name="alice", guest=False, text=HOSTILE)
        await bob.wait_for(r"␛\[2J␛\]52;c;aGVsbG8=␇")
        sent = bytes(bob.raw[before:])
        assert b"\x1b]52" not in sent  # no clipboard sequence
        assert b"\x1b[2J" not in sent  # the screen is not cleared...
        assert bob.has("Play") and bob.has("Voltage: lobby")  # ...and still shows the lobby
        assert "\u009b".encode() not in sent and "\u202e".encode() not in sent and b"\x07" not in sent
        top = next(line for line in bob.screen.display if " chat " in line)
        column = top.index("╭", 1) + 1  # (the chat's box, right of the Play menu's)
        shown = "".join(line[column:].rstrip(" │") for line in bob.screen.display)  # the chat's column, joined
        assert "[bold]loud[/bold]" in shown and "[@click=app.quit]quit[/]" in shown  # markup shown as typed
        assert game_server.apps["bob"].is_running
        assert "x" * 100 in shown and "x" * 201 not in shown  # the paste is cut at 200 characters


async def test_match_rooms_during_and_after(game_server):
    srv = game_server
    async with alice_and_bob(srv) as (alice, bob):
        hosted = await quick_pair(srv, alice, bob)
        carol = await enter(srv, "carol", asyncssh.generate_private_key("ssh-ed25519"))
        await carol.wait_for(hosted.code)
        carol.send("w")
        await until(lambda: getattr(srv.apps["carol"].focused, "id", None) == "matches", what="the matches")
        carol.press("enter")
        await carol.wait_for("Watching")
        for t in (alice, bob, carol):
            t.press("tab")
        await alice.wait_for("to the players")
        await carol.wait_for("to the spectators")
        # Typing in the input never plays: the digits and letters are text.
        before = len(hosted.match.actions)
        await say(alice, "12ogbpd")
        await bob.wait_for("alice: 12ogbpd")
        assert len(hosted.match.actions) == before
        await say(carol, "play low")
        await carol.wait_for("carol: play low")
        # A player writes to the spectators (ctrl+t).
        bob.press("\x14")
        await bob.wait_for("to the spectators")
        await say(bob, "thx all")
        await carol.wait_for("bob: thx all")
        await asyncio.sleep(0.3)  # deliberately: the spectators' lines must not reach the players
        assert not alice.has("play low") and not bob.has("play low")
        assert not alice.has("thx all")
        # Over (alice resigns): everyone who was there reads both rooms.
        await hosted.match.submit(0, hosted.match.resignation(0))
        await alice.wait_for("play low")
        await alice.wait_for("thx all")
        await carol.wait_for("12ogbpd")
        await carol.close()


@contextlib.asynccontextmanager
async def kept_server(data_dir):
    """A server keeping its data in ``data_dir`` (stopped, and its store closed, at the end)."""
    from concurrent.futures import ThreadPoolExecutor

    from server.config import ServerConfig
    from server.serve import local_sessions
    from server.session.app import harden_app
    from server.ssh.server import VoltageServer
    from server.store.db import Store
    from tui import app as tui_app

    apps: dict[str, object] = {}

    def factory(backend, player_name):
        app = apps[backend.player.username] = harden_app(tui_app.make_app(backend, player_name=player_name))
        return app

    store = Store.open(data_dir)
    executor = ThreadPoolExecutor(max_workers=1)
    cfg = ServerConfig(host="127.0.0.1", port=0, grace=2.0, bot_delay=0.0, session_starts=ROOMY_STARTS)
    srv = VoltageServer(cfg, local_sessions(cfg, executor=executor, store=store, app_factory=factory))
    srv.apps = apps
    await srv.start()
    try:
        yield srv
    finally:
        srv.close()
        await srv.wait_closed()
        executor.shutdown(wait=False, cancel_futures=True)
        store.close()


async def test_mute_persists_across_reconnect_and_restart_rate_limit_and_silence(tmp_path):
    ka, kb = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    async with kept_server(tmp_path) as srv:
        alice = await enter(srv, "alice", ka)
        bob = await enter(srv, "bob", kb)
        try:
            await chat_open(alice)
            await chat_open(bob)
            await say(bob, "/mute alice")
            await bob.wait_for("alice is muted for you")
            await say(alice, "can you hear me")
            await alice.wait_for("alice: can you hear me")
            await say(bob, "still here")
            await alice.wait_for("bob: still here")
            assert not bob.has("can you hear me")
            # A reconnect keeps the mute (the key's).
            await bob.close()
            bob = await enter(srv, "bob", kb)
            await chat_open(bob)
            await bob.wait_for("bob: still here")
            assert not bob.has("can you hear me")
            # The rate limit says so.
            for n in range(6):
                await say(alice, f"line {n}")
            await alice.wait_for("writing too fast")
            # An operator's silence: alice's lines reach her alone.
            lobby_of(srv).chat.silences.silence("alice", 900)
            await say(bob, "/unmute alice")
            await bob.wait_for("alice is no longer muted")
            await bob.wait_for("alice: line 3")  # (line 4 was the sixth line in 10 s: refused)
            assert not bob.has("alice: line 4")
            lobby_of(srv).chat.limit.lines = 100
            await say(alice, "nobody hears this")
            await alice.wait_for("alice: nobody hears this")
            await say(bob, "anyone?")
            await alice.wait_for(r"bob: anyone\?")
            assert not bob.has("nobody hears this")
            await say(bob, "/mute alice")
            await bob.wait_for("alice is muted for you")
        finally:
            await alice.close()
            await bob.close()
    # A restart: the lobby's lines are back, the mute still holds, the silence too.
    async with kept_server(tmp_path) as srv:
        bob = await enter(srv, "bob", kb)
        alice = await enter(srv, "alice", ka)
        try:
            await chat_open(bob)
            await chat_open(alice)
            await bob.wait_for(r"bob: anyone\?")
            assert not bob.has("alice: line") and not bob.has("nobody hears this")
            await alice.wait_for("alice: nobody hears this")  # (her own, to her alone)
            await say(bob, "/muted")
            await bob.wait_for("muted: alice")
        finally:
            await alice.close()
            await bob.close()
