"""Fixtures of the end-to-end tests (``start_server`` and ``echo_app`` come from :mod:`tests.support.ssh`)."""

from __future__ import annotations

import pytest

from server.session.app import harden_app
from tui import app as tui_app
from tui.pacing import Pacing


@pytest.fixture
async def game_server(start_server):
    """A server running the real app, with short grace and bot-offer delays."""
    apps: dict[str, object] = {}

    def factory(backend, player_name):
        pacing = Pacing(flash_seconds=0.0, results_delay=0.2)
        app = harden_app(tui_app.make_app(backend, player_name=player_name, pacing=pacing))
        apps[backend.player.username] = app
        return app

    srv = await start_server(factory, grace=2.0, bot_offer_after=0.5, bot_delay=0.0)
    srv.apps = apps
    return srv
