"""The settings screen (from the lobby: ``s``, or its "Settings" line): colours, the
"your turn" alert, challenges, and the name.

Every choice takes effect at once (the handler awaits the backend, so the keys after it
wait their turn) and is kept where the backend keeps settings
(``save_setting``: for a key, in the store, so it follows the key to its next session;
for a guest, for this session only); the title says which.

- Language: English, Català, Español (left/right or Enter), each named in its own words; it
  applies at once (``app.set_language``: the screens re-word what they show) and wins, for a
  key, over the client's locale from its next session on (``save_setting("language")``).  Its
  line comes after the older ones, so theirs keep their places.
- Colours: dark, light or no colour (left/right or Enter).  When the client's
  environment decides (it sent ``NO_COLOR``: :meth:`colours_forced` of the backend
  says why), the line says so and offers no choice: no-color.org asks that a program
  honour it, and a player who set it did so on purpose.  The key's kept choice is
  left as it is for a session without ``NO_COLOR``.
- Your turn: the bell and the window's title when it becomes your turn, or no alert
  (``app.turn_alerts``, which the match screens read).
- Challenges: welcome or refused (``backend.set_challenges``).
- Name: Enter asks for the new one; it is claimed through the lobby's own rename
  (``backend.claim_name``), so its checks and the key's rename cooldown apply, and
  what it refuses ("a new name is possible in 53 minutes") is shown here, one line.  The
  cooldown, when it applies (a rename after a rename: a key's first name is free to
  change), is said as the box opens (``backend.rename_wait``).
- Linked browsers (a key's only): the browsers that play as this key on the web page
  (``ssh HOST link`` links one, ``unlink`` forgets them all), asked of the backend when the
  screen opens (``linked_browsers``, awaited: an edge asks its host).

The lobby screen's start (``apply_start_settings``) lives here too: what a session
starts with is what this screen chose last time.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Static

from tui import reach
from tui import words as W
from tui.app import COLOUR_WORDS, COLOURS
from tui.i18n import LANGUAGE_NAMES, LANGUAGES, N_, _, current, switch
from tui.ports import LobbyBackend, Refused
from tui.screens.base import SizedScreen, TooSmall
from tui.widgets.keybar import KeyBar
from tui.widgets.menu import Menu

COLOURS_DEFAULT = "dark"  # (an app without colour choices: a test's plain App)


async def apply_start_settings(app: App[Any], backend: LobbyBackend) -> None:
    """A session's start: the "your turn" alert (on unless switched off), and the colours:
    none when the client sent NO_COLOR, else the ones this player chose last time."""
    a: Any = app
    a.turn_alerts = (await backend.settings()).get("alerts", "on") == "on"
    choice = await backend.start_colours()
    if choice and hasattr(a, "set_colours"):
        try:
            a.set_colours(choice)
        except ValueError:  # a kept value this version does not know
            pass


class SettingsScreen(SizedScreen):
    """The player's settings, each a line: left/right or Enter changes it."""

    DEFAULT_CSS = """
    SettingsScreen { layout: vertical; }
    SettingsScreen #settings { height: 1fr; }
    SettingsScreen.-narrow #settings, SettingsScreen.-short #settings { display: none; }
    SettingsScreen.-narrow TooSmall, SettingsScreen.-short TooSmall { display: block; }
    SettingsScreen #settings-title { height: 1; background: $accent; color: $text; padding: 0 1; }
    SettingsScreen #settings-menu { height: auto; max-height: 1fr; border: round $panel-lighten-2; }
    SettingsScreen #settings-menu:focus { border: round $accent; }
    SettingsScreen #rename { display: none; width: 70; border: round $accent; }
    SettingsScreen #rename.shown { display: block; }
    SettingsScreen #settings-status { height: auto; min-height: 2; padding: 0 1; }
    SettingsScreen #settings-browsers { height: auto; padding: 0 1; color: $text-muted; }
    """
    SHOWN_BROWSERS = 5  # linked browsers listed (the rest counted)

    BINDINGS = [
        Binding("escape", "back", N_("back to the lobby"), key_display="Esc"),
    ]

    def __init__(self, backend: LobbyBackend) -> None:
        super().__init__()
        self.backend = backend
        self._status_text = ""
        self._error_text = ""
        # What the backend says (asked on mount: a host may answer it over a wire).
        self.refuses_challenges = False
        self.forced: str | None = None

    # -- layout ----------------------------------------------------------------

    @property
    def keeps(self) -> bool:
        """Are the choices kept for the key (else for this session only)?"""
        return bool(self.backend.identity)

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(id="settings"):
            yield Static(Text(W.settings_kept(self.keeps)), id="settings-title")
            yield Menu(self._items(), id="settings-menu")
            rename = Input(max_length=16, id="rename")
            rename.border_title = _("Your new name (Enter: take it; Esc: keep yours)")
            rename.cursor_blink = False
            yield rename
            yield Static("", id="settings-status")
            yield Static("", id="settings-browsers")
        yield KeyBar()

    async def on_mount(self) -> None:
        menu = self.query_one("#settings-menu", Menu)
        menu.border_title = _("←→ or Enter: change")
        menu.focus()
        self._show_status()
        if self.keeps:
            self.run_worker(self._list_browsers(), exclusive=True, group="browsers")
        elif reach.web():  # (a browser's guest: how to link a key, where a key's browsers are listed)
            self._link_help()
        await self._read()
        self._redraw()

    async def _read(self) -> None:
        """What the backend keeps: whether challenges are refused, why the colours are forced."""
        try:
            self.refuses_challenges = await self.backend.refuses_challenges()
        except Refused as e:
            self._error(W.refusal(e))
        self.forced = await self.backend.colours_forced()

    def _link_help(self) -> None:
        link = self.backend.ssh_command("link", tty=False)
        self.query_one("#settings-browsers", Static).update(Text(W.link_a_key(link)))

    async def _list_browsers(self) -> None:
        browsers = await self.backend.linked_browsers()
        link, unlink = self.backend.ssh_command("link", tty=False), self.backend.ssh_command("unlink", tty=False)
        shown = browsers[: self.SHOWN_BROWSERS]
        lines = [W.browsers_title(len(browsers), link, unlink)]
        lines += ["  " + W.browser_line(b.label, b.linked, b.last_seen) for b in shown]
        if len(browsers) > len(shown):
            lines.append("  " + W.more_browsers(len(browsers) - len(shown)))
        self.query_one("#settings-browsers", Static).update(Text("\n".join(lines)))

    # -- the lines ---------------------------------------------------------------

    def colours(self) -> str:
        return str(getattr(self.app, "colours", COLOURS_DEFAULT))

    def alerts_on(self) -> bool:
        return bool(getattr(self.app, "turn_alerts", False))

    def _items(self) -> list[tuple[str, Text]]:
        items: list[tuple[str, Text]] = []
        forced = self.forced
        choice = COLOUR_WORDS.get(self.colours())
        colours = Text(_("Colours: %(colours)s") % {"colours": _(choice) if choice else self.colours()})
        if forced:
            colours.append(f"  ({W.forced(forced)})", style="dim")
        else:
            colours.append("  ←→", style="dim")
        items.append(("colours", colours))
        alerts = Text(_("Your turn: %(alert)s") % {"alert": _("bell and title") if self.alerts_on() else _("no alert")})
        alerts.append("  ←→", style="dim")
        items.append(("alerts", alerts))
        open_ = not self.refuses_challenges
        challenges = Text(_("Challenges: %(answer)s") % {"answer": _("welcome") if open_ else _("refused")})
        challenges.append("  ←→", style="dim")
        items.append(("challenges", challenges))
        language = Text(_("Language: %(language)s") % {"language": LANGUAGE_NAMES[current()]})
        language.append("  ←→", style="dim")
        items.append(("language", language))
        head, _gap, tail = (_("Name: %(name)s") % {"name": "\0"}).partition("\0")
        name = Text(head)
        name.append(self.backend.name, "bold")  # (plain text: never markup)
        name.append(tail)
        name.append("  " + _("Enter: rename"), style="dim")
        items.append(("name", name))
        return items

    def _redraw(self) -> None:
        self.query_one("#settings-menu", Menu).set_items(self._items())

    # -- changing them -----------------------------------------------------------

    @on(Menu.Adjusted, "#settings-menu")
    async def _adjusted(self, event: Menu.Adjusted) -> None:
        await self._change(event.item, event.delta)

    @on(Menu.Chosen, "#settings-menu")
    async def _chosen(self, event: Menu.Chosen) -> None:
        if event.item == "name":
            await self._ask_name()
            return
        await self._change(event.item, 1)

    async def _change(self, item: str, delta: int) -> None:
        self._error("")
        if item == "colours":
            await self.change_colours(delta)
        elif item == "language":
            await self.change_language(delta)
        elif item == "alerts":
            await self.toggle_alerts()
        elif item == "challenges":
            try:
                await self.backend.set_challenges(self.refuses_challenges)
                self.refuses_challenges = await self.backend.refuses_challenges()
            except Refused as e:  # (a host that does not answer: the line stays as it was)
                self._error(W.refusal(e))
        else:
            return
        self._redraw()

    async def change_colours(self, delta: int) -> None:
        """Dark, light or no colour (kept for the key, where the backend keeps settings)."""
        app: Any = self.app
        forced = self.forced
        if forced:
            self._error(_("No colour: %(why)s. Connect without it to choose colours.") % {"why": W.forced(forced)})
            return
        if not hasattr(app, "set_colours"):
            return
        choice = COLOURS[(COLOURS.index(app.colours) + delta) % len(COLOURS)]
        app.set_colours(choice)
        await self.backend_save("colours", choice)

    async def change_language(self, delta: int) -> None:
        """The next language (kept for the key, where the backend keeps settings)."""
        code = LANGUAGES[(LANGUAGES.index(current()) + delta) % len(LANGUAGES)]
        set_language = getattr(self.app, "set_language", None)
        if set_language is not None:
            set_language(code)
        else:  # (a test's plain App)
            switch(code)
        await self.backend_save("language", code)

    def reword(self) -> None:
        """The language changed: the lines again, in its words, and the screen's own."""
        self._redraw()
        self.query_one("#settings-title", Static).update(Text(W.settings_kept(self.keeps)))
        self.query_one("#rename", Input).border_title = _("Your new name (Enter: take it; Esc: keep yours)")
        self.query_one("#settings-menu", Menu).border_title = _("←→ or Enter: change")
        if self.keeps:
            self.run_worker(self._list_browsers(), exclusive=True, group="browsers")
        elif reach.web():
            self._link_help()

    async def toggle_alerts(self) -> None:
        """The "your turn" bell and window title, on or off."""
        app: Any = self.app
        app.turn_alerts = not self.alerts_on()
        await self.backend_save("alerts", "on" if app.turn_alerts else "off")

    async def backend_save(self, key: str, value: str) -> None:
        await self.backend.save_setting(key, value)

    # -- the name ----------------------------------------------------------------

    async def _ask_name(self) -> None:
        rename = self.query_one("#rename", Input)
        rename.value = self.backend.name
        rename.add_class("shown")
        rename.focus()
        wait = W.rename_wait(float(await self.backend.rename_wait()))
        # the cooldown said before a name is typed, not only as the refusal of one
        self._status(_("You renamed your key less than an hour ago: %(wait)s (Esc: keep yours).") % {"wait": wait}
                     if wait else _("Type the new name, then Enter (Esc: keep yours)."))

    def _close_name(self) -> None:
        rename = self.query_one("#rename", Input)
        rename.remove_class("shown")
        self.query_one("#settings-menu", Menu).focus()

    @on(Input.Submitted, "#rename")
    async def _name_submitted(self, event: Input.Submitted) -> None:
        old = self.backend.name
        if event.value.strip() == old:
            self._close_name()
            self._status("")
            return
        try:
            name = await self.backend.claim_name(event.value)
        except Refused as e:
            self._status("")
            self._error(W.refusal(e))
            return
        if self.backend.stored_name:
            self.backend.stored_name = name  # the name the key goes by now (the lobby's name step shows it)
        self._close_name()
        self._error("")
        self._status((_("Renamed: your key goes by %(name)s now (it was %(old)s).") if self.keeps
                      else _("Renamed: you are %(name)s now (it was %(old)s).")) % {"name": name, "old": old})
        self._redraw()

    # -- status and leaving ------------------------------------------------------

    def _status(self, text: str) -> None:
        self._status_text = text
        self._show_status()

    def _error(self, text: str) -> None:
        self._error_text = text
        self._show_status()

    def _show_status(self) -> None:
        out = Text()
        if self._status_text:
            out.append(self._status_text + "\n")
        if self._error_text:
            out.append(self._error_text + "\n", style="bold red")
        self.query_one("#settings-status", Static).update(out)

    def action_back(self) -> None:
        rename = self.query_one("#rename", Input)
        if rename.has_class("shown"):
            self._close_name()
            self._status("")
            self._error("")
            return
        self.dismiss()
