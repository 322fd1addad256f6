"""Bots: each chooses an action from what its seat may know (a view), never the state.

A bot is an object with ``name`` and ``choose(view) -> action``; ``make_bot(name, seed)``
builds one by name.  ``BOT_NAMES`` lists the names that exist.
"""

from __future__ import annotations

import random
from typing import Protocol

from ..voltage import Action, VoltageView


class Bot(Protocol):
    name: str

    def choose(self, view: VoltageView) -> Action: ...


class RandomBot:
    """Uniform over the legal actions in its view."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: VoltageView) -> Action:
        if not view.legal:
            raise ValueError("the bot has no decision to make in this view")
        return self.rng.choice(view.legal)


_FACTORIES = {"random": RandomBot}
BOT_NAMES: tuple[str, ...] = tuple(_FACTORIES)


def make_bot(name: str, seed: int | None = None) -> Bot:
    try:
        factory = _FACTORIES[name]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}: choose from {', '.join(BOT_NAMES)}") from None
    return factory(seed)
