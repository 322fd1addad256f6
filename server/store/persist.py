"""Glue between live matches and the :class:`~server.store.db.Store` (no SSH here).

- ``attach(store, match, match_id=None) -> Recording``: record a match.  The
  recording becomes the match's ``recorder``: the host awaits
  ``recorder.commit`` for each action *before* accepting it (see
  :mod:`server.host.voltage`: an action the store cannot take is refused with "the
  server cannot save moves right now" and the match pauses until a probe
  write succeeds), and ``recorder.finish`` at the end, before its ``on_end``
  hooks (the result is stored and the match rated in one transaction), so a
  results screen built by those finds the rating change in
  ``recording.changes`` / ``store.rating_changes(match_id)``.  All of it runs
  on the store's writer thread; nothing here waits on the disk on the event
  loop.  The match's row is created on the writer too (queued first, so its
  actions follow it); ``recording.match_id`` waits for it when read early.
- ``restore(store, executor=None, bot_delay=0.7) -> list[Recording]``: at
  start, rebuild every unfinished match from its seed and action log, already
  attached.  Human seats come back with ``connected=False``: the server should
  start their grace period now and seat them again when the same identity
  connects (``recording.match.seats[i].identity``).  Bots wait until the
  caller runs ``recording.match.start()`` on the event loop.  One whose log
  already reached the end (killed between the last action and the result) is
  finished and rated instead of restored.  A match that cannot be restored,
  for any reason (a log that does not replay, a record that cannot be read, a
  result that cannot be stored), is logged with its id and the reason and
  left in the store exactly as it was: nothing is deleted or marked, so a
  fixed version (or a person) can still bring it back, and the server serves
  everyone else.
- ``text_leaderboard(store, n=20) -> str``: ``ssh HOST leaderboard``.
- ``export_command(store, arg) -> (exit_status, text)``: ``ssh HOST export ID``.

Who is rated: a seat whose identity is a stored player (the server calls
``store.upsert_player`` for key-authenticated people only).  Any other
identity (a guest's per-connection id) counts as a guest: never stored as a
player, never rated.

The end is recorded only on a complete log: ``finish_match`` is given the
match's action count and refuses if the store holds another.  A result the
ratings refuse (one identity in two seats) is still recorded, unrated, and
logged.  A result that cannot be written (the disk full at that moment) is
retried in the background until it can; a restart also finishes a match
whose whole log is stored.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping
from concurrent.futures import Executor, Future
from typing import cast

from engine import clock as C
from engine.errors import IllegalActionError, InvalidActionError
from engine.voltage import rules as V
from server import ratings as R
from server.errors import ServerError
from server.host.common import Seat
from server.host.voltage import Match
from server.store.db import MatchRecord, NotFound, Store, StoreError, seat_dict
from tui.games.registry import words
from tui.text import plain

log = logging.getLogger(__name__)


FINISH_RETRY_SECONDS = 2.0


class Recording:
    """A match being written to the store: the match's ``recorder``."""

    def __init__(self, store: Store, match: Match, match_id: int | Future) -> None:
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

    async def commit(self, match: Match, index: int, action, used_ms: int | None = None) -> None:
        self._ensure_created()
        await self.store.append_action_async(self._current_id, index, action.text(), used_ms)

    async def probe(self) -> None:
        """A write that fails exactly when this match's next action would (see Store.probe)."""
        self._ensure_created()
        if isinstance(self._id, Future):
            await asyncio.wrap_future(self._id)
        await self.store.probe_async(self._current_id, len(self.match.actions))

    async def finish(self, match: Match) -> None:
        """Store the result (and the ratings) on a complete log; never raises."""
        try:
            await self._finish(match)
        except StoreError as e:  # an incomplete log: never finish on it
            log.error("match %s: result not stored: %s", self._safe_id(), e)
        except Exception as e:
            log.error("match %s: could not store the result (%s); retrying in the background",
                      self._safe_id(), e)
            try:
                self._finish_retry = asyncio.get_running_loop().create_task(self._retry_finish(match))
            except RuntimeError:  # pragma: no cover - no loop
                pass

    async def _finish(self, match: Match) -> None:
        self.changes = await self.store.finish_match_async(
            self._current_id, match_ranks(match), _reason(match), _scores(match), actions=len(match.actions),
            rated=rated(match),
        )
        self.finished = True

    async def _retry_finish(self, match: Match) -> None:
        while not self.finished:
            await asyncio.sleep(FINISH_RETRY_SECONDS)
            try:
                await self._finish(match)
            except StoreError as e:
                log.error("match %s: result not stored: %s", self._safe_id(), e)
                return
            except Exception:
                continue
            log.warning("match %s: its result is stored now", self._safe_id())

    def _safe_id(self) -> str:
        try:
            return str(self._current_id()) if not isinstance(self._id, Future) or self._id.done() else "?"
        except Exception:
            return "?"


def match_ranks(match: Match) -> list[int]:
    """Finishing places by seat (1 = first).  Uses ``match.ranks`` or
    ``match.state.places`` when there is one (High Voltage ranks everyone),
    else the winner (``None``: a draw)."""
    ranks = getattr(match, "ranks", None)
    if not ranks:
        ranks = getattr(match.state, "places", None)
    if ranks:
        return [int(r) for r in ranks]
    return R.ranks_from_winner(match.winner, len(match.seats))


def _reason(match: Match) -> str:
    return str(getattr(match.state, "reason", "") or "")


def rated(match: Match) -> bool:
    """Does the result change ratings?  Not an aborted match (it never began)."""
    return _reason(match) != V.ABORTED


def _control_text(match: Match) -> str | None:
    """The match's time control as stored ("5+5"; None: no clock, or not a Voltage host)."""
    control = getattr(match, "control", None)
    return control.text if control is not None else None


def _scores(match: Match) -> list[int] | None:
    scores = getattr(match.state, "scores", None)
    return [int(s) for s in scores] if scores is not None else None


def attach(store: Store, match: Match, match_id: int | None = None) -> Recording:
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


def _log_create_failure(match: Match) -> Callable[[Future], None]:
    def done(f: Future) -> None:
        if not f.cancelled() and f.exception() is not None:
            log.error("match %s: could not create its record (%s); its first move will try again",
                      match.code or "?", f.exception())

    return done


# ---------------------------------------------------------------------------
# Restore


class RestoreError(ServerError):
    """A stored log that no longer replays."""


Restorer = Callable[[MatchRecord, "Executor | None", float], Match]


def restore_voltage(record: MatchRecord, executor: Executor | None = None, bot_delay: float = 0.7) -> Match:
    """A Voltage :class:`Match` at the position of ``record``'s log (not attached, not started).

    Its clock is folded from the stored time each action used (charged to the seat that
    was to move, with the increment when the move passed on), so each seat's bank is the
    control less what it used; the seat to move resumes with that bank when the match
    starts (the time the server was down is not charged)."""
    seats = [Seat(s.name, s.identity, s.bot, connected=s.bot is not None) for s in record.seats]
    try:
        control = C.parse(record.time_control)
    except ValueError as e:
        raise RestoreError(f"its time control {record.time_control!r} cannot be read: {e}") from e
    m = Match(seats, seed=record.seed, code=record.code, bot_delay=bot_delay, executor=executor, control=control)
    state = m.state
    actions: list[V.Action] = []
    lines: list[str] = []
    used_all = record.used_ms or ()
    entries: list[tuple[int, int | None, bool]] = []
    for n, text in enumerate(record.actions or ()):
        mover = state.to_move
        try:
            action, state, events = V.apply_logged(state, text)
        except (InvalidActionError, IllegalActionError) as e:
            raise RestoreError(f"action {n} ({text!r}) does not replay: {e}") from e
        actions.append(action)
        lines.extend(words(m.game).lines(events, m.names))
        used = used_all[n] if n < len(used_all) else None
        entries.append((mover, used, not state.over and state.to_move != mover))
    if control is not None:
        m.clock = C.Clock.fold(control, entries)
    m.used_ms = [u or 0 for _, u, _ in entries]
    m.state = state
    m.actions = actions
    m.log.extend(lines)
    m.started_at = record.started
    return m


def __getattr__(name: str) -> object:
    # ``RESTORERS`` is the server registry's (server.games), read when asked: the
    # registry imports this module's restore_voltage, so it cannot be imported here first.
    if name == "RESTORERS":
        from server import games

        return games.restorers()
    raise AttributeError(name)


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
        from server import games

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
        raise RestoreError(f"{len(match.actions)} of its {len(record.actions or ())} actions replayed")
    if match.over:
        log.info("match %s had ended before the restart; recording its result", record.id)
        store.finish_match(record.id, match_ranks(match), _reason(match), _scores(match),
                           actions=len(record.actions or ()), rated=rated(match))
        return None
    return attach(store, match, record.id)


# ---------------------------------------------------------------------------
# Plain-text commands (no PTY): leaderboard and export


def game_title(game: str) -> str:
    """``voltage`` -> ``Voltage``, ``high-voltage`` -> ``High Voltage`` (see :func:`server.games.title`)."""
    from server import games

    return games.title(game)


def text_leaderboard(store: Store, n: int = 20, games: list[str] | None = None) -> str:
    """The top ``n`` players per game as plain text (``ssh HOST leaderboard``)."""
    if games is None:
        from server.games import HOME

        games = [HOME] + [g for g in store.games() if g != HOME]  # the home game first, even unplayed
    blocks = []
    for game in games:
        rows = store.leaderboard(game, n)
        lines = [f"{game_title(game)}: top {n}"]
        if not rows:
            lines.append("  (no rated players yet)")
        else:
            lines.append(f"  {'#':>3}  {'Player':<20}  {'Rating':>6}  {'Games':>5}")
            for r in rows:
                lines.append(f"  {r.place:>3}  {plain(r.name, 20):<20}  {r.shown:>6}  {r.games:>5}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def export_command(store: Store, arg: str | None) -> tuple[int, str]:
    """``ssh HOST export MATCH_ID``: (exit status, text for stdout or stderr).

    Status 0 with the JSON; 1 for an unknown or unfinished match; 2 for bad usage.
    """
    if arg is None or not arg.strip().lstrip("#").isdigit():
        return 2, "usage: export MATCH_ID (a number)\n"
    match_id = int(arg.strip().lstrip("#"))
    try:
        return 0, store.export_json(match_id)
    except NotFound:
        return 1, f"no match {match_id}\n"
    except StoreError as e:
        return 1, f"{e}\n"


# ---------------------------------------------------------------------------
# Lines for screens (plain text; the screens show them as Text, never markup)


def rating_text(mu: float, sigma: float) -> str:
    return str(R.display(mu, sigma))


def change_lines(changes: Mapping[int, R.Change] | list[R.Change], names: tuple[str, ...] | list[str]) -> list[str]:
    """``["alice: rating 1012 (+12)", ...]`` for each rated seat, in seat order."""
    items = sorted(changes.values() if isinstance(changes, Mapping) else changes, key=lambda c: c.seat)
    out = []
    for ch in items:
        name = names[ch.seat] if 0 <= ch.seat < len(names) else f"seat {ch.seat + 1}"
        out.append(f"{plain(name, 24)}: rating {ch.shown_after} ({ch.delta:+d})")
    return out


def history_line(record: MatchRecord, identity: str | None) -> str:
    """One line of a player's own finished match: ``#12  03-14 18:02  v bob  won 4-2  +12``
    (the game is named when it is not Voltage); see :func:`history_lines`."""
    return history_lines(record, identity)[0]


def history_lines(record: MatchRecord, identity: str | None) -> list[str]:
    """The forms of :func:`history_line`, longest first, for narrower lists (a list
    uses one form for all its lines, so they stay aligned): shortened by meaning (the
    game's short name, the result before the opponents, the date without the time,
    "v 3 others"), so the result always shows and no word is cut."""
    import time as _time

    me = record.seat_of(identity)
    others = [plain(s.name, 16) for s in record.seats if s.seat != me]
    ended = _time.localtime(record.ended or record.started)
    when, day = _time.strftime("%m-%d %H:%M", ended), _time.strftime("%m-%d", ended)
    if me is None:
        outcome = ""
    else:
        rank = record.seats[me].rank
        if rank is None:
            outcome = ""
        elif len(record.seats) == 2:
            outcome = "drew" if len(record.winners) != 1 else ("won" if rank == 1 else "lost")
        else:
            outcome = {1: "1st", 2: "2nd", 3: "3rd"}.get(rank, f"{rank}th")
    score = "-".join(str(x) for x in record.scores) if record.scores and len(record.scores) == 2 else ""
    if score and me == 1:
        score = "-".join(str(x) for x in reversed(record.scores or ()))
    if outcome and record.reason == "resignation":
        result = f"{outcome} by resignation ({score})" if score else f"{outcome} by resignation"
        short = f"{outcome} (resigned)" if outcome == "lost" else f"{outcome} (they resigned)"
    elif record.reason == V.ABORTED:
        result = short = "aborted"
    elif outcome and record.reason == V.AGREEMENT:
        result = f"drew by agreement ({score})" if score else "drew by agreement"
        short = "drew (agreed)"
    elif outcome and record.reason == V.TIME:
        result = f"{outcome} on time ({score})" if score else f"{outcome} on time"
        short = f"{outcome} on time"
    else:
        result = short = f"{outcome} {score}".strip()
    delta = record.seats[me].delta if me is not None else None
    tail = [result] if result else []
    short_tail = [short] if short else []
    if delta is not None:
        tail.append(f"{delta:+d}")
        short_tail.append(f"{delta:+d}")
    from server.games import GAMES

    known = GAMES.get(record.game)
    named = known is None or known.named_in_history  # the home game's lines do not name it
    title = game_title(record.game) if named else ""
    abbrev = ((known.short if known is not None else "") or title) if named else ""
    game = f"{title} " if title else ""
    vs = f"v {', '.join(others)}"
    few = vs if len(others) == 1 else f"v {len(others)} others"
    head = [f"#{record.id}", when]
    forms = [
        head + [f"{game}{vs}"] + tail,
        head + ([abbrev] if abbrev else []) + tail + [vs],
        [f"#{record.id}", day] + ([abbrev] if abbrev else []) + tail + [vs],
        [f"#{record.id}", day] + ([abbrev] if abbrev else []) + short_tail + [few],
        [f"#{record.id}"] + ([abbrev] if abbrev else []) + short_tail + [few],
        [f"#{record.id}"] + ([abbrev] if abbrev else []) + short_tail,
    ]
    return ["  ".join(p for p in parts if p) for parts in forms]

