"""Lookalike names: with ``Alice`` owned by a key (or online), ``AIice`` (capital i), ``A1ice`` or ``ALICE``
is refused, saying which name it looks like; names that only share letters are not."""

from __future__ import annotations

import pytest

from server.confusables import PROTOTYPES, alike, skeleton
from server.lobby.core import Lobby
from server.lobby.models import NameRejected
from server.store.db import NameLookalike, Store
from tests.support.words import refused, said

KEY, OTHER = "SHA256:alice-key", "SHA256:other-key"


@pytest.mark.parametrize(
    "a, b",
    [("Alice", "AIice"), ("Alice", "A1ice"), ("Alice", "A|ice"), ("Alice", "aIice"), ("Alice", "ALICE"),
     ("Bob", "B0b"), ("Bob", "BOB"), ("Bob", "b0B"), ("Mary", "rnary"), ("Sam", "Sarn"), ("Tom", "T0rn"),
     ("Ian", "lan"), ("Ola", "0la"), ("Alice", "Аlice"), ("Bob", "Вob"), ("Ola", "Οla")],
)
def test_lookalikes_share_a_skeleton(a, b):
    assert alike(a, b) and alike(b, a)


@pytest.mark.parametrize("a, b", [("Alice", "Alicia"), ("Kai", "Kal"), ("Eli", "Ell"), ("Bob", "Rob"),
                                  ("Dara", "Clara"), ("ian", "lan"), ("Anna", "Ana")])
def test_names_that_merely_share_letters_are_not_alike(a, b):
    assert not alike(a, b)


def test_the_table_is_data_every_prototype_a_character_a_name_may_hold():
    # (a prototype that could never be typed in a name would fold nothing)
    assert all(len(k) == 1 for k in PROTOTYPES)
    assert all(skeleton(v) == skeleton(skeleton(v)) for v in PROTOTYPES.values())


def test_a_name_that_looks_like_one_a_key_owns_is_refused_for_keys_and_guests(tmp_path):
    with Store.open(tmp_path) as store:
        store.upsert_player(KEY, "Alice")
        store.upsert_player(OTHER, "Bob")
        for name in ("AIice", "A1ice", "aIice"):
            with pytest.raises(NameLookalike) as info:
                store.upsert_player("SHA256:third", name)
            assert said(info.value) == f"{name} looks too much like Alice, a name already taken: choose another"
            assert not store.name_free_for(name, None)
        assert store.name_like("B0b", None) == "Bob" and store.name_like("B0b", OTHER) is None
        # Its owner may go by a lookalike of its own name; the old one is free once it has.
        store.upsert_player(OTHER, "B0b", cooldown=0)
        assert store.name_like("Bob", None) == "B0b" and store.name_like("Bobby", None) is None
    with Store.open(tmp_path) as store:  # the same after a restart (read back from the names table)
        assert store.name_like("AIice", None) == "Alice" and store.name_like("BOB", None) == "B0b"


def test_the_lobby_refuses_a_lookalike_of_a_name_online_or_owned_and_never_suggests_one(tmp_path):
    with Store.open(tmp_path) as store:
        lobby = Lobby(store=store, bot_delay=0.0, seed=1)
        alice = lobby.connect(KEY, "Alice")
        lobby.claim_name(alice, "Alice")
        guest = lobby.connect(None, "AIice")
        with refused("AIice looks too much like Alice", NameRejected):
            lobby.claim_name(guest, "AIice")
        assert lobby.suggest_name("AIice", guest) != "AIice"
        lobby.leave(alice)  # offline now, still owned by its key
        with refused("A1ice looks too much like Alice", NameRejected):
            lobby.claim_name(guest, "A1ice")
        other_key = lobby.connect(OTHER, "A1ice")
        with refused("looks too much like Alice", NameRejected):
            lobby.claim_name(other_key, "A1ice")
        # Online only (a guest's name, kept nowhere): B0b while Bob is here.
        bob = lobby.connect(None, "Bob")
        lobby.claim_name(bob, "Bob")
        with refused("B0b looks too much like Bob", NameRejected):
            lobby.claim_name(guest, "B0b")
        assert lobby.claim_name(guest, "Bobby") == "Bobby"
        # The key's own second session may take its own name (and so the first gives way).
        again = lobby.connect(KEY, "Alice")
        assert lobby.claim_name(again, "Alice") == "Alice"
