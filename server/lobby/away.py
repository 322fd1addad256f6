"""Away seats: a dropped player's grace, a newer session taking over, coming back.

- **Grace** (:meth:`Away.start_grace`): a key player who drops keeps the seat
  for :attr:`grace_seconds`, the others' screens counting down; then a bot plays it
  until the same key comes back.  A guest cannot prove it is back: a bot takes its
  seat at once.
- **Takeover** (:meth:`Away.supersede`): one key, one session: the newest
  session of a key takes over its seats with no grace period; the old one's
  screens are told and go back to the lobby.
- **Resume** (:meth:`Away.resume`): the seat a key left (dropped, or after a
  restart) is given back, and its bot gets up.

:class:`Away` is one part the :class:`~server.lobby.core.Lobby` holds; what it needs of
the lobby is :class:`AwayHost`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Protocol

from server.host.common import SeatDoor
from server.lobby.models import Hosted, Player, takeover_bot
from tui.ports import Note

log = logging.getLogger(__name__)


class AwayHost(Protocol):
    """What :class:`Away` needs of its lobby (the façade implements it)."""

    grace_seconds: float  # how long a dropped key player's seat waits for them
    matches: dict[str, Hosted]

    @property
    def players(self) -> dict[int, Player]:
        """The players online, by session id."""
        ...

    def abandon(self, player: Player) -> None:
        """``player`` leaves every queue, room, table and watched match (declining rematches)."""
        ...

    def other_session(self, player: Player) -> Player | None:
        """Another online session of ``player``'s key, if there is one."""
        ...

    def set_status(self, player: Player, status: str, where: str = "") -> None: ...

    def tell(self, player: Player, event: str, handles: Any = None) -> None: ...

    def changed(self) -> None:
        """Tell the lobby screens (soon) that something changed."""
        ...


class Away:
    """Dropped seats, takeovers and coming back (see the module docstring)."""

    def __init__(self, lobby: AwayHost) -> None:
        self.lobby = lobby

    def supersede(self, old: Player, new: Player) -> None:
        """One key, one session: ``new`` (the newest session of ``old``'s key) takes over.

        ``old`` leaves tables, rooms and the matches it watches; its seats in running
        matches pass to ``new`` (who resumes them, see :meth:`resume`) with no grace
        period; its screens are told, and go back to the lobby."""
        self.lobby.abandon(old)  # (tables, rooms, watching; at a match's results: its rematch offers)
        self.lobby.players.pop(old.id, None)
        old.superseded = True
        old.status, old.where = "lobby", ""
        for h in list(self.lobby.matches.values()):
            for i, human in enumerate(h.humans):
                if human is old:
                    h.humans[i] = new
                    if h.running and new.status != "playing":
                        self.lobby.set_status(new, "playing", h.code)
        log.info("key %s: a newer session took over from session %d", (old.identity or "")[:24], old.id)
        self.lobby.tell(old, "superseded")
        self.lobby.changed()

    def resumable(self, player: Player) -> Hosted | None:
        """A running match where ``player``'s identity has a seat it lost."""
        if not player.identity:
            return None
        for h in self.lobby.matches.values():
            if not h.running:
                continue
            for i, seat in enumerate(h.match.seats):
                human = h.humans[i]
                if seat.identity == player.identity and human is not None and (
                        human is player or human.id not in self.lobby.players or human.identity == player.identity):
                    return h
        return None

    def resume(self, player: Player) -> list[SeatDoor] | None:
        """Give ``player`` back the seat their identity left; None if there is none."""
        h = self.resumable(player)
        if h is None:
            return None
        seat = next(i for i, s in enumerate(h.match.seats) if s.identity == player.identity)
        old = h.humans[seat]
        other = self.lobby.other_session(player)
        if other is not None:
            self.supersede(other, player)  # the same key, online in another session: newest wins
        player.name = old.name if old is not None else player.name
        player.superseded = False
        h.humans[seat] = player
        self.lobby.players[player.id] = player
        task = h.grace.pop(seat, None)
        h.deadlines.pop(seat, None)
        if task is not None:
            task.cancel()
        s = h.match.seats[seat]
        # News for the others, when the person had dropped out (not after a restart: nobody
        # left then; not when a newer session of a key takes over: it never left).
        came_back = not s.connected and not (old is not None and old.restored)
        s.connected = True
        if s.bot is not None:
            h.match.set_bot(seat, None)
        self._update_notice(h)
        if came_back:
            h.match.announce(Note.of("back", name=s.name))
        self.lobby.set_status(player, "playing", h.code)
        return [h.match.handle(seat)]

    def start_grace(self, h: Hosted, seat: int) -> None:
        """``seat`` of ``h`` lost its person: a key's seat waits :attr:`AwayHost.grace_seconds`
        (the others' screens count down), then a bot plays it; a guest's goes to a bot now."""
        s = h.match.seats[seat]
        s.connected = False
        old = h.grace.pop(seat, None)
        if old is not None:
            old.cancel()
        player = h.humans[seat]
        if player is not None and not player.identity:
            # A guest cannot prove it is back: a bot takes the seat at once.
            h.match.set_bot(seat, takeover_bot(h.game))
            self._update_notice(h)
            return
        h.deadlines[seat] = time.monotonic() + self.lobby.grace_seconds
        h.grace[seat] = asyncio.get_running_loop().create_task(self._grace(h, seat))
        self._update_notice(h)

    async def _grace(self, h: Hosted, seat: int) -> None:
        try:
            while True:
                left = h.deadlines[seat] - time.monotonic()
                if left <= 0:
                    break
                self._update_notice(h)
                # Wake on each whole second left, so the countdown ticks evenly.
                await asyncio.sleep(left - int(left) if left - int(left) > 0.01 else min(1.0, left))
        except asyncio.CancelledError:
            return
        h.grace.pop(seat, None)
        h.deadlines.pop(seat, None)
        if h.running and not h.match.seats[seat].connected:
            h.match.set_bot(seat, takeover_bot(h.game))
        self._update_notice(h)

    def _update_notice(self, h: Hosted) -> None:
        notes = []
        now = time.monotonic()
        for seat in sorted(h.grace):
            left = max(0, int(h.deadlines.get(seat, now) - now + 0.999))
            notes.append(Note.of("waiting_reconnect", name=h.match.seats[seat].name, seconds=left))
        if tuple(notes) != h.match._notice:
            h.match.set_notice(*notes)
