"""Storage: players, names, ratings, settings, matches and their action logs, in SQLite.

One file, ``voltage.db`` in the data directory, in WAL mode; nothing else to run.
:meth:`Store.open` creates or validates it (a file it cannot trust is a :class:`StoreError` with a
sentence a person can act on, never an empty database in its place) and applies the schema
:data:`MIGRATIONS`.  Each write is its own transaction committed with ``synchronous=FULL``, so a
committed action survives a crash.  Writes run on one writer thread (:class:`_Writer`), in order:
the match hosts await theirs, the lobby's are queued; a stalled disk holds the writer and the
matches waiting on it, never the event loop.  What the lobby reads on every arrival (players,
names, settings, linked browsers) is answered from memory, kept up to date by this process, the
only writer, because even a WAL read can wait on a frozen file system.

A ``voltage.db`` missing from a data directory that was used before (its lock file, write-ahead log or
host key there: :data:`USED_SIGNS`) is refused unless a new store was asked for (``new=True``, ``voltage
serve --new-store``).  A name that looks like a reserved one (one confusable skeleton,
:mod:`server.confusables`: ``AIice`` for ``Alice``) is refused with :class:`NameLookalike`.

Why each of these, with the measurements, and the schema's versions: ``docs/design/store.md``.
"""

from __future__ import annotations

import asyncio
import errno
import json
import logging
import os
import queue
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine.game import Termination
from server import confusables
from server import ratings as R
from server.errors import ServerError
from server.store import browsers as B  # the root every server error shares (server/errors.py)

log = logging.getLogger(__name__)

DB_NAME = "voltage.db"
LOCK_NAME = "voltage.lock"
# What a data directory holds once a server has used it, beside the database: the store's
# lock file (never removed) and write-ahead log, and the host key the SSH transport keeps
# there (named here: the store imports no transport).  Any of them without voltage.db: the
# database was lost, not never made.
USED_SIGNS = (LOCK_NAME, DB_NAME + "-wal", "ssh_host_ed25519_key", "ssh_host_ed25519_key.pub")

RUNNING = "running"
FINISHED = "finished"
ABANDONED = "abandoned"


class StoreError(ServerError):
    """The data directory or database cannot be used (code ``store``; ``str(e)`` is the
    operator's message, its ``detail``, for the command line and the logs), or one of the
    refusals below (their own codes, worded by the tui)."""

    def __init__(self, detail: str = "", /, **params: Any) -> None:
        super().__init__("store", detail=detail, **params)

    def __str__(self) -> str:
        return str(self.params.get("detail", "")) if self.code == "store" else super().__str__()


class NameTaken(StoreError):
    """The name is reserved to another key (code ``name_taken``)."""

    def __init__(self, name: str) -> None:
        ServerError.__init__(self, "name_taken", name=name)


class NameLookalike(NameTaken):
    """The name looks like one another key holds (:mod:`server.confusables`; code ``name_looks_like``,
    ``like`` the name it looks like)."""

    def __init__(self, name: str, like: str) -> None:
        ServerError.__init__(self, "name_looks_like", name=name, like=like)


class RenameTooSoon(StoreError):
    """The key took its current name too recently to take another (code ``rename_too_soon``);
    ``wait`` seconds left."""

    def __init__(self, current: str, wait: float) -> None:
        self.current = current
        self.wait = wait
        ServerError.__init__(self, "rename_too_soon", name=current, minutes=max(1, int(wait / 60 + 0.999)))


# A key holds one name (its current one); it may take another this long after taking it,
# so that nobody reserves names in bulk (one key once took 30 in 18 s).
RENAME_COOLDOWN = 3600.0


class NotFound(StoreError):
    """No such match (code ``no_such_match``)."""

    def __init__(self, match_id: int) -> None:
        ServerError.__init__(self, "no_such_match", match=match_id)


# ---------------------------------------------------------------------------
# Schema


def _rate_people_only(c: sqlite3.Connection) -> None:
    """Schema 5: every rating recomputed from the matches without a bot (a match with a
    bot is no longer rated: :mod:`server.ratings`).

    The matches replayed are those that changed a rating when they finished (they have
    rows in ``rating_history``), in the order they did, with the people they rated then,
    less those with a bot in a seat of its own (a bot standing in for a person does not
    count).  Each person starts from the default, or from the rating carried over from
    schema 1 (a history point with no match: those matches were rated before the
    history began, so they are kept as they were).  The history's points and the
    ratings (value, number of rated matches, when) are written anew; a person whose
    every rated match had a bot is unrated again (no ratings row)."""
    bots = {r[0] for r in c.execute("SELECT DISTINCT match_id FROM seats WHERE bot IS NOT NULL AND identity IS NULL")}
    start: dict[tuple[str, str], tuple[float, float, float]] = {}
    for r in c.execute("SELECT identity, game, at, mu, sigma FROM rating_history WHERE match_id IS NULL ORDER BY id"):
        start[(r[0], r[1])] = (r[3], r[4], r[2])
    counted: dict[tuple[str, str], int] = {}
    for r in c.execute("SELECT identity, game, count(*) FROM rating_history WHERE match_id IS NOT NULL "
                       "GROUP BY identity, game"):
        counted[(r[0], r[1])] = r[2]
    state: dict[tuple[str, str], list] = {}  # (identity, game) -> [mu, sigma, games, updated]
    for (ident, game), (mu, sigma, at) in start.items():
        games = c.execute("SELECT games FROM ratings WHERE identity = ? AND game = ?", (ident, game)).fetchone()
        carried = max(0, (games[0] if games else 0) - counted.get((ident, game), 0))
        state[(ident, game)] = [mu, sigma, carried, at]
    rated = c.execute(
        "SELECT h.match_id, m.game, min(h.id) AS first, min(h.at) AS at FROM rating_history h "
        "JOIN matches m ON m.id = h.match_id WHERE h.match_id IS NOT NULL GROUP BY h.match_id ORDER BY first"
    ).fetchall()
    points: list[tuple] = []
    for match_id, game, _first, at in rated:
        if match_id in bots:
            continue
        people = {r[0] for r in c.execute("SELECT identity FROM rating_history WHERE match_id = ?", (match_id,))}
        entrants = []
        for seat, ident, rank in c.execute(
                "SELECT seat, identity, rank FROM seats WHERE match_id = ? ORDER BY seat", (match_id,)):
            if ident in people and rank is not None:
                now = state.get((ident, game))
                entrants.append(R.Entrant(seat, int(rank), ident, rating=(now[0], now[1]) if now else None))
        try:
            changes = R.rate(game, entrants)
        except ValueError:
            continue
        for ch in changes:
            now = state.setdefault((ch.identity, game), [0.0, 0.0, 0, at])
            now[:] = [ch.after[0], ch.after[1], now[2] + 1, at]
            points.append((ch.identity, game, match_id, at, *ch.before, *ch.after))
    c.execute("DELETE FROM rating_history WHERE match_id IS NOT NULL")
    c.executemany("INSERT INTO rating_history (identity, game, match_id, at, mu_before, sigma_before, mu, sigma) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", points)
    c.execute("DELETE FROM ratings")
    c.executemany("INSERT INTO ratings (identity, game, mu, sigma, games, updated) VALUES (?, ?, ?, ?, ?, ?)",
                  [(ident, game, *now) for (ident, game), now in state.items()])


MIGRATIONS: tuple[str | Callable[[sqlite3.Connection], None], ...] = (
    # v1
    """
    CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE players (
        identity  TEXT PRIMARY KEY,
        name      TEXT NOT NULL,
        created   REAL NOT NULL,
        last_seen REAL NOT NULL
    );
    CREATE TABLE names (
        name_key TEXT PRIMARY KEY,           -- folded form (see fold_name)
        name     TEXT NOT NULL,
        identity TEXT NOT NULL REFERENCES players(identity),
        claimed  REAL NOT NULL
    );
    CREATE TABLE ratings (
        identity TEXT NOT NULL REFERENCES players(identity),
        game     TEXT NOT NULL,
        mu       REAL NOT NULL,
        sigma    REAL NOT NULL,
        games    INTEGER NOT NULL DEFAULT 0,
        updated  REAL NOT NULL,
        PRIMARY KEY (identity, game)
    );
    CREATE TABLE matches (
        id      INTEGER PRIMARY KEY AUTOINCREMENT,
        game    TEXT NOT NULL,
        seed    TEXT NOT NULL,               -- decimal; any Python int
        code    TEXT NOT NULL DEFAULT '',
        status  TEXT NOT NULL DEFAULT 'running',
        started REAL NOT NULL,
        ended   REAL,
        reason  TEXT NOT NULL DEFAULT '',
        scores  TEXT                         -- JSON list, one per seat
    );
    CREATE INDEX matches_status ON matches(status);
    CREATE TABLE seats (
        match_id INTEGER NOT NULL REFERENCES matches(id),
        seat     INTEGER NOT NULL,
        name     TEXT NOT NULL,
        identity TEXT,                       -- a key fingerprint or guest id; NULL for a bot
        bot      TEXT,
        rank     INTEGER,                    -- 1 = first, set when the match finishes
        PRIMARY KEY (match_id, seat)
    );
    CREATE INDEX seats_identity ON seats(identity);
    CREATE TABLE actions (
        match_id INTEGER NOT NULL REFERENCES matches(id),
        idx      INTEGER NOT NULL,
        action   TEXT NOT NULL,
        PRIMARY KEY (match_id, idx)
    ) WITHOUT ROWID;
    """,
    # v2
    """
    CREATE TABLE rating_history (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        identity     TEXT NOT NULL REFERENCES players(identity),
        game         TEXT NOT NULL,
        match_id     INTEGER REFERENCES matches(id),   -- NULL: carried over from v1
        at           REAL NOT NULL,
        mu_before    REAL NOT NULL,
        sigma_before REAL NOT NULL,
        mu           REAL NOT NULL,
        sigma        REAL NOT NULL
    );
    CREATE INDEX rating_history_player ON rating_history(identity, game, id);
    CREATE INDEX rating_history_match ON rating_history(match_id);
    INSERT INTO rating_history (identity, game, match_id, at, mu_before, sigma_before, mu, sigma)
        SELECT identity, game, NULL, updated, mu, sigma, mu, sigma FROM ratings;
    """,
    # v3
    """
    ALTER TABLE actions ADD COLUMN at REAL;
    CREATE TABLE settings (
        identity TEXT NOT NULL REFERENCES players(identity),
        key      TEXT NOT NULL,
        value    TEXT NOT NULL,
        PRIMARY KEY (identity, key)
    ) WITHOUT ROWID;
    """,
    # v4
    """
    ALTER TABLE actions ADD COLUMN used_ms INTEGER;
    ALTER TABLE matches ADD COLUMN time_control TEXT;
    """,
    # v5
    """
    CREATE TABLE browsers (
        token_hash TEXT PRIMARY KEY,         -- sha256 of the browser's token (server.store.browsers)
        identity   TEXT NOT NULL REFERENCES players(identity),
        label      TEXT NOT NULL DEFAULT '',
        created    REAL NOT NULL,
        last_seen  REAL NOT NULL
    );
    CREATE INDEX browsers_identity ON browsers(identity);
    CREATE TABLE link_codes (
        code_hash TEXT PRIMARY KEY,          -- sha256 of the folded code
        identity  TEXT NOT NULL UNIQUE REFERENCES players(identity),
        expires   REAL NOT NULL
    );
    """,
    # v6
    _rate_people_only,
    # v7
    """
    CREATE TABLE chat (
        id       INTEGER PRIMARY KEY AUTOINCREMENT,
        match_id INTEGER REFERENCES matches(id),  -- NULL: the lobby
        room     TEXT NOT NULL,                   -- lobby | players | spectators
        at       REAL NOT NULL,
        step     INTEGER NOT NULL DEFAULT 0,      -- the match's action count when said
        name     TEXT NOT NULL,
        identity TEXT NOT NULL,                   -- a key fingerprint or a guest's token
        who      TEXT NOT NULL,                   -- what readers see of the identity
        text     TEXT NOT NULL,
        phrase   TEXT NOT NULL DEFAULT '',
        shadow   INTEGER NOT NULL DEFAULT 0       -- 1: its author was silenced: only they saw it
    );
    CREATE INDEX chat_match ON chat(match_id, id);
    CREATE TABLE chat_silences (
        name_key TEXT PRIMARY KEY,                -- folded (see fold_name)
        name     TEXT NOT NULL,
        identity TEXT,                            -- the key holding the name then (NULL: none)
        until    REAL NOT NULL,
        at       REAL NOT NULL
    );
    """,
    # v8
    """
    ALTER TABLE matches ADD COLUMN hinted INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE analyses (
        match_id INTEGER PRIMARY KEY REFERENCES matches(id),
        version  INTEGER NOT NULL,           -- engine.voltage.coach.ANALYSIS_VERSION
        data     TEXT NOT NULL,              -- JSON: [step, seat, chance, best, better move]
        created  REAL NOT NULL
    );
    """,
    # v9
    """
    ALTER TABLE actions ADD COLUMN request TEXT;  -- the id of the intent that made it (NULL: none)
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


def fold_name(name: str) -> str:
    """The form names are kept in: NFKC, case-folded, inner spaces collapsed (a name that merely
    looks like another is found by its skeleton, :func:`server.confusables.skeleton`)."""
    return confusables.fold(name)


# ---------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class PlayerRecord:
    identity: str
    name: str
    created: float
    last_seen: float


@dataclass(frozen=True)
class SeatRecord:
    """A seat of a stored match.  ``rating_before``/``after`` are (mu, sigma)
    when the match changed this seat's rating (see :func:`ratings.display`)."""

    seat: int
    name: str
    identity: str | None
    bot: str | None
    rank: int | None = None
    rating_before: tuple[float, float] | None = None
    rating_after: tuple[float, float] | None = None

    @property
    def delta(self) -> int | None:
        """The change of the displayed rating in this match, if it was rated."""
        if self.rating_before is None or self.rating_after is None:
            return None
        return R.display(*self.rating_after) - R.display(*self.rating_before)

    def as_seat(self) -> dict:
        return {"name": self.name, "identity": self.identity, "bot": self.bot}


@dataclass(frozen=True)
class MatchRecord:
    """A stored match.  ``actions`` holds the action texts in order, or is
    ``None`` when not loaded (history lists)."""

    id: int
    game: str
    seed: int
    code: str
    status: str
    started: float
    ended: float | None
    reason: str
    scores: tuple[int, ...] | None
    seats: tuple[SeatRecord, ...]
    actions: tuple[str, ...] | None = None
    times: tuple[float | None, ...] | None = None  # when each action was accepted (None: not kept)
    used_ms: tuple[int | None, ...] | None = None  # the time each action's seat used (None: not kept)
    requests: tuple[str | None, ...] | None = None  # the id of the intent that made each action (None: none)
    time_control: str | None = None  # "5+5" (engine.clock); None: no clock
    chat: tuple[Any, ...] = ()  # its chat lines, both rooms (tui.ports.ChatLine; silenced ones left out)
    hinted: bool = False  # a player asked the coach for a hint (never rated)

    @property
    def finished(self) -> bool:
        return self.status == FINISHED

    @property
    def aborted(self) -> bool:
        """Called off before it began: no result (no winner, no places), whatever an older
        version stored as its ranks (1 for every seat, as for a draw)."""
        return self.reason == Termination.ABORTED.value

    @property
    def ranks(self) -> tuple[int | None, ...]:
        """Each seat's place (None: none, before the end or in an aborted match)."""
        return tuple(None if self.aborted else s.rank for s in self.seats)

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats ranked first (several on a tie; empty before the end and when aborted)."""
        return tuple(s.seat for s, rank in zip(self.seats, self.ranks, strict=True) if rank == 1)

    def seat_of(self, identity: str | None) -> int | None:
        """The seat ``identity`` played in this match, if any."""
        if identity is None:
            return None
        for s in self.seats:
            if s.identity == identity:
                return s.seat
        return None


@dataclass(frozen=True)
class LeaderRow:
    place: int
    identity: str
    name: str
    mu: float
    sigma: float
    games: int

    @property
    def shown(self) -> int:
        return R.display(self.mu, self.sigma)


@dataclass(frozen=True)
class HistoryPoint:
    match_id: int | None
    at: float
    mu: float
    sigma: float

    @property
    def shown(self) -> int:
        return R.display(self.mu, self.sigma)


# ---------------------------------------------------------------------------
# The store


class _Writer:
    """One thread that runs every write, in the order they were handed in.

    The event loop never waits on the disk: a job goes on the queue and the
    caller gets a :class:`concurrent.futures.Future` (``await`` it through
    :meth:`Store.write_async`).  One thread, one queue: actions of a match are
    committed in the order the host handed them in (the host awaits each one
    under its lock anyway), and SQLite has one writer at a time regardless.
    """

    def __init__(self, conn: sqlite3.Connection, name: str) -> None:
        self.conn = conn
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        fut: Future = Future()
        self._queue.put((fut, fn, args))
        return fut

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            fut, fn, args = item
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                result = fn(self.conn, *args)
            except BaseException as e:  # handed to whoever waits
                fut.set_exception(e)
            else:
                fut.set_result(result)

    def close(self, timeout: float = 10.0) -> bool:
        """Finish the queued jobs and stop; False if the thread is stuck (a stalled disk)."""
        self._queue.put(None)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout)
        return not self._thread.is_alive()


def _in_tx(c: sqlite3.Connection, body: Callable[[sqlite3.Connection], Any]) -> Any:
    """Run ``body`` in one write transaction (taken at once, so it never fails half-way on a lock)."""
    c.execute("BEGIN IMMEDIATE")
    try:
        result = body(c)
    except BaseException:
        if c.in_transaction:
            c.execute("ROLLBACK")
        raise
    try:
        c.execute("COMMIT")
    except BaseException:
        if c.in_transaction:
            c.execute("ROLLBACK")
        raise
    return result


def _log_failure(what: str) -> Callable[[Future], None]:
    def done(fut: Future) -> None:
        if not fut.cancelled() and fut.exception() is not None:
            log.error("could not %s: %s", what, fut.exception())

    return done


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    uri = f"file:{path}?mode=ro" if readonly else f"file:{path}?mode=rwc"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=5.0)
    conn.row_factory = sqlite3.Row
    return conn


class Store:
    """The data directory's database.  Build it with :meth:`open`."""

    def __init__(self, conn: sqlite3.Connection, path: Path, lock_fd: int | None, readonly: bool) -> None:
        self._conn = conn  # the writer's (only the writer thread uses it once open)
        self._rconn = conn  # reads: a connection of their own once open (read-write stores)
        self.path = path
        self.readonly = readonly
        self._lock_fd = lock_fd
        self._mutex = threading.RLock()  # serialises reads on _rconn
        self._writer: _Writer | None = None
        # Players and names, in memory (read-write stores: this process is the only
        # writer, the directory lock sees to that), so the lobby's questions never
        # wait for the disk; see the module docstring.
        self._cache_lock = threading.RLock()
        self._players: dict[str, PlayerRecord] | None = None
        self._names: dict[str, str] | None = None  # name_key -> identity
        self._held: dict[str, tuple[str, float]] | None = None  # identity -> (its name, when claimed)
        self._looks: dict[str, dict[str, str]] | None = None  # skeleton -> {identity: its name}
        self._settings: dict[str, dict[str, str]] = {}  # identity -> key -> value
        self._browsers: dict[str, B.BrowserRecord] = {}  # token hash -> the linked browser
        self._codes: dict[str, tuple[str, float]] = {}  # code hash -> (identity, expires)

    # -- opening -------------------------------------------------------------

    @classmethod
    def open(cls, data_dir: str | os.PathLike, *, readonly: bool = False, lock: bool = True,
             new: bool = False) -> Store:
        """Open (creating if need be) ``data_dir/voltage.db`` and migrate it.

        ``readonly`` opens an existing database without writing (``voltage
        replay`` next to a running server).  ``lock`` (read-write only) takes
        an exclusive lock on the directory so two servers never share it.
        A database is made only in a directory never used before, or when
        ``new`` asks for one (an existing database is never touched by it).
        Raises :class:`StoreError` saying what is wrong.
        """
        d = Path(data_dir).expanduser()
        path = d / DB_NAME
        if readonly:
            if not path.is_file():
                raise StoreError(f"no Voltage database at {path}")
        else:
            _prepare_dir(d)
        if path.exists() and not path.is_file():
            raise StoreError(f"{path} exists but is not a file")
        if not readonly and not new and not path.exists() and not path.is_symlink():
            # (checked before the lock file is made: it is one of the signs)
            signs = used_signs(d)
            if signs:
                raise StoreError(
                    f"{path} is missing, but {d} was used before (it holds {', '.join(signs)}): "
                    "restore voltage.db from a backup, or start with --new-store to begin an empty "
                    "database on purpose (every player, rating and match log would be gone)"
                )
        if path.is_file() and path.stat().st_size == 0:
            # SQLite would take a 0-byte file for a new, empty database: every
            # player and match gone without a word.  A store this code made is
            # never empty (the WAL switch writes the header at once).
            raise StoreError(
                f"{path} is empty (0 bytes): the database was lost or truncated. "
                "Restore it from a backup, or move it aside and start with --new-store to begin afresh"
            )
        lock_fd = None if readonly or not lock else _lock_dir(d)
        try:
            conn = _connect(path, readonly=readonly)
        except sqlite3.Error as e:
            _unlock(lock_fd)
            raise StoreError(f"cannot open the database {path}: {e}") from e
        store = cls(conn, path, lock_fd, readonly)
        try:
            store._setup()
            if not readonly:
                try:
                    store._rconn = _connect(path, readonly=False)
                    store._rconn.execute("PRAGMA query_only=ON")
                    store._load_cache()
                except sqlite3.Error as e:  # pragma: no cover - it was just opened once
                    raise StoreError(f"cannot read the database {path}: {e}") from e
                store._writer = _Writer(conn, f"store-writer {path}")
        except BaseException:
            store.close()
            raise
        return store

    def _setup(self) -> None:
        c = self._conn
        path = self.path
        try:
            version = c.execute("PRAGMA user_version").fetchone()[0]
            # Reading the header alone does not catch a damaged file: check it.
            # integrity_check, not quick_check: quick_check misses an index that
            # disagrees with its table (a damaged names index would hand a
            # reserved name to anyone).  Measured on a 191 MB store (100k
            # matches, 4.4M actions): 0.88 s warm / 4.5 s cold, against
            # quick_check's 0.35 s / 3.8 s; once per start, worth it.
            check = c.execute("PRAGMA integrity_check").fetchone()[0]
        except sqlite3.DatabaseError as e:
            raise StoreError(
                f"{path} is not a usable Voltage database ({e}). "
                "Move it aside to start afresh, or restore it from a backup."
            ) from e
        if check != "ok":
            raise StoreError(f"{path} is damaged (integrity check: {check}); restore it from a backup")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{path} has schema version {version}, newer than this Voltage knows "
                f"({SCHEMA_VERSION}): upgrade Voltage, or point it at another data directory"
            )
        if version == 0 and not self.readonly:
            tables = c.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise StoreError(f"{path} is an SQLite database, but not one of Voltage's")
        if self.readonly:
            if version < SCHEMA_VERSION:
                raise StoreError(
                    f"{path} has schema version {version}; start the server once to upgrade it"
                )
            c.execute("PRAGMA query_only=ON")
            return
        try:
            mode = c.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"cannot put {path} in WAL mode (got {mode!r}); is the directory writable?")
            # FULL: each commit (an accepted action above all) is on the disk
            # before the player hears of it; see the module docstring.
            c.execute("PRAGMA synchronous=FULL")
            c.execute("PRAGMA foreign_keys=ON")
            self._migrate(version)
            # A real write, so an unwritable file fails now rather than mid-match.
            with self._tx():
                c.execute(
                    "INSERT INTO meta (key, value) VALUES ('last_open', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (repr(time.time()),),
                )
        except sqlite3.Error as e:
            raise StoreError(f"cannot write the database {path}: {e}") from e

    def _migrate(self, version: int) -> None:
        c = self._conn
        for v in range(version, SCHEMA_VERSION):
            log.info("migrating %s to schema version %d", self.path, v + 1)
            step = MIGRATIONS[v]
            # executescript commits first; run the whole step in one transaction.
            try:
                if callable(step):
                    c.execute("BEGIN IMMEDIATE")
                    step(c)
                    c.execute(f"PRAGMA user_version = {v + 1}")
                    c.execute("COMMIT")
                else:
                    c.executescript(f"BEGIN IMMEDIATE;\n{step}\nPRAGMA user_version = {v + 1};\nCOMMIT;")
            except Exception as e:  # (a Python step may fail otherwise than SQLite does)
                if c.in_transaction:
                    c.execute("ROLLBACK")
                raise StoreError(f"{self.path}: migration to schema version {v + 1} failed: {e}") from e
        if version == 0:
            with self._tx():
                c.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('created', ?)", (repr(time.time()),))

    @property
    def schema_version(self) -> int:
        return self._conn.execute("PRAGMA user_version").fetchone()[0]

    def close(self) -> None:
        """Commit what is queued, then close.  A writer stuck on a stalled disk is
        left behind (it is a daemon thread): closing never hangs the server's exit."""
        writer, self._writer = self._writer, None
        stuck = writer is not None and not writer.close()
        with self._mutex:
            try:
                if self._rconn is not self._conn:
                    self._rconn.close()
                if not stuck:
                    self._conn.close()
                else:
                    log.error("the store's writer is stuck (a stalled disk?); closing without it")
            finally:
                _unlock(self._lock_fd)
                self._lock_fd = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction on the calling thread: only while opening (before the
        writer thread owns the connection)."""
        assert self._writer is None, "writes go through the writer once the store is open"
        with self._mutex:
            c = self._conn
            c.execute("BEGIN IMMEDIATE")
            try:
                yield c
            except BaseException:
                if c.in_transaction:
                    c.execute("ROLLBACK")
                raise
            else:
                c.execute("COMMIT")

    # -- the writer ----------------------------------------------------------

    def _submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        if self.readonly or self._writer is None:
            raise StoreError(f"{self.path} is open read-only (or closed)")
        return self._writer.submit(fn, *args)

    def _write(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn(conn, *args)`` on the writer and wait for it (synchronous callers)."""
        if self._writer is not None and threading.current_thread() is self._writer.thread:
            return fn(self._conn, *args)
        return self._submit(fn, *args).result()

    def write_async(self, fn: Callable[..., Any], *args: Any) -> asyncio.Future:
        """Run ``fn(conn, *args)`` on the writer; await the result on the event loop."""
        return asyncio.wrap_future(self._submit(fn, *args))

    def in_writer(self, fn: Callable[[sqlite3.Connection], Any]) -> Future:
        """Queue ``fn(conn)`` on the writer thread, in order with every write (for tests
        and benchmarks: a pragma on the writer's connection, a simulated stall)."""
        return self._submit(fn)

    def probe(self, match_id: int | None = None, index: int | None = None) -> None:
        """A committed write that changes nothing: raises (sqlite3.Error) while the store
        cannot write.  Given a match and the index of its next action, it also stores
        (and takes back, in the same transaction) a row where that action will go, so
        it fails exactly when that action would (a full page of the log included)."""
        self._write(_probe, match_id, index)

    def probe_async(self, match_id: int | Callable[[], int] | None = None, index: int | None = None) -> asyncio.Future:
        return self.write_async(_probe, match_id, index)

    def _q(self, sql: str, args: Sequence | Mapping = ()) -> list[sqlite3.Row]:
        with self._mutex:
            return self._rconn.execute(sql, args).fetchall()

    def read(self, sql: str, args: Sequence | Mapping = ()) -> list[sqlite3.Row]:
        """Rows of a query on the readers' connection (a part of the server that keeps its
        own tables here: :mod:`server.chat.storage`)."""
        return self._q(sql, args)

    def write(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn(conn, *args)`` on the writer and wait for it (scripts, ``voltage admin``)."""
        return self._write(fn, *args)

    # -- players -------------------------------------------------------------

    def _load_cache(self) -> None:
        players = {
            r["identity"]: PlayerRecord(r["identity"], r["name"], r["created"], r["last_seen"])
            for r in self._q("SELECT * FROM players")
        }
        rows = self._q("SELECT name_key, name, identity, claimed FROM names ORDER BY claimed")
        names = {r["name_key"]: r["identity"] for r in rows}
        held = {r["identity"]: (r["name"], r["claimed"]) for r in rows}  # (the latest claim wins)
        looks: dict[str, dict[str, str]] = {}
        for r in rows:
            looks.setdefault(confusables.skeleton(r["name"]), {})[r["identity"]] = r["name"]
        settings: dict[str, dict[str, str]] = {}
        for r in self._q("SELECT identity, key, value FROM settings"):
            settings.setdefault(r["identity"], {})[r["key"]] = r["value"]
        browsers = {
            r["token_hash"]: B.BrowserRecord(r["token_hash"], r["identity"], r["label"], r["created"], r["last_seen"])
            for r in self._q("SELECT * FROM browsers")
        }
        now = time.time()
        codes = {r["code_hash"]: (r["identity"], r["expires"]) for r in self._q("SELECT * FROM link_codes")
                 if r["expires"] > now}
        with self._cache_lock:
            self._players, self._names, self._held, self._looks = players, names, held, looks
            self._settings = settings
            self._browsers, self._codes = browsers, codes

    # -- linked browsers -------------------------------------------------------
    #
    # In memory like the players (a web connection asks on arrival), written through the
    # writer; see server.store.browsers for the codes and tokens.

    def new_link_code(self, identity: str, *, ttl: float = B.LINK_TTL) -> str:
        """A one-time code that links a browser to ``identity`` (a stored player), as shown
        (``ABCD-EFGH``); it replaces the key's earlier code.  Queued, not waited for."""
        if not identity or self.player(identity) is None:
            raise StoreError("links are made for known keys only")
        expires = time.time() + ttl
        with self._cache_lock:
            while True:
                code = B.new_code()
                digest = B.secret_hash(B.fold_code(code) or code)
                if digest not in self._codes:
                    break
            for h in [h for h, (who, _e) in self._codes.items() if who == identity]:
                del self._codes[h]
            self._codes[digest] = (identity, expires)
        fut = self._submit(_new_link_code, identity, digest, expires)
        fut.add_done_callback(_log_failure(f"keep a link code of {identity}"))
        return code

    def redeem_link_code(self, code: str, label: str) -> tuple[str, str] | None:
        """Use ``code`` (as typed) up: ``(token, identity)`` for the browser it links, or None
        when no live code is that one.  Queued, not waited for."""
        folded = B.fold_code(code)
        if folded is None:
            return None
        digest = B.secret_hash(folded)
        now = time.time()
        with self._cache_lock:
            found = self._codes.pop(digest, None)
            if found is None or found[1] <= now:
                return None
            identity = found[0]
            token = B.new_token()
            record = B.BrowserRecord(B.secret_hash(token), identity, label[: B.MAX_LABEL], now, now)
            mine = sorted((b for b in self._browsers.values() if b.identity == identity), key=lambda b: b.last_seen)
            dropped = [b.token_hash for b in mine[: max(0, len(mine) - B.MAX_BROWSERS + 1)]]
            for h in dropped:
                del self._browsers[h]
            self._browsers[record.token_hash] = record
        fut = self._submit(_redeem_link_code, digest, record, dropped)
        fut.add_done_callback(_log_failure(f"link a browser to {identity}"))
        return token, identity

    def browser_identity(self, token: str) -> str | None:
        """The key a browser's token is linked to (None: none), noting the browser as seen."""
        if not token or len(token) > 200:
            return None
        digest = B.secret_hash(token)
        now = time.time()
        with self._cache_lock:
            record = self._browsers.get(digest)
            if record is None:
                return None
            self._browsers[digest] = B.BrowserRecord(digest, record.identity, record.label, record.created, now)
        fut = self._submit(_touch_browser, digest, now)
        fut.add_done_callback(_log_failure("note a browser as seen"))
        return record.identity

    def browsers(self, identity: str) -> list[B.BrowserRecord]:
        """The browsers linked to ``identity``, the one used last first."""
        with self._cache_lock:
            mine = [b for b in self._browsers.values() if b.identity == identity]
        return sorted(mine, key=lambda b: b.last_seen, reverse=True)

    def unlink_browsers(self, identity: str) -> int:
        """Forget every browser linked to ``identity`` (and its live code); how many there were."""
        with self._cache_lock:
            gone = [h for h, b in self._browsers.items() if b.identity == identity]
            for h in gone:
                del self._browsers[h]
            for h in [h for h, (who, _e) in self._codes.items() if who == identity]:
                del self._codes[h]
        fut = self._submit(_unlink_browsers, identity)
        fut.add_done_callback(_log_failure(f"unlink the browsers of {identity}"))
        return len(gone)

    # -- settings --------------------------------------------------------------

    def settings(self, identity: str) -> dict[str, str]:
        """Every setting ``identity`` keeps (from memory: never waits for the disk)."""
        with self._cache_lock:
            return dict(self._settings.get(identity, {}))

    def setting(self, identity: str, key: str) -> str | None:
        return self.settings(identity).get(key)

    def set_setting(self, identity: str, key: str, value: str) -> Future:
        """Keep ``key = value`` for ``identity`` (a stored player); queued, not waited for."""
        if not identity or identity not in (self._players or {}):
            raise StoreError("settings are kept for known keys only")
        with self._cache_lock:
            self._settings.setdefault(identity, {})[key] = value
        fut = self._submit(_set_setting, identity, key, value)
        fut.add_done_callback(_log_failure(f"keep the setting {key!r} of {identity}"))
        return fut

    def _held_name(self, identity: str) -> tuple[str, float] | None:
        """The name ``identity`` holds now and when it took it (None: none yet)."""
        with self._cache_lock:
            if self._held is not None:
                return self._held.get(identity)
        rows = self._q("SELECT name, claimed FROM names WHERE identity = ? ORDER BY claimed DESC LIMIT 1",
                       (identity,))
        return (rows[0]["name"], rows[0]["claimed"]) if rows else None

    def name_owner(self, name: str) -> str | None:
        """The identity that reserved ``name`` (compared folded), or ``None``."""
        key = fold_name(name)
        with self._cache_lock:
            if self._names is not None:
                return self._names.get(key)
        rows = self._q("SELECT identity FROM names WHERE name_key = ?", (key,))
        return rows[0]["identity"] if rows else None

    def name_free_for(self, name: str, identity: str | None) -> bool:
        """May ``identity`` (``None``: a guest) go by ``name``?  Not when another key holds it, or a
        name it looks like (:meth:`name_like`)."""
        owner = self.name_owner(name)
        return (owner is None or owner == identity) and self.name_like(name, identity) is None

    def name_like(self, name: str, identity: str | None) -> str | None:
        """A name another key than ``identity`` holds that ``name`` looks like (one confusable
        skeleton, :mod:`server.confusables`), or None."""
        look = confusables.skeleton(name)
        with self._cache_lock:
            if self._looks is not None:
                holders = self._looks.get(look, {})
                return next((n for i, n in holders.items() if i != identity), None)
        for r in self._q("SELECT name, identity FROM names"):
            if r["identity"] != identity and confusables.skeleton(r["name"]) == look:
                return str(r["name"])
        return None

    def rename_wait(self, identity: str, *, cooldown: float = RENAME_COOLDOWN, now: float | None = None) -> float:
        """Seconds until ``identity`` may take another name (0: now).  A key's first name
        may be changed at once (a new player's first name is often a guess: the login
        name); a name taken by a rename holds for ``cooldown`` seconds."""
        held = self._held_name(identity)
        known = self.player(identity)
        if held is None or known is None or held[1] <= known.created:  # none yet, or its first
            return 0.0
        return max(0.0, cooldown - ((time.time() if now is None else now) - held[1]))

    def upsert_player(self, identity: str, name: str, *, cooldown: float = RENAME_COOLDOWN) -> PlayerRecord:
        """Record that ``identity`` is here as ``name``, reserving the name to it.

        A key holds one name: taking a new one releases the old one, and is refused
        with :class:`RenameTooSoon` within ``cooldown`` seconds of taking the current
        one when that was itself a rename (:meth:`rename_wait`: a key's first name may be
        changed at once; a change of case or spacing is no new name).  Raises :class:`NameTaken`
        if another key holds ``name``.  Never call this for guests: they are not
        stored.  Does not wait for the disk (the lobby calls it on the event loop):
        the name is checked and claimed in memory under one lock, and the write is
        queued (a write that fails is logged; the claim holds until the server stops).
        """
        if not identity:
            raise ValueError("a player needs an identity")
        key = fold_name(name)
        if not key:
            raise ValueError("a player needs a name")
        now = time.time()
        with self._cache_lock:
            owner = self.name_owner(name)
            if owner is not None and owner != identity:
                raise NameTaken(name)
            like = self.name_like(name, identity)
            if like is not None:
                raise NameLookalike(name, like)
            if owner is None:  # a new name for this key: a rename, once the cool-down is over
                held = self._held_name(identity)
                wait = self.rename_wait(identity, cooldown=cooldown, now=now)
                if held is not None and wait > 0:
                    raise RenameTooSoon(held[0], wait)
                if self._names is not None:
                    for k in [k for k, v in self._names.items() if v == identity]:
                        del self._names[k]
                if self._looks is not None:
                    if held is not None:
                        self._looks.get(confusables.skeleton(held[0]), {}).pop(identity, None)
                    self._looks.setdefault(confusables.skeleton(name), {})[identity] = name
                if self._held is not None:
                    self._held[identity] = (name, now)
            known = self.player(identity)
            record = PlayerRecord(identity, name, known.created if known else now, now)
            if self._players is not None and self._names is not None:
                self._players[identity] = record
                self._names.setdefault(key, identity)
            fut = self._submit(_upsert_player, identity, name, key, now)
        fut.add_done_callback(_log_failure(f"record player {identity} as {name!r}"))
        return record

    def touch_player(self, identity: str) -> Future:
        """Note that ``identity`` was just seen (no-op for an unknown identity).  Queued,
        not waited for (the lobby calls it on the event loop); the future tells when."""
        now = time.time()
        with self._cache_lock:
            if self._players is not None and identity in self._players:
                p = self._players[identity]
                self._players[identity] = PlayerRecord(p.identity, p.name, p.created, now)
        fut = self._submit(_touch_player, identity, now)
        fut.add_done_callback(_log_failure(f"note player {identity} as seen"))
        return fut

    def player(self, identity: str) -> PlayerRecord | None:
        with self._cache_lock:
            if self._players is not None:
                return self._players.get(identity)
        rows = self._q("SELECT * FROM players WHERE identity = ?", (identity,))
        if not rows:
            return None
        r = rows[0]
        return PlayerRecord(r["identity"], r["name"], r["created"], r["last_seen"])

    # -- matches -------------------------------------------------------------
    #
    # Each write has a synchronous form (waits for the writer: scripts, tests,
    # start-up) and an ``_async`` one the match hosts await on the event loop.

    def create_match(self, game: str, seed: int, seats: Sequence[Mapping], code: str = "",
                     time_control: str | None = None) -> int:
        """Record a new match and return its id.

        ``seats`` are mappings with ``name`` and optional ``identity`` / ``bot``
        (a :class:`server.host.common.Seat` works through :func:`seat_dict`);
        ``time_control`` its clock ("5+5", None: none).
        """
        return self._write(_create_match, *_match_args(game, seed, seats, code), time_control)

    def create_match_async(self, game: str, seed: int, seats: Sequence[Mapping], code: str = "",
                           time_control: str | None = None) -> asyncio.Future:
        return self.write_async(_create_match, *_match_args(game, seed, seats, code), time_control)

    def create_match_future(self, game: str, seed: int, seats: Sequence[Mapping], code: str = "",
                            time_control: str | None = None) -> Future:
        """:meth:`create_match` queued: a Future of the id (nothing waits for the disk)."""
        return self._submit(_create_match, *_match_args(game, seed, seats, code), time_control)

    def append_action(self, match_id: int, index: int, action: str, used_ms: int | None = None,
                      request: str | None = None) -> None:
        """Store action number ``index`` (0-based) of a running match; committed on return.
        ``used_ms``: the time its seat used (the clock's charge); ``request``: the id of the
        intent that made it (a retry of it is answered, never applied again)."""
        self._write(_append_action, match_id, index, action, time.time(), used_ms, request)

    def append_action_async(self, match_id: int | Callable[[], int], index: int, action: str,
                            used_ms: int | None = None, request: str | None = None) -> asyncio.Future:
        """:meth:`append_action` on the writer.  ``match_id`` may be a callable read
        when the job runs (the id of a match whose creation is queued ahead of it)."""
        return self.write_async(_append_action, match_id, index, action, time.time(), used_ms, request)

    def action_count(self, match_id: int) -> int:
        """How many actions of ``match_id`` are stored."""
        return self._q("SELECT count(*) AS n FROM actions WHERE match_id = ?", (match_id,))[0]["n"]

    def finish_match(
        self,
        match_id: int,
        ranks: Sequence[int | None],
        reason: str = "",
        scores: Sequence[int] | None = None,
        *,
        rated: bool = True,
        actions: int | None = None,
    ) -> list[R.Change]:
        """Record the result of a running match and, if ``rated``, update the ratings.

        ``ranks[seat]`` is each seat's finishing place (1 = first, equal
        numbers tie; None: no place, an aborted match's, never rated).  The
        result, the new ratings and their history go in one transaction, so a
        crash can never rate a match twice.  Returns the rating changes (empty
        if nothing was rated, or the match was already finished).

        ``actions``: how many actions the match has; if the stored log holds
        another number, nothing is written and :class:`StoreError` says so (a
        match is never finished, or rated, on a log that is not complete).  A
        result that cannot be rated (:func:`ratings.rate` refuses it, e.g. one
        identity in two seats) is still recorded, unrated, and logged.
        """
        return self._write(_finish_match, match_id, list(ranks), reason, _scores(scores), rated, actions)

    def finish_match_async(
        self,
        match_id: int | Callable[[], int],
        ranks: Sequence[int | None],
        reason: str = "",
        scores: Sequence[int] | None = None,
        *,
        rated: bool = True,
        actions: int | None = None,
    ) -> asyncio.Future:
        return self.write_async(_finish_match, match_id, list(ranks), reason, _scores(scores), rated, actions)

    def mark_hinted(self, match_id: int | Callable[[], int]) -> Future:
        """Mark a match as one where a player asked the coach for a hint (queued; the match is
        then never rated, :meth:`finish_match` is told so by its host)."""
        return self._submit(_mark_hinted, match_id)

    def analysis(self, match_id: int, version: int) -> str | None:
        """The stored analysis of ``match_id`` (its JSON) if one of ``version`` was made."""
        rows = self._q("SELECT data FROM analyses WHERE match_id = ? AND version = ?", (match_id, version))
        return rows[0]["data"] if rows else None

    def save_analysis(self, match_id: int, version: int, data: str) -> Future:
        """Keep the analysis of a finished match (queued; a later one replaces it)."""
        return self._submit(_save_analysis, match_id, version, data, time.time())

    def abandon_match(self, match_id: int, reason: str) -> None:
        """Mark a running match as given up (not rated, not restored, not replayable)."""
        self._write(_abandon_match, match_id, reason)

    def unfinished_ids(self) -> list[int]:
        """The id of every running match, oldest first."""
        return [r["id"] for r in self._q("SELECT id FROM matches WHERE status = ? ORDER BY id", (RUNNING,))]

    def unfinished_matches(self) -> list[MatchRecord]:
        """Every running match with its seats and actions, oldest first.  Raises
        :class:`StoreError` if one of them cannot be read (restore reads them one by
        one with :meth:`unfinished_ids` and :meth:`match_record` instead)."""
        return [rec for i in self.unfinished_ids() if (rec := self.match_record(i)) is not None]

    def match_record(self, match_id: int, *, actions: bool = True) -> MatchRecord | None:
        """The match ``match_id`` with its seats (and actions), or ``None``.  Raises
        :class:`StoreError` for a record that cannot be read (a gap in its log,
        a seed that is not a number)."""
        with self._mutex:
            c = self._rconn
            c.execute("BEGIN")  # one snapshot for the match, its seats and its actions
            try:
                rows = self._q("SELECT * FROM matches WHERE id = ?", (match_id,))
                if not rows:
                    return None
                return self._record(rows[0], actions)
            finally:
                c.execute("COMMIT")

    def _record(self, m: sqlite3.Row, with_actions: bool) -> MatchRecord:
        seat_rows = self._q(
            "SELECT s.seat, s.name, s.identity, s.bot, s.rank, "
            "h.mu_before, h.sigma_before, h.mu, h.sigma "
            "FROM seats s LEFT JOIN rating_history h ON h.match_id = s.match_id AND h.identity = s.identity "
            "WHERE s.match_id = ? ORDER BY s.seat",
            (m["id"],),
        )
        seats = tuple(
            SeatRecord(
                seat=r["seat"],
                name=r["name"],
                identity=r["identity"],
                bot=r["bot"],
                rank=r["rank"],
                rating_before=(r["mu_before"], r["sigma_before"]) if r["mu_before"] is not None else None,
                rating_after=(r["mu"], r["sigma"]) if r["mu"] is not None else None,
            )
            for r in seat_rows
        )
        acts = times = used = requests = None
        chat: tuple[Any, ...] = ()
        if with_actions:
            rows = self._q("SELECT idx, action, at, used_ms, request FROM actions WHERE match_id = ? ORDER BY idx",
                           (m["id"],))
            for n, r in enumerate(rows):
                if r["idx"] != n:
                    raise StoreError(f"match {m['id']}: the action log has a gap at {n}")
            acts = tuple(r["action"] for r in rows)
            times = tuple(r["at"] for r in rows)
            used = tuple(r["used_ms"] for r in rows)
            requests = tuple(r["request"] for r in rows)
            from server.chat.storage import match_lines  # (the chat keeps its own table's SQL)

            chat = tuple(line for line, _identity, _shadow in match_lines(self, m["id"]))
        try:
            seed = int(m["seed"])
        except (TypeError, ValueError):
            raise StoreError(f"match {m['id']}: its seed {m['seed']!r} is not a number") from None
        return MatchRecord(
            id=m["id"],
            game=m["game"],
            seed=seed,
            code=m["code"],
            status=m["status"],
            started=m["started"],
            ended=m["ended"],
            reason=m["reason"],
            scores=tuple(json.loads(m["scores"])) if m["scores"] else None,
            seats=seats,
            actions=acts,
            times=times,
            used_ms=used,
            requests=requests,
            time_control=m["time_control"],
            chat=chat,
            hinted=bool(m["hinted"]),
        )

    def export(self, match_id: int, *, identities: bool = False) -> dict:
        """A finished match as plain data: seed, actions, players, result.

        Raises :class:`NotFound` for an unknown match and :class:`StoreError`
        for one not finished (its seed would reveal every hand).  Key
        fingerprints are left out unless ``identities``.
        """
        rec = self.match_record(match_id)
        if rec is None:
            raise NotFound(match_id)
        if not rec.finished:
            raise StoreError(f"match {match_id} is not finished ({rec.status}); only finished matches are exported")
        players = []
        for s, rank in zip(rec.seats, rec.ranks, strict=True):
            p: dict = {"seat": s.seat, "name": s.name, "bot": s.bot, "rank": rank}
            if identities:
                p["identity"] = s.identity
            if s.rating_before is not None and s.rating_after is not None:
                p["rating"] = {
                    "before": R.display(*s.rating_before),
                    "after": R.display(*s.rating_after),
                }
            players.append(p)
        return {
            "format": "voltage-match",
            # 2: "times" added.  "time_control", "used_ms", "result_words", "rated" are
            # additions a reader of version 2 may ignore, so the version stays.
            "version": 2,
            "id": rec.id,
            "game": rec.game,
            "seed": rec.seed,
            "code": rec.code,
            "started": rec.started,
            "ended": rec.ended,
            "players": players,
            "actions": list(rec.actions or ()),
            # Seconds from the start to each action (None where the store did not keep it).
            "times": [round(t - rec.started, 3) if t is not None else None for t in (rec.times or ())],
            # The clock: the control ("5+5", None: no clock) and the ms each action's seat used.
            "time_control": rec.time_control,
            "used_ms": list(rec.used_ms or ()),
            "result": {
                "winners": list(rec.winners),
                "ranks": list(rec.ranks),
                "reason": rec.reason,
                "scores": list(rec.scores) if rec.scores is not None else None,
            },
            # Whether it changed anybody's rating (the words for people reading the file,
            # "result_words" and the log's, are added by server.store.persist.export).
            "rated": any(s.rating_before is not None for s in rec.seats),
            # Its chat, both rooms, in the order said (an addition, as above): "step" is the
            # number of actions played when the line was said, "at" seconds from the start;
            # a quick phrase has its id in "phrase" and no "text"; a silenced author's
            # lines, which only they saw, are left out.
            "chat": [{"room": c.room, "name": c.author, "step": c.step, "at": round(c.at - rec.started, 3),
                      **({"phrase": c.phrase} if c.phrase else {"text": c.text})} for c in rec.chat],
            # A player asked the coach for a hint in it (so it was never rated).
            "hinted": rec.hinted,
        }

    def player_history(self, identity: str, limit: int = 20, *, game: str | None = None) -> list[MatchRecord]:
        """``identity``'s finished matches, newest first (without actions)."""
        sql = (
            "SELECT m.* FROM matches m JOIN seats s ON s.match_id = m.id "
            "WHERE s.identity = ? AND m.status = ?"
        )
        args: list = [identity, FINISHED]
        if game is not None:
            sql += " AND m.game = ?"
            args.append(game)
        sql += " ORDER BY m.ended DESC, m.id DESC LIMIT ?"
        args.append(int(limit))
        with self._mutex:
            return [self._record(r, False) for r in self._q(sql, args)]

    def bot_record(self, identity: str) -> list[tuple[str, str, int, int, int]]:
        """``(game, bot, won, lost, drawn)`` of ``identity`` against each bot it met in a
        finished match (aborted ones aside), head to head: its place against the bot's."""
        rows = self._q(
            "SELECT m.game, b.bot, me.rank AS mine, b.rank AS theirs FROM seats me "
            "JOIN matches m ON m.id = me.match_id "
            "JOIN seats b ON b.match_id = me.match_id AND b.seat != me.seat "
            "WHERE me.identity = ? AND m.status = ? AND m.reason != ? AND b.bot IS NOT NULL "
            "AND b.identity IS NULL AND me.rank IS NOT NULL AND b.rank IS NOT NULL",
            (identity, FINISHED, Termination.ABORTED.value),
        )
        counts: dict[tuple[str, str], list[int]] = {}
        for r in rows:
            tally = counts.setdefault((r["game"], r["bot"]), [0, 0, 0])
            tally[0 if r["mine"] < r["theirs"] else 1 if r["mine"] > r["theirs"] else 2] += 1
        return [(game, bot, won, lost, drawn) for (game, bot), (won, lost, drawn) in counts.items()]

    # -- ratings -------------------------------------------------------------

    def rating(self, identity: str, game: str) -> tuple[float, float, int] | None:
        """``(mu, sigma, games)`` of ``identity`` in ``game``, or ``None`` if unrated."""
        rows = self._q("SELECT mu, sigma, games FROM ratings WHERE identity = ? AND game = ?", (identity, game))
        return (rows[0]["mu"], rows[0]["sigma"], rows[0]["games"]) if rows else None

    def games(self) -> list[str]:
        """Every game with at least one rated player, sorted."""
        return [r["game"] for r in self._q("SELECT DISTINCT game FROM ratings WHERE games > 0 ORDER BY game")]

    def leaderboard(self, game: str, n: int = 20) -> list[LeaderRow]:
        """The top ``n`` players of ``game`` by displayed rating."""
        rows = self._q(
            "SELECT r.identity, p.name, r.mu, r.sigma, r.games FROM ratings r "
            "JOIN players p ON p.identity = r.identity WHERE r.game = ? AND r.games > 0 "
            "ORDER BY (r.mu - 3 * r.sigma) DESC, r.games DESC, p.name LIMIT ?",
            (game, int(n)),
        )
        return [
            LeaderRow(i + 1, r["identity"], r["name"], r["mu"], r["sigma"], r["games"])
            for i, r in enumerate(rows)
        ]

    def rating_history(self, identity: str, game: str) -> list[HistoryPoint]:
        """``identity``'s rating in ``game`` after each rated match, oldest first
        (a first point with ``match_id`` None is a rating carried over from schema v1)."""
        rows = self._q(
            "SELECT match_id, at, mu, sigma FROM rating_history WHERE identity = ? AND game = ? ORDER BY id",
            (identity, game),
        )
        return [HistoryPoint(r["match_id"], r["at"], r["mu"], r["sigma"]) for r in rows]

    def rating_changes(self, match_id: int) -> dict[int, R.Change]:
        """The rating change of each rated seat of a finished match, by seat."""
        rows = self._q(
            "SELECT s.seat, h.identity, h.mu_before, h.sigma_before, h.mu, h.sigma FROM rating_history h "
            "JOIN seats s ON s.match_id = h.match_id AND s.identity = h.identity WHERE h.match_id = ?",
            (match_id,),
        )
        return {
            r["seat"]: R.Change(r["seat"], r["identity"], (r["mu_before"], r["sigma_before"]), (r["mu"], r["sigma"]))
            for r in rows
        }


# ---------------------------------------------------------------------------
# Write jobs: run on the writer thread, each one transaction.


PROBE_BYTES = 16384  # written and taken back by each probe: a full disk refuses that much WAL


def _probe(c: sqlite3.Connection, match_id: int | Callable[[], int] | None, index: int | None) -> None:
    def body(c: sqlite3.Connection) -> None:
        c.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('probe', ?)", ("x" * PROBE_BYTES,))
        if match_id is not None and index is not None:
            mid = _resolve(match_id)
            c.execute("INSERT INTO actions (match_id, idx, action) VALUES (?, ?, 'probe')", (mid, index))
            c.execute("DELETE FROM actions WHERE match_id = ? AND idx = ?", (mid, index))
        c.execute("UPDATE meta SET value = ? WHERE key = 'probe'", (repr(time.time()),))

    _in_tx(c, body)


def _upsert_player(c: sqlite3.Connection, identity: str, name: str, key: str, now: float) -> None:
    def body(c: sqlite3.Connection) -> None:
        row = c.execute("SELECT identity FROM names WHERE name_key = ?", (key,)).fetchone()
        if row is not None and row["identity"] != identity:
            raise NameTaken(name)
        c.execute(
            "INSERT INTO players (identity, name, created, last_seen) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(identity) DO UPDATE SET name = excluded.name, last_seen = excluded.last_seen",
            (identity, name, now, now),
        )
        if row is None:  # a new name: the key's old one is released (a key holds one name)
            c.execute("DELETE FROM names WHERE identity = ?", (identity,))
            c.execute(
                "INSERT INTO names (name_key, name, identity, claimed) VALUES (?, ?, ?, ?)",
                (key, name, identity, now),
            )

    _in_tx(c, body)


def _set_setting(c: sqlite3.Connection, identity: str, key: str, value: str) -> None:
    _in_tx(c, lambda c: c.execute(
        "INSERT INTO settings (identity, key, value) VALUES (?, ?, ?) "
        "ON CONFLICT(identity, key) DO UPDATE SET value = excluded.value", (identity, key, value)))


def _new_link_code(c: sqlite3.Connection, identity: str, digest: str, expires: float) -> None:
    def body(c: sqlite3.Connection) -> None:
        c.execute("DELETE FROM link_codes WHERE identity = ? OR expires < ?", (identity, time.time()))
        c.execute("INSERT INTO link_codes (code_hash, identity, expires) VALUES (?, ?, ?)", (digest, identity, expires))

    _in_tx(c, body)


def _redeem_link_code(c: sqlite3.Connection, digest: str, record: B.BrowserRecord, dropped: list[str]) -> None:
    def body(c: sqlite3.Connection) -> None:
        c.execute("DELETE FROM link_codes WHERE code_hash = ?", (digest,))
        c.executemany("DELETE FROM browsers WHERE token_hash = ?", [(h,) for h in dropped])
        c.execute(
            "INSERT INTO browsers (token_hash, identity, label, created, last_seen) VALUES (?, ?, ?, ?, ?)",
            (record.token_hash, record.identity, record.label, record.created, record.last_seen),
        )

    _in_tx(c, body)


def _touch_browser(c: sqlite3.Connection, digest: str, now: float) -> None:
    _in_tx(c, lambda c: c.execute("UPDATE browsers SET last_seen = ? WHERE token_hash = ?", (now, digest)))


def _unlink_browsers(c: sqlite3.Connection, identity: str) -> None:
    def body(c: sqlite3.Connection) -> None:
        c.execute("DELETE FROM browsers WHERE identity = ?", (identity,))
        c.execute("DELETE FROM link_codes WHERE identity = ?", (identity,))

    _in_tx(c, body)


def _touch_player(c: sqlite3.Connection, identity: str, now: float) -> None:
    _in_tx(c, lambda c: c.execute("UPDATE players SET last_seen = ? WHERE identity = ?", (now, identity)))


def _match_args(game: str, seed: int, seats: Sequence[Mapping], code: str) -> tuple:
    if not 2 <= len(seats) <= 4:
        raise ValueError("a match has 2 to 4 seats")
    rows = [(i, str(s["name"]), s.get("identity"), s.get("bot")) for i, s in enumerate(seats)]
    return (game, str(int(seed)), code or "", rows)


def _create_match(c: sqlite3.Connection, game: str, seed: str, code: str, seats: list[tuple],
                  time_control: str | None = None) -> int:
    def body(c: sqlite3.Connection) -> int:
        cur = c.execute(
            "INSERT INTO matches (game, seed, code, status, started, time_control) VALUES (?, ?, ?, ?, ?, ?)",
            (game, seed, code, RUNNING, time.time(), time_control),
        )
        match_id = int(cur.lastrowid)  # type: ignore[arg-type]
        c.executemany(
            "INSERT INTO seats (match_id, seat, name, identity, bot) VALUES (?, ?, ?, ?, ?)",
            [(match_id, *row) for row in seats],
        )
        return match_id

    return _in_tx(c, body)


def _resolve(match_id: int | Callable[[], int]) -> int:
    return match_id() if callable(match_id) else match_id


def _append_action(c: sqlite3.Connection, match_id: int | Callable[[], int], index: int, action: str,
                   at: float | None = None, used_ms: int | None = None, request: str | None = None) -> None:
    match_id = _resolve(match_id)
    try:
        _in_tx(c, lambda c: c.execute(
            "INSERT INTO actions (match_id, idx, action, at, used_ms, request) VALUES (?, ?, ?, ?, ?, ?)",
            (match_id, index, action, at, used_ms, request)
        ))
    except sqlite3.IntegrityError as e:
        raise StoreError(f"match {match_id}: cannot store action {index} ({e})") from e


def _scores(scores: Sequence[int] | None) -> str | None:
    return json.dumps([int(x) for x in scores]) if scores is not None else None


def _finish_match(
    c: sqlite3.Connection,
    match_id: int | Callable[[], int],
    ranks: list[int | None],
    reason: str,
    scores: str | None,
    rated: bool,
    actions: int | None,
) -> list[R.Change]:
    match_id = _resolve(match_id)

    def body(c: sqlite3.Connection) -> list[R.Change]:
        m = c.execute("SELECT game, status FROM matches WHERE id = ?", (match_id,)).fetchone()
        if m is None:
            raise NotFound(match_id)
        if m["status"] != RUNNING:
            return []
        seats = c.execute(
            "SELECT seat, identity, bot FROM seats WHERE match_id = ? ORDER BY seat", (match_id,)
        ).fetchall()
        if len(ranks) != len(seats):
            raise ValueError(f"match {match_id} has {len(seats)} seats, got {len(ranks)} ranks")
        if actions is not None:
            stored = c.execute("SELECT count(*) FROM actions WHERE match_id = ?", (match_id,)).fetchone()[0]
            if stored != actions:
                raise StoreError(
                    f"match {match_id}: the store holds {stored} of its {actions} actions; "
                    "not finishing it on an incomplete log"
                )
        game = m["game"]
        changes: list[R.Change] = []
        places = [int(r) for r in ranks if r is not None]
        if rated and len(places) == len(ranks):  # (a match with no places is never rated)
            entrants = []
            for s, r in zip(seats, places, strict=True):
                ident = s["identity"]
                registered = ident is not None and c.execute(
                    "SELECT 1 FROM players WHERE identity = ?", (ident,)
                ).fetchone() is not None
                rating = None
                if registered:
                    row = c.execute(
                        "SELECT mu, sigma FROM ratings WHERE identity = ? AND game = ?", (ident, game)
                    ).fetchone()
                    rating = (row["mu"], row["sigma"]) if row else None
                entrants.append(
                    R.Entrant(
                        seat=s["seat"],
                        rank=r,
                        identity=ident if registered else None,
                        bot=s["bot"],
                        rating=rating,
                    )
                )
            try:
                changes = R.rate(game, entrants)
            except Exception as e:  # the result still counts; only the rating is skipped
                log.error("match %s: finished but not rated: %s", match_id, e)
                changes = []
        now = time.time()
        c.execute(
            "UPDATE matches SET status = ?, ended = ?, reason = ?, scores = ? WHERE id = ?",
            (FINISHED, now, reason, scores, match_id),
        )
        c.executemany(
            "UPDATE seats SET rank = ? WHERE match_id = ? AND seat = ?",
            [(int(r) if r is not None else None, match_id, s["seat"]) for s, r in zip(seats, ranks, strict=True)],
        )
        for ch in changes:
            c.execute(
                "INSERT INTO ratings (identity, game, mu, sigma, games, updated) VALUES (?, ?, ?, ?, 1, ?) "
                "ON CONFLICT(identity, game) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, "
                "games = games + 1, updated = excluded.updated",
                (ch.identity, game, ch.after[0], ch.after[1], now),
            )
            c.execute(
                "INSERT INTO rating_history (identity, game, match_id, at, mu_before, sigma_before, mu, sigma) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (ch.identity, game, match_id, now, *ch.before, *ch.after),
            )
        return changes

    return _in_tx(c, body)


def _mark_hinted(c: sqlite3.Connection, match_id: int | Callable[[], int]) -> None:
    match_id = _resolve(match_id)
    _in_tx(c, lambda c: c.execute("UPDATE matches SET hinted = 1 WHERE id = ?", (match_id,)))


def _save_analysis(c: sqlite3.Connection, match_id: int, version: int, data: str, now: float) -> None:
    _in_tx(c, lambda c: c.execute(
        "INSERT INTO analyses (match_id, version, data, created) VALUES (?, ?, ?, ?) "
        "ON CONFLICT(match_id) DO UPDATE SET version = excluded.version, data = excluded.data, "
        "created = excluded.created", (match_id, version, data, now)))


def _abandon_match(c: sqlite3.Connection, match_id: int, reason: str) -> None:
    _in_tx(c, lambda c: c.execute(
        "UPDATE matches SET status = ?, ended = ?, reason = ? WHERE id = ? AND status = ?",
        (ABANDONED, time.time(), reason, match_id, RUNNING),
    ))


class Named(Protocol):
    """What :func:`seat_dict` needs of a seat (a host's :class:`server.host.common.Seat`)."""

    @property
    def name(self) -> str: ...

    @property
    def identity(self) -> str | None: ...

    @property
    def bot(self) -> str | None: ...


def seat_dict(seat: Named) -> dict[str, str | None]:
    """A seat's ``{name, identity, bot}`` mapping, as stored."""
    return {"name": seat.name, "identity": seat.identity, "bot": seat.bot}


# ---------------------------------------------------------------------------
# The directory


def used_signs(data_dir: str | os.PathLike) -> list[str]:
    """The files of :data:`USED_SIGNS` in ``data_dir``: a server used it before."""
    d = Path(data_dir).expanduser()
    return [name for name in USED_SIGNS if (d / name).exists() or (d / name).is_symlink()]


def _prepare_dir(d: Path) -> None:
    try:
        d.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise StoreError(f"the data directory {d} exists but is not a directory") from None
    except OSError as e:
        raise StoreError(f"cannot create the data directory {d}: {e.strerror or e}") from e
    if not d.is_dir():
        raise StoreError(f"the data directory {d} is not a directory")
    # Root passes os.access checks everywhere; a real file write tells the truth.
    probe = d / f".voltage-write-test-{os.getpid()}"
    try:
        with open(probe, "w") as f:
            f.write("ok")
        probe.unlink()
    except OSError as e:
        raise StoreError(f"the data directory {d} is not writable: {e.strerror or e}") from e


def _lock_dir(d: Path) -> int:
    import fcntl

    path = d / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise StoreError(f"cannot create the lock file {path}: {e.strerror or e}") from e
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        os.close(fd)
        if e.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
            raise StoreError(f"another Voltage server is using the data directory {d}") from None
        raise StoreError(f"cannot lock the data directory {d}: {e.strerror or e}") from e
    return fd


def _unlock(fd: int | None) -> None:
    if fd is not None:
        try:
            os.close(fd)  # closing drops the flock
        except OSError:
            pass
