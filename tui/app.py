"""The Voltage Textual app: one factory, no module-level state.

``make_app(backend, player_name=...)`` builds one app per person: locally for
``voltage play`` (a :class:`tui.ports.HomeBackend`: ``server.local.LocalBackend``), and
one per SSH session on the server (a :class:`tui.ports.LobbyBackend`, whose home screen
is the lobby).  The backend is handed in (``voltage/cli.py`` composes): the tui never
imports ``server``.  The app pushes
``backend.home_screen()`` on mount; ``?`` opens the rules from anywhere.

Ctrl+Q quits at once, except in a live match (a seat still playing, on any screen
above it too: rules, a question, the pass-the-keyboard screen), where it first asks
what the match screen says quitting costs (:meth:`~tui.screens.base.PlayScreen.quit_question`:
online the seat is kept for the grace period; offline the match is lost).

Output goes through a :class:`tui.frames.Shadow` (``_display``): each frame the
compositor renders is written as the cells that changed since the last one, not as
the dirty regions' lines whole (the reasons and figures are in :mod:`tui.frames`).
Headless apps (tests, snapshots) never write, so they take Textual's path unchanged.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from textual._compositor import CompositorUpdate
from textual.app import App
from textual.binding import Binding
from textual.filter import Monochrome, NoColor
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget

from tui.frames import Shadow
from tui.pacing import DEFAULT, Pacing

if TYPE_CHECKING:
    from rich.console import RenderableType

    from tui.ports import Backend

HERE = Path(__file__).resolve().parent

# The colour choices, as a player names them: a dark or a light theme, or no colour at
# all (what ``NO_COLOR`` asks for: no colour codes, only bold, dim and reverse).
COLOURS = ("dark", "light", "none")
COLOUR_WORDS = {"dark": "dark", "light": "light", "none": "no colour"}
THEMES = {"dark": "textual-dark", "light": "textual-light"}


class VoltageApp(App[None]):
    TITLE = "Voltage"
    CSS_PATH = [HERE / "global.tcss"]
    BINDINGS = [
        Binding("question_mark", "rules", "rules", key_display="?"),
        Binding("ctrl+q", "quit", "quit", key_display="^q", priority=True),
    ]
    # No command palette: every key that works is in the key bar (the start screen toggles light/dark).
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, backend: Backend, *, player_name: str = "You", pacing: Pacing = DEFAULT) -> None:
        super().__init__()
        self.backend = backend
        self.player_name = player_name
        self.home: Screen | None = None
        self.pacing = pacing  # how long the visible moments last (tests pass a fast one)
        self.shadow = Shadow()  # what the terminal shows: frames are written as what changed

    # -- output: only the cells that changed ----------------------------------

    def _display(self, screen: Screen, renderable: RenderableType | None) -> None:
        # Textual's App._display, for frames the shadow writes: the same sync markers and
        # flush; the cursor is left where the frame ends unless the app places it (an input).
        driver = self._driver
        if not (isinstance(renderable, CompositorUpdate) and self._writes_frames()) or driver is None:
            super()._display(screen, renderable)
            return
        try:
            text = self.shadow.diff(renderable, (self.size.width, self.size.height), self.console._color_system)
        except Exception as error:
            self.shadow.forget()
            self._handle_exception(error)
            self.post_display_hook()
            return
        if text is None:  # not an update the shadow knows: Textual writes it
            self.shadow.forget()
            super()._display(screen, renderable)
            return
        try:
            self._write_changes(text)
        finally:
            self.post_display_hook()

    def _write_changes(self, text: str) -> None:
        """Write ``text`` (what the shadow found changed) and put the cursor where the app
        wants it (an input's), as one synchronised update."""
        cursor = self.cursor_position
        if cursor.x or cursor.y:
            cursor = self.screen.outer_size.clamp_offset(cursor)
            text += self.shadow.park(cursor.x, cursor.y)
        driver = self._driver
        if not text or driver is None:
            return
        self._begin_update()
        try:
            driver.write(text)
        finally:
            self._end_update()
        driver.flush()

    def _writes_frames(self) -> bool:
        """Frames go through the shadow: a real terminal driver, running, not batching."""
        driver = self._driver
        return bool(
            not self._batch_count and self._running and not self._closed and not self.is_headless
            and driver is not None and not driver.is_inline
        )

    def paint_now(self, widget: Widget, region: Region) -> bool:
        """Write ``region`` (the widget's content coordinates) of ``widget`` to the terminal
        now, without a compositor frame; False when that cannot be known to be right
        (the caller refreshes as usual).

        For a change of a few cells that nothing else on the screen depends on, such as
        a clock's digits: Textual's refresh costs a timer, a message and a compositor
        pass over the screen's widgets, about ten times what the cells cost.  Right only
        while the widget is on the screen shown, placed (no layout pending) and in front
        of everything at ``region``; its lines go through its own styles and the app's
        line filters (``render_lines``), as in a frame."""
        if not self._writes_frames():
            return False
        screen = self.screen
        if widget.screen is not screen or screen._layout_required or widget._layout_required:
            return False
        visible = screen._compositor.visible_widgets
        placed = visible.get(widget)
        if placed is None:
            return False
        where, clip = placed
        own = region.translate(widget.content_offset)  # in the widget's own coordinates
        target = own.translate(where.offset).intersection(clip).intersection(where)
        if not target:
            return True
        for other, (other_where, other_clip) in visible.items():  # front to back
            if other is widget:
                break
            if other_where.intersection(other_clip).overlaps(target):
                return False  # something is drawn over it here
        widget._styles_cache.set_dirty(own)
        strips = widget.render_lines(target.translate((-where.x, -where.y)))
        rows = [(target.y + i, [(target.x, strip)]) for i, strip in enumerate(strips)]
        text = self.shadow.diff_rows(rows, (self.size.width, self.size.height), self.console._color_system)
        if text:
            self._write_changes(text)
        return True

    def forget_terminal(self) -> None:
        """What the terminal shows is unknown (the driver dropped frames): the next frame
        is the whole screen, written whole."""
        self.shadow.forget()
        if self._running and not self._closed and self.screen_stack:
            self.screen.refresh()

    # The pacing's fields, as attributes: kept for code written before :class:`Pacing`
    # (the SSH end-to-end tests set them on a server's app); setting one replaces the pacing.

    @property
    def flash_seconds(self) -> float:
        return self.pacing.flash_seconds

    @flash_seconds.setter
    def flash_seconds(self, value: float) -> None:
        self.pacing = replace(self.pacing, flash_seconds=value)

    @property
    def results_delay(self) -> float:
        return self.pacing.results_delay

    @results_delay.setter
    def results_delay(self, value: float) -> None:
        self.pacing = replace(self.pacing, results_delay=value)

    # -- the "your turn" alert ------------------------------------------------

    #: Ring the bell and set the window's title when it becomes your turn (online play;
    #: the player can switch it off in the lobby, and the choice follows the key).
    turn_alerts = False
    TITLE_YOUR_TURN = "Voltage: your turn"

    def turn_alert(self, your_turn: bool) -> None:
        """It became your turn (a bell, and the window's title says so) or it is no longer
        (the title goes back).  The title is xterm's OSC 2, which terminals and tmux show."""
        driver = self._driver
        if not self.turn_alerts or driver is None or self.is_headless:
            return
        title = self.TITLE_YOUR_TURN if your_turn else self.TITLE
        driver.write(("\a" if your_turn else "") + f"\x1b]2;{title}\a")

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
        self._filters = [f for f in self._filters if not isinstance(f, (NoColor, Monochrome))]
        self.no_color = choice == "none"
        if self.no_color:
            self._filters.append(NoColor())
        else:
            self.theme = THEMES[choice]
        # Every cached line was drawn through the old filters: draw them all again.
        self.refresh_css(animate=False)
        for screen in self.screen_stack:
            screen.refresh(layout=True)
            for widget in screen.walk_children():
                widget.refresh()

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
