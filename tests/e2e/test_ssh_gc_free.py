"""An ended session frees itself by reference counting (server/gcpolicy.py's
``dismantle``): no full collection is needed, so the server never has to run one.

The collector is off and everything is frozen while the session ends, as in the
server after a freeze: only reference counts can free the app."""

from __future__ import annotations

import asyncio
import gc
import logging
import time
import weakref

import pytest

from server.session.app import harden_app
from tests.support.compat import needs
from tests.support.terminal import Terminal
from tui import textual_compat

tui_app = pytest.importorskip("tui.app")


async def freed(ref: weakref.ref, timeout: float = 30.0, young: bool = False) -> bool:
    """Poll ``ref`` with no full collection (``young``: young collections, as the
    server runs them): a scheduled callback may hold the app's context a moment
    after the end (a lobby notice due in a second)."""
    deadline = time.monotonic() + timeout
    while ref() is not None:
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
        if young:
            gc.collect(1)
    return True


@pytest.fixture
def frozen_collector():
    """The collector off and every object frozen, as the server's policy leaves it."""
    gc.collect()
    gc.freeze()
    gc.disable()
    yield
    gc.enable()
    gc.unfreeze()
    gc.collect()


async def _session(port: int, name: str) -> None:
    t = await Terminal(100, 32).connect(port, name)
    try:
        await t.wait_for("Your name")
        t.press("enter")
        await t.wait_for(f"you: {name}")
        t.press("down", "up")
        await t.wait_for(f"you: {name}")
    finally:
        await t.close()


async def _ended(srv) -> None:
    deadline = time.monotonic() + 10
    while srv.sessions.running:
        assert time.monotonic() < deadline, "the session never ended"
        await asyncio.sleep(0.02)


@needs("dismantle")
async def test_an_ended_sessions_app_is_freed_without_a_collection(start_server, frozen_collector):
    refs: list[weakref.ref] = []

    def factory(backend, player_name):
        app = harden_app(tui_app.make_app(backend, player_name=player_name))
        refs.append(weakref.ref(app))
        return app

    srv = await start_server(factory)
    await _session(srv.port, "alice")
    await _ended(srv)
    assert await freed(refs[0]), sorted({type(r).__name__ for r in gc.get_referrers(refs[0]())})


@needs("dismantle")
async def test_a_screen_a_live_session_leaves_is_freed_without_a_collection(start_server, frozen_collector, caplog):
    """The rules screen, opened (and frozen) and closed: the policy's sweep frees it
    while the session goes on (removed screens were frozen cycles only a full
    collection found)."""
    from server import gcpolicy

    apps: list = []

    def factory(backend, player_name):
        app = harden_app(tui_app.make_app(backend, player_name=player_name))
        apps.append(app)
        return app

    gcpolicy.install(manage=False, tick_interval=0.05)
    try:
        srv = await start_server(factory)
        t = await Terminal(100, 32).connect(srv.port, "alice")
        try:
            await t.wait_for("Your name")
            t.press("enter")
            await t.wait_for("you: alice")
            lobby = apps[0].screen
            t.send("?")
            await t.wait_until(lambda: apps[0].screen is not lobby, "the rules screen")
            screen = weakref.ref(apps[0].screen)
            gc.collect()
            gc.freeze()  # frozen while alive, as the server's policy does
            t.press("escape")
            await t.wait_until(lambda: apps[0].screen is lobby, "back in the lobby")
            # Young collections allowed: Textual's layout leaves a young cycle per arrange
            # (a recursive closure) that holds the screen until one runs.
            assert await freed(screen, young=True), sorted({type(r).__name__ for r in gc.get_referrers(screen())})
            t.press("down", "up")  # the session goes on
            await t.wait_for("you: alice")
        finally:
            await t.close()
        await _ended(srv)
    finally:
        gcpolicy.uninstall()
        textual_compat.unpatch_textual_strips()
    # Nothing still running was cleared (a cleared live widget fails with AttributeError).
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text


async def test_a_session_that_chatted_is_freed_without_a_collection(start_server, frozen_collector):
    """The chat panel's subscription to the lobby's room (which outlives every session) ends
    with the session, and so nothing of the session's app stays reachable."""
    refs: list[weakref.ref] = []

    def factory(backend, player_name):
        app = harden_app(tui_app.make_app(backend, player_name=player_name))
        refs.append(weakref.ref(app))
        return app

    srv = await start_server(factory)
    t = await Terminal(100, 32).connect(srv.port, "alice")
    try:
        await t.wait_for("Your name")
        t.press("enter")
        await t.wait_for("you: alice")
        t.send("c")
        await t.wait_for("quick phrases only")  # (a guest)
        t.send("\x1bOQ")  # F2: "Hi!"
        await t.wait_for("alice: Hi!")
    finally:
        await t.close()
    await _ended(srv)
    assert await freed(refs[0]), sorted({type(r).__name__ for r in gc.get_referrers(refs[0]())})
