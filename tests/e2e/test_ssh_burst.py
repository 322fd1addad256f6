"""Keys sent in one burst (one SSH packet) count, each in its place, over real SSH.

Each burst below is one ``write`` on the client's channel, so the server reads
it in one piece; the expected text is never a state the old, reordering code
went through on its way (it typed the letters first), so waiting for it is a
real check, and a timeout on the old code.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from textual.widgets import Input

from server.session.app import harden_app
from tests.support.terminal import Terminal

tui_app = pytest.importorskip("tui.app")


@pytest.fixture
async def lobby_server(start_server):
    apps: dict[str, object] = {}

    def factory(backend, player_name):
        app = harden_app(tui_app.make_app(backend, player_name=player_name))
        apps[backend.player.username] = app
        return app

    srv = await start_server(factory)
    srv.apps = apps
    return srv


async def wait_value(app, selector: str, expected: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = app.screen.query_one(selector, Input).value
        except Exception:
            value = None
        if value == expected:
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"{selector} holds {value!r}, not {expected!r}")
        await asyncio.sleep(0.01)


BURSTS = [
    ("\x15World", "World"),  # ctrl+u World
    ("\x7fY", "HellY"),  # backspace Y
    ("\x1b[DX", "HellXo"),  # left X
]


@pytest.mark.parametrize("burst, expected", BURSTS)
async def test_a_burst_in_the_name_input_counts_every_key_in_order(lobby_server, burst, expected):
    srv = lobby_server
    t = await Terminal(100, 32).connect(srv.port, "bob")
    try:
        await t.wait_for("Your name")
        app = srv.apps["bob"]
        t.send("\x15")  # the prefilled name goes (it is selected: a key would replace it)
        await wait_value(app, "#name", "")
        t.send("Hello")
        await wait_value(app, "#name", "Hello")
        t.send(burst)
        await wait_value(app, "#name", expected)
        await t.wait_for(rf"\b{expected}\b")
    finally:
        await t.close()


CODE_BURSTS = [
    ("ABCD", "\x15WXYZ", "WXYZ"),
    ("ABCD", "\x7fY", "ABCY"),
    ("ABC", "\x1b[DX", "ABXC"),
]


@pytest.mark.parametrize("typed, burst, expected", CODE_BURSTS)
async def test_a_burst_in_the_room_code_input_counts_every_key_in_order(lobby_server, typed, burst, expected):
    srv = lobby_server
    t = await Terminal(100, 32).connect(srv.port, "carol")
    try:
        await t.wait_for("Your name")
        t.press("enter")
        await t.wait_for("you: carol")
        t.press("down", "down", "enter")
        await t.wait_for("room code")
        app = srv.apps["carol"]
        t.send(typed)
        await wait_value(app, "#code-input", typed)
        t.send(burst)
        await wait_value(app, "#code-input", expected)
    finally:
        await t.close()


async def test_a_burst_that_moves_through_the_lobby_and_types_a_code_lands_in_the_code_input(lobby_server):
    # Menu keys (bindings, run when the key is back at the App) then letters for the
    # input that the last of them brings up: all in one packet.
    srv = lobby_server
    t = await Terminal(100, 32).connect(srv.port, "dave")
    try:
        await t.wait_for("Your name")
        t.send("\x15dave\r")
        await t.wait_for("you: dave")
        t.send("\x1b[B\x1b[B\rQW\x7fRT")
        await wait_value(srv.apps["dave"], "#code-input", "QRT")
    finally:
        await t.close()
