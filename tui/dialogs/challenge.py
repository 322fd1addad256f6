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
from tui.i18n import _
from tui.text import name_text


class ChallengeScreen(ConfirmScreen):
    """``dismiss(True)``: accept; ``False``: decline; ``None``: it went away unanswered."""

    DEFAULT_CSS = """
    ChallengeScreen > #dialog { width: 56; border: thick $accent; }
    """

    def __init__(self, challenge: Any, game_title: str) -> None:
        self.challenge = challenge
        self.game_title = game_title
        super().__init__(self._question(), yes=_("accept"), no=_("decline"))

    def _words(self) -> str:
        left = int(self.challenge.seconds_left + 0.999)
        return _("%(name)s challenges you to %(game)s.\n(%(left)d s to answer)") % {
            "name": "\0", "game": self.game_title, "left": left}

    def _question(self) -> str:
        return self._words().replace("\0", self.challenge.challenger.name)

    def on_mount(self) -> None:
        self._ticker = self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        question = Text(justify="center")
        head, _gap, tail = self._words().partition("\0")
        question.append(head)
        question.append_text(name_text(self.challenge.challenger.name, "bold"))
        question.append(tail)
        self.query_one("#question", Static).update(question)

    def gone(self) -> None:
        """The challenge ended before an answer: close without one."""
        if self.is_attached and self.app.screen is self:
            self.dismiss(None)
