"""What every game's first lesson ends with: a match against a gentle bot, from the lesson's
screen, offline (the backend's ``start_match``) or in the lobby (``play_bot``); a refusal is
told, not raised.  A game's ``learn`` (its registry line) is :func:`open_lesson` with its own
lesson screen, bot and match screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tui import words as W
from tui.ports import Refused

MatchScreenMaker = Callable[[Any, Any], Any]  # (handles, backend) -> the match's screen


async def match_after_lesson(app: Any, backend: Any, game: str, bot: str, player: str,
                             screen: MatchScreenMaker) -> None:
    try:
        if hasattr(backend, "start_match"):
            handles = backend.start_match(game, bot, player)
        else:
            handles = await backend.play_bot(bot, game)
    except Refused as e:  # (said where the player is back: the lobby's status line; elsewhere, a bell)
        say = getattr(app.screen, "show_refusal", None)
        if say is not None:
            say(W.refusal(e))
        else:
            app.bell()
        return
    app.push_screen(screen(handles, backend))


def open_lesson(app: Any, backend: Any, lesson: Callable[..., Any], game: str, bot: str,
                screen: MatchScreenMaker) -> None:
    """Open ``lesson`` (a screen taking the backend, the player's name and ``start_match``), whose
    end starts a match against ``bot`` shown by ``screen``."""
    player = getattr(app, "player_name", "") or ""

    def start() -> None:  # (on the app: the lesson's screen is gone by then)
        app.run_worker(match_after_lesson(app, backend, game, bot, player, screen), group="lesson-match")

    app.push_screen(lesson(backend, player, start_match=start))
