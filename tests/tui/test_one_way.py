"""One-way data flow: after mounting, a match screen lives on the updates its handle
brings and never reads the match again, not even after sending an action (the update
for an accepted action arrives while it is sent)."""

from __future__ import annotations

from typing import Any

from textual.app import App

from engine.highvoltage import rules as H
from server.host.common import Seat
from server.host.highvoltage import HVMatch
from server.host.voltage import Match
from tests.support.wait import until
from tests.support.words import feed_of, log_of, update_lines
from tests.tui.helpers import FixedBackend, match_screen
from tui.app import make_app
from tui.games.highvoltage.match import HVMatchScreen
from tui.pacing import FAST


class Counting:
    """A seat handle that counts every read of the match (``view()``, ``log``, ...)."""

    READS = ("view", "log", "notice", "names", "countdown", "version")

    def __init__(self, handle: Any) -> None:
        self._h = handle
        self.reads = 0
        self.updates: list[Any] = []

    def __getattr__(self, name: str) -> Any:
        if name in self.READS:
            self.reads += 1
        return getattr(self._h, name)

    def subscribe(self, callback: Any) -> Any:
        def got(update: Any) -> None:
            self.updates.append(update)
            callback(update)

        return self._h.subscribe(got)


async def test_the_voltage_screen_shows_the_update_and_reads_nothing_after_mounting():
    m = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=5, bot_delay=0)
    mover = m.state.to_move
    h = Counting(m.handle(mover))
    app = make_app(FixedBackend([h]), player_name="Ann", pacing=FAST)
    async with app.run_test(size=(120, 40)):
        await until(lambda: match_screen(app) is not None and match_screen(app).is_mounted)
        screen = match_screen(app)
        reads = h.reads
        await screen.submit(screen.view.legal[0])
        assert h.updates and screen.view == h.updates[-1].view  # shown at once: the update's view
        new = update_lines(h.updates[-1], "voltage")
        assert new and screen.lines[-len(new):] == new
        while m.state.to_move == mover and not m.over:  # the rest of the turn
            await screen.submit(screen.view.legal[0])
        other = 1 - mover
        await m.handle(other).submit(m.view(other).legal[0])  # the other player's move
        await until(lambda: screen.view == m.view(mover))
        assert screen.lines == log_of(m)
        assert h.reads == reads, "the screen read the match again instead of using the updates"


class Host(App):
    def __init__(self, handle: Any) -> None:
        super().__init__()
        self.handle = handle
        self.pacing = FAST

    def on_mount(self) -> None:
        self.push_screen(HVMatchScreen([self.handle]))


async def test_the_high_voltage_screen_shows_the_update_and_reads_nothing_after_mounting():
    m = HVMatch([Seat("Alice", "a"), Seat("Bob", "b")], seed=5, countdown_seconds=0.03, bot_speed=100.0)
    h = Counting(m.handle(0))
    app = Host(h)
    async with app.run_test(size=(100, 34)):
        await until(lambda: isinstance(app.screen, HVMatchScreen) and app.screen.is_mounted)
        screen = app.screen
        reads = h.reads
        m.start()
        await until(lambda: screen.view.can_act)
        assert screen.countdown is None and screen.lines == feed_of(m, 0)
        await screen.send(H.Draw(0))
        assert screen.view == m.view(0) and screen.lines == feed_of(m, 0)
        assert h.reads == reads, "the screen read the match again instead of using the updates"
