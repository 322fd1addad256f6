"""Learn the Voltage value model (engine/voltage/bots/value.npz) by self-play, from a seed.

1. Self-play: two bots (``--players``, greedy by default; a tenth of their moves random,
   ``--noise``, for variety) play ``--matches`` matches; every position is kept with chance
   ``--keep``, from both seats' knowledge (:func:`engine.voltage.bots.value.features`),
   labelled with the match's result for that seat (1 won, 0 lost, 0.5 drawn).  Any bot of
   the arena may play (``--players hard,hard``, or with its own budget ``hard:350,hard:350``):
   a value that knows how stronger players go on from a position.
2. Training: one hidden layer of ``--hidden`` tanh units and a logistic output, cross-entropy
   loss, Adam in minibatches, numpy only; a tenth of the matches are held out.
3. The held-out log-loss and accuracy are printed beside the hand-made heuristic's
   (:mod:`engine.voltage.bots.heuristics`) and the shipped model's (``value.npz``, before
   it is overwritten), then the weights are written.

    python tools/train_value.py                       # the shipped model
    python tools/train_value.py --matches 2000 --out /tmp/v.npz
    python tools/train_value.py --players hard,hard --noise 0 --matches 600 --out /tmp/hard.npz

Everything follows from ``--seed`` (matches, sampling, initial weights, minibatches), and
the result does not depend on ``--workers``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.voltage import rules as V  # noqa: E402
from engine.voltage.arena import parse_entrant  # noqa: E402
from engine.voltage.bots import make_bot  # noqa: E402
from engine.voltage.bots.heuristics import evaluate as heuristic  # noqa: E402
from engine.voltage.bots.heuristics import win_chance  # noqa: E402
from engine.voltage.bots.value import N_FEATURES, WEIGHTS, ValueModel, features, model  # noqa: E402

NOISE = 0.1


Job = tuple[int, float, tuple[str, str], float]


def play(job: Job) -> tuple[list[list[float]], list[float], list[float], int]:
    """One self-play match: (feature rows, labels, the heuristic's chances, match seed)."""
    seed, keep, players, chance = job
    rng = random.Random(seed * 7919 + 1)
    bots = []
    for i, spec in enumerate(players):
        name, options = parse_entrant(spec)
        bots.append(make_bot(name, seed * 2 + i, **options))
    noise = random.Random(seed)
    s = V.new_match(seed)
    rows: list[list[float]] = []
    seats: list[int] = []
    heur: list[float] = []
    while s.phase != V.OVER:
        if rng.random() < keep:
            for seat in (0, 1):
                rows.append(features(s, seat))
                seats.append(seat)
                heur.append(win_chance(heuristic(s, seat), s.scores, seat))
        v = V.view(s, s.to_move)
        if noise.random() < chance:
            a = noise.choice(v.legal)
        else:
            a = bots[s.to_move].choose(v)
        V.step(s, a)
    labels = [0.5 if s.winner is None else float(s.winner == seat) for seat in seats]
    return rows, labels, heur, seed


Data = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def generate(
    matches: int, seed: int, keep: float, workers: int, players: tuple[str, str] = ("greedy", "greedy"),
    noise: float = NOISE,
) -> Data:
    jobs = [(seed + i, keep, players, noise) for i in range(matches)]
    xs: list[list[float]] = []
    ys: list[float] = []
    hs: list[float] = []
    groups: list[int] = []
    if workers > 1:
        with multiprocessing.Pool(workers) as pool:
            results = pool.imap(play, jobs, chunksize=50)
            for rows, labels, heur, s in results:
                xs += rows
                ys += labels
                hs += heur
                groups += [s] * len(rows)
    else:
        for job in jobs:
            rows, labels, heur, s = play(job)
            xs += rows
            ys += labels
            hs += heur
            groups += [s] * len(rows)
    return (
        np.asarray(xs, dtype=np.float32),
        np.asarray(ys, dtype=np.float32),
        np.asarray(hs, dtype=np.float64),
        np.asarray(groups),
    )


def log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def accuracy(p: np.ndarray, y: np.ndarray) -> float:
    decided = y != 0.5
    return float(np.mean((p[decided] > 0.5) == (y[decided] > 0.5)))


def train(
    x: np.ndarray, y: np.ndarray, hidden: int, epochs: int, seed: int, lr: float = 0.003, batch: int = 1024
) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    xn = ((x - mean) / scale).astype(np.float32)
    n, d = xn.shape
    params = {
        "w1": (rng.standard_normal((d, hidden)) / np.sqrt(d)).astype(np.float32),
        "b1": np.zeros(hidden, dtype=np.float32),
        "w2": (rng.standard_normal(hidden) / np.sqrt(hidden)).astype(np.float32),
        "b2": np.zeros((), dtype=np.float32),
    }
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    b1_, b2_, eps, decay = 0.9, 0.999, 1e-8, 1e-5
    t = 0
    for epoch in range(epochs):
        order = rng.permutation(n)
        rate = lr * (0.5 ** (epoch / max(1, epochs // 3)))
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            xb, yb = xn[idx], y[idx]
            h = np.tanh(xb @ params["w1"] + params["b1"])
            z = h @ params["w2"] + params["b2"]
            p = 1.0 / (1.0 + np.exp(-z))
            dz = (p - yb) / len(idx)
            grads = {
                "w2": h.T @ dz + decay * params["w2"],
                "b2": np.asarray(dz.sum(), dtype=np.float32),
            }
            dh = np.outer(dz, params["w2"]) * (1 - h * h)
            grads["w1"] = xb.T @ dh + decay * params["w1"]
            grads["b1"] = dh.sum(axis=0)
            t += 1
            for k, g in grads.items():
                m[k] = b1_ * m[k] + (1 - b1_) * g
                v2[k] = b2_ * v2[k] + (1 - b2_) * g * g
                mh = m[k] / (1 - b1_**t)
                vh = v2[k] / (1 - b2_**t)
                params[k] = (params[k] - rate * mh / (np.sqrt(vh) + eps)).astype(np.float32)
    return {"mean": mean.astype(np.float32), "scale": scale.astype(np.float32), **params}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--matches", type=int, default=20000)
    p.add_argument("--keep", type=float, default=0.3, help="chance that a position is kept")
    p.add_argument("--hidden", type=int, default=48)
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--players", default="greedy,greedy",
                   help="the two self-play bots, as the arena names them (e.g. hard,hard or hard:350,hard:350)")
    p.add_argument("--noise", type=float, default=NOISE, help="chance that a move is random instead")
    p.add_argument("--data", help="keep the self-play positions in this .npz: written if missing, "
                   "read (instead of playing again) if there")
    p.add_argument("--out", default=str(WEIGHTS))
    args = p.parse_args(argv)
    players = tuple(x.strip() for x in args.players.split(","))
    if len(players) == 1:
        players = players * 2
    if len(players) != 2:
        p.error("--players takes one or two bot names")
    try:
        for spec in players:
            parse_entrant(spec)
    except ValueError as e:
        p.error(str(e))

    t0 = time.perf_counter()
    if args.data and Path(args.data).exists():
        with np.load(args.data) as f:
            x, y, heur, groups = f["x"], f["y"], f["heur"], f["groups"]
        print(f"positions read from {args.data} (the options that made them are not checked)")
    else:
        x, y, heur, groups = generate(
            args.matches, args.seed * 1_000_000, args.keep, args.workers, (players[0], players[1]), args.noise
        )
        if args.data:
            np.savez_compressed(args.data, x=x, y=y, heur=heur, groups=groups)
    t1 = time.perf_counter()
    assert x.shape[1] == N_FEATURES
    held = groups % 10 == 0
    print(
        f"self-play: {args.matches} matches of {','.join(players)} (noise {args.noise}), "
        f"{len(y)} positions x {N_FEATURES} features ({x.nbytes / 1e6:.0f} MB), {t1 - t0:.0f} s"
    )
    shipped = model()  # before --out may overwrite it
    arrays = train(x[~held], y[~held], args.hidden, args.epochs, args.seed)
    t2 = time.perf_counter()
    m = ValueModel(arrays)
    z = m.logits(x[held])
    pred = 1.0 / (1.0 + np.exp(-z))
    base = np.mean(y[~held])
    print(f"training: {args.epochs} epochs, {args.hidden} hidden units, {t2 - t1:.0f} s")
    print(f"held out ({int(held.sum())} positions): log-loss {log_loss(pred, y[held]):.4f}, "
          f"accuracy {accuracy(pred, y[held]):.3f}")
    print(f"  the heuristic: log-loss {log_loss(heur[held], y[held]):.4f}, "
          f"accuracy {accuracy(heur[held], y[held]):.3f}")
    z0 = shipped.logits(x[held])
    was = 1.0 / (1.0 + np.exp(-z0))
    print(f"  the shipped model ({WEIGHTS.name}): log-loss {log_loss(was, y[held]):.4f}, "
          f"accuracy {accuracy(was, y[held]):.3f}")
    print(f"  a constant {base:.3f}: log-loss {log_loss(np.full(int(held.sum()), base), y[held]):.4f}")
    np.savez_compressed(args.out, **arrays)
    print(f"wrote {args.out} ({Path(args.out).stat().st_size} bytes); total {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
