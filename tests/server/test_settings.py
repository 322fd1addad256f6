"""Settings that follow the key (its colours, for one), every action's time in the store
and in ``export``, and the client's NO_COLOR."""

from __future__ import annotations

import json
import sqlite3

from server.backend import SSHBackend
from server.lobby.core import Lobby
from server.store import db as S
from server.store.db import Store
from server.store.persist import export_json
from tests.support.store import KA, KB, finished_match
from tests.support.words import refused
from tests.tui.test_lobby_screen import colours_drawn, lines_of, open_settings, point_at
from tui.app import make_app


def test_a_keys_settings_are_kept_across_restarts(tmp_path):
    with Store.open(tmp_path) as store:
        store.upsert_player(KA, "Alice")
        store.set_setting(KA, "colours", "light").result()
        assert store.settings(KA) == {"colours": "light"}
    with Store.open(tmp_path) as store:
        assert store.setting(KA, "colours") == "light" and store.settings(KB) == {}


def test_export_gives_each_actions_time_since_the_start(tmp_path):
    with Store.open(tmp_path) as store:
        mid = finished_match(store, 11)
        out = json.loads(export_json(store, mid))
        assert out["version"] == 2
        assert len(out["times"]) == len(out["actions"]) > 0
        assert all(isinstance(t, float) and t >= 0 for t in out["times"])
        assert out["times"] == sorted(out["times"])


def test_a_version_2_store_moves_to_3_and_keeps_its_matches(tmp_path):
    path = tmp_path / "voltage.db"
    c = sqlite3.connect(path)
    c.executescript(S.MIGRATIONS[0] + S.MIGRATIONS[1] + "\nPRAGMA user_version = 2;")
    c.execute("INSERT INTO players VALUES ('k', 'Old', 1, 1)")
    c.execute(
        "INSERT INTO matches (id, game, seed, code, status, started) VALUES (1, 'voltage', '5', '', 'running', 1)"
    )
    c.execute("INSERT INTO actions (match_id, idx, action) VALUES (1, 0, 'draw')")
    c.commit()
    c.close()
    with Store.open(tmp_path) as store:
        assert store.schema_version == S.SCHEMA_VERSION >= 3
        rec = store.match_record(1)
        assert rec.actions == ("draw",) and rec.times == (None,)
        assert store.player("k").name == "Old"


async def test_colours_chosen_in_the_lobby_follow_the_key_to_its_next_session(tmp_path):
    with Store.open(tmp_path) as store:
        store.upsert_player(KA, "Alice")
        for expected in ("dark", "light"):
            lobby = Lobby(store=store, seed=1)
            app = make_app(SSHBackend(lobby, lobby.connect(KA, "alice")), player_name="alice")
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.press("enter")
                await pilot.pause()
                assert app.colours == expected
                if expected == "dark":
                    point_at(await open_settings(pilot), "colours")
                    await pilot.press("right")
                    await pilot.pause()
                    assert app.colours == "light"
            await lobby_idle(store)


async def lobby_idle(store):
    store.in_writer(lambda c: None).result()  # every queued write done


async def test_the_clients_no_color_starts_a_session_without_colour(tmp_path):
    with Store.open(tmp_path) as store:
        store.upsert_player(KA, "Alice")
        store.set_setting(KA, "colours", "light").result()
        lobby = Lobby(store=store, seed=1)
        backend = SSHBackend(lobby, lobby.connect(KA, "alice"), env={"NO_COLOR": ""})
        app = make_app(backend, player_name="alice")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("enter")
            await pilot.pause()
            assert app.colours == "none" and colours_drawn(app) == set()
            await open_settings(pilot)
            assert "Colours: no colour" in "\n".join(lines_of(app))


async def test_the_your_turn_alert_is_on_until_switched_off_and_stays_off_for_the_key(tmp_path):
    with Store.open(tmp_path) as store:
        store.upsert_player(KA, "Alice")
        for expected in (True, False):
            lobby = Lobby(store=store, seed=1)
            app = make_app(SSHBackend(lobby, lobby.connect(KA, "alice")), player_name="alice")
            async with app.run_test(size=(100, 30)) as pilot:
                await pilot.press("enter")
                await pilot.pause()
                assert app.turn_alerts is expected
                if expected:
                    point_at(await open_settings(pilot), "alerts")
                    await pilot.press("enter")
                    await pilot.pause()
                    assert app.turn_alerts is False
                    assert "Your turn: no alert" in "\n".join(lines_of(app))
            await lobby_idle(store)


async def test_a_key_that_refuses_challenges_is_not_challenged_in_its_next_session(tmp_path):
    from server.lobby.models import LobbyError

    with Store.open(tmp_path) as store:
        store.upsert_player(KA, "Alice")
        lobby = Lobby(store=store, seed=1)
        backend = SSHBackend(lobby, lobby.connect(KA, "alice"))
        await backend.claim_name("Alice")
        app = make_app(backend, player_name="alice")
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            point_at(await open_settings(pilot), "challenges")
            assert "Challenges: welcome" in "\n".join(lines_of(app))
            await pilot.press("enter")
            await pilot.pause()
            assert "Challenges: refused" in "\n".join(lines_of(app))
        await lobby_idle(store)
        lobby = Lobby(store=store, seed=1)
        alice = lobby.connect(KA, "alice")
        lobby.claim_name(alice, "Alice")
        bob = lobby.connect(None, "bob")
        lobby.claim_name(bob, "bob")
        with refused("Alice does not take challenges", LobbyError):
            lobby.challenge(bob, "alice")
