"""Local play (``voltage play``): matches hosted in the app's own process.

:class:`LocalBackend` is what the TUI calls a *backend*: it gives the home
screen, starts matches and rematches, and hands the screens seat handles —
the same kind of handle the SSH server gives, so the screens cannot tell
local play from online play.  It satisfies :class:`tui.ports.HomeBackend`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Any

from server.host.common import Seat
from server.host.voltage import Match
from tui.ports import Handles, Host
from tui.ports import SeatHandle as Handle

SeatHandle = Handle[Any]

HOTSEAT = "hotseat"
#: What the start screen offers, by game id: (id, label, description, playable).
GAMES: tuple[tuple[str, str, str, bool], ...] = (
    ("voltage", "Voltage", "2 players, turn by turn", True),
    ("high-voltage", "High Voltage", "2-4 players, real time", True),
)


def bot_choices() -> list[tuple[str, str, str]]:
    """(name, label, description) of each bot strength that exists now.

    Reads ``engine.voltage.bots.STRENGTHS`` when the bots module has it, else ``BOT_NAMES``.
    """
    from engine.voltage import bots

    strengths = getattr(bots, "STRENGTHS", None)
    out: list[tuple[str, str, str]] = []
    if strengths:
        for s in strengths:
            if isinstance(s, str):
                out.append((s, s.capitalize(), ""))
            else:
                name = getattr(s, "name", str(s))
                out.append((name, getattr(s, "label", name.capitalize()), getattr(s, "description", "")))
    else:
        out = [(n, n.capitalize(), "") for n in bots.BOT_NAMES]
    return out


class LocalBackend:
    """Matches against a bot or hot-seat, in this process.

    ``seed`` makes every match's deal (and the bots' choices) reproducible;
    ``bot_delay`` paces a bot's moves so a person can follow them (tests use 0).
    """

    default_opponent = "medium"
    online = False  # a dropped match is lost; practice mode is allowed

    def __init__(
        self,
        *,
        seed: int | None = None,
        bot_delay: float = 0.7,
        executor: Executor | None = None,
    ) -> None:
        self._rng = random.Random(seed) if seed is not None else random.SystemRandom()
        self.bot_delay = bot_delay
        self.executor = executor
        self._config: dict[int, tuple[str, str, tuple[str, str]]] = {}
        self.matches: list[Host] = []
        self._host_of: dict[int, Host] = {}  # id(handle) -> its match (a handle shows no host)
        #: keyword arguments for each High Voltage match (tests pass a short countdown)
        self.hv_options: dict[str, Any] = {}

    # -- what the start screen offers ----------------------------------------

    def games(self) -> list[tuple[str, str, str, bool]]:
        """(id, label, description, playable) of each game."""
        return list(GAMES)

    def opponents(self) -> list[tuple[str, str, str]]:
        """(id, label, description): each bot strength, then hot-seat."""
        bots = [(name, f"{label} bot", desc) for name, label, desc in bot_choices()]
        return bots + [(HOTSEAT, "Hot-seat", "two people, one keyboard")]

    def home_screen(self) -> Any:
        from tui.screens.start import StartScreen

        return StartScreen(self)

    # -- matches -------------------------------------------------------------

    def start_match(
        self,
        game: str,
        opponent: str,
        player_name: str,
        *,
        names: tuple[str, str] | None = None,
    ) -> Handles:
        """Start a match and return the handles the screen plays through.

        ``opponent`` is a bot name (one handle: the human's seat 0) or ``"hotseat"``
        (two handles, one per seat; ``names`` gives the two players' names).
        """
        start = self._STARTS.get(game)
        if start is None:
            raise ValueError(f"{game!r} cannot be played yet")
        return start(self, game, opponent, player_name, names)

    def _start_voltage(self, game: str, opponent: str, player_name: str,
                       names: tuple[str, str] | None) -> Handles:
        if opponent == HOTSEAT:
            a, b = names or (player_name or "Player 1", "Player 2")
            seats = [Seat(a, identity="local-0"), Seat(b, identity="local-1")]
            names_used = (a, b)
        else:
            label = next((lab for n, lab, _ in bot_choices() if n == opponent), opponent)
            seats = [Seat(player_name, identity="local"), Seat(f"{label} bot", bot=opponent)]
            names_used = (player_name, seats[1].name)
        match = Match(
            seats,
            seed=self._rng.randrange(2**63),
            bot_delay=self.bot_delay,
            executor=self.executor,
        )
        self._config[id(match)] = (game, opponent, names_used)
        self.matches.append(match)
        match.start()
        return self._handles(match, [0, 1] if opponent == HOTSEAT else [0])

    def _start_high_voltage(self, game: str, opponent: str, player_name: str,
                            names: tuple[str, str] | None) -> Handles:
        """You against the bots' levels, e.g. ``"medium,fast"``."""
        from server.host.highvoltage import local_match

        hv = local_match(player_name, opponent, self._rng.randrange(2**63), **self.hv_options)
        self._config[id(hv)] = (game, opponent, (player_name, ""))
        self.matches.append(hv)
        hv.start()
        return self._handles(hv, [0])

    #: How each game's local match starts, by game id (the server side's registry for
    #: ``voltage play``).
    _STARTS = {"voltage": _start_voltage, "high-voltage": _start_high_voltage}

    def _handles(self, host: Host, seats: list[int]) -> Handles:
        handles = [host.handle(seat) for seat in seats]
        for h in handles:
            self._host_of[id(h)] = host
        return handles

    async def rematch(self, handles: Sequence[SeatHandle]) -> Handles | None:
        """A new match with the same game, opponent and names (None if unknown)."""
        if not handles:
            return None
        old = self._host_of.get(id(handles[0]))
        config = self._config.get(id(old)) if old is not None else None
        if old is None or config is None:
            return None
        game, opponent, names = config
        old.close()
        return self.start_match(game, opponent, names[0], names=names if opponent == HOTSEAT else None)

    def rating_change(self, handles: Sequence[SeatHandle]) -> str | None:
        """Local matches are not rated."""
        return None

    def close(self) -> None:
        """Stop every bot still thinking (on quitting the app)."""
        for m in self.matches:
            m.close()
