"""Presence: who is online and what each one is doing, and telling screens of changes.

A player's ``status`` (lobby, waiting, room, playing, watching) and ``where`` (a
code) say what they are at; the lobby screen's line for them follows the match
(once it is over they "just played" it).  Lobby screens subscribe and are called
at most once per :attr:`notify_delay` (arrivals come in bursts, and each redraw
costs every screen on the lobby a render); one session is told of events meant for
it alone through its ``listener`` (:meth:`PresenceMixin._tell`).

:class:`PresenceMixin` is one part of the :class:`~server.lobby.core.Lobby` façade.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from server.lobby.models import LobbyState, Player, in_context

log = logging.getLogger(__name__)


class PresenceMixin(LobbyState):
    """Who is online, doing what (see the module docstring)."""

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` (in the subscriber's context) soon after the lobby changes."""
        call = in_context(callback)
        self._listeners.append(call)

        def unsubscribe() -> None:
            if call in self._listeners:
                self._listeners.remove(call)

        return unsubscribe

    def _changed(self) -> None:
        # Coalesce: many changes in a moment make one refresh per screen.
        if self._notify_handle is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._notify_handle = loop.call_later(self.notify_delay, self._notify)

    def _notify(self) -> None:
        self._notify_handle = None
        for call in list(self._listeners):
            try:
                call()
            except Exception:
                log.exception("lobby listener failed")

    def _status(self, p: Player) -> tuple[str, str]:
        """What ``p`` is at, as the lobby lists it: (status id, where)."""
        if p.status in ("playing", "watching"):
            # What the player is at follows the match: once it is over they are at
            # its results (or gone back), not "playing" it.
            h = self.matches.get(p.where)
            if h is None or not h.running:
                return ("played" if p.status == "playing" else "watched"), p.where
            return p.status, p.where
        if p.status in ("waiting", "room"):
            return p.status, ""
        return "lobby", ""

    def who_text(self) -> str:
        """Plain text for ``ssh HOST who``."""
        snap = self.snapshot()
        lines = [f"{len(snap.players)} online, {len(snap.matches)} matches running"]
        from tui import words as W
        from tui.i18n import ENGLISH, language

        with language(ENGLISH):
            for p in snap.players:
                lines.append(f"  {p.name}  ({W.status(p.status, p.where)})")
        for m in snap.matches:
            lines.append(f"  {m.code}  {m.describe()}")
        return "\n".join(lines) + "\n"

    def _set_status(self, player: Player, status: str, where: str = "") -> None:
        player.status = status
        player.where = where
        self._changed()

    def _tell(self, player: Player, event: str, handles: Any = None) -> None:
        if player.listener is None:
            return
        try:
            player.listener(event, handles)
        except Exception:
            log.exception("session %d: could not tell it %s", player.id, event)
