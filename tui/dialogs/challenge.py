"""A challenge from another player: accept or decline, before it expires.

Shown over whatever screen the player is on (the lobby's listener pushes it); the
seconds left count down; if the challenge ends first (it expired, or its sender took
it back or left) the question goes away by itself (:meth:`ChallengeScreen.gone`).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

from tui.dialogs.confirm import ConfirmScreen
from tui.text import name_text


class ChallengeScreen(ConfirmScreen):
    """``dismiss(True)``: accept; ``False``: decline; ``None``: it went away unanswered."""

    DEFAULT_CSS = """
    ChallengeScreen > #dialog { width: 56; border: thick $accent; }
    """

    def __init__(self, challenge: Any, game_title: str) -> None:
        self.challenge = challenge
        self.game_title = game_title
        super().__init__(self._question(), yes="accept", no="decline")

    def _question(self) -> str:
        left = int(self.challenge.seconds_left + 0.999)
        return f"{self.challenge.challenger.name} challenges you to {self.game_title}.\n({left} s to answer)"

    def on_mount(self) -> None:
        self._ticker = self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        question = Text(justify="center")
        question.append_text(name_text(self.challenge.challenger.name, "bold"))
        left = int(self.challenge.seconds_left + 0.999)
        question.append(f" challenges you to {self.game_title}.\n({left} s to answer)")
        self.query_one("#question", Static).update(question)

    def gone(self) -> None:
        """The challenge ended before an answer: close without one."""
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)
