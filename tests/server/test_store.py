"""The SQLite store: opening, migrations, bad data directories, players, matches."""

import json
import os
import sqlite3

import pytest

from server.store import db as S
from server.store.db import NameTaken, NotFound, RenameTooSoon, Store, StoreError
from server.store.persist import export_json
from tests.support.words import refused

SEATS = [{"name": "Alice", "identity": "SHA256:a"}, {"name": "Bob", "identity": "SHA256:b"}]


@pytest.fixture
def store(tmp_path):
    s = Store.open(tmp_path)
    yield s
    s.close()


def test_a_new_directory_gets_a_wal_database_at_the_latest_version(tmp_path):
    d = tmp_path / "deep" / "data"
    with Store.open(d) as s:
        assert s.schema_version == S.SCHEMA_VERSION >= 2
        assert (d / "voltage.db").is_file()
        mode = sqlite3.connect(d / "voltage.db").execute("PRAGMA journal_mode").fetchone()[0]
        assert mode == "wal"


def test_reopening_keeps_the_data(tmp_path):
    with Store.open(tmp_path) as s:
        s.upsert_player("SHA256:a", "Alice")
        mid = s.create_match("voltage", 7, SEATS)
        s.append_action(mid, 0, "draw")
    with Store.open(tmp_path) as s:
        assert s.player("SHA256:a").name == "Alice"
        assert s.match_record(mid).actions == ("draw",)


def test_migration_from_schema_v1_keeps_players_ratings_and_matches(tmp_path):
    db = tmp_path / "voltage.db"
    c = sqlite3.connect(db, isolation_level=None)
    c.executescript(S.MIGRATIONS[0] + "\nPRAGMA user_version = 1;")
    c.execute("INSERT INTO players VALUES ('SHA256:a', 'Alice', 1.0, 2.0)")
    c.execute("INSERT INTO names VALUES ('alice', 'Alice', 'SHA256:a', 1.0)")
    c.execute("INSERT INTO ratings VALUES ('SHA256:a', 'voltage', 30.0, 5.0, 3, 2.0)")
    c.execute("INSERT INTO matches (id, game, seed, started) VALUES (4, 'voltage', '99', 1.0)")
    c.execute("INSERT INTO seats VALUES (4, 0, 'Alice', 'SHA256:a', NULL, NULL)")
    c.execute("INSERT INTO seats VALUES (4, 1, 'Bot', NULL, 'random', NULL)")
    c.execute("INSERT INTO actions VALUES (4, 0, 'draw')")
    c.close()
    with Store.open(tmp_path) as s:
        assert s.schema_version == S.SCHEMA_VERSION
        assert s.name_owner("ALICE") == "SHA256:a"
        assert s.rating("SHA256:a", "voltage") == (30.0, 5.0, 3)
        # The v1 rating is carried over as the first point of the history.
        [point] = s.rating_history("SHA256:a", "voltage")
        assert (point.match_id, point.mu, point.sigma) == (None, 30.0, 5.0)
        [rec] = s.unfinished_matches()
        assert rec.id == 4 and rec.seed == 99 and rec.actions == ("draw",)
        # and the store works on the migrated file (a match with a bot: not rated)
        s.finish_match(4, [1, 2], "resignation", [0, 0])
        assert s.match_record(4).finished and len(s.rating_history("SHA256:a", "voltage")) == 1


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path):
    (tmp_path / "voltage.db").write_bytes(b"this is not sqlite at all\n" * 200)
    with refused("not a usable Voltage database", StoreError):
        Store.open(tmp_path)
    # and it is left alone, not replaced by an empty database
    assert (tmp_path / "voltage.db").read_bytes().startswith(b"this is not sqlite")


def test_a_damaged_database_is_a_clear_error(tmp_path):
    with Store.open(tmp_path) as s:
        for i in range(200):
            s.upsert_player(f"SHA256:{i}", f"player {i}")
    db = tmp_path / "voltage.db"
    sqlite3.connect(db).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    data = bytearray(db.read_bytes())
    assert len(data) > 8192
    data[4096:8192] = b"\xff" * 4096  # wreck the second page
    db.write_bytes(bytes(data))
    with pytest.raises(StoreError) as e:
        Store.open(tmp_path)
    assert str(db) in str(e.value)


def test_another_programs_database_is_refused(tmp_path):
    c = sqlite3.connect(tmp_path / "voltage.db")
    c.execute("CREATE TABLE stuff (x)")
    c.commit()
    c.close()
    with refused("not one of Voltage's", StoreError):
        Store.open(tmp_path)


def test_a_newer_schema_is_refused(tmp_path):
    c = sqlite3.connect(tmp_path / "voltage.db")
    c.execute(f"PRAGMA user_version = {S.SCHEMA_VERSION + 1}")
    c.close()
    with refused("newer than this Voltage knows", StoreError):
        Store.open(tmp_path)


def test_a_data_directory_that_is_a_file_is_a_clear_error(tmp_path):
    f = tmp_path / "data"
    f.write_text("x")
    with refused("not a directory", StoreError):
        Store.open(f)
    with refused("cannot create the data directory", StoreError):
        Store.open(f / "sub")


def test_an_unwritable_directory_is_a_clear_error(tmp_path):
    if os.geteuid() != 0:
        d = tmp_path / "ro"
        d.mkdir()
        d.chmod(0o500)
        try:
            with refused("not writable", StoreError):
                Store.open(d)
        finally:
            d.chmod(0o700)
        return
    # Root can write anywhere: check as an unprivileged user, in a forked child that
    # drops root, on a directory it may enter but not write (CI runs as root: no skip).
    import pwd
    import tempfile
    from pathlib import Path

    nobody = pwd.getpwnam("nobody")
    d = Path(tempfile.mkdtemp(prefix="voltage-ro-"))
    read, write = os.pipe()
    try:
        d.chmod(0o755)
        pid = os.fork()
        if pid == 0:  # the child: nobody, trying to open the store there
            try:
                os.setgid(nobody.pw_gid)
                os.setuid(nobody.pw_uid)
                try:
                    Store.open(d)
                    message = "opened"
                except StoreError as e:
                    message = str(e)
                os.write(write, message.encode())
            finally:
                os._exit(0)
        os.close(write)
        os.waitpid(pid, 0)
        with os.fdopen(read) as f:
            message = f.read()
        assert "not writable" in message, message
    finally:
        d.rmdir()


def test_two_servers_cannot_share_a_directory(tmp_path):
    with Store.open(tmp_path):
        with refused("another Voltage server", StoreError):
            Store.open(tmp_path)
        # a read-only look (voltage replay) is fine
        with Store.open(tmp_path, readonly=True) as ro:
            assert ro.schema_version == S.SCHEMA_VERSION
    Store.open(tmp_path).close()  # the lock goes with the store


def test_readonly_needs_an_existing_database(tmp_path):
    with refused("no Voltage database", StoreError):
        Store.open(tmp_path, readonly=True)


def test_a_name_is_reserved_to_the_first_key_that_used_it(store):
    store.upsert_player("SHA256:a", "Alice")
    assert store.name_owner("alice") == "SHA256:a"
    assert store.name_owner("ＡＬＩＣＥ") == "SHA256:a"  # full-width letters fold too
    with pytest.raises(NameTaken):
        store.upsert_player("SHA256:b", "ALICE")
    assert not store.name_free_for("Alice", None)  # guests neither
    assert store.name_free_for("Alice", "SHA256:a")
    # Alice may change name (here with no cool-down); a key holds one name, so the old one is free
    store.upsert_player("SHA256:a", "Alicia", cooldown=0)
    assert store.player("SHA256:a").name == "Alicia"
    assert store.name_owner("Alice") is None and store.name_owner("alicia") == "SHA256:a"
    store.upsert_player("SHA256:b", "Alice")
    assert store.name_owner("Alice") == "SHA256:b"


def test_a_key_holds_one_name_and_renames_wait_for_the_cool_down(store):
    """One key once reserved 30 names in 18 s, each for good.  A key's first name (often a
    guess: its login's) may be changed at once; a name taken by a rename holds an hour."""
    store.upsert_player("SHA256:a", "root")
    assert store.rename_wait("SHA256:a") == 0
    store.upsert_player("SHA256:a", "Alice")
    assert 3500 < store.rename_wait("SHA256:a") <= 3600
    store.upsert_player("SHA256:a", "ALICE ")  # the same name: no rename
    for n in range(30):
        with refused("less than an hour ago", RenameTooSoon):
            store.upsert_player("SHA256:a", f"squat{n}")
    assert store.player("SHA256:a").name == "ALICE "
    assert [store.name_owner(f"squat{n}") for n in range(30)] == [None] * 30
    assert store.name_owner("alice") == "SHA256:a"


def test_touch_player_moves_last_seen(store):
    p = store.upsert_player("SHA256:a", "Alice")
    store.touch_player("SHA256:a")
    assert store.player("SHA256:a").last_seen >= p.last_seen
    store.touch_player("nobody")  # no error, nothing stored
    assert store.player("nobody") is None


def test_action_log_round_trip(store):
    mid = store.create_match("voltage", 2**63 - 1, SEATS, code="ABCD")
    texts = ["draw", "flip orange", "play 3o orange 0", "resign 1"]
    for i, t in enumerate(texts):
        store.append_action(mid, i, t)
    rec = store.match_record(mid)
    assert rec.actions == tuple(texts)
    assert rec.seed == 2**63 - 1 and rec.code == "ABCD" and rec.status == "running"
    assert [s.name for s in rec.seats] == ["Alice", "Bob"]
    with pytest.raises(StoreError):
        store.append_action(mid, 1, "draw")  # an index is written once
    assert store.match_record(mid + 1) is None


def test_finished_matches_leave_the_unfinished_list(store):
    a = store.create_match("voltage", 1, SEATS)
    b = store.create_match("voltage", 2, SEATS)
    c = store.create_match("voltage", 3, SEATS)
    store.finish_match(a, [1, 2], "four sets", [4, 1])
    store.abandon_match(c, "test")
    assert [r.id for r in store.unfinished_matches()] == [b]
    assert store.match_record(a).winners == (0,)
    assert store.finish_match(a, [2, 1]) == []  # a second result is ignored
    assert store.match_record(a).winners == (0,)


def test_player_history_is_newest_first_and_only_finished(store):
    store.upsert_player("SHA256:a", "Alice")
    ids = []
    for seed in range(3):
        mid = store.create_match("voltage", seed, SEATS)
        store.finish_match(mid, [1, 2] if seed % 2 else [2, 1], "four sets", [4, 2])
        ids.append(mid)
    store.create_match("voltage", 9, SEATS)  # still running
    hist = store.player_history("SHA256:a")
    assert [r.id for r in hist] == ids[::-1]
    assert hist[0].actions is None and hist[0].seat_of("SHA256:a") == 0
    assert store.player_history("SHA256:a", limit=1)[0].id == ids[-1]
    assert store.player_history("SHA256:nobody") == []


def test_export_json_has_seed_actions_players_and_result(store):
    store.upsert_player("SHA256:a", "Alice")
    mid = store.create_match("voltage", 42, [SEATS[0], {"name": "Robot", "bot": "random"}])
    store.append_action(mid, 0, "resign 0")
    with refused("not finished", StoreError):
        export_json(store, mid)  # the seed of a running match would show every hand
    store.finish_match(mid, [2, 1], "resignation", [0, 0])
    data = json.loads(export_json(store, mid))
    assert data["seed"] == 42 and data["actions"] == ["resign 0"] and data["game"] == "voltage"
    assert [p["name"] for p in data["players"]] == ["Alice", "Robot"]
    assert data["players"][1]["bot"] == "random"
    assert "identity" not in data["players"][0]
    assert data["result"] == {"winners": [1], "ranks": [2, 1], "reason": "resignation", "scores": [0, 0]}
    assert "rating" not in data["players"][0] and data["rated"] is False  # (a match with a bot is not rated)
    mid = store.create_match("voltage", 43, [SEATS[0], {"name": "Bob", "identity": "SHA256:b"}])
    store.upsert_player("SHA256:b", "Bob")
    store.append_action(mid, 0, "resign 0")
    store.finish_match(mid, [2, 1], "resignation", [0, 0])
    data = json.loads(export_json(store, mid))
    assert data["players"][0]["rating"]["after"] < data["players"][0]["rating"]["before"] and data["rated"]
    with pytest.raises(NotFound):
        export_json(store, mid + 100)
