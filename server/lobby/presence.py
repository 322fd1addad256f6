"""Presence: who is online and what each one is doing, and telling screens of changes.

:class:`Presence` holds the players online (named and connected).  A player's
``status`` (lobby, waiting, room, playing, watching) and ``where`` (a code) say what
they are at; the lobby screen's line for them follows the match (once it is over
they "just played" it).  Lobby screens subscribe and are called at most once per
:attr:`Presence.notify_delay` (arrivals come in bursts, and each redraw costs every
screen on the lobby a render); one session is told of events meant for it alone
through its ``listener`` (:meth:`Presence.tell`).  What the screens are told is numbered
and kept as deltas (:attr:`Presence.log`, :mod:`server.lobby.changes`): the lobby's
snapshot is made once per change, and each screen updates only the rows that changed.

It is one part the :class:`~server.lobby.core.Lobby` holds; what it needs of the
lobby is :class:`PresenceHost`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Protocol

from server.lobby.changes import ChangeLog
from server.lobby.models import Hosted, LobbyDelta, Player, Snapshot, in_context

log = logging.getLogger(__name__)


class PresenceHost(Protocol):
    """What :class:`Presence` needs of its lobby (the façade implements it)."""

    def hosted(self, code: str) -> Hosted | None:
        """The match hosted under ``code`` (None: none)."""
        ...

    def snapshot(self) -> Snapshot:
        """What the lobby screen shows (``who`` prints it)."""
        ...


class Presence:
    """Who is online, doing what (see the module docstring)."""

    def __init__(self, lobby: PresenceHost, *, notify_delay: float = 1.0) -> None:
        self.lobby = lobby
        self.players: dict[int, Player] = {}  # online: named and connected, by session id
        # Lobby screens redraw at most this often: each redraw costs every screen
        # on the lobby a render, and arrivals come in bursts.
        self.notify_delay = notify_delay
        self._listeners: list[Callable[[], None]] = []
        self._notify_handle: asyncio.Handle | None = None
        self.log = ChangeLog()  # what the screens were told, numbered, and the deltas between
        self._dirty = True  # changed since the log's last version

    def published(self, *, fresh: bool = True) -> Snapshot:
        """The lobby's present, numbered (a new version, and its delta, when it changed).
        ``fresh=False``: made again only if the lobby said it changed since (what every
        screen asks at each change: the snapshot is made once, not once a screen)."""
        if fresh or self._dirty:
            self._dirty = False
            return self.log.publish(self.lobby.snapshot())
        return self.log.snapshot

    def changes(self, since: int) -> list[LobbyDelta] | None:
        """The deltas after version ``since``, up to the present (None: not kept: read
        :meth:`published`)."""
        self.published(fresh=False)
        return self.log.since(since)

    def online(self, player: Player) -> bool:
        return player.id in self.players

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` (in the subscriber's context) soon after the lobby changes."""
        call = in_context(callback)
        self._listeners.append(call)

        def unsubscribe() -> None:
            if call in self._listeners:
                self._listeners.remove(call)

        return unsubscribe

    def changed(self) -> None:
        """Tell the subscribers soon: many changes in a moment make one refresh per screen."""
        self._dirty = True
        if self._notify_handle is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._notify_handle = loop.call_later(self.notify_delay, self._notify)

    def _notify(self) -> None:
        self._notify_handle = None
        if self._listeners:
            self.published(fresh=False)  # (once for every screen: each asks for the deltas since its version)
        for call in list(self._listeners):
            try:
                call()
            except Exception:
                log.exception("lobby listener failed")

    def close(self) -> None:
        """Tell nobody any more: a refresh due is dropped."""
        if self._notify_handle is not None:
            self._notify_handle.cancel()
            self._notify_handle = None

    def status_of(self, p: Player) -> tuple[str, str]:
        """What ``p`` is at, as the lobby lists it: (status id, where)."""
        if p.status in ("playing", "watching"):
            # What the player is at follows the match: once it is over they are at
            # its results (or gone back), not "playing" it.
            h = self.lobby.hosted(p.where)
            if h is None or not h.running:
                return ("played" if p.status == "playing" else "watched"), p.where
            return p.status, p.where
        if p.status in ("waiting", "room"):
            return p.status, ""
        return "lobby", ""

    def who_text(self) -> str:
        """Plain text for ``ssh HOST who``, in the current context's language (a command's:
        its client's; with none, English)."""
        return who_text(self.lobby.snapshot())

    def set_status(self, player: Player, status: str, where: str = "") -> None:
        player.status = status
        player.where = where
        self.changed()

    def tell(self, player: Player, event: str, handles: Any = None) -> None:
        """Tell ``player``'s screens of ``event`` (see :attr:`Player.listener`)."""
        if player.listener is None:
            return
        try:
            player.listener(event, handles)
        except Exception:
            log.exception("session %d: could not tell it %s", player.id, event)


def who_text(snap: Any) -> str:
    """``ssh HOST who`` from a lobby's snapshot (:class:`server.lobby.models.Snapshot`), worded in
    the current context's language: an edge words it from its own copy of the snapshot."""
    from tui import words as W

    lines = [W.who_heading(len(snap.players), len(snap.matches))]
    for p in snap.players:
        lines.append(f"  {p.name}  ({W.status(p.status, p.where)})")
    for m in snap.matches:
        lines.append(f"  {m.code}  {m.describe()}")
    return "\n".join(lines) + "\n"
