"""The lobby screen (a real lobby and backend, driven by a Pilot): it fits or says how
large the terminal must be, its title is shortened by meaning, its key line names every
key that works, the panel with the focus is the one outlined, "Your matches" opens on
the newest match."""

from __future__ import annotations

import re

import pytest

from server.backend import SSHBackend
from server.lobby.core import Lobby
from server.store.db import Store
from tests.server.test_commands import KA, KB, finished_match
from tui.app import make_app
from tui.screens.lobby import LobbyScreen, Menu


def lines_of(app) -> list[str]:
    """The screen's rows as plain text (from the SVG Textual exports)."""
    import html

    svg = app.export_screenshot()
    rows: dict[str, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        x, y, t = float(m.group(1)), m.group(2), html.unescape(m.group(3))
        rows.setdefault(y, []).append((x, t.replace("\xa0", " ")))
    out = []
    for y in sorted(rows, key=float):
        out.append("".join(t for _x, t in sorted(rows[y])))
    return out


def colours_drawn(app) -> set:
    """Every colour in the segments the screen draws now (through the app's filters)."""
    found = set()
    for strip in app.screen._compositor.render_strips():
        for seg in strip:
            style = seg.style
            if style is not None:
                found |= {c for c in (style.color, style.bgcolor) if c is not None and not c.is_default}
    return found


@pytest.fixture
def store(tmp_path):
    s = Store.open(tmp_path)
    s.upsert_player(KA, "Alice")
    s.upsert_player(KB, "Bob")
    yield s
    s.close()


def lobby_app(store, identity=KA, username="alice"):
    lobby = Lobby(store=store, seed=1)
    backend = SSHBackend(lobby, lobby.connect(identity, username))
    return make_app(backend, player_name=username), backend


async def enter_lobby(pilot):
    await pilot.press("enter")
    await pilot.pause()


async def test_a_terminal_too_small_for_the_lobby_says_how_large_it_must_be(store):
    app, _ = lobby_app(store)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        text = "\n".join(lines_of(app))
        assert "This terminal is 60 columns by 20 rows" in text
        assert "at least 80 columns by 24 rows" in text
        assert "Quick match" not in text
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        text = "\n".join(lines_of(app))
        assert "Quick match: Voltage" in text and "Leaderboard" in text


async def test_the_title_is_shortened_by_meaning_never_cut(store):
    finished_match(store, 11)
    # A second game rated too: two ratings in the title.
    mid = store.create_match("high-voltage", 5, [{"name": "Alice", "identity": KA}, {"name": "Bob", "identity": KB}])
    store.finish_match(mid, [1, 2], "won", (0, 12))
    app, backend = lobby_app(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        ratings = backend.ratings()
        assert len(ratings) == 2
        title = lines_of(app)[0].rstrip()
        assert len(title) <= 80
        for _game, shown, _games in ratings:
            assert str(shown) in title
        # Every word of the title is whole: it ends in the last rating, not a cut "(3".
        assert title.endswith(f" {ratings[-1][1]}"), title
        await pilot.resize_terminal(200, 30)
        await pilot.pause()
        wide = lines_of(app)[0]
        assert "(1 rated)" in wide and "High Voltage" in wide


async def test_the_key_line_names_rules_and_quit(store):
    app, _ = lobby_app(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        bottom = lines_of(app)[-1]
        assert "? rules" in bottom and "^q quit" in bottom
        assert len(bottom.rstrip()) <= 80


async def test_the_outlined_panel_is_the_one_with_the_focus(store):
    app, _ = lobby_app(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        play, matches = app.screen.query_one("#choices", Menu), app.screen.query_one("#matches", Menu)
        assert play.has_focus and play.styles.border_top != matches.styles.border_top
        focused_border = play.styles.border_top
        await pilot.press("w")
        await pilot.pause()
        assert matches.has_focus
        assert matches.styles.border_top == focused_border
        assert play.styles.border_top != focused_border


async def test_your_matches_open_on_the_newest_match_after_a_new_one(store):
    finished_match(store, 11)
    finished_match(store, 12)
    app, backend = lobby_app(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        history = app.screen.query_one("#history", Menu)
        await pilot.press("h", "down")
        assert history.index == 1
        newest = finished_match(store, 13)
        assert isinstance(app.screen, LobbyScreen)
        app.screen._refresh_history()  # (what the lobby does when it shows again)
        await pilot.pause()
        assert history.items[0][0] == f"replay:{newest}"
        assert history.index == 0


async def test_colours_dark_light_or_none_from_the_lobby(store):
    app, backend = lobby_app(store)
    saved = []
    backend.save_setting = lambda key, value: saved.append((key, value))
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        menu = app.screen.query_one("#choices", Menu)
        assert "Colours: dark" in "\n".join(lines_of(app))
        menu.index = [i for i, _t in menu.items].index("colours")
        await pilot.press("right")
        await pilot.pause()
        assert app.colours == "light" and "Colours: light" in "\n".join(lines_of(app))
        await pilot.press("right")
        await pilot.pause()
        assert app.colours == "none" and "Colours: no colour" in "\n".join(lines_of(app))
        # No colour: not one segment drawn carries a colour (bold, dim, reverse stay).
        assert colours_drawn(app) == set()
        await pilot.press("right")
        await pilot.pause()
        assert app.colours == "dark" and colours_drawn(app)
        assert saved == [("colours", "light"), ("colours", "none"), ("colours", "dark")]
