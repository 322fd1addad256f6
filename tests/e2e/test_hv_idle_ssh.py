"""End to end over SSH: High Voltage idling.

Two real SSH clients (pyte-rendered, 80x24) sit at one table with a bot too slow to
end the match.  Alice does nothing: Bob's screen shows "Alice (idle)" and the vote key,
Bob presses ``K`` (with only a bot besides, his vote is enough), Alice's screen tells
her a bot plays her seat, and ``t`` gives it back to her.  The idle limit is shortened
(``idle_seconds``); every wait is on the screen's text.
"""

from __future__ import annotations

import pytest

from server.host.common import Seat
from server.host.highvoltage import HVMatch, bot_seat
from server.session.app import harden_app
from tests.support.terminal import Terminal

tui_app = pytest.importorskip("tui.app")


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


async def test_the_other_screen_shows_the_idle_mark_and_the_vote_key(start_server):
    seats = [Seat("alice", "key-alice"), Seat("bob", "key-bob"), bot_seat("fast")]
    match = HVMatch(seats, seed=17, countdown_seconds=0.3, bot_speed=0.0001, idle_seconds=1.0)
    seat_of = {"alice": 0, "bob": 1}

    def factory(backend, player_name):
        return harden_app(tui_app.make_app(SeatBackend(match, seat_of[backend.player.username])))

    srv = await start_server(factory)
    alice = await Terminal(80, 24).connect(srv.port, "alice")
    bob = await Terminal(80, 24).connect(srv.port, "bob")
    try:
        for t in (alice, bob):
            await t.wait_for("hand pile", timeout=30)
        match.start()
        for t in (alice, bob):
            await t.wait_for("Play any time", timeout=30)
        assert "press K" not in bob.text()
        await bob.wait_for(r"alice \(idle\)", timeout=30)
        await bob.wait_for("alice is idle: press K to continue without alice", timeout=30)
        await bob.wait_for("K continue without idle", timeout=30)  # the key bar
        bob.press("K")
        await alice.wait_for("You were idle; a bot plays your seat", timeout=30)
        await alice.wait_for("t take my seat back", timeout=30)
        await bob.wait_for(r"alice \(bot pl", timeout=30)
        assert match.seats[0].bot == "fast"
        alice.press("t")
        await alice.wait_gone("take my seat back", timeout=30)
        assert "A bot plays your seat" not in alice.text()
        await bob.wait_gone(r"alice \(bot pl", timeout=30)
        assert not match.seats[0].is_bot
    finally:
        match.close()
        for t in (alice, bob):
            await t.close()
