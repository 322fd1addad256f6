"""One key, one session: a key opened in a second session takes over (the newest wins),
never sits twice in one match, keeps its stored name; presence follows the matches;
spectators follow a rematch."""

from __future__ import annotations

import asyncio

from server.backend import SSHBackend
from server.games import GAMES as SERVER_GAMES
from server.lobby.core import Lobby
from server.lobby.models import LobbyError
from server.lobby.tables import Tables
from server.store.db import Store
from tests.support.lobby import online
from tests.support.wait import settle, until
from tests.support.words import log_of, notice_of, refused, status_of

KEY, OTHER = "SHA256:alice-key", "SHA256:bob-key"


def listening(player):
    """Record what the lobby tells ``player``'s session."""
    told: list[tuple[str, object]] = []
    player.listener = lambda event, handles: told.append((event, handles))
    return told


# -- one key, two sessions ---------------------------------------------------------


async def test_two_sessions_of_one_key_are_never_paired_with_each_other(tmp_path):
    with Store.open(tmp_path) as store:
        lobby = Lobby(store=store, bot_delay=0.0, seed=1)
        first = online(lobby, KEY, "alice")
        told = listening(first)
        waiting = asyncio.ensure_future(lobby.quick_match(first))
        await settle()
        second = lobby.connect(KEY, "root")
        # The key's own name is offered (not the login name), and taking it is no clash.
        assert lobby.suggest_name("root", second) == "alice"
        online_again = lobby.claim_name(second, "alice")
        assert online_again == "alice"
        # The first session was told, left the queue, and may not play from there.
        assert [e for e, _ in told] == ["superseded"]
        await settle()
        assert waiting.cancelled()
        with refused("another session", LobbyError):
            await lobby.quick_match(first)
        assert [p.name for p in lobby.snapshot().players] == ["alice"]
        # The newest session waits for someone else, and is paired with them.
        mine = asyncio.ensure_future(lobby.quick_match(second))
        await settle()
        assert not mine.done()
        bob = online(lobby, OTHER, "bob")
        theirs = await lobby.quick_match(bob)
        handles = await mine
        assert handles[0].match is theirs[0].match
        assert set(handles[0].match.names) == {"alice", "bob"}
        # The match ends and is stored and rated (it was "one identity holds two seats").
        await handles[0].resign()
        h = lobby.hosted_of(handles)
        rec = store.match_record(h.recording.match_id)
        assert rec.finished and rec.actions[-1].startswith("resign")
        assert store.unfinished_matches() == []


async def test_a_match_is_never_hosted_with_one_key_in_two_seats():
    lobby = Lobby(seed=1)
    a = lobby.connect(KEY, "a")
    b = lobby.connect(KEY, "b")
    with refused("two seats", LobbyError):
        lobby.tables["voltage"].play_people([a, b])


async def test_a_key_cannot_join_its_own_room_from_a_second_session():
    lobby = Lobby(seed=1)
    first = online(lobby, KEY, "alice")
    room = lobby.create_room(first)
    second = lobby.connect(KEY, "alice")
    lobby.claim_name(second, "alice")
    # The owner's session was taken over, so its room closed with it.
    await settle()
    assert room.future.cancelled()
    assert lobby.room_game(room.code) is None


async def test_a_key_opened_in_a_new_session_takes_its_seat_with_it():
    lobby = Lobby(bot_delay=0.0, seed=1)
    first = online(lobby, KEY, "alice")
    told = listening(first)
    (old,) = lobby.play_bot(first, "random")
    h = lobby.hosted_of([old])
    second = lobby.connect(KEY, "root")
    assert lobby.resumable(second) is h  # a fresh session lands back in the match
    (new,) = lobby.resume(second)
    assert new.match is old.match and new.seat == old.seat
    assert h.humans[old.seat] is second and second.name == "alice"
    assert [e for e, _ in told] == ["superseded"]
    assert h.match.seats[old.seat].connected and not h.grace  # no reconnect countdown
    assert [(p.name, status_of(p)) for p in lobby.snapshot().players] == [("alice", f"playing {h.code}")]
    # Taking it back from the first session moves the seat back there.
    lobby.claim_name(first, "alice")
    assert h.humans[old.seat] is first and second.superseded and not first.superseded
    h.match.close()


async def test_a_second_sessions_name_box_offers_the_keys_name_and_keeps_it(tmp_path):
    with Store.open(tmp_path) as store:
        lobby = Lobby(store=store, seed=1)
        online(lobby, KEY, "alice", username="alice")
        second = SSHBackend(lobby, lobby.connect(KEY, "root"))
        assert second.name_prefill == "alice"
        assert await second.claim_name(second.name_prefill) == "alice"
        assert second.named and second.name == "alice"
        assert store.player(KEY).name == "alice"
        assert store.name_owner("root") is None


# -- presence ------------------------------------------------------------------------


async def test_presence_follows_the_end_of_a_match_and_leaving():
    lobby = Lobby(bot_delay=0.0, seed=1)
    alice, bob, carol = online(lobby, KEY, "alice"), online(lobby, OTHER, "bob"), online(lobby, None, "carol")
    waiting = asyncio.ensure_future(lobby.quick_match(alice))
    await settle()
    (hb,) = await lobby.quick_match(bob)
    (ha,) = await waiting
    code = ha.match.code
    lobby.watch(carol, code)
    status = {p.name: status_of(p) for p in lobby.snapshot().players}
    assert status == {"alice": f"playing {code}", "bob": f"playing {code}", "carol": f"watching {code}"}
    await ha.resign()
    who = lobby.who_text()
    assert who.startswith("3 online, 0 matches running")
    assert "playing" not in who and "watching" not in who
    status = {p.name: status_of(p) for p in lobby.snapshot().players}
    assert status == {"alice": f"just played {code}", "bob": f"just played {code}",
                      "carol": f"just watched {code}"}
    lobby.enter_lobby(bob)
    lobby.leave(carol)
    status = {p.name: status_of(p) for p in lobby.snapshot().players}
    assert status == {"alice": f"just played {code}", "bob": "in the lobby"}


# -- spectators follow a rematch ------------------------------------------------------


async def test_spectators_follow_a_voltage_rematch():
    lobby = Lobby(bot_delay=0.0, seed=1)
    alice, bob, carol = online(lobby, KEY, "alice"), online(lobby, OTHER, "bob"), online(lobby, None, "carol")
    told = listening(carol)
    waiting = asyncio.ensure_future(lobby.quick_match(alice))
    await settle()
    (hb,) = await lobby.quick_match(bob)
    (ha,) = await waiting
    old = ha.match.code
    lobby.watch(carol, old)
    await ha.resign()
    ask = asyncio.ensure_future(lobby.rematch(alice, [ha]))
    await settle()
    (hb2,) = await lobby.rematch(bob, [hb])
    (ha2,) = await ask
    new = ha2.match.code
    assert new != old
    assert [e for e, _ in told] == ["follow"]
    (watching,) = told[0][1]
    assert watching.match is ha2.match and watching.spectator
    assert {p.name: status_of(p) for p in lobby.snapshot().players}["carol"] == f"watching {new}"
    assert [m.spectators for m in lobby.snapshot().matches] == [1]
    # Someone who had the old code watches the rematch.
    dave = online(lobby, None, "dave")
    (late,) = lobby.watch(dave, old)
    assert late.match is ha2.match
    ha2.match.close()


async def test_spectators_follow_a_high_voltage_rematch():
    lobby = Lobby(grace=0.05, rematch_wait=2.0, seed=1)
    tables = Tables(lobby, SERVER_GAMES["high-voltage"], countdown_seconds=0.01, bot_speed=1000.0)
    ann, bob, carol = online(lobby, "key-ann", "ann"), online(lobby, "key-bob", "bob"), online(lobby, None, "carol")
    told = listening(carol)
    room = tables.create_room(ann, size=2)
    owner = asyncio.ensure_future(tables.wait(room, ann))
    friend = asyncio.ensure_future(tables.join_room(bob, room.code))
    (a,), (b,) = await asyncio.gather(owner, friend)
    lobby.watch(carol, a.match.code)
    await a.resign()
    await until(lambda: a.match.over, "the match to end")
    first = asyncio.ensure_future(tables.rematch(ann, [a]))
    await settle()
    (b2,) = await asyncio.wait_for(tables.rematch(bob, [b]), 30)
    (a2,) = await first
    assert [e for e, _ in told] == ["follow"]
    assert told[0][1][0].match is a2.match
    assert {p.name: status_of(p) for p in lobby.snapshot().players}["carol"] == f"watching {a2.match.code}"
    a2.match.close()


async def test_a_high_voltage_quick_table_never_seats_one_key_twice():
    lobby = Lobby(seed=1)
    tables = Tables(lobby, SERVER_GAMES["high-voltage"], fill_seconds=30, countdown_seconds=0.01)
    a = online(lobby, KEY, "alice")
    first = asyncio.ensure_future(tables.quick_match(a))
    await settle()
    # (a second session of the key would take over; a stale Player of the key is refused)
    twin = lobby.connect(KEY, "alice")
    twin.name = "alice2"
    lobby.players[twin.id] = twin
    second = asyncio.ensure_future(tables.quick_match(twin))
    await settle()
    ta, tt = tables.table_of(a), tables.table_of(twin)
    assert ta is not None and tt is not None and ta is not tt
    first.cancel()
    second.cancel()
    await settle()


# -- names a key holds -----------------------------------------------------------------


async def test_a_key_cannot_squat_names_and_a_guests_name_is_free_when_it_leaves(tmp_path):
    from server.lobby.models import NameRejected

    with Store.open(tmp_path) as store:
        lobby = Lobby(store=store, bot_delay=0.0, seed=1)
        squatter = online(lobby, KEY, "root")
        assert lobby.rename_wait(squatter) == 0  # a key's first name (its login's, often) is free to change
        lobby.claim_name(squatter, "alice")
        assert 3500 < lobby.rename_wait(squatter) <= 3600  # a rename holds an hour
        for n in range(5):
            with refused("a new name is possible in", NameRejected):
                lobby.claim_name(squatter, f"name{n}")
        assert [store.name_owner(f"name{n}") for n in range(5)] == [None] * 5
        assert squatter.name == "alice" and store.player(KEY).name == "alice"
        assert store.name_owner("root") is None
        # A guest who played and dropped out: its name is free at once (a guest can't come back).
        guest = online(lobby, None, "visitor")
        (h,) = lobby.play_bot(guest, "random")
        lobby.leave(guest)
        other = lobby.connect(None, "visitor")
        assert lobby.suggest_name("visitor", other) == "visitor"
        assert lobby.claim_name(other, "visitor") == "visitor"
        h.match.close()


async def test_the_others_read_that_a_dropped_player_is_back():
    lobby = Lobby(bot_delay=0.0, seed=1, grace=30.0)
    alice, bob = online(lobby, KEY, "alice"), online(lobby, OTHER, "bob")
    waiting = asyncio.ensure_future(lobby.quick_match(alice))
    await settle()
    (hb,) = await lobby.quick_match(bob)
    (ha,) = await waiting
    lobby.leave(alice)
    assert "waiting for alice to reconnect" in notice_of(hb.notice)
    again = lobby.connect(KEY, "alice")
    (back,) = lobby.resume(again)
    assert log_of(hb)[-1] == "alice is back." and log_of(back)[-1] == "alice is back."
    assert hb.notice == ()
    # A newer session taking over never left: nothing to announce.
    third = lobby.connect(KEY, "alice")
    lobby.resume(third)
    assert log_of(hb)[-1] == "alice is back." and log_of(hb).count("alice is back.") == 1
    ha.match.close()


async def test_the_same_in_high_voltage():
    lobby = Lobby(grace=30.0, seed=1)
    tables = Tables(lobby, SERVER_GAMES["high-voltage"], countdown_seconds=0.01, bot_speed=1000.0)
    ann, bob = online(lobby, "key-ann", "ann"), online(lobby, "key-bob", "bob")
    room = tables.create_room(ann, size=2)
    owner = asyncio.ensure_future(tables.wait(room, ann))
    friend = asyncio.ensure_future(tables.join_room(bob, room.code))
    (a,), (b,) = await asyncio.gather(owner, friend)
    lobby.leave(bob)
    (b2,) = lobby.resume(lobby.connect("key-bob", "bob"))
    assert log_of(a)[-1] == "bob is back." and log_of(b2)[-1] == "bob is back."
    a.match.close()
