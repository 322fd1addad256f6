"""``h`` in a match against a bot: the prompt line says the coach is thinking, then shows the
Expert's move and why; the match is marked hinted.  Never offered between people."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from server import coach as C
from tests.support.wait import until
from tests.tui.helpers import local_app, match_screen, screen_text
from tui.games.voltage.match import MatchScreen


@pytest.fixture
def coach():
    pool = ThreadPoolExecutor(max_workers=1)
    C.use(C.Coach(executor=pool, hint_iterations=40))
    yield
    C.use(None)
    pool.shutdown(wait=True)


async def test_h_shows_the_experts_move_and_why_and_marks_the_match(coach):
    app, backend = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # a match against the default bot
        await until(lambda: isinstance(app.screen, MatchScreen) and app.screen.view.my_turn)
        screen = match_screen(app)
        assert screen is not None and screen.check_action("hint", ()) is True
        await pilot.press("h")
        await until(lambda: screen.hint_line.startswith("Hint:"), what=lambda: screen.hint_line)
        await pilot.pause()
        assert "Hint:" in screen_text(app)
        assert backend.matches[0].hinted
        assert any("asked for a hint" in line for line in screen.lines)
    backend.close()


async def test_no_hint_key_between_people(coach):
    from server.local import LocalBackend

    backend = LocalBackend(seed=3, bot_delay=0)
    handles = backend.start_match("voltage", "hotseat", "Ann", names=("Ann", "Bob"))
    screen = MatchScreen(handles, backend)
    assert screen.check_action("hint", ()) is False
    assert not any(h.may_hint for h in handles)
    backend.close()
