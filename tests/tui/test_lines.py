"""Painted widgets (``tui/widgets/lines.py``) draw what Textual would draw for them.

A plain painted widget skips Textual's styles cache and has its rows' styles filtered
once, when a row is made: its lines must be the very segments the styles cache and the
app's line filters make of the same rows, in every colour choice and for a part of the
widget (a crop) as for all of it."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.strip import Strip
from textual.widget import Widget

from engine.voltage import rules as V
from tests.support.compat import needs
from tests.support.wait import until
from tests.tui.helpers import FixedBackend
from tests.tui.test_words_screens import voltage_match
from tui.app import make_app
from tui.games.voltage.match import MatchScreen
from tui.pacing import NO_FLASH
from tui.widgets.lines import LineWidget
from tui.widgets.log import MatchLog


def textual_lines(widget: LineWidget, crop: Region) -> list[Strip]:
    """``crop`` of ``widget`` the way Textual draws a widget: its rows painted without
    filters, through the styles cache and the app's line filters."""
    widget._SEGMENT_FILTERS = frozenset()  # the rows' styles as painted, unfiltered
    widget._painted_size = (0, 0)
    try:
        widget.repaint()
        widget._styles_cache.clear()
        return Widget.render_lines(widget, crop)
    finally:
        del widget._SEGMENT_FILTERS
        widget._painted_size = (0, 0)
        widget.repaint()


@pytest.mark.parametrize("colours", ["dark", "light", "none"])
@needs("plain-lines")
async def test_painted_widgets_draw_what_textual_s_own_path_draws(colours: str) -> None:
    match = voltage_match("start")
    app = make_app(FixedBackend([match.handle(0)]), player_name="Ann", pacing=NO_FLASH)
    async with app.run_test(size=(100, 32)) as pilot:
        await until(lambda: isinstance(app.screen, MatchScreen))
        for _ in range(12):  # moves until Ann is to move again: lines in the log
            seat = match.state.to_move
            view = match.view(seat)
            await match.handle(seat).submit(next(a for a in view.legal if not isinstance(a, V.Resign)))
            if seat == 1 and match.state.to_move == 0:
                break
        screen = app.screen
        assert isinstance(screen, MatchScreen)
        log = screen.query_one(MatchLog)
        await until(lambda: len(log.lines) >= 2 and screen.view.my_turn)
        app.set_colours(colours)
        await pilot.press("1")  # a card chosen: dimmed cards and targets, more styles
        await pilot.pause()
        widgets = [w for w in app.screen.query(LineWidget) if w._is_plain()]
        assert {w.id for w in widgets} >= {"board", "hand", "topbar", "keybar", "prompt-bar", "piles", "log"}
        for widget in widgets:
            whole = widget.outer_size.region  # (the log's: its top border and its rows)
            part = Region(1, 0, max(1, whole.width - 3), min(2, whole.height))
            below = Region(0, 1, whole.width, whole.height - 1)
            for crop in (whole, part, below):
                ours = [list(strip) for strip in widget.render_lines(crop)]
                theirs = [list(strip) for strip in textual_lines(widget, crop)]
                assert ours == theirs, f"{widget.id} {crop}"


def textual_size(widget: Widget) -> tuple[int, ...]:
    """``widget``'s size as Textual's own ``Widget.size`` finds it."""
    return tuple(vars(Widget)["size"].fget(widget))


@needs("known-size")
async def test_a_painted_widget_s_size_is_textual_s_through_every_layout() -> None:
    # Its size is kept with the screen map's entry it was read from: a new size for the terminal, a
    # widget hidden and shown again, each gives the size Textual's own Widget.size gives then.
    match = voltage_match("start")
    app = make_app(FixedBackend([match.handle(0)]), player_name="Ann", pacing=NO_FLASH)

    def sizes() -> dict[str, tuple[tuple[int, ...], tuple[int, ...]]]:
        return {str(w.id): (tuple(w.size), textual_size(w)) for w in app.screen.query(LineWidget)}

    def same() -> bool:
        return all(ours == theirs for ours, theirs in sizes().values())

    async with app.run_test(size=(100, 32)) as pilot:
        await until(lambda: isinstance(app.screen, MatchScreen))
        await pilot.pause()
        assert same(), sizes()
        wide = sizes()["board"][0]
        await pilot.resize_terminal(80, 24)
        await until(lambda: sizes()["board"][1] != wide)
        assert same(), sizes()
        assert sizes()["board"][0] != wide
        hand = app.screen.query_one("#hand", LineWidget)
        shown = tuple(hand.size)
        hand.display = False
        await until(lambda: textual_size(hand) != shown)
        assert same(), sizes()
        assert tuple(hand.size) == (0, 0)
        hand.display = True
        await until(lambda: textual_size(hand) == shown)
        assert same(), sizes()


async def test_a_painted_widget_keeps_the_styles_of_what_it_shows_not_of_all_it_ever_showed() -> None:
    # A line painted with four hundred different texts in turn: what the widget keeps to draw its
    # segments again (a session's memory) stays about what its rows show now.
    from rich.text import Text

    from tui.games.voltage.scores import TopBar

    match = voltage_match("start")
    app = make_app(FixedBackend([match.handle(0)]), player_name="Ann", pacing=NO_FLASH)
    async with app.run_test(size=(100, 32)) as pilot:
        await until(lambda: isinstance(app.screen, MatchScreen))
        await pilot.pause()
        bar = app.screen.query_one(TopBar)
        for i in range(400):
            text = Text()
            for j in range(6):
                text.append(f"{i}-{j} ", style=("bold", "italic", "reverse")[(i + j) % 3])
            bar.set_text(text)
        shown = sum(len(row) for row in bar._raw)
        assert 0 < len(bar._styled) <= 2 * shown + 64
        assert "399-5" in "".join(seg.text for row in bar._raw for seg in row)
