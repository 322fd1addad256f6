"""Toy's words (its ``tui/games/<game>/words.py``): its events and refusals, falling back on
:mod:`tui.words` for what every game shares."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tests.support.toy import rules as T
from tui import words as W
from tui.i18n import _


def line(event: Any, names: Sequence[str]) -> str:
    if not isinstance(event, T.Event):
        return W.entry(event, names)
    who = names[event.seat] if event.seat is not None else ""
    if event.kind == "start":
        return _("%(who)s starts.") % {"who": who}
    if event.kind == "play":
        return _("%(who)s laid a %(card)d.") % {"who": who, "card": event.card}
    if event.kind == "resign":
        return _("%(who)s resigned.") % {"who": who}
    if event.kind == "end":
        a, b = event.totals
        if event.winner is None:
            return _("A draw, %(a)d-%(b)d.") % {"a": a, "b": b}
        return _("%(winner)s wins %(a)d-%(b)d.") % {"winner": names[event.winner], "a": a, "b": b}
    return event.kind


def lines(entries: Sequence[Any], names: Sequence[str]) -> list[str]:
    return [line(e, names) for e in entries]


REFUSALS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "not_your_turn": lambda p: _("wait for your turn"),
    "no_such_card": lambda p: _("you hold no %(card)d") % {"card": p["card"]},
    "own_seat_only": lambda p: _("you may only play your own cards"),
}


def refusal(error: BaseException) -> str:
    return W.refusal(error, REFUSALS)


def describe(title: str, names: Sequence[str], scores: Sequence[int], short: bool = False) -> str:
    return _("%(title)s: %(names)s  %(score)s") % {
        "title": title, "names": _(" v ").join(names), "score": "-".join(map(str, scores))}
