"""The TUI's backend for one SSH session: the door from its screens to the lobby.

The app calls ``home_screen()`` on mount (the lobby screen) and, from the
results screen, ``await rematch(handles)``.  The lobby screen calls the rest.
It satisfies :class:`tui.ports.LobbyBackend`:
what may cross a wire on an edge is a coroutine here too, answered in this process
(it suspends only where the lobby itself waits: a quick match, a room, a challenge).

Every request the lobby turns down reaches the screens as a :class:`tui.ports.Refused`:
the lobby's own errors derive from it, and any older ``ValueError`` it still raises is
turned into one here (:func:`tui.ports.refusing`), so a screen catches ``Refused`` and
never a bare ``ValueError`` (which would also hide a bug).
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable, Sequence
from typing import Any

from engine import clock
from server import games
from server import ratings as R
from server.games import IDS, TITLES
from server.lobby.core import Lobby
from server.lobby.models import LobbyDelta, Player, Room, Snapshot, bot_strengths
from server.store import persist
from tui import lobby_events as E
from tui.ports import BotRecord, Handles, HistoryItem, LeaderEntry, LinkedBrowser, RatingChange, Refused, refusing
from tui.ports import SeatHandle as Handle

SeatHandle = Handle[Any]

log = logging.getLogger(__name__)

FIRST_GAME = IDS[0]  # what a request naming no game means (the lobby's first: Voltage)


def lobby_event(event: str, value: Any) -> E.LobbyEvent:
    """The lobby's word for what it did to a player (``server.lobby``), as the screens' typed message."""
    if event == "follow":
        return E.Followed(value)
    if event == "challenge":
        return E.Challenged(value)
    if event == "challenge-over":
        return E.ChallengeOver(value)
    if event == "superseded":
        return E.Superseded()
    raise ValueError(f"the lobby said {event!r} to a player")


class SSHBackend:
    """One session's player in the shared :class:`~server.lobby.core.Lobby`."""

    online = True

    def __init__(self, lobby: Lobby, player: Player, *, initial: tuple[str, str] | None = None,
                 env: dict[str, str] | None = None) -> None:
        self.lobby = lobby
        self.player = player
        self.initial = initial  # ("join" | "watch", CODE) from the ssh command line
        self.env = dict(env or {})  # what the SSH client sent (SetEnv/SendEnv): NO_COLOR, for one
        self._settings: dict[str, str] = {}  # a guest's settings: for this session only
        self.name_prefill = lobby.suggest_name(player.username, player)
        # The name this key goes by (None: a guest or a new key): Enter keeps it, and
        # taking another is a rename of the key.
        self.stored_name = lobby.stored_name(player)
        self.room: Room | None = None
        self._chat_held: list[Callable[[], None]] = []  # the chat panels' subscriptions, ended with the session

    # -- what the app needs ----------------------------------------------------

    def home_screen(self) -> Any:
        from tui.screens.lobby import LobbyScreen

        return LobbyScreen(self)

    @property
    def guest(self) -> bool:
        """No key: a dropped seat cannot be proved to come back, so a bot takes it at once."""
        return not self.player.identity

    @property
    def grace_seconds(self) -> float:
        """How long a dropped seat waits for its player before a bot plays it."""
        return self.lobby.grace_seconds

    async def rematch(self, handles: Sequence[SeatHandle]) -> Handles | None:
        if not handles:
            return None
        with refusing():
            # (the lobby's handles are its hosts' own; a screen holds them as the ports' type)
            return await self.lobby.rematch(self.player, list(handles))  # type: ignore[arg-type]

    def match_screen(self, handles: Sequence[SeatHandle]) -> Any:
        """The match screen of the handles' game (also what a restored match resumes into)."""
        from tui.games.registry import screens

        return screens(handles[0].game).match(handles, self)

    def ssh_command(self, args: str = "", *, tty: bool = True) -> str:
        """A line that reaches this server, to paste as it is (``ssh -t -p 2222 HOST join KCUZ``)."""
        base = getattr(self.lobby, "ssh_line", "") or "ssh HOST"
        if tty and base.startswith("ssh"):
            base = "ssh -t" + base[3:]
        return f"{base} {args}".strip()

    # -- challenges ------------------------------------------------------------

    async def challenge(self, name: str, game: str = FIRST_GAME) -> Any:
        """Challenge the player online as ``name``; ``await`` the result's ``future``."""
        with refusing():
            return self.lobby.challenge(self.player, name, game)

    async def challenge_answer(self, challenge: Any) -> Handles:
        """The handles once the challenged player accepts; :class:`~tui.ports.Refused` if
        they decline, it expires or it is taken back."""
        with refusing():
            return await challenge.future

    async def answer_challenge(self, challenge: Any, accept: bool) -> Handles | None:
        with refusing():
            return self.lobby.answer_challenge(self.player, challenge, accept)

    async def withdraw_challenge(self, challenge: Any) -> None:
        self.lobby.withdraw_challenge(challenge)

    async def refuses_challenges(self) -> bool:
        return self.lobby.refuses_challenges(self.player)

    async def set_challenges(self, welcome: bool) -> None:
        """Take challenges or refuse them (kept for the key, with its settings)."""
        self.player.refuses_challenges = not welcome
        await self.save_setting("challenges", "on" if welcome else "off")

    # -- settings that follow the key -----------------------------------------

    async def settings(self) -> dict[str, str]:
        """This player's settings: the key's, kept in the store; a guest's, for the session."""
        return self.kept_settings()

    def kept_settings(self) -> dict[str, str]:
        """:meth:`settings`, read now (the host sends them with a session's opening to its edge)."""
        if self.identity and self.store is not None:
            try:
                return dict(self.store.settings(self.identity))
            except Exception:
                log.exception("could not read the settings of %s", self.identity)
        return dict(self._settings)

    async def save_setting(self, key: str, value: str) -> None:
        self._settings[key] = value
        if self.identity and self.store is not None and self.named:  # (a named key is a stored player)
            try:
                self.store.set_setting(self.identity, key, value)
            except Exception:  # (a key not stored yet: it is, once named; a store problem)
                log.exception("could not keep the setting %s of %s", key, self.identity)

    async def start_colours(self) -> str | None:
        """The colours to start in: none when the client sent ``NO_COLOR`` (whatever its
        value, as no-color.org asks), else the key's kept choice (None: the default)."""
        if "NO_COLOR" in self.env:
            return "none"
        return (await self.settings()).get("colours")

    async def colours_forced(self) -> str | None:
        """Why this session's colours are not the player's to choose (an id the settings screen
        words; None: they are): ``"no_color"``, the client sent ``NO_COLOR``, which wins over
        any kept choice."""
        return "no_color" if "NO_COLOR" in self.env else None

    # -- naming and coming back ----------------------------------------------

    @property
    def named(self) -> bool:
        """Online under a name (a session a newer one of its key took over is not)."""
        return bool(self.player.name) and not self.player.superseded

    @property
    def superseded(self) -> bool:
        """A newer session of this key took over (claiming the name again takes it back)."""
        return self.player.superseded

    def listen(self, callback: Callable[[E.LobbyEvent], None]) -> None:
        """``callback(event)`` (in the caller's context) when the lobby sends this session
        elsewhere (:mod:`tui.lobby_events`): :class:`~tui.lobby_events.Superseded` (its key
        was opened in another session, newest wins), :class:`~tui.lobby_events.Followed` (a
        watched match was rematched: its handles watch the new one), a challenge to this
        player (:class:`~tui.lobby_events.Challenged`) and its end unanswered
        (:class:`~tui.lobby_events.ChallengeOver`)."""
        ctx = contextvars.copy_context()  # the session's own app context
        self.player.listener = lambda event, value: ctx.run(callback, lobby_event(event, value))

    @property
    def name(self) -> str:
        return self.player.name

    async def claim_name(self, name: str) -> str:
        with refusing():
            return self.lobby.claim_name(self.player, name)

    async def rename_wait(self) -> float:
        """Seconds until this key may take another name (0: now)."""
        return self.lobby.rename_wait(self.player)

    async def resumable(self) -> bool:
        return self.lobby.resumable(self.player) is not None

    async def resume(self) -> Handles | None:
        return self.lobby.resume(self.player)

    # -- the lobby's choices -------------------------------------------------

    games = IDS
    game_titles = TITLES

    @property
    def bot_offer_after(self) -> float:
        return self.lobby.bot_offer_after

    def strengths(self) -> list[tuple[str, str]]:
        return bot_strengths()

    async def hv_starts_in(self) -> float | None:
        """Seconds until this player's High Voltage quick table starts as it is."""
        return self.lobby.starts_in(self.player)

    def snapshot(self) -> Snapshot:
        return self.lobby.published()

    def lobby_changes(self, since: int) -> list[LobbyDelta] | None:
        return self.lobby.changes(since)

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        return self.lobby.subscribe(callback)

    async def enter_lobby(self) -> None:
        self.room = None
        self.lobby.enter_lobby(self.player)

    async def quick_match(self, game: str = FIRST_GAME) -> Handles:
        with refusing():
            return await self.lobby.quick_match(self.player, game)

    async def create_room(self, game: str = FIRST_GAME, size: int = 4, time_control: str = "default") -> Room:
        """A private room (High Voltage: ``size`` seats, 2 to 4).  ``time_control``:
        Voltage's clock as a player writes it ("5+5", "10+0", "none"; "default": 5+5)."""
        try:
            control = time_control if time_control == "default" else clock.parse(time_control)
        except ValueError:
            raise Refused("bad_time_control", text=time_control) from None
        with refusing():
            self.room = self.lobby.create_room(self.player, game, size, control)
        return self.room

    async def start_room(self) -> None:
        """Start this session's High Voltage room now, bots in the empty seats."""
        if self.room is not None:
            with refusing():
                self.lobby.start_room(self.room)

    def bot_levels(self, game: str) -> tuple[str, ...]:
        """The bot levels a table of ``game`` offers (its server registry entry's), in its order."""
        return games.game(game).bot_levels()

    async def seated(self, code: str) -> tuple[tuple[str, ...], int] | None:
        """Who sits at the High Voltage room ``code`` so far and its seats (None: gone)."""
        table = self.lobby.open_table(code)
        if table is None or table.hosted is not None:
            return None
        return table.names, table.size

    async def room_game(self, code: str) -> str | None:
        """The game of the private room ``code`` (None: no room by that code)."""
        return self.lobby.room_game(code)

    async def close_room(self) -> None:
        self._close_room()

    def _close_room(self) -> None:
        if self.room is not None:
            self.lobby.close_room(self.room)
            self.room = None

    async def join_room(self, code: str) -> Handles:
        """Join a Voltage room (it starts at once)."""
        with refusing():
            return self.lobby.join_room(self.player, code)

    async def join(self, code: str) -> Handles:
        """Join a room of either game; a High Voltage room waits for its start."""
        with refusing():
            return await self.lobby.join(self.player, code)

    async def play_bot(self, bot: str, game: str = FIRST_GAME) -> Handles:
        with refusing():
            return self.lobby.play_bot(self.player, bot, game)

    async def watch(self, code: str) -> Handles:
        with refusing():
            return self.lobby.watch(self.player, code)

    def close(self) -> None:
        self._close_room()
        for unlisten in list(self._chat_held):
            unlisten()
        self._chat_held.clear()

    # -- chat (server.chat; the screens' door: tui.chat.door) -------------------

    def lobby_chat(self) -> Any:
        """The lobby's talk, as the lobby screen's panel sees it."""
        from server.host.common import in_context
        from tui.chat.door import ChatDoor, kept

        return ChatDoor(self, None, ("lobby",), free_text=not self.guest,
                        listen=kept(lambda callback: self.lobby.chat.listen(in_context(callback)), self._chat_held))

    def match_chat(self, handles: Sequence[SeatHandle]) -> Any:
        """A match's talk for the seat of ``handles`` (None: no match of this lobby's)."""
        from tui.chat.door import ChatDoor, kept, match_rooms, seat_lines

        if not handles or getattr(handles[0], "match", None) is None:
            return None
        handle = handles[0]
        return ChatDoor(self, handle, match_rooms(handle.seat), free_text=not self.guest,
                        listen=kept(seat_lines(handle.subscribe_messages), self._chat_held))

    def _chat_place(self, where: Any) -> tuple[Any, int | None]:
        """The match host and seat a chat call names (None, None: the lobby)."""
        if where is None:
            return None, None
        host = getattr(where, "match", None)
        if host is None:
            raise Refused("chat_not_here")
        return host, where.seat

    async def chat_lines(self, where: Any = None) -> list[Any]:
        host, seat = self._chat_place(where)
        identity = self.player.seat_identity
        if host is None:
            return self.lobby.chat.lobby_lines(identity)
        return self.lobby.chat.match_lines(host, seat, identity)

    async def chat_say(self, where: Any, room: str, text: str, phrase: str = "") -> Any:
        if not self.named:
            raise Refused("chat_not_here")
        host, seat = self._chat_place(where)
        return await self.lobby.chat.say(identity=self.player.seat_identity, name=self.name, guest=self.guest,
                                         text=text, phrase=phrase, room=room, host=host, seat=seat)

    async def chat_mutes(self) -> dict[str, str]:
        import json

        raw = (await self.settings()).get("chat.muted", "")
        try:
            muted = json.loads(raw) if raw else {}
        except ValueError:
            return {}
        return {str(k): str(v) for k, v in muted.items()} if isinstance(muted, dict) else {}

    async def chat_mute(self, name: str, on: bool = True) -> str:
        """Mute (``on``) or unmute the author going by ``name`` for this key; their ``who``."""
        import json

        from server.chat.rooms import who_of
        from server.store.db import fold_name

        name = name.strip().lstrip("@")
        key = fold_name(name)
        identity = next((p.seat_identity for p in self.lobby.players.values() if fold_name(p.name) == key), None)
        if identity is None and self.store is not None:
            identity = self.store.name_owner(name)
        muted = await self.chat_mutes()
        if identity is None:  # not online nor a key's name: unmute by the name shown
            gone = [w for w, n in muted.items() if fold_name(n) == key]
            if on or not gone:
                raise Refused("no_such_player", name=name)
            who = gone[0]
        else:
            who = who_of(identity)
            if identity == self.player.seat_identity:
                raise Refused("chat_mute_self")
        if on:
            muted[who] = name
        else:
            muted.pop(who, None)
        await self.save_setting("chat.muted", json.dumps(muted, sort_keys=True))
        return who

    # -- what was kept: ratings, history, replays, the leaderboard -------------

    @property
    def store(self) -> Any:
        return self.lobby.store

    @property
    def identity(self) -> str | None:
        """The key fingerprint (None for a guest: guests are not stored)."""
        return self.player.identity

    async def linked_browsers(self) -> list[LinkedBrowser]:
        """The browsers linked to this player's key (``ssh HOST link``), the one used last first."""
        if not self.identity or self.store is None:
            return []
        return [LinkedBrowser(b.label, b.created, b.last_seen) for b in self.store.browsers(self.identity)]

    async def rating_change(self, handles: Sequence[SeatHandle]) -> tuple[RatingChange, ...] | None:
        """The results screen's line, as data: each rated seat's new rating and its change."""
        h = self.lobby.hosted_of(list(handles))  # type: ignore[arg-type]  # (as in rematch)
        rec = h.recording if h is not None else None
        if h is None or rec is None or self.store is None:
            return None
        try:
            changes = self.store.rating_changes(rec.match_id) or {c.seat: c for c in rec.changes}
        except Exception:
            log.exception("could not read the rating changes of match %s", rec.match_id)
            return None
        if not changes:
            return None
        return persist.rating_changes(changes, [s.name for s in h.match.seats])

    async def ratings(self) -> list[tuple[str, int, int]]:
        """``(game title, rating shown, games)`` of this player in each game rated so far."""
        if self.store is None or not self.identity:
            return []
        out = []
        try:
            for game in self.store.games():
                r = self.store.rating(self.identity, game)
                if r is not None and r[2] > 0:
                    out.append((persist.game_title(game), R.display(r[0], r[1]), r[2]))
        except Exception:
            log.exception("could not read ratings")
        return out

    async def rating_trends(self, n: int = 50) -> list[tuple[str, tuple[int, ...]]]:
        """``(game's short title, the rating shown after each of the last n rated matches)`` of each
        game this player has a rated match in (the "Your matches" panel's sparklines)."""
        if self.store is None or not self.identity:
            return []
        out = []
        try:
            for game in self.store.games():
                points = [p.shown for p in self.store.rating_history(self.identity, game) if p.match_id is not None]
                if points:
                    known = games.GAMES.get(game)
                    out.append(((known.short if known is not None else "") or persist.game_title(game),
                                tuple(points[-n:])))
        except Exception:
            log.exception("could not read the rating history")
        return out

    async def history(self, limit: int = 20) -> list[HistoryItem]:
        """This player's finished matches, newest first, as data (the lobby screen words them
        in the forms that fit its width: :func:`tui.words.history_lines`)."""
        if self.store is None or not self.identity:
            return []
        try:
            return [persist.history_item(r, self.identity) for r in self.store.player_history(self.identity, limit)]
        except Exception:
            log.exception("could not read the match history")
            return []

    async def bot_record(self) -> list[BotRecord]:
        """This player's record against each bot level (matches with a bot are not rated)."""
        if self.store is None or not self.identity:
            return []
        try:
            return persist.bot_records(self.store, self.identity)
        except Exception:
            log.exception("could not read the record against bots")
            return []

    def open_replay(self, match_id: int) -> Any:
        """The :class:`~server.replay.Replay` of a finished match: every hand shows (it
        is over), the player's own seat at the bottom if they played in it; raises
        :class:`~server.replay.ReplayError` saying why not."""
        from server.coach import attach_analysis
        from server.replay import Replay, ReplayError

        if self.store is None:
            raise ReplayError("no_store")
        return attach_analysis(Replay.load(self.store, match_id, self.identity), self.store, self.identity)

    async def replay_screen(self, match_id: int) -> Any:  # (the replay is worked out here: no wait)
        from tui.screens.replay import replay_screen

        return replay_screen(self.open_replay(match_id))

    async def leaderboard_games(self) -> list[tuple[str, str]]:
        """``(game, title)`` of every game with a leaderboard (the first registered game,
        Voltage, always first)."""
        from engine.registry import GAMES as REGISTERED

        first = next(iter(REGISTERED))
        games = list(self.store.games()) if self.store is not None else []
        games = [first] + [g for g in games if g != first]
        return [(g, persist.game_title(g)) for g in games]

    async def leaderboard(self, game: str, n: int = 20) -> list[LeaderEntry]:
        """The top ``n`` of ``game`` with each one's rating history (shown numbers, oldest first)."""
        if self.store is None:
            return []
        out = []
        for row in self.store.leaderboard(game, n):
            points = [p.shown for p in self.store.rating_history(row.identity, game)]
            out.append(LeaderEntry(row.place, row.name, row.shown, row.games, tuple(points),
                                   row.identity == self.identity))
        return out
