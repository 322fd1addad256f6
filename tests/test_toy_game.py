"""A third game touches only its own folders and one line per registry.

The toy game of :mod:`tests.support.toy` (its rules, its server entry on the shared match
host, its words and screens) is put in the engine's, the server's and the tui's
registries, and then plays through what a lobby screen calls (:class:`server.backend.SSHBackend`
over :class:`server.lobby.core.Lobby`): a quick match between two people and a match
against a bot, the result and the ratings kept in a store, the replay and the history
read back, a restart restoring a match half played, and its own screen wording its log."""

from __future__ import annotations

import asyncio
import time

from textual.app import App

from server.backend import SSHBackend
from server.lobby.core import Lobby
from server.store.db import Store
from tests.support.toy import register
from tests.support.toy import rules as T
from tests.support.toy.screens import ToyMatchScreen
from tests.support.wait import until
from tests.support.words import lines
from tui import words as W
from tui.games.registry import words

KA, KB = "SHA256:ann", "SHA256:bob"


async def backend(lobby: Lobby, key: str, name: str) -> SSHBackend:
    b = SSHBackend(lobby, lobby.connect(key, name))
    await b.claim_name(name)
    return b


async def play_out(handles) -> None:
    """Each seat lays its lowest card in turn, through its own handle, until the end."""
    by_seat = {h.seat: h for h in handles}
    while not (view := handles[0].view()).over:
        mover = by_seat[view.to_move]
        await mover.submit(T.Play(mover.seat, mover.view().hand[0]))


async def test_a_quick_match_of_a_third_game_is_played_kept_rated_and_replayed(tmp_path, monkeypatch):
    register(monkeypatch)
    with Store.open(tmp_path) as store:
        lobby = Lobby(store=store, seed=1, bot_delay=0)
        ann, bob = await backend(lobby, KA, "ann"), await backend(lobby, KB, "bob")
        (ha,), (hb,) = await asyncio.wait_for(asyncio.gather(ann.quick_match("toy"), bob.quick_match("toy")), 30)
        assert ha.match is hb.match and ha.game == "toy" and {ha.seat, hb.seat} == {0, 1}
        match = ha.match
        (listed,) = lobby.snapshot().matches  # the lobby lists it, in the toy's words
        assert words("toy").describe("Toy", listed.names, listed.scores) == "Toy: ann v bob  0-0"
        await play_out([ha, hb])
        assert match.over and len(match.actions) == 2 * T.HAND
        await until(lambda: lobby.matches[match.code].recording.finished)
        # kept: the record, its result and the ratings
        record = store.match_record(lobby.matches[match.code].recording.match_id)
        assert record.finished and record.game == "toy" and record.reason == match.outcome.reason
        assert [a for a in record.actions] == [a.text() for a in match.actions]
        changes = await ann.rating_change([ha])
        assert changes is not None and {c.name for c in changes} == {"ann", "bob"}
        assert "ann: rating" in W.rating_changes(changes)
        # the history names the game; the replay steps through every position, worded by its words
        ((mid, line),) = W.history_lines(await ann.history())
        assert mid == record.id and "Toy" in line
        replay = ann.open_replay(record.id)
        assert replay.last == len(match.actions) and replay.state(replay.last) == match.state
        said = lines("toy", replay.entries(replay.last), replay.names)
        assert said[0].endswith("starts.") and any("laid a" in x for x in said)
        assert " wins " in said[-1] or said[-1].startswith("A draw")
        # the host words nothing: its log is the engine's events
        assert all(isinstance(e, T.Event) for e in match.log)
        match.close()


async def test_a_third_game_against_a_bot_on_its_own_screen(tmp_path, monkeypatch):
    register(monkeypatch)
    with Store.open(tmp_path) as store:
        lobby = Lobby(store=store, seed=2, bot_delay=0)
        ann = await backend(lobby, KA, "ann")
        handles = await ann.play_bot("first", "toy")
        screen = ann.match_screen(handles)
        assert isinstance(screen, ToyMatchScreen)

        class Host(App):
            def on_mount(self) -> None:
                self.push_screen(screen)

        app = Host()
        async with app.run_test(size=(80, 24)) as pilot:
            await until(lambda: screen.is_mounted)
            # (until the match is over, however slowly a busy machine plays it: 40 looks 20 ms apart
            # were not always enough for the bot's first move beside a CPU hog)
            deadline = time.monotonic() + 60
            while not screen.view.over and time.monotonic() < deadline:
                if screen.view.my_turn:
                    await pilot.press("1")
                await pilot.pause(0.02)
            assert screen.view.over
            assert screen.lines[0].endswith("starts.") and sum("laid a" in x for x in screen.lines) == 2 * T.HAND
            assert any(x.startswith("A draw") or " wins " in x for x in screen.lines)
        handles[0].match.close()


async def test_a_restart_brings_a_half_played_match_of_a_third_game_back(tmp_path, monkeypatch):
    register(monkeypatch)
    with Store.open(tmp_path) as store:
        lobby = Lobby(store=store, seed=3, bot_delay=0)
        ann, bob = await backend(lobby, KA, "ann"), await backend(lobby, KB, "bob")
        (ha,), (hb,) = await asyncio.wait_for(asyncio.gather(ann.quick_match("toy"), bob.quick_match("toy")), 30)
        mover = ha if ha.view().to_move == ha.seat else hb
        await mover.submit(T.Play(mover.seat, mover.view().hand[0]))
        state, log = ha.match.state.copy(), list(ha.match.log)
        ha.match.close()
        again = Lobby(store=store, seed=4, bot_delay=0)
        (h,) = again.restore()
        assert h.game == "toy" and h.match.state == state and h.match.log == log
        h.match.close()
