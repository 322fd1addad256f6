"""Accepted actions are committed durably: the store's writer runs SQLite with
``synchronous=FULL`` (the WAL fsynced at every commit), so a crash or a filesystem
turned read-only after a commit cannot take back a move the players saw; with
``NORMAL`` (as before) commits since the last checkpoint could be lost."""

from __future__ import annotations

from server.store.db import Store


def test_the_writer_commits_with_synchronous_full_in_wal_mode(tmp_path):
    with Store.open(tmp_path) as store:
        sync = store.in_writer(lambda c: c.execute("PRAGMA synchronous").fetchone()[0]).result()
        mode = store.in_writer(lambda c: c.execute("PRAGMA journal_mode").fetchone()[0]).result()
        assert (sync, mode) == (2, "wal")  # 2: FULL


def test_an_action_committed_is_on_disk_for_a_second_reader_at_once(tmp_path):
    with Store.open(tmp_path) as store:
        mid = store.create_match("voltage", 5, [{"name": "A", "identity": "a"}, {"name": "B", "identity": "b"}])
        store.append_action(mid, 0, "draw")
        with Store.open(tmp_path, readonly=True, lock=False) as reader:
            assert reader.match_record(mid).actions == ("draw",)
