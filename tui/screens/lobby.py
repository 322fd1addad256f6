"""The lobby (SSH play): quick match first, private rooms, bots, watching; and the
name-entry step at its top (prefilled from the SSH username, checked by the lobby).

Every name and code on these screens is shown as plain ``Text``, never as
markup, so what another player typed cannot style or escape anything.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, Static


class Menu(Static, can_focus=True):
    """A light list of choices: up/down move, Enter or a click chooses.

    (Textual's OptionList does this too, at several times the cost of a first
    frame; on a server every session pays for its lobby.)
    """

    DEFAULT_CSS = """
    Menu { height: 1fr; padding: 0 1; }
    Menu:focus { border: round $accent-lighten-2; }
    """

    BINDINGS = [
        Binding("up", "move(-1)", show=False),
        Binding("down", "move(1)", show=False),
        Binding("home", "move(-1000)", show=False),
        Binding("end", "move(1000)", show=False),
        Binding("enter", "choose", show=False),
    ]

    class Chosen(Message):
        def __init__(self, menu: Menu, item: str) -> None:
            super().__init__()
            self.menu = menu
            self.item = item

        @property
        def control(self) -> Menu:
            return self.menu

    def __init__(self, items: list[tuple[str, Text]] | None = None, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[tuple[str, Text]] = list(items or ())
        self.index = 0
        self.empty_text = ""

    def on_mount(self) -> None:
        self._draw()

    def set_items(self, items: list[tuple[str, Text]]) -> None:
        current = self.items[self.index][0] if self.items else None
        self.items = list(items)
        ids = [i for i, _ in self.items]
        self.index = ids.index(current) if current in ids else min(self.index, max(0, len(ids) - 1))
        self._draw()

    def _draw(self) -> None:
        if not self.items:
            self.update(Text(self.empty_text, style="dim"))
            return
        out = Text(no_wrap=True, overflow="ellipsis")
        for n, (_item, label) in enumerate(self.items):
            if n:
                out.append("\n")
            if n == self.index:
                out.append("> ", style="bold")
                chosen = label.copy()
                chosen.stylize("bold reverse" if self.has_focus else "bold")
                out.append_text(chosen)
            else:
                out.append("  ")
                out.append_text(label)
        self.update(out)

    def watch_has_focus(self, _focus: bool) -> None:
        self._draw()

    def action_move(self, delta: int) -> None:
        if self.items:
            self.index = max(0, min(len(self.items) - 1, self.index + delta))
            self._draw()

    def action_choose(self) -> None:
        if self.items:
            self.post_message(self.Chosen(self, self.items[self.index][0]))

    def on_click(self, event: events.Click) -> None:
        line = event.y - self.gutter.top + self.scroll_offset.y
        if 0 <= line < len(self.items):
            self.index = line
            self._draw()
            self.action_choose()


class LobbyScreen(Screen):
    """Players online, matches running, and the ways to play."""

    DEFAULT_CSS = """
    LobbyScreen { layout: vertical; }
    LobbyScreen #lobby-title { height: 1; background: $accent; color: $text; padding: 0 1; }
    LobbyScreen #name { display: none; width: 70; border: round $accent; }
    LobbyScreen #name.shown { display: block; }
    LobbyScreen #lobby-body { height: 1fr; }
    LobbyScreen #choices { width: 1fr; min-width: 30; border: round $accent; }
    LobbyScreen #side { width: 1fr; }
    LobbyScreen #players { height: 1fr; border: round $panel-lighten-2; padding: 0 1; }
    LobbyScreen #matches { height: 1fr; border: round $panel-lighten-2; }
    LobbyScreen #history { height: 1fr; border: round $panel-lighten-2; }
    LobbyScreen #status { height: auto; min-height: 2; padding: 0 1; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("b", "bot_instead", "Play a bot instead", show=False),
        Binding("w", "focus_matches", "Watch", show=False),
        Binding("h", "focus_history", "Your matches", show=False),
        Binding("l", "leaderboard", "Leaderboard", show=False),
    ]

    def __init__(self, backend: Any) -> None:
        super().__init__()
        self.backend = backend
        self._unsubscribe = None
        self._waiting_since: float | None = None
        self._mode = ""  # "" | "queue" | "room" | "code:join" | "code:watch"
        self._ticker = None

    # -- layout ----------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(Text("Voltage: lobby"), id="lobby-title")
        name = Input(value=self.backend.name_prefill, max_length=16, id="name")
        name.border_title = "Your name (Enter to go)"
        name.cursor_blink = False  # a blinking cursor redraws twice a second, per session
        yield name
        with Horizontal(id="lobby-body"):
            yield Menu(self._choices(), id="choices")
            with Vertical(id="side"):
                yield Static(id="players")
                yield Menu(id="matches")
                yield Menu(id="history")
        yield Static("", id="status")

    def _choices(self) -> list[tuple[str, Text]]:
        opts: list[tuple[str, Text]] = []
        for game in self.backend.games:
            title = self.backend.game_titles.get(game, game)
            opts.append((f"quick:{game}", Text(f"Quick match: {title}")))
        opts.append(("room", Text("Private room: create a code for a friend")))
        opts.append(("join", Text("Join a friend's room (code)")))
        for label, bot in self.backend.strengths():
            opts.append((f"bot:{bot}", Text(f"Play a bot: {label}")))
        opts.append(("watch", Text("Watch a match (code)")))
        if hasattr(self.backend, "leaderboard"):
            opts.append(("leaderboard", Text("Leaderboard")))
        return opts

    def on_mount(self) -> None:
        self.query_one("#players", Static).border_title = "Online"
        self._refresh_lists()
        self.query_one("#matches", Menu).empty_text = "no match running"
        history = self.query_one("#history", Menu)
        history.border_title = "Your matches (h; Enter: replay)"
        history.empty_text = (
            "none finished yet" if getattr(self.backend, "identity", None)
            else "log in with an SSH key to keep your matches and a rating"
        )
        self.query_one("#choices", Menu).border_title = "Play"
        self.query_one("#choices", Menu).focus()
        self._ticker = self.set_interval(1.0, self._tick, pause=True)
        if not self.backend.named:
            if self.backend.resumable():
                handles = self.backend.resume()
                if handles:
                    self._title()
                    self._open_match(handles)
                    return
            self.query_one("#name").add_class("shown")
            self.query_one("#name", Input).focus()
            self._error("")
        else:
            self._enter()

    def on_screen_resume(self) -> None:
        # The resume event may arrive after this screen already pushed a match
        # (coming back to a seat): only a lobby really on screen is "in the lobby".
        if self.app.screen is self and self.backend.named and self._mode == "":
            self._enter()

    def on_screen_suspend(self) -> None:
        self._unlisten()

    def on_unmount(self) -> None:
        self._unlisten()

    def _unlisten(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    @on(Input.Submitted, "#name")
    def _name_submitted(self, event: Input.Submitted) -> None:
        try:
            self.backend.claim_name(event.value)
        except ValueError as e:
            self._error(str(e))
            return
        self._error("")
        self.query_one("#name").remove_class("shown")
        self.query_one("#choices", Menu).focus()
        self._named()

    def _named(self) -> None:
        self._enter()
        initial = self.backend.initial
        self.backend.initial = None
        if initial is not None:
            verb, code = initial
            self._use_code(verb, code)

    def _enter(self) -> None:
        self.backend.enter_lobby()
        self._set_mode("")
        self._title()
        if self._unsubscribe is None:
            self._unsubscribe = self.backend.subscribe(self._refresh_lists)
        self._refresh_lists()
        self._refresh_history()

    def _title(self) -> None:
        title = Text(f"Voltage: lobby    you: {self.backend.name}")
        ratings = getattr(self.backend, "ratings", None)
        for game, shown, games in ratings() if ratings is not None else ():
            title.append(f"    {game} {shown} ({games} rated)")
        self.query_one("#lobby-title", Static).update(title)

    def _refresh_history(self) -> None:
        """The player's own finished matches, newest first (read when the lobby shows)."""
        history = getattr(self.backend, "history", None)
        items = history() if history is not None else []
        self.query_one("#history", Menu).set_items([(f"replay:{mid}", Text(line)) for mid, line in items])

    # -- lists -----------------------------------------------------------------

    def _refresh_lists(self) -> None:
        if not self.is_attached:
            return
        snap = self.backend.snapshot()
        if snap == getattr(self, "_shown", None):
            return  # nothing this screen shows has changed
        self._shown = snap
        players = self.query_one("#players", Static)
        listing = Text()
        for i, p in enumerate(snap.players):
            if i:
                listing.append("\n")
            listing.append(p.name, "bold")
            listing.append("  " + p.status)
        players.update(listing)
        players.border_title = f"Online ({len(snap.players)})"
        matches = self.query_one("#matches", Menu)
        matches.set_items(
            [
                (
                    f"match:{m.code}",
                    Text(
                        f"{m.code}  {self.backend.game_titles.get(m.game, m.game)}: "
                        f"{' v '.join(m.names)}  {'-'.join(map(str, m.scores))}"
                        + (f"  ({m.spectators} watching)" if m.spectators else "")
                    ),
                )
                for m in snap.matches
            ]
        )
        matches.border_title = f"Matches ({len(snap.matches)}; Enter: watch)"

    # -- status ----------------------------------------------------------------

    KEYS_HELP = "↑↓ ⏎ choose  w watch  h your matches  l leaderboard  Tab next  Esc cancel"
    NAME_HELP = "Your name: at most 16 letters, digits, - _ . or spaces; Enter to go to the lobby."

    def _status(self, text: str) -> None:
        self._status_text = text
        self._show_status()

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
        out.append(self.KEYS_HELP if self.backend.named else self.NAME_HELP, style="dim")
        self.query_one("#status", Static).update(out)

    def _set_mode(self, mode: str) -> None:
        self._mode = mode
        code = self.query("#code-input")
        if mode.startswith("code:"):
            if not code:
                field = Input(placeholder="room code (4 letters)", max_length=4, id="code-input")
                self.mount(field, after=self.query_one("#lobby-body"))
                field.focus()
            else:
                code.first().value = ""
                code.first().focus()
        elif code:
            code.remove()
        if mode == "queue":
            self._waiting_since = time.monotonic()
            self._ticker.resume()
            self._tick()
        else:
            self._waiting_since = None
            self._ticker.pause()
            if mode == "":
                self._status("")

    def _tick(self) -> None:
        if self._waiting_since is None:
            return
        waited = int(time.monotonic() - self._waiting_since)
        text = f"Waiting for an opponent... {waited // 60}:{waited % 60:02d}   Esc: leave the queue"
        if waited >= self.backend.bot_offer_after:
            label = self._offer_bot()[0]
            text += f"\nNo one yet: press b to play a bot ({label}) instead, or keep waiting."
        self._status(text)

    def _offer_bot(self) -> tuple[str, str]:
        strengths = self.backend.strengths()
        for label, bot in strengths:
            if bot == "medium":
                return label, bot
        return strengths[0]

    # -- choices ---------------------------------------------------------------

    @on(Menu.Chosen, "#choices")
    def _chosen(self, event: Menu.Chosen) -> None:
        if not self.backend.named:
            self.query_one("#name", Input).focus()
            return
        choice = event.item
        self._error("")
        if self._mode in ("queue", "room"):
            self.action_cancel()
        if choice.startswith("quick:"):
            self._set_mode("queue")
            self._quick(choice.split(":", 1)[1])
        elif choice == "room":
            self._room()
        elif choice == "join":
            self._set_mode("code:join")
            self._status("Type the room code, then Enter (Esc: cancel).")
        elif choice == "watch":
            self._set_mode("code:watch")
            self._status("Type the match code, then Enter (Esc: cancel).")
        elif choice.startswith("bot:"):
            self._play_bot(choice.split(":", 1)[1])
        elif choice == "leaderboard":
            self.action_leaderboard()

    @on(Menu.Chosen, "#matches")
    def _watch_selected(self, event: Menu.Chosen) -> None:
        if not self.backend.named:
            return
        if event.item.startswith("match:"):
            if self._mode in ("queue", "room"):
                self.action_cancel()
            self._use_code("watch", event.item.split(":", 1)[1])

    @on(Menu.Chosen, "#history")
    def _replay_selected(self, event: Menu.Chosen) -> None:
        if not self.backend.named or not event.item.startswith("replay:"):
            return
        match_id = int(event.item.split(":", 1)[1])
        try:
            screen = self.backend.replay_screen(match_id)
        except Exception as e:  # a ReplayError says why (e.g. a game that does not replay yet)
            self._error(str(e))
            return
        if self._mode in ("queue", "room"):
            self.action_cancel()
        self._error("")
        self.app.push_screen(screen)

    def action_focus_history(self) -> None:
        if isinstance(self.focused, Input):
            return
        self.query_one("#history", Menu).focus()

    def action_leaderboard(self) -> None:
        if isinstance(self.focused, Input) or not hasattr(self.backend, "leaderboard"):
            return
        from .leaderboard import LeaderboardScreen

        self.app.push_screen(LeaderboardScreen(self.backend))

    @on(Input.Submitted, "#code-input")
    def _code_submitted(self, event: Input.Submitted) -> None:
        verb = self._mode.split(":", 1)[1] if self._mode.startswith("code:") else "join"
        self._set_mode("")
        self.query_one("#choices", Menu).focus()
        self._use_code(verb, event.value)

    def _use_code(self, verb: str, code: str) -> None:
        try:
            handles = self.backend.join_room(code) if verb == "join" else self.backend.watch(code)
        except ValueError as e:
            self._error(str(e))
            return
        self._open_match(handles)

    def _play_bot(self, bot: str) -> None:
        try:
            handles = self.backend.play_bot(bot)
        except ValueError as e:
            self._error(str(e))
            return
        self._open_match(handles)

    @work(exclusive=True, group="lobby-wait")
    async def _quick(self, game: str) -> None:
        try:
            handles = await self.backend.quick_match(game)
        except ValueError as e:
            self._set_mode("")
            self._error(str(e))
            return
        self._set_mode("")
        self._open_match(handles)

    @work(exclusive=True, group="lobby-wait")
    async def _room(self) -> None:
        try:
            room = self.backend.create_room()
        except ValueError as e:
            self._error(str(e))
            return
        self._set_mode("room")
        self._status(
            f"Room {room.code}: your friend picks 'Join a friend's room' and types {room.code},\n"
            f"or connects with: ssh -t HOST join {room.code}    Esc: close the room"
        )
        try:
            handles = await room.future
        except asyncio.CancelledError:
            return
        self._set_mode("")
        self._open_match(handles)

    def action_cancel(self) -> None:
        if self._mode == "queue":
            self.workers.cancel_group(self, "lobby-wait")
            self.backend.enter_lobby()
        elif self._mode == "room":
            self.workers.cancel_group(self, "lobby-wait")
            self.backend.close_room()
        elif self._mode.startswith("code:"):
            self.query_one("#choices", Menu).focus()
        self._set_mode("")

    def action_bot_instead(self) -> None:
        if self._mode != "queue" or self._waiting_since is None:
            return
        if time.monotonic() - self._waiting_since < self.backend.bot_offer_after:
            return
        bot = self._offer_bot()[1]
        self.action_cancel()
        self._play_bot(bot)

    def action_focus_matches(self) -> None:
        if isinstance(self.focused, Input):
            return
        self.query_one("#matches", Menu).focus()

    def _open_match(self, handles: list) -> None:
        self._unlisten()
        self.app.push_screen(self.backend.match_screen(handles))
