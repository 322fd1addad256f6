"""End to end over SSH: three people and a bot play High Voltage to the end.

Each person is a real SSH client with a PTY whose output a terminal emulator
(pyte) renders at 80x24.  The clients play like people: they read the top card
and their hand *from their own screen*, and press a card's key, ``d`` or ``s``.
The server runs the real app (``tui.app.make_app``) over the real SSH driver;
each session's backend seats it at a shared :class:`server.host.highvoltage.HVMatch`
(the lobby's own High Voltage tables are tested in ``test_hv_lobby.py``).
At the end every screen must show the same winner and the same top card.
"""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from server.host.common import Seat
from server.host.highvoltage import HVMatch, bot_seat
from server.session.app import harden_app
from tests.support.hv_player import play, read_screen
from tests.support.terminal import Terminal

tui_app = pytest.importorskip("tui.app")

PEOPLE = ("alice", "bob", "cleo")

class SeatBackend:
    """A session's backend that seats it at the shared match (no lobby)."""

    online = True

    def __init__(self, match: HVMatch, seat: int) -> None:
        self.match, self.seat = match, seat

    def home_screen(self):
        from tui.games.highvoltage.match import HVMatchScreen

        return HVMatchScreen([self.match.handle(self.seat)], self)

    async def rematch(self, handles):
        return None


async def test_three_people_and_a_bot_play_to_the_end_over_ssh(start_server):
    seats = [Seat(name, f"key-{name}") for name in PEOPLE] + [bot_seat("fast")]
    match = HVMatch(seats, seed=17, countdown_seconds=0.3, bot_speed=40.0)
    seat_of = {name: i for i, name in enumerate(PEOPLE)}

    def factory(backend, player_name):
        app = harden_app(tui_app.make_app(SeatBackend(match, seat_of[backend.player.username])))
        app.results_delay = 0.1
        return app

    srv = await start_server(factory)
    terms = [await Terminal(80, 24).connect(srv.port, name) for name in PEOPLE]
    try:
        for t in terms:
            await t.wait_for("HIGH VOLTAGE", timeout=30)
            await t.wait_for(r"hand pile", timeout=30)
        match.start()
        for t in terms:
            await t.wait_for("Play any time", timeout=30)
        done = asyncio.Event()
        match.on_end.append(lambda _m: done.set())
        t0 = time.monotonic()
        pressed = await asyncio.wait_for(asyncio.gather(*(play(t, done) for t in terms)), 120)
        await asyncio.wait_for(done.wait(), 30)
        assert match.over and match.winner is not None
        winner = match.names[match.winner]
        for t in terms:
            await t.wait_for(f"{re.escape(winner)} wins High Voltage", timeout=30)
        # close the results on every screen and compare the final table
        for t in terms:  # (the results' own keys, once they take them: a key before goes to the table)
            await t.wait_for("v see the table", timeout=30)
            t.press("v")
        final = match.view(None)
        for t in terms:
            await t.wait_gone("wins High Voltage", timeout=30)
            await t.wait_for(f"top card #{final.top_no}", timeout=30)
            top, _hand, _me = read_screen(t.text())
            assert top == (final.top.value, final.top.mod), t.text()
        people_moves = [a for a in match.actions if getattr(a, "seat", None) in (0, 1, 2)]
        assert all(p > 0 for p in pressed) and people_moves
        print(
            f"{len(match.actions)} actions ({len(people_moves)} by the people over SSH, keys {pressed}), "
            f"{match.too_slow} too slow, winner {winner}, in {time.monotonic() - t0:.1f}s"
        )
    finally:
        match.close()
        for t in terms:
            await t.close()
