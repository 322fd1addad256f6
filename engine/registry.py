"""The games, by id: ``RULES["voltage"]``, ``RULES["high-voltage"]`` (see :mod:`engine.game`).

Each entry adapts a game's own module to the one :class:`~engine.game.Rules`
protocol; a third game adds its module and one line here.  Other layers keep their
own registries keyed by the same ids.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.game import GameInfo, Outcome, Rules, Termination
from engine.highvoltage import rules as H
from engine.voltage import rules as V


class VoltageRules:
    """Voltage (2 players, turn by turn) behind :class:`~engine.game.Rules`."""

    info = GameInfo("voltage", "Voltage", 2, 2, real_time=False)

    def new_match(self, seed: int, seats: int = 2) -> V.State:
        self.info.check_seats(seats)
        return V.new_match(seed)

    def legal_actions(self, state: V.State, seat: int | None) -> Sequence[V.Action]:
        """Only the seat to move has actions (a resignation is always allowed, outside this list)."""
        if state.phase == V.OVER or seat is None or seat != state.to_move:
            return []
        return V.legal_actions(state)

    def apply(self, state: V.State, action: V.Action, seat: int | None) -> tuple[V.State, list[V.Event]]:
        return V.apply(state, action, seat)

    def apply_logged(self, state: V.State, text: str) -> tuple[V.Action, V.State, list[V.Event]]:
        return V.apply_logged(state, text)

    def parse_action(self, text: str) -> V.Action:
        return V.parse_action(text)

    def view(self, state: V.State, seat: int | None) -> V.VoltageView:
        return V.view(state, seat)

    def replay(self, seed: int, seats: int, actions: Iterable[V.Action]) -> V.State:
        self.info.check_seats(seats)
        return V.replay(seed, actions)

    def seats(self, state: V.State) -> int:
        return 2

    def outcome(self, state: V.State) -> Outcome | None:
        if state.phase != V.OVER:
            return None
        w = state.winner
        places = (1, 1) if w is None else tuple(1 if s == w else 2 for s in (0, 1))
        return Outcome(Termination.of(state.reason), w, places)


class HighVoltageRules:
    """High Voltage (2 to 4 players, real time) behind :class:`~engine.game.Rules`."""

    info = GameInfo("high-voltage", "High Voltage", H.MIN_PLAYERS, H.MAX_PLAYERS, real_time=True)

    def new_match(self, seed: int, seats: int = 2) -> H.State:
        self.info.check_seats(seats)
        return H.new_match(seed, seats)

    def legal_actions(self, state: H.State, seat: int | None) -> Sequence[H.Action]:
        return H.legal_actions(state, seat)

    def apply(self, state: H.State, action: H.Action, seat: int | None) -> tuple[H.State, list[H.Event]]:
        return H.apply(state, action, seat)

    def apply_logged(self, state: H.State, text: str) -> tuple[H.Action, H.State, list[H.Event]]:
        """A stored action, as the host applied it: each action names its own seat; the
        countdown's end (``go``) is the host's."""
        action = H.parse_action(text)
        state, events = H.apply(state, action, None)
        return action, state, events

    def parse_action(self, text: str) -> H.Action:
        return H.parse_action(text)

    def view(self, state: H.State, seat: int | None) -> H.HighVoltageView:
        return H.view(state, seat)

    def replay(self, seed: int, seats: int, actions: Iterable[H.Action]) -> H.State:
        return H.replay(seed, seats, actions)

    def seats(self, state: H.State) -> int:
        return state.players

    def outcome(self, state: H.State) -> Outcome | None:
        if state.phase != H.OVER or state.places is None:
            return None
        return Outcome(Termination.of(state.reason), state.winner, tuple(state.places))


RULES: dict[str, Rules] = {r.info.id: r for r in (VoltageRules(), HighVoltageRules())}
GAMES: dict[str, GameInfo] = {gid: r.info for gid, r in RULES.items()}


def rules(game: str) -> Rules:
    """The rules of ``game`` (its id); ``KeyError`` names the games there are."""
    try:
        return RULES[game]
    except KeyError:
        raise KeyError(f"no game {game!r}: the games are {', '.join(RULES)}") from None

