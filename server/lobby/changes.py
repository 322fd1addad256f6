"""The lobby's published versions: each snapshot numbered, and the deltas between them.

A lobby screen shows a few rows of a list that may hold hundreds of players; redrawing
it from a whole snapshot at every change made each arrival cost every screen the whole
list (quadratic in the players online).  So the lobby numbers what it publishes and
keeps the differences: :func:`diff` makes the :class:`~server.lobby.models.LobbyDelta`
from one snapshot to the next (once per change, however many screens watch), a screen
asks for the deltas since the version it shows (:meth:`ChangeLog.since`) and updates
only the rows they name.  A screen too far behind (the log keeps the last ``keep``), or
new, reads the snapshot instead.

The same log serves an edge (:mod:`server.edge.backend`): the host publishes deltas
beside a periodic snapshot (:mod:`server.cluster.host`); the edge applies a delta that
follows the version it holds (:meth:`ChangeLog.advance`) and takes the next snapshot
when it missed one (:meth:`ChangeLog.publish`).  Versions are the log's own, so they
only grow, across a restarted host too.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

from server.lobby.models import LobbyDelta, MatchInfo, PlayerInfo, Snapshot

EMPTY = Snapshot((), (), {})


def player_key(name: str) -> str:
    """The players' order in the lobby's list (the names online differ by more than case)."""
    return name.lower()


def diff(old: Snapshot, new: Snapshot, base: int, version: int) -> LobbyDelta | None:
    """What changed from ``old`` to ``new`` (None: not expressible as a delta, e.g. two
    players with one name: a reader takes the snapshot)."""
    before = {p.name: p for p in old.players}
    after = {p.name: p for p in new.players}
    if len(after) != len(new.players) or len(before) != len(old.players):
        return None
    players = tuple(p for p in new.players if before.get(p.name) != p)
    gone = tuple(name for name in before if name not in after)
    was = {m.code: m for m in old.matches}
    now = {m.code: m for m in new.matches}
    if len(now) != len(new.matches) or len(was) != len(old.matches):
        return None
    matches = tuple(m for m in new.matches if was.get(m.code) != m)
    ended = tuple(code for code in was if code not in now)
    waiting = dict(new.waiting) if new.waiting != old.waiting else {}
    kept = [m.code for m in old.matches if m.code in now] + [m.code for m in matches if m.code not in was]
    order = tuple(now) if kept != list(now) else ()
    return LobbyDelta(base, version, players, gone, matches, ended, waiting, order)


def apply(snapshot: Snapshot, delta: LobbyDelta) -> Snapshot:
    """The snapshot of ``delta.version``, from ``snapshot`` (of ``delta.base``)."""
    players = {p.name: p for p in snapshot.players}
    for name in delta.gone:
        players.pop(name, None)
    for p in delta.players:
        players[p.name] = p
    matches = {m.code: m for m in snapshot.matches}
    for code in delta.ended:
        matches.pop(code, None)
    for m in delta.matches:
        matches[m.code] = m
    listed: tuple[MatchInfo, ...] = tuple(matches.values())
    if delta.order:
        listed = tuple(matches[code] for code in delta.order if code in matches)
    ordered: tuple[PlayerInfo, ...] = tuple(sorted(players.values(), key=lambda p: player_key(p.name)))
    return Snapshot(ordered, listed, dict(delta.waiting) if delta.waiting else dict(snapshot.waiting),
                    delta.version)


def merge(deltas: list[LobbyDelta]) -> LobbyDelta | None:
    """One delta doing what ``deltas`` (consecutive, oldest first) do one after the other
    (None: one of them moved the matches' order: read the snapshot)."""
    if not deltas or any(d.order for d in deltas):
        return None
    players: dict[str, PlayerInfo] = {}
    gone: dict[str, None] = {}
    matches: dict[str, MatchInfo] = {}
    ended: dict[str, None] = {}
    waiting: dict[str, int] = {}
    for d in deltas:
        for name in d.gone:
            players.pop(name, None)
            gone[name] = None
        for p in d.players:
            gone.pop(p.name, None)
            players[p.name] = p
        for code in d.ended:
            matches.pop(code, None)
            ended[code] = None
        for m in d.matches:
            ended.pop(m.code, None)
            matches[m.code] = m
        waiting = dict(d.waiting) if d.waiting else waiting
    return LobbyDelta(deltas[0].base, deltas[-1].version, tuple(players.values()), tuple(gone),
                      tuple(matches.values()), tuple(ended), waiting)


class ChangeLog:
    """The latest snapshot, numbered, and the last ``keep`` deltas that led to it."""

    def __init__(self, keep: int = 64) -> None:
        self.snapshot: Snapshot = EMPTY
        self.deltas: deque[LobbyDelta] = deque(maxlen=keep)

    @property
    def version(self) -> int:
        return self.snapshot.version

    def publish(self, snapshot: Snapshot) -> Snapshot:
        """``snapshot`` as the lobby's present (numbered: a new version if it differs)."""
        if snapshot == self.snapshot:
            return self.snapshot
        base = self.version
        delta = diff(self.snapshot, snapshot, base, base + 1)
        if delta is None:
            self.deltas.clear()  # (a reader behind reads the snapshot)
        else:
            self.deltas.append(delta)
        self.snapshot = replace(snapshot, version=base + 1)
        return self.snapshot

    def advance(self, delta: LobbyDelta) -> bool:
        """Apply a delta made elsewhere (a host's) to the present, as this log's next
        version (False: nothing changed)."""
        if not delta.size and not delta.waiting:
            return False
        base = self.version
        own = replace(delta, base=base, version=base + 1)
        self.snapshot = apply(self.snapshot, own)
        self.deltas.append(own)
        return True

    def since(self, version: int) -> list[LobbyDelta] | None:
        """The deltas after ``version``, oldest first ([]: none); None: not kept (read
        :attr:`snapshot`)."""
        if version == self.version:
            return []
        if version > self.version or not self.deltas or self.deltas[0].base > version:
            return None
        return [d for d in self.deltas if d.base >= version]
