"""Challenges: ask a player online by name for a match of either game; they are told at
once and accept or decline; an unanswered one expires; a player may refuse them."""

from __future__ import annotations

import asyncio

from server.lobby.core import Lobby
from server.lobby.models import LobbyError
from tests.server.test_lobby_identity import KEY, OTHER, listening
from tests.support.lobby import online
from tests.support.wait import settle
from tests.support.words import refused, status_of


async def test_an_accepted_challenge_starts_a_match_for_both_at_once():
    lobby = Lobby(bot_delay=0.0, seed=1)
    alice, bob = online(lobby, KEY, "alice"), online(lobby, OTHER, "bob")
    told = listening(bob)
    ch = lobby.challenge(alice, "BOB")  # names are matched case-insensitively
    assert [e for e, _ in told] == ["challenge"] and told[0][1] is ch
    assert ch.game == "voltage" and 29 < ch.seconds_left <= 30
    (theirs,) = lobby.answer_challenge(bob, ch, True)
    (mine,) = await asyncio.wait_for(ch.future, 30)
    assert mine.match is theirs.match and set(mine.match.names) == {"alice", "bob"}
    assert {p.name: status_of(p) for p in lobby.snapshot().players} == {
        "alice": f"playing {mine.match.code}", "bob": f"playing {mine.match.code}"}
    # Busy players cannot be challenged; nor can anyone be challenged twice at once.
    carol = online(lobby, None, "carol")
    with refused("bob is playing a match", LobbyError):
        lobby.challenge(carol, "bob")
    mine.match.close()


async def test_a_declined_or_unanswered_challenge_says_so():
    lobby = Lobby(seed=1)
    alice, bob = online(lobby, KEY, "alice"), online(lobby, OTHER, "bob")
    told = listening(bob)
    ch = lobby.challenge(alice, "bob", "high-voltage")
    assert lobby.answer_challenge(bob, ch, False) is None
    with refused("bob declined the challenge", LobbyError):
        await ch.future
    lobby.challenge_seconds = 0.05
    ch = lobby.challenge(alice, "bob")
    with refused("bob did not answer within 0 s", LobbyError):
        await asyncio.wait_for(ch.future, 30)
    assert [e for e, _ in told] == ["challenge", "challenge-over", "challenge", "challenge-over"]
    with refused("no longer open", LobbyError):
        lobby.answer_challenge(bob, ch, True)


async def test_who_may_be_challenged():
    lobby = Lobby(seed=1)
    alice, bob = online(lobby, KEY, "alice"), online(lobby, OTHER, "bob")
    with refused("nobody called dave is online", LobbyError):
        lobby.challenge(alice, "dave")
    with refused("yourself", LobbyError):
        lobby.challenge(alice, "alice")
    bob.refuses_challenges = True
    with refused("bob does not take challenges", LobbyError):
        lobby.challenge(alice, "bob")
    bob.refuses_challenges = False
    ch = lobby.challenge(alice, "bob")
    with refused("waiting for an answer already", LobbyError):
        lobby.challenge(alice, "bob")
    lobby.withdraw_challenge(ch)
    with refused("took the challenge back", LobbyError):
        await ch.future
    # One who leaves takes their challenges with them.
    ch = lobby.challenge(alice, "bob")
    lobby.leave(bob)
    with refused("bob has gone", LobbyError):
        await ch.future


async def test_a_high_voltage_challenge_seats_both_at_a_table_of_two():
    lobby = Lobby(seed=1)
    lobby.tables["high-voltage"].countdown_seconds = 0.01
    alice, bob = online(lobby, KEY, "alice"), online(lobby, OTHER, "bob")
    waiting = asyncio.ensure_future(lobby.quick_match(bob, "high-voltage"))  # bob was waiting
    await settle()
    ch = lobby.challenge(alice, "bob", "high-voltage")
    (theirs,) = lobby.answer_challenge(bob, ch, True)
    (mine,) = await asyncio.wait_for(ch.future, 30)
    assert mine.match is theirs.match and mine.match.names == ("alice", "bob")
    await settle()
    assert waiting.cancelled()  # out of the quick table first
    mine.match.close()
