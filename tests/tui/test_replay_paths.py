"""Every way into a replay opens on every hand: ``ssh -t HOST replay ID``,
the lobby's "Your matches" (the backend's ``replay_screen``) and ``voltage replay ID``
all build the screen through ``Replay.load`` and ``replay_screen``; these check each
path's own end, the screens' details being in test_replay_screen."""

from __future__ import annotations

import asyncio
import re

from server.backend import SSHBackend
from server.replay import Replay
from tests.support.store import KB
from tests.support.terminal import Terminal
from tui.games.voltage.replay import ReplayScreen
from tui.text import card_label


async def test_ssh_replay_shows_every_hand_and_s_switches_to_a_seat(kept):
    mid = kept.ids[0]
    hands = Replay.load(kept.store, mid).hands(0)
    t = await Terminal(100, 32).connect(kept.port, "carol", command=f"replay {mid}")
    try:
        await t.wait_for(r"s\s+every hand")
        await t.wait_for("as a spectator")
        # The deal: the board is empty, so every card on screen is in a hand, face up.
        for card in hands[0] + hands[1]:
            if not card.special:
                assert t.has(re.escape(card_label(card))), (card, t.text())
        t.send("s")
        await t.wait_for(r"s\s+Alice's view")
        await t.wait_for(rf"{len(hands[1])} cards")  # Bob's hand: backs and a count now
        t.send("q")
        await asyncio.wait_for(t.closed.wait(), 30)
    finally:
        await t.close()


async def test_the_lobby_opens_a_players_replay_on_every_hand(kept):
    mid = kept.ids[1]
    bob = kept.lobby.connect(KB, "Bob")
    screen = await SSHBackend(kept.lobby, bob).replay_screen(mid)
    assert isinstance(screen, ReplayScreen) and screen.replay.seat == 1  # his own seat at the bottom
    assert screen.handle.all_hands and screen.handle.hands() == screen.replay.hands(0)
    assert screen.view == screen.replay.seat_view(0, 1)


def test_voltage_replay_opens_on_every_hand(kept, monkeypatch):
    import tui.app
    from voltage.cli import main

    opened = []

    class NoTerminal:  # the app `voltage replay` would run: what it was given to show
        return_code = 0
        driver_class = None

        def __init__(self, backend, **kw):
            opened.append(backend.home_screen())

        def run(self):
            return None

        async def run_async(self):  # (voltage replay runs its app through tui.run.run_local)
            return None

        def exit(self, return_code=0):
            return None

    monkeypatch.setattr(tui.app, "make_app", NoTerminal)
    mid = kept.ids[0]
    assert main(["replay", str(mid), "--data-dir", str(kept.store.path.parent)]) == 0
    (screen,) = opened
    assert isinstance(screen, ReplayScreen) and screen.replay.seat is None
    assert screen.handle.all_hands and screen.handle.hands() == screen.replay.hands(0)
