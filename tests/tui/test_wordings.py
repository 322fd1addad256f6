"""Small wordings and alignments a player reads: the High Voltage feed's spacing, the discard
pile's count, ``who``'s plural, the dialogs' centred lines, the Watch box's words, ``voltage
--help`` and the rules page."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

from engine.voltage.cards import Card
from tests.tui.test_lobby_screen import enter_lobby, lobby_app, point_at
from tui import words as W
from tui.dialogs.challenge import ChallengeScreen
from tui.dialogs.confirm import ConfirmScreen
from tui.games.highvoltage.table import feed_line
from tui.games.voltage.piles import Piles
from tui.widgets.menu import Menu


def test_a_high_voltage_play_reads_as_a_sentence():
    line = feed_line("Bob played 3 (±2).")
    assert line.plain == "· Bob played 3 ±2."
    chip = next(span for span in line.spans if span.style and "on" in str(span.style))
    assert line.plain[chip.start:chip.end] == "3 ±2"  # the card, on its colour


class _Piles(App):
    def compose(self) -> ComposeResult:
        yield Piles()


async def test_the_discard_pile_s_count_has_its_margin_as_the_draw_pile_s():
    for width in (24, 40):
        app = _Piles()
        async with app.run_test(size=(width, 6)) as pilot:
            piles = app.query_one(Piles)
            piles.styles.width = width
            piles.show((30, False, ""), (20, Card(3)))
            await pilot.pause()
            rows = [piles.render_line(y).text for y in range(4)]
            assert any("│ 20 cards" in row for row in rows), rows


def test_who_counts_matches_in_the_singular_too():
    assert W.who_heading(1, 1) == "1 online, 1 match running"
    assert W.who_heading(3, 0) == "3 online, 0 matches running"


class _Dialog(App):
    def __init__(self, dialog) -> None:
        super().__init__()
        self.dialog = dialog

    def on_mount(self) -> None:
        self.push_screen(self.dialog)


def _centred(rows: list[str]) -> None:
    for row in rows:
        left, right = len(row) - len(row.lstrip()), len(row) - len(row.rstrip())
        assert abs(left - right) <= 1, f"not centred: {row!r}"


async def test_a_dialog_s_every_line_is_centred():
    class Challenge:
        seconds_left = 29.2

        class challenger:  # noqa: N801 (a stand-in object)
            name = "Alice"

    for dialog in (ConfirmScreen("Abort this match? (no result, no rating change)", yes="abort", no="keep playing"),
                   ChallengeScreen(Challenge(), "Voltage")):
        app = _Dialog(dialog)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            if isinstance(dialog, ChallengeScreen):
                dialog._tick()
                await pilot.pause()
            question = dialog.query_one("#question")
            rows = [question.render_line(y).text for y in range(question.size.height)]
            rows = [r for r in rows if r.strip()]
            assert len(rows) == 2, rows
            _centred(rows)


async def test_the_watch_box_asks_for_a_match_code(store):  # noqa: F811 (the fixture)
    from textual.widgets import Input

    app, _ = lobby_app(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        point_at(app.screen.query_one("#choices", Menu), "watch")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query_one("#code-input", Input).placeholder == "match code (4 letters)"
        await pilot.press("escape")
        await pilot.pause()
        point_at(app.screen.query_one("#choices", Menu), "join")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query_one("#code-input", Input).placeholder == "room code (4 letters)"


def test_voltage_play_offers_every_game_in_its_help():
    from voltage.cli import build_parser

    text = build_parser().format_help()
    line = text[text.index("    play  "):]
    assert " ".join(line.split()[:9]) == "play play Voltage or High Voltage in this terminal,", line


def test_the_rules_name_alto_voltaje_spanish():
    rules = (Path(__file__).parents[2] / "tui" / "rules.md").read_text()
    assert '"Alto Voltaje" in Spanish' in rules and '"Alt Voltatge" in Catalan' in rules
