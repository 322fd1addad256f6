"""People online in a lobby under test, as a session puts them there: connected (with a key
fingerprint, or as a guest) and named."""

from __future__ import annotations

from server.lobby.core import Lobby
from server.lobby.models import Player


def online(lobby: Lobby, identity: str | None, name: str, *, username: str | None = None) -> Player:
    """A session of ``identity`` (a key fingerprint; ``None``: a guest) online as ``name``; ``username``
    is the SSH user name it came with (``name`` when not given)."""
    player = lobby.connect(identity, username or name)
    lobby.claim_name(player, name)
    return player


def everyone_online(lobby: Lobby, *names: str) -> list[Player]:
    """Each of ``names`` online with a key of their own (``key-<name>``)."""
    return [online(lobby, f"key-{name}", name) for name in names]
