"""The lobby (SSH play): quick match first, private rooms, bots, watching; and the
name-entry step before it.

Every name and code on these screens is shown as plain ``Text``, never as
markup, so what another player typed cannot style or escape anything.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option


class NameScreen(ModalScreen[str]):
    """Choose the name others see: prefilled from the SSH username, checked by the lobby."""

    DEFAULT_CSS = """
    NameScreen { align: center middle; }
    NameScreen > Vertical {
        width: 52; height: auto; padding: 1 2;
        border: round $accent; background: $surface;
    }
    NameScreen #name-error { color: $error; height: auto; }
    """

    def __init__(self, backend: Any) -> None:
        super().__init__()
        self.backend = backend

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Your name (at most 16 letters, digits, - _ . or spaces):")
            yield Input(value=self.backend.name_prefill, max_length=16, id="name")
            yield Static("", id="name-error")
            yield Static("Enter: go to the lobby", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    @on(Input.Submitted, "#name")
    def _submitted(self, event: Input.Submitted) -> None:
        try:
            name = self.backend.claim_name(event.value)
        except ValueError as e:
            self.query_one("#name-error", Static).update(Text(str(e)))
            return
        self.dismiss(name)


class LobbyScreen(Screen):
    """Players online, matches running, and the ways to play."""

    DEFAULT_CSS = """
    LobbyScreen { layout: vertical; }
    LobbyScreen #lobby-title { height: 1; background: $accent; color: $text; padding: 0 1; }
    LobbyScreen #lobby-body { height: 1fr; }
    LobbyScreen #choices { width: 1fr; min-width: 30; border: round $accent; }
    LobbyScreen #side { width: 1fr; }
    LobbyScreen #players { height: 1fr; border: round $panel-lighten-2; }
    LobbyScreen #matches { height: 1fr; border: round $panel-lighten-2; }
    LobbyScreen #code-input { display: none; }
    LobbyScreen #code-input.shown { display: block; }
    LobbyScreen #status { height: auto; min-height: 1; padding: 0 1; }
    LobbyScreen #error { height: auto; color: $error; padding: 0 1; }
    LobbyScreen #keys { height: 1; color: $text-muted; padding: 0 1; }
    """

    BINDINGS = [
        Binding("escape", "cancel", "Cancel", show=False),
        Binding("b", "bot_instead", "Play a bot instead", show=False),
        Binding("w", "focus_matches", "Watch", show=False),
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
        with Horizontal(id="lobby-body"):
            yield OptionList(*self._choices(), id="choices")
            with Vertical(id="side"):
                yield OptionList(id="players")
                yield OptionList(id="matches")
        yield Input(placeholder="room code (4 letters)", max_length=4, id="code-input")
        yield Static("", id="status")
        yield Static("", id="error")
        yield Static(Text("Enter: choose   Esc: cancel   w: matches   Tab: next pane"), id="keys")

    def _choices(self) -> list[Option]:
        opts: list[Option] = []
        for game in self.backend.games:
            title = self.backend.game_titles.get(game, game)
            opts.append(Option(Text(f"Quick match: {title}"), id=f"quick:{game}"))
        opts.append(Option(Text("Private room: create a code for a friend"), id="room"))
        opts.append(Option(Text("Join a friend's room (code)"), id="join"))
        for label, bot in self.backend.strengths():
            opts.append(Option(Text(f"Play a bot: {label}"), id=f"bot:{bot}"))
        opts.append(Option(Text("Watch a match (code)"), id="watch"))
        return opts

    def on_mount(self) -> None:
        self.query_one("#players", OptionList).border_title = "Online"
        self.query_one("#matches", OptionList).border_title = "Matches (Enter: watch)"
        self.query_one("#choices", OptionList).border_title = "Play"
        self.query_one("#choices", OptionList).focus()
        self._ticker = self.set_interval(1.0, self._tick, pause=True)
        if not self.backend.named:
            if self.backend.resumable():
                handles = self.backend.resume()
                if handles:
                    self._title()
                    self._open_match(handles)
                    return
            self.app.push_screen(NameScreen(self.backend), self._named)
        else:
            self._enter()

    def on_screen_resume(self) -> None:
        if self.backend.named and self._mode == "":
            self._enter()

    def on_screen_suspend(self) -> None:
        self._unlisten()

    def on_unmount(self) -> None:
        self._unlisten()

    def _unlisten(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _named(self, _name: str | None) -> None:
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

    def _title(self) -> None:
        self.query_one("#lobby-title", Static).update(Text(f"Voltage: lobby    you: {self.backend.name}"))

    # -- lists -----------------------------------------------------------------

    def _refresh_lists(self) -> None:
        if not self.is_attached:
            return
        snap = self.backend.snapshot()
        players = self.query_one("#players", OptionList)
        players.set_options(
            [Option(Text.assemble((p.name, "bold"), "  ", p.status)) for p in snap.players]
        )
        players.border_title = f"Online ({len(snap.players)})"
        matches = self.query_one("#matches", OptionList)
        highlighted = matches.highlighted
        matches.set_options(
            [
                Option(
                    Text(
                        f"{m.code}  {self.backend.game_titles.get(m.game, m.game)}: "
                        f"{' v '.join(m.names)}  {'-'.join(map(str, m.scores))}"
                        + (f"  ({m.spectators} watching)" if m.spectators else "")
                    ),
                    id=f"match:{m.code}",
                )
                for m in snap.matches
            ]
        )
        if snap.matches:
            matches.highlighted = min(highlighted or 0, len(snap.matches) - 1)
        matches.border_title = f"Matches ({len(snap.matches)}; Enter: watch)"

    # -- status ----------------------------------------------------------------

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(Text(text))

    def _error(self, text: str) -> None:
        self.query_one("#error", Static).update(Text(text))

    def _set_mode(self, mode: str) -> None:
        self._mode = mode
        code = self.query_one("#code-input", Input)
        if mode.startswith("code:"):
            code.value = ""
            code.add_class("shown")
            code.focus()
        else:
            code.remove_class("shown")
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

    @on(OptionList.OptionSelected, "#choices")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        choice = event.option_id or ""
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

    @on(OptionList.OptionSelected, "#matches")
    def _watch_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option_id and event.option_id.startswith("match:"):
            if self._mode in ("queue", "room"):
                self.action_cancel()
            self._use_code("watch", event.option_id.split(":", 1)[1])

    @on(Input.Submitted, "#code-input")
    def _code_submitted(self, event: Input.Submitted) -> None:
        verb = self._mode.split(":", 1)[1] if self._mode.startswith("code:") else "join"
        self._set_mode("")
        self.query_one("#choices", OptionList).focus()
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
            self.query_one("#choices", OptionList).focus()
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
        matches = self.query_one("#matches", OptionList)
        if matches.option_count and matches.highlighted is None:
            matches.highlighted = 0
        matches.focus()

    def _open_match(self, handles: list) -> None:
        self._unlisten()
        self.app.push_screen(self.backend.match_screen(handles))
