"""A toy third game for tests only: one folder per layer's part, registered by a test in
each layer's registry (:func:`register`), to show that a new game needs nothing else.

- :mod:`.rules`: the engine's part (its rules and its :class:`~engine.game.Rules` adapter);
- :mod:`.server`: the server's registry entry, hosted by the shared
  :class:`~server.host.base.MatchHost` as it is (its bot plays its first legal action);
- :mod:`.words` and :mod:`.screens`: the tui's part (its words, a minimal match, results
  and replay screen) and its registry entry.
"""

from __future__ import annotations

from typing import Any


def register(monkeypatch: Any) -> None:
    """Put the toy in the engine's, the server's and the tui's registries for one test."""
    from engine import registry as engine_registry
    from server import games as server_games
    from tests.support.toy.rules import TOY
    from tests.support.toy.screens import SCREENS
    from tests.support.toy.server import SERVER_GAME
    from tui.games import registry as tui_registry

    gid = TOY.info.id
    monkeypatch.setitem(engine_registry.RULES, gid, TOY)
    monkeypatch.setitem(engine_registry.GAMES, gid, TOY.info)
    monkeypatch.setitem(server_games.GAMES, gid, SERVER_GAME)
    monkeypatch.setitem(server_games.TITLES, gid, TOY.info.title)
    monkeypatch.setitem(tui_registry.GAMES, gid, SCREENS)
