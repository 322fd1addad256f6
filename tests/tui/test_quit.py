"""Ctrl+Q: in a live match it asks first, saying what quitting costs (offline: the match
is lost; over SSH: the seat waits the grace period, or goes to a bot at once for a
guest); "no" goes on playing, "yes" (or a second Ctrl+Q) quits; elsewhere it quits at once."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from textual import events
from textual.app import App

from server.backend import SSHBackend
from server.lobby.core import Lobby
from tests.support.ssh import ROOMY_STARTS
from tests.support.wait import until
from tests.tui.helpers import local_app, match_screen
from tui.app import VoltageApp
from tui.dialogs.confirm import QuitScreen
from tui.dialogs.pass_keyboard import PassKeyboardScreen
from tui.games.highvoltage.match import HVMatchScreen
from tui.games.highvoltage.setup import HVSetupScreen
from tui.games.voltage.match import MatchScreen
from tui.games.voltage.results import ResultsScreen
from tui.pacing import DEFAULT
from tui.screens.start import StartScreen

SIZE = (80, 24)


def question(app: App) -> str:
    assert isinstance(app.screen, QuitScreen), app.screen
    return app.screen.question


async def asks_then_goes_on(pilot, app: App, under: type) -> str:
    """Ctrl+Q asks; "n" goes back to the same screen with the match still on."""
    await pilot.press("ctrl+q")
    await until(lambda: isinstance(app.screen, QuitScreen))
    text = question(app)
    await pilot.press("n")
    await until(lambda: isinstance(app.screen, under))
    assert app.return_code is None and app.is_running
    return text


async def test_ctrl_q_outside_a_match_quits_at_once():
    app, backend = local_app(seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: isinstance(app.screen, StartScreen))
        await pilot.press("ctrl+q")
        await until(lambda: app.return_code is not None)
        assert app.return_code == 0
    backend.close()


async def test_ctrl_q_in_a_local_match_asks_that_it_will_be_lost_and_no_goes_on():
    app, backend = local_app(seed=2)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # Voltage against the medium bot
        await until(lambda: isinstance(app.screen, MatchScreen))
        text = await asks_then_goes_on(pilot, app, MatchScreen)
        assert text.startswith("Quit? The match") and "not saved" in text and "loses it" in text
        assert not match_screen(app).view.over
        # "yes" quits
        await pilot.press("ctrl+q")
        await until(lambda: isinstance(app.screen, QuitScreen))
        await pilot.press("y")
        await until(lambda: app.return_code is not None)
        assert app.return_code == 0
    backend.close()


async def test_ctrl_q_twice_quits_and_the_question_shows_over_the_rules():
    app, backend = local_app(seed=2)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, MatchScreen))
        await pilot.press("question_mark")
        await pilot.pause()
        await pilot.press("ctrl+q")  # the match is under the rules: still asked
        await until(lambda: isinstance(app.screen, QuitScreen))
        await pilot.press("ctrl+q")
        await until(lambda: app.return_code is not None)
    backend.close()


async def test_ctrl_q_in_a_hot_seat_match_says_the_hot_seat_match_is_lost():
    app, backend = local_app(seed=3)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(8):
            await pilot.press("down")  # the last choice is hot-seat
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("enter", "enter")  # the two names as offered
        await until(lambda: isinstance(app.screen, PassKeyboardScreen))
        text = await asks_then_goes_on(pilot, app, PassKeyboardScreen)
        assert "hot-seat match is not saved" in text
    backend.close()


async def test_ctrl_q_after_the_match_is_over_quits_at_once():
    app, backend = local_app(seed=8)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, MatchScreen))
        await pilot.press("ctrl+r", "y")  # resign: the match is over
        await until(lambda: isinstance(app.screen, ResultsScreen))
        await pilot.press("ctrl+q")
        await until(lambda: app.return_code is not None)
    backend.close()


async def test_ctrl_q_in_a_local_high_voltage_match_asks_first():
    app, backend = local_app(seed=21)
    backend.hv_options = dict(countdown_seconds=0.03, bot_speed=0.001)  # the bot hardly moves
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("tab", "down", "enter")  # High Voltage
        await until(lambda: isinstance(app.screen, HVSetupScreen))
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, HVMatchScreen))
        text = await asks_then_goes_on(pilot, app, HVMatchScreen)
        assert "The match is not saved" in text
        assert app.screen.playing
        await pilot.press("ctrl+q", "y")
        await until(lambda: app.return_code is not None)
    backend.close()


class Session(VoltageApp):
    """One SSH session's app, opened on a match the lobby hosts."""

    def __init__(self, backend: SSHBackend, handles: list[Any]) -> None:
        super().__init__(backend, player_name=backend.player.name, pacing=replace(DEFAULT, results_delay=0))
        self.ssh = backend
        self.handles = handles

    # The Mount event taken, to stop VoltageApp's own handler (which opens the lobby).
    def on_mount(self, event: events.Mount) -> None:  # type: ignore[override]
        event.prevent_default()  # not the lobby: straight into the match
        self.push_screen(self.ssh.match_screen(self.handles))


async def bot_match_session(identity: str | None, game: str) -> tuple[Lobby, Any, Session]:
    """Ann in the lobby (``identity``: her key, or a guest), in a match of ``game`` against a bot, and her
    session's app opened on it."""
    lobby = Lobby(grace=45.0, bot_delay=60.0)
    player = lobby.connect(identity, "ann")
    lobby.claim_name(player, "Ann")
    handles = lobby.play_bot(player, "medium" if game == "voltage" else "slow", game)
    return lobby, player, Session(SSHBackend(lobby, player), handles)


async def test_ctrl_q_over_ssh_says_the_seat_waits_the_grace_period_which_it_does():
    for game, screen_type in (("voltage", MatchScreen), ("high-voltage", HVMatchScreen)):
        lobby, player, app = await bot_match_session("SHA256:ann-key", game)
        async with app.run_test(size=SIZE) as pilot:
            await until(lambda app=app, screen_type=screen_type: isinstance(app.screen, screen_type))
            text = await asks_then_goes_on(pilot, app, screen_type)
            assert "your seat waits 45 s for you to reconnect, then a bot plays it" in text, text
            await pilot.press("ctrl+q", "y")
            await until(lambda app=app: app.return_code is not None)
        # what the session's end does (the session layer's services call leave): the seat is kept, no bot yet
        (h,) = lobby.matches.values()
        lobby.leave(player)
        assert 0 in h.grace and h.match.seats[0].bot is None, game
        h.match.close()
        for task in h.grace.values():
            task.cancel()


async def test_ctrl_q_over_ssh_as_a_guest_says_a_bot_takes_the_seat_now():
    lobby, player, app = await bot_match_session(None, "voltage")
    async with app.run_test(size=SIZE) as pilot:
        await until(lambda: isinstance(app.screen, MatchScreen))
        text = await asks_then_goes_on(pilot, app, MatchScreen)
        assert "as a guest you cannot come back, so a bot takes your seat now" in text, text
    (h,) = lobby.matches.values()
    lobby.leave(player)
    assert h.match.seats[0].bot is not None
    h.match.close()


async def test_ctrl_q_over_real_ssh_asks_then_quitting_keeps_the_seat_for_the_grace_period():
    """Two players over SSH (pyte terminals): Alice's Ctrl+Q asks, "n" goes on; "y" ends
    her session, and Bob's screen counts down her seat's grace period."""
    import asyncssh

    from server.config import ServerConfig
    from server.serve import local_sessions
    from server.ssh.server import VoltageServer
    from tests.support.ssh import stop
    from tests.support.terminal import Terminal

    config = ServerConfig(host="127.0.0.1", port=0, grace=30.0, bot_offer_after=60.0, bot_delay=0.0,
                          session_starts=ROOMY_STARTS)
    srv = VoltageServer(config, local_sessions(config))
    await srv.start()
    ka, kb = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    terms = []
    try:
        for name, key in (("alice", ka), ("bob", kb)):
            t = await Terminal(100, 32).connect(srv.port, name, client_keys=[key])
            terms.append(t)
            await t.wait_for("Your name")
            t.press("enter")
            await t.wait_for(f"you: {name}")
        alice, bob = terms
        await alice.wait_for(r"Online \(2\)")
        alice.press("enter")  # quick match
        await alice.wait_for("Waiting for an opponent")
        bob.press("enter")
        for t in terms:
            await t.wait_for("VOLTAGE")
        alice.press("\x11")  # ctrl+q
        await alice.wait_for(r"Quit\? The match goes on: your seat waits 30 s for")
        alice.press("n")
        await alice.wait_gone("Quit\\?")
        assert not alice.closed.is_set() and alice.has("VOLTAGE")
        alice.press("\x11", "y")
        await asyncio.wait_for(alice.closed.wait(), 30)
        await bob.wait_for(r"waiting for alice to reconnect \(0:[0-3]\d\)")  # counting down from 0:30
    finally:
        for t in terms:
            await t.close()
        await stop(srv)
