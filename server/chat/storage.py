"""Chat lines in the store (schema version 5: ``chat`` and ``chat_silences``).

A line is accepted only once it is stored, as a move is: :func:`add` awaits the
store's writer (in order with the match's actions: a match's lines go in after the row
the match was created with).  The lobby keeps its last :data:`LOBBY_KEPT` lines across
a restart (:func:`lobby_lines`); a match's lines are read back for its replay and its
export (:func:`match_lines`, through the match's record), the spectators' room included (a finished match shows
both), an operator's silenced lines left out (``shadow``: only their author saw them).
``voltage admin chat-log`` reads :func:`log_lines`, silenced lines marked.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from tui.ports import ChatLine

LOBBY_KEPT = 100


def _row_line(r: Any) -> ChatLine:
    return ChatLine(r["room"], r["name"], r["who"], r["text"], r["phrase"], r["at"], r["step"], r["id"])


def _add(c: sqlite3.Connection, match_id: int | Callable[[], int] | None, line: ChatLine, identity: str,
         shadow: bool) -> int:
    mid = match_id() if callable(match_id) else match_id
    cur = c.execute(  # (one statement: its own transaction on the writer's autocommit connection)
        "INSERT INTO chat (match_id, room, at, step, name, identity, who, text, phrase, shadow) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (mid, line.room, line.at, line.step, line.author, identity, line.who, line.text, line.phrase, int(shadow)))
    return int(cur.lastrowid or 0)


async def add(store: Any, line: ChatLine, *, identity: str, match_id: int | Callable[[], int] | None = None,
              shadow: bool = False) -> int:
    """Store ``line`` (``match_id`` None: the lobby's; a callable is read on the writer, after
    the match's row is made); its id once committed.  Raises what the store raises."""
    rid: int = await store.write_async(_add, match_id, line, identity, shadow)
    return rid


def lobby_lines(store: Any, limit: int = LOBBY_KEPT) -> list[tuple[ChatLine, str, bool]]:
    """The lobby's last ``limit`` lines, oldest first: (line, identity, shadow) each."""
    rows = store.read("SELECT * FROM chat WHERE match_id IS NULL ORDER BY id DESC LIMIT ?", (limit,))
    return [(_row_line(r), r["identity"], bool(r["shadow"])) for r in reversed(rows)]


def match_lines(store: Any, match_id: int, *, shadow: bool = False) -> list[tuple[ChatLine, str, bool]]:
    """A match's lines, both rooms, in the order said (``shadow``: with the silenced ones)."""
    rows = store.read("SELECT * FROM chat WHERE match_id = ? " + ("" if shadow else "AND shadow = 0 ")
                      + "ORDER BY id", (match_id,))
    return [(_row_line(r), r["identity"], bool(r["shadow"])) for r in rows]


def log_lines(store: Any, *, match_id: int | None = None, lobby: bool = False, name: str = "",
              limit: int = 50) -> list[sqlite3.Row]:
    """The operator's view: the last ``limit`` lines (of one match, of the lobby, of one
    author's name), oldest first, with who wrote them and whether they were silenced."""
    where: list[str] = []
    args: list[Any] = []
    if match_id is not None:
        where.append("match_id = ?")
        args.append(match_id)
    elif lobby:
        where.append("match_id IS NULL")
    if name:
        where.append("name = ? COLLATE NOCASE")
        args.append(name)
    sql = "SELECT * FROM chat" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id DESC LIMIT ?"
    return list(reversed(store.read(sql, (*args, limit))))
