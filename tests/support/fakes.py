"""Typed fakes of the tui's ports (:mod:`tui.ports`) for tests that need a backend smaller
than the server's: each implements the whole port (mypy checks it against the protocol
at the end of this module), so the screens never ask whether a fake has a method.

:class:`SeatBackend` seats every session at one shared match (no lobby): a
:class:`tui.ports.Backend` whose home screen is that game's match screen.

:class:`FakeLobby` is a lobby of one named player with nothing in it: no other players,
no matches, no ratings; whatever would start a match is refused.  A test subclasses it
and overrides what its screen reads (``leaderboard``, ``history``, ...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tui.ports import (
    Backend,
    BotRecord,
    ChatRoom,
    Handles,
    HistoryItem,
    Host,
    LeaderEntry,
    LinkedBrowser,
    LobbyBackend,
    RatingChange,
    Refused,
    Unsubscribe,
)

#: What a fake lobby says when asked for what it does not have (a match, a room, a player).
NOTHING = "nothing here: a fake lobby"

if TYPE_CHECKING:
    from textual.screen import Screen

    from tui.lobby_events import LobbyEvent


class FakeLobby:
    """A :class:`tui.ports.LobbyBackend` with nothing in it (see the module)."""

    online = True
    initial: tuple[str, str] | None = None
    name_prefill = "alice"
    stored_name: str | None = None

    def __init__(self, name: str = "alice", identity: str | None = "SHA256:fake") -> None:
        self._name = name
        self._identity = identity
        self.kept: dict[str, str] = {}

    # -- facts -----------------------------------------------------------------

    @property
    def games(self) -> Sequence[str]:
        return ("voltage",)

    @property
    def game_titles(self) -> Mapping[str, str]:
        return {"voltage": "Voltage"}

    @property
    def name(self) -> str:
        return self._name

    @property
    def named(self) -> bool:
        return True

    @property
    def identity(self) -> str | None:
        return self._identity

    @property
    def bot_offer_after(self) -> float:
        return 30.0

    @property
    def guest(self) -> bool:
        return self._identity is None

    @property
    def grace_seconds(self) -> float:
        return 60.0

    def snapshot(self) -> Any:
        return None

    def lobby_changes(self, since: int) -> Sequence[Any] | None:
        return None

    def subscribe(self, callback: Callable[[], None]) -> Unsubscribe:
        return lambda: None

    def listen(self, callback: Callable[[LobbyEvent], None]) -> None:
        pass

    def strengths(self) -> list[tuple[str, str]]:
        return [("random", "random")]

    def bot_levels(self, game: str) -> tuple[str, ...]:
        return ("slow", "medium", "fast")

    def ssh_command(self, args: str = "", *, tty: bool = True) -> str:
        return f"ssh {'-t ' if tty else ''}HOST {args}".rstrip()

    # -- screens ---------------------------------------------------------------

    def home_screen(self) -> Screen[Any]:
        from tui.screens.lobby import LobbyScreen

        return LobbyScreen(self)

    def match_screen(self, handles: Handles) -> Screen[Any]:
        raise Refused("refused", detail=NOTHING)

    async def replay_screen(self, match_id: int) -> Screen[Any]:
        raise Refused("refused", detail=NOTHING)

    # -- the player --------------------------------------------------------------

    async def claim_name(self, name: str) -> str:
        self._name = name
        return name

    async def rename_wait(self) -> float:
        return 0.0

    async def enter_lobby(self) -> None:
        pass

    async def settings(self) -> dict[str, str]:
        return dict(self.kept)

    async def save_setting(self, key: str, value: str) -> None:
        self.kept[key] = value

    async def start_colours(self) -> str | None:
        return self.kept.get("colours")

    async def colours_forced(self) -> str | None:
        return None

    async def refuses_challenges(self) -> bool:
        return False

    async def set_challenges(self, welcome: bool) -> None:
        pass

    async def linked_browsers(self) -> list[LinkedBrowser]:
        return []

    def lobby_chat(self) -> ChatRoom | None:
        return None  # (no chat here)

    def match_chat(self, handles: Handles) -> ChatRoom | None:
        return None

    # -- what it has kept ----------------------------------------------------------

    async def ratings(self) -> list[tuple[str, int, int]]:
        return []

    async def history(self, limit: int = 20) -> list[HistoryItem]:
        return []

    async def bot_record(self) -> list[BotRecord]:
        return []

    async def leaderboard_games(self) -> list[tuple[str, str]]:
        return []

    async def leaderboard(self, game: str, n: int = 20) -> list[LeaderEntry]:
        return []

    async def hv_starts_in(self) -> float | None:
        return None

    async def rating_change(self, handles: Handles) -> Sequence[RatingChange] | None:
        return None

    # -- matches (none: refused) -------------------------------------------------

    async def resumable(self) -> bool:
        return False

    async def resume(self) -> Handles | None:
        return None

    async def rematch(self, handles: Handles) -> Handles | None:
        return None

    async def quick_match(self, game: str = "voltage") -> Handles:
        raise Refused("refused", detail=NOTHING)

    async def play_bot(self, bot: str, game: str = "voltage") -> Handles:
        raise Refused("refused", detail=NOTHING)

    async def create_room(self, game: str = "voltage", size: int = 2, time_control: str = "default") -> Any:
        raise Refused("refused", detail=NOTHING)

    async def start_room(self) -> None:
        raise Refused("refused", detail=NOTHING)

    async def close_room(self) -> None:
        pass

    async def seated(self, code: str) -> tuple[tuple[str, ...], int] | None:
        return None

    async def room_game(self, code: str) -> str | None:
        return None

    async def join_room(self, code: str) -> Handles:
        raise Refused("refused", detail=NOTHING)

    async def join(self, code: str) -> Handles:
        raise Refused("refused", detail=NOTHING)

    async def watch(self, code: str) -> Handles:
        raise Refused("refused", detail=NOTHING)

    async def challenge(self, name: str, game: str = "voltage") -> Any:
        raise Refused("refused", detail=NOTHING)

    async def challenge_answer(self, challenge: Any) -> Handles:
        raise Refused("refused", detail=NOTHING)

    async def answer_challenge(self, challenge: Any, accept: bool) -> Handles | None:
        return None

    async def withdraw_challenge(self, challenge: Any) -> None:
        pass

    def close(self) -> None:
        pass


class SeatBackend:
    """A session's backend that seats it at ``match``'s seat ``seat`` (no lobby, no rematch,
    no rating): online, so a dropped seat waits as on a server."""

    online = True

    def __init__(self, match: Host, seat: int) -> None:
        self.match, self.seat = match, seat

    def home_screen(self) -> Screen[Any]:
        from tui.games.registry import GAMES

        return GAMES[self.match.game].match([self.match.handle(self.seat)], self)

    async def rematch(self, handles: Handles) -> Handles | None:
        return None

    async def rating_change(self, handles: Handles) -> Sequence[RatingChange] | None:
        return None


def _typed(lobby: FakeLobby, seated: SeatBackend) -> None:  # pragma: no cover - for mypy: each fake is its whole port
    ports: tuple[LobbyBackend, Backend] = (lobby, seated)
    del ports
