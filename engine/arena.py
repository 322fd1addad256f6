"""Headless bot-versus-bot matches: the engine's workbench.

``run_match`` plays one match between bots that see only their own views;
``run_arena`` plays many with the seats alternating and sums them up.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

from . import voltage as V
from .bots import make_bot


@dataclass
class MatchResult:
    seed: int
    players: tuple[str, ...]  # bot names by seat
    entrants: tuple[int, ...]  # for each seat, the index of the entrant in the arena's player list
    winner: int | None  # seat, or None for a draw
    sets: tuple[int, ...]
    actions: int
    turns: int
    reason: str

    def as_json(self) -> dict:
        return {
            "seed": self.seed,
            "players": list(self.players),
            "winner": self.winner,
            "sets": list(self.sets),
            "actions": self.actions,
            "turns": self.turns,
            "reason": self.reason,
        }


def run_match(names: tuple[str, str], seed: int, entrants: tuple[int, int] = (0, 1)) -> MatchResult:
    """One Voltage match from ``seed`` between the bots named ``names`` (by seat)."""
    bots = [make_bot(n, seed * 2 + i) for i, n in enumerate(names)]
    s = V.new_match(seed)
    actions = 0
    while s.phase != V.OVER:
        seat = s.to_move
        action = bots[seat].choose(V.view(s, seat))
        V.check(s, action, seat)
        V.step(s, action)
        actions += 1
    return MatchResult(seed, tuple(names), entrants, s.winner, tuple(s.scores), actions, s.turns, s.reason)


@dataclass
class ArenaSummary:
    players: tuple[str, ...]
    matches: int = 0
    wins: list[int] = field(default_factory=list)  # by entrant
    draws: int = 0
    turns: int = 0
    actions: int = 0
    seconds: float = 0.0

    def add(self, r: MatchResult) -> None:
        self.matches += 1
        if r.winner is None:
            self.draws += 1
        else:
            self.wins[r.entrants[r.winner]] += 1
        self.turns += r.turns
        self.actions += r.actions

    def as_json(self) -> dict:
        return {
            "summary": True,
            "players": list(self.players),
            "matches": self.matches,
            "wins": self.wins,
            "draws": self.draws,
            "mean_turns": round(self.turns / self.matches, 2) if self.matches else 0,
            "matches_per_second": round(self.matches / self.seconds, 1) if self.seconds else 0,
        }

    def lines(self) -> list[str]:
        out = [f"{self.matches} matches of Voltage, seats alternating"]
        for i, name in enumerate(self.players):
            w = self.wins[i]
            pct = 100 * w / self.matches if self.matches else 0
            out.append(f"  player {i + 1} ({name}): {w} wins ({pct:.1f}%)")
        out.append(f"  draws: {self.draws}")
        if self.matches:
            out.append(f"  mean turns per match: {self.turns / self.matches:.1f}")
        if self.seconds:
            out.append(f"  matches per second: {self.matches / self.seconds:.1f}")
        return out


def run_arena(
    players: tuple[str, str],
    games: int,
    seed: int = 0,
    on_result: Callable[[MatchResult], None] | None = None,
) -> ArenaSummary:
    for name in players:
        make_bot(name)  # unknown names fail before any match is played
    summary = ArenaSummary(tuple(players), wins=[0] * len(players))
    t0 = time.perf_counter()
    for r in _matches(players, games, seed):
        summary.add(r)
        if on_result is not None:
            on_result(r)
    summary.seconds = time.perf_counter() - t0
    return summary


def _matches(players: tuple[str, str], games: int, seed: int) -> Iterator[MatchResult]:
    for i in range(games):
        order = (0, 1) if i % 2 == 0 else (1, 0)
        names = (players[order[0]], players[order[1]])
        yield run_match(names, seed + i, order)
