"""Headless bot-versus-bot matches: the engine's workbench.

``run_match`` plays one match between bots that see only their own views;
``run_arena`` plays many and sums them up.  Each deal is played twice, once with
each entrant in seat 0, so neither the cards nor the first move favour one of
them; matches ``2k`` and ``2k + 1`` share the deal ``seed + k``.  With
``workers > 1`` the matches run in a process pool; results come back in match
order, so the output does not depend on the number of workers.

An entrant is a bot name (see :data:`engine.voltage.bots.BOT_NAMES`, and
:data:`~engine.voltage.bots.ARENA_BOTS` for earlier generations such as ``hard-v1``
and the oracles such as ``expert-oracle``, which are shown the true state before each move),
and bots that keep the public history (an ``observe(view, action)`` method, as ``expert-infer``:
called after every action of either seat with the bot's own seat's view just before it),
optionally with a search budget in iterations after a colon: ``ismcts:2000``.
"""

from __future__ import annotations

import collections
import math
import multiprocessing
import multiprocessing.pool
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from engine.arena import ctrl_c_held, write_json_line
from engine.voltage import rules as V
from engine.voltage.bots import ARENA_BOTS, BOT_NAMES, SEARCH_BOTS, make_bot


@dataclass
class MatchResult:
    seed: int
    players: tuple[str, ...]  # entrants by seat
    entrants: tuple[int, ...]  # for each seat, the index of the entrant in the arena's player list
    winner: int | None  # seat, or None for a draw
    sets: tuple[int, ...]
    actions: int
    turns: int
    reason: str
    # Seconds each seat's bot spent on each decision that had a choice (two or more legal actions).
    think: tuple[tuple[float, ...], ...] = ((), ())

    def as_json(self) -> dict[str, Any]:
        return {
            "seed": self.seed,
            "players": list(self.players),
            "winner": self.winner,
            "sets": list(self.sets),
            "actions": self.actions,
            "turns": self.turns,
            "reason": self.reason,
        }


def parse_entrant(spec: str, defaults: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """``"ismcts:500"`` -> ``("ismcts", {"iterations": 500})``.

    ``defaults`` (iterations, time_budget) apply to search bots without a budget of their own.
    """
    name, _, budget = spec.strip().partition(":")
    if name not in BOT_NAMES and name not in ARENA_BOTS:
        raise ValueError(f"unknown bot {name!r}: choose from {', '.join((*BOT_NAMES, *ARENA_BOTS))}")
    options: dict[str, Any] = {}
    if name in SEARCH_BOTS:
        options.update({k: v for k, v in (defaults or {}).items() if v is not None})
    if budget:
        if name not in SEARCH_BOTS:
            raise ValueError(f"bot {name!r} takes no search budget")
        try:
            iterations = int(budget)
        except ValueError:
            raise ValueError(f"{spec!r}: the budget after ':' is a number of iterations") from None
        if iterations < 1:
            raise ValueError(f"{spec!r}: at least one iteration")
        options = {"iterations": iterations}
    return name, options


def run_match(
    names: tuple[str, str],
    seed: int,
    entrants: tuple[int, int] = (0, 1),
    options: tuple[dict[str, Any], dict[str, Any]] | None = None,
) -> MatchResult:
    """One Voltage match from ``seed`` between the bots named ``names`` (by seat).

    Bot seeds follow the entrant, not the seat, so a deal played from both seats
    meets the same two bots.
    """
    opts = options or ({}, {})
    bots = []
    for i, spec in enumerate(names):
        name, parsed = parse_entrant(spec)
        bots.append(make_bot(name, seed * 2 + entrants[i], **{**parsed, **opts[i]}))
    s = V.new_match(seed)
    actions = 0
    think: tuple[list[float], list[float]] = ([], [])
    clock = time.perf_counter
    while s.phase != V.OVER:
        seat = s.to_move
        v = V.view(s, seat)
        peek = getattr(bots[seat], "peek", None)
        if peek is not None:  # an oracle (a measuring stick): shown the true state
            peek(s)
        t0 = clock()
        action = bots[seat].choose(v)
        dt = clock() - t0
        if len(v.legal) > 1:
            think[seat].append(dt)
        V.check(s, action, seat)
        for i, bot in enumerate(bots):  # the public history, to the bots that keep it (``observe``)
            observe = getattr(bot, "observe", None)
            if observe is not None:  # each sees the action with its own seat's view before it
                observe(v if i == seat else V.view(s, i), action)
        V.step(s, action)
        actions += 1
    return MatchResult(
        seed,
        tuple(names),
        entrants,
        s.winner,
        tuple(s.scores),
        actions,
        s.turns,
        s.reason,
        (tuple(think[0]), tuple(think[1])),
    )


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``k / n`` (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, centre - half), min(1.0, centre + half))


def _quantile(sorted_xs: list[float], q: float) -> float:
    """Linear-interpolated quantile of sorted data."""
    if not sorted_xs:
        return 0.0
    pos = q * (len(sorted_xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


@dataclass
class ArenaSummary:
    players: tuple[str, ...]
    matches: int = 0
    wins: list[int] = field(default_factory=list)  # by entrant
    draws: int = 0
    turns: int = 0
    actions: int = 0
    seconds: float = 0.0
    workers: int = 1
    think: list[list[float]] = field(default_factory=list)  # by entrant: seconds per decision
    planned: int = 0  # matches asked for
    interrupted: bool = False  # stopped (Ctrl-C) before all of them were played

    def add(self, r: MatchResult) -> None:
        if not self.think:
            self.think = [[] for _ in self.players]
        self.matches += 1
        if r.winner is None:
            self.draws += 1
        else:
            self.wins[r.entrants[r.winner]] += 1
        self.turns += r.turns
        self.actions += r.actions
        for seat, times in enumerate(r.think):
            self.think[r.entrants[seat]].extend(times)

    def win_rate(self, entrant: int) -> float:
        return self.wins[entrant] / self.matches if self.matches else 0.0

    def interval(self, entrant: int) -> tuple[float, float]:
        """95% Wilson interval of the entrant's share of matches won."""
        return wilson(self.wins[entrant], self.matches)

    def think_stats(self, entrant: int) -> tuple[int, float, float, float]:
        """(decisions, mean, median, p95) of the entrant's think time, in seconds."""
        xs = sorted(self.think[entrant]) if self.think else []
        if not xs:
            return (0, 0.0, 0.0, 0.0)
        return (len(xs), sum(xs) / len(xs), _quantile(xs, 0.5), _quantile(xs, 0.95))

    def as_json(self) -> dict[str, Any]:
        entrants = []
        for i, name in enumerate(self.players):
            lo, hi = self.interval(i)
            n, mean, med, p95 = self.think_stats(i)
            entrants.append(
                {
                    "player": name,
                    "wins": self.wins[i],
                    "win_rate": round(self.win_rate(i), 4),
                    "wilson95": [round(lo, 4), round(hi, 4)],
                    "decisions": n,
                    "think_ms_mean": round(mean * 1000, 3),
                    "think_ms_median": round(med * 1000, 3),
                    "think_ms_p95": round(p95 * 1000, 3),
                }
            )
        return {
            "summary": True,
            "players": list(self.players),
            "matches": self.matches,
            "planned": self.planned,
            "interrupted": self.interrupted,
            "wins": self.wins,
            "draws": self.draws,
            "mean_turns": round(self.turns / self.matches, 2) if self.matches else 0,
            "matches_per_second": round(self.matches / self.seconds, 2) if self.seconds else 0,
            "workers": self.workers,
            "entrants": entrants,
        }

    def lines(self) -> list[str]:
        deals = (self.matches + 1) // 2
        out = [
            f"{self.matches} match{'es' if self.matches != 1 else ''} of Voltage:"
            f" {deals} deal{'s' if deals != 1 else ''}, each played from both seats "
            f"({self.workers} worker{'s' if self.workers != 1 else ''})"
        ]
        if self.interrupted:
            out.insert(0, f"Interrupted: {self.matches} of the {self.planned} matches asked for were played.")
        for i, name in enumerate(self.players):
            w = self.wins[i]
            lo, hi = self.interval(i)
            out.append(
                f"  player {i + 1} ({name}): {w} wins, {100 * self.win_rate(i):.1f}% "
                f"(95% Wilson {100 * lo:.1f}%-{100 * hi:.1f}%)"
            )
        out.append(f"  draws: {self.draws}")
        for i, name in enumerate(self.players):
            n, mean, med, p95 = self.think_stats(i)
            if n:
                out.append(
                    f"  think time of {name}: median {_ms(med)}, p95 {_ms(p95)}, "
                    f"mean {_ms(mean)} over {n} decisions"
                )
        if self.matches:
            out.append(f"  mean turns per match: {self.turns / self.matches:.1f}")
        if self.seconds:
            out.append(f"  matches per second: {self.matches / self.seconds:.2f}")
        return out


def _ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:.1f} ms" if ms >= 1 else f"{ms:.3f} ms"


def run_arena(
    players: tuple[str, str],
    games: int,
    seed: int = 0,
    on_result: Callable[[MatchResult], None] | None = None,
    *,
    workers: int = 1,
    iterations: int | None = None,
    time_budget: float | None = None,
) -> ArenaSummary:
    """Play ``games`` matches between the two entrants and sum them up.

    ``iterations`` and ``time_budget`` (seconds) set the budget of search bots
    that have none in their entrant spec.  ``workers > 1`` plays in a process
    pool; ``on_result`` is called in match order either way.  Ctrl-C
    (KeyboardInterrupt) stops the run: the matches finished so far are summed
    up and the summary says it was interrupted.
    """
    players = (players[0], players[1])
    defaults = {"iterations": iterations, "time_budget": time_budget}
    options = tuple(parse_entrant(p, defaults)[1] for p in players)  # unknown names fail here
    for p, o in zip(players, options, strict=True):
        make_bot(parse_entrant(p)[0], 0, **o)  # and bad options too
    summary = ArenaSummary(players, wins=[0] * len(players), workers=max(1, workers), planned=games)
    t0 = time.perf_counter()
    try:  # the jobs are made as they are handed out, so Ctrl-C is caught from the start
        for r in _play(_jobs(players, games, seed, options), games, workers):
            with ctrl_c_held():  # counted and shown as one step
                summary.add(r)
                if on_result is not None:
                    on_result(r)
    except KeyboardInterrupt:
        summary.interrupted = True
    summary.seconds = time.perf_counter() - t0
    return summary


Job = tuple[tuple[str, str], int, tuple[int, int], tuple[dict[str, Any], dict[str, Any]]]


def _jobs(
    players: tuple[str, ...], games: int, seed: int, options: tuple[dict[str, Any], ...]
) -> Iterator[Job]:
    for i in range(games):
        order = (0, 1) if i % 2 == 0 else (1, 0)
        names = (players[order[0]], players[order[1]])
        yield names, seed + i // 2, order, (options[order[0]], options[order[1]])


def _run_job(job: Job) -> MatchResult:
    return run_match(*job)


def _ignore_interrupts() -> None:
    """Workers leave Ctrl-C to the parent, which stops them (``Pool.terminate``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _play(jobs: Iterable[Job], count: int, workers: int) -> Iterable[MatchResult]:
    if workers <= 1 or count <= 1:
        for job in jobs:
            yield _run_job(job)
        return
    # Leaving the block (at the end, or on Ctrl-C in the parent) terminates the workers.  At most two
    # jobs per worker are handed out ahead (results in order): ``imap`` would feed its whole iterable
    # (a million jobs for a long run) into the pool's queue from a thread, which a Ctrl-C then has to
    # stop and drain, and on a busy machine that took over a minute.
    n = min(workers, count)
    with multiprocessing.Pool(n, initializer=_ignore_interrupts) as pool:
        ahead: collections.deque[multiprocessing.pool.AsyncResult[MatchResult]] = collections.deque()
        for job in jobs:
            ahead.append(pool.apply_async(_run_job, (job,)))
            if len(ahead) >= 2 * n:
                yield ahead.popleft().get()
        while ahead:
            yield ahead.popleft().get()


def default_workers() -> int:
    return os.cpu_count() or 1


def main_arena(players_text: str | None, games: int, seed: int, json_lines: bool, *, workers: int | None = None,
               iterations: int | None = None, think_ms: float | None = None) -> int:
    """``voltage arena`` (Voltage): print the results of ``games`` matches between two bots (one
    JSON line each and a summary line with ``json_lines``; else a progress line on a terminal
    and the summary).  Returns the exit status: 2 for a bad player list, 130 if interrupted."""
    import sys

    players = tuple(p.strip() for p in (players_text or "random,random").split(","))
    if len(players) != 2:
        print("voltage arena: --players takes two bot names, e.g. random,random", file=sys.stderr)
        return 2

    progress = not json_lines and sys.stderr.isatty()
    so_far = ArenaSummary(players, wins=[0] * len(players))  # for the progress line

    def emit(r: MatchResult) -> None:
        if json_lines:
            write_json_line(r.as_json())
        elif progress:  # one line, rewritten after each match
            so_far.add(r)
            tally = ", ".join(f"{name} {n}" for name, n in zip(players, so_far.wins, strict=True))
            sys.stderr.write(f"\r{so_far.matches}/{games} matches: {tally}, draws {so_far.draws}\x1b[K")
            sys.stderr.flush()

    try:
        summary = run_arena(
            (players[0], players[1]),
            games,
            seed,
            on_result=emit,
            workers=workers if workers is not None else default_workers(),
            iterations=iterations,
            time_budget=think_ms / 1000 if think_ms is not None else None,
        )
    except ValueError as e:
        print(f"voltage arena: {e}", file=sys.stderr)
        return 2
    if progress and so_far.matches:
        sys.stderr.write("\r\x1b[K")
    if json_lines:
        write_json_line(summary.as_json())
    else:
        print("\n".join(summary.lines()))
    return 130 if summary.interrupted else 0
