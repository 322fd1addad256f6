"""The replay's win-chance chart: made in the background with a progress bar the first time,
kept with the match, mistakes marked and stepped to with ``m``, the better move named."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from server import coach as C
from server.replay import Replay
from server.store.db import Store
from tests.server.test_commands import KA, KB, finished_match
from tests.support.wait import until
from tui.app import make_app
from tui.games.voltage.chart import WinChart, columns, rows_of
from tui.games.voltage.replay import ReplayScreen
from tui.pacing import FAST
from tui.screens.replay import ReplayBackend
from tui.widgets.keybar import KeyBar


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


def replay_with_analysis(store: Store, mid: int, pool: ThreadPoolExecutor) -> Replay:
    replay = Replay.load(store, mid, KA)
    coach = C.Coach(store, pool, analysis_iterations=30)
    replay.analysis = C.ReplayAnalysis(coach, replay.record, KA)  # type: ignore[attr-defined]
    return replay


def chart_text(screen: ReplayScreen) -> str:
    chart = screen.query_one(WinChart)
    return "\n".join("".join(seg.text for seg in row) for row in chart.paint(78, 4))


async def test_the_chart_is_made_with_a_progress_bar_then_marks_mistakes_and_m_steps_to_them(store, pool):
    mid = finished_match(store, 11)
    replay = replay_with_analysis(store, mid, pool)
    app = make_app(ReplayBackend(replay), pacing=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: isinstance(app.screen, ReplayScreen))
        screen = app.screen
        assert not screen.has_class("-chart") and screen.moves is None  # every hand, and no search yet
        await pilot.press("c")
        await pilot.pause()
        assert screen.has_class("-chart") and screen.query_one(WinChart).display
        assert screen.moves is not None or screen._progress is not None  # made now: a progress bar first
        await until(lambda: screen.moves is not None, timeout=120, what="the analysis")
        assert len(screen.moves) == replay.last
        assert store.analysis(mid, 1) is not None  # kept with the match
        text = chart_text(screen)
        assert "Alice" in text and "Bob" in text and "✗" in text
        await pilot.pause()
        assert "mistake" in str(screen.query_one(KeyBar).render()) or screen.check_action("next_mistake", ())
        await pilot.press("m")
        mistakes = [m.step for m in screen.moves if m.mistake]
        assert screen.handle.step == mistakes[0]
        assert "better:" in chart_text(screen) and "points lost" in chart_text(screen)
        await pilot.press("m")
        assert screen.handle.step == (mistakes[1] if len(mistakes) > 1 else mistakes[0])
        await pilot.press("c")  # the hands back in the bottom band
        await pilot.pause()
        assert not screen.has_class("-chart") and not screen.query_one(WinChart).display


async def test_a_kept_analysis_shows_at_once_and_a_replay_without_one_has_no_chart(store, pool):
    mid = finished_match(store, 12)
    await C.Coach(store, pool, analysis_iterations=20).analysis(store.match_record(mid), KA)
    replay = replay_with_analysis(store, mid, pool)
    app = make_app(ReplayBackend(replay), pacing=FAST)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: isinstance(app.screen, ReplayScreen))
        await pilot.press("c")
        assert app.screen.moves is not None and app.screen._progress is None
    plain = make_app(ReplayBackend(Replay.load(store, mid, KA)), pacing=FAST)
    async with plain.run_test(size=(80, 24)) as pilot:
        await until(lambda: isinstance(plain.screen, ReplayScreen))
        screen = plain.screen
        assert not screen.has_class("-chart") and not screen.check_action("chart", ())


def test_columns_share_a_long_match_and_cover_every_step():
    for last, width in ((10, 70), (150, 70), (71, 70), (1, 5)):
        cols = columns(last, width)
        assert len(cols) == min(last, width) and cols[0][0] == 1 and cols[-1][1] == last
        assert all(b[0] == a[1] + 1 for a, b in zip(cols, cols[1:], strict=False))
    bars, marks = rows_of((), 10, 10, 3)
    assert marks[2] == "▲" and bars == [" " * 10, " " * 10]
