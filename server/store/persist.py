"""Glue between live matches and the :class:`~server.store.db.Store` (no SSH here).

- ``attach(store, match, match_id=None) -> Recording``: record a match.  The recording is the
  match's ``recorder``: the host awaits ``recorder.commit`` for each action *before* accepting it
  (an action the store cannot take is refused and the match pauses; :mod:`server.host.base`), and
  ``recorder.finish`` at the end, before its ``on_end`` hooks (the result stored and the match rated
  in one transaction, so a results screen finds ``recording.changes``).  All of it runs on the
  store's writer thread, never waiting on the disk on the event loop; ``recording.match_id`` waits
  for the match's row when read early.
- ``restore(store, executor=None, bot_delay=0.7) -> list[Recording]``: at start, every unfinished
  match rebuilt from its seed and action log (each game's own restore, through
  :mod:`server.games`), human seats disconnected, bots waiting for ``match.start()``; one whose log
  already reached the end is finished and rated instead; one that cannot be restored is logged and
  left in the store exactly as it was.
- ``text_leaderboard(store, n=20) -> str``: ``ssh HOST leaderboard``.
- ``export_command(store, arg) -> (exit_status, text)``: ``ssh HOST export ID``.
- ``history_item(record, identity)``, ``bot_records(store, identity)`` and
  ``rating_changes(changes, names)``: a player's finished match, their record against
  each bot level, and a results screen's rating changes, as data the tui words.

Only stored players (key-authenticated people) are rated; the end is recorded only on a complete
log.  Why, and what happens to a result that cannot be written: ``docs/design/store.md``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future
from typing import Any, cast

from engine.game import Outcome, Termination
from server import games
from server import ratings as R
from server.errors import RestoreError
from server.store.db import MatchRecord, NotFound, Store, StoreError, seat_dict
from tui.i18n import _
from tui.ports import BotRecord, HistoryItem, RatingChange
from tui.text import plain

log = logging.getLogger(__name__)


FINISH_RETRY_SECONDS = 2.0


class Recording:
    """A match being written to the store: the match's ``recorder``."""

    def __init__(self, store: Store, match: Any, match_id: int | Future) -> None:
        self.store = store
        self.match = match
        self._id: int | Future = match_id
        self.changes: list[R.Change] = []
        self.finished = False  # the result is stored
        self._finish_retry: asyncio.Task | None = None

    @property
    def failed(self) -> bool:
        """Is the match paused because the store cannot write?"""
        return bool(getattr(self.match, "paused", False))

    @property
    def match_id(self) -> int:
        """The match's id in the store (waits for its row if that is still queued)."""
        if isinstance(self._id, Future):
            self._id = self._id.result()
        return cast(int, self._id)

    @property
    def known_id(self) -> int | None:
        """The match's id if its row is made (None: still queued, or failed): never waits."""
        f = self._id
        if not isinstance(f, Future):
            return f
        return f.result() if f.done() and f.exception() is None else None

    def _current_id(self) -> int:
        """The id, read on the writer thread (the creation ran before, in queue order)."""
        return self._id.result() if isinstance(self._id, Future) else self._id

    def _ensure_created(self) -> None:
        """A match whose row could not be created (the store failed at its start) gets
        it made again before its first action."""
        f = self._id
        if isinstance(f, Future) and f.done() and f.exception() is not None:
            m = self.match
            self._id = self.store.create_match_future(m.game, m.seed, [seat_dict(s) for s in m.seats], m.code,
                                                      _control_text(m))

    async def commit(self, match: Any, index: int, action: Any, used_ms: int | None = None,
                     request: str | None = None) -> None:
        self._ensure_created()
        await self.store.append_action_async(self._current_id, index, match.rules.action_text(action), used_ms,
                                             request)

    def mark_hinted(self) -> None:
        """The match's players asked the coach for a hint: stored with it (queued, in order
        with its actions), so a restart keeps it unrated."""
        self._ensure_created()
        try:
            self.store.mark_hinted(self._current_id).add_done_callback(_log_failure("mark the match hinted"))
        except StoreError as e:  # (a closed store: the match is still unrated while it runs here)
            log.error("match %s: could not mark it hinted: %s", self.safe_id(), e)

    async def probe(self) -> None:
        """A write that fails exactly when this match's next action would (see Store.probe)."""
        self._ensure_created()
        if isinstance(self._id, Future):
            await asyncio.wrap_future(self._id)
        await self.store.probe_async(self._current_id, len(self.match.actions))

    async def finish(self, match: Any) -> None:
        """Store the result (and the ratings) on a complete log; never raises."""
        try:
            await self._finish(match)
        except StoreError as e:  # an incomplete log: never finish on it
            log.error("match %s: result not stored: %s", self.safe_id(), e)
        except Exception as e:
            log.error("match %s: could not store the result (%s); retrying in the background",
                      self.safe_id(), e)
            try:
                self._finish_retry = asyncio.get_running_loop().create_task(self._retry_finish(match))
            except RuntimeError:  # pragma: no cover - no loop
                pass

    async def _finish(self, match: Any) -> None:
        outcome = match.outcome
        self.changes = await self.store.finish_match_async(
            self._current_id, _ranks(outcome), outcome.reason, _scores(outcome), actions=len(match.actions),
            rated=outcome.rated and not getattr(match, "hinted", False),
        )
        self.finished = True

    async def _retry_finish(self, match: Any) -> None:
        while not self.finished:
            await asyncio.sleep(FINISH_RETRY_SECONDS)
            try:
                await self._finish(match)
            except StoreError as e:
                log.error("match %s: result not stored: %s", self.safe_id(), e)
                return
            except Exception:
                continue
            log.warning("match %s: its result is stored now", self.safe_id())

    def safe_id(self) -> str:
        """The match's store id for a log line ("?": not known yet, or unreadable)."""
        try:
            return str(self._current_id()) if not isinstance(self._id, Future) or self._id.done() else "?"
        except Exception:
            return "?"


def _ranks(outcome: Outcome) -> list[int | None]:
    """The places stored for an ending: none for an aborted match (it has no result)."""
    if outcome.termination is Termination.ABORTED:
        return [None] * len(outcome.places)
    return list(outcome.places)


def _scores(outcome: Any) -> list[int] | None:
    return [int(x) for x in outcome.scores] if outcome.scores is not None else None


def _control_text(match: Any) -> str | None:
    """The match's time control as stored ("5+5"; None: no clock, or a game without one)."""
    control = getattr(match, "control", None)
    return control.text if control is not None else None


def attach(store: Store, match: Any, match_id: int | None = None) -> Recording:
    """Record ``match`` in ``store`` from now on (see the module docstring)."""
    if match.over:
        raise ValueError("the match is already over")
    if match_id is None:
        if match.actions:
            raise ValueError("attach a match before its first action, or give its match_id")
        pending = store.create_match_future(
            match.game, match.seed, [seat_dict(s) for s in match.seats], match.code, _control_text(match)
        )
        pending.add_done_callback(_log_create_failure(match))
    rec = Recording(store, match, match_id if match_id is not None else pending)
    match.recorder = rec
    return rec


def _log_failure(what: str) -> Callable[[Future], None]:
    def done(f: Future) -> None:
        if not f.cancelled() and f.exception() is not None:
            log.error("could not %s: %s", what, f.exception())

    return done


def _log_create_failure(match: Any) -> Callable[[Future], None]:
    def done(f: Future) -> None:
        if not f.cancelled() and f.exception() is not None:
            log.error("match %s: could not create its record (%s); its first move will try again",
                      match.code or "?", f.exception())

    return done


# ---------------------------------------------------------------------------
# Restore


Restorer = Callable[[MatchRecord, "Executor | None", float], Any]


def restore(
    store: Store,
    executor: Executor | None = None,
    bot_delay: float = 0.7,
    *,
    restorers: Mapping[str, Restorer] | None = None,
) -> list[Recording]:
    """Rebuild and re-attach every unfinished match (see the module docstring).

    Never raises for one match: a match that cannot be restored is logged and
    left in the store untouched (so is one of a game with no restorer).  ``restorers``
    defaults to each registered game's (:func:`server.games.restorers`).
    """
    if restorers is None:
        restorers = games.restorers()
    out: list[Recording] = []
    try:
        ids = store.unfinished_ids()
    except Exception as e:
        log.error("cannot list the unfinished matches (%s); none restored", e)
        return out
    for match_id in ids:
        try:
            rec = _restore_one(store, match_id, executor, bot_delay, restorers)
        except Exception as e:
            log.error("match %s cannot be restored (%s); left in the store as it is", match_id,
                      f"{type(e).__name__}: {e}" if not isinstance(e, (RestoreError, StoreError)) else e)
            continue
        if rec is not None:
            out.append(rec)
    return out


def _restore_one(
    store: Store, match_id: int, executor: Executor | None, bot_delay: float, restorers: Mapping[str, Restorer]
) -> Recording | None:
    record = store.match_record(match_id)
    if record is None:  # pragma: no cover - gone meanwhile
        return None
    fn = restorers.get(record.game)
    if fn is None:
        log.warning("match %s: no restorer for game %r; left unfinished", record.id, record.game)
        return None
    match = fn(record, executor, bot_delay)
    if len(match.actions) != len(record.actions or ()):
        raise RestoreError("partly_replayed", replayed=len(match.actions), actions=len(record.actions or ()))
    if match.over:
        log.info("match %s had ended before the restart; recording its result", record.id)
        outcome = match.outcome
        store.finish_match(record.id, _ranks(outcome), outcome.reason, _scores(outcome),
                           actions=len(record.actions or ()), rated=outcome.rated and not record.hinted)
        return None
    return attach(store, match, record.id)


# ---------------------------------------------------------------------------
# Plain-text commands (no PTY): leaderboard and export


def game_title(game: str) -> str:
    """``voltage`` -> ``Voltage``, ``high-voltage`` -> ``High Voltage`` (see :func:`server.games.title`)."""
    return games.title(game)


def text_leaderboard(store: Store, n: int = 20, ids: list[str] | None = None) -> str:
    """The top ``n`` players per game as plain text (``ssh HOST leaderboard``)."""
    if ids is None:
        ids = [games.HOME] + [g for g in store.games() if g != games.HOME]  # the home game first, even unplayed
    blocks = []
    for game in ids:
        rows = store.leaderboard(game, n)
        lines = [_("%(game)s: top %(n)d") % {"game": game_title(game), "n": n}]
        if not rows:
            lines.append("  " + _("(no rated players yet)"))
        else:
            player, rating, played = _("Player"), _("Rating"), _("Games")
            rw, gw = max(6, len(rating)), max(5, len(played))  # (each language's heading sets its column)
            lines.append(f"  {'#':>3}  {player:<20}  {rating:>{rw}}  {played:>{gw}}")
            for r in rows:
                lines.append(f"  {r.place:>3}  {plain(r.name, 20):<20}  {r.shown:>{rw}}  {r.games:>{gw}}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def export(store: Store, match_id: int, *, identities: bool = False) -> dict[str, Any]:
    """A finished match as plain data (:meth:`~server.store.db.Store.export`: seed, actions,
    players, result) with its log: each step's events as data (``events``: the deal's
    first, then each action's; each event its ``kind`` and fields) and, for people reading
    the file, the same log and the result in English words (``log``, ``result_words``,
    worded by the tui's words modules).  Raises as ``Store.export`` does."""
    from server.replay import Replay
    from tui.games.registry import words
    from tui.i18n import ENGLISH, language
    from tui.words import result_words

    data = store.export(match_id, identities=identities)
    record = store.match_record(match_id)
    if record is None:  # pragma: no cover - it was there a moment ago
        raise NotFound(match_id)
    names = tuple(s.name for s in record.seats)
    with language(ENGLISH):
        data["result_words"] = result_words(record.reason or "", names, record.winners)
        from tui.chat.words import phrase

        for said in data.get("chat", ()):
            if "phrase" in said:  # a quick phrase: its words too, in English
                said["words"] = phrase(said["phrase"])
        try:
            replay = Replay(record)
        except ValueError:  # a game this version cannot replay: its actions only
            return data
        steps = [replay.step_entries(i) for i in range(len(replay))]
        data["events"] = [[_plain(e) for e in step] for step in steps]
        data["log"] = words(record.game).lines([e for step in steps for e in step], names)
    return data


def _plain(value: Any) -> Any:
    """An event as JSON data: a dataclass as its kind and the fields it sets, a card by its code."""
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for f in dataclasses.fields(value):
            v = getattr(value, f.name)
            if f.name == "kind" or v != f.default:
                out[f.name] = _plain(v)
        return out
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # a card (NamedTuple): its code
        code = getattr(value, "code", None)
        return code if isinstance(code, str) else [_plain(v) for v in value]
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return value


def export_json(store: Store, match_id: int, *, identities: bool = False) -> str:
    """:func:`export` as indented JSON text (ends with a newline)."""
    import json

    return json.dumps(export(store, match_id, identities=identities), indent=2, ensure_ascii=False) + "\n"


def export_command(store: Store, arg: str | None) -> tuple[int, str]:
    """``ssh HOST export MATCH_ID``: (exit status, text for stdout or stderr).

    Status 0 with the JSON; 1 for an unknown or unfinished match; 2 for bad usage.
    """
    if arg is None or not arg.strip().lstrip("#").isdigit():
        return 2, _("usage: %(command)s") % {"command": "export MATCH_ID " + _("(a number)")} + "\n"
    match_id = int(arg.strip().lstrip("#"))
    try:
        return 0, export_json(store, match_id)
    except NotFound:
        return 1, _("no match %(id)d") % {"id": match_id} + "\n"
    except StoreError as e:
        return 1, f"{e}\n"


# ---------------------------------------------------------------------------
# What the screens word: rating changes and history items (data; the tui words them)


def rating_changes(changes: Mapping[int, R.Change] | list[R.Change], names: tuple[str, ...] | list[str]
                   ) -> tuple[RatingChange, ...]:
    """Each rated seat's new rating (as shown) and its change, in seat order."""
    items = sorted(changes.values() if isinstance(changes, Mapping) else changes, key=lambda c: c.seat)
    return tuple(RatingChange(ch.seat, names[ch.seat] if 0 <= ch.seat < len(names) else "", ch.shown_after,
                              ch.delta) for ch in items)


def history_item(record: MatchRecord, identity: str | None) -> HistoryItem:
    """One of a player's own finished matches, from their side (see :class:`tui.ports.HistoryItem`):
    the game named unless it is the home game, the score from the player's seat."""
    me = record.seat_of(identity)
    others = tuple(s.name for s in record.seats if s.seat != me)
    rank = record.ranks[me] if me is not None else None
    score: tuple[int, ...] = ()
    if record.scores and len(record.scores) == 2:
        score = tuple(record.scores) if me != 1 else tuple(reversed(record.scores))
    known = games.GAMES.get(record.game)
    named = known is None or known.named_in_history  # the home game's lines do not name it
    title = games.title(record.game) if named else ""
    short = ((known.short if known is not None else "") or title) if named else ""
    return HistoryItem(record.id, float(record.ended or record.started), title, short, others, len(record.seats),
                       rank, len(record.winners), score, record.reason or "",
                       record.seats[me].delta if me is not None else None, record.hinted)


def bot_records(store: Store, identity: str) -> list[BotRecord]:
    """``identity``'s record against each bot level it met (:meth:`Store.bot_record`), the
    games in the lobby's order and each game's bots weakest first."""
    order = {gid: n for n, gid in enumerate(games.IDS)}

    def level(game: str, bot: str) -> int:
        known = games.GAMES.get(game)
        levels = [b for _label, b in known.bot_strengths()] + list(known.bot_levels()) if known else []
        return levels.index(bot) if bot in levels else len(levels)

    out = []
    for game, bot, won, lost, drawn in store.bot_record(identity):
        known = games.GAMES.get(game)
        named = known is None or known.named_in_history
        title = games.title(game) if named else ""
        short = ((known.short if known is not None else "") or title) if named else ""
        out.append(BotRecord(game, title, short, bot, won, lost, drawn))
    return sorted(out, key=lambda r: (order.get(r.game, len(order)), r.game, level(r.game, r.bot), r.bot))
