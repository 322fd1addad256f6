"""Learn High Voltage from ``voltage play``'s start screen and from the lobby: a card that does
not fit is explained and nothing moves, a draw or a stuck declaration off the point is
explained and the position comes back, the flip of the stuck lesson turns up the bottom
card, every lesson in turn, then a table against a slow bot; every word in Catalan and
Spanish at 80x24."""

from __future__ import annotations

import pytest

from engine.highvoltage import lessons as L
from engine.highvoltage import rules as H
from tests.support.leaks import unknown_words
from tests.support.wait import until
from tests.tui.helpers import local_app, screen_text
from tui import i18n
from tui.games.highvoltage.lesson import HVLessonScreen
from tui.games.highvoltage.match import HVMatchScreen


def _shown(app) -> str:
    """The 80x24 screen's characters (the export's first text is the app's title, not the screen's)."""
    return screen_text(app).removeprefix(app.title)


def _slot(screen: HVLessonScreen, code: str) -> str:
    """The key of the card ``code`` in the learner's hand."""
    return str((screen.view.hand or ()).index(H.Face.parse(code)) + 1)


async def test_learn_high_voltage_from_the_start_screen_to_a_table_against_a_slow_bot():
    app, backend = local_app(seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("tab", "down")  # High Voltage, in the game column
        await pilot.press("l")
        await until(lambda: isinstance(app.screen, HVLessonScreen))
        screen = app.screen
        await pilot.pause()
        assert "Lesson 1 of 6" in screen_text(app) and "fits the 5 (±2)" in screen_text(app)
        await pilot.press(_slot(screen, "6/1"))  # 5 ±2 takes a 3 or a 7
        await until(lambda: "does not fit" in screen.task_line())
        assert "only 3 or 7 fit" in screen_text(app) and screen.state == screen.start
        await pilot.press("d")  # a card fits: drawing misses the point, and the position comes back
        await until(lambda: "rather than draw" in screen.task_line())
        assert screen.state == screen.start
        for n, lesson in enumerate(L.LESSONS):
            assert screen.index == n
            for action in L.solution(lesson):
                if isinstance(action, H.Play):
                    await pilot.press(_slot(screen, action.card.code))
                else:
                    await pilot.press("d" if isinstance(action, H.Draw) else "s")
                if lesson.id == "stuck" and isinstance(action, H.Stuck):
                    await until(lambda: "turned up" in screen.task_line())
                    assert screen.view.top == H.Face(3, 1)  # the discard pile's bottom card
            await until(lambda: screen.solved)
            await pilot.pause()
            assert "✓" in screen_text(app)
            await pilot.press("n")
        await until(lambda: type(app.screen) is HVMatchScreen)
        table = app.screen
        assert table.practice and backend.matches[-1].seats[1].bot == "slow"
    backend.close()


async def test_stuck_with_cards_in_the_pile_is_explained_and_the_position_comes_back():
    app, backend = local_app(seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = HVLessonScreen(backend)
        await app.push_screen(screen)
        screen.load(3)  # the draw lesson: nothing fits, the pile has cards
        await pilot.press("s")
        await until(lambda: "draw before you declare stuck" in screen.task_line())
        assert screen.state == screen.start and not screen.state.declared[0]
        await pilot.press("d")
        await until(lambda: screen.view.pile_counts[0] == 1)
        assert "Lesson 4 of 6" in screen_text(app)
    backend.close()


def test_every_lesson_is_a_real_position_that_its_solution_solves():
    for lesson in L.LESSONS:
        s = lesson.start()
        assert s.phase == H.PLAY and not s.over
        assert sorted(H.all_cards(s)) == sorted(set(H.all_cards(s)))  # every card once
        for action in L.solution(lesson):
            s, _e = H.apply(s, action, 0)
            if s.phase == H.COUNTDOWN and not s.over:
                s, _e = H.apply(s, H.GO)
        assert L.judge(lesson, s) == L.SOLVED, lesson.id


async def test_the_lobby_offers_learn_high_voltage(tmp_path):
    from server.backend import SSHBackend
    from server.lobby.core import Lobby
    from server.store.db import Store
    from tests.server.test_commands import KA
    from tui.app import make_app
    from tui.widgets.menu import Menu

    with Store.open(tmp_path) as store:
        store.upsert_player(KA, "Alice")
        lobby = Lobby(store=store, seed=1)
        backend = SSHBackend(lobby, lobby.connect(KA, "alice"))
        app = make_app(backend, player_name="alice")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            await pilot.pause()
            menu = app.screen.query_one("#choices", Menu)
            assert "learn:high-voltage" in [item for item, _text in menu.items]
            menu.post_message(Menu.Chosen(menu, "learn:high-voltage"))
            await until(lambda: isinstance(app.screen, HVLessonScreen))
            screen = app.screen
            for n, lesson in enumerate(L.LESSONS):
                for action in L.solution(lesson):
                    screen.act(action)
                assert screen.solved, n
                await pilot.press("n")
            await until(lambda: type(app.screen) is HVMatchScreen)
            assert any(s.bot == "slow" for h in lobby.matches.values() for s in h.match.seats)
            for m in list(lobby.matches.values()):
                m.match.close()


@pytest.mark.parametrize("code", ["ca", "es"])
async def test_every_word_of_the_lessons_is_the_languages_at_80x24(code):
    app, backend = local_app(seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        app.set_language(code)
        token = i18n.use(code)  # (this test's own calls into the screen word in it too)
        screen = HVLessonScreen(backend)
        await app.push_screen(screen)
        await pilot.pause()
        found: list[str] = []
        for n, lesson in enumerate(L.LESSONS):
            screen.load(n)
            screen._show()
            await pilot.pause()
            found += unknown_words(_shown(app), code)
            start = lesson.start()
            wrong = next((c for c in start.hands[0] if not H.fits(H.CARD_FACE[c], H.CARD_FACE[start.top])), None)
            if wrong is not None:  # a card that does not fit, explained
                screen.act(screen.view.aim(H.CARD_FACE[wrong]))
                await pilot.pause()
                found += unknown_words(_shown(app), code)
            screen.act(H.Draw(0) if start.piles[0] else H.Stuck(0))  # the draw, the flip, or off the point
            await pilot.pause()
            found += unknown_words(_shown(app), code)
            screen.load(n)
            for action in L.solution(lesson):
                screen.act(action)
            await pilot.pause()
            found += unknown_words(_shown(app), code)
        i18n.reset(token)
        assert found == []
    backend.close()


async def test_a_click_on_the_card_that_fits_solves_the_first_lesson():
    app, backend = local_app(seed=4)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = HVLessonScreen(backend)
        await app.push_screen(screen)
        await pilot.pause()
        hand = screen.query_one("#hvl-hand")
        slot = (screen.view.hand or ()).index(H.Face(7, 3))
        await pilot.click(hand, offset=(1 + 8 * slot + 3, 1))
        await until(lambda: screen.solved)
    backend.close()
