"""High Voltage's words: its events, its endings and its refusals as a player reads them.

The engine's events (:class:`engine.highvoltage.rules.Event`) and errors carry a kind or
code and parameters; this module makes the sentence, in the session's language
(:mod:`tui.i18n`), with the seats' names as the screen shows them.  What every game
shares (the host's notes, the lobby's refusals, ordinals) is :mod:`tui.words`, which
this module falls back on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.highvoltage import rules as H
from tui import words as W
from tui.i18n import N_, _

#: The engine's reasons for an ending, as the end of the feed says them in brackets.
REASONS = {
    "last card": N_("last card"),
    "blocked": N_("blocked"),
    "resignation": N_("resignation"),
}


def label(face: H.Face) -> str:
    """A card's face in words: ``7 (±3)``."""
    return _("%(value)d (±%(mod)d)") % {"value": face.value, "mod": face.mod}


def reason(text: str) -> str:
    return _(REASONS[text]) if text in REASONS else text


def line(event: Any, names: Sequence[str]) -> str:
    """One feed line: a High Voltage event, or a host's note (:func:`tui.words.note`)."""
    if not isinstance(event, H.Event):
        return W.entry(event, names)
    k = event.kind
    who = names[event.seat] if event.seat is not None else ""
    if k == "deal":
        return _("Cards dealt to %(count)d players; four each in hand, face down.") % {"count": event.count}
    if k == "go":
        return _("Un, dos, tres! Hands up: play!")
    if k == "play" and event.card is not None:
        return _("%(who)s played %(card)s.") % {"who": who, "card": label(event.card)}
    if k == "slow" and event.aimed is not None and event.covered is not None:
        p = {"who": who, "aimed": event.aimed.value, "covered": event.covered.value}
        if event.covered.value == 8:
            return _("%(who)s: too slow — the %(aimed)d was covered by an %(covered)d.") % p
        return _("%(who)s: too slow — the %(aimed)d was covered by a %(covered)d.") % p
    if k == "draw":
        return _("%(who)s drew a card.") % {"who": who}
    if k == "stuck":
        return _("%(who)s is stuck.") % {"who": who}
    if k == "flip" and event.card is not None:
        return _("Everyone is stuck: the bottom card %(card)s goes on top.") % {"card": label(event.card)}
    if k == "last":
        return _("%(who)s laid the last card and wins!") % {"who": who}
    if k == "resign":
        return _("%(who)s left the match.") % {"who": who}
    if k == "end":
        return _end(event, names)
    return k


def _end(event: H.Event, names: Sequence[str]) -> str:
    w = event.winner
    if event.reason == "blocked":
        if w is not None:
            head = _("Nobody can play: the match is over; %(name)s has the fewest cards left.") % {"name": names[w]}
        else:
            head = _("Nobody can play: the match is over.")
    elif w is not None:
        head = _("%(name)s wins (%(reason)s).") % {"name": names[w], "reason": reason(event.reason)}
    else:
        head = _("The match is over.")
    if len(event.places) > 2 or event.reason == "blocked":
        order = sorted(range(len(event.places)), key=lambda s: (event.places[s], s))
        parts = [_("%(place)s %(name)s (%(left)d left)") % {
            "place": W.ordinal(event.places[s]), "name": names[s], "left": event.cards_left[s]} for s in order]
        head += " " + _("Places: %(places)s.") % {"places": W.listing(parts)}
    return head


def describe(title: str, names: Sequence[str], scores: Sequence[int], short: bool = False) -> str:
    """A running match in a lobby's list: ``High Voltage: ann 12, bob 20 cards left``; short,
    ``HV: ann, bob``."""
    if short:
        return _("HV: %(names)s") % {"names": W.listing(names)}
    seats = W.listing([_("%(name)s %(left)d") % {"name": n, "left": s} for n, s in zip(names, scores, strict=True)])
    return _("%(title)s: %(seats)s cards left") % {"title": title, "seats": seats}


def lines(entries: Sequence[Any], names: Sequence[str]) -> list[str]:
    """Feed lines for ``entries`` (events and notes), in order."""
    return [line(e, names) for e in entries]


# -- refusals ------------------------------------------------------------------


def _too_slow(p: Mapping[str, Any]) -> str:
    aimed, covered = H.Face(*p["aimed"]), H.Face(*p["covered"])
    q = {"aimed": aimed.value, "covered": covered.value}
    if covered.value == 8:
        return _("too slow: the %(aimed)d was covered by an %(covered)d a moment ago") % q
    return _("too slow: the %(aimed)d was covered by a %(covered)d a moment ago") % q


def _does_not_fit(p: Mapping[str, Any]) -> str:
    card, top = H.Face(*p["card"]), H.Face(*p["top"])
    q = {"value": card.value, "top": label(top)}
    if card.value == 8:
        return _("an %(value)d does not fit on %(top)s") % q
    return _("a %(value)d does not fit on %(top)s") % q


REFUSALS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "host_countdown_only": lambda p: _("only the host ends the countdown"),
    "play_open": lambda p: _("play is already open"),
    "not_an_action": lambda p: _("not a High Voltage action: %(action)r") % {"action": p.get("action")},
    "no_such_seat": lambda p: _("there is no seat %(seat)d in this match") % {"seat": p["seat"]},
    "own_seat_only": lambda p: _("you may only act for your own seat"),
    "wait_countdown": lambda p: _("wait for the countdown"),
    "pile_empty": lambda p: _("your pile is empty"),
    "already_stuck": lambda p: _("you have already declared stuck"),
    "no_such_card": lambda p: _("you have no %(card)s in hand") % {"card": label(H.Face(*p["card"]))},
    "not_on_pile": lambda p: _("%(card)s is not the card on the pile") % {"card": label(H.Face(*p["card"]))},
    "does_not_fit": _does_not_fit,
    "too_slow": _too_slow,
    # the host's
    "no_seat": lambda p: _("no seat %(seat)d") % {"seat": p["seat"]},
    "bot_plays_your_seat": lambda p: _("a bot is playing your seat"),
    "nobody_idle": lambda p: _("nobody is idle now"),
    "not_idle": lambda p: _("%(name)s is not idle") % {"name": p["name"]},
    "no_bot_in_seat": lambda p: _("no bot is playing your seat"),
}


def refusal(error: BaseException) -> str:
    """Why an action (or a vote, taking a seat back) was refused, for the player."""
    return W.refusal(error, REFUSALS)


# -- Learn High Voltage (tui/games/highvoltage/lesson.py) ------------------------------

#: Each lesson's rule (the top line) and its task, by the lesson's id
#: (:data:`engine.highvoltage.lessons.LESSONS`).
LESSON_RULES = {
    "fit": N_("A card fits when its value is the top card's value plus or minus the top card's modifier."),
    "wrap_up": N_("Counting wraps around: above 10 comes 1 again (11 is 1, 12 is 2, 13 is 3)."),
    "wrap_down": N_("Counting wraps around: below 1 comes 10 again (0 is 10, −1 is 9, −2 is 8)."),
    "draw": N_("No card fits? Draw from your own pile, one card at a time, as often as you like."),
    "stuck": N_("No card fits and your pile is empty: declare stuck. When everyone is stuck, "
                "the bottom card of the discard pile is turned up on top."),
    "last": N_("When your pile is empty and one card is left in your hand, you lay it down and win."),
}
LESSON_TASKS = {
    "fit": N_("Play the card that fits the 5 (±2)."),
    "wrap_up": N_("Play the card that fits the 9 (±3)."),
    "wrap_down": N_("Play the card that fits the 2 (±3)."),
    "draw": N_("Nothing fits the 4 (±1): draw (d), then play the card that fits."),
    "stuck": N_("Nothing fits and your pile is empty: declare stuck (s), then play on the new top card."),
    "last": N_("Your pile is empty: play the card that fits, and win with the last one."),
}


def lesson_rule(lesson: str, number: int, total: int) -> str:
    return _("Lesson %(n)d of %(total)d. %(rule)s") % {"n": number, "total": total, "rule": _(LESSON_RULES[lesson])}


def lesson_task(lesson: str) -> str:
    return _(LESSON_TASKS[lesson])


def lesson_title() -> str:
    return _("Learn %(title)s") % {"title": "High Voltage"}


def lesson_solved(last: bool) -> str:
    if last:
        return _("✓ Well played: the lessons are done. n: a table against a slow bot")
    return _("✓ Well played. n: the next lesson")


def lesson_flipped(face: H.Face) -> str:
    """Said when the learner's stuck declaration made everyone stuck."""
    return _("Everyone is stuck: the bottom card, %(card)s, is turned up. Now play on it.") % {"card": label(face)}


def lesson_no_fit(card: H.Face, top: H.Face) -> str:
    """Why a card is refused in a lesson: the two values that fit, and the card back in hand."""
    low, high = sorted(top.targets)
    return _("%(card)s does not fit: on %(top)s only %(low)d or %(high)d fit. Try again.") % {
        "card": label(card), "top": label(top), "low": low, "high": high}


def lesson_not_now(kind: str) -> str:
    """Why a draw or a stuck declaration misses the lesson's point (the position comes back)."""
    if kind == "draw":
        return _("A card in your hand fits: play it rather than draw. Try again.")
    if kind == "stuck_pile":
        return _("Your pile still has cards: draw before you declare stuck. Try again.")
    return _("A card in your hand fits: play it. Try again.")


def lesson_keys() -> str:
    return _("1-9: play that card · d: draw · s: stuck · q: leave")


def lesson_pile(cards: int) -> str:
    return _("Cards in your pile: %(count)d") % {"count": cards}
