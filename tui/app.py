"""The Voltage Textual app: one factory, no module-level state.

``make_app(backend, player_name=...)`` builds one app per person: locally for
``voltage play`` (a :class:`tui.ports.HomeBackend`: ``server.local.LocalBackend``), and
one per SSH session on the server (a :class:`tui.ports.LobbyBackend`, whose home screen
is the lobby).  The backend is handed in (``voltage/cli.py`` composes): the tui never
imports ``server``.  The app pushes
``backend.home_screen()`` on mount; ``?`` opens the rules from anywhere.  At a match's
end (:class:`~tui.screens.base.PlayScreen.Ended`) it opens the game's results screen,
found in the game registry (:mod:`tui.games.registry`): the shared screens the games
build on never name the games.

Ctrl+Q quits at once, except in a live match (a seat still playing, on any screen
above it too: rules, a question, the pass-the-keyboard screen), where it first asks
what the match screen says quitting costs (:meth:`~tui.screens.base.PlayScreen.quit_question`:
online the seat is kept for the grace period; offline the match is lost).

Output goes through a :class:`tui.frames.Shadow` (:class:`tui.textual_compat.ShadowedApp`):
each frame the compositor renders is written as the cells that changed since the last one,
not as the dirty regions' lines whole (the reasons and figures are in :mod:`tui.frames`).
Headless apps (tests, snapshots) never write, so they take Textual's path unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events
from textual.binding import Binding
from textual.screen import Screen

from tui import i18n
from tui.frames import Shadow
from tui.i18n import N_, _
from tui.pacing import DEFAULT, Pacing
from tui.textual_compat import (
    ShadowedApp,
    patch_content_strips,
    patch_dispatch,
    patch_parameter_counts,
    patch_style_cache,
    set_no_colour,
    without_overlays,
    write_to_terminal,
)

if TYPE_CHECKING:
    from tui.ports import Backend
    from tui.screens.base import PlayScreen

HERE = Path(__file__).resolve().parent

# The colour choices, as a player names them: a dark or a light theme, or no colour at
# all (what ``NO_COLOR`` asks for: no colour codes, only bold, dim and reverse).
COLOURS = ("dark", "light", "none")
COLOUR_WORDS = {"dark": N_("dark"), "light": N_("light"), "none": N_("no colour")}  # (worded where shown)
THEMES = {"dark": "textual-dark", "light": "textual-light"}


class VoltageApp(ShadowedApp[None]):
    TITLE = "Voltage"
    CSS_PATH = [HERE / "global.tcss"]
    BINDINGS = [
        Binding("question_mark", "rules", N_("rules"), key_display="?"),
        Binding("ctrl+q", "quit", N_("quit"), key_display="^q", priority=True),
    ]
    # No command palette: every key that works is in the key bar (the start screen toggles light/dark).
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, backend: Backend, *, player_name: str = "You", pacing: Pacing = DEFAULT) -> None:
        super().__init__()
        without_overlays(self)  # (no tooltip, no toasts: nothing here shows them)
        patch_parameter_counts()  # (these four: once per process)
        patch_dispatch()
        patch_style_cache()
        patch_content_strips()
        self.backend = backend
        self.player_name = player_name
        self.home: Screen | None = None
        self.pacing = pacing  # how long the visible moments last (tests pass a fast one)
        self.shadow = Shadow()  # what the terminal shows: frames are written as what changed
        self.speech = i18n.speech()  # the session's language, set around the app (None: on_load makes one)

    # The CSS variables of each theme, made once per process: Textual makes them for every app (the
    # colour system generated from the theme, about half a millisecond of each session's start).
    _CSS_VARIABLES: ClassVar[dict[tuple[str, type], tuple[Any, dict[str, str]]]] = {}

    def get_css_variables(self) -> dict[str, str]:
        """Textual's variables for the current theme, as the first app of the process with that theme
        had them (each app its own copy, as Textual gives it)."""
        theme = self.current_theme
        key = (theme.name, type(self))
        kept = VoltageApp._CSS_VARIABLES.get(key)
        if kept is None or kept[0] is not theme:  # (made for that very theme object, not one of its name)
            kept = VoltageApp._CSS_VARIABLES[key] = (theme, super().get_css_variables())
        variables = dict(kept[1])
        self.theme_variables = variables
        return variables

    # -- the "your turn" alert ------------------------------------------------

    #: Ring the bell and set the window's title when it becomes your turn (online play;
    #: the player can switch it off in the lobby, and the choice follows the key).
    turn_alerts = False
    TITLE_YOUR_TURN = N_("Voltage: your turn")

    def turn_alert(self, your_turn: bool) -> None:
        """It became your turn (a bell, and the window's title says so) or it is no longer
        (the title goes back).  The title is xterm's OSC 2, which terminals and tmux show."""
        if not self.turn_alerts:
            return
        title = _(self.TITLE_YOUR_TURN) if your_turn else self.TITLE
        write_to_terminal(self, ("\a" if your_turn else "") + f"\x1b]2;{title}\a")

    def chat_alert(self) -> None:
        """A chat line named this player (``@name``): the bell, when the "your turn" alert is on."""
        driver = self._driver
        if not self.turn_alerts or driver is None or self.is_headless:
            return
        driver.write("\a")

    # -- colours ---------------------------------------------------------------

    @property
    def colours(self) -> str:
        """The colour choice in force: "dark", "light" or "none"."""
        if self.no_color:
            return "none"
        return "dark" if self.current_theme.dark else "light"

    def set_colours(self, choice: str) -> None:
        """Dark, light, or no colour (the client's ``NO_COLOR``, or the player's choice).

        No colour is Textual's own NO_COLOR filter (colours stripped from every line,
        attributes kept), switched per app: on a server the process's environment is
        nobody's, each session brings its own."""
        if choice not in COLOURS:
            raise ValueError(f"no colour choice {choice!r}: choose from {', '.join(COLOURS)}")
        if choice == self.colours:
            return
        self.no_color = choice == "none"
        set_no_colour(self, self.no_color)
        if not self.no_color:
            self.theme = THEMES[choice]
        # Every cached line was drawn through the old filters: draw them all again.
        self.refresh_css(animate=False)
        for screen in self.screen_stack:
            screen.refresh(layout=True)
            for widget in screen.walk_children():
                widget.refresh()

    # -- the language -----------------------------------------------------------

    def on_load(self) -> None:
        """Before anything is made: the app's tasks word in the language of the context the app
        was made in (a session sets it around the app: :mod:`tui.i18n`); an app made without one
        (a test's) gets its own, so a change of language reaches all its tasks too."""
        if self.speech is None:
            self.speech = i18n.ensure()
        else:
            i18n.use(self.speech)

    @property
    def language(self) -> str:
        """The language the app words in: ``"en"``, ``"ca"`` or ``"es"``."""
        return self.speech.code if self.speech is not None else i18n.current()

    def set_language(self, code: str) -> None:
        """Word everything in ``code`` from now on (the settings screen): the session's language
        changes in place, each screen that words what it shows re-words it (its ``reword()``),
        and every widget draws again."""
        if code not in i18n.LANGUAGES or code == self.language:
            return
        if self.speech is not None:
            self.speech.set(code)
        else:
            i18n.switch(code)
        for screen in self.screen_stack:
            reword = getattr(screen, "reword", None)
            if reword is not None:
                reword()
            screen.refresh(layout=True)
            for widget in screen.walk_children():
                reword = getattr(widget, "reword", None)  # (a widget that words what it shows: the key bar)
                if reword is not None:
                    reword()
                widget.refresh(layout=True)
    async def on_event(self, event: events.Event) -> None:
        """A key or a paste goes nowhere while the screen shown is too small for the terminal,
        but for the keys its message offers (:meth:`tui.screens.base.SizedScreen.takes_key`)."""
        if isinstance(event, (events.Key, events.Paste)) and not event.is_forwarded:
            takes_key = getattr(self.screen, "takes_key", None)
            if takes_key is not None and not takes_key(event.key if isinstance(event, events.Key) else ""):
                return
        await super().on_event(event)

    def on_mount(self) -> None:
        self.home = self.backend.home_screen()
        self.push_screen(self.home)

    def action_rules(self) -> None:
        from tui.screens.rules import RulesScreen

        if not isinstance(self.screen, RulesScreen):
            self.push_screen(RulesScreen())

    async def action_quit(self) -> None:
        """Ctrl+Q: quit, asking first in a live match; Ctrl+Q on that question quits."""
        from tui.dialogs.confirm import QuitScreen

        if isinstance(self.screen, QuitScreen):
            self.screen.dismiss(True)
            return
        question = self.quit_question()
        if question is None:
            self.exit()
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(QuitScreen(question), done)

    def quit_question(self) -> str | None:
        """What quitting now would cost, asked of the topmost match screen (None: nothing)."""
        from tui.screens.base import PlayScreen

        for screen in reversed(self.screen_stack):
            if isinstance(screen, PlayScreen):
                return screen.quit_question()
        return None

    def on_play_screen_ended(self, message: PlayScreen.Ended) -> None:
        """A match is over: its game's results screen (the game registry's) over the match
        screen, which takes the answer (a rematch, home).  Once: a second ask, or one from
        a screen no longer shown, is let go."""
        from tui.games.registry import screens

        screen = message.screen
        if not screen.is_current:
            return
        results = screens(message.game).results(message.handles, message.backend, message.view, message.names)
        self.push_screen(results, screen.results_closed)

    def go_home(self) -> None:
        """Back to the home screen (start or lobby), closing everything above it."""
        stack = self.screen_stack
        if self.home is not None and self.home in stack:
            while self.screen is not self.home and len(self.screen_stack) > 1:
                self.pop_screen()
            return
        self.home = self.backend.home_screen()
        while len(self.screen_stack) > 1:
            self.pop_screen()
        self.push_screen(self.home)


def make_app(backend: Backend, *, player_name: str = "You", pacing: Pacing = DEFAULT) -> VoltageApp:
    """The app for one person, talking to matches through ``backend``, its moments as
    long as ``pacing`` says (:mod:`tui.pacing`)."""
    return VoltageApp(backend, player_name=player_name, pacing=pacing)
