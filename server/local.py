"""Local play (``voltage play``): matches hosted in the app's own process.

:class:`LocalBackend` is what the TUI calls a *backend*: it gives the home
screen, starts matches and rematches, and hands the screens seat handles —
the same kind of handle the SSH server gives, so the screens cannot tell
local play from online play.  It satisfies :class:`tui.ports.HomeBackend`.
Each game's local match is its server registry entry's ``local``
(:mod:`server.games`): nothing here names a game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Any

from server import games
from server.games import LocalStart
from tui.ports import Handles, Host, RatingChange
from tui.ports import SeatHandle as Handle

SeatHandle = Handle[Any]

HOTSEAT = "hotseat"


def bot_choices() -> list[tuple[str, str, str]]:
    """(name, label, description) of each bot strength of the home game that exists now.

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
        #: keyword arguments for each match's host (tests pass High Voltage a short countdown)
        self.hv_options: dict[str, Any] = {}

    # -- what the start screen offers ----------------------------------------

    def games(self) -> list[tuple[str, bool]]:
        """(id, playable) of each game, in the registry's order (the screen words the rest)."""
        return [(gid, g.local is not None) for gid, g in games.GAMES.items()]

    def opponents(self, game: str | None = None) -> list[tuple[str, str, str]]:
        """(id, label, description) of whom ``game`` (by default the home game) may be played
        against here: the home game's bot strengths, then hot-seat (its words the screen's);
        another game's bot levels (its own start asks the rest: High Voltage's how many)."""
        if game is None or game == games.HOME:
            return [*bot_choices(), (HOTSEAT, "", "")]
        return [(bot, label.capitalize(), "") for label, bot in games.game(game).bot_strengths()]

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

        ``opponent`` is what the game's start offers: a bot name (one handle: the human's
        seat 0), a line-up of bots, or ``"hotseat"`` (a handle per seat; ``names`` gives
        the players' names).
        """
        known = games.GAMES.get(game)
        if known is None or known.local is None:
            raise ValueError(f"{game!r} cannot be played yet")
        host, seats = known.local(LocalStart(opponent, player_name, names, self._rng.randrange(2**63),
                                             bot_delay=self.bot_delay, executor=self.executor,
                                             options=self.hv_options))
        used = names if names is not None else (player_name, "")
        self._config[id(host)] = (game, opponent, used)
        self.matches.append(host)
        host.start()
        return self._handles(host, seats)

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

    async def rating_change(self, handles: Sequence[SeatHandle]) -> Sequence[RatingChange] | None:
        """Local matches are not rated."""
        return None

    def close(self) -> None:
        """Stop every bot still thinking (on quitting the app)."""
        for m in self.matches:
            m.close()
