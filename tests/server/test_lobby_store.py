"""The lobby with a store: names reserved to keys, matches recorded and rated, the
results line, history, and unfinished matches brought back after a restart."""

from __future__ import annotations

import asyncio
import random

import pytest

from engine.voltage import rules as V
from server.backend import SSHBackend
from server.host.common import Seat
from server.host.highvoltage import HVMatch
from server.lobby.core import Lobby
from server.lobby.models import NameRejected
from server.store import persist as P
from server.store.db import Store
from tests.support.lobby import online
from tests.support.words import notice_of, refused
from tui import words as W

KA, KB, KC = "SHA256:alice-key", "SHA256:bob-key", "SHA256:carol-key"


def lobby_on(store, **kw) -> Lobby:
    return Lobby(None, store=store, grace=30.0, bot_delay=0.0, seed=1, **kw)


async def play_out(match, rng, limit=None):
    """Legal actions (never a resignation) until the end, or ``limit`` actions; at the
    end, until the match's end hooks ran (its result is stored before them)."""
    ended = asyncio.Event()
    match.on_end.append(lambda _m: ended.set())
    n = 0
    while not match.over and (limit is None or n < limit):
        seat = match.state.to_move
        if match.seats[seat].is_bot:
            await asyncio.sleep(0.005)  # the bot moves by itself
            continue
        legal = [a for a in match.view(seat).legal if not isinstance(a, V.Resign)]
        await match.handle(seat).submit(rng.choice(legal))
        n += 1
    if match.over:
        await asyncio.wait_for(ended.wait(), 30)


async def test_a_rated_match_between_two_keys_moves_both_ratings_and_shows_the_change(tmp_path):
    with Store.open(tmp_path) as store:
        lobby = lobby_on(store)
        alice, bob = online(lobby, KA, "alice"), online(lobby, KB, "bob")
        waiting = asyncio.ensure_future(lobby.quick_match(alice))
        await asyncio.sleep(0)
        await lobby.quick_match(bob)
        ha = await waiting
        h = lobby.hosted_of(ha)
        assert h is not None and h.recording is not None
        await play_out(h.match, random.Random(3))
        rec = store.match_record(h.recording.match_id)
        assert rec.finished and rec.actions == tuple(a.text() for a in h.match.actions)
        changes = store.rating_changes(rec.id)
        assert set(changes) == {0, 1}
        winner = h.match.winner
        assert winner is not None
        assert changes[winner].delta > 0 and changes[1 - winner].delta < 0
        for ident in (KA, KB):
            assert store.rating(ident, "voltage")[2] == 1
        # The results screen's line, and the lobby's title and history.
        changes_shown = await SSHBackend(lobby, alice).rating_change(ha)
        assert changes_shown is not None
        text = W.rating_changes(changes_shown)  # (as the results screen words them)
        assert f"alice: rating {changes[0].shown_after} ({changes[0].delta:+d})" in text
        assert f"bob: rating {changes[1].shown_after} ({changes[1].delta:+d})" in text
        backend = SSHBackend(lobby, bob)
        assert await backend.ratings() == [("Voltage", changes[1].shown_after, 1)]
        (mid, line), = W.history_lines(await backend.history())
        assert mid == rec.id and "v alice" in line and ("won" if winner == 1 else "lost") in line
        board = await backend.leaderboard("voltage")
        shown = {"alice": changes[0].shown_after, "bob": changes[1].shown_after}
        assert [e.name for e in board] == sorted(["alice", "bob"], key=lambda n: -shown[n])
        assert all(len(e.history) == 1 for e in board) and [e.me for e in board].count(True) == 1
        # Her own seat's replay (her hand), a spectator's for anyone else.
        assert backend.open_replay(rec.id).seat == 1
        assert SSHBackend(lobby, online(lobby, KC, "carol")).open_replay(rec.id).seat is None


async def test_guests_are_not_stored_or_rated_and_keys_keep_their_names(tmp_path):
    with Store.open(tmp_path) as store:
        lobby = lobby_on(store)
        alice = online(lobby, KA, "alice")
        guest = online(lobby, None, "gus")
        assert store.player(KA).name == "alice" and store.name_owner("gus") is None
        hs = lobby.play_bot(guest, "random")
        h = lobby.hosted_of(hs)
        await play_out(h.match, random.Random(4))
        assert store.match_record(h.recording.match_id).finished
        assert store.rating_changes(h.recording.match_id) == {}
        assert await SSHBackend(lobby, guest).rating_change(hs) is None
        assert await SSHBackend(lobby, guest).history() == []
        # alice leaves; her name stays hers: another key and a guest are refused it.
        lobby.leave(alice)
        with refused("belongs to another player's key", NameRejected):
            lobby.claim_name(lobby.connect(KB, "x"), "Alice")
        with refused("belongs to a player with an SSH key", NameRejected):
            lobby.claim_name(lobby.connect(None, "x"), "alice")
        # Her key gets it back, and is offered it first.
        again = lobby.connect(KA, "somethingelse")
        assert lobby.suggest_name("somethingelse", again) == "alice"
        assert lobby.claim_name(again, "alice") == "alice"
        # A guest is not offered a name that belongs to a key.
        assert lobby.suggest_name("alice", lobby.connect(None, "alice")) != "alice"


async def test_a_restarted_lobby_brings_back_the_match_at_the_same_position(tmp_path):
    store = Store.open(tmp_path)
    lobby = lobby_on(store)
    alice, bob = online(lobby, KA, "alice"), online(lobby, KB, "bob")
    room = lobby.create_room(alice)
    lobby.join_room(bob, room.code)
    h = lobby.matches[room.code]
    await play_out(h.match, random.Random(5), limit=9)
    views = [h.match.view(s) for s in (0, 1)]
    log = list(h.match.log)
    h.match.close()
    store.close()  # the process is gone (see test_restart.py for a real kill -9)

    store = Store.open(tmp_path)
    try:
        lobby2 = lobby_on(store)
        restored = lobby2.restore()
        assert [r.code for r in restored] == [room.code]
        h2 = lobby2.matches[room.code]
        assert [h2.match.view(s) for s in (0, 1)] == views and h2.match.log == log
        # Both seats wait for their keys, with the grace period counting from now.
        assert set(h2.grace) == {0, 1} and "waiting for alice to reconnect" in notice_of(h2.match.notice)
        assert not any(s.is_bot for s in h2.match.seats)
        # The same name from another key is refused while alice's seat waits for her.
        with pytest.raises(NameRejected):
            lobby2.claim_name(lobby2.connect(KC, "x"), "alice")
        # alice and bob come back (by key) and are put back in their seats.
        for ident, seat in ((KA, 0), (KB, 1)):
            p = lobby2.connect(ident, "whoever")
            assert lobby2.resumable(p) is h2
            (handle,) = lobby2.resume(p)
            assert handle.seat == seat and handle.view() == views[seat]
            assert p.name == ("alice", "bob")[seat]
        assert h2.grace == {} and h2.match.notice == ()
        # Play goes on to the end, and the match is rated.
        await play_out(h2.match, random.Random(6))
        assert store.match_record(h2.recording.match_id).finished
        assert set(store.rating_changes(h2.recording.match_id)) == {0, 1}
    finally:
        store.close()


async def test_a_restored_guest_seat_goes_to_a_bot_at_once(tmp_path):
    with Store.open(tmp_path) as store:
        lobby = lobby_on(store)
        alice, guest = online(lobby, KA, "alice"), online(lobby, None, "gus")
        room = lobby.create_room(alice)
        lobby.join_room(guest, room.code)
        h = lobby.matches[room.code]
        await play_out(h.match, random.Random(7), limit=4)
        h.match.close()
        lobby2 = lobby_on(store)
        (h2,) = lobby2.restore()
        assert h2.match.seats[1].is_bot and not h2.match.seats[0].is_bot
        assert set(h2.grace) == {0}
        h2.match.close()
        for t in h2.grace.values():
            t.cancel()


async def test_four_players_of_high_voltage_are_all_ranked_and_rated(tmp_path):
    """A 4-seat High Voltage match through persist: every seat ranked, four ratings move
    (seats with a key and a bot standing in are rated as their person)."""
    with Store.open(tmp_path) as store:
        keys = [f"SHA256:hv{i}" for i in range(4)]
        for i, k in enumerate(keys):
            store.upsert_player(k, f"p{i}")
        seats = [Seat(f"p{i}", k, bot="fast") for i, k in enumerate(keys)]
        m = HVMatch(seats, seed=21, countdown_seconds=0.01, bot_speed=2000.0)
        rec = P.attach(store, m)
        done = asyncio.Event()
        m.on_end.append(lambda _m: done.set())
        m.start()
        await asyncio.wait_for(done.wait(), 30)
        m.close()
        r = store.match_record(rec.match_id)
        assert r.finished and sorted(x for x in r.ranks) == sorted(m.state.places)
        changes = store.rating_changes(rec.match_id)
        assert set(changes) == {0, 1, 2, 3}
        first = [s for s in range(4) if m.state.places[s] == 1]
        last = [s for s in range(4) if m.state.places[s] == max(m.state.places)]
        assert all(changes[s].delta > 0 for s in first)
        assert all(changes[s].delta < changes[first[0]].delta for s in last)
        lobby = lobby_on(store)
        board = await SSHBackend(lobby, lobby.connect(keys[0])).leaderboard("high-voltage")
        assert sorted(e.name for e in board) == ["p0", "p1", "p2", "p3"]
        assert "High Voltage: top 20" in P.text_leaderboard(store)


async def test_an_unfinished_high_voltage_match_is_restored_too(tmp_path):
    with Store.open(tmp_path) as store:
        seats = [Seat("p0", "SHA256:x"), Seat("b", bot="fast")]
        m = HVMatch(seats, seed=5, countdown_seconds=0.01, bot_speed=50.0)
        P.attach(store, m)
        m.start()
        for _ in range(200):
            if len(m.actions) >= 4:
                break
            await asyncio.sleep(0.01)
        m.close()
        assert len(m.actions) >= 4 and not m.over
        (rec,) = P.restore(store)
        assert rec.match.game == "high-voltage" and rec.match.state == m.state
