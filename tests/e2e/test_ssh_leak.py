"""An ended session's app is freed: nothing process-wide (Textual's parser cache
above all) keeps it, its driver or its parser alive."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref

import pytest

from server.session.app import harden_app
from tests.support.compat import needs
from tests.support.terminal import Terminal

tui_app = pytest.importorskip("tui.app")


async def collected(ref: weakref.ref, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while ref() is not None:
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)  # let the session's tasks finish, then look again
        gc.collect()
    return True


@needs("input-parser", "method-caches")
async def test_an_ended_sessions_app_is_collected(start_server):
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
        t.send("\x1b[1;5A\x1b[65;1u")  # an extended (kitty) key and a modified arrow: the cached parse
        t.press("down", "up")
        await t.wait_for("you: alice")
    finally:
        await t.close()
    deadline = time.monotonic() + 10
    while srv.sessions.running:
        assert time.monotonic() < deadline, "the session never ended"
        await asyncio.sleep(0.02)
    assert await collected(refs[0]), [type(r).__name__ for r in gc.get_referrers(refs[0]())][:10]
    # Nor do its widgets' styles caches (each with its rendered lines) stay in the
    # method cache keyed by them.
    from textual._styles_cache import StylesCache

    assert StylesCache.get_inner_outer.cache_info().currsize == 0
