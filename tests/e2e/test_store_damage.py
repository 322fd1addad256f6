"""Damage never passes silently: ``voltage serve`` on a damaged database or host key says
what is wrong and exits 1 (leaving the files as they were), and a host key missing from
a used data directory is made anew with a loud warning."""

from __future__ import annotations

import sqlite3

import pytest

from server.serve import serve_main
from server.ssh.hostkey import HOST_KEY_FILE, HostKeyError, load_host_key
from server.store.db import Store, StoreError
from tests.support.process import ServerProcess


def players_db(d, n=200):
    with Store.open(d) as s:
        for i in range(n):
            s.upsert_player(f"SHA256:key-{i:03d}", f"p{i:03d}")
    c = sqlite3.connect(d / "voltage.db")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    return d / "voltage.db"


def refused(capsys, d) -> str:
    assert serve_main(port=0, data_dir=d) == 1
    err = capsys.readouterr().err
    assert err.startswith("voltage serve: ") and str(d) in err and err.count("\n") == 1, err
    return err


def test_a_zero_byte_database_is_refused_not_taken_for_a_new_one(tmp_path, capsys):
    d = tmp_path / "data"
    d.mkdir()
    (d / "voltage.db").write_bytes(b"")
    err = refused(capsys, d)
    assert "empty (0 bytes)" in err
    assert (d / "voltage.db").stat().st_size == 0  # left as it was
    with pytest.raises(StoreError, match="empty"):
        Store.open(d)


def used_directory_without_its_database(d):
    """A data directory a server used (its database, lock file and host key), then the database deleted."""
    players_db(d)
    load_host_key(d)
    for name in ("voltage.db", "voltage.db-wal", "voltage.db-shm"):
        (d / name).unlink(missing_ok=True)


def test_a_deleted_database_in_a_used_directory_is_refused_not_started_afresh(tmp_path, capsys):
    d = tmp_path / "data"
    used_directory_without_its_database(d)
    with pytest.raises(StoreError, match="is missing"):
        Store.open(d)
    err = refused(capsys, d)
    assert "voltage.db is missing" in err and "--new-store" in err and "backup" in err
    assert not (d / "voltage.db").exists()  # nothing made in its place
    # The host key alone (the lock file gone too) says the directory was used.
    (d / "voltage.lock").unlink()
    assert "ssh_host_ed25519_key" in refused(capsys, d)
    assert not (d / "voltage.db").exists()
    # A directory never used gets its first database without a word.
    with Store.open(tmp_path / "fresh") as s:
        assert s.player("SHA256:nobody") is None


def test_new_store_starts_an_empty_database_on_purpose_and_never_touches_an_existing_one(tmp_path):
    d = tmp_path / "data"
    used_directory_without_its_database(d)
    with Store.open(d, new=True) as s:
        s.upsert_player("SHA256:new", "Newcomer")
    with Store.open(d, new=True) as s:  # there is a database now: opened as it is
        assert s.player("SHA256:new") is not None and s.player("SHA256:key-001") is None


def test_new_store_is_in_the_help_of_serve_and_host(capsys):
    from voltage.cli import main

    for command in ("serve", "host"):
        assert main([command, "--help"]) == 0
        assert "--new-store" in capsys.readouterr().out


def test_garbage_pages_are_refused(tmp_path, capsys):
    db = players_db(tmp_path / "data")
    data = bytearray(db.read_bytes())
    data[8192:16384] = bytes(range(256)) * 32  # two pages of noise
    db.write_bytes(bytes(data))
    before = db.read_bytes()
    err = refused(capsys, tmp_path / "data")
    assert "damaged" in err or "not a usable" in err
    assert db.read_bytes() == before


def test_a_players_table_that_passes_quick_check_but_not_integrity_check_is_refused(tmp_path, capsys):
    db = players_db(tmp_path / "data")
    data = bytearray(db.read_bytes())
    # Garble one identity inside the players table's own row (identity then name, side by
    # side): the table's b-tree stays well formed, its primary-key index no longer matches.
    at = data.find(b"SHA256:key-123p123")
    assert at > 0
    data[at + 7: at + 10] = b"kez"
    db.write_bytes(bytes(data))
    c = sqlite3.connect(db)
    assert c.execute("PRAGMA quick_check").fetchone()[0] == "ok"  # what start-up checked before
    assert c.execute("PRAGMA integrity_check").fetchone()[0] != "ok"
    c.close()
    err = refused(capsys, tmp_path / "data")
    assert "damaged" in err and "backup" in err


def test_a_garbled_host_key_is_refused_and_kept(tmp_path, capsys):
    d = tmp_path / "data"
    Store.open(d).close()
    load_host_key(d)
    key = d / HOST_KEY_FILE
    key.write_bytes(key.read_bytes()[:60] + b"garbage" + key.read_bytes()[90:])
    before = key.read_bytes()
    with pytest.raises(HostKeyError, match="cannot be read"):
        load_host_key(d)
    err = refused(capsys, d)
    assert str(key) in err and "cannot be read" in err and "changed host key" in err
    assert key.read_bytes() == before  # never replaced


def test_a_missing_host_key_in_a_used_directory_is_made_anew_with_a_warning(tmp_path):
    d = tmp_path / "data"
    Store.open(d).close()
    first = load_host_key(d)
    (d / HOST_KEY_FILE).unlink()
    warnings: list[str] = []
    second = load_host_key(d, warn=warnings.append)
    assert second.get_fingerprint() != first.get_fingerprint()
    [w] = warnings
    assert "NEW host key" in w and "REMOTE HOST IDENTIFICATION HAS CHANGED" in w
    assert second.get_fingerprint("sha256") in w
    # A fresh directory gets its first key without a word.
    fresh: list[str] = []
    load_host_key(tmp_path / "fresh", warn=fresh.append)
    assert fresh == []


async def test_voltage_serve_warns_loudly_when_it_makes_a_new_host_key(tmp_path):
    d = tmp_path / "data"
    Store.open(d).close()
    load_host_key(d)
    (d / HOST_KEY_FILE).unlink()
    (d / (HOST_KEY_FILE + ".pub")).unlink()  # the database alone says it was used
    srv = ServerProcess(d)
    try:
        await srv.start()
    finally:
        await srv.kill()
    out = srv.out
    text = "".join(out)
    assert "WARNING" in text and "NEW host key" in text and "changed" in text.lower(), text
