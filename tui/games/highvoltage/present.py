"""What the High Voltage screen shows, from a view: pure functions, testable without Textual.

The match screen (:mod:`tui.games.highvoltage.match`) keeps the state of the screen (its
slots, cursor, the refusal being shown) and calls these for the words: the status line,
the practice hint, the countdown's caption, the prompt and the hand's note.  ``view`` is
a :class:`~engine.highvoltage.rules.HighVoltageView`; its ``seat`` is the screen's own
(None: a spectator).
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from engine.highvoltage.rules import HighVoltageView
from tui.text import safe

PRACTICE_LABELS = (" PRACTICE: double border = it fits ", " PRACTICE: double border fits ", " PRACTICE ")


def status(view: HighVoltageView, *, practice: bool, width: int) -> Text:
    """The top line, in the longest form that fits ``width`` columns: shortened by
    meaning (the game's name, the practice label), never cut."""
    counts = f"{view.players} players · {view.plays} played"
    if view.flips:
        counts += f" · {view.flips} flip{'s' if view.flips != 1 else ''}"
    forms = [("HIGH VOLTAGE", counts, p) for p in (PRACTICE_LABELS if practice else ("",))]
    forms.append(("HV", counts, " PRACTICE " if practice else ""))
    head, middle, label = forms[-1]
    for head, middle, label in forms:
        if len(head) + 2 + len(middle) + (2 + len(label) if label else 0) <= width:
            break
    line = Text(no_wrap=True, overflow="ellipsis")
    line.append(head, "bold")
    line.append(f"  {middle}")
    if label:
        line.append("  ")
        line.append(label, "bold reverse")
    return line


def practice_hint(view: HighVoltageView) -> str:
    """Practice mode's words under the top card: the values that fit it."""
    if view.over:
        return ""
    a, b = view.top.targets

    def an(v: int) -> str:
        return "an" if v == 8 else "a"

    return f"practice: {an(a)} {a} or {an(b)} {b} fits" if a != b else f"practice: {an(a)} {a} fits"


def countdown_caption(view: HighVoltageView, countdown: int | None) -> str:
    """The words under the big countdown number."""
    if view.over:
        return ""
    if countdown is None:
        return "waiting for the start…"
    if view.flips:
        return "Everyone was stuck: the bottom card\nof the pile is on top now.\nhands face down: get ready!"
    return "hands face down: get ready!"


def prompt(view: HighVoltageView, names: Sequence[str], countdown: int | None, *, benched: bool = False) -> str:
    """The prompt line's words: what this seat can do now (or that it watches).
    ``benched``: a bot plays this seat for its idle person."""
    me = view.seat
    if view.over:
        if view.winner is None:
            return "The match is over: nobody could play.  ⏎ results · q leave"
        who = "You win!" if view.winner == me else f"{safe(names[view.winner])} wins."
        return f"{who}  ⏎ results · q leave"
    if me is None:
        return "Watching.  q leave"
    if view.out[me]:
        return "You left this match.  q leave"
    if benched:
        return "A bot plays your seat.  t take it back"
    if view.counting_down:
        return "Wait for the countdown…" if countdown is not None else "Waiting for the match to start…"
    if view.stuck[me]:
        return "Stuck: waiting for the others; any play clears it."
    return "Play any time: press a card's key, or click it"


def prompt_line(words: str, *, error: str = "", mine: bool = False) -> Text:
    """The prompt line: a refusal (``error``) in place of the prompt while it shows; the
    prompt marked ▶ when this seat can act."""
    t = Text(no_wrap=True, overflow="ellipsis")
    if error:
        t.append(" ✗ ", "bold reverse")
        t.append(" " + safe(error), "bold")
    else:
        t.append(" ▶ " if mine else " · ", "bold reverse" if mine else "bold")
        t.append(" " + words, "bold" if mine else "")
    return t


def hand_note(view: HighVoltageView, *, holding: bool) -> str:
    """The line over the hand ("" for none): a spectator sees no hand; an empty hand says
    how to get cards.  ``holding``: the screen keeps slots for the hand (its cards, and
    the places of cards just played)."""
    if view.seat is None:
        return "Watching: every hand is hidden from spectators."
    if view.hand is None or holding or view.over:
        return ""
    return "Your hand is empty: draw (d)."


def _and(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def idle_line(view: HighVoltageView, names: Sequence[str], idle: Sequence[int], *,
              benched: bool = False, can_vote: bool = False) -> str:
    """The idle line ("" for none): to a seat a bot plays for its idle person, that it
    may take the seat back; to one who may vote, who is idle and the key to go on
    without them.  (Everyone sees the marks in the players' list.)"""
    if view.over or view.seat is None:
        return ""
    if benched:
        return "You were idle; a bot plays your seat.  Press t to take it back."
    others = [safe(names[s]) if s < len(names) else f"Player {s + 1}" for s in idle if s != view.seat]
    if not others or not can_vote:
        return ""
    verb = "is" if len(others) == 1 else "are"
    whom = "them" if len(others) > 1 else others[0]
    return f"{_and(others)} {verb} idle: press K to continue without {whom} (a bot plays on)."
