"""The words every game shares: the host's notes and notices, refusals, ordinals, the
history's lines and the rating changes, made by the session that shows them.

Below ``tui/`` nothing words a sentence a player reads: the engine's errors and the
server's refusals carry a ``code`` and ``params`` (:class:`tui.ports.Refused`), what a
host says beside the moves is a :class:`tui.ports.Note` (an id and parameters), and
the history and the rating changes come as data (:class:`tui.ports.HistoryItem`,
:class:`tui.ports.RatingChange`).  This module makes their sentences, in the session's
language (:mod:`tui.i18n`); each game's own events and refusals are its
``tui/games/<game>/words.py``, which falls back on this one.  A code this version does
not know is shown in its terse form rather than hidden.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from tui import reach
from tui.i18n import N_, _, current, ngettext
from tui.ports import BotRecord, ChatLine, HistoryItem, Note, RatingChange

Words = Callable[[Mapping[str, Any]], str]


# -- numbers and dates per language ------------------------------------------------------
# Small tables of our own, one entry per language of tui.i18n.LANGUAGES (no CLDR data, at run
# time or at build time): an ordinal's ending depends on the number in ways a catalog's plural
# forms do not say, and a date's order is the language's, not a sentence to translate.


def _ordinal_en(n: int) -> str:
    if n % 100 in (11, 12, 13):
        return f"{n}th"
    return f"{n}" + {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _ordinal_ca(n: int) -> str:
    return f"{n}" + {1: "r", 2: "n", 3: "r", 4: "t"}.get(n, "è")


def _ordinal_es(n: int) -> str:
    return f"{n}.º"


ORDINALS: dict[str, Callable[[int], str]] = {"en": _ordinal_en, "ca": _ordinal_ca, "es": _ordinal_es}


def ordinal(n: int) -> str:
    """A place in the session's language: ``1st`` ``2nd`` ``3rd`` ``4th`` / ``1r`` ``2n`` ``3r`` ``4t``
    ``5è`` / ``1.º`` ``2.º`` (a place is "lloc" and "puesto": the masculine forms)."""
    return ORDINALS.get(current(), _ordinal_en)(n)


#: A date's short forms per language, as ``time.strftime`` patterns of numbers only (so no C locale
#: is involved): a day and its time, a day, a date, a date and its time.
DATES: dict[str, dict[str, str]] = {
    "en": {"day_time": "%m-%d %H:%M", "day": "%m-%d", "date": "%Y-%m-%d", "date_time": "%Y-%m-%d %H:%M"},
    "ca": {"day_time": "%d/%m %H:%M", "day": "%d/%m", "date": "%d/%m/%Y", "date_time": "%d/%m/%Y %H:%M"},
    "es": {"day_time": "%d/%m %H:%M", "day": "%d/%m", "date": "%d/%m/%Y", "date_time": "%d/%m/%Y %H:%M"},
}


def date(when: float, form: str = "date") -> str:
    """``when`` (seconds since the epoch, shown in local time) in the session's language's short
    ``form``: ``day_time`` (``03-14 18:02`` / ``14/03 18:02``), ``day``, ``date`` (``2025-03-14`` /
    ``14/03/2025``) or ``date_time``."""
    return time.strftime(DATES.get(current(), DATES["en"])[form], time.localtime(when))


def listing(parts: Sequence[str]) -> str:
    """Items one after the other: ``a, b, c``."""
    return _(", ").join(parts)


STRETCHES = {"set": N_("set"), "round": N_("round")}


def stretch(unit: str) -> str:
    """What a game calls a stretch of play between the events that end one (its id: "set",
    "round"), in words."""
    return _(STRETCHES[unit]) if unit in STRETCHES else unit


# -- the lobby's lists ---------------------------------------------------------------

STATUSES = {
    "lobby": N_("in the lobby"),
    "waiting": N_("in quick match"),
    "room": N_("in a private room"),
    "playing": N_("playing %(where)s"),
    "watching": N_("watching %(where)s"),
    "played": N_("just played %(where)s"),
    "watched": N_("just watched %(where)s"),
}


def who_heading(online: int, running: int) -> str:
    """The first line of ``ssh HOST who``: how many are online and how many matches run."""
    return _("%(online)d online, %(matches)s") % {
        "online": online,
        "matches": ngettext("%(n)d match running", "%(n)d matches running", running) % {"n": running},
    }


def rename_wait(seconds: float, *, short: bool = False) -> str:
    """When a key may take another name ("" when it may now): said where a name is chosen
    (``short``: in a box's title)."""
    if seconds <= 0:
        return ""
    minutes = max(1, int(seconds / 60 + 0.999))
    if short:
        return _("a new name in %(minutes)d min") % {"minutes": minutes}
    return ngettext("a new name is possible in %(minutes)d minute", "a new name is possible in %(minutes)d minutes",
                    minutes) % {"minutes": minutes}


def status(status: str, where: str = "") -> str:
    """What a player online is at (the lobby's status id and the match's code)."""
    message = STATUSES.get(status)
    return _(message) % {"where": where} if message is not None else status


def describe(title: str, names: Sequence[str], scores: Sequence[int], short: bool = False) -> str:
    """A running match of a game with no words module of its own: its title and players."""
    return _("%(title)s: %(names)s") % {"title": title, "names": listing(names)}


FORCED = {"no_color": N_("your terminal sent NO_COLOR")}


def forced(reason: str) -> str:
    """Why a setting is not the player's to choose (the backend's id: ``"no_color"``)."""
    return _(FORCED[reason]) if reason in FORCED else reason


# -- voltage play's start screen ------------------------------------------------------


def game_choice(gid: str) -> tuple[str, str]:
    """A game as the start screen offers it: its title and a few words of its seats and pace
    (``2 players, turn by turn``)."""
    from engine.registry import GAMES

    info = GAMES.get(gid)
    if info is None:
        return gid, ""
    if info.min_seats == info.max_seats:
        seats = ngettext("%(n)d player", "%(n)d players", info.max_seats) % {"n": info.max_seats}
    else:
        seats = _("%(min)d-%(max)d players") % {"min": info.min_seats, "max": info.max_seats}
    pace = _("real time") if info.real_time else _("turn by turn")
    return info.title, _("%(seats)s, %(pace)s") % {"seats": seats, "pace": pace}


#: The bots' strengths and levels by their names (the engines' bot names), as a menu offers them;
#: a bot this table does not know keeps the label its backend gives.
BOT_LABELS = {"easy": N_("Easy"), "medium": N_("Medium"), "hard": N_("Hard"), "expert": N_("Expert"),
              "slow": N_("Slow"), "fast": N_("Fast")}
#: Voltage's strengths in a few words (the start screen's line; the part before " (" on narrow ones).
BOT_DESCRIPTIONS = {
    "easy": N_("Greedy, but a third of its moves are random."),
    "medium": N_("Greedy: always the best-looking move of its own turn."),
    "hard": N_("Searches 1,000 imagined deals per move (about ¼ s)."),
    "expert": N_("Searches 3,000 imagined deals, 3 turns deep (~1 s)."),
}


def bot_label(bot: str, label: str = "") -> str:
    """A bot strength's or level's name (``Medium``), by its bot name."""
    words = BOT_LABELS.get(bot)
    return _(words) if words is not None else (label or bot)


def bot_lineup(lineup: Sequence[str]) -> str:
    """Bots at a table, by level: ``medium, fast``, or ``3 medium`` for three of one level."""
    if len(lineup) > 1 and len(set(lineup)) == 1:
        return _("%(n)d %(level)s") % {"n": len(lineup), "level": bot_label(lineup[0]).lower()}
    return listing([bot_label(bot).lower() for bot in lineup])


def opponent_choice(oid: str, label: str, description: str) -> tuple[str, str]:
    """An opponent as the start screen offers it: a bot strength (its label and description
    as its bots module gives them, worded by its name where this module knows it), or two
    people at one keyboard (``"hotseat"``)."""
    if oid == "hotseat":
        return _("Hot-seat"), _("two people, one keyboard")
    words = BOT_DESCRIPTIONS.get(oid)
    return _("%(label)s bot") % {"label": bot_label(oid, label)}, _(words) if words is not None else description


# -- notes and notices -----------------------------------------------------------

NOTES: dict[str, Words] = {
    # the store
    "paused": lambda p: _("paused: the server cannot save moves right now; play resumes when it can"),
    "slow_save": lambda p: _("waiting for the server's disk to save the last move…"),
    "held": lambda p: _("paused: a player cannot reach the game server; the clocks are stopped until they can"),
    # the lobby
    "waiting_reconnect": lambda p: _("waiting for %(name)s to reconnect (%(clock)s)") % {
        "name": p["name"], "clock": f"{int(p['seconds']) // 60}:{int(p['seconds']) % 60:02d}"},
    "rematch_wanted": lambda p: _("%(name)s wants a rematch") % {"name": p["name"]},
    "back": lambda p: _("%(name)s is back.") % {"name": p["name"]},
    # draw offers (Voltage's host)
    # the coach (Voltage's host)
    "hint_used": lambda p: _("%(name)s asked for a hint: this match is not rated.") % {"name": p["name"]},
    "draw_offered": lambda p: _("%(name)s offers a draw.") % {"name": p["name"]},
    "draw_offered_declined": lambda p: _("%(name)s offers a draw; %(other)s declines.") % {
        "name": p["name"], "other": p["other"]},
    "draw_declined": lambda p: _("%(name)s declines the draw.") % {"name": p["name"]},
    # idling (High Voltage's host)
    "idle": lambda p: _("%(name)s is idle: nothing done for %(seconds)s s.") % {
        "name": p["name"], "seconds": f"{p['seconds']:g}"},
    "playing_again": lambda p: _("%(name)s is playing again.") % {"name": p["name"]},
    "vote": lambda p: _("%(voter)s votes to continue without %(target)s (%(have)d of %(need)d).") % dict(p),
    "continuing_without": lambda p: _("Continuing without %(name)s: a bot (%(level)s) plays their seat.") % {
        "name": p["name"], "level": p["level"]},
    "you_were_idle": lambda p: _("You were idle; a bot plays your seat. Press t to take it back."),
    "seat_taken_back": lambda p: _("%(name)s takes their seat back from the bot.") % {"name": p["name"]},
    # an edge of a split server
    "host_away": lambda p: _("the game server is restarting: the game will resume in a moment"),
    "connection_lost": lambda p: _("the connection to the game server was lost: reconnecting"),
    "unreached": lambda p: _(
        "paused: the game server cannot be reached right now; the clocks are stopped until it can"),
}


def note(n: Note) -> str:
    """A note in words (an unknown one: its id)."""
    words = NOTES.get(n.id)
    return words(n.params) if words is not None else n.id


def notice(notes: Sequence[Note]) -> str:
    """A status line: its notes one after the other ("" for none)."""
    return _("; ").join(note(n) for n in notes)


def entry(e: Any, names: Sequence[str]) -> str:
    """A log entry that is not the game's own event: a note, a chat line (a replay shows
    them at their moment; else its kind, as a last resort)."""
    if isinstance(e, Note):
        return note(e)
    if isinstance(e, ChatLine):
        from tui.chat.words import said

        return said(e)
    return str(getattr(e, "kind", e))


# -- refusals ----------------------------------------------------------------------

_SPECTATOR = {
    "act": N_("spectators cannot act"),
    "play": N_("spectators cannot play"),
    "resign": N_("spectators cannot resign"),
    "vote": N_("spectators cannot vote"),
    "take_back": N_("spectators cannot take a seat back"),
}

_NUMBERS = (N_("zero"), N_("one"), N_("two"), N_("three"), N_("four"))


REFUSALS: dict[str, Words] = {
    # any game's engine or host
    "match_over": lambda p: _("the match is over"),
    "left_match": lambda p: _("you have left this match"),
    "not_allowed": lambda p: _("that is not allowed now"),
    "bad_action": lambda p: _("that is not an action"),
    "not_an_action": lambda p: _("that is not an action"),
    "seat_count": lambda p: _("this game is played by %(min)d to %(max)d players, not %(seats)d") % dict(p),
    "spectator": lambda p: _(_SPECTATOR.get(str(p.get("act")), _SPECTATOR["act"])),
    "save_failed": lambda p: _("the server cannot save moves right now"),
    "bot_plays_seat": lambda p: _("a bot is playing this seat"),
    "replay_only": lambda p: _("this is a replay: nothing can be played"),
    # a split server
    "host_away": lambda p: _("the game server is restarting: the game will resume in a moment"),
    "not_answering": lambda p: _("the game server is not answering; try again in a moment"),
    "unreachable": lambda p: _("the game server is not reachable right now"),
    "seat_not_yours": lambda p: _("that seat is not yours any more"),
    "not_in_this_match": lambda p: _("that cannot be done in this match"),
    "match_not_yours": lambda p: _("that match is not yours"),
    "challenge_over": lambda p: _("that challenge is over"),
    "session_ended": lambda p: _("this session has ended: connect again"),
    "cancelled": lambda p: _("cancelled"),
    "room_closed": lambda p: _("the room was closed"),
    "failed": lambda p: _("the server could not do that"),
    "not_understood": lambda p: _("the game server did not understand that (an older or newer version)"),
    "refused": lambda p: str(p.get("detail", "")),  # an older plain ValueError's own text
    # the lobby
    "superseded": lambda p: _("this key was opened in another session: take it back here first"),
    "one_key_two_seats": lambda p: _("one key cannot hold two seats of a match"),
    "no_such_game": lambda p: _("no game called %(game)r") % {"game": p["game"]},
    "room_is_closed": lambda p: _("room %(code)s is closed") % {"code": p["code"]},
    "no_room": lambda p: _("no room %(code)s") % {"code": p["code"]},
    "room_of_other_game": lambda p: _("%(code)s is a %(title)s room: join it with Lobby.join") % dict(p),
    "own_room": lambda p: _("that is your own room: give the code to a friend"),
    "not_started": lambda p: _("%(code)s has not started yet") % {"code": p["code"]},
    "no_match": lambda p: _("no match %(code)s") % {"code": p["code"]},
    "nobody_called": lambda p: _("nobody called %(name)s is online") % {"name": p["name"]},
    "challenge_self": lambda p: _("you cannot challenge yourself"),
    "target_playing": lambda p: _("%(name)s is playing a match: try again after it") % {"name": p["name"]},
    "no_challenges": lambda p: _("%(name)s does not take challenges") % {"name": p["name"]},
    "challenge_waiting": lambda p: _("you have a challenge waiting for an answer already"),
    "target_has_challenge": lambda p: _("%(name)s has a challenge to answer already") % {"name": p["name"]},
    "challenge_declined": lambda p: _("%(name)s declined the challenge") % {"name": p["name"]},
    "challenge_expired": lambda p: _("%(name)s did not answer within %(seconds).0f s") % {
        "name": p["name"], "seconds": p["seconds"]},
    "challenge_withdrawn": lambda p: _("you took the challenge back"),
    "store": lambda p: str(p.get("detail", "")),  # the store's own (operator's) message
    "challenge_not_open": lambda p: _("that challenge is no longer open"),
    "gone": lambda p: _("%(name)s has gone") % {"name": p["name"]},
    "table_size": lambda p: _("a %(title)s table has %(min)d to %(max)d seats") % dict(p),
    "not_at_table": lambda p: _("you are not at that table"),
    "room_not_ready": lambda p: _("room %(code)s has more than one seat left: wait for its start") % {
        "code": p["code"]},
    "no_game_room": lambda p: _("no %(title)s room %(code)s") % dict(p),
    "already_at_table": lambda p: _("you are already at that table"),
    "room_full": lambda p: _("room %(code)s is full") % {"code": p["code"]},
    "bot_count": lambda p: _("choose one to %(most)s bots") % {"most": _number(p["most"])},
    "no_such_bot": lambda p: _("no %(title)s bot %(bot)r: choose from %(known)s") % {
        "title": p["title"], "bot": p["bot"], "known": listing(p["known"])},
    "bad_time_control": lambda p: _("%(text)r: a time control is MINUTES+SECONDS, e.g. 5+5 (or none)") % {
        "text": p["text"]},
    # names
    "name_needed": lambda p: _("a name is needed"),
    "name_too_long": lambda p: _("at most %(most)d characters") % {"most": p["most"]},
    "name_characters": lambda p: _("letters, digits, '-', '_', '.' and single spaces only"),
    "name_misleading": lambda p: _("%(name)r would read as a word on other players' screens: choose another") % {
        "name": p["name"]},
    "name_playing": lambda p: _("%(name)s is already playing here: choose another name") % {"name": p["name"]},
    "name_of_other_key": lambda p: _("the name %(name)s belongs to another player's key: choose another") % {
        "name": p["name"]},
    "name_of_a_key": lambda p: (_("the name %(name)s belongs to a player with an SSH key: choose another "
                                  "(link a key to this browser to keep a name of your own)") if reach.web()
                                else _("the name %(name)s belongs to a player with an SSH key: choose another "
                                       "(log in with a key to keep a name of your own)")) % {"name": p["name"]},
    "name_looks_like": lambda p: _("%(name)s looks too much like %(like)s, a name already taken: choose another") % {
        "name": p["name"], "like": p["like"]},
    "name_taken": lambda p: _("the name %(name)r belongs to another player") % {"name": p["name"]},
    "rename_too_soon": lambda p: ngettext(
        "you took the name %(name)s less than an hour ago: a new name is possible in %(minutes)d minute",
        "you took the name %(name)s less than an hour ago: a new name is possible in %(minutes)d minutes",
        int(p["minutes"])) % {"name": p["name"], "minutes": p["minutes"]},
    # the store, replays
    "no_store": lambda p: _("this server keeps no matches"),
    "no_such_match": lambda p: _("no match %(match)s") % {"match": p["match"]},
    "not_finished": lambda p: _("match %(match)s is not finished; only finished matches can be replayed") % {
        "match": p["match"]},
    "not_exported": lambda p: _("match %(match)s is not finished (%(status)s); only finished matches are "
                                "exported") % dict(p),
    "other_game": lambda p: _("match %(match)s is %(game)s, not %(expected)s") % dict(p),
    "no_such_seat_in": lambda p: _("match %(match)s has no seat %(seat)s") % dict(p),
    "does_not_replay": lambda p: _("match %(match)s: action %(index)d (%(text)r) does not replay: %(why)s") % dict(p),
    "unknown_game": lambda p: _("match %(match)s is a game this server cannot replay (%(game)s)") % dict(p),
    "hands_hidden": lambda p: _("match %(match)s is not finished; its hands are hidden") % {"match": p["match"]},
    "settings_for_keys": lambda p: _("settings are kept for known keys only"),
    # linking a browser to a key
    "link_needs_key": lambda p: _("linking a browser needs an SSH key: connect with your key (a guest has "
                                  "nothing to link)"),
    "link_unknown_key": lambda p: _("this key has no name here yet: enter the lobby once and choose one, "
                                    "then ask for a link code"),
    "links_need_store": lambda p: _("this server keeps no players, so it links no browsers"),
    # chat
    "chat_too_fast": lambda p: ngettext(
        "you are writing too fast: wait %(wait)d second", "you are writing too fast: wait %(wait)d seconds",
        int(p["wait"])) % {"wait": p["wait"]},
    "chat_repeated": lambda p: _("you just said that"),
    "chat_guest": lambda p: (_("guests may use the quick phrases only: link a key to this browser to write "
                               "(\"Link a key\" on this page)") if reach.web()
                             else _("guests may use the quick phrases only: log in with an SSH key to write")),
    "chat_empty": lambda p: _("nothing to send"),
    "chat_not_here": lambda p: _("you cannot write here"),
    "chat_no_phrase": lambda p: _("no such quick phrase"),
    "chat_not_kept": lambda p: _("the server could not keep that line: it was not sent"),
    "chat_mute_self": lambda p: _("you cannot mute yourself"),
    "no_such_player": lambda p: _("nobody is called %(name)s") % {"name": p["name"]},
}

def _number(n: int) -> str:
    return _(_NUMBERS[n]) if 0 <= n < len(_NUMBERS) else str(n)


def refusal(error: BaseException, game: Mapping[str, Words] | None = None) -> str:
    """Why a request was turned down, for the player: ``error``'s code (an engine error or a
    :class:`tui.ports.Refused`) worded by ``game``'s table first, then the shared one.  An
    error with no code (a bug somewhere) shows as its text."""
    code = getattr(error, "code", None)
    params: Mapping[str, Any] = getattr(error, "params", None) or {}
    if not isinstance(code, str):
        return str(error)
    for table in (game or {}, REFUSALS):
        words = table.get(code)
        if words is not None:
            try:
                return words(params)
            except (KeyError, TypeError, ValueError):  # a peer's params this version does not expect
                break
    detail = params.get("detail")
    return str(detail) if detail else code.replace("_", " ")


# -- what was kept: rating changes, history -------------------------------------------


_HOW = {"time": N_("on time"), "aborted": N_("aborted"), "agreement": N_("by agreement"),
        "resignation": N_("by resignation")}


def result_words(reason: str, names: Sequence[str], winners: Sequence[int]) -> str:
    """A finished match's result in words (an export's ``result_words``): "bob lost on time;
    alice won", "aborted (no result, not rated)", "drawn by agreement", "bob won"."""
    if reason == "aborted":
        return _("aborted (no result, not rated)")
    how = _(_HOW[reason]) if reason in _HOW else ""
    if len(winners) != 1:
        if reason == "agreement":
            return _("drawn by agreement")
        return (_("drawn %(how)s") % {"how": how}).strip()
    winner = names[winners[0]]
    if reason == "time" and len(names) == 2:
        return _("%(loser)s lost on time; %(winner)s won") % {"loser": names[1 - winners[0]], "winner": winner}
    return (_("%(winner)s won %(how)s") % {"winner": winner, "how": how}).strip()


def rating_changes(changes: Sequence[RatingChange]) -> str:
    """The results screen's line: ``alice: rating 1012 (+12)`` for each rated seat, one a line."""
    from tui.text import plain

    return "\n".join(_("%(name)s: rating %(rating)d (%(delta)s)") % {
        "name": plain(c.name, 24), "rating": c.rating, "delta": f"{c.delta:+d}"} for c in changes)


def learn_line(title: str) -> str:
    """A menu's line for a game's first lesson: ``Learn Voltage``."""
    return _("Learn %(title)s") % {"title": title}


def history_forms(item: HistoryItem) -> list[str]:
    """The forms of one line of a player's finished match, longest first, for narrower lists
    (``#12  03-14 18:02  v bob  won 4-2  +12``; a list uses one form for all its lines, so
    they stay aligned): shortened by meaning (the game's short name, the result before the
    opponents, the date without the time, "v 3 others"), so the result always shows and no
    word is cut."""
    from tui.text import plain

    others = [plain(n, 16) for n in item.others]
    when, day = date(item.ended, "day_time"), date(item.ended, "day")
    rank = item.rank
    if rank is None:
        outcome = ""
    elif item.seats == 2:
        outcome = _("drew") if item.winners != 1 else (_("won") if rank == 1 else _("lost"))
    else:
        outcome = ordinal(rank)
    score = "-".join(str(x) for x in item.score) if item.score else ""
    lost = rank is not None and item.seats == 2 and item.winners == 1 and rank != 1
    if outcome and item.reason == "resignation":
        result = (_("%(outcome)s by resignation (%(score)s)") if score else _("%(outcome)s by resignation")) % {
            "outcome": outcome, "score": score}
        short = (_("%(outcome)s (resigned)") if lost else _("%(outcome)s (they resigned)")) % {"outcome": outcome}
    elif item.reason == "aborted":
        result = short = _("aborted")
    elif outcome and item.reason == "agreement":
        result = (_("drew by agreement (%(score)s)") if score else _("drew by agreement")) % {"score": score}
        short = _("drew (agreed)")
    elif outcome and item.reason == "time":
        result = (_("%(outcome)s on time (%(score)s)") if score else _("%(outcome)s on time")) % {
            "outcome": outcome, "score": score}
        short = _("%(outcome)s on time") % {"outcome": outcome}
    else:
        result = short = (_("%(outcome)s %(score)s") % {"outcome": outcome, "score": score}).strip()
    tail = [result] if result else []
    short_tail = [short] if short else []
    if item.delta is not None:
        tail.append(f"{item.delta:+d}")
        short_tail.append(f"{item.delta:+d}")
    if item.hinted:  # (never rated: no change beside it)
        tail.append(_("with hints"))
        short_tail.append(_("hints"))
    title, abbrev = item.title, item.short or item.title
    vs = _("v %(names)s") % {"names": listing(others)}
    game_vs = _("%(title)s %(vs)s") % {"title": title, "vs": vs} if title else vs
    few = vs if len(others) == 1 else ngettext("v %(n)d other", "v %(n)d others", len(others)) % {"n": len(others)}
    number = f"#{item.id}"
    head = [number, when]
    forms = [
        head + [game_vs] + tail,
        head + ([abbrev] if abbrev else []) + tail + [vs],
        [number, day] + ([abbrev] if abbrev else []) + tail + [vs],
        [number, day] + ([abbrev] if abbrev else []) + short_tail + [few],
        [number] + ([abbrev] if abbrev else []) + short_tail + [few],
        [number] + ([abbrev] if abbrev else []) + short_tail,
    ]
    return ["  ".join(p for p in parts if p) for parts in forms]


def history_lines(items: Sequence[HistoryItem], width: int | None = None) -> list[tuple[int, str]]:
    """``(match id, line)`` of each item, every line in the longest form that fits ``width``
    for them all (so they stay aligned)."""
    rows = [(item.id, history_forms(item)) for item in items]
    if not rows:
        return []
    level = next((k for k in range(len(rows[0][1]))
                  if width is None or all(len(forms[k]) <= width for _id, forms in rows)),
                 len(rows[0][1]) - 1)
    return [(mid, forms[level]) for mid, forms in rows]


def bot_record_forms(records: Sequence[BotRecord]) -> list[str]:
    """One game's record against its bot levels, longest form first: ``v bots (won-lost):
    easy 3-1, medium 0-2``, then shorter, down to the totals (``v bots: 3-3``); a third
    number, drawn, when any was; the game named, unless it is the home game."""
    draws = any(r.drawn for r in records)

    def score(won: int, lost: int, drawn: int) -> str:
        return f"{won}-{lost}-{drawn}" if draws else f"{won}-{lost}"

    key = _("won-lost-drawn") if draws else _("won-lost")
    each = [f"{bot_label(r.bot).lower()} {score(r.won, r.lost, r.drawn)}" for r in records]
    total = score(sum(r.won for r in records), sum(r.lost for r in records), sum(r.drawn for r in records))
    title, short = records[0].title, records[0].short
    if title:
        return [_("%(game)s v bots (%(key)s): %(each)s") % {"game": title, "key": key, "each": listing(each)},
                _("%(game)s v bots: %(each)s") % {"game": title, "each": listing(each)},
                _("%(game)s v bots: %(each)s") % {"game": short, "each": " ".join(each)},
                _("%(game)s v bots: %(total)s") % {"game": short, "total": total}]
    return [_("v bots (%(key)s): %(each)s") % {"key": key, "each": listing(each)},
            _("v bots: %(each)s") % {"each": listing(each)},
            _("v bots: %(each)s") % {"each": " ".join(each)},
            _("v bots: %(total)s") % {"total": total}]


def bot_record_lines(records: Sequence[BotRecord], width: int | None = None) -> list[str]:
    """A player's record against bots (matches with a bot are not rated: this is what they
    count for), a line a game, each in the longest form that fits ``width``."""
    games: dict[str, list[BotRecord]] = {}
    for r in records:
        games.setdefault(r.game, []).append(r)
    out = []
    for recs in games.values():
        forms = bot_record_forms(recs)
        out.append(next((f for f in forms if width is None or len(f) <= width), forms[-1]))
    return out


class GameWords(Protocol):
    """A game's words module (``tui/games/<game>/words.py``): its log entries and refusals
    in the session's language (see :mod:`tui.words`, which it falls back on)."""

    def line(self, event: Any, names: Sequence[str]) -> str: ...

    def lines(self, entries: Sequence[Any], names: Sequence[str]) -> list[str]: ...

    def refusal(self, error: BaseException) -> str: ...

    def describe(self, title: str, names: Sequence[str], scores: Sequence[int], short: bool = False) -> str: ...


# -- browsers linked to a key (``ssh HOST link``, the web page, the settings) -----------------


def link_code(code: str, minutes: int, page: str, unlink: str) -> str:
    """``ssh HOST link``'s answer: the code, where to enter it, and how to undo it (``page``:
    the web page's address, "" when this process does not know it; ``unlink``: the command)."""
    where = _("on the web page %(page)s") % {"page": page} if page else _("on this server's web page")
    return "\n".join((
        _("Your link code: %(code)s") % {"code": code},
        ngettext("Enter it %(where)s (\"Link a key\") within %(minutes)d minute; it works once.",
                 "Enter it %(where)s (\"Link a key\") within %(minutes)d minutes; it works once.",
                 minutes) % {"where": where, "minutes": minutes},
        _("That browser then plays as you: your name, ratings, history and settings."),
        _("To forget every browser linked to your key: %(unlink)s") % {"unlink": unlink},
    )) + "\n"


def unlinked(count: int) -> str:
    """``ssh HOST unlink``'s answer."""
    if count == 0:
        return _("No browser was linked to your key.") + "\n"
    return ngettext("%(n)d browser is no longer linked to your key.",
                    "%(n)d browsers are no longer linked to your key.", count) % {"n": count} + "\n"


def browser_line(label: str, linked: float, last_seen: float) -> str:
    """One linked browser in the settings: what it is, when it was linked and last used."""
    return _("%(label)s: linked %(linked)s, last used %(seen)s") % {
        "label": label or _("a browser"),
        "linked": date(linked, "date"),
        "seen": date(last_seen, "date_time"),
    }


def more_browsers(count: int) -> str:
    """The linked browsers the settings do not list."""
    return ngettext("and %(n)d more", "and %(n)d more", count) % {"n": count}


def browsers_title(count: int, link: str, unlink: str) -> str:
    """The heading of the settings' list of linked browsers (``link``, ``unlink``: the commands)."""
    if count == 0:
        return _("No browser is linked to your key (%(link)s gives a code for the web page)") % {"link": link}
    return ngettext("%(n)d browser linked to your key (%(unlink)s forgets them):",
                    "%(n)d browsers linked to your key (%(unlink)s forgets them):", count) % {
        "n": count, "unlink": unlink}


# -- what a guest does to keep things (an SSH key; in a browser, a key linked to it) -------------


def keep_with_key(link: str) -> str:
    """What a guest does to keep their matches and a rating (the lobby's list of them, empty):
    log in with an SSH key, or, in a browser, link one (``link``: the command that gives a
    code for the page)."""
    if reach.web():
        return _("link a key to keep your matches\nand a rating:\n%(link)s,\nthen the code on this page") % {
            "link": link}
    return _("log in with an SSH key to keep\nyour matches and a rating")


def settings_kept(kept: bool) -> str:
    """The settings' title: where the choices are kept."""
    if kept:
        return _("Settings: they follow your key to its next session")
    if reach.web():
        return _("Settings: for this session (link a key to keep them)")
    return _("Settings: for this session (log in with an SSH key to keep them)")


def link_a_key(link: str) -> str:
    """How a browser's guest links a key (the settings say it under the lines; ``link``: the
    command that gives a code)."""
    return _("To keep your settings, name, matches and ratings, link your SSH key to this browser: run "
             "%(link)s in a terminal, then type the code under \"Link a key\" on this page.") % {"link": link}


def no_rated_players(link: str) -> str:
    """The leaderboard with nobody on it: how to be the first."""
    if reach.web():
        return _("No rated players yet: play a rated match (link a key first: %(link)s, then the code on this "
                 "page) to be the first.") % {"link": link}
    return _("No rated players yet: play a rated match (log in with an SSH key) to be the first.")


#: What the web page says (the page asks for them worded, in the session's language).
WEB_PAGE = {
    "title": N_("Voltage"),
    "connecting": N_("Connecting…"),
    "lost": N_("The connection was lost. Trying again…"),
    "ended": N_("The session has ended."),
    "moved": N_("This game moved to another tab or window."),
    "refused": N_("The server is busy or refused the connection. Trying again…"),
    "again": N_("Play again"),
    "link": N_("Link a key"),
    "link_help": N_("Type the code that ssh HOST link gave you: this browser then plays as your key."),
    "link_placeholder": N_("ABCD-EFGH"),
    "link_submit": N_("Link"),
    "link_cancel": N_("Cancel"),
    "linked": N_("This browser is linked to your key."),
    "link_wrong": N_("That is not a live code: ask for a new one with ssh HOST link."),
    "link_slow": N_("Too many tries: wait a few minutes before the next."),
    "link_failed": N_("The server could not link this browser; try again."),
    "keys": N_("Keys for a touch screen"),
    # TRANSLATORS: the touch key row's space bar, as a keyboard of your language labels it.
    "key_space": N_("Space"),
    # TRANSLATORS: the touch key row's Enter key, as a keyboard of your language labels it.
    "key_enter": N_("Enter"),
    "no_script": N_("This page needs JavaScript to show the game's terminal."),
}


def web_page(ssh: str) -> dict[str, str]:
    """The web page's words, ``ssh HOST`` filled with how players reach this server."""
    return {key: _(message).replace("ssh HOST", ssh) for key, message in WEB_PAGE.items()}


#: What a hosted match's seat label adds to a person's name while a bot plays for them
#: (``server.host.common.Seat.label``); each reader words it in their own language.
BOT_PLAYING = " (bot playing)"


def seat_names(names: Sequence[str]) -> tuple[str, ...]:
    """The seats' labels as a screen shows them: "Bob (bot playing)" worded in the session's language."""
    return tuple(_("%(name)s (bot playing)") % {"name": n[: -len(BOT_PLAYING)]} if n.endswith(BOT_PLAYING) else n
                 for n in names)
