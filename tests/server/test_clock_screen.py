"""The clocks, abort and draw offers on the Voltage match screen: both banks in the top
bar, the mover's counting down, red when low, spectators too; no clock where the match
has none; the abort key only when allowed; a draw offer answered by keys."""

from __future__ import annotations

import re
import time

from engine import clock as CL
from engine.voltage import rules as V
from server.host.common import Seat
from server.host.voltage import Match
from tests.support.wait import until
from tests.tui.helpers import FixedBackend, match_screen
from tui.app import make_app
from tui.dialogs.confirm import ConfirmScreen
from tui.games.voltage.match import MatchScreen
from tui.games.voltage.scores import TopBar
from tui.pacing import FAST
from tui.widgets.keybar import KeyBar


def shown(app) -> MatchScreen:
    """The match screen, which the test has waited for."""
    screen = match_screen(app)
    assert screen is not None
    return screen


def top(app) -> str:
    return shown(app).query_one("#topbar", TopBar).render().plain


def banks(app) -> list[str]:
    return re.findall(r"\b\d+:\d\d\b", top(app))


def reds(app) -> list[str]:
    """The banks drawn in red."""
    t = shown(app).query_one("#topbar", TopBar).render()
    return [t.plain[s.start:s.end].strip() for s in t.spans if "red" in str(s.style)]


def seconds(bank: str) -> int:
    minutes, secs = bank.split(":")
    return int(minutes) * 60 + int(secs)


def red_when_low(app) -> bool:
    """Each bank is red exactly when under 30 s (shown rounded up: a red bank shows 0:30 at most)."""
    red = reds(app)
    return all(seconds(b) <= 30 if b in red else seconds(b) >= 30 for b in banks(app))


async def test_both_banks_show_and_the_movers_counts_down_every_second():
    m = Match([Seat("alice", "a"), Seat("bob", "b")], seed=5, control=CL.TimeControl(32, 5))
    m.start()
    mover = m.state.to_move
    app = make_app(FixedBackend([m.handle(1 - mover)]), player_name="x", pacing=FAST)
    async with app.run_test(size=(120, 40)):
        await until(lambda: match_screen(app) is not None and match_screen(app).is_mounted)
        first = banks(app)
        # (by the first look a loaded machine may have let the bank run below 30 s)
        assert len(first) == 2 and "0:32" in first and red_when_low(app)
        # The mover's bank runs down, shown without any update from the host (1 Hz),
        # and turns red under 30 s; the other's stays.
        await until(lambda: banks(app) != first, what="the clock to tick")
        await until(lambda: len(reds(app)) == 1, what="red")
        assert red_when_low(app) and "0:32" in banks(app) and "0:32" not in reds(app) and not m.actions
    m.close()


async def test_a_spectator_sees_the_clocks_and_a_match_without_one_shows_none():
    m = Match([Seat("alice", "a"), Seat("bob", "b")], seed=5, control=CL.DEFAULT)
    m.start()
    app = make_app(FixedBackend([m.handle(None)]), player_name="x", pacing=FAST)
    async with app.run_test(size=(120, 40)):
        await until(lambda: match_screen(app) is not None and match_screen(app).is_mounted)
        assert len(banks(app)) == 2
    m.close()
    plain = Match([Seat("alice", "a"), Seat("bob", "b")], seed=5)
    plain.start()
    app = make_app(FixedBackend([plain.handle(0)]), player_name="x", pacing=FAST)
    async with app.run_test(size=(120, 40)):
        await until(lambda: match_screen(app) is not None and match_screen(app).is_mounted)
        assert banks(app) == []
        assert "abort" not in keybar(app)  # offline: no abort either (an unrated match is just left)
    plain.close()


class OnlineBackend(FixedBackend):
    online = True  # (abort is offered online only)


def keybar(app) -> str:
    return shown(app).query_one(KeyBar).render().plain


async def test_the_abort_key_shows_only_while_allowed_and_asks_first():
    m = Match([Seat("alice", "a"), Seat("bob", "b")], seed=3, control=CL.DEFAULT)
    m.start()
    first = m.state.to_move
    while m.state.to_move == first:  # the first player's whole turn
        began = time.time()  # the second player's turn begins after this (abort_from is wall time)
        await m.handle(first).submit(m.view(first).legal[0])
    m.abort_wait = 1.0  # (the rule's 30 s, shortened; the second player's turn began just now)
    app = make_app(OnlineBackend([m.handle(first)]), player_name="x", pacing=FAST)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: match_screen(app) is not None and match_screen(app).is_mounted)
        # Not offered before the wait is over (a loaded machine may be past it by the first look).
        assert "abort" not in keybar(app) or time.time() - began >= 1.0
        await until(lambda: "abort" in keybar(app), what="abort to be offered after the wait")
        assert time.time() - began >= 1.0
        await pilot.press("a")
        await until(lambda: isinstance(app.screen, ConfirmScreen), what="the confirmation")
        assert not m.over
        await pilot.press("y")
        await until(lambda: m.over, what="the abort")
        assert m.state.reason == V.ABORTED
    m.close()


async def test_the_draw_key_shows_only_when_an_offer_is_allowed_and_says_from_when_before():
    from tests.server.test_clock import to_turn

    m = Match([Seat("alice", "a"), Seat("bob", "b")], seed=4)
    m.start()
    app = make_app(FixedBackend([m.handle(1)]), player_name="bob", pacing=FAST)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: match_screen(app) is not None and match_screen(app).is_mounted)
        screen = match_screen(app)
        prompt = screen.query_one("PromptBar")
        assert "offer draw" not in keybar(app)  # nobody has moved: abort is the key
        await pilot.press("equals_sign")
        await until(lambda: "you may offer a draw from turn 3" in prompt.render().plain,
                         what="when the key will work")
        assert m.draw_offer is None
        await to_turn(m, 3)
        await until(lambda: "= offer draw" in keybar(app), what="the key, from turn 3")
        await pilot.press("equals_sign")
        await until(lambda: m.draw_offer == 1, what="the offer")
        assert "offer draw" not in keybar(app)  # (one pending at a time)
        await m.handle(0).answer_draw(False)
        await until(lambda: "offer draw" not in keybar(app) and m.draw_offer is None)
        assert screen.draw_from == 3 + 6  # (three of bob's turns later)
    m.close()


async def test_a_draw_offer_shows_to_the_opponent_who_accepts_with_y():
    from tests.server.test_clock import to_turn

    m = Match([Seat("alice", "a"), Seat("bob", "b")], seed=4)
    m.start()
    await to_turn(m, 3)
    app = make_app(FixedBackend([m.handle(1)]), player_name="bob", pacing=FAST)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(lambda: match_screen(app) is not None and match_screen(app).is_mounted)
        screen = match_screen(app)
        assert "= offer draw" in keybar(app) and "accept draw" not in keybar(app)
        await m.handle(0).offer_draw()
        prompt = screen.query_one("PromptBar")
        await until(lambda: "alice offers a draw: [y] accept, [n] decline" in prompt.render().plain,
                    what="the offer")
        assert "y accept draw" in keybar(app) and "offer draw" not in keybar(app)
        await pilot.press("y")
        await until(lambda: m.over, what="the draw")
        assert m.state.reason == V.AGREEMENT and m.winner is None
    m.close()
