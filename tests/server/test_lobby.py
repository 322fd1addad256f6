"""The lobby service: names, quick match, rooms, bots, watching, dropped players, rematch."""

from __future__ import annotations

import asyncio

import pytest

from engine.voltage import rules as V
from server.lobby.core import Lobby
from server.lobby.models import LobbyError, NameRejected
from server.lobby.names import check_name, name_from_username
from tests.support.lobby import online
from tests.support.wait import until
from tests.support.words import notice_of, refused


async def play_out(handles_by_seat):
    """Play legal moves from whichever human handle is to move until the match ends."""
    match = handles_by_seat[0].match
    while not match.over:
        seat = match.state.to_move
        h = handles_by_seat[seat]
        if match.seats[seat].is_bot:
            await asyncio.sleep(0.01)
            continue
        await h.submit(h.view().legal[0])


# -- names -----------------------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    ["", "   ", "x" * 17, "evil\x1b[2J", "[bold]hi[/]", "tab\there", "new\nline", "a  b", "ümlaut", "<script>"],
)
def test_unsafe_or_oversized_names_are_rejected(bad):
    with pytest.raises(NameRejected):
        check_name(bad)


@pytest.mark.parametrize("word", ["You", "you", "YOU", "Nobody"])
def test_names_that_read_as_words_are_refused_with_a_reason(word):
    with refused("would read as a word", NameRejected):
        check_name(word)
    assert name_from_username(word) == "guest"
    assert check_name("Yousef") == "Yousef"


def test_names_are_prefilled_from_the_username_and_unique_online():
    lobby = Lobby()
    assert name_from_username("al\x1b[31mice[/]") == "al31mice"
    assert name_from_username("") == "guest"
    assert name_from_username("a" * 40) == "a" * 16
    online(lobby, None, "alice")
    bob = lobby.connect(None, "Alice")
    assert lobby.suggest_name("Alice", bob) == "Alice2"
    with refused("already", NameRejected):
        lobby.claim_name(bob, "ALICE")
    assert lobby.claim_name(bob, "Bob") == "Bob"
    assert [p.name for p in lobby.snapshot().players] == ["alice", "Bob"]


# -- pairing ---------------------------------------------------------------


async def test_quick_match_pairs_the_next_two_players_waiting_for_a_game():
    lobby = Lobby(bot_delay=0)
    a, b, c = online(lobby, None, "A"), online(lobby, None, "B"), online(lobby, None, "C")
    wait_a = asyncio.ensure_future(lobby.quick_match(a))
    await asyncio.sleep(0)
    assert lobby.snapshot().waiting["voltage"] == 1
    hb = await lobby.quick_match(b)
    ha = await wait_a
    assert ha[0].match is hb[0].match and {ha[0].seat, hb[0].seat} == {0, 1}
    assert ha[0].names == ("A", "B")
    assert [m.names for m in lobby.snapshot().matches] == [("A", "B")]
    # C leaves the queue by cancelling its wait.
    wait_c = asyncio.ensure_future(lobby.quick_match(c))
    await asyncio.sleep(0)
    wait_c.cancel()
    await asyncio.sleep(0)
    assert lobby.snapshot().waiting["voltage"] == 0


async def test_a_private_room_is_joined_by_its_code():
    lobby = Lobby(bot_delay=0)
    a, b = online(lobby, None, "A"), online(lobby, None, "B")
    room = lobby.create_room(a)
    assert len(room.code) == 4 and room.code.isalpha() and room.code.isupper()
    with refused("no room", LobbyError):
        lobby.join_room(b, "ZZZZ" if room.code != "ZZZZ" else "YYYY")
    with refused("not started", LobbyError):
        lobby.watch(b, room.code)
    hb = lobby.join_room(b, room.code.lower())
    ha = await room.future
    assert ha[0].match is hb[0].match and ha[0].match.code == room.code


async def test_spectators_see_the_board_and_scores_never_a_hand():
    lobby = Lobby(bot_delay=0)
    a, b, w = online(lobby, None, "A"), online(lobby, None, "B"), online(lobby, None, "W")
    room = lobby.create_room(a)
    hb = lobby.join_room(b, room.code)
    (spec,) = lobby.watch(w, room.code)
    assert spec.seat is None and spec.view().hand is None and spec.view().legal == ()
    got = []
    spec.subscribe(got.append)
    ha = await room.future
    mover = {0: ha[0], 1: hb[0]}[ha[0].match.state.to_move]
    await mover.submit(mover.view().legal[0])
    assert got and got[-1].view.hand is None
    with refused("spectators", Exception):
        await spec.submit(V.DRAW)
    assert lobby.snapshot().matches[0].spectators == 1


async def test_play_a_bot_at_each_strength_that_exists():
    lobby = Lobby(bot_delay=0)
    a = online(lobby, None, "A")
    from server.lobby.models import bot_strengths

    for _label, bot in bot_strengths():
        (h,) = lobby.play_bot(a, bot)
        assert h.match.seats[1].is_bot and not h.match.seats[0].is_bot
    with pytest.raises(LobbyError):
        lobby.play_bot(a, "no-such-bot")


# -- dropped players -------------------------------------------------------


async def test_a_dropped_player_keeps_the_seat_then_a_bot_plays_it_then_they_return():
    lobby = Lobby(grace=0.6, bot_delay=0)
    a = online(lobby, "SHA256:alice", "Alice")
    b = online(lobby, "SHA256:bob", "Bob")
    room = lobby.create_room(a)
    hb = lobby.join_room(b, room.code)
    (ha,) = await room.future
    match = ha.match
    notices = []
    hb[0].subscribe(lambda u: notices.append(notice_of(u.notice)))
    lobby.leave(a)
    assert notice_of(match.notice).startswith("waiting for Alice to reconnect (0:0")
    # Someone else cannot take Alice's name while her seat waits for her.
    carol = lobby.connect(None, "Alice")
    with pytest.raises(NameRejected):
        lobby.claim_name(carol, "Alice")
    # Alice comes back within the grace period: same seat, no bot.
    a2 = lobby.connect("SHA256:alice", "whatever")
    (back,) = lobby.resume(a2)
    assert back.match is match and back.seat == ha.seat and a2.name == "Alice"
    assert match.notice == () and not match.seats[ha.seat].is_bot
    # Dropped again, and the grace period runs out: a bot plays the seat, shown as such.
    lobby.leave(a2)
    assert not match.seats[ha.seat].is_bot  # not before the grace period (0.6 s) is over
    await until(lambda: match.seats[ha.seat].is_bot, what="the grace period to run out and a bot to take the seat")
    assert "(bot playing)" in match.names[ha.seat]
    assert match.notice == ()
    assert any(n.startswith("waiting for Alice") for n in notices)
    # The player takes the seat back on return.
    a3 = lobby.connect("SHA256:alice", "alice")
    (again,) = lobby.resume(a3)
    assert again.seat == ha.seat and not match.seats[ha.seat].is_bot
    assert match.names[ha.seat] == "Alice"


async def test_a_guest_cannot_come_back_so_a_bot_takes_over_at_once():
    lobby = Lobby(grace=60, bot_delay=0)
    a, b = online(lobby, None, "A"), online(lobby, None, "B")
    room = lobby.create_room(a)
    lobby.join_room(b, room.code)
    (ha,) = await room.future
    lobby.leave(a)
    assert ha.match.seats[ha.seat].is_bot
    assert lobby.resumable(lobby.connect(None, "A")) is None


# -- rematch ---------------------------------------------------------------


async def test_rematch_when_both_agree_and_none_when_the_other_leaves():
    lobby = Lobby(bot_delay=0)
    a, b = online(lobby, None, "A"), online(lobby, None, "B")
    room = lobby.create_room(a)
    hb = lobby.join_room(b, room.code)
    ha = await room.future
    await play_out({ha[0].seat: ha[0], hb[0].seat: hb[0]})
    ask_a = asyncio.ensure_future(lobby.rematch(a, ha))
    await asyncio.sleep(0)
    assert notice_of(ha[0].notice) == "A wants a rematch"
    nb = await lobby.rematch(b, hb)
    na = await ask_a
    assert na[0].match is nb[0].match and na[0].match is not ha[0].match
    assert not na[0].match.over
    # After the second match, B goes back to the lobby instead of agreeing.
    await play_out({na[0].seat: na[0], nb[0].seat: nb[0]})
    ask_a = asyncio.ensure_future(lobby.rematch(a, na))
    await asyncio.sleep(0)
    lobby.enter_lobby(b)
    assert await ask_a is None


async def test_rematch_against_a_bot_is_immediate():
    lobby = Lobby(bot_delay=0)
    a = online(lobby, None, "A")
    (h,) = lobby.play_bot(a, "random")
    await h.resign()
    (n,) = await lobby.rematch(a, [h])
    assert n.match is not h.match and n.match.seats[1].is_bot


async def test_a_player_back_in_the_seat_is_shown_as_playing_and_can_rematch():
    from textual.app import App

    from server.backend import SSHBackend
    from tui.screens.lobby import LobbyScreen

    lobby = Lobby(grace=60, bot_delay=0)
    a = online(lobby, "SHA256:alice", "Alice")
    b = online(lobby, "SHA256:bob", "Bob")
    room = lobby.create_room(a)
    lobby.join_room(b, room.code)
    await room.future
    lobby.leave(a)
    back = SSHBackend(lobby, lobby.connect("SHA256:alice", "alice"))
    back.match_screen = lambda handles: __import__("textual.screen").screen.Screen()

    class Home(App):
        def on_mount(self):
            self.push_screen(back.home_screen())

    app = Home()
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.pause()
        assert not isinstance(app.screen, LobbyScreen)
        assert back.player.status == "playing" and back.player.name == "Alice"
