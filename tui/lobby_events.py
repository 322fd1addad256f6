"""What the lobby tells a session that it did not ask for, as typed Textual messages.

A backend's ``listen(callback)`` (:class:`tui.ports.LobbyExtras`) calls ``callback`` with
one of these; the lobby screen listens with its own ``post_message`` and handles each
with ``@on(...)``.  They carry what a screen needs (seat handles, a challenge), never
words.  Both backends make them: :class:`server.backend.SSHBackend` from its lobby's
events, the edge's from what the host pushes.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message


class LobbyEvent(Message, bubble=False):
    """Something the lobby decided for this session."""


class Followed(LobbyEvent):
    """The match this session watched was rematched: ``handles`` watch the new one."""

    def __init__(self, handles: Any) -> None:
        super().__init__()
        self.handles = handles


class Challenged(LobbyEvent):
    """Someone challenges this player (``challenge``: its game, who, the seconds left)."""

    def __init__(self, challenge: Any) -> None:
        super().__init__()
        self.challenge = challenge


class ChallengeOver(LobbyEvent):
    """A challenge to this player ended unanswered (taken back, expired)."""

    def __init__(self, challenge: Any) -> None:
        super().__init__()
        self.challenge = challenge


class Superseded(LobbyEvent):
    """A newer session of this key took over (claiming the name again takes it back)."""
