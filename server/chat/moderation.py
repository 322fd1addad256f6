"""An operator's silence: ``voltage admin mute NAME 15m``, ``unmute NAME``, ``mutes``.

A silenced author is not told: their lines are accepted, stored (marked ``shadow``) and
shown to them as usual, and reach nobody else (lichess's "shadowban": a troll who
cannot see that nobody reads them has no reason to come back under another name).

A silence names a name (folded as the store folds names) and, when a key holds that
name, the key too: a rename does not lift it.  It is a row of ``chat_silences`` with its
end; the server reads it for each line (no cache: the operator's command writes the
table from another process, beside the running server, through SQLite's own locking).
Without a store (tests, a server keeping nothing) a :class:`Silences` in memory does the
same.
"""

from __future__ import annotations

import re
import sqlite3
import time
from typing import Any

from server.store.db import fold_name

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_duration(text: str) -> float:
    """``15m``, ``2h``, ``1d``, ``90s`` (or plain seconds) -> seconds; ValueError otherwise."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", text.lower())
    if m is None or float(m.group(1)) <= 0:
        raise ValueError(f"{text!r} is not a duration (15m, 2h, 1d, 90s)")
    return float(m.group(1)) * UNITS[m.group(2) or "s"]


class Silences:
    """The silences in force: in the store when there is one, else in memory."""

    def __init__(self, store: Any = None, clock: Any = time.time) -> None:
        self.store = store
        self.clock = clock
        self._memory: dict[str, tuple[str | None, float]] = {}  # name_key -> (identity, until)

    def until(self, identity: str | None, name: str) -> float | None:
        """When the silence of this author ends (None: not silenced)."""
        now = self.clock()
        key = fold_name(name)
        if self.store is not None:
            rows = self.store.read("SELECT max(until) AS until FROM chat_silences WHERE until > ? AND "
                                   "(name_key = ? OR (identity IS NOT NULL AND identity = ?))",
                                   (now, key, identity or ""))
            return rows[0]["until"] if rows and rows[0]["until"] is not None else None
        best = None
        for k, (ident, until) in self._memory.items():
            if until > now and (k == key or (ident is not None and ident == identity)):
                best = max(best or until, until)
        return best

    def silence(self, name: str, seconds: float, identity: str | None = None) -> float:
        """Silence ``name`` (and ``identity``) for ``seconds``; returns when it ends."""
        until = self.clock() + seconds
        if self.store is not None:
            silence(self.store, name, until, identity)
        else:
            self._memory[fold_name(name)] = (identity, until)
        return until

    def lift(self, name: str) -> bool:
        if self.store is not None:
            return unsilence(self.store, name)
        return self._memory.pop(fold_name(name), None) is not None


def _silence(c: sqlite3.Connection, key: str, name: str, identity: str | None, until: float, now: float) -> None:
    c.execute("INSERT INTO chat_silences (name_key, name, identity, until, at) VALUES (?, ?, ?, ?, ?) "
              "ON CONFLICT(name_key) DO UPDATE SET name = excluded.name, identity = excluded.identity, "
              "until = excluded.until, at = excluded.at", (key, name, identity, until, now))


def _unsilence(c: sqlite3.Connection, key: str) -> int:
    return c.execute("DELETE FROM chat_silences WHERE name_key = ?", (key,)).rowcount


def silence(store: Any, name: str, until: float, identity: str | None = None) -> None:
    """Silence ``name`` until ``until`` (the key holding the name now with it)."""
    if identity is None:
        identity = store.name_owner(name)
    store.write(_silence, fold_name(name), name, identity, until, time.time())


def unsilence(store: Any, name: str) -> bool:
    """Lift the silence of ``name``; False if there was none."""
    return bool(store.write(_unsilence, fold_name(name)))


def silences(store: Any) -> list[sqlite3.Row]:
    """The silences in force, the soonest to end first."""
    return store.read("SELECT * FROM chat_silences WHERE until > ? ORDER BY until", (time.time(),))
