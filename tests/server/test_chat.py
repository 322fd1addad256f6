"""The chat's rules without a screen: what a line may hold, the rate limit, the guest rule,
who reads which room, a line kept only once stored, a restart's lines read back."""

from __future__ import annotations

import pytest

from server.chat.limits import RateLimit
from server.chat.rooms import Chat, who_of
from server.chat.text import MAX_CHARS, clean
from server.host.common import Seat
from server.host.voltage import Match
from server.store import persist
from server.store.db import Store
from tui.ports import ChatLine, Refused


def test_a_line_is_plain_visible_text():
    assert clean("\x1b[2J") == "␛[2J"
    assert clean("a\x1b]52;c;aGk=\x07b") == "a␛]52;c;aGk=␇b"
    assert clean("x\u009b31my") == "x\ufffd31my"  # the one-byte CSI
    assert clean("ab\x08\x08cd\rZ") == "ab␈␈cd Z"
    assert clean("evil\u202etxt.exe\u202c \u2066iso\u2069") == "eviltxt.exe iso"
    assert clean("[bold]x[/] [@click=app.quit]q[/]") == "[bold]x[/] [@click=app.quit]q[/]"  # shown, not read
    assert clean("  two\nlines\t ") == "two lines"
    assert clean("\ud800ok") == "ok"
    assert len(clean("y" * 10_000)) == MAX_CHARS


def test_the_rate_limit_and_the_repeated_line():
    now = [0.0]
    limit = RateLimit(5, 10.0, clock=lambda: now[0])
    for n in range(5):
        limit.check("a", f"line {n}")
    with pytest.raises(Refused) as e:
        limit.check("a", "one more")
    assert e.value.code == "chat_too_fast" and e.value.params["wait"] == 10
    limit.check("b", "line 0")  # per identity
    now[0] = 10.5
    limit.check("a", "later")
    with pytest.raises(Refused) as e:
        limit.check("a", "later")
    assert e.value.code == "chat_repeated"
    now[0] = 60.0
    limit.check("a", "later")


async def test_guests_may_use_the_quick_phrases_only():
    chat = Chat()
    with pytest.raises(Refused) as e:
        await chat.say(identity="guest:1", name="gus", guest=True, text="hello")
    assert e.value.code == "chat_guest"
    line = await chat.say(identity="guest:1", name="gus", guest=True, text="ignored", phrase="gg")
    assert (line.phrase, line.text) == ("gg", "")
    with pytest.raises(Refused):
        await chat.say(identity="guest:1", name="gus", guest=True, phrase="buy gold")
    with pytest.raises(Refused) as e:
        await chat.say(identity="k", name="kim", guest=False, text=" \t\n ")
    assert e.value.code == "chat_empty"


async def test_who_reads_which_room():
    m = Match([Seat("ann", "A"), Seat("bob", "B")], seed=3, bot_delay=0)
    chat = Chat()
    heard: dict[object, list[ChatLine]] = {0: [], 1: [], None: []}
    for seat in heard:
        m.subscribe(seat, None, on_message=lambda msg, s=seat: isinstance(msg, ChatLine) and heard[s].append(msg))
    await chat.say(identity="A", name="ann", guest=False, text="hi bob", room="players", host=m, seat=0)
    await chat.say(identity="S", name="sue", guest=False, text="ann wins", room="spectators", host=m, seat=None)
    await chat.say(identity="B", name="bob", guest=False, text="hello all", room="spectators", host=m, seat=1)
    with pytest.raises(Refused):
        await chat.say(identity="S", name="sue", guest=False, text="psst", room="players", host=m, seat=None)
    assert [x.text for x in heard[0]] == ["hi bob"]
    assert [x.text for x in heard[1]] == ["hi bob"]
    assert [x.text for x in heard[None]] == ["ann wins", "hello all"]
    assert [x.text for x in chat.match_lines(m, 0, "A")] == ["hi bob"]
    assert [x.text for x in chat.match_lines(m, 1, "B")] == ["hi bob", "hello all"]  # (its own line too)
    assert [x.text for x in chat.match_lines(m, None, "S")] == ["ann wins", "hello all"]
    await m.submit(0, m.resignation(0))
    assert [x.text for x in chat.match_lines(m, 0, "A")] == ["hi bob", "ann wins", "hello all"]
    assert chat.match_lines(m, None, "S")[0].step == 0 and heard[0][0].who == who_of("A")


async def test_a_line_is_kept_before_it_is_accepted_and_read_back_after_a_restart(tmp_path):
    store = Store.open(tmp_path)
    try:
        m = Match([Seat("ann", "A"), Seat("bob", "B")], seed=3, bot_delay=0)
        persist.attach(store, m)
        chat = Chat(store)
        await chat.say(identity="A", name="ann", guest=False, text="lobby line")
        await m.submit(m.state.to_move, m.view(m.state.to_move).legal[0])
        said = await chat.say(identity="A", name="ann", guest=False, text="gl", room="players", host=m, seat=0)
        assert said.id > 0 and said.step == 1
        again = Chat(store)
        assert [x.text for x in again.lobby_lines(None)] == ["lobby line"]
        assert [(x.text, x.step) for x in again.match_lines(m, 1, "B")] == [("gl", 1)]
        store.in_writer(lambda c: c.execute("DROP TABLE chat")).result()
        with pytest.raises(Refused) as e:
            await chat.say(identity="A", name="ann", guest=False, text="lost")
        assert e.value.code == "chat_not_kept"
        assert "lost" not in [x.text for x in chat.lobby_lines("A")]
    finally:
        store.close()


async def test_a_finished_matchs_chat_is_exported_and_replayed_at_its_moment(tmp_path):
    from server.replay import Replay
    from tui.games.voltage import words

    store = Store.open(tmp_path)
    try:
        m = Match([Seat("ann", "A"), Seat("bob", "B")], seed=3, bot_delay=0)
        rec = persist.attach(store, m)
        chat = Chat(store)
        await chat.say(identity="A", name="ann", guest=False, text="", phrase="glhf", room="players", host=m, seat=0)
        await m.submit(m.state.to_move, m.view(m.state.to_move).legal[0])
        await chat.say(identity="S", name="sue", guest=False, text="nice", room="spectators", host=m, seat=None)
        chat.silences.silence("bob", 60, identity="B")
        await chat.say(identity="B", name="bob", guest=False, text="troll", room="players", host=m, seat=1)
        await m.submit(1, m.resignation(1))
        data = persist.export(store, rec.match_id)
        assert [(c["name"], c["room"], c["step"], c.get("text"), c.get("words")) for c in data["chat"]] == [
            ("ann", "players", 0, None, "Good luck, have fun!"), ("sue", "spectators", 1, "nice", None)]
        replay = Replay(store.match_record(rec.match_id))
        shown = words.lines(replay.entries(0), replay.names)
        assert "ann says: Good luck, have fun!" in shown and not any("nice" in x for x in shown)
        later = words.lines(replay.entries(1), replay.names)
        assert "sue to the spectators: nice" in later and not any("troll" in x for x in later)
    finally:
        store.close()
