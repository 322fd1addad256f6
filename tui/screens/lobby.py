"""The lobby (SSH play): quick match first, private rooms, bots, watching; and the
name-entry step at its top (a known key's name prefilled; a new key's box empty, the name
made from its login, ``root`` as often as not, only offered in grey as a suggestion that
Enter takes; checked by the lobby).  A known key that
asked for a code on the command line (``join CODE``, ``watch CODE``) goes straight there.

Every name and code on these screens is shown as plain ``Text``, never as
markup, so what another player typed cannot style or escape anything.

No line here branches on the game.  Each game the backend offers brings its part of
the screen from the tui's registry (:mod:`tui.games.lobby_parts`: its menu lines,
what choosing one means, the words while waiting); the screen lays the parts out
(the first game leads, "Join a friend's room" after its room line; every other game
under a heading) and does what a chosen line asks (:class:`~tui.games.lobby_parts.Choice`).
A third game adds a registry entry, not lobby code.

What the player is doing is one typed state (:mod:`tui.screens.lobby_modes`: queued for a
game, hosting a room, picking a game to challenge with...), and what the lobby decides for
the session arrives as typed messages (:mod:`tui.lobby_events`), each handled with
``@on``.  The backend's calls are awaited in the handler of the key that asked (so the
keys after it wait their turn: :mod:`tui.keys`), or in a worker for what waits on other
people (a quick match, a room, a challenge's answer).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from typing import Any, TypeVar

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Input, Static

from tui import lobby_events as E
from tui import words as W
from tui.chat import words as CW
from tui.chat.panel import ChatPanel, phrase_bindings
from tui.games.lobby_parts import LobbyPart
from tui.games.registry import GAMES as SCREENS
from tui.games.registry import words
from tui.i18n import N_, NP_, _, ngettext, short
from tui.ports import ChatRoom, Handles, LobbyBackend, Refused, Unsubscribe
from tui.screens.base import SizedScreen, TooSmall
from tui.screens.lobby_lists import LobbyLists
from tui.screens.lobby_modes import (
    WAITING,
    AskingCode,
    Browsing,
    Challenging,
    Hosting,
    Joined,
    Mode,
    PickingGame,
    Queued,
)
from tui.text import sparkline
from tui.widgets.menu import Menu
from tui.widgets.rows import RowMenu

T = TypeVar("T")


#: The keys' words that the lobby's narrowest status line takes in their short form, where a
#: language has one (:func:`tui.i18n.short`; the English ones are short already).
SHORT_KEY_WORDS = (NP_("short", "choose"), NP_("short", "watch"), NP_("short", "your matches"),
                   NP_("short", "leaderboard"), NP_("short", "settings"), NP_("short", "rules"),
                   NP_("short", "quit"))


class LobbyScreen(SizedScreen):
    """Players online, matches running, and the ways to play."""

    DEFAULT_CSS = """
    LobbyScreen { layout: vertical; }
    LobbyScreen #lobby { height: 1fr; }
    LobbyScreen.-narrow #lobby, LobbyScreen.-short #lobby { display: none; }
    LobbyScreen.-narrow TooSmall, LobbyScreen.-short TooSmall { display: block; }
    LobbyScreen #lobby-title { height: 1; background: $accent; color: $text; padding: 0 1; }
    LobbyScreen #name { display: none; width: 70; border: round $accent; }
    LobbyScreen #name.shown { display: block; }
    LobbyScreen #code-input { display: none; }
    LobbyScreen #code-input.shown { display: block; }
    LobbyScreen #lobby-body { height: 1fr; }
    LobbyScreen #choices { width: 1fr; min-width: 30; border: round $panel-lighten-2; }
    LobbyScreen #side { width: 1fr; }
    LobbyScreen #players { height: 1fr; border: round $panel-lighten-2; }
    LobbyScreen #matches { height: 1fr; border: round $panel-lighten-2; }
    LobbyScreen #history { height: 1fr; border: round $panel-lighten-2; }
    LobbyScreen #choices:focus, LobbyScreen #matches:focus, LobbyScreen #history:focus,
    LobbyScreen #players:focus {
        border: round $accent;
    }
    LobbyScreen #status { height: auto; min-height: 2; padding: 0 1; }
    LobbyScreen #side.-chat Menu { display: none; }
    LobbyScreen #chat { border: round $panel-lighten-2; border-title-align: left; }
    LobbyScreen #chat:focus-within { border: round $accent; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("b", "bot_instead", "Play a bot instead", show=False),
        Binding("w", "focus_matches", "Watch", show=False),
        Binding("o", "focus_players", "Online", show=False),
        Binding("h", "focus_history", "Your matches", show=False),
        Binding("l", "leaderboard", "Leaderboard", show=False),
        # s: start your room now where its game can (the status says so), else the settings
        Binding("s", "start_or_settings", "Start now with bots / Settings", show=False),
        # c: the chat, in place of the lists at the right (o, w, h bring them back)
        Binding("c", "chat", "Chat", show=False),
        *phrase_bindings(),
    ]

    def __init__(self, backend: LobbyBackend) -> None:
        super().__init__()
        self.backend = backend
        self._unsubscribe: Unsubscribe | None = None
        self._play_menu: Menu | None = None  # (the Play menu, once composed)
        self._mode: Mode = Browsing()
        self._ticker: Timer | None = None
        self.parts: dict[str, LobbyPart] = self._make_parts()  # each game's part, in the lobby's order
        # Online and Matches: sorted indexes the lobby's deltas keep up to date, drawn a window
        # at a time (a screen pays for the rows it shows: tui.screens.lobby_lists)
        self._index = LobbyLists(lambda: self.backend.name, self._match_line)
        self._shown: Any = None  # the snapshot the lists were last read from
        self._title_shown: str | None = None  # the title line and status shown (unchanged: not drawn again)
        self._status_shown: Text | None = None
        make_chat = getattr(backend, "lobby_chat", None)
        self.chat_room: ChatRoom | None = make_chat() if make_chat is not None else None

    @property
    def lists(self) -> LobbyLists:
        """The Online and Matches lists' rows, at the lobby version shown."""
        return self._index

    @property
    def mode(self) -> Mode:
        """What the player is doing now (:mod:`tui.screens.lobby_modes`)."""
        return self._mode

    def _make_parts(self) -> dict[str, LobbyPart]:
        """The games offered, each with its part: those the backend offers and the tui
        registry has a lobby part for."""
        parts: dict[str, LobbyPart] = {}
        for game in self.backend.games:
            entry = SCREENS.get(game)
            if entry is None or entry.lobby is None:
                continue
            parts[game] = entry.lobby(self.backend)
        return parts

    @property
    def first(self) -> str:
        """The game offered first (the quick match's and a bare request's game)."""
        return next(iter(self.parts), "")

    def part(self, game: str | None) -> LobbyPart | None:
        return self.parts.get(game) if game is not None else None

    async def _asked(self, answer: Awaitable[T], default: T) -> T:
        """The backend's ``answer``, or ``default`` with its refusal shown (a host that is
        away or does not answer: the screen carries on)."""
        try:
            return await answer
        except Refused as e:
            self._error(W.refusal(e))
            return default

    async def _resume(self) -> bool:
        """This key's seat, taken back (True: its match is on screen now)."""
        if not await self._asked(self.backend.resumable(), False):
            return False
        handles = await self._asked(self.backend.resume(), None)
        if not handles:
            return False
        await self._title()
        self._open_match(handles)
        return True

    # -- layout ----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(id="lobby"):
            yield from self._compose_lobby()

    def _compose_lobby(self) -> ComposeResult:
        yield Static(Text(_("Voltage: lobby")), id="lobby-title")
        stored = self.backend.stored_name
        name = Input(value=self.backend.name_prefill if stored else "", max_length=16, id="name")
        name.cursor_blink = False  # a blinking cursor redraws twice a second, per session
        yield name
        with Horizontal(id="lobby-body"):
            self._play_menu = Menu(self._choices(), id="choices")
            yield self._play_menu
            with Vertical(id="side"):
                yield RowMenu(self._index.players, id="players")
                yield RowMenu(self._index.matches, id="matches")
                yield Menu(id="history")
                if self.chat_room is not None:
                    yield ChatPanel(self.chat_room, on_unread=self._chat_unread)
        # Composed once and shown when a code is asked for: a widget mounted then would
        # miss the letters typed in the same burst as the key that asked (they arrive
        # before its mount is done); a hidden one takes the focus at once.
        code = Input(placeholder=_("room code (4 letters)"), max_length=4, id="code-input")
        code.cursor_blink = False
        yield code
        yield Static("", id="status")

    def _menu_width(self) -> int | None:
        """The Play menu's room for a line (None: not laid out yet)."""
        menu = self._play_menu  # (None while composing)
        width = menu.content_size.width if menu is not None else 0
        return width if width > 0 else None

    def _choices(self) -> list[tuple[str, Text]]:
        """The Play menu: each game's lines (its part's, ids ``game:item``), then the rest."""
        opts: list[tuple[str, Text]] = []
        width = self._menu_width()
        for n, (game, part) in enumerate(self.parts.items()):
            if n:
                opts.append((f"-{game}", part.heading(width)))
            opts += [(f"{game}:{item}", text) for item, text in part.play_lines(width)]
            if not n:
                opts.append(("join", Text(_("Join a friend's room (code)"))))
            opts += [(f"{game}:{item}", text) for item, text in part.bot_lines()]
            if n:
                opts.append((f"-{game}:end", Text("")))
        opts += [(f"learn:{game}", Text(W.learn_line(part.title)))
                 for game, part in self.parts.items() if SCREENS[game].learn is not None]
        opts.append(("watch", Text(_("Watch a match (code)"))))
        opts.append(("leaderboard", Text(_("Leaderboard"))))
        opts.append(("settings", Text(_("Settings"))))
        return opts

    # -- challenges ----------------------------------------------------------

    @on(Menu.Chosen, "#players")
    async def _player_chosen(self, event: Menu.Chosen) -> None:
        if not self.backend.named or not event.item.startswith("player:"):
            return
        if isinstance(self._mode, WAITING):
            await self.action_cancel()
        self._error("")
        name = event.item.split(":", 1)[1]
        self._set_mode(PickingGame(name))
        games = "   ".join(f"{n} {part.title}" for n, part in enumerate(self.parts.values(), 1))
        self._status(_("Challenge %(name)s to:  %(games)s   Esc: cancel") % {"name": name, "games": games})

    def on_key(self, event: events.Key) -> None:
        games = list(self.parts)
        mode = self._mode
        if isinstance(mode, PickingGame) and event.key in [str(n) for n in range(1, len(games) + 1)]:
            event.stop()
            event.prevent_default()
            self._set_mode(Browsing())
            self._challenge(mode.name, games[int(event.key) - 1])

    @work(exclusive=True, group="lobby-wait")
    async def _challenge(self, name: str, game: str) -> None:
        try:
            ch = await self.backend.challenge(name, game)
        except Refused as e:
            self._error(W.refusal(e))
            return
        self._set_mode(Challenging(ch, time.monotonic()))
        try:
            handles = await self.backend.challenge_answer(ch)
        except Refused as e:  # declined, expired, taken back
            self._set_mode(Browsing())
            self._error(W.refusal(e))
            return
        self._set_mode(Browsing())
        self._open_match(handles)

    def _challenge_status(self, ch: Any) -> None:
        left = int(ch.seconds_left + 0.999)
        title = self.backend.game_titles.get(ch.game, ch.game)
        self._status(_("You challenged %(name)s to %(title)s: waiting for an answer (%(left)d s)   Esc: take it "
                       "back") % {"name": ch.target.name, "title": title, "left": left})

    @on(E.Challenged)
    def _challenged(self, event: E.Challenged) -> None:
        """Someone challenges this player: ask, wherever they are in the app."""
        from tui.dialogs.challenge import ChallengeScreen

        ch = event.challenge

        async def answered(accept: bool | None) -> None:
            try:
                handles = await self.backend.answer_challenge(ch, bool(accept))
            except Refused as e:
                self._error(W.refusal(e))
                return
            if handles:
                self._go_home()
                self._open_match(handles)

        self.app.push_screen(ChallengeScreen(ch, self.backend.game_titles.get(ch.game, ch.game)), answered)

    @on(E.ChallengeOver)
    def _challenge_gone(self, event: E.ChallengeOver) -> None:
        from tui.dialogs.challenge import ChallengeScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, ChallengeScreen) and screen.challenge is event.challenge:
                screen.gone()

    async def _start_settings(self) -> None:
        from tui.screens.settings import apply_start_settings

        await apply_start_settings(self.app, self.backend)

    def action_settings(self) -> None:
        """The settings screen (a wait for a match goes on meanwhile)."""
        if isinstance(self.focused, Input) or not self.backend.named:
            return
        from tui.screens.settings import SettingsScreen

        self.app.push_screen(SettingsScreen(self.backend))

    async def action_start_or_settings(self) -> None:
        if self._can_start_room():
            await self.action_start_room()
        else:
            self.action_settings()

    def _game_item(self, item: str) -> tuple[LobbyPart, str] | None:
        """A game's menu line (``game:item``): its part and the part's own item id."""
        game, _, own = item.partition(":")
        part = self.parts.get(game)
        return (part, own) if part is not None and own else None

    @on(Menu.Adjusted, "#choices")
    def _adjusted(self, event: Menu.Adjusted) -> None:
        game_item = self._game_item(event.item)
        if game_item is not None:
            part, own = game_item
            if not part.adjust(own, event.delta):
                return
        else:
            return
        self.query_one("#choices", Menu).set_items(self._choices())

    async def on_mount(self) -> None:
        await self._start_settings()
        self.query_one("#choices", Menu).set_items(self._choices())  # (the colours the app has now)
        self._word_fixed()
        if self.chat_room is not None:
            self._chat_unread(0)
        self._refresh_lists()
        choices = self.query_one("#choices", Menu)
        if self.backend.named:
            choices.focus()
        # (a session still unnamed gives the menu the focus only when the name box is not asked for: the
        # box has it from the screen's start, and the menu's focus and its blur, then the box's blur and
        # focus again restyled both: an eighth of a session's first frame, in Python calls)
        self._ticker = self.set_interval(1.0, self._tick, pause=True)
        self.backend.listen(self._told)
        if not self.backend.named:
            if await self._resume():
                choices.focus()
                return
            stored = self.backend.stored_name
            if self.backend.initial is not None and stored and await self._take_name(stored):
                choices.focus()
                return  # a known key's join or watch: straight there
            if stored:  # how long the key waits for another name, said in the box's title
                self._name_wait = W.rename_wait(await self._rename_wait(), short=True)
                self._word_name()
            self.query_one("#name").add_class("shown")
            self.query_one("#name", Input).focus()
            self._error("")
        else:
            await self._enter()

    TAKEN_OVER = N_("This key was opened in another session: it plays there now (the newest session takes "
                    "over).\nEnter takes it back here; ctrl+q quits.")

    @on(E.Followed)
    def _followed(self, event: E.Followed) -> None:
        """The match this session watched was rematched: watch the new one."""
        if event.handles:
            self._go_home()  # off the old results and board
            self._open_match(event.handles)

    @on(E.Superseded)
    def _superseded(self, event: E.Superseded) -> None:
        """This key was opened in a newer session: the name step again, saying why."""
        self.workers.cancel_group(self, "lobby-wait")
        self._go_home()
        self._unlisten()
        self._set_mode(Browsing())
        name = self.query_one("#name", Input)
        name.value = self.backend.name
        name.add_class("shown")
        name.focus()
        self._error(_(self.TAKEN_OVER))

    @on(events.ScreenResume)
    async def _back_in_the_lobby(self, event: events.ScreenResume) -> None:
        # (beside SizedScreen.on_screen_resume, which gives the focus back)
        # The resume event may arrive after this screen already pushed a match
        # (coming back to a seat): only a lobby really on screen is "in the lobby".
        if self.app.screen is not self or not self.backend.named:
            return
        if isinstance(self._mode, Browsing):
            await self._enter()
        elif self._unsubscribe is None:  # back from the settings (or the leaderboard) while waiting
            await self._title()
            self._unsubscribe = self.backend.subscribe(self._refresh_lists)
            self._refresh_lists()

    def reword(self) -> None:
        """The language changed (on the settings screen, above this one): what this screen
        says of its own now, the lists when it shows again (even if the lobby has not changed)."""
        self._shown = None
        self._index.version = None
        self._word_fixed()
        self.query_one("#choices", Menu).set_items(self._choices())
        if self.backend.named:
            self._show_title()
        self._show_status()
        if self.chat_room is not None:  # (the panel words its own again: the app asks every widget)
            self._chat_unread(self.query_one(ChatPanel).unread)

    _name_wait = ""  # how long this key waits for another name, in words ("": it need not)

    def _word_name(self) -> None:
        """The name box's hint and title (a known key's name, and its wait for another)."""
        name = self.query_one("#name", Input)
        stored = self.backend.stored_name
        suggestion = self.backend.name_prefill
        name.placeholder = (_("%(name)s? (a suggestion: type your name, or Enter to take it)") % {"name": suggestion}
                            if suggestion else _("the name others will see"))
        if not stored:
            name.border_title = _("Your name (Enter to go)")
        elif self._name_wait:
            name.border_title = _("Your name: %(name)s (Enter to go; %(wait)s)") % {
                "name": stored, "wait": self._name_wait}
        else:
            name.border_title = _("Your name: %(name)s (Enter to go; another name renames your key)") % {
                "name": stored}

    def _word_fixed(self) -> None:
        """The words of this screen's own that do not change with the lobby: the panels' titles,
        what an empty list says, the name box's."""
        self._word_name()
        self.query_one("#players", Menu).set_title(_("Online"))
        matches = self.query_one("#matches", Menu)
        matches.empty_text = _("no match running")
        history = self.query_one("#history", Menu)
        history.set_title(_("Your matches (h; Enter: replay)"))
        history.empty_text = _("none finished yet") if self.backend.identity else W.keep_with_key(self._ssh_link())
        self.query_one("#choices", Menu).set_title(_("Play"))
        matches.refresh()  # (its rows come from the lobby's lists: only painted again)
        if not history.items:
            history.set_items([])  # (the empty text, worded again)
        mode = self._mode
        if isinstance(mode, AskingCode):
            self._ask_code(mode.verb)

    def _ssh_link(self) -> str:
        """The command that links a browser to a key (what a browser's guest is told to run)."""
        return self.backend.ssh_command("link", tty=False)

    def on_screen_suspend(self) -> None:
        self._unlisten()

    def on_unmount(self) -> None:
        self._unlisten()

    def _unlisten(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    @on(Input.Submitted, "#name")
    async def _name_submitted(self, event: Input.Submitted) -> None:
        # (empty: the suggestion)
        await self._take_name(event.value if event.value.strip() else self.backend.name_prefill)

    def _told(self, event: E.LobbyEvent) -> None:
        """The lobby's events for this session: handled as this screen's messages."""
        self.post_message(event)

    async def _rename_wait(self) -> float:
        """Seconds until this key may take another name (0: now)."""
        return float(await self.backend.rename_wait())

    async def _take_name(self, value: str) -> bool:
        """Go online as ``value`` (False: refused, and the reason shown)."""
        backend = self.backend
        stored = backend.stored_name
        try:
            name = await backend.claim_name(value)
        except Refused as e:
            self._error(W.refusal(e))
            return False
        self._error("")
        renamed = stored is not None and bool(stored) and name.casefold() != stored.casefold()
        if renamed:
            backend.stored_name = name
        self.query_one("#name").remove_class("shown")
        self.query_one("#choices", Menu).focus()
        if await self._resume():  # a seat of this key (taken back from another session)
            return True
        await self._named()
        if renamed and isinstance(self._mode, Browsing):
            self._status(_("Renamed: your key goes by %(name)s now (it was %(old)s).") % {"name": name, "old": stored})
        return True

    async def _named(self) -> None:
        await self._enter()
        initial = self.backend.initial
        self.backend.initial = None
        if initial is not None:
            verb, code = initial
            await self._use_code(verb, code)

    async def _enter(self) -> None:
        await self._asked(self.backend.enter_lobby(), None)
        self._set_mode(Browsing())
        await self._title()
        if self._unsubscribe is None:
            self._unsubscribe = self.backend.subscribe(self._refresh_lists)
        self._refresh_lists()
        await self._refresh_history()

    @staticmethod
    def short_title(title: str) -> str:
        """A game title's short form, for the lobby's title on a narrow terminal: its
        words' initials (one letter a word)."""
        return "".join(word[0] for word in title.split()) or title

    async def _title(self) -> None:
        """Who you are and your ratings, in the longest form that fits the width: the
        words are shortened by meaning (no "(N rated)", then short game names), never cut."""
        self._ratings = list(await self.backend.ratings()) if self.backend.named else []
        self._show_title()

    def _show_title(self) -> None:
        ratings = getattr(self, "_ratings", [])
        name = self.backend.name
        forms = [
            (_("Voltage: lobby"), "    ", lambda g, r, n: ngettext(
                "%(game)s %(rating)s (%(n)d rated)", "%(game)s %(rating)s (%(n)d rated)", n) % {
                "game": g, "rating": r, "n": n}),
            (_("Voltage: lobby"), "    ", lambda g, r, n: f"{g} {r}"),
            (_("Lobby"), "   ", lambda g, r, n: f"{self.short_title(g)} {r}"),
        ]
        width = max(1, self.app.size.width - 2)
        line = ""
        you = _("you: %(name)s") % {"name": name}
        for head, gap, rating in forms:
            line = gap.join([head, you, *(rating(*x) for x in ratings)])
            if len(line) <= width:
                break
        if line != self._title_shown:  # (one row high: a repaint, never a layout)
            self._title_shown = line
            self.query_one("#lobby-title", Static).update(Text(line), layout=False)

    def on_resize(self) -> None:
        self.call_after_refresh(self._reset_choices)  # (a heading's form is the one that fits the new width)
        if self.backend.named:
            self._show_title()
            self.call_after_refresh(self._refresh_history)  # (once the panels have their new width)
        self._show_status()

    def _reset_choices(self) -> None:
        if self.is_attached:
            self.query_one("#choices", Menu).set_items(self._choices())

    async def _refresh_history(self) -> None:
        """The player's own finished matches, newest first (read when the lobby shows)."""
        found = list(await self.backend.history())
        width = self.query_one("#history", Menu).content_size.width - 2  # (the cursor)
        items = W.history_lines(found, width if width > 0 else None)
        records = list(await self.backend.bot_record())  # (matches with a bot are not rated)
        bots = W.bot_record_lines(records, width + 2 if width > 0 else None)
        # Newest first, and the cursor on the newest (a match just played is the one to see).
        self.query_one("#history", Menu).set_items([(f"-bots:{n}", Text(line, style="dim")) for n, line in
                                                    enumerate(bots)] + [(f"replay:{mid}", Text(line))
                                                                         for mid, line in items], keep_place=False)
        trends = getattr(self.backend, "rating_trends", None)  # (a rating sparkline per game, under it)
        shown = list(await trends()) if trends is not None else []
        room = (width - 2) // max(1, len(shown))
        self.query_one("#history", Menu).set_title("  ".join(
            f"{title} {sparkline(points, room - len(title) - 2)}" for title, points in shown), subtitle=True)

    # -- lists -----------------------------------------------------------------

    def _refresh_lists(self) -> None:
        if not self.is_attached:
            return
        if isinstance(self._mode, Hosting | Joined):  # (a room's seats are asked of the backend:
            self.call_next(self._room_status)        # the lobby's snapshot may be the same meanwhile)
        lists = self._index
        deltas = self.backend.lobby_changes(lists.version) if lists.version is not None else None
        if deltas is None:  # (new here, or too far behind: the whole lobby, once)
            snap = self.backend.snapshot()
            if snap is None or snap == self._shown:
                return  # nothing this screen shows has changed
            self._shown = snap
            lists.reset(snap)
            first_player = first_match = 0
        elif not deltas:
            return
        else:
            self._shown = None
            first_player, first_match = lists.apply(deltas)
        players = self.query_one("#players", RowMenu)
        players.rows_changed(first_player)
        challenge = "  " + _("o, Enter: challenge") if len(lists.players) > 1 else ""
        players.set_title(_("Online (%(n)d)") % {"n": len(lists.players)} + challenge)  # (its row alone)
        matches = self.query_one("#matches", RowMenu)
        width = matches.size.width - 4  # (the lines' width when the list changed, as they were made)
        if width != lists.matches.width:
            lists.matches.width = width
            first_match = 0
        matches.rows_changed(first_match)
        matches.set_title(_("Matches (%(n)d; Enter: watch)") % {"n": len(lists.matches)})

    def _match_line(self, m: Any, width: int) -> str:
        """A running match in one line: its code, players and score, and who watches;
        shorter words when the list is too narrow for the long ones."""
        watching = "  " + _("(%(n)d watching)") % {"n": m.spectators} if m.spectators else ""
        line = f"{m.code}  {self._describe(m)}{watching}"
        if len(line) > width:
            line = f"{m.code}  {self._describe(m, short=True)}{watching}"
        return line

    def _describe(self, m: Any, short: bool = False) -> str:
        """A running match's players and score, in its game's words."""
        return words(m.game).describe(self.backend.game_titles.get(m.game, m.game), m.names, m.scores, short)

    # -- status ----------------------------------------------------------------

    #: The keys the status line names, each with its words: every one (the widest form), the
    #: chat's (when the lobby has one), and those a narrow line leaves out.
    KEYS: tuple[tuple[str, str], ...] = (
        ("↑↓ ⏎", N_("choose")), ("o", N_("online (challenge)")), ("c", N_("chat")), ("w", N_("watch")),
        ("h", N_("your matches")), ("l", N_("leaderboard")), ("s", N_("settings")), ("Tab", N_("next")),
        ("Esc", N_("cancel")), ("?", N_("rules")), ("^q", N_("quit")),
    )
    KEYS_MID_LEAVES = ("Tab",)  # (fits 120 columns)
    # (o: in Online's title; ↑↓: the Play menu's cursor shows them)
    KEYS_SHORT_LEAVES = ("o", "c", "Tab", "Esc")
    NAME_HELP = N_("Your name: at most 16 letters, digits, - _ . or spaces; Enter to go to the lobby.")

    @classmethod
    def keys_help(cls, *, chat: bool = False, leave: tuple[str, ...] = (), short: bool = False) -> str:
        """The status line's keys in the session's language, but those in ``leave`` (and the
        chat's, without one); ``short``: the narrow line's (no arrows, which the Play menu's
        cursor shows), each key's words in its short form where a language has one."""
        out = []
        for key, said in cls.KEYS:
            if key in leave or (key == "c" and not chat) or (short and key in cls.KEYS_SHORT_LEAVES):
                continue
            out.append(f"{key.removeprefix('↑↓ ') if short else key} {_(said)}")
        return "  ".join(out)

    @classmethod
    def keys_help_shortest(cls) -> str:
        """The narrow line's keys with the words' short forms (a language whose words for them
        are long: "h partides" for "h your matches")."""
        return "  ".join(f"{key.removeprefix('↑↓ ')} {short(said)}" for key, said in cls.KEYS
                         if key not in cls.KEYS_SHORT_LEAVES)

    def _status(self, text: str) -> None:
        self._status_text = text
        self._show_status()

    def show_refusal(self, text: str) -> None:
        """Say on the status line why something asked from elsewhere was refused (a lesson's match)."""
        self._error(text)

    def _error(self, text: str) -> None:
        self._error_text = text
        self._show_status()

    def _show_status(self) -> None:
        out = Text()
        status = getattr(self, "_status_text", "")
        error = getattr(self, "_error_text", "")
        if status:
            out.append(status + "\n")
        if error:
            out.append(error + "\n", style="bold red")
        helps = [self.keys_help(chat=False), self.keys_help(chat=False, leave=self.KEYS_MID_LEAVES)]
        if self.chat_room is not None:  # (c: also in Online's bottom line, where a narrow screen has room)
            helps = [self.keys_help(chat=True), self.keys_help(chat=True, leave=self.KEYS_MID_LEAVES), *helps]
        helps += [self.keys_help(short=True), self.keys_help_shortest()]
        fits = [k for k in helps if len(k) <= self.app.size.width - 2]
        keys = fits[0] if fits else helps[-1]
        out.append(keys if self.backend.named else _(self.NAME_HELP), style="dim")
        if out != self._status_shown:  # (as tall as its lines: a change lays it out)
            self._status_shown = out
            self.query_one("#status", Static).update(out)

    def _set_mode(self, mode: Mode) -> None:
        self._mode = mode
        code = self.query_one("#code-input", Input)
        if isinstance(mode, AskingCode):
            code.value = ""
            self._ask_code(mode.verb)
            code.add_class("shown")
            code.focus()
        elif code.has_class("shown"):
            code.remove_class("shown")
            code.value = ""
        ticker = self._ticker
        assert ticker is not None  # (made on mount, before any mode)
        if isinstance(mode, Queued | Challenging):
            ticker.resume()
            self.call_next(self._tick)
        else:
            ticker.pause()
            if isinstance(mode, Browsing):
                self._status("")

    def _ask_code(self, verb: str) -> None:
        """The code line's hint: a match's code to watch, or a room's to join."""
        self.query_one("#code-input", Input).placeholder = (_("match code (4 letters)") if verb == "watch"
                                                             else _("room code (4 letters)"))

    async def _tick(self) -> None:
        mode = self._mode
        if isinstance(mode, Challenging):
            self._challenge_status(mode.challenge)
        elif isinstance(mode, Queued):
            waited = time.monotonic() - mode.since
            status = await self.parts[mode.game].waiting(waited, offer_bot=waited >= self.backend.bot_offer_after)
            if self._mode is mode:  # (still queued once the part had its answer)
                self._status(status)

    # -- choices ---------------------------------------------------------------

    @on(Menu.Chosen, "#choices")
    async def _chosen(self, event: Menu.Chosen) -> None:
        if not self.backend.named:
            self.query_one("#name", Input).focus()
            return
        choice = event.item
        self._error("")
        if choice == "settings":  # (a wait for a match goes on meanwhile)
            self.action_settings()
            return
        if isinstance(self._mode, (*WAITING, PickingGame)):
            await self.action_cancel()
        game_item = self._game_item(choice)
        asked = game_item[0].choice(game_item[1]) if game_item is not None else None
        if game_item is not None and asked is not None:
            game = game_item[0].game
            if asked.kind == "quick":
                self._set_mode(Queued(game, time.monotonic()))
                self._quick(game)
            elif asked.kind == "room":
                self._room(game, asked.size, asked.time_control)
            elif asked.kind == "bot":
                await self._play_bot(asked.bot, game)
        elif choice == "join":
            self._set_mode(AskingCode("join"))
            self._status(_("Type the room code, then Enter (Esc: cancel)."))
        elif choice == "watch":
            self._set_mode(AskingCode("watch"))
            self._status(_("Type the match code, then Enter (Esc: cancel)."))
        elif choice == "leaderboard":
            self.action_leaderboard()
        elif choice.startswith("learn:"):
            learn = SCREENS[choice.split(":", 1)[1]].learn
            if learn is not None:
                learn(self.app, self.backend)

    @on(Menu.Chosen, "#matches")
    async def _watch_selected(self, event: Menu.Chosen) -> None:
        if not self.backend.named:
            return
        if event.item.startswith("match:"):
            if isinstance(self._mode, Queued | Hosting | Joined):
                await self.action_cancel()
            await self._use_code("watch", event.item.split(":", 1)[1])

    @on(Menu.Chosen, "#history")
    async def _replay_selected(self, event: Menu.Chosen) -> None:
        if not self.backend.named or not event.item.startswith("replay:"):
            return
        match_id = int(event.item.split(":", 1)[1])
        try:
            screen = await self.backend.replay_screen(match_id)
        except Exception as e:  # a ReplayError says why (e.g. a game that does not replay yet)
            self._error(W.refusal(e))
            return
        if isinstance(self._mode, Queued | Hosting | Joined):
            await self.action_cancel()
        self._error("")
        self.app.push_screen(screen)

    def action_focus_history(self) -> None:
        if isinstance(self.focused, Input):
            return
        self._lists()
        self.query_one("#history", Menu).focus()

    def action_leaderboard(self) -> None:
        if isinstance(self.focused, Input):
            return
        from tui.screens.leaderboard import LeaderboardScreen

        self.app.push_screen(LeaderboardScreen(self.backend))

    @on(Input.Submitted, "#code-input")
    async def _code_submitted(self, event: Input.Submitted) -> None:
        verb = self._mode.verb if isinstance(self._mode, AskingCode) else "join"
        self._set_mode(Browsing())
        self.query_one("#choices", Menu).focus()
        await self._use_code(verb, event.value)

    async def _use_code(self, verb: str, code: str) -> None:
        waits = verb == "join"
        try:
            part = self.part(await self.backend.room_game(code)) if waits else None
            if part is not None and part.room_waits:
                self._join_waiting(code.strip().upper(), part.game)
                return
            handles = await (self.backend.join_room(code) if verb == "join" else self.backend.watch(code))
        except Refused as e:
            self._error(W.refusal(e))
            return
        self._open_match(handles)

    async def _play_bot(self, bot: str, game: str) -> None:
        try:
            handles = await self.backend.play_bot(bot, game)
        except Refused as e:
            self._error(W.refusal(e))
            return
        self._open_match(handles)

    @work(exclusive=True, group="lobby-wait")
    async def _quick(self, game: str) -> None:
        try:
            handles = await self.backend.quick_match(game)
        except Refused as e:
            self._set_mode(Browsing())
            self._error(W.refusal(e))
            return
        self._set_mode(Browsing())
        self._open_match(handles)

    @work(exclusive=True, group="lobby-wait")
    async def _join_waiting(self, code: str, game: str) -> None:
        """Sit at a friend's room that waits to fill; it starts when full or when its owner says."""
        joined = Joined(code, game)
        self._set_mode(joined)
        await self._room_status()
        try:
            handles = await self.backend.join(code)
        except Refused as e:
            self._set_mode(Browsing())
            self._error(W.refusal(e))
            return
        except asyncio.CancelledError:
            if self._mode is not joined:
                raise  # this screen left the room
            # the room went away under us: its owner closed it
            self._set_mode(Browsing())
            self._error(_("Room %(code)s was closed by its owner.") % {"code": code})
            return
        self._set_mode(Browsing())
        self._open_match(handles)

    @work(exclusive=True, group="lobby-wait")
    async def _room(self, game: str, size: int, time_control: str = "default") -> None:
        try:
            room = await self.backend.create_room(game, size, time_control=time_control)
        except Refused as e:
            self._error(W.refusal(e))
            return
        self._set_mode(Hosting(room))
        await self._room_status()
        try:
            handles = await room.future
        except asyncio.CancelledError:
            return
        self._set_mode(Browsing())
        self._open_match(handles)

    async def _room_status(self) -> None:
        """The room being filled: its code, who sits there, what the keys do."""
        mode = self._mode
        if isinstance(mode, Joined):
            seated = await self.backend.seated(mode.code)
            if seated is None or self._mode is not mode:
                return
            names, size = seated
            self._status(self.parts[mode.game].joined_status(mode.code, tuple(names), size))
            return
        if not isinstance(mode, Hosting):
            return
        room = mode.room
        part = self.part(room.game)
        if part is None:
            return
        seated = await self.backend.seated(room.code)
        if self._mode is mode:
            self._status(part.room_status(room, self._ssh(f"join {room.code}"), tuple(seated[0]) if seated else ()))

    def _ssh(self, args: str) -> str:
        """The line a friend pastes to reach this server and do ``args``."""
        return self.backend.ssh_command(args)

    def _can_start_room(self) -> bool:
        """Is this player's room waiting, of a game whose rooms may start before they fill?"""
        mode = self._mode
        part = self.part(mode.room.game) if isinstance(mode, Hosting) else None
        return part is not None and part.starts_early

    async def action_start_room(self) -> None:
        if not self._can_start_room() or isinstance(self.focused, Input):
            return
        try:
            await self.backend.start_room()
        except Refused as e:
            self._error(W.refusal(e))

    async def action_cancel(self) -> None:
        mode = self._mode
        if isinstance(mode, Challenging):
            await self._asked(self.backend.withdraw_challenge(mode.challenge), None)
            return  # (the waiting worker ends and says so)
        if isinstance(mode, PickingGame):
            self._set_mode(Browsing())
            return
        self._set_mode(Browsing())
        if isinstance(mode, Queued | Joined):
            self.workers.cancel_group(self, "lobby-wait")
            await self._asked(self.backend.enter_lobby(), None)
        elif isinstance(mode, Hosting):
            self.workers.cancel_group(self, "lobby-wait")
            await self._asked(self.backend.close_room(), None)
        elif isinstance(mode, AskingCode):
            self.query_one("#choices", Menu).focus()

    async def action_bot_instead(self) -> None:
        mode = self._mode
        if not isinstance(mode, Queued) or time.monotonic() - mode.since < self.backend.bot_offer_after:
            return
        bot = self.parts[mode.game].bot_instead()
        await self.action_cancel()
        await self._play_bot(bot, mode.game)

    def action_focus_players(self) -> None:
        if isinstance(self.focused, Input):
            return
        self._lists()
        self.query_one("#players", Menu).focus()

    def action_focus_matches(self) -> None:
        if isinstance(self.focused, Input):
            return
        self._lists()
        self.query_one("#matches", Menu).focus()

    # -- chat ------------------------------------------------------------------

    def action_chat(self) -> None:
        """The chat in place of the lists (the Play menu stays), its input focused."""
        if self.chat_room is None or isinstance(self.focused, Input):
            return
        self.query_one("#side").add_class("-chat")
        self.query_one(ChatPanel).open()

    async def action_chat_phrase(self, phrase: str) -> None:
        if self.chat_room is not None and self.backend.named:
            await self.query_one(ChatPanel).send(phrase=phrase)

    @on(ChatPanel.Left)
    def _chat_left(self) -> None:
        self.query_one("#choices", Menu).focus()

    def _lists(self) -> None:
        """The lists back at the right, in place of the chat."""
        if self.chat_room is not None:
            self.query_one(ChatPanel).close()
            self.query_one("#side").remove_class("-chat")

    def _chat_unread(self, n: int) -> None:
        self.query_one("#players", Menu).set_title(CW.unread(n, "c"), subtitle=True)

    def _go_home(self) -> None:
        """Back to this lobby, closing every screen above it (the app's ``go_home``)."""
        app: Any = self.app  # (a VoltageApp; the screens know the app by its protocol only)
        app.go_home()

    def _open_match(self, handles: Handles) -> None:
        self._unlisten()
        self.app.push_screen(self.backend.match_screen(handles))
