"""The board's words: the player's Σ totals stay while a block is chosen to
flip, a target's key is set apart from the card's value, and every terminal says in
a word or a sign which way it scores, at every size; a spectator sees both players' names."""

from __future__ import annotations

import re

import pytest

from tests.support.wait import until
from tests.tui.helpers import FixedBackend
from tests.tui.test_words_screens import rows_of, voltage_match
from tui.app import make_app
from tui.games.voltage.match import MatchScreen
from tui.pacing import NO_FLASH


async def board_rows(kind: str, size: tuple[int, int], keys: tuple[str, ...] = ()) -> tuple[list[str], MatchScreen]:
    m = voltage_match(kind)
    app = make_app(FixedBackend([m.handle(0)]), player_name="Ann", pacing=NO_FLASH)
    async with app.run_test(size=size) as pilot:
        await until(lambda: isinstance(app.screen, MatchScreen))
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MatchScreen)
        return rows_of(app), screen


def totals_rows(rows: list[str]) -> list[list[int]]:
    """The rows that show a Σ total for each of the four terminals."""
    found = [list(map(int, re.findall(r"Σ (\d+)", row))) for row in rows]
    return [r for r in found if len(r) == 4]


async def test_the_own_totals_stay_in_sight_while_choosing_a_block_to_flip():
    for size in ((80, 24), (100, 30)):
        rows, screen = await board_rows("flip", size)
        view = screen.view
        assert screen.step.kind == "flip"
        want_top = [view.total(t, 1) for t in range(4)]
        want_bottom = [view.total(t, 0) for t in range(4)]
        assert totals_rows(rows) == [want_top, want_bottom], "\n".join(rows)
        # and each block still says its key
        keys_row = next(row for row in rows if "flip" in row and "Σ" in row)
        for key in "ogbp":
            assert re.search(rf"Σ \d+ +▶?{key}( flip)?\b", keys_row), keys_row


async def test_a_targets_key_is_set_apart_from_the_cards_value():
    for size in ((80, 24), (100, 30), (200, 60)):
        rows, screen = await board_rows("start", size, ("4", "o"))  # the bypass, on orange
        assert screen.step.kind == "target"
        board = [row[: (size[0] - 24) // 4] for row in rows[1:-6]]  # the orange terminal's column
        keyed = [row for row in board if "▶1" in row]
        assert len(keyed) == 1, "\n".join(board)
        after = keyed[0].split("▶1", 1)[1]
        # "▶1)  1 O": the key, a bracket, then a gap before the card (never "▶1 1 O")
        assert re.match(r"\) +\S", after), keyed[0]
        assert not re.match(r" \d", after), keyed[0]


async def test_every_terminal_says_which_way_it_scores_in_words_or_a_sign_at_every_size():
    for size in ((80, 24), (100, 30), (200, 60)):
        rows, screen = await board_rows("start", size)
        bottom = next(row for row in rows if row.startswith("╰"))
        board = bottom[: 4 * ((size[0] - (40 if size[0] >= 110 else 24)) // 4)]
        rules = re.findall(r"([+−]) (high|low)", board)
        want = [("+", "high") if p else ("−", "low") for p in screen.view.plus]
        assert rules == want, bottom


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_a_spectator_sees_both_players_names_on_the_board_at_any_size(size):
    """Watching "Zed v Bot (easy)" (and the other way round): each side says whose it is,
    in a shorter form where the long one does not fit; never "their side", never blank."""
    from server.host.common import Seat
    from server.host.voltage import Match
    from tests.tui.helpers import match_screen
    from tui.app import make_app
    from tui.games.voltage.board import Board
    from tui.pacing import FAST

    for names in (("Zed", "Bot (easy)"), ("Bot (easy)", "Zed")):
        m = Match([Seat(names[0], "a"), Seat(names[1], "b")], seed=5, bot_delay=0)
        app = make_app(FixedBackend([m.handle(None)]), player_name="x", pacing=FAST)
        async with app.run_test(size=size) as pilot:
            await until(lambda app=app: match_screen(app) is not None and match_screen(app).is_mounted)
            await pilot.pause()
            rows = [strip.text for strip in app.screen._compositor.render_strips()]
            board = app.screen.query_one(Board)
            top, bottom = board.region.y, board.region.bottom
            drawn = "\n".join(rows[top:bottom])
            assert "their side" not in drawn and "your side" not in drawn
            assert drawn.count(names[1]) >= 4, drawn  # the top player's name over each terminal
            bottom_rows = "\n".join(rows[bottom - 3:bottom])
            assert bottom_rows.count(names[0]) == 4, bottom_rows  # and the bottom player's under it
        m.close()
