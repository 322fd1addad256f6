"""Storage: players, names, ratings, matches and their action logs, in SQLite.

One file, ``voltage.db`` in the data directory, in WAL mode; nothing else to
run.  :meth:`Store.open` creates or validates it and applies the schema
migrations (``PRAGMA user_version`` counts the ones applied).  Every problem
at start is a :class:`StoreError` with a sentence a person can act on: a file
that is not a database, a directory that cannot be written, a schema newer
than this code, a second server on the same directory.  It never quietly
starts an empty database in place of one it could not read.

Durability: each call is its own small transaction, committed before it
returns.  With ``synchronous=NORMAL`` in WAL mode a committed transaction
survives the process being killed (SIGTERM, SIGKILL, a crash); only a power
loss or OS crash may lose the last few.  So :meth:`append_action`, called
before the screens are told, is what makes "nothing lost" true.

The API (all synchronous, a few tens of microseconds per write; safe to call
from the event loop; one lock serialises threads):

- ``Store.open(data_dir, *, readonly=False)`` -> Store; ``close()``.
- Players (guests are never stored): ``upsert_player(identity, name)`` (raises
  :class:`NameTaken`), ``name_owner(name)``, ``name_free_for(name, identity)``,
  ``touch_player(identity)``, ``player(identity)``.
- Matches: ``create_match(game, seed, seats, code)`` -> id,
  ``append_action(id, index, text)``, ``finish_match(id, ranks, reason,
  scores)`` -> rating changes (rates and records in one transaction),
  ``abandon_match(id, reason)``, ``unfinished_matches()``,
  ``match_record(id)``, ``export_json(id)``, ``player_history(identity)``.
- Ratings: ``rating(identity, game)``, ``leaderboard(game, n)``,
  ``rating_history(identity, game)``, ``rating_changes(match_id)``, ``games()``.

Names are reserved case-insensitively (after Unicode NFKC folding): once a key
has used a name, only that key may use it again.  A player keeps every name
they have used; ``players.name`` is the latest.

Schema versions (see :data:`MIGRATIONS`):

1. players, names, ratings (current mu/sigma per game), matches, seats,
   actions, meta.
2. rating_history: one row per rating change (match, before, after), for the
   results screen's change and the leaderboard's sparklines.  Existing
   ratings are carried over as a first point with no match.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import sqlite3
import threading
import time
import unicodedata
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping, Sequence

from . import ratings as R

log = logging.getLogger(__name__)

DB_NAME = "voltage.db"
LOCK_NAME = "voltage.lock"

RUNNING = "running"
FINISHED = "finished"
ABANDONED = "abandoned"


class StoreError(Exception):
    """The data directory or database cannot be used; the message says why."""


class NameTaken(StoreError):
    """The name is reserved to another key."""


class RenameTooSoon(StoreError):
    """The key took its current name too recently to take another; ``wait`` seconds left."""

    def __init__(self, current: str, wait: float) -> None:
        self.current = current
        self.wait = wait
        minutes = max(1, int(wait / 60 + 0.999))
        super().__init__(f"you took the name {current} less than {RENAME_COOLDOWN_TEXT} ago: "
                         f"a new name is possible in {minutes} minute{'s' if minutes != 1 else ''}")


# A key holds one name (its current one); it may take another this long after taking it,
# so that nobody reserves names in bulk (one key once took 30 in 18 s).
RENAME_COOLDOWN = 3600.0
RENAME_COOLDOWN_TEXT = "an hour"


class NotFound(StoreError):
    """No such match (or player)."""


# ---------------------------------------------------------------------------
# Schema


MIGRATIONS: tuple[str, ...] = (
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
)
SCHEMA_VERSION = len(MIGRATIONS)


def fold_name(name: str) -> str:
    """The form names are compared in: NFKC, case-folded, inner spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


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

    @property
    def finished(self) -> bool:
        return self.status == FINISHED

    @property
    def ranks(self) -> tuple[int | None, ...]:
        return tuple(s.rank for s in self.seats)

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats ranked first (several on a tie; empty before the end)."""
        return tuple(s.seat for s in self.seats if s.rank == 1)

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


def _connect(path: Path, *, readonly: bool) -> sqlite3.Connection:
    uri = f"file:{path}?mode=ro" if readonly else f"file:{path}?mode=rwc"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=5.0)
    conn.row_factory = sqlite3.Row
    return conn


class Store:
    """The data directory's database.  Build it with :meth:`open`."""

    def __init__(self, conn: sqlite3.Connection, path: Path, lock_fd: int | None, readonly: bool) -> None:
        self._conn = conn
        self.path = path
        self.readonly = readonly
        self._lock_fd = lock_fd
        self._mutex = threading.RLock()

    # -- opening -------------------------------------------------------------

    @classmethod
    def open(cls, data_dir: str | os.PathLike, *, readonly: bool = False, lock: bool = True) -> Store:
        """Open (creating if need be) ``data_dir/voltage.db`` and migrate it.

        ``readonly`` opens an existing database without writing (``voltage
        replay`` next to a running server).  ``lock`` (read-write only) takes
        an exclusive lock on the directory so two servers never share it.
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
        lock_fd = None if readonly or not lock else _lock_dir(d)
        try:
            conn = _connect(path, readonly=readonly)
        except sqlite3.Error as e:
            _unlock(lock_fd)
            raise StoreError(f"cannot open the database {path}: {e}") from e
        store = cls(conn, path, lock_fd, readonly)
        try:
            store._setup()
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
            check = c.execute("PRAGMA quick_check").fetchone()[0]
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
            c.execute("PRAGMA synchronous=NORMAL")
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
            # executescript commits first; run the whole step in one transaction.
            try:
                c.executescript(f"BEGIN IMMEDIATE;\n{MIGRATIONS[v]}\nPRAGMA user_version = {v + 1};\nCOMMIT;")
            except sqlite3.Error as e:
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
        with self._mutex:
            try:
                self._conn.close()
            finally:
                _unlock(self._lock_fd)
                self._lock_fd = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (taken at once, so it never fails half-way on a lock)."""
        with self._mutex:
            c = self._conn
            c.execute("BEGIN IMMEDIATE")
            try:
                yield c
            except BaseException:
                c.execute("ROLLBACK")
                raise
            else:
                c.execute("COMMIT")

    def _q(self, sql: str, args: Sequence | Mapping = ()) -> list[sqlite3.Row]:
        with self._mutex:
            return self._conn.execute(sql, args).fetchall()

    # -- players -------------------------------------------------------------

    def name_owner(self, name: str) -> str | None:
        """The identity that reserved ``name`` (compared folded), or ``None``."""
        rows = self._q("SELECT identity FROM names WHERE name_key = ?", (fold_name(name),))
        return rows[0]["identity"] if rows else None

    def name_free_for(self, name: str, identity: str | None) -> bool:
        """May ``identity`` (``None``: a guest) go by ``name``?"""
        owner = self.name_owner(name)
        return owner is None or owner == identity

    def upsert_player(self, identity: str, name: str, *, cooldown: float = RENAME_COOLDOWN) -> PlayerRecord:
        """Record that ``identity`` is here as ``name``, reserving the name to it.

        A key holds one name: taking a new one releases the old one, and is refused
        with :class:`RenameTooSoon` within ``cooldown`` seconds of taking the current
        one (a change of case or spacing is no new name).  Raises :class:`NameTaken`
        if another key holds ``name``.  Never call this for guests: they are not stored.
        """
        if not identity:
            raise ValueError("a player needs an identity")
        key = fold_name(name)
        if not key:
            raise ValueError("a player needs a name")
        now = time.time()
        with self._tx() as c:
            row = c.execute("SELECT identity FROM names WHERE name_key = ?", (key,)).fetchone()
            if row is not None and row["identity"] != identity:
                raise NameTaken(f"the name {name!r} belongs to another player")
            if row is None:
                held = c.execute("SELECT name, claimed FROM names WHERE identity = ? ORDER BY claimed DESC",
                                 (identity,)).fetchone()
                if held is not None and now - held["claimed"] < cooldown:
                    raise RenameTooSoon(held["name"], cooldown - (now - held["claimed"]))
                c.execute("DELETE FROM names WHERE identity = ?", (identity,))
            c.execute(
                "INSERT INTO players (identity, name, created, last_seen) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(identity) DO UPDATE SET name = excluded.name, last_seen = excluded.last_seen",
                (identity, name, now, now),
            )
            if row is None:
                c.execute(
                    "INSERT INTO names (name_key, name, identity, claimed) VALUES (?, ?, ?, ?)",
                    (key, name, identity, now),
                )
            r = c.execute("SELECT * FROM players WHERE identity = ?", (identity,)).fetchone()
        return PlayerRecord(r["identity"], r["name"], r["created"], r["last_seen"])

    def touch_player(self, identity: str) -> None:
        """Note that ``identity`` was just seen (no-op for an unknown identity)."""
        with self._tx() as c:
            c.execute("UPDATE players SET last_seen = ? WHERE identity = ?", (time.time(), identity))

    def player(self, identity: str) -> PlayerRecord | None:
        rows = self._q("SELECT * FROM players WHERE identity = ?", (identity,))
        if not rows:
            return None
        r = rows[0]
        return PlayerRecord(r["identity"], r["name"], r["created"], r["last_seen"])

    # -- matches -------------------------------------------------------------

    def create_match(self, game: str, seed: int, seats: Sequence[Mapping], code: str = "") -> int:
        """Record a new match and return its id.

        ``seats`` are mappings with ``name`` and optional ``identity`` / ``bot``
        (a :class:`server.match.Seat` works through :func:`seat_dict`).
        """
        if not 2 <= len(seats) <= 4:
            raise ValueError("a match has 2 to 4 seats")
        now = time.time()
        with self._tx() as c:
            cur = c.execute(
                "INSERT INTO matches (game, seed, code, status, started) VALUES (?, ?, ?, ?, ?)",
                (game, str(int(seed)), code or "", RUNNING, now),
            )
            match_id = int(cur.lastrowid)  # type: ignore[arg-type]
            c.executemany(
                "INSERT INTO seats (match_id, seat, name, identity, bot) VALUES (?, ?, ?, ?, ?)",
                [
                    (match_id, i, str(s["name"]), s.get("identity"), s.get("bot"))
                    for i, s in enumerate(seats)
                ],
            )
        return match_id

    def append_action(self, match_id: int, index: int, action: str) -> None:
        """Store action number ``index`` (0-based) of a running match; committed on return."""
        try:
            with self._tx() as c:
                c.execute(
                    "INSERT INTO actions (match_id, idx, action) VALUES (?, ?, ?)",
                    (match_id, index, action),
                )
        except sqlite3.IntegrityError as e:
            raise StoreError(f"match {match_id}: cannot store action {index} ({e})") from e

    def finish_match(
        self,
        match_id: int,
        ranks: Sequence[int],
        reason: str = "",
        scores: Sequence[int] | None = None,
        *,
        rated: bool = True,
    ) -> list[R.Change]:
        """Record the result of a running match and, if ``rated``, update the ratings.

        ``ranks[seat]`` is each seat's finishing place (1 = first, equal
        numbers tie).  The result, the new ratings and their history go in one
        transaction, so a crash can never rate a match twice.  Returns the
        rating changes (empty if nothing was rated, or the match was already
        finished).
        """
        with self._tx() as c:
            m = c.execute("SELECT game, status FROM matches WHERE id = ?", (match_id,)).fetchone()
            if m is None:
                raise NotFound(f"no match {match_id}")
            if m["status"] != RUNNING:
                return []
            seats = c.execute(
                "SELECT seat, identity, bot FROM seats WHERE match_id = ? ORDER BY seat", (match_id,)
            ).fetchall()
            if len(ranks) != len(seats):
                raise ValueError(f"match {match_id} has {len(seats)} seats, got {len(ranks)} ranks")
            now = time.time()
            c.execute(
                "UPDATE matches SET status = ?, ended = ?, reason = ?, scores = ? WHERE id = ?",
                (FINISHED, now, reason, json.dumps(list(scores)) if scores is not None else None, match_id),
            )
            c.executemany(
                "UPDATE seats SET rank = ? WHERE match_id = ? AND seat = ?",
                [(int(r), match_id, s["seat"]) for s, r in zip(seats, ranks)],
            )
            if not rated:
                return []
            game = m["game"]
            entrants = []
            for s, r in zip(seats, ranks):
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
                        rank=int(r),
                        identity=ident if registered else None,
                        bot=s["bot"],
                        rating=rating,
                    )
                )
            changes = R.rate(game, entrants)
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

    def abandon_match(self, match_id: int, reason: str) -> None:
        """Mark a running match as given up (not rated, not restored, not replayable)."""
        with self._tx() as c:
            c.execute(
                "UPDATE matches SET status = ?, ended = ?, reason = ? WHERE id = ? AND status = ?",
                (ABANDONED, time.time(), reason, match_id, RUNNING),
            )

    def unfinished_matches(self) -> list[MatchRecord]:
        """Every running match with its seats and actions, oldest first (for restore)."""
        ids = [r["id"] for r in self._q("SELECT id FROM matches WHERE status = ? ORDER BY id", (RUNNING,))]
        return [rec for i in ids if (rec := self.match_record(i)) is not None]

    def match_record(self, match_id: int, *, actions: bool = True) -> MatchRecord | None:
        """The match ``match_id`` with its seats (and actions), or ``None``."""
        with self._mutex:
            rows = self._q("SELECT * FROM matches WHERE id = ?", (match_id,))
            if not rows:
                return None
            return self._record(rows[0], actions)

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
        acts = None
        if with_actions:
            rows = self._q("SELECT idx, action FROM actions WHERE match_id = ? ORDER BY idx", (m["id"],))
            for n, r in enumerate(rows):
                if r["idx"] != n:
                    raise StoreError(f"match {m['id']}: the action log has a gap at {n}")
            acts = tuple(r["action"] for r in rows)
        return MatchRecord(
            id=m["id"],
            game=m["game"],
            seed=int(m["seed"]),
            code=m["code"],
            status=m["status"],
            started=m["started"],
            ended=m["ended"],
            reason=m["reason"],
            scores=tuple(json.loads(m["scores"])) if m["scores"] else None,
            seats=seats,
            actions=acts,
        )

    def export(self, match_id: int, *, identities: bool = False) -> dict:
        """A finished match as plain data: seed, actions, players, result.

        Raises :class:`NotFound` for an unknown match and :class:`StoreError`
        for one not finished (its seed would reveal every hand).  Key
        fingerprints are left out unless ``identities``.
        """
        rec = self.match_record(match_id)
        if rec is None:
            raise NotFound(f"no match {match_id}")
        if not rec.finished:
            raise StoreError(f"match {match_id} is not finished ({rec.status}); only finished matches are exported")
        players = []
        for s in rec.seats:
            p: dict = {"seat": s.seat, "name": s.name, "bot": s.bot, "rank": s.rank}
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
            "version": 1,
            "id": rec.id,
            "game": rec.game,
            "seed": rec.seed,
            "code": rec.code,
            "started": rec.started,
            "ended": rec.ended,
            "players": players,
            "actions": list(rec.actions or ()),
            "result": {
                "winners": list(rec.winners),
                "ranks": list(rec.ranks),
                "reason": rec.reason,
                "scores": list(rec.scores) if rec.scores is not None else None,
            },
        }

    def export_json(self, match_id: int, *, identities: bool = False) -> str:
        """:meth:`export` as indented JSON text (ends with a newline)."""
        return json.dumps(self.export(match_id, identities=identities), indent=2, ensure_ascii=False) + "\n"

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

    # -- ratings -------------------------------------------------------------

    def rating(self, identity: str, game: str) -> tuple[float, float, int] | None:
        """``(mu, sigma, games)`` of ``identity`` in ``game``, or ``None`` if unrated."""
        rows = self._q("SELECT mu, sigma, games FROM ratings WHERE identity = ? AND game = ?", (identity, game))
        return (rows[0]["mu"], rows[0]["sigma"], rows[0]["games"]) if rows else None

    def games(self) -> list[str]:
        """Every game with at least one rated player, sorted."""
        return [r["game"] for r in self._q("SELECT DISTINCT game FROM ratings ORDER BY game")]

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


def seat_dict(seat: object) -> dict:
    """A ``{name, identity, bot}`` mapping from anything with those attributes."""
    return {
        "name": getattr(seat, "name"),
        "identity": getattr(seat, "identity", None),
        "bot": getattr(seat, "bot", None),
    }


# ---------------------------------------------------------------------------
# The directory


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
