"""The games, by id: ``RULES["voltage"]``, ``RULES["high-voltage"]`` (see :mod:`engine.game`).

Each entry adapts a game's own module to the one generic :class:`~engine.game.Rules`
protocol; a third game adds its module and one line here.  Other layers keep their
own registries keyed by the same ids.  ``ARENAS`` holds each game's headless
bot-versus-bot command (``voltage arena --game ID``), so the command line names no game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.game import GameInfo, Outcome, Rules
from engine.highvoltage import rules as H
from engine.voltage import rules as V
from engine.voltage.cards import Card


class VoltageRules:
    """Voltage (2 players, turn by turn) behind :class:`~engine.game.Rules`."""

    info = GameInfo("voltage", "Voltage", 2, 2, real_time=False, stretch="set")

    def new_match(self, seed: int, seats: int = 2) -> V.State:
        self.info.check_seats(seats)
        return V.new_match(seed)

    def start_events(self, state: V.State) -> list[V.Event]:
        return V.start_events(state)

    def legal_actions(self, state: V.State, seat: int | None) -> Sequence[V.Action]:
        """Only the seat to move has actions (a resignation is always allowed, outside this list)."""
        if state.phase == V.OVER or seat is None or seat != state.to_move:
            return []
        return V.legal_actions(state)

    def check(self, state: V.State, action: V.Action, seat: int | None) -> None:
        V.check(state, action, seat)

    def apply(self, state: V.State, action: V.Action, seat: int | None) -> tuple[V.State, list[V.Event]]:
        return V.apply(state, action, seat)

    def apply_logged(self, state: V.State, text: str) -> tuple[V.Action, V.State, list[V.Event]]:
        return V.apply_logged(state, text)

    def parse_action(self, text: str) -> V.Action:
        return V.parse_action(text)

    def action_text(self, action: V.Action) -> str:
        return action.text()

    def resignation(self, seat: int) -> V.Action:
        return V.Resign(seat)

    def view(self, state: V.State, seat: int | None) -> V.VoltageView:
        return V.view(state, seat)

    def replay_view(self, state: V.State, seat: int | None) -> V.VoltageView:
        return replace(V.view(state, seat), legal=())

    def replay(self, seed: int, seats: int, actions: Iterable[V.Action]) -> V.State:
        self.info.check_seats(seats)
        return V.replay(seed, actions)

    def seats(self, state: V.State) -> int:
        return 2

    def to_move(self, state: V.State) -> int | None:
        return None if state.phase == V.OVER else state.to_move

    def hands(self, state: V.State) -> tuple[tuple[Card, ...], ...]:
        return tuple(tuple(Card.of(c) for c in hand) for hand in state.hands)

    def ends_stretch(self, event: V.Event) -> bool:
        return event.kind == "score"  # a set ends when a terminal is scored

    def standing(self, state: V.State) -> tuple[int, ...]:
        return (state.scores[0], state.scores[1])  # sets won

    def outcome(self, state: V.State) -> Outcome | None:
        if state.phase != V.OVER:
            return None
        w = state.winner
        places = (1, 1) if w is None else tuple(1 if s == w else 2 for s in (0, 1))
        termination, detail = Outcome.ending(state.reason)
        return Outcome(termination, w, places, detail, scores=self.standing(state))


class HighVoltageRules:
    """High Voltage (2 to 4 players, real time) behind :class:`~engine.game.Rules`."""

    info = GameInfo("high-voltage", "High Voltage", H.MIN_PLAYERS, H.MAX_PLAYERS, real_time=True, stretch="round")

    def new_match(self, seed: int, seats: int = 2) -> H.State:
        self.info.check_seats(seats)
        return H.new_match(seed, seats)

    def start_events(self, state: H.State) -> list[H.Event]:
        return H.start_events(state)

    def legal_actions(self, state: H.State, seat: int | None) -> Sequence[H.Action]:
        return H.legal_actions(state, seat)

    def check(self, state: H.State, action: H.Action, seat: int | None) -> None:
        H.check(state, action, seat)

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

    def action_text(self, action: H.Action) -> str:
        return action.text()

    def resignation(self, seat: int) -> H.Action:
        return H.Resign(seat)

    def view(self, state: H.State, seat: int | None) -> H.HighVoltageView:
        return H.view(state, seat)

    def replay_view(self, state: H.State, seat: int | None) -> H.HighVoltageView:
        return H.view(state, seat)  # (a view of this game lists no actions)

    def replay(self, seed: int, seats: int, actions: Iterable[H.Action]) -> H.State:
        return H.replay(seed, seats, actions)

    def seats(self, state: H.State) -> int:
        return state.players

    def to_move(self, state: H.State) -> int | None:
        return None  # real time: nobody's turn

    def hands(self, state: H.State) -> tuple[tuple[H.Face, ...], ...]:
        # During a countdown too: the cards were dealt face down then, but the match is over.
        return tuple(tuple(H.CARD_FACE[c] for c in hand) for hand in state.hands)

    def ends_stretch(self, event: H.Event) -> bool:
        return event.kind == "flip"  # a round ends when the stuck pile is flipped

    def standing(self, state: H.State) -> tuple[int, ...]:
        return tuple(state.cards_left(s) for s in range(state.players))  # cards left: fewer is better

    def outcome(self, state: H.State) -> Outcome | None:
        if state.phase != H.OVER or state.places is None:
            return None
        termination, detail = Outcome.ending(state.reason)
        return Outcome(termination, state.winner, tuple(state.places), detail)


@dataclass(frozen=True)
class Arena:
    """A game's headless bot-versus-bot matches, for ``voltage arena``: its default
    line-up (what ``--players`` says when it is not given) and its main."""

    players_help: str
    main: Callable[[Any], int]  # (the parsed command line) -> exit status


def _voltage_arena(args: Any) -> int:
    from engine.voltage.arena import main_arena

    return main_arena(args.players, args.games, args.seed, args.json, workers=args.workers,
                      iterations=args.iterations, think_ms=args.think_ms)


def _high_voltage_arena(args: Any) -> int:
    from engine.highvoltage.arena import main_arena

    return main_arena((args.players or "").split(","), args.games, args.seed, args.json)


RULES: dict[str, Rules[Any, Any, Any, Any]] = {r.info.id: r for r in (VoltageRules(), HighVoltageRules())}
GAMES: dict[str, GameInfo] = {gid: r.info for gid, r in RULES.items()}
ARENAS: dict[str, Arena] = {
    "voltage": Arena("two bots, comma-separated: random, greedy, ismcts, easy, medium, hard, expert (hard-v1 and "
                     "expert-v1: the first Hard and Expert; hard-v2 and expert-v2: the second; hard-oracle and "
                     "expert-oracle, and -oracle-hand: their search shown the true state, or the true hands, "
                     "a measuring stick); a search bot may "
                     "carry its own iterations, e.g. ismcts:2000 (default random,random)",
                     _voltage_arena),
    "high-voltage": Arena("two to four of slow, medium, fast (each also as LEVEL-smart: a smart choice among "
                          "fitting cards; default medium,fast)", _high_voltage_arena),
}


def rules(game: str) -> Rules[Any, Any, Any, Any]:
    """The rules of ``game`` (its id); ``KeyError`` names the games there are."""
    try:
        return RULES[game]
    except KeyError:
        raise KeyError(f"no game {game!r}: the games are {', '.join(RULES)}") from None

