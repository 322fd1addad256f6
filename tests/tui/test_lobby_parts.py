"""The lobby screen's games come from the tui registry's lobby parts: a third game is a
registry entry (its ``GameInfo`` and a part's shape), and the lobby offers it, sized
and named from that entry, with no lobby code of its own."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.game import GameInfo
from server.backend import SSHBackend
from server.lobby.core import Lobby
from tests.tui.test_lobby_screen import enter_lobby, lines_of, point_at
from tui.app import make_app
from tui.games import registry
from tui.games.lobby_parts import DEFAULT_TABLE_LEVELS, TablePart
from tui.ports import Refused
from tui.screens.lobby import LobbyScreen
from tui.widgets.menu import Menu

TRIPLE = GameInfo("triple", "Triple Shock", 3, 5, real_time=True)


async def not_counting(_backend) -> None:
    return None  # (no quick table counting down)


@pytest.fixture
def third_game(monkeypatch):
    """A third game in the tui registry (the screens of the first stand in for its own)."""
    entry = replace(registry.GAMES["high-voltage"], id=TRIPLE.id,
                    lobby=lambda b: TablePart(TRIPLE, b, levels=lambda _b: DEFAULT_TABLE_LEVELS,
                                              starts_in=not_counting))
    monkeypatch.setitem(registry.GAMES, TRIPLE.id, entry)
    lobby = Lobby(seed=1)
    backend = SSHBackend(lobby, lobby.connect(None, "alice"))
    backend.games = (*backend.games, TRIPLE.id)
    asked = []

    async def create_room(game, size, time_control="default"):
        asked.append((game, size))
        raise Refused("no tables of that game here yet")

    backend.create_room = create_room
    return backend, asked


async def test_a_third_game_in_the_registry_is_offered_by_the_lobby(third_game):
    backend, asked = third_game
    app = make_app(backend, player_name="alice")
    async with app.run_test(size=(100, 34)) as pilot:
        await enter_lobby(pilot)
        text = "\n".join(lines_of(app))
        assert "Triple Shock: 3-5 players, real time" in text
        assert "Quick match: Triple Shock" in text and "Private room for 5" in text
        menu = app.screen.query_one("#choices", Menu)
        point_at(menu, "triple:room")
        await pilot.press("left", "left")
        await pilot.pause()
        assert "Private room for 3" in "\n".join(lines_of(app))
        await pilot.press("left")  # round from the fewest seats to the most, as other ←→ choices
        await pilot.pause()
        assert "Private room for 5" in "\n".join(lines_of(app))
        await pilot.press("right")
        await pilot.pause()
        assert "Private room for 3" in "\n".join(lines_of(app))
        await pilot.press("enter")
        await pilot.pause()
        assert asked == [("triple", 3)]
        assert "no tables of that game here yet" in "\n".join(lines_of(app))


async def test_a_challenge_offers_every_game_by_number(third_game):
    backend, _ = third_game
    app = make_app(backend, player_name="alice")
    async with app.run_test(size=(100, 34)) as pilot:
        await enter_lobby(pilot)
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        await screen._player_chosen(Menu.Chosen(screen.query_one("#players", Menu), "player:bob"))
        await pilot.pause()
        assert ("Challenge bob to:  1 Voltage   2 High Voltage   3 Triple Shock   Esc: cancel"
                in "\n".join(lines_of(app)))


async def test_the_table_parts_words_are_its_games(third_game):
    backend, _ = third_game
    part = TablePart(TRIPLE, backend, levels=lambda _b: ("slow", "fast"), starts_in=not_counting)
    waiting = await part.waiting(75, offer_bot=True)
    assert waiting.startswith("Triple Shock: 0 at the table, waiting for more... 1:15")
    assert "Five start at once; three or four start a little after the third sits down." in waiting
    assert "press b to play bots (fast) instead" in waiting
    # Line-ups: the mixed ones, then one to four of one level (a table of five: four bots at most).
    assert part.lineups()[-1] == ("fast",) * 4


async def test_a_voltage_room_takes_the_clock_chosen_on_its_line():
    """←→ on Voltage's private-room line choose its clock; the room is made with it, and
    its status says so (5+5, the lobby's default, is chosen at first; they go by length)."""
    lobby = Lobby(seed=1)
    backend = SSHBackend(lobby, lobby.connect(None, "alice"))
    app = make_app(backend, player_name="alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        assert "Private room: Voltage 5+5 ←→" in "\n".join(lines_of(app))
        menu = app.screen.query_one("#choices", Menu)
        point_at(menu, "voltage:room")
        seen = []
        for _ in range(5):  # round them all, shortest first
            await pilot.press("right")
            await pilot.pause()
            seen.append(next(line for line in lines_of(app) if "Private room: Voltage" in line))
        assert [s.split("Voltage ")[1].split(" ")[0] for s in seen] == ["10+5", "15+10", "untimed", "3+2", "5+5"]
        await pilot.press("left")  # 3+2
        await pilot.pause()
        assert "Private room: Voltage 3+2 ←→" in "\n".join(lines_of(app))
        await pilot.press("enter")
        for _ in range(50):
            await pilot.pause()
            if backend.room is not None:
                break
        assert backend.room is not None
        table = lobby.tables["voltage"].tables[backend.room.code]
        assert (table.time_control.initial_s, table.time_control.increment_s) == (180, 2)
        assert f"Room {backend.room.code} (clock 3+2)" in "\n".join(lines_of(app))
