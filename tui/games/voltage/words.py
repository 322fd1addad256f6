"""Voltage's words: its events, its endings and its refusals as a player reads them.

The engine's events (:class:`engine.voltage.rules.Event`) and errors carry a kind or
code and parameters; this module makes the sentence, in the session's language
(:mod:`tui.i18n`), with the seats' names as the screen shows them.  What every game
shares (the host's notes, the lobby's refusals, ordinals) is :mod:`tui.words`, which
this module falls back on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.voltage import rules as V
from engine.voltage.cards import BYPASS, FUSE, Card
from tui import words as W
from tui.i18n import N_, _, ngettext
from tui.text import sign

COLOURS = (N_("orange"), N_("green"), N_("blue"), N_("purple"))

#: The engine's reasons for an ending, as the end of the log says them in brackets.
REASONS = {
    "four sets": N_("four sets"),
    "neither player can act": N_("neither player can act"),
    "resignation": N_("resignation"),
    "time": N_("time"),
    "aborted": N_("aborted"),
    "agreement": N_("agreement"),
}


def colour(terminal: int) -> str:
    """A terminal's colour: ``orange``."""
    return _(COLOURS[terminal])


def card_name(card: Card) -> str:
    """A card's face in words: ``orange 2``, ``bypass``, ``blown fuse``."""
    if card.face == BYPASS:
        return _("bypass")
    if card.face == FUSE:
        return _("blown fuse")
    return _("%(colour)s %(value)d") % {"colour": colour(card.colour), "value": card.value}


def reason(text: str) -> str:
    """An ending's reason in words (as the engine logs it)."""
    return _(REASONS[text]) if text in REASONS else text


def line(event: Any, names: Sequence[str]) -> str:
    """One log line: a Voltage event, or a host's note (:func:`tui.words.note`)."""
    if not isinstance(event, V.Event):
        return W.entry(event, names)
    k = event.kind
    who = names[event.seat] if event.seat is not None else ""
    if k == "start":
        return _("%(who)s goes first.") % {"who": who}
    if k == "play":
        return _play(event, names, who)
    if k == "score":
        t = event.totals
        p = {"colour": colour(event.terminal).capitalize(), "sign": sign(event.plus), "a": t[0], "b": t[1],
             "winner": names[event.winner] if event.winner is not None else "?"}
        if t[0] == t[1]:
            return _("%(colour)s (%(sign)s) scored %(a)d-%(b)d (tie: the fifth card loses): "
                     "%(winner)s wins the set.") % p
        return _("%(colour)s (%(sign)s) scored %(a)d-%(b)d: %(winner)s wins the set.") % p
    if k == "reshuffle":
        return ngettext("The discard pile was shuffled into a new draw pile (%(count)d card).",
                        "The discard pile was shuffled into a new draw pile (%(count)d cards).",
                        event.count) % {"count": event.count}
    if k == "draw":
        if event.transformer:
            return _("%(who)s drew a transformer.") % {"who": who}
        return _("%(who)s drew a card.") % {"who": who}
    if k == "flip":
        return _("%(who)s flipped %(colour)s to %(sign)s.") % {
            "who": who, "colour": colour(event.terminal), "sign": sign(event.plus)}
    simple = _SIMPLE.get(k)
    if simple is not None:
        return _(simple) % {"who": who}
    if k == "end":
        return _end(event, names)
    return k


_SIMPLE = {
    "pass": N_("%(who)s cannot act and passes."),
    "resign": N_("%(who)s resigned."),
    "timeout": N_("%(who)s ran out of time."),
    "abort": N_("%(who)s aborted the match before it began."),
    "agree": N_("%(who)s accepted the offer of a draw."),
}


def _play(event: V.Event, names: Sequence[str], who: str) -> str:
    card = event.card
    if card is not None and card.special:
        p = {"who": who, "card": card_name(card), "side": names[event.side], "colour": colour(event.terminal)}
        if event.target is None:
            return _("%(who)s played a %(card)s on %(side)s's side of %(colour)s (nothing to take).") % p
        p["target"] = card_name(event.target)
        if card.face == BYPASS:
            return _("%(who)s played a %(card)s on %(side)s's side of %(colour)s and took their %(target)s.") % p
        return _("%(who)s played a %(card)s on %(side)s's side of %(colour)s and blew their %(target)s.") % p
    p = {"who": who, "card": card_name(card) if card is not None else "?", "side": names[event.side]}
    if event.side == event.seat:
        return _("%(who)s played %(card)s on their own side.") % p
    return _("%(who)s played %(card)s on %(side)s's side.") % p


def _end(event: V.Event, names: Sequence[str]) -> str:
    s, w = event.scores, event.winner
    if event.reason == V.ABORTED:
        return _("The match is aborted: no result, no rating change.")
    if event.reason == V.AGREEMENT:
        return _("The match is drawn by agreement %(a)d-%(b)d.") % {"a": s[0], "b": s[1]}
    if event.reason == V.TIME and w is not None:
        return _("%(loser)s lost on time: %(winner)s wins the match %(won)d-%(lost)d.") % {
            "loser": names[1 - w], "winner": names[w], "won": s[w], "lost": s[1 - w]}
    if w is None:
        return _("The match is drawn %(a)d-%(b)d (%(reason)s).") % {
            "a": s[0], "b": s[1], "reason": reason(event.reason)}
    return _("%(winner)s wins the match %(won)d-%(lost)d (%(reason)s).") % {
        "winner": names[w], "won": s[w], "lost": s[1 - w], "reason": reason(event.reason)}


def describe(title: str, names: Sequence[str], scores: Sequence[int], short: bool = False) -> str:
    """A running match in a lobby's list: ``Voltage: ann v bob  2-1`` (the same when short)."""
    return _("%(title)s: %(names)s  %(score)s") % {
        "title": title, "names": _(" v ").join(names), "score": "-".join(map(str, scores))}


def lines(entries: Sequence[Any], names: Sequence[str]) -> list[str]:
    """Log lines for ``entries`` (events and notes), in order."""
    return [line(e, names) for e in entries]


# -- refusals ------------------------------------------------------------------


def _no_such_card(p: Mapping[str, Any]) -> str:
    card = Card(*p["card"])
    if card.transformer:
        return _("you have no %(card)s (transformer) in hand") % {"card": card_name(card)}
    return _("you have no %(card)s in hand") % {"card": card_name(card)}


def _with_card(message: str) -> Callable[[Mapping[str, Any]], str]:
    return lambda p: _(message) % {"card": card_name(Card(*p["card"]))}


REFUSALS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "resign_own_seat": lambda p: _("a player may only resign for themselves"),
    "host_clock_only": lambda p: _("only the host's clock runs out a player's time"),
    "timeout_not_to_move": lambda p: _("only the player to move can run out of time"),
    "own_seat_only": lambda p: _("a player may only act for themselves"),
    "abort_too_late": lambda p: _("a match can be aborted only before both players have moved"),
    "not_your_turn": lambda p: _("it is not your turn"),
    "no_such_terminal": lambda p: _("there is no terminal %(terminal)r") % {"terminal": p["terminal"]},
    "flip_first": lambda p: _("you drew a transformer: flip a terminal block first"),
    "flip_after_transformer": lambda p: _("flip a block only after drawing a transformer"),
    "cannot_pass": lambda p: _("you can act, so you cannot pass"),
    "hand_limit": lambda p: _("you cannot draw two: a hand never holds more than %(limit)d cards") % {
        "limit": p["limit"]},
    "nothing_to_draw": lambda p: _("there is nothing left to draw"),
    "no_such_side": lambda p: _("there is no side %(side)r: a side is seat 0 or 1") % {"side": p["side"]},
    "no_such_card": _no_such_card,
    "second_card_same_terminal": lambda p: _("the second card must go to a different terminal than the first"),
    "special_on_opponent": _with_card(N_("a %(card)s is always played on the opponent's side")),
    "choose_target": _with_card(N_("choose which of the opponent's cards the %(card)s takes")),
    "special_takes_no_special": _with_card(N_("a %(card)s never takes a special card")),
    "no_such_target": lambda p: _("the opponent has no %(card)s on that side of %(colour)s") % {
        "card": card_name(Card(*p["card"])), "colour": colour(p["terminal"])},
    "play_not_allowed": lambda p: _("that play is not allowed"),
    "wrong_terminal": lambda p: _("a %(card)s goes to the %(colour)s terminal") % {
        "card": card_name(Card(*p["card"])), "colour": colour(p["terminal"])},
    "only_specials_take": lambda p: _("only a bypass or a blown fuse takes a card"),
    "not_allowed": lambda p: _("that action is not allowed now"),
    # the host's
    "draw_offer_pending": lambda p: _("a draw offer is already waiting for an answer"),
    "draw_offer_too_soon": lambda p: ngettext("you may offer a draw once every %(turns)d turn",
                                              "you may offer a draw once every %(turns)d turns",
                                              p["turns"]) % {"turns": p["turns"]},
    "draw_offer_from": lambda p: _("you may offer a draw from turn %(turn)d") % {"turn": p["turn"]},
    "no_draw_offer_to_answer": lambda p: _("there is no draw offer to answer"),
    "no_draw_offer_to_accept": lambda p: _("there is no draw offer to accept"),
    "abort_wait": lambda p: _("you may abort once %(name)s has had %(seconds).0f s for a first move") % {
        "name": p["name"], "seconds": p["seconds"]},
}


def refusal(error: BaseException) -> str:
    """Why an action (or a draw offer, an abort) was refused, for the player."""
    return W.refusal(error, REFUSALS)


# -- the coach: hints, the analysis, the lessons ------------------------------------


def move_words(view: V.VoltageView, action: V.Action) -> str:
    """A move of the seat of ``view`` as an instruction: ``play your purple 3 on their side``."""
    me = view.seat
    if isinstance(action, V.Draw):
        return _("draw two") if view.phase == "start" else _("draw one and end your turn")
    if isinstance(action, V.Flip):
        return _("flip %(colour)s to %(sign)s") % {
            "colour": colour(action.terminal), "sign": sign(not view.plus[action.terminal])}
    if isinstance(action, V.Pass):
        return _("pass")
    if not isinstance(action, V.Play):
        return action.text()
    p = {"card": card_name(action.card), "colour": colour(action.terminal)}
    if action.card.special:
        if action.target is None:
            return _("play your %(card)s on their side of %(colour)s") % p
        p["target"] = card_name(action.target)
        return _("play your %(card)s on their %(colour)s, taking their %(target)s") % p
    if action.side == me:
        return _("play your %(card)s on your side") % p
    return _("play your %(card)s on their side") % p


def _standing(r: Any) -> str:
    p = {"colour": colour(r.terminal), "mine": r.mine, "theirs": r.theirs, "sign": sign(r.plus)}
    if r.lead > 0:
        return _("you lead %(mine)d-%(theirs)d on %(colour)s with the block %(sign)s") % p
    if r.lead < 0:
        return _("you trail %(mine)d-%(theirs)d on %(colour)s with the block %(sign)s") % p
    return _("%(colour)s is level at %(mine)d-%(theirs)d (a tie goes against the fifth card)") % p


def reason_words(r: Any) -> str:
    """Why a move (an :class:`engine.voltage.coach.Reason`), in one clause."""
    p = {"colour": colour(r.terminal) if r.terminal >= 0 else "", "mine": r.mine, "theirs": r.theirs,
         "sign": sign(r.plus), "target": card_name(r.target) if r.target is not None else ""}
    k = r.kind
    if k == "wins_set":
        if r.match:
            return _("it fills %(colour)s and wins the set %(mine)d-%(theirs)d, and the match") % p
        return _("it fills %(colour)s and wins the set %(mine)d-%(theirs)d with the block %(sign)s") % p
    if k == "loses_set":
        return _("it fills %(colour)s and gives that set away %(mine)d-%(theirs)d: the least harm now") % p
    if k == "takes":
        return _("takes their %(target)s: ") % p + _standing(r)
    if k == "burns":
        return _("blows their %(target)s away: ") % p + _standing(r)
    if k == "loads":
        return _("loads their side: ") + _standing(r)
    if k == "fills":
        return _("fills a place on their side: ") + _standing(r)
    if k == "flips":
        return _("the block turns: ") + _standing(r)
    if k == "draw_two":
        return _("no play helps you now: two more cards give you choices")
    if k == "draw_one":
        return _("keep your other cards for a better moment")
    if k == "pass":
        return _("you have nothing else to do")
    return _standing(r)


def hint_line(view: V.VoltageView, hint: Any) -> str:
    """The coach's hint for the prompt line: the move (and the Expert's chance after it)."""
    from tui.text import Forms

    p = {"move": move_words(view, hint.action), "chance": round(100 * hint.chance)}
    return Forms(_("Hint: %(move)s (%(chance)d%% to win)") % p, _("Hint: %(move)s") % p)


def hint_why(hint: Any) -> str:
    """Why the coach's move, in one line above the board."""
    return _("Why: %(why)s.") % {"why": reason_words(hint.reason)}


def hint_thinking() -> str:
    return _("Thinking of a hint…")


def hint_failed(error: BaseException) -> str:
    return _("could not ask for a hint: %(error)s") % {"error": error}


def analysing(done: int, total: int) -> str:
    """The chart's progress bar's words."""
    return _("Analysing the match… %(done)d of %(total)d moves") % {"done": done, "total": total}


def step_line(moves: Sequence[Any], step: int, names: Sequence[str], better: Callable[[Any], str]) -> str:
    """What the move of ``step`` was worth to its player, and the better move if it was a mistake."""
    m = next((m for m in moves if m.step == step), None)
    if m is None:
        count = sum(1 for x in moves if x.mistake)
        if count == 0:
            return _("No mistakes of 15 points or more in this match.  c: the hands")
        return ngettext("%(n)d mistake (✗): m steps to it.  c: the hands",
                        "%(n)d mistakes (✗): m steps to the next.  c: the hands", count) % {"n": count}
    p = {"name": names[m.seat], "chance": round(100 * m.chance)}
    if not m.mistake:
        return _("%(name)s: %(chance)d%% to win after this move.") % p
    p.update({"lost": round(100 * m.loss), "better": better(m)})
    return _("✗ %(name)s: %(chance)d%% after this move, %(lost)d points lost; better: %(better)s.") % p


def better_move(text: str, view: V.VoltageView | None) -> str:
    """The analysis's better move (an action's stored text) as an instruction."""
    try:
        action = V.parse_action(text)
    except Exception:
        return text
    if view is None or view.seat is None:
        return text
    return move_words(view, action)


REFUSALS.update({
    "no_hints_vs_people": lambda p: _("hints are for matches against a bot"),
    "analysis_busy": lambda p: _("your other analysis is still running: open this replay again when it is done"),
    "not_analysable": lambda p: _("the coach cannot analyse this match"),
})


def learner() -> str:
    return _("You")


def coach_name() -> str:
    return _("Coach")


#: Each lesson's rule (the top line) and its task (the prompt line), by the lesson's id.
LESSON_RULES = {
    "terminal": N_("A number card goes to its colour's terminal, on your side or on the opponent's."),
    "set": N_("Five cards on a terminal score a set: with + the higher total wins, with − the lower."),
    "bypass": N_("A bypass goes on the opponent's side and brings one of their cards over to yours."),
    "fuse": N_("A blown fuse takes the place of one of the opponent's cards, which is discarded: "
               "the terminal keeps its count."),
    "transformer": N_("You drew a transformer (V on its back): flip one terminal's block now, + to − or − to +."),
    "tie": N_("A tie goes against the player of the fifth card."),
    "two": N_("A turn: play one then draw one, play two to two terminals, or draw two; "
              "a hand never holds more than six."),
}
LESSON_TASKS = {
    "terminal": N_("Green is −, the lower total wins: win the green set."),
    "set": N_("Win a set with one card."),
    "bypass": N_("Win the blue set with your bypass."),
    "fuse": N_("Take the lead on purple."),
    "transformer": N_("Flip the block that puts you ahead."),
    "tie": N_("Win the orange set."),
    "two": N_("You hold six cards: win two sets this turn."),
}


def lesson_rule(lesson: str, number: int, total: int) -> str:
    return _("Lesson %(n)d of %(total)d. %(rule)s") % {"n": number, "total": total, "rule": _(LESSON_RULES[lesson])}


def lesson_task(lesson: str) -> str:
    return _(LESSON_TASKS[lesson])


def lesson_solved(last: bool) -> str:
    from tui.text import Forms

    if last:
        return Forms(_("✓ Well played: the lessons are done. n: a match against Easy, with hints"),
                     _("✓ Done. n: a match against Easy, with hints"))
    return Forms(_("✓ Well played. n: the next lesson"), _("✓ n: next lesson"))


def _lesson_wrong(p: Mapping[str, Any]) -> str:
    """Why a lesson's move missed the point, short enough for the prompt line."""
    from tui.text import Forms

    r = p["reason"]
    q = {"colour": colour(r.terminal).capitalize() if r.terminal >= 0 else "", "mine": r.mine,
         "theirs": r.theirs, "sign": sign(r.plus)}
    if r.kind == "loses_set" and r.mine == r.theirs:
        return Forms(_("%(colour)s ends %(mine)d-%(theirs)d: a tie goes against the fifth card. Try again.") % q,
                     _("%(colour)s %(mine)d-%(theirs)d: the tie is theirs. Try again.") % q)
    if r.kind == "loses_set":
        return Forms(_("%(colour)s ends %(mine)d-%(theirs)d: with %(sign)s that set is theirs. Try again.") % q,
                     _("%(colour)s %(mine)d-%(theirs)d: their set. Try again.") % q)
    if r.kind == "flips":
        return Forms(_("%(colour)s turns %(sign)s, and you still trail where it counts. Try again.") % q,
                     _("Not that block. Try again."))
    return Forms(_("That ends your turn without the point. Try again."), _("Not yet the point. Try again."))


REFUSALS.update({
    "lesson_wrong": _lesson_wrong,
    "lesson_solved": lambda p: _("solved: n for the next lesson"),
    "lesson_only": lambda p: _("a lesson cannot be resigned: q leaves it"),
})
