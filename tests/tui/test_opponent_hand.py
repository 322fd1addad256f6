"""The opponent's hand on screen: card backs in one canonical order (transformers
first), so where same-back cards sit in the hand never shows."""

from __future__ import annotations

from dataclasses import replace

from textual.app import App, ComposeResult

from engine.voltage import rules as V
from engine.voltage.cards import Card
from server.host.common import Seat
from server.host.voltage import Match
from tests.support.wait import until
from tests.tui.helpers import ContractHandle, FixedBackend
from tui.app import make_app
from tui.games.voltage.hand import HandView, OpponentHand
from tui.pacing import DEFAULT


async def _opponent_text_after_the_bypass(swap: bool, size: tuple[int, int]) -> str:
    """Seed 1: seat 1 plays B2 and G2v, seat 0 plays O3v and holds BY O2v O2 (with
    ``swap``: O2 O2v BY), then plays the bypass.  What seat 1's screen shows of seat 0."""
    m = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=1, bot_delay=0)
    for text in ("play B2 blue 1", "play G2v green 0", "play O3v orange 0"):
        await m.handle(m.state.to_move).submit(V.parse_action(text))
    hand = m.state.hands[0]
    assert [Card.of(c).code for c in hand] == ["BY", "O2v", "O2"]
    if swap:
        hand[0], hand[2] = hand[2], hand[0]
    backend = FixedBackend([ContractHandle(m.handle(1))])
    app = make_app(backend, player_name="Bob", pacing=replace(DEFAULT, flash_seconds=0))
    async with app.run_test(size=size):
        opponent = app.screen.query_one(OpponentHand)
        await m.handle(0).submit(V.parse_action("play BY green 1"))
        await until(lambda: "2 cards" in opponent.render().plain, what=lambda: opponent.render().plain)
        return opponent.render().plain


async def test_a_play_does_not_show_where_the_same_back_cards_were():
    for size in ((80, 24), (120, 40)):
        shown = await _opponent_text_after_the_bypass(False, size)
        assert shown == await _opponent_text_after_the_bypass(True, size)
        assert "V" in shown  # the transformer back is still marked, and comes first
        row = next(line for line in shown.splitlines() if "▒" in line)
        assert ["V" in w for w in row.split() if "▒" in w] == [True, False]


class _Hands(App):
    def compose(self) -> ComposeResult:
        yield OpponentHand(id="opponent")
        yield HandView()


async def test_the_widgets_draw_any_backs_transformers_first():
    app = _Hands()
    async with app.run_test(size=(80, 12)) as pilot:
        opponent = app.query_one(OpponentHand)
        hand = app.query_one(HandView)
        opponent.show("Ann", (False, True, False), to_move=False)
        hand.show_backs((False, False, True, True))
        await pilot.pause()
        shown = opponent.render().plain
        assert [s.transformer for s in hand.slots[:4]] == [True, True, False, False]
        opponent.show("Ann", (True, False, False), to_move=False)
        await pilot.pause()
        assert opponent.render().plain == shown and "3 cards" in shown
