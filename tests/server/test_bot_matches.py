"""Matches with a bot are not rated: the lobby's bot matches change no rating, a key's
record against each bot level shows in "Your matches" instead, and a store written by an
older version (which rated them) has its ratings recomputed from the matches between
people alone."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from server import ratings as R
from server.backend import SSHBackend
from server.store import db as S
from server.store import persist as P
from server.store.db import Store
from tests.server.test_lobby_store import KA, KB, KC, lobby_on, online
from tui import i18n
from tui import words as W


async def test_a_match_against_a_bot_changes_no_rating_and_counts_in_the_record_against_bots(tmp_path: Path) -> None:
    with Store.open(tmp_path) as store:
        lobby = lobby_on(store)
        alice = online(lobby, KA, "alice")
        backend = SSHBackend(lobby, alice)
        for _ in range(2):
            handles = await backend.play_bot("easy")
            h = lobby.hosted_of(list(handles))  # type: ignore[arg-type]  # (an SSHBackend's handles are the lobby's)
            assert h is not None
            await handles[0].resign()  # lost to Easy: no rating lost
            assert h.recording.finished and h.recording.changes == []
            assert store.rating_changes(h.recording.match_id) == {}
            lobby.enter_lobby(alice)
        handles = await backend.play_bot("hard")
        h = lobby.hosted_of(list(handles))  # type: ignore[arg-type]  # (as above)
        assert h is not None
        await h.match.handle(1).resign()  # (the bot's resignation, as the host would submit it) won against Hard
        assert store.rating(KA, "voltage") is None and await backend.ratings() == []
        assert await backend.rating_change(handles) is None
        records = await backend.bot_record()
        assert [(r.bot, r.won, r.lost, r.drawn) for r in records] == [("easy", 0, 2, 0), ("hard", 1, 0, 0)]
        assert W.bot_record_lines(records) == ["v bots (won-lost): easy 0-2, hard 1-0"]
        assert W.bot_record_lines(records, 26) == ["v bots: easy 0-2, hard 1-0"]
        assert W.bot_record_lines(records, 25) == ["v bots: easy 0-2 hard 1-0"]
        assert W.bot_record_lines(records, 12) == ["v bots: 1-2"]
        with i18n.language("ca"):  # (the levels in the reader's language, as the Play menu names them)
            assert W.bot_record_lines(records) == ["contra bots (guanyades-perdudes): fàcil 0-2, difícil 1-0"]


def test_a_high_voltage_record_against_bots_is_head_to_head_and_names_the_game(tmp_path):
    with Store.open(tmp_path) as store:
        store.upsert_player(KA, "Alice")
        mid = store.create_match("high-voltage", 5, [{"name": "Alice", "identity": KA},
                                                    {"name": "Bot (slow)", "bot": "slow"},
                                                    {"name": "Bot (fast)", "bot": "fast"}])
        store.finish_match(mid, [2, 3, 1], "last card")  # behind Fast, ahead of Slow
        assert store.rating(KA, "high-voltage") is None
        records = P.bot_records(store, KA)
        assert [(r.bot, r.won, r.lost) for r in records] == [("slow", 1, 0), ("fast", 0, 1)]
        assert W.bot_record_lines(records) == ["High Voltage v bots (won-lost): slow 1-0, fast 0-1"]


def _old_store(path) -> None:
    """A store as version 5 left it (the last that rated matches with a bot): a match
    between Alice and Bob and matches against bots, all rated (bots then took part at fixed
    ratings), and a rating carried over from schema 1 (Dave's, with no match behind it)."""
    c = sqlite3.connect(path / S.DB_NAME, isolation_level=None)
    c.executescript("".join(s for s in S.MIGRATIONS[:5] if isinstance(s, str)) + "\nPRAGMA user_version = 5;")
    for ident, name in ((KA, "Alice"), (KB, "Bob"), (KC, "Carol"), ("SHA256:dave", "Dave")):
        c.execute("INSERT INTO players VALUES (?, ?, 1, 1)", (ident, name))
        c.execute("INSERT INTO names VALUES (?, ?, ?, 1)", (name.lower(), name, ident))

    def match(mid, seats, ranks, at):
        c.execute("INSERT INTO matches (id, game, seed, status, started, ended, reason, scores) "
                  "VALUES (?, 'voltage', '1', 'finished', ?, ?, 'four sets', '[4, 1]')", (mid, at - 1, at))
        for n, ((name, ident, bot), rank) in enumerate(zip(seats, ranks, strict=True)):
            c.execute("INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?)", (mid, n, name, ident, bot, rank))

    def rated(ident, mid, at, before, after):
        c.execute("INSERT INTO rating_history (identity, game, match_id, at, mu_before, sigma_before, mu, sigma) "
                  "VALUES (?, 'voltage', ?, ?, ?, ?, ?, ?)", (ident, mid, at, *before, *after))

    d = (R.MU, R.SIGMA)
    # 1: Alice beat Easy (+ a big jump, as the old ratings gave); 2: Alice beat Bob;
    # 3: Carol lost to Hard (her only match); 4: Bob, away, played by Medium for him, lost to Alice.
    match(1, [("Alice", KA, None), ("Bot (easy)", None, "easy")], [1, 2], 10.0)
    rated(KA, 1, 10.0, d, (29.0, 7.0))
    match(2, [("Alice", KA, None), ("Bob", KB, None)], [1, 2], 20.0)
    rated(KA, 2, 20.0, (29.0, 7.0), (31.0, 6.5))
    rated(KB, 2, 20.0, d, (22.0, 7.5))
    match(3, [("Carol", KC, None), ("Bot (hard)", None, "hard")], [2, 1], 30.0)
    rated(KC, 3, 30.0, d, (23.0, 7.9))
    match(4, [("Alice", KA, None), ("Bob", KB, "medium")], [1, 2], 40.0)
    rated(KA, 4, 40.0, (31.0, 6.5), (32.0, 6.0))
    rated(KB, 4, 40.0, (22.0, 7.5), (20.0, 7.0))
    c.execute("INSERT INTO rating_history (identity, game, match_id, at, mu_before, sigma_before, mu, sigma) "
              "VALUES ('SHA256:dave', 'voltage', NULL, 5, 27, 4, 27, 4)")
    for ident, mu, sigma, games in ((KA, 32.0, 6.0, 3), (KB, 20.0, 7.0, 2), (KC, 23.0, 7.9, 1),
                                    ("SHA256:dave", 27.0, 4.0, 6)):
        c.execute("INSERT INTO ratings VALUES (?, 'voltage', ?, ?, ?, 40)", (ident, mu, sigma, games))
    c.close()


def test_a_store_of_the_older_version_has_its_ratings_recomputed_without_the_bot_matches(tmp_path):
    _old_store(tmp_path)
    with Store.open(tmp_path) as store:
        assert store.schema_version == S.SCHEMA_VERSION >= 6  # (6 recomputed the ratings)
        # What the people-only history gives: match 2, then match 4 (Bob's seat played for him).
        a2, b2 = R.rate("voltage", [R.Entrant(0, 1, KA), R.Entrant(1, 2, KB)])
        a4, b4 = R.rate("voltage", [R.Entrant(0, 1, KA, rating=a2.after), R.Entrant(1, 2, KB, "medium",
                                                                                        rating=b2.after)])
        assert store.rating(KA, "voltage") == (*a4.after, 2)
        assert store.rating(KB, "voltage") == (*b4.after, 2)
        assert store.rating(KC, "voltage") is None  # every match of hers had a bot: unrated again
        assert store.rating("SHA256:dave", "voltage") == (27.0, 4.0, 6)  # carried from schema 1, as it was
        assert [p.match_id for p in store.rating_history(KA, "voltage")] == [2, 4]
        assert store.rating_changes(1) == {} and store.rating_changes(3) == {}
        assert store.rating_changes(2)[0].after == a2.after
        assert {row.identity for row in store.leaderboard("voltage")} == {KA, KB, "SHA256:dave"}
        assert P.export(store, 1)["rated"] is False and P.export(store, 2)["rated"] is True
        # The record against bots reads the old matches too.
        assert [(r.bot, r.won, r.lost) for r in P.bot_records(store, KA)] == [("easy", 1, 0)]
