"""One session's flood of input does not freeze the others (the input budget,
parsing that yields), over real SSH.  The figures are in ``benchmarks/attack.py``;
here the bound is generous and waited on as a condition."""

from __future__ import annotations

import asyncio
import time

import pytest
from textual.widgets import Input

from server.session.budget import ConnectionLimits
from server.session.driver import InputLimits
from tests.support.terminal import Terminal
from tests.support.wait import until

PAYLOADS = {
    "64KB-of-keys": b"a" * 65536,
    "1MB-of-unterminated-escapes": (b"\x1b[" + b"9;" * 7) * 65536,
}


@pytest.fixture
async def lobby_server(start_server):
    from server.session.app import harden_app
    from tui.app import make_app

    apps: dict[str, object] = {}

    def factory(backend, player_name):
        app = harden_app(make_app(backend, player_name=player_name))
        apps[backend.player.username] = app
        return app

    srv = await start_server(factory)
    srv.apps = apps
    return srv


@pytest.mark.parametrize("payload", PAYLOADS.values(), ids=PAYLOADS.keys())
async def test_a_flooding_session_leaves_the_others_responsive(lobby_server, payload):
    srv = lobby_server
    flood = await Terminal(100, 32).connect(srv.port, "flood")
    other = await Terminal(100, 32).connect(srv.port, "other")
    try:
        await flood.wait_for("Your name")
        await other.wait_for("Your name")
        other.send("\x15")  # the prefilled name goes
        await until(lambda: srv.apps["other"].screen.query_one("#name", Input).value == "", what="a clear name")
        flooder = srv.apps["flood"]
        flood.chan.write(payload)  # one write: the server gets it as fast as TCP goes
        # Every key of the other session still reaches its screen promptly.  (Client and
        # server share this loop: a stalled server stalls the wait too, so the time is
        # checked against the clock, not only by wait_for's timeout.)
        typed = "Z"
        for ch in "qwertyu":
            typed += ch
            t0 = time.monotonic()
            other.send(typed if typed == "Zq" else ch)
            await other.wait_for(typed, timeout=3.0)
            assert time.monotonic() - t0 < 3.0, f"{ch!r} took {time.monotonic() - t0:.1f} s"
        # ... while the flood was being worked on.
        assert flooder.screen.query_one("#name", Input).value not in ("", "flood")
    finally:
        await flood.close()
        await other.close()


async def test_a_sustained_flood_ends_that_session_with_a_message(start_server, echo_app):
    # The budget is judged as the session takes the keys, so it is set below what a loaded
    # machine still takes (hundreds of keys a second when quiet, ~40 beside a CPU hog).
    limits = InputLimits(events_per_second=5, events_burst=10, flood_close_after=1.0)
    srv = await start_server(echo_app, input_limits=limits)
    flood = await Terminal().connect(srv.port, "flood")
    other = await Terminal().connect(srv.port, "other")
    try:
        await flood.wait_for("hello flood")
        await other.wait_for("hello other")
        flood.chan.write(b"a" * 65536)
        await asyncio.wait_for(flood.closed.wait(), 30)
        assert "too much input" in flood.text()
        other.press("down")
        await other.wait_for("key down")
    finally:
        await flood.close()
        await other.close()


async def test_a_typist_and_a_paste_are_within_the_budget(start_server, echo_app):
    # What a person sends at once (a 300-key burst, a bracketed paste of 4 KB) goes
    # straight through, every key counted.
    srv = await start_server(echo_app)
    t = await Terminal().connect(srv.port, "bob")
    try:
        await t.wait_for("hello bob")
        app = echo_app.made[0]
        t.send("x" * 290)
        await until(lambda: app.query_one(Input).value == "x" * 290, what="290 keys typed")
        t.send("\x15\x1b[200~" + "y" * 4096 + "\x1b[201~")
        await until(lambda: app.query_one(Input).value == "y" * 4096, what="the paste")
        assert not t.closed.is_set()
    finally:
        await t.close()


async def test_a_flood_of_packets_that_carry_no_keys_is_held_back_then_closed(start_server, echo_app):
    # Each SSH packet costs the shared loop its decoding whatever it carries: debug messages reach
    # no session's input budget, so only the connection's budget of packets sees them.
    limits = ConnectionLimits(messages_per_second=100, messages_burst=200, close_after=1.0)
    srv = await start_server(echo_app, connection_limits=limits)
    flood = await Terminal().connect(srv.port, "flood")
    other = await Terminal().connect(srv.port, "other")
    try:
        await flood.wait_for("hello flood")
        await other.wait_for("hello other")
        assert flood.conn is not None
        for i in range(20_000):
            flood.conn.send_debug("x")
            if i % 1000 == 0:
                await asyncio.sleep(0)
        await asyncio.wait_for(flood.closed.wait(), 30)
        other.press("down")
        await other.wait_for("key down")
        assert not other.closed.is_set()
    finally:
        await flood.close()
        await other.close()


async def test_a_person_s_keys_and_resizes_are_within_the_packet_budget(start_server, echo_app):
    # One packet a key, typed fast, and a window dragged to a new size: nothing is held back.
    srv = await start_server(echo_app)
    t = await Terminal().connect(srv.port, "bob")
    try:
        await t.wait_for("hello bob")
        app = echo_app.made[0]
        for i in range(300):
            t.chan.write(b"x")
            if i % 20 == 0:
                t.chan.change_terminal_size(80 + i % 7, 24)
                await asyncio.sleep(0.01)
        await until(lambda: app.query_one(Input).value == "x" * 300, what="300 keys typed")
        assert not t.closed.is_set()
    finally:
        await t.close()
