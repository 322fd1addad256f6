"""A store with people and finished matches in it, for tests of what a server, a lobby or a screen
reads back: Alice and Bob (keys ``KA``, ``KB``) and seeded random Voltage matches between them.

The ``store`` fixture (Alice and Bob stored, in the test's own directory) is loaded for every test
folder by the root conftest; a test file that needs another store defines its own ``store``."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from engine.voltage import rules as V
from server.store.db import Store

KA, KB = "SHA256:alice", "SHA256:bob"


def finished_match(store: Store, seed: int, names: Sequence[str] = ("Alice", "Bob"),
                   idents: Sequence[str | None] = (KA, KB)) -> int:
    """A seeded random Voltage match between ``names`` played to its end and stored; its id."""
    rng = random.Random(seed)
    s = V.new_match(seed)
    mid = store.create_match("voltage", seed, [{"name": n, "identity": i} for n, i in zip(names, idents, strict=True)])
    n = 0
    while not s.over:
        a = rng.choice(V.legal_actions(s))
        store.append_action(mid, n, a.text())
        s, _ = V.apply(s, a)
        n += 1
    store.finish_match(mid, [1, 2] if s.winner == 0 else [2, 1] if s.winner == 1 else [1, 1], s.reason, s.scores)
    return mid


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """Alice and Bob stored."""
    s = Store.open(tmp_path)
    s.upsert_player(KA, "Alice")
    s.upsert_player(KB, "Bob")
    yield s
    s.close()
