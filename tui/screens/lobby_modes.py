"""What the player is doing on the lobby screen now: one small class per state, each with
what that state needs (the game queued for, the room filling, the challenge sent), so a
state cannot be half set and a handler matches on its class.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Browsing:
    """Nothing under way: the menus."""


@dataclass(frozen=True)
class Queued:
    """A quick match of ``game``, waiting for an opponent since ``since`` (monotonic)."""

    game: str
    since: float


@dataclass(frozen=True)
class Hosting:
    """This player's own private room, filling (its ``future``: the handles once full)."""

    room: Any


@dataclass(frozen=True)
class Joined:
    """Sat at a friend's room ``code`` of ``game`` that waits to fill or to be started."""

    code: str
    game: str


@dataclass(frozen=True)
class AskingCode:
    """The code line is open: a room to join (``verb`` "join") or a match to watch ("watch")."""

    verb: str


@dataclass(frozen=True)
class PickingGame:
    """Challenging ``name``: which game (a number key)."""

    name: str


@dataclass(frozen=True)
class Challenging:
    """A challenge sent, waiting for its answer since ``since`` (monotonic)."""

    challenge: Any
    since: float


Mode = Browsing | Queued | Hosting | Joined | AskingCode | PickingGame | Challenging

#: Waiting on other people: a new choice cancels it first.
WAITING = (Queued, Hosting, Joined, Challenging)
