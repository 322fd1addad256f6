"""The tui's game registry: one entry per engine game, by the engine's ids, and the shared
code picks screens through it (no branch on the game)."""

from __future__ import annotations

import pytest

from engine.registry import GAMES as ENGINE_GAMES
from server.local import LocalBackend
from tui.games import registry


def test_every_engine_game_has_its_screens_under_the_same_id():
    assert set(registry.GAMES) == set(ENGINE_GAMES)
    for gid, entry in registry.GAMES.items():
        assert entry.id == gid
    with pytest.raises(KeyError, match="no game 'chess'"):
        registry.screens("chess")


async def test_the_local_backend_speaks_the_engine_ids_and_the_screens_follow_them():
    backend = LocalBackend(seed=3, bot_delay=0)
    backend.hv_options = {"countdown_seconds": 0.03, "bot_speed": 50.0}
    try:
        assert [g[0] for g in backend.games()] == list(ENGINE_GAMES)
        from tui.games.highvoltage.match import HVMatchScreen
        from tui.games.voltage.match import MatchScreen

        for gid, cls, opponent in (("voltage", MatchScreen, "random"), ("high-voltage", HVMatchScreen, "fast")):
            handles = backend.start_match(gid, opponent, "You")
            assert handles[0].game == gid
            assert type(registry.screens(gid).match(handles, backend)) is cls
        with pytest.raises(ValueError, match="cannot be played"):
            backend.start_match("highvoltage", "fast", "You")  # (one spelling: the engine's id)
    finally:
        backend.close()
