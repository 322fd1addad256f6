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
from tui.i18n import _, ngettext
from tui.text import safe


def practice_labels() -> tuple[str, ...]:
    """The practice mode's label in the top line, longest first."""
    return (" " + _("PRACTICE: double border = it fits") + " ", " " + _("PRACTICE: double border fits") + " ",
            " " + _("PRACTICE") + " ")


def status(view: HighVoltageView, *, practice: bool, width: int) -> Text:
    """The top line, in the longest form that fits ``width`` columns: shortened by
    meaning (the game's name, the practice label), never cut."""
    counts = (ngettext("%(n)d player", "%(n)d players", view.players) % {"n": view.players} + " · "
              + ngettext("%(n)d played", "%(n)d played", view.plays) % {"n": view.plays})
    if view.flips:
        counts += " · " + ngettext("%(n)d flip", "%(n)d flips", view.flips) % {"n": view.flips}
    labels = practice_labels()
    forms = [("HIGH VOLTAGE", counts, p) for p in (labels if practice else ("",))]
    forms.append(("HV", counts, labels[-1] if practice else ""))
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

    def an(v: int) -> str:  # (English's article before a number; other languages word it as they do)
        return _("an %(n)d") % {"n": v} if v == 8 else _("a %(n)d") % {"n": v}

    if a != b:
        return _("practice: %(a)s or %(b)s fits") % {"a": an(a), "b": an(b)}
    return _("practice: %(a)s fits") % {"a": an(a)}


def countdown_caption(view: HighVoltageView, countdown: int | None) -> str:
    """The words under the big countdown number."""
    if view.over:
        return ""
    if countdown is None:
        return _("waiting for the start…")
    if view.flips:
        return _("Everyone was stuck: the bottom card\nof the pile is on top now.\nhands face down: get ready!")
    return _("hands face down: get ready!")


def prompt(view: HighVoltageView, names: Sequence[str], countdown: int | None, *, benched: bool = False) -> str:
    """The prompt line's words: what this seat can do now (or that it watches).
    ``benched``: a bot plays this seat for its idle person."""
    me = view.seat
    if view.over:
        if view.winner is None:
            return _("The match is over: nobody could play.  ⏎ results · q leave")
        who = _("You win!") if view.winner == me else _("%(who)s wins.") % {"who": safe(names[view.winner])}
        return who + "  " + _("⏎ results · q leave")
    if me is None:
        return _("Watching.  q leave")
    if view.out[me]:
        return _("You left this match.  q leave")
    if benched:
        return _("A bot plays your seat.  t take it back")
    if view.counting_down:
        return _("Wait for the countdown…") if countdown is not None else _("Waiting for the match to start…")
    if view.stuck[me]:
        return _("Stuck: waiting for the others; any play clears it.")
    return _("Play any time: press a card's key, or click it")


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
        return _("Watching: every hand is hidden from spectators.")
    if view.hand is None or holding or view.over:
        return ""
    return _("Your hand is empty: draw (d).")


def _and(names: Sequence[str]) -> str:
    if len(names) == 1:
        return names[0]
    return _("%(names)s and %(last)s") % {"names": ", ".join(names[:-1]), "last": names[-1]}


def idle_line(view: HighVoltageView, names: Sequence[str], idle: Sequence[int], *,
              benched: bool = False, can_vote: bool = False) -> str:
    """The idle line ("" for none): to a seat a bot plays for its idle person, that it
    may take the seat back; to one who may vote, who is idle and the key to go on
    without them.  (Everyone sees the marks in the players' list.)"""
    if view.over or view.seat is None:
        return ""
    if benched:
        return _("You were idle; a bot plays your seat.  Press t to take it back.")
    others = [safe(names[s]) if s < len(names) else _("Player %(n)d") % {"n": s + 1} for s in idle if s != view.seat]
    if not others or not can_vote:
        return ""
    if len(others) == 1:
        return _("%(who)s is idle: press K to continue without %(who)s (a bot plays on).") % {"who": others[0]}
    return _("%(who)s are idle: press K to continue without them (a bot plays on).") % {"who": _and(others)}
