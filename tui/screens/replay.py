"""A replay's screen and an app that only replays.

:func:`replay_screen` picks the screen for a replay by its game's id (the tui's game
registry, :mod:`tui.games.registry`: each game's match screen stepping, see
:mod:`tui.screens.stepping`); the lobby's "Your matches", ``ssh -t HOST replay ID`` and
``voltage replay ID`` all come here.  :class:`ReplayBackend` is the backend of an app
that only replays (``voltage replay MATCH_ID`` and ``ssh -t HOST replay MATCH_ID``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tui.games.registry import screens
from tui.ports import ReplaySource

if TYPE_CHECKING:
    from tui.screens.base import PlayScreen


def replay_screen(replay: ReplaySource, step: int = 0) -> PlayScreen:
    """The screen that shows ``replay``: its game's match screen, stepping."""
    return screens(replay.record.game).replay(replay, step)


class ReplayBackend:
    """The backend of an app that only shows one replay (its home screen)."""

    online = False
    named = True
    name_prefill = ""

    def __init__(self, replay: ReplaySource, *, player: Any = None) -> None:
        self.replay = replay
        self.player = player

    def home_screen(self) -> PlayScreen:
        return replay_screen(self.replay)

    async def rematch(self, handles: Any) -> None:
        return None  # (a replay's screens offer none)

    async def rating_change(self, handles: Any) -> None:
        return None

    def close(self) -> None:
        pass
