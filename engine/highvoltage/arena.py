"""Headless High Voltage matches between reaction bots, in simulated time.

A discrete-event simulation stands in for the host's clock: each bot's next
action is scheduled at ``now + delay`` (its :meth:`~engine.highvoltage.bots.ReactionBot.decide`);
the earliest event is applied; a play aimed at a top card covered in the
meantime is refused as too slow, and the bot decides again.  After a bot's own
event (accepted or refused) it decides again at once; a bot with nothing to do
is asked again after the next accepted action.  Every countdown (the deal and
each flip) lays all hands down: pending bot actions are dropped, ``Go`` is
applied :data:`~engine.highvoltage.rules.COUNTDOWN_SECONDS` later, and then every
bot decides afresh.

``run_match`` plays one match; ``run_arena`` plays many, rotating the seats;
``main_arena`` prints the results for ``voltage arena --game high-voltage``.
"""

from __future__ import annotations

import heapq
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.arena import ctrl_c_held, write_json_line
from engine.errors import IllegalActionError
from engine.highvoltage import rules as H
from engine.highvoltage.bots import HV_BOT_NAMES, make_hv_bot

DEFAULT_PLAYERS: tuple[str, ...] = ("medium", "fast")
MAX_EVENTS = 100_000  # a match never gets near this; reaching it is a bug
HOST = -1


@dataclass
class HVMatchResult:
    seed: int
    players: tuple[str, ...]  # bot names by seat
    entrants: tuple[int, ...]  # for each seat, the index of its entrant in the arena's list
    winner: int | None  # the seat that went out first (None: blocked with a tie)
    places: tuple[int, ...]  # by seat; 1 is the winner, equal cards left share a place
    cards_left: tuple[int, ...]
    actions: int  # accepted actions, Go included: the length of the log
    plays: int
    too_slow: int  # plays refused as too slow
    refused: int  # other refused actions (stale draws or declarations)
    flips: int
    seconds: float  # simulated
    reason: str
    log: tuple[H.Action, ...] = field(repr=False, default=())

    def as_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "players": list(self.players),
            "winner": self.winner,
            "ranking": list(self.places),
            "cards_left": list(self.cards_left),
            "actions": self.actions,
            "plays": self.plays,
            "too_slow": self.too_slow,
            "flips": self.flips,
            "seconds": round(self.seconds, 2),
            "reason": self.reason,
        }


def bot_seed(seed: int, seat: int) -> int:
    return seed * 8 + seat


def run_match(
    names: tuple[str, ...] | list[str], seed: int, entrants: tuple[int, ...] | None = None
) -> HVMatchResult:
    """One match from ``seed`` between the bots named ``names`` (by seat), in simulated time."""
    n = len(names)
    bots = [make_hv_bot(name, bot_seed(seed, i)) for i, name in enumerate(names)]
    s = H.new_match(seed, n)
    log: list[H.Action] = []
    heap: list[tuple[float, int, int, H.Action]] = []
    pending: list[int | None] = [None] * n  # the sequence number of each bot's live event
    counter = 0
    now = 0.0
    too_slow = refused = 0

    def push(t: float, seat: int, action: H.Action) -> int:
        nonlocal counter
        counter += 1
        heapq.heappush(heap, (t, counter, seat, action))
        return counter

    def decide(seat: int) -> None:
        delay, action = bots[seat].decide(H.view(s, seat))
        pending[seat] = None if action is None else push(now + delay, seat, action)

    def countdown() -> None:
        for i in range(n):
            pending[i] = None
        push(now + H.COUNTDOWN_SECONDS, HOST, H.GO)

    countdown()
    events = 0
    while s.phase != H.OVER:
        events += 1
        if not heap or events > MAX_EVENTS:
            raise RuntimeError(f"High Voltage arena match {seed} stalled at {s!r}")
        t, seq, seat, action = heapq.heappop(heap)
        if seat != HOST and pending[seat] != seq:
            continue  # dropped by a countdown
        now = t
        if seat != HOST:
            pending[seat] = None
        try:
            H.check(s, action, None if seat == HOST else seat)
        except H.TooSlowError:
            too_slow += 1
            decide(seat)
            continue
        except IllegalActionError:
            refused += 1
            decide(seat)
            continue
        H.step(s, action)
        log.append(action)
        if s.phase == H.OVER:
            break
        if s.phase == H.COUNTDOWN:
            countdown()
            continue
        for i in range(n):
            if i == seat or (pending[i] is None and not s.out[i]):
                decide(i)
    return HVMatchResult(
        seed=seed,
        players=tuple(names),
        entrants=tuple(entrants) if entrants is not None else tuple(range(n)),
        winner=s.winner,
        places=s.places or (),
        cards_left=tuple(s.cards_left(i) for i in range(n)),
        actions=len(log),
        plays=s.plays,
        too_slow=too_slow,
        refused=refused,
        flips=s.flips,
        seconds=now,
        reason=s.reason,
        log=tuple(log),
    )


@dataclass
class HVArenaSummary:
    players: tuple[str, ...]
    matches: int = 0
    wins: list[int] = field(default_factory=list)  # by entrant
    no_winner: int = 0
    place_sum: list[int] = field(default_factory=list)  # by entrant
    plays: int = 0
    too_slow: int = 0
    flips: int = 0
    sim_seconds: float = 0.0
    seconds: float = 0.0  # wall clock
    planned: int = 0  # matches asked for
    interrupted: bool = False  # stopped (Ctrl-C) before all of them were played

    def add(self, r: HVMatchResult) -> None:
        self.matches += 1
        if r.winner is None:
            self.no_winner += 1
        else:
            self.wins[r.entrants[r.winner]] += 1
        for seat, place in enumerate(r.places):
            self.place_sum[r.entrants[seat]] += place
        self.plays += r.plays
        self.too_slow += r.too_slow
        self.flips += r.flips
        self.sim_seconds += r.seconds

    def wins_by_level(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for name, w in zip(self.players, self.wins, strict=True):
            out[name] = out.get(name, 0) + w
        return out

    def as_json(self) -> dict[str, Any]:
        m = self.matches
        return {
            "summary": True,
            "game": "high-voltage",
            "players": list(self.players),
            "matches": m,
            "planned": self.planned,
            "interrupted": self.interrupted,
            "wins": self.wins,
            "wins_by_level": self.wins_by_level(),
            "no_winner": self.no_winner,
            "mean_place": [round(p / m, 2) for p in self.place_sum] if m else [],
            "mean_plays": round(self.plays / m, 1) if m else 0,
            "mean_too_slow": round(self.too_slow / m, 1) if m else 0,
            "mean_flips": round(self.flips / m, 2) if m else 0,
            "mean_sim_seconds": round(self.sim_seconds / m, 1) if m else 0,
            "matches_per_second": round(m / self.seconds, 1) if self.seconds else 0,
        }

    def lines(self) -> list[str]:
        m = self.matches
        out = [f"{m} match{'es' if m != 1 else ''} of High Voltage, {len(self.players)} players, seats rotating"]
        if self.interrupted:
            out.insert(0, f"Interrupted: {m} of the {self.planned} matches asked for were played.")
        for i, name in enumerate(self.players):
            w = self.wins[i]
            pct = 100 * w / m if m else 0
            mean_place = f", mean place {self.place_sum[i] / m:.2f}" if m else ""
            out.append(f"  player {i + 1} ({name}): {w} wins ({pct:.1f}%){mean_place}")
        levels = self.wins_by_level()
        if len(levels) < len(self.players):
            out.append("  by level: " + ", ".join(f"{k} {v}" for k, v in levels.items()))
        if self.no_winner:
            out.append(f"  blocked with no winner: {self.no_winner}")
        if m:
            out.append(
                f"  per match: {self.plays / m:.1f} plays, {self.too_slow / m:.1f} too slow, "
                f"{self.flips / m:.2f} flips, {self.sim_seconds / m:.0f} s simulated"
            )
        if self.seconds:
            out.append(f"  matches per second: {m / self.seconds:.1f}")
        return out


def _matches(players: tuple[str, ...], games: int, seed: int) -> Iterator[HVMatchResult]:
    n = len(players)
    for i in range(games):
        order = tuple((j + i) % n for j in range(n))  # seat -> entrant
        yield run_match(tuple(players[e] for e in order), seed + i, order)


def run_arena(
    players: tuple[str, ...] | list[str],
    games: int,
    seed: int = 0,
    on_result: Callable[[HVMatchResult], None] | None = None,
) -> HVArenaSummary:
    """``games`` matches from seeds ``seed``, ``seed + 1``, ...; the seats rotate each match.
    Ctrl-C (KeyboardInterrupt) stops early: the summary sums up what was played and says so."""
    players = tuple(players)
    if not H.MIN_PLAYERS <= len(players) <= H.MAX_PLAYERS:
        raise ValueError(f"High Voltage takes 2 to 4 players, got {len(players)}")
    for name in players:
        make_hv_bot(name)  # unknown names fail before any match is played
    summary = HVArenaSummary(players, wins=[0] * len(players), place_sum=[0] * len(players), planned=games)
    t0 = time.perf_counter()
    try:
        for r in _matches(players, games, seed):
            with ctrl_c_held():  # counted and shown as one step
                summary.add(r)
                if on_result is not None:
                    on_result(r)
    except KeyboardInterrupt:  # Ctrl-C: sum up the matches played so far
        summary.interrupted = True
    summary.seconds = time.perf_counter() - t0
    return summary


def main_arena(players: list[str], games: int, seed: int, json_lines: bool) -> int:
    """Print the results of ``games`` matches (one JSON line each and a summary line with
    ``json_lines``).  Returns the exit status: 2 for a bad player list."""
    names = [p.strip() for p in players if p.strip()] or list(DEFAULT_PLAYERS)
    if not H.MIN_PLAYERS <= len(names) <= H.MAX_PLAYERS:
        print(
            "voltage arena: --players takes two to four High Voltage bots, e.g. fast,slow "
            f"(bots: {', '.join(HV_BOT_NAMES)})",
            file=sys.stderr,
        )
        return 2

    def emit(r: HVMatchResult) -> None:
        if json_lines:
            write_json_line(r.as_json())

    try:
        summary = run_arena(names, games, seed, on_result=emit)
    except ValueError as e:
        print(f"voltage arena: {e}", file=sys.stderr)
        return 2
    if json_lines:
        write_json_line(summary.as_json())
    else:
        print("\n".join(summary.lines()))
    return 130 if summary.interrupted else 0
