"""The games' screens in each language: every word a Catalan (or Spanish) player reads on
Voltage's match (their turn, the other's, a choice open, a notice, the end), its results,
replay and chart, the lessons, and High Voltage's setup, table, results and replay is a word
of that language, at 80x24 and wide; the same screens in English have no word cut short.

Each check is :func:`tests.support.leaks.unknown_words` over the whole screen as drawn, with
the players' names (and the bots' seats' names, which are names) allowed."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import Static

from engine.highvoltage import rules as H
from engine.voltage import rules as V
from server import coach as CO
from server.host.common import Seat
from server.host.voltage import Match
from server.replay import Replay
from server.store.db import Store
from tests.server.test_hv_replay_model import store_hv_match
from tests.support.leaks import unknown_words
from tests.support.store import KA, KB, finished_match
from tests.support.wait import until
from tests.tui.helpers import FixedBackend, local_app, ready, screen_text
from tests.tui.test_hv_screen import fitting_slot
from tui import i18n
from tui.app import make_app
from tui.games.highvoltage.match import HVMatchScreen
from tui.games.highvoltage.replay import HVReplayScreen
from tui.games.highvoltage.results import HVResultsScreen
from tui.games.highvoltage.setup import HVSetupScreen
from tui.games.highvoltage.table import CARD_KEYS
from tui.games.voltage import choices as C
from tui.games.voltage.chart import WinChart
from tui.games.voltage.lesson import LessonScreen
from tui.games.voltage.match import MatchScreen
from tui.games.voltage.replay import ReplayScreen
from tui.games.voltage.results import ResultsScreen
from tui.pacing import FAST
from tui.ports import Note
from tui.screens.replay import ReplayBackend

#: The app's own words these screens also show, which the other half of the languages work puts
#: through the catalogs (the key bar's app keys, the log's "more lines", the results' buttons, the
#: replay's bar): allowed until it lands, then this goes (the games' own words are checked whole).
APP_WORDS_PENDING = ("quit", "rules", "more", "lines", "rematch", "back", "to", "start", "board", "see", "the",
                     "REPLAY", "step", "every", "hand", "as", "The", "deal", "seat", "view", "match", "of",
                     "spectator")
CODES = ("ca", "es", "en")
SIZES = ((80, 24), (160, 50))
#: The names these screens show: the players', and the bots' seats' (a name, in every language).
NAMES = ("Ann", "Bob", "Alice", "Carol", "You", "Medium bot", "Slow bot", "Fast bot", "Fast bot 2", "Easy bot")

every = pytest.mark.parametrize(("code", "size"), [(c, s) for c in CODES for s in SIZES],
                                ids=[f"{c}-{w}x{h}" for c in CODES for w, h in SIZES])


def rows(app: Any, within: str | None = None) -> str:
    """The screen as drawn now, row by row (every cell, spaces too); ``within``: only the
    cells of that widget (a dialog over a screen, whose edges cut the words under it)."""
    lines = [strip.text for strip in app.screen._compositor.render_strips()]
    if within is None:
        return "\n".join(lines)
    r = app.screen.query_one(within).region
    return "\n".join(line[r.x:r.right] for line in lines[r.y:r.bottom])


def leaks(app: Any, code: str, names: Iterable[str] = NAMES, within: str | None = None) -> list[str]:
    """The words on the screen now that are not ``code``'s (English leaks, words cut short)."""
    return unknown_words(rows(app, within), code, allowed=[*names, *APP_WORDS_PENDING])


def assert_worded(app: Any, code: str, what: str, names: Iterable[str] = NAMES, within: str | None = None) -> None:
    found = leaks(app, code, names, within)
    assert found == [], f"{what} in {code}: {found}\n{rows(app, within)}"


# -- Voltage ----------------------------------------------------------------------


@every
async def test_a_voltage_match_against_a_bot_reads_in_the_sessions_language_to_its_end(code, size):
    with i18n.language(code):
        app, backend = local_app(seed=1, name="Ann")
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.press("enter")
            await until(lambda: ready(app) and isinstance(app.screen, MatchScreen))
            screen = app.screen
            assert isinstance(screen, MatchScreen)
            assert_worded(app, code, "my turn")
            # a choice open: a card picked (its side, or a special's terminal)
            card = next(o for o in screen.step.options if o.slot is not None)
            await pilot.press(card.key)
            await until(lambda: screen.step.kind != C.CARD, what=lambda: str(screen.step))
            assert_worded(app, code, f"a choice open ({screen.step.kind})")
            await pilot.press("escape")
            await pilot.pause()
            # to the end, a screen looked at every few moves
            moves = 0
            while not isinstance(app.screen, ResultsScreen):
                await until(lambda: ready(app), what=lambda: screen_text(app))
                if isinstance(app.screen, ResultsScreen) or screen.view.over:
                    break
                if moves % 7 == 0:
                    assert_worded(app, code, f"move {moves}")
                await screen.submit(screen.view.legal[0])
                moves += 1
                assert moves < 400
            await until(lambda: isinstance(app.screen, ResultsScreen))
            await pilot.pause()
            assert_worded(app, code, "the results", within="#results-box")
            assert_worded(app, code, "the results' keys", within="KeyBar")
            await pilot.press("v")  # the final board
            await until(lambda: isinstance(app.screen, MatchScreen))
            await pilot.pause()
            assert_worded(app, code, "the end")
        backend.close()


def two_humans(seed: int = 3) -> Match:
    return Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=seed, bot_delay=0)


@every
async def test_the_others_turn_a_notice_and_a_draw_offer_read_in_the_sessions_language(code, size):
    m = two_humans()
    seat = 1 - m.state.to_move  # the seat that waits
    with i18n.language(code):
        app = make_app(FixedBackend([m.handle(seat)]), player_name="Ann", pacing=FAST)
        async with app.run_test(size=size) as pilot:
            await until(lambda: isinstance(app.screen, MatchScreen))
            await pilot.pause()
            assert_worded(app, code, "their turn")
            m.set_notice(Note.of("waiting_reconnect", name="Bob", seconds=45))
            await pilot.pause()
            assert_worded(app, code, "a notice")
            m.set_notice()
            screen = app.screen
            assert isinstance(screen, MatchScreen)
            screen._explain(C.explain_click(screen.view, C.NOTHING, 0, 1))  # a click that does nothing, explained
            await pilot.pause()
            assert_worded(app, code, "a click explained")


@every
async def test_a_transformer_to_flip_reads_in_the_sessions_language(code, size):
    for seed in range(1, 200):  # a deal whose first draw is a transformer
        m = two_humans(seed)
        mover = m.state.to_move
        await m.submit(mover, V.DRAW)
        if m.view(mover).phase == "flip":
            break
    else:
        pytest.skip("no deal with a transformer on top")
    with i18n.language(code):
        app = make_app(FixedBackend([m.handle(mover)]), player_name="Ann", pacing=FAST)
        async with app.run_test(size=size) as pilot:
            await until(lambda: isinstance(app.screen, MatchScreen) and app.screen.step.kind == C.FLIP)
            await pilot.pause()
            assert_worded(app, code, "a block to flip")


@pytest.fixture
def store(tmp_path):
    with Store.open(tmp_path) as s:
        s.upsert_player(KA, "Alice")
        s.upsert_player(KB, "Bob")
        yield s


@pytest.fixture
def pool():
    p = ThreadPoolExecutor(max_workers=1)
    yield p
    p.shutdown(wait=True)


@every
async def test_a_voltage_replay_and_its_chart_read_in_the_sessions_language(code, size, store, pool):
    mid = finished_match(store, 11)
    replay = Replay.load(store, mid, KA)
    replay.analysis = CO.ReplayAnalysis(CO.Coach(store, pool, analysis_iterations=30), replay.record, KA)
    with i18n.language(code):
        app = make_app(ReplayBackend(replay), pacing=FAST)
        async with app.run_test(size=size) as pilot:
            await until(lambda: isinstance(app.screen, ReplayScreen))
            await pilot.pause()
            assert_worded(app, code, "the replay")
            await pilot.press("right", "right", "right")
            await pilot.pause()
            assert_worded(app, code, "three steps on")
            await pilot.press("c")
            screen = app.screen
            assert isinstance(screen, ReplayScreen)
            await until(lambda: screen.moves is not None, what=lambda: screen_text(app))
            await pilot.pause()
            assert screen.query_one(WinChart).display
            assert_worded(app, code, "the chart")


@pytest.fixture
def coach():
    pool = ThreadPoolExecutor(max_workers=1)
    CO.use(CO.Coach(executor=pool, hint_iterations=30))
    yield
    CO.use(None)
    pool.shutdown(wait=True)


@every
async def test_the_lessons_read_in_the_sessions_language(code, size, coach):
    with i18n.language(code):
        app, backend = local_app(seed=4, name="Ann")
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.press("l")
            await until(lambda: isinstance(app.screen, LessonScreen))
            await pilot.pause()
            assert_worded(app, code, "the first lesson")
            await pilot.press("1", "d")  # the wrong move, explained
            screen = app.screen
            await until(lambda: bool(screen.error), what=lambda: screen_text(app))
            await pilot.pause()
            assert_worded(app, code, "a lesson's wrong move")
        backend.close()


# -- High Voltage -----------------------------------------------------------------------


@every
async def test_a_high_voltage_match_reads_in_the_sessions_language_from_setup_to_results(code, size):
    with i18n.language(code):
        app, backend = local_app(seed=5, name="Ann")
        backend.hv_options = dict(countdown_seconds=0.3, bot_speed=1.0)  # (slow enough to look at the table)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.press("tab", "down", "enter")
            await until(lambda: isinstance(app.screen, HVSetupScreen))
            await pilot.press("3", "p")  # two bots, practice
            await pilot.pause()
            assert_worded(app, code, "the setup", within="#hv-setup-box")
            assert_worded(app, code, "the setup's keys", within="KeyBar")
            await pilot.press("enter")
            await until(lambda: isinstance(app.screen, HVMatchScreen))
            screen = app.screen
            assert isinstance(screen, HVMatchScreen)
            await pilot.pause()
            assert_worded(app, code, "the countdown")
            await until(lambda: screen.view.can_act, what=lambda: screen_text(app))
            for _ in range(3):  # a few plays (or draws), each screen looked at
                slot = fitting_slot(screen)
                await pilot.press(CARD_KEYS[slot] if slot is not None and slot < len(CARD_KEYS) else "d")
                await pilot.pause()
                assert_worded(app, code, "the table")
                assert_prompt_fits(screen)
            await pilot.press("s")  # stuck (or refused: a card fits), then the prompt again
            await pilot.pause()
            assert_prompt_fits(screen)
            match = screen.handle.match
            if not match.over:  # (the bots are quick: it may be over already)
                await screen.handle.resign()
            if not match.over:  # the other bot leaves too: the last one wins
                await match.submit(2, H.Resign(2))
            await until(lambda: isinstance(app.screen, HVResultsScreen))
            await pilot.pause()
            assert_worded(app, code, "the results", within="#results-box")
            assert_worded(app, code, "the results' keys", within="KeyBar")
        backend.close()


def assert_prompt_fits(screen: HVMatchScreen) -> None:
    """The prompt line is whole beside its buttons (a sentence cut at a space reads as whole to
    the word check, but is not)."""
    prompt = screen.query_one("#hv-prompt", Static)
    shown = prompt.render()
    text = shown.plain if isinstance(shown, Text) else str(shown)
    assert Text(text).cell_len <= prompt.size.width, f"{text!r} in {prompt.size.width} cells"


@pytest.fixture(scope="module")
def hv_stored(tmp_path_factory):
    d = tmp_path_factory.mktemp("hv-replay")
    with Store.open(d) as s:
        mid, _, _ = store_hv_match(s)
    ro = Store.open(d, readonly=True)
    yield ro, mid
    ro.close()


@every
async def test_a_high_voltage_replay_reads_in_the_sessions_language(code, size, hv_stored):
    store, mid = hv_stored
    with i18n.language(code):
        app = make_app(ReplayBackend(Replay.load(store, mid)), pacing=FAST)
        async with app.run_test(size=size) as pilot:
            await until(lambda: isinstance(app.screen, HVReplayScreen))
            await pilot.pause()
            assert_worded(app, code, "the countdown of the replay")
            await pilot.press("right", "right", "right", "right")
            await pilot.pause()
            assert_worded(app, code, "four steps on")
            await pilot.press("end")
            await pilot.pause()
            assert_worded(app, code, "the end of the replay")
