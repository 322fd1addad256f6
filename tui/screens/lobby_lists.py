"""The lobby screen's Online and Matches lists: sorted indexes kept up to date by deltas.

The screen reads the lobby's snapshot once, then the deltas since the version it shows
(:meth:`tui.ports.LobbyBackend.lobby_changes`), and each delta moves only the rows it
names (a player arrived, gone, doing something else; a match started, over, its score
moved).  Each list is a :class:`~tui.widgets.rows.RowSource`: its lines are worded when
the widget paints them, so a screen pays for the rows it shows, not for the server.

Players are sorted by name (as the lobby sorts them); matches keep the lobby's order
(new ones at the end).  The rows carry the lobby's data, never words.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from rich.text import Text

from tui import words as W

NONE = 1 << 30  # "no row changed": past any window


def player_key(name: str) -> str:
    """The players' order (the lobby's: names online differ by more than case)."""
    return name.lower()


class PlayerRows:
    """Who is online, sorted by name; the session's own line a heading (never chosen)."""

    def __init__(self, me: Callable[[], str]) -> None:
        self._me = me
        self._keys: list[str] = []  # sorted order keys, parallel to _names
        self._names: list[str] = []
        self._info: dict[str, Any] = {}
        self.built = 0  # lines built (what a test counts)

    def reset(self, players: Iterable[Any]) -> None:
        self._info = {p.name: p for p in players}
        self._names = sorted(self._info, key=player_key)
        self._keys = [player_key(name) for name in self._names]

    def _position(self, name: str) -> int | None:
        n = bisect_left(self._keys, player_key(name))
        return n if n < len(self._names) and self._names[n] == name else None

    def put(self, p: Any) -> int:
        """``p`` arrived or changed: the row it is at."""
        at = self._position(p.name)
        if at is None:
            at = bisect_left(self._keys, player_key(p.name))
            self._keys.insert(at, player_key(p.name))
            self._names.insert(at, p.name)
        self._info[p.name] = p
        return at

    def remove(self, name: str) -> int:
        """``name`` left: the row it was at (:data:`NONE`: not listed)."""
        at = self._position(name)
        if at is None:
            return NONE
        del self._keys[at], self._names[at]
        self._info.pop(name, None)
        return at

    def __len__(self) -> int:
        return len(self._names)

    def key(self, n: int) -> str:
        name = self._names[n]
        return f"-me:{name}" if name == self._me() else f"player:{name}"

    def line(self, n: int) -> Text:
        self.built += 1
        p = self._info[self._names[n]]
        mine = p.name == self._me()
        line = Text("  " if mine else "")  # (you are shown as a heading, never chosen: aligned by hand)
        line.append(p.name, "bold")
        line.append("  " + W.status(p.status, p.where))
        return line

    def index(self, item: str) -> int | None:
        return self._position(item.split(":", 1)[1]) if ":" in item else None


class MatchRows:
    """The matches running, in the lobby's order, each in one line of the width it had
    when the list last changed (shorter words when the long ones do not fit)."""

    def __init__(self, line: Callable[[Any, int], str]) -> None:
        self._line = line
        self._codes: list[str] = []
        self._info: dict[str, Any] = {}
        self._at: dict[str, int] | None = None  # code -> row (made again after a change of order)
        self.width = 0
        self.built = 0

    def reset(self, matches: Iterable[Any]) -> None:
        self._info = {m.code: m for m in matches}
        self._codes = list(self._info)
        self._at = None

    def _rows(self) -> dict[str, int]:
        if self._at is None:
            self._at = {code: n for n, code in enumerate(self._codes)}
        return self._at

    def put(self, m: Any) -> int:
        at = self._rows().get(m.code)
        if at is None:
            at = len(self._codes)
            self._codes.append(m.code)
            self._rows()[m.code] = at
        self._info[m.code] = m
        return at

    def remove(self, code: str) -> int:
        at = self._rows().get(code)
        if at is None:
            return NONE
        del self._codes[at]
        self._info.pop(code, None)
        self._at = None
        return at

    def order(self, codes: Sequence[str]) -> None:
        self._codes = [code for code in codes if code in self._info]
        self._at = None

    def __len__(self) -> int:
        return len(self._codes)

    def key(self, n: int) -> str:
        return f"match:{self._codes[n]}"

    def line(self, n: int) -> Text:
        self.built += 1
        return Text(self._line(self._info[self._codes[n]], self.width))

    def index(self, item: str) -> int | None:
        return self._rows().get(item.split(":", 1)[1]) if ":" in item else None


class LobbyLists:
    """Both lists, at one version of the lobby."""

    def __init__(self, me: Callable[[], str], match_line: Callable[[Any, int], str]) -> None:
        self.players = PlayerRows(me)
        self.matches = MatchRows(match_line)
        self.version: int | None = None  # the version shown (None: read the snapshot)

    def reset(self, snapshot: Any) -> None:
        self.players.reset(snapshot.players)
        self.matches.reset(snapshot.matches)
        self.version = snapshot.version

    def apply(self, deltas: Iterable[Any]) -> tuple[int, int]:
        """Apply ``deltas`` in order: the first row of each list that changed."""
        first_player = first_match = NONE
        for delta in deltas:
            for name in delta.gone:
                first_player = min(first_player, self.players.remove(name))
            for p in delta.players:
                first_player = min(first_player, self.players.put(p))
            for code in delta.ended:
                first_match = min(first_match, self.matches.remove(code))
            for m in delta.matches:
                first_match = min(first_match, self.matches.put(m))
            if delta.order:
                self.matches.order(delta.order)
                first_match = 0
            self.version = delta.version
        return first_player, first_match
