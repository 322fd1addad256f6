"""Settings over real SSH (pyte-rendered PTYs): what a key chooses on the settings screen
is what its next session starts with, on the same server and after a restart (the
store keeps it); a guest's choices are not kept past the session."""

from __future__ import annotations

import contextlib
from concurrent.futures import ThreadPoolExecutor

import asyncssh

from server.config import ServerConfig
from server.serve import local_sessions
from server.session.app import harden_app
from server.ssh.server import VoltageServer
from server.store.db import Store
from tests.support.e2e import enter
from tests.support.ssh import ROOMY_STARTS, lobby_of, stop
from tests.support.wait import until
from tui import app as tui_app


def factory_into(apps: dict):
    def factory(backend, player_name):
        app = harden_app(tui_app.make_app(backend, player_name=player_name))
        apps[backend.player.username] = app
        return app

    return factory


@contextlib.asynccontextmanager
async def stored_server(data_dir, apps: dict):
    """A server keeping its players (and their settings) in a store at ``data_dir``, as
    ``voltage serve`` does; closed (the store too) at the end."""
    executor = ThreadPoolExecutor(max_workers=2)
    store = Store.open(data_dir)
    config = ServerConfig(host="127.0.0.1", port=0, grace=2.0, bot_offer_after=0.5, bot_delay=0.0,
                          session_starts=ROOMY_STARTS)
    srv = VoltageServer(config, local_sessions(config, executor=executor, store=store, app_factory=factory_into(apps)))
    await srv.start()
    try:
        yield srv
    finally:
        await stop(srv)
        store.close()
        executor.shutdown(wait=False, cancel_futures=True)


async def settings_shown(t, *lines: str) -> None:
    t.press("s")
    await t.wait_for("Settings: ")
    for line in lines:
        await t.wait_for(line)


async def test_settings_follow_the_key_across_reconnects_and_a_restart(tmp_path):
    apps: dict = {}
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with stored_server(tmp_path, apps) as srv:
        await first_and_second_session(srv, apps, key)
    async with stored_server(tmp_path, apps) as srv:  # the same store, a new server's lobby
        t = await enter(srv, "alice", key)
        try:
            assert apps["alice"].colours == "light" and apps["alice"].turn_alerts is False
            await settings_shown(t, "Colours: light", "Your turn: no alert", "Challenges: refused")
        finally:
            await t.close()


async def first_and_second_session(srv, apps, key) -> None:
    t = await enter(srv, "alice", key)
    try:
        await settings_shown(t, "Settings: they follow your key", "Colours: dark", "Your turn: bell and title",
                             "Challenges: welcome")
        t.press("right")
        await t.wait_for("Colours: light")
        t.press("down", "enter")
        await t.wait_for("Your turn: no alert")
        t.press("down", "enter")
        await t.wait_for("Challenges: refused")
    finally:
        await t.close()
    await until(lambda: not lobby_of(srv).snapshot().players, what="alice gone")
    t = await enter(srv, "alice", key)
    try:
        await until(lambda: apps["alice"].colours == "light", what="light colours from the start")
        assert apps["alice"].turn_alerts is False
        await settings_shown(t, "Colours: light", "Your turn: no alert", "Challenges: refused")
    finally:
        await t.close()


async def test_a_guests_settings_end_with_the_session(tmp_path):
    apps: dict = {}
    async with stored_server(tmp_path, apps) as srv:
        await guest_sessions(srv)


async def guest_sessions(srv) -> None:
    t = await enter(srv, "guest")
    try:
        await settings_shown(t, "Settings: for this session", "Your turn: bell and title")
        t.press("down", "enter")
        await t.wait_for("Your turn: no alert")
        t.press("escape")
        await t.wait_for("Quick match: Voltage")
        await settings_shown(t, "Your turn: no alert")  # for the rest of the session
    finally:
        await t.close()
    await until(lambda: not lobby_of(srv).snapshot().players, what="the guest gone")
    t = await enter(srv, "guest")
    try:
        await settings_shown(t, "Your turn: bell and title")
    finally:
        await t.close()
