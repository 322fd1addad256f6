"""Turn clocks, abort and agreed draws on the host, through the lobby and the store:
a player who never moves loses on time; a match aborted before the first move has no
result and no rating change; an accepted draw offer ends it drawn; each shows in the
log, history, export and ratings.  The clock is folded back from the store on restore.

Short controls (2 s) keep the tests quick; every wait is on a condition, with a deadline.
"""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from engine import clock as CL
from engine.errors import IllegalActionError
from engine.voltage import rules as V
from server.backend import SSHBackend
from server.host.common import Seat
from server.host.voltage import Match
from server.host.voltage import restore as restore_voltage
from server.store.db import Store
from server.store.persist import export_json
from tests.server.test_lobby_store import KA, KB, lobby_on
from tests.support.lobby import online
from tests.support.wait import until
from tests.support.words import history_line, log_of, refused
from tui import words as W

SHORT = CL.TimeControl(2, 0)


async def room_match(lobby, owner, guest, control):
    """A private Voltage room of ``owner`` with ``control``, joined by ``guest``."""
    room = lobby.create_room(owner, "voltage", time_control=control)
    hg = lobby.join_room(guest, room.code)
    ho = await room.future
    h = lobby.hosted_of(ho)
    assert h is not None
    return h, ho, hg


def first_move(match: Match) -> V.Action:
    return next(a for a in match.view(match.state.to_move).legal)


async def to_turn(match: Match, turn: int) -> None:
    """Play the first legal actions until the match reaches ``turn``."""
    while match.state.turns < turn:
        await match.handle(match.state.to_move).submit(first_move(match))


async def test_a_player_who_never_moves_loses_on_time_and_it_counts_everywhere(tmp_path):
    with Store.open(tmp_path) as store:
        lobby = lobby_on(store)
        alice, bob = online(lobby, KA, "alice"), online(lobby, KB, "bob")
        h, _ho, _hg = await room_match(lobby, alice, bob, SHORT)
        m = h.match
        assert m.control == SHORT and m.clock_view() is not None
        staller = m.state.to_move
        names = m.names
        ended = asyncio.Event()
        m.on_end.append(lambda _m: ended.set())
        await asyncio.wait_for(ended.wait(), 30)  # nobody moves: the host's clock flags
        assert m.over and m.winner == 1 - staller and m.state.reason == V.TIME
        assert [a.text() for a in m.actions] == [f"timeout {staller}"]
        assert log_of(m)[-1] == f"{names[staller]} lost on time: {names[1 - staller]} wins the match 0-0."
        rec = store.match_record(h.recording.match_id)
        assert rec.finished and rec.reason == "time" and rec.time_control == "2s+0"
        assert rec.used_ms is not None and rec.used_ms[0] >= 1900
        # Ratings count it: the winner up, the staller down.
        changes = store.rating_changes(rec.id)
        assert changes[1 - staller].delta > 0 > changes[staller].delta
        # History, for each side.
        idents = {0: KA, 1: KB}
        lost = history_line(store.match_record(rec.id, actions=False), idents[staller])
        won = history_line(store.match_record(rec.id, actions=False), idents[1 - staller])
        assert "lost on time" in lost and "won on time" in won
        # Export says so.
        out = json.loads(export_json(store, rec.id))
        assert out["result"]["reason"] == "time" and out["time_control"] == "2s+0"
        assert out["result_words"] == f"{names[staller]} lost on time; {names[1 - staller]} won"
        assert out["rated"] is True and out["actions"] == [f"timeout {staller}"]
        # And its replay ends with the same words.
        from server.replay import replay_of

        r = replay_of(store.match_record(rec.id))
        assert r.entries(r.last)[-1] == m.log[-1]


async def test_a_match_aborted_before_the_first_move_has_no_result_and_no_rating_change(tmp_path):
    with Store.open(tmp_path) as store:
        lobby = lobby_on(store)
        alice, bob = online(lobby, KA, "alice"), online(lobby, KB, "bob")
        h, ho, hg = await room_match(lobby, alice, bob, CL.DEFAULT)
        m = h.match
        first = m.state.to_move
        handles = {0: ho[0], 1: hg[0]}
        assert handles[0].seat == 0 and handles[1].seat == 1
        # Nobody has moved: either may abort at once (the key shows for both).
        assert all(handles[s].extras["abort_from"] is not None and handles[s].extras["abort_from"] <= time.time()
                   for s in (0, 1))
        ended = asyncio.Event()
        m.on_end.append(lambda _m: ended.set())
        await handles[1 - first].abort()
        await asyncio.wait_for(ended.wait(), 30)
        assert m.over and m.winner is None and m.state.reason == V.ABORTED
        assert log_of(m)[-1] == "The match is aborted: no result, no rating change."
        rec = store.match_record(h.recording.match_id, actions=False)
        assert rec.finished and rec.reason == "aborted"
        assert store.rating_changes(rec.id) == {}
        assert store.rating(KA, "voltage") is None and store.rating(KB, "voltage") is None
        for ident in (KA, KB):
            assert "aborted" in history_line(rec, ident)
        backend = SSHBackend(lobby, alice)
        (_, line), = W.history_lines(await backend.history())
        assert "aborted" in line and await backend.ratings() == []
        out = json.loads(export_json(store, rec.id))
        assert out["result"]["reason"] == "aborted"
        assert out["result_words"] == "aborted (no result, not rated)" and out["rated"] is False
        # No winners and no places: nobody won, nobody drew.
        assert out["result"]["winners"] == [] and out["result"]["ranks"] == [None, None]
        assert [p["rank"] for p in out["players"]] == [None, None]
        assert rec.winners == () and rec.ranks == (None, None)


def test_an_aborted_match_stored_by_an_older_version_exports_with_no_winners_either(tmp_path):
    with Store.open(tmp_path) as store:
        mid = store.create_match("voltage", 5, [{"name": "alice", "identity": KA}, {"name": "bob", "identity": KB}])
        store.append_action(mid, 0, "abort 0")
        store.finish_match(mid, [1, 1], "aborted", [0, 0], rated=False)  # (ranks as older versions stored them)
        out = json.loads(export_json(store, mid))
        assert out["result"]["winners"] == [] and out["result"]["ranks"] == [None, None]
        assert out["result_words"] == "aborted (no result, not rated)"


async def test_an_aborted_match_says_aborted_to_both_players_and_a_spectator_with_no_turn_played():
    from tests.tui.helpers import FixedBackend, match_screen, screen_text
    from tui.app import make_app
    from tui.games.voltage import choices as C
    from tui.games.voltage.results import ResultsScreen
    from tui.pacing import FAST

    m = Match([Seat("alice", "a"), Seat("bob", "b")], seed=3, control=CL.DEFAULT)
    m.start()
    app = make_app(FixedBackend([m.handle(1)]), player_name="bob", pacing=FAST)
    async with app.run_test(size=(100, 30)):
        await until(lambda: match_screen(app) is not None and match_screen(app).is_mounted)
        await m.handle(0).abort()
        prompt = match_screen(app).query_one("PromptBar")
        await until(lambda: "The match is aborted." in prompt.render().plain, what="the status line")
        await until(lambda: isinstance(app.screen, ResultsScreen) and "played" in screen_text(app),
                         what="the results")
        text = screen_text(app)
        assert "The match is aborted" in text and "0 turns played" in text and "drawn" not in text
    # Each seat's status line and a spectator's say the same.
    for seat in (0, 1, None):
        assert C.step_for(m.view(seat), C.NOTHING, m.names).prompt == "The match is aborted."
    m.close()


async def test_once_the_first_player_moved_they_may_abort_only_after_the_other_had_30_s():
    m = Match([Seat("alice", "a"), Seat("bob", "b")], seed=3, control=CL.DEFAULT)
    m.abort_wait = 0.3  # (the rule's 30 s, shortened)
    m.start()
    first, second = m.state.to_move, 1 - m.state.to_move
    while m.state.to_move == first:
        await m.handle(first).submit(first_move(m))
    assert m.abort_from(second) is None  # the one who has not moved has no abort (they can resign)
    with pytest.raises(IllegalActionError):
        await m.handle(second).abort()
    with refused("30 s|0 s", IllegalActionError, "voltage"):
        await m.handle(first).abort()  # too soon
    await until(lambda: time.time() >= m.abort_from(first), what="the abort wait")
    await m.handle(first).abort()
    assert m.over and m.state.reason == V.ABORTED and m.winner is None
    m.close()


async def test_no_abort_once_both_have_moved():
    m = Match([Seat("alice", "a"), Seat("bob", "b")], seed=4)
    m.start()
    for _ in range(2):
        mover = m.state.to_move
        while m.state.to_move == mover:
            await m.handle(mover).submit(first_move(m))
    assert m.abort_from(0) is None and m.abort_from(1) is None
    with refused("before both players have moved", IllegalActionError, "voltage"):
        await m.handle(0).abort()
    m.close()


async def test_the_bank_runs_for_the_mover_only_and_the_increment_comes_at_the_end_of_a_turn():
    m = Match([Seat("alice", "a"), Seat("bob", "b")], seed=5, control=CL.TimeControl(60, 5))
    m.start()
    mover = m.state.to_move
    await until(lambda: m.remaining_ms(mover) < 59_900, what="the mover's bank to run")
    assert m.remaining_ms(1 - mover) == 60_000
    while m.state.to_move == mover:
        await m.handle(mover).submit(first_move(m))
    used = sum(m.used_ms)
    assert used >= 100
    assert m.clock is not None and m.clock.remaining_ms(mover) == 65_000 - used
    view = m.clock_view()
    assert view is not None and view.running == 1 - mover
    m.close()


async def test_bots_have_clocks_but_never_lose_on_time():
    m = Match([Seat("Bot A", bot="random"), Seat("Bot B", bot="random")], seed=6, bot_delay=0.01,
              control=CL.TimeControl(0.05, 0))  # a bank far below any think time
    m.start()
    await until(lambda: m.over or len(m.actions) >= 20, what="the bots to play on")
    assert not any(isinstance(a, V.Timeout) for a in m.actions)
    assert m.clock is not None and min(m.clock.remaining_ms(s) for s in (0, 1)) < 0  # their banks ran out
    m.close()


async def test_a_draw_offer_accepted_ends_the_match_drawn_by_agreement_and_rated_as_a_draw(tmp_path):
    with Store.open(tmp_path) as store:
        lobby = lobby_on(store)
        alice, bob = online(lobby, KA, "alice"), online(lobby, KB, "bob")
        h, ho, hg = await room_match(lobby, alice, bob, None)
        m = h.match
        assert m.clock_view() is None  # the room chose no clock
        handles = {0: ho[0], 1: hg[0]}
        got: list = []
        handles[1].subscribe(got.append)
        # Before both have moved abort is the key, not a draw: it may be offered from turn 3.
        assert handles[0].extras["against_human"] and handles[0].extras["draw_from"] == 3
        assert not m.may_offer_draw(handles[0].seat)
        with refused("you may offer a draw from turn 3", IllegalActionError, "voltage"):
            await handles[0].offer_draw()
        await to_turn(m, 3)
        assert m.may_offer_draw(handles[0].seat)
        await handles[0].offer_draw()
        assert got[-1].extras["draw_offer"] == 0 and "alice offers a draw." in log_of(m)
        with refused("already waiting", IllegalActionError, "voltage"):
            await handles[1].offer_draw()
        ended = asyncio.Event()
        m.on_end.append(lambda _m: ended.set())
        await handles[1].answer_draw(True)
        await asyncio.wait_for(ended.wait(), 30)
        assert m.over and m.winner is None and m.state.reason == V.AGREEMENT
        assert m.actions[-1] == V.AgreeDraw(1)
        assert log_of(m)[-1].startswith("The match is drawn by agreement")
        rec = store.match_record(h.recording.match_id, actions=False)
        assert rec.reason == "agreement" and rec.winners == (0, 1)
        assert set(store.rating_changes(rec.id)) == {0, 1}  # rated, as a draw
        assert "drew by agreement" in history_line(rec, KA)
        out = json.loads(export_json(store, rec.id))
        assert out["result_words"] == "drawn by agreement" and out["rated"] is True


async def test_an_offer_lapses_when_the_opponent_moves_and_a_player_offers_once_per_three_turns():
    m = Match([Seat("alice", "a"), Seat("bob", "b")], seed=7)
    m.start()
    await to_turn(m, 3)
    mover = m.state.to_move
    other = 1 - mover
    offered = m.state.turns
    await m.handle(other).offer_draw()  # offered while the opponent is to move
    assert m.draw_offer == other
    await m.handle(mover).submit(first_move(m))  # they play on instead of answering
    assert m.draw_offer is None
    with refused("no draw offer", IllegalActionError, "voltage"):
        await m.handle(mover).answer_draw(True)
    assert m.handle(other).extras["draw_from"] == offered + 6  # three of their turns after the last offer
    with refused(f"you may offer a draw from turn {offered + 6}", IllegalActionError, "voltage"):
        await m.handle(other).offer_draw()  # too soon after the last one
    await m.handle(mover).offer_draw()
    await m.handle(other).answer_draw(False)
    assert m.draw_offer is None and log_of(m)[-1] == f"{m.names[other]} declines the draw." and not m.over
    m.close()


async def test_a_bot_declines_a_draw_at_once():
    m = Match([Seat("alice", "a"), Seat("Bot", "b")], seed=8, bot_delay=0.0)
    await to_turn(m, 3)
    m.seats[1] = Seat("Bot", bot="random")  # (a bot's seat from now on: the match is not started, it never moves)
    h = m.handle(0)
    assert not h.extras["against_human"]  # the key is not offered against a bot
    await m.offer_draw(0)
    assert m.draw_offer is None and log_of(m)[-1] == "alice offers a draw; Bot declines."
    m.close()


def test_restore_folds_each_seats_bank_from_the_stored_used_time(tmp_path):
    with Store.open(tmp_path) as store:
        seats = [{"name": "alice", "identity": KA}, {"name": "bob", "identity": KB}]
        mid = store.create_match("voltage", 9, seats, time_control="5+5")
        s = V.new_match(9)
        used = {0: 0, 1: 0}
        turns = {0: 0, 1: 0}
        for n in range(10):
            a = V.legal_actions(s)[0]
            mover = s.to_move
            store.append_action(mid, n, a.text(), used_ms=1000 + 100 * n)
            s, _ = V.apply(s, a)
            used[mover] += 1000 + 100 * n
            turns[mover] += s.to_move != mover
        rec = store.match_record(mid)
        m = restore_voltage(rec)
        assert m.control == CL.DEFAULT and m.clock is not None
        for seat in (0, 1):
            assert m.remaining_ms(seat) == 300_000 + 5_000 * turns[seat] - used[seat]
        view = m.clock_view()
        assert view is not None and view.running is None  # not started: the down time is not charged


async def test_a_private_room_may_choose_its_control_or_none_and_a_quick_match_has_five_plus_five(tmp_path):
    from tui.ports import Refused

    with Store.open(tmp_path) as store:
        lobby = lobby_on(store)
        alice, bob = online(lobby, KA, "alice"), online(lobby, KB, "bob")
        backend = SSHBackend(lobby, alice)
        with refused("MINUTES\\+SECONDS", Refused):
            await backend.create_room("voltage", time_control="soon")
        room = await backend.create_room("voltage", time_control="10+0")
        hb = lobby.join_room(bob, room.code)
        m = lobby.hosted_of(hb).match
        assert m.control == CL.TimeControl(600, 0)
        assert store.match_record(lobby.hosted_of(hb).recording.match_id).time_control == "10+0"
        await m.handle(0).resign()
        await backend.enter_lobby()
        lobby.enter_lobby(bob)
        waiting = asyncio.ensure_future(lobby.quick_match(alice))
        await asyncio.sleep(0)
        hq = await lobby.quick_match(bob)
        await waiting
        assert lobby.hosted_of(hq).match.control == CL.DEFAULT


async def test_a_rematch_keeps_the_rooms_control():
    from server.lobby.core import Lobby

    lobby = Lobby(bot_delay=0)
    a, b = lobby.connect(None, "A"), lobby.connect(None, "B")
    for p, n in ((a, "A"), (b, "B")):
        lobby.claim_name(p, n)
    room = lobby.create_room(a, "voltage", time_control=None)
    hb = lobby.join_room(b, room.code)
    ha = await room.future
    assert ha[0].match.control is None
    await ha[0].resign()
    ask_a = asyncio.ensure_future(lobby.rematch(a, ha))
    await asyncio.sleep(0)
    nb = await lobby.rematch(b, hb)
    na = await ask_a
    assert na[0].match is nb[0].match and na[0].match.control is None and na[0].extras["clock"] is None


def test_a_version_3_store_moves_to_4_and_its_running_match_comes_back_without_a_clock(tmp_path):
    import sqlite3

    from server.store import db as S

    c = sqlite3.connect(tmp_path / "voltage.db")
    c.executescript("".join(S.MIGRATIONS[:3]) + "\nPRAGMA user_version = 3;")
    c.execute("INSERT INTO matches (id, game, seed, code, status, started) "
              "VALUES (1, 'voltage', '5', '', 'running', 1)")
    c.execute("INSERT INTO seats (match_id, seat, name) VALUES (1, 0, 'alice'), (1, 1, 'bob')")
    c.execute("INSERT INTO actions (match_id, idx, action, at) VALUES (1, 0, ?, 2)",
              (V.legal_actions(V.new_match(5))[0].text(),))
    c.commit()
    c.close()
    with Store.open(tmp_path) as store:
        assert store.schema_version == S.SCHEMA_VERSION >= 4
        rec = store.match_record(1)
        assert rec.time_control is None and rec.used_ms == (None,)
        m = restore_voltage(rec)
        assert m.control is None and m.clock_view() is None and len(m.actions) == 1
