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

from server.host.highvoltage import HVMatch, bot_seat
from server.host.voltage import Seat
from server.ssh.server import harden_app
from tests.server.terminal import Terminal

tui_app = pytest.importorskip("tui.app")

PEOPLE = ("alice", "bob", "cleo")
_TOP = re.compile(r"┃\s+(\d+)\s+±(\d) (turquoise|yellow|red)\s+┃")
_TOP_NO = re.compile(r"top card #(\d+)")
_KEYS = re.compile(r"[╭┏╔][─━═]([0-9a-z])[─━═]")
_CARDS = re.compile(r"[│┃║]\s*(\d+)\s*±(\d)\s*[│┃║]")


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


def read_screen(text: str) -> tuple[tuple[int, int] | None, list[tuple[str, int]], tuple[int, int] | None]:
    """What a person sees: the top card (value, modifier), the hand (key, value), and
    their own row of the players table (hand, pile)."""
    lines = text.splitlines()
    top = None
    for line in lines:
        m = _TOP.search(line)
        if m:
            top = (int(m.group(1)), int(m.group(2)))
    hand: list[tuple[str, int]] = []
    for i, line in enumerate(lines[:-1]):
        keys = _KEYS.findall(line)
        cards = _CARDS.findall(lines[i + 1])
        if keys and len(keys) == len(cards):
            hand += [(k, int(v)) for k, (v, _m) in zip(keys, cards)]
    me = re.search(r"▸ \S+\s+(\d+)\s+(\d+)", text)
    return top, hand, (int(me.group(1)), int(me.group(2))) if me else None


def fits(value: int, top: tuple[int, int]) -> bool:
    v, m = top
    return value in ((v + m - 1) % 10 + 1, (v - m - 1) % 10 + 1)


async def play(t: Terminal, done: asyncio.Event) -> int:
    """Play from the screen until the results show; returns the keys pressed."""
    pressed = 0
    stuck_at: str | None = None
    seen = -1
    while not done.is_set():
        if t.frames == seen:  # nothing new on the screen: look again a moment later
            await asyncio.sleep(0.01)
            continue
        seen = t.frames
        text = t.text()
        if "wins High Voltage" in text or "Nobody wins" in text:
            return pressed
        top, hand, me = read_screen(text)
        if top is None or me is None or "Wait for the countdown" in text or "Play any time" not in text:
            continue
        key = next((k for k, v in hand if fits(v, top)), None)
        if key is None:
            if me[1] > 0:
                key = "d"
            elif stuck_at != text.split("feed")[0]:
                key, stuck_at = "s", text.split("feed")[0]
        if key is not None:
            t.press(key)
            pressed += 1
            deadline = time.monotonic() + 1.0
            while t.frames == seen and time.monotonic() < deadline and not done.is_set():
                await asyncio.sleep(0.005)  # wait for the screen to answer
            await asyncio.sleep(0.02)  # and for the rest of its frame
    return pressed


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
            await t.wait_for("HIGH VOLTAGE", timeout=10)
            await t.wait_for(r"hand pile", timeout=10)
        match.start()
        for t in terms:
            await t.wait_for("Play any time", timeout=10)
        done = asyncio.Event()
        match.on_end.append(lambda _m: done.set())
        t0 = time.monotonic()
        pressed = await asyncio.wait_for(asyncio.gather(*(play(t, done) for t in terms)), 60)
        await asyncio.wait_for(done.wait(), 10)
        assert match.over and match.winner is not None
        winner = match.names[match.winner]
        for t in terms:
            await t.wait_for(f"{re.escape(winner)} wins High Voltage", timeout=10)
        # close the results on every screen and compare the final table
        for t in terms:
            t.press("v")
        final = match.view(None)
        for t in terms:
            await t.wait_gone("wins High Voltage", timeout=10)
            await t.wait_for(f"top card #{final.top_no}", timeout=10)
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
