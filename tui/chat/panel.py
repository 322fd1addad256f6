"""The chat panel: the room's last lines, an input, and the quick phrases a key away.

A screen that has a chat (:class:`~tui.ports.ChatRoom`, from its backend) composes one
:class:`ChatPanel`, hidden until the player opens it; the panel never covers the board
(a match shows it in place of its log, the lobby in place of its lists).

- **Focus is explicit.**  Typing goes to the input only once it has the focus (the
  screen's chat key); the input takes every printable key, so no letter or digit
  reaches a game's bindings, and it keeps the arrows and Tab for itself.  Esc leaves it
  (the game's keys work again); the panel stays open until its screen closes it.
- **Lines are plain text.**  A line is drawn as a ``Text`` built from its parts, never
  markup: ``[bold]`` or ``[@click=app.quit]`` in a line is shown as typed (the server has
  already replaced control characters: :mod:`server.chat.text`).
- **Muting** is the reader's: ``/mute NAME`` (kept for the key by the server),
  ``/unmute NAME``, ``/muted``; a muted author's lines are not drawn.
- **Alerts**: a line naming ``@you`` rings the bell when the "your turn" alert is on.
- F2-F6 say the quick phrases (a guest may use them where free text is refused); Ctrl+T
  switches a player's line between the players' room and the spectators'.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, RichLog, Static

from tui import words as W
from tui.chat import words as CW
from tui.ports import ChatLine, ChatRoom, Refused

SHOWN = 200  # lines kept on screen


def names(me: str, text: str) -> bool:
    """Does ``text`` name ``@me`` (any case, a whole name)?"""
    return bool(me) and re.search(r"(?<![\w@])@" + re.escape(me) + r"(?!\w)", text, re.IGNORECASE) is not None


def phrase_bindings() -> list[Binding]:
    """The quick phrases' keys, for a screen that has a chat (none shown in its key bar)."""
    return [Binding(k, f"chat_phrase('{p}')", CW.PHRASE_WORDS[p], show=False)
            for k, p in zip(CW.PHRASE_KEYS, CW.PHRASES, strict=True)]


class ChatInput(Input):
    """The panel's input: Esc leaves it; the arrows scroll the lines (never a game's)."""

    BINDINGS = [
        Binding("escape", "leave", show=False),
        Binding("up", "scroll(-3)", show=False),
        Binding("down", "scroll(3)", show=False),
        Binding("pageup", "scroll(-10)", show=False),
        Binding("pagedown", "scroll(10)", show=False),
        Binding("tab", "leave", show=False),  # (as Esc: a match's chat key takes the player back)
        Binding("ctrl+t", "switch_room", show=False),
    ]

    def action_leave(self) -> None:
        self.post_message(ChatPanel.Left())

    def action_scroll(self, rows: int) -> None:
        panel = self.parent
        if isinstance(panel, ChatPanel):
            panel.scroll_lines(rows)

    def action_switch_room(self) -> None:
        panel = self.parent
        if isinstance(panel, ChatPanel):
            panel.switch_room()


class ChatPanel(Vertical):
    DEFAULT_CSS = """
    ChatPanel { height: 1fr; display: none; border-top: solid $foreground 30%; border-title-align: left; }
    ChatPanel.-open { display: block; }
    ChatPanel #chat-lines { height: 1fr; background: $surface 0%; scrollbar-size-vertical: 0; }
    ChatPanel #chat-input { height: 1; border: none; padding: 0; background: $panel; }
    ChatPanel #chat-input:focus { border: none; background: $accent 30%; }
    ChatPanel #chat-hint { height: auto; color: $text-muted; }
    """

    class Left(Message):
        """The player left the input (Esc): the screen takes the focus back."""

    def __init__(self, room: ChatRoom, *, id: str = "chat", on_unread: Callable[[int], None] | None = None) -> None:
        super().__init__(id=id)
        self.room = room
        self.target = room.rooms[0]
        self.lines: list[ChatLine] = []
        self.muted: dict[str, str] = {}
        self.unread = 0
        self._seen: set[tuple[Any, ...]] = set()
        self._unlisten: Callable[[], None] | None = None
        self._on_unread = on_unread

    def compose(self) -> ComposeResult:
        log = RichLog(id="chat-lines", wrap=True, markup=False, highlight=False, max_lines=SHOWN, auto_scroll=True,
                      min_width=1)
        log.can_focus = False
        yield log
        entry = ChatInput(max_length=400, id="chat-input", placeholder=self._placeholder())
        entry.can_focus = False  # (until opened: a screen's first focus must never land here)
        yield entry
        yield Static(Text(CW.phrases_hint()), id="chat-hint")

    def reword(self) -> None:
        """The session's language changed: the panel's own words again (a line keeps its words)."""
        self.border_title = CW.title(self.room.free_text)
        self.query_one(ChatInput).placeholder = self._placeholder()
        self.query_one("#chat-hint", Static).update(Text(CW.phrases_hint(wide=self.size.width >= 60)))
        self._redraw()  # (a quick phrase is worded in the reader's language)

    def on_mount(self) -> None:
        self.border_title = CW.title(self.room.free_text)
        self.query_one(ChatInput).cursor_blink = False
        self._unlisten = self.room.listen(self._heard)
        self.reload()

    def on_unmount(self) -> None:
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None

    # -- opening and closing ----------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @property
    def typing(self) -> bool:
        return self.query_one(ChatInput).has_focus

    def open(self, focus: bool = True) -> None:
        self.add_class("-open")
        self.unread = 0
        self._told_unread()
        entry = self.query_one(ChatInput)
        entry.can_focus = True
        if focus:
            entry.focus()

    def close(self) -> None:
        self.remove_class("-open")
        entry = self.query_one(ChatInput)
        if entry.has_focus:
            self.screen.set_focus(None)
        entry.can_focus = False

    # -- the lines --------------------------------------------------------------

    def reload(self) -> None:
        """Read the room's lines afresh (at start; a finished match shows both rooms), in
        the panel's own queue (no worker: a worker's task and its context hold each other,
        and a server frees an ended session's app by reference counting alone)."""
        self.call_later(self._reload)

    async def _reload(self) -> None:
        try:
            self.muted = await self.room.mutes()
        except Refused:
            pass
        try:
            lines = await self.room.lines()
        except Refused as e:
            self.say_local(W.refusal(e))
            return
        known = {self._key(line) for line in self.lines}
        for line in lines:
            if self._key(line) not in known:
                self.lines.append(line)
        self.lines.sort(key=lambda line: (line.at, line.id))
        self._seen = {self._key(line) for line in self.lines}
        self._redraw()

    @staticmethod
    def _key(line: ChatLine) -> tuple[Any, ...]:
        return (line.id,) if line.id else (line.at, line.who, line.text, line.phrase)

    def _heard(self, line: ChatLine) -> None:
        if not self.is_attached:
            return
        self.add(line, alert=True)

    def add(self, line: ChatLine, *, alert: bool = False) -> None:
        key = self._key(line)
        if key in self._seen:
            return
        self._seen.add(key)
        self.lines.append(line)
        del self.lines[:-SHOWN]
        if line.who in self.muted:
            return
        self.query_one("#chat-lines", RichLog).write(self._line_text(line))
        if not self.is_open:
            self.unread += 1
            self._told_unread()
        if alert and line.author != self.room.me and names(self.room.me, CW.text(line)):
            alarm = getattr(self.app, "chat_alert", None)
            if alarm is not None:
                alarm()

    def _told_unread(self) -> None:
        if self._on_unread is not None:
            self._on_unread(self.unread)

    def _line_text(self, line: ChatLine) -> Text:
        t = Text(no_wrap=False)
        t.append(time.strftime("%H:%M ", time.localtime(line.at)) if line.at else "", style="dim")
        if line.room != self.room.rooms[0] and line.room != "lobby":
            t.append(f"({CW.room(line.room)}) ", style="italic")
        t.append(line.author, style="bold")
        t.append(": ")
        t.append(CW.text(line), style="italic" if line.phrase else "")
        return t

    def on_resize(self) -> None:
        self._redraw()  # (wrapped again at the new width)
        self.query_one("#chat-hint", Static).update(Text(CW.phrases_hint(wide=self.size.width >= 60)))

    def _redraw(self) -> None:
        log = self.query_one("#chat-lines", RichLog)
        log.clear()
        for line in self.lines:
            if line.who not in self.muted:
                log.write(self._line_text(line))

    def say_local(self, words: str) -> None:
        """A line of the panel's own (a refusal, a mute's answer): never sent, never kept."""
        self.query_one("#chat-lines", RichLog).write(Text(words, style="dim italic"))

    def scroll_lines(self, rows: int) -> None:
        log = self.query_one("#chat-lines", RichLog)
        log.scroll_relative(y=rows, animate=False)

    # -- writing ----------------------------------------------------------------

    def _placeholder(self) -> str:
        rooms = self.room.rooms
        other = next((r for r in rooms if r != self.target), None)
        return CW.placeholder(self.target, self.room.free_text, other)

    def switch_room(self) -> None:
        rooms = self.room.rooms
        if len(rooms) > 1:
            self.target = rooms[(rooms.index(self.target) + 1) % len(rooms)]
            self.query_one(ChatInput).placeholder = self._placeholder()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value
        event.input.value = ""
        if not text.strip():
            return
        if text.startswith("/"):
            await self._command(text)
            return
        await self.send(text)

    async def send(self, text: str = "", phrase: str = "") -> None:
        try:
            line = await self.room.say(text, phrase=phrase, room=self.target)
        except Refused as e:
            self.say_local(W.refusal(e))
            return
        self.add(line)

    async def _command(self, text: str) -> None:
        verb, _, arg = text[1:].strip().partition(" ")
        verb, arg = verb.lower(), arg.strip()
        try:
            if verb in ("mute", "unmute") and arg:
                who = await self.room.mute(arg, verb == "mute")
                if verb == "mute":
                    self.muted[who] = arg
                else:
                    self.muted.pop(who, None)
                self._redraw()
                self.say_local(CW.muted(arg) if verb == "mute" else CW.unmuted(arg))
            elif verb == "muted":
                self.say_local(CW.mutes(sorted(self.muted.values(), key=str.lower)))
            else:
                self.say_local(CW.usage())
        except Refused as e:
            self.say_local(W.refusal(e))


class MatchChat:
    """A match screen's chat (both games'): its panel, shown in place of the screen's log
    (``log``: that widget), the chat key (Tab: open and type; Tab or Esc in the input:
    back to the game, the panel staying; Tab again with the panel open and the game's
    keys active: the log back), the quick phrases' keys, and a finished match's second
    room.  ``room`` None (a local match, a replay): nothing of it shows."""

    def __init__(self, backend: Any, handles: Any) -> None:
        make = getattr(backend, "match_chat", None)
        self.room: ChatRoom | None = make(handles) if make is not None and len(handles) == 1 else None
        self.panel: ChatPanel | None = None
        self.log: Any = None
        self._title: Any = None
        self._over = False

    def compose(self) -> ComposeResult:
        if self.room is not None:
            self.panel = ChatPanel(self.room, on_unread=self._unread)
            yield self.panel

    def mount(self, log: Any) -> None:
        self.log = log
        self._title = log.border_title  # (the log's own title comes back once the lines are read)

    def _unread(self, n: int) -> None:
        if self.log is not None:
            self.log.border_title = " · ".join(t for t in (self._title, CW.unread(n, "tab")) if t) if n else self._title

    def toggle(self) -> None:
        panel = self.panel
        if panel is None:
            return
        if not panel.is_open:
            panel.open()
            if self.log is not None:
                self.log.display = False
        elif panel.typing:
            panel.screen.set_focus(None)
        else:
            panel.close()
            if self.log is not None:
                self.log.display = True

    def left(self) -> None:
        """Esc or Tab in the input: the game's keys again, the panel still open."""
        if self.panel is not None:
            self.panel.screen.set_focus(None)

    async def phrase(self, pid: str) -> None:
        if self.panel is not None:
            await self.panel.send(phrase=pid)

    def seen(self, over: bool) -> None:
        """The match as last seen: once it is over, both rooms are read afresh (everyone who
        was there sees both)."""
        if over and not self._over and self.panel is not None:
            self._over = True
            self.panel.reload()
