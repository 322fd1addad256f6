"""Browsers linked to a key in the store: one-time codes, tokens kept as hashes, unlinking, the migration."""

import sqlite3
import time

import pytest

from server.store import browsers as B
from server.store import db as S
from server.store.db import Store, StoreError


@pytest.fixture
def store(tmp_path):
    s = Store.open(tmp_path)
    s.upsert_player("SHA256:a", "Alice")
    s.upsert_player("SHA256:b", "Bob")
    yield s
    s.close()


def test_a_code_links_one_browser_once(store):
    code = store.new_link_code("SHA256:a")
    assert len(code) == 9 and code[4] == "-"
    token, identity = store.redeem_link_code(code, "Chrome on Linux")
    assert identity == "SHA256:a"
    assert store.browser_identity(token) == "SHA256:a"
    assert store.redeem_link_code(code, "again") is None  # single use
    [browser] = store.browsers("SHA256:a")
    assert browser.label == "Chrome on Linux" and store.browsers("SHA256:b") == []


def test_a_code_is_read_as_a_person_types_it(store):
    code = store.new_link_code("SHA256:a")
    typed = f" {code.replace('-', ' ').lower()} ".replace("0", "o").replace("1", "l")
    assert store.redeem_link_code(typed, "") is not None


def test_wrong_codes_and_tokens_link_nothing(store):
    store.new_link_code("SHA256:a")
    for guess in ("", "ABCD-EFGH", "x" * 5000, "ABCD-EFG!", "ÀBCD-EFGH"):
        assert store.redeem_link_code(guess, "") is None
    assert store.browser_identity("") is None
    assert store.browser_identity("no such token") is None
    assert store.browser_identity("x" * 10_000) is None


def test_an_expired_code_links_nothing(store):
    code = store.new_link_code("SHA256:a", ttl=-1)
    assert store.redeem_link_code(code, "") is None


def test_a_new_code_replaces_the_last_one(store):
    first = store.new_link_code("SHA256:a")
    second = store.new_link_code("SHA256:a")
    assert store.redeem_link_code(first, "") is None
    assert store.redeem_link_code(second, "") is not None


def test_only_a_known_key_gets_a_code(store):
    with pytest.raises(StoreError):
        store.new_link_code("SHA256:stranger")
    with pytest.raises(StoreError):
        store.new_link_code("")


def test_unlink_forgets_every_browser_of_the_key(store):
    tokens = [store.redeem_link_code(store.new_link_code("SHA256:a"), f"browser {i}")[0] for i in range(3)]
    bob = store.redeem_link_code(store.new_link_code("SHA256:b"), "Bob's")[0]
    assert store.unlink_browsers("SHA256:a") == 3
    assert all(store.browser_identity(t) is None for t in tokens)
    assert store.browser_identity(bob) == "SHA256:b"
    assert store.unlink_browsers("SHA256:a") == 0


def test_a_key_keeps_at_most_so_many_browsers_dropping_the_least_used(store):
    tokens = []
    for i in range(B.MAX_BROWSERS + 2):
        tokens.append(store.redeem_link_code(store.new_link_code("SHA256:a"), f"browser {i}")[0])
        time.sleep(0.001)
    assert len(store.browsers("SHA256:a")) == B.MAX_BROWSERS
    assert store.browser_identity(tokens[0]) is None and store.browser_identity(tokens[-1]) == "SHA256:a"


def test_links_survive_a_restart_and_the_database_holds_no_secret(tmp_path):
    with Store.open(tmp_path) as s:
        s.upsert_player("SHA256:a", "Alice")
        token, _ = s.redeem_link_code(s.new_link_code("SHA256:a"), "Firefox on Android")
        code = s.new_link_code("SHA256:a")
    with Store.open(tmp_path) as s:
        assert s.browser_identity(token) == "SHA256:a"
        assert [b.label for b in s.browsers("SHA256:a")] == ["Firefox on Android"]
        assert s.redeem_link_code(code, "") is not None
    dump = "\n".join(sqlite3.connect(tmp_path / "voltage.db").iterdump())
    assert token not in dump and code not in dump and code.replace("-", "") not in dump
    assert B.secret_hash(token) in dump


def test_a_v4_store_migrates_and_keeps_its_players(tmp_path):
    db = tmp_path / "voltage.db"
    c = sqlite3.connect(db, isolation_level=None)
    c.executescript("\n".join(S.MIGRATIONS[:4]) + "\nPRAGMA user_version = 4;")
    c.execute("INSERT INTO players VALUES ('SHA256:a', 'Alice', 1.0, 2.0)")
    c.execute("INSERT INTO names VALUES ('alice', 'Alice', 'SHA256:a', 1.0)")
    c.close()
    with Store.open(tmp_path) as s:
        assert s.schema_version == S.SCHEMA_VERSION >= 6  # (5 made the browsers' tables)
        assert s.browsers("SHA256:a") == []
        assert s.redeem_link_code(s.new_link_code("SHA256:a"), "x") is not None
