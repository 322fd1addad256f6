"""The TUI's backend for one SSH session: the door from its screens to the lobby.

The app calls ``home_screen()`` on mount (the lobby screen) and, from the
results screen, ``await rematch(handles)``.  The lobby screen calls the rest.
"""

from __future__ import annotations

from typing import Any, Callable

from .lobby import GAME_TITLES, GAMES, Lobby, Player, Room, Snapshot, bot_strengths
from .match import SeatHandle


class SSHBackend:
    """One session's player in the shared :class:`~server.lobby.Lobby`."""

    online = True

    def __init__(self, lobby: Lobby, player: Player, *, initial: tuple[str, str] | None = None) -> None:
        self.lobby = lobby
        self.player = player
        self.initial = initial  # ("join" | "watch", CODE) from the ssh command line
        self.name_prefill = lobby.suggest_name(player.username, player)
        self.room: Room | None = None

    # -- what the app needs ----------------------------------------------------

    def home_screen(self) -> Any:
        from tui.screens.lobby import LobbyScreen

        return LobbyScreen(self)

    async def rematch(self, handles: list[SeatHandle]) -> list[SeatHandle] | None:
        return await self.lobby.rematch(self.player, handles)

    def match_screen(self, handles: list[SeatHandle]) -> Any:
        from tui.screens.match import MatchScreen

        return MatchScreen(handles, self)

    # -- naming and coming back ----------------------------------------------

    @property
    def named(self) -> bool:
        return bool(self.player.name)

    @property
    def name(self) -> str:
        return self.player.name

    def claim_name(self, name: str) -> str:
        return self.lobby.claim_name(self.player, name)

    def resumable(self) -> bool:
        return self.lobby.resumable(self.player) is not None

    def resume(self) -> list[SeatHandle] | None:
        return self.lobby.resume(self.player)

    # -- the lobby's choices -------------------------------------------------

    games = GAMES
    game_titles = GAME_TITLES

    @property
    def bot_offer_after(self) -> float:
        return self.lobby.bot_offer_after

    def strengths(self) -> list[tuple[str, str]]:
        return bot_strengths()

    def snapshot(self) -> Snapshot:
        return self.lobby.snapshot()

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        return self.lobby.subscribe(callback)

    def enter_lobby(self) -> None:
        self.room = None
        self.lobby.enter_lobby(self.player)

    async def quick_match(self, game: str = "voltage") -> list[SeatHandle]:
        return await self.lobby.quick_match(self.player, game)

    def create_room(self, game: str = "voltage") -> Room:
        self.room = self.lobby.create_room(self.player, game)
        return self.room

    def close_room(self) -> None:
        if self.room is not None:
            self.lobby.close_room(self.room)
            self.room = None

    def join_room(self, code: str) -> list[SeatHandle]:
        return self.lobby.join_room(self.player, code)

    def play_bot(self, bot: str, game: str = "voltage") -> list[SeatHandle]:
        return self.lobby.play_bot(self.player, bot, game)

    def watch(self, code: str) -> list[SeatHandle]:
        return self.lobby.watch(self.player, code)

    def close(self) -> None:
        self.close_room()
