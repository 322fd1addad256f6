"""What every full screen of the game shares: the minimum terminal size and its message.

While the terminal is below the minimum only the message shows, and only the keys it
offers work (``?`` and quit: :meth:`SizedScreen.takes_key`, asked by the app before a key
goes anywhere): a key typed then never reaches a hidden widget (a name box, a menu).
The widget with the focus keeps it, in effect: the focus is taken away while the screen
is too small (so a hidden input never swallows ``?``) and given back, to the widget that
had it or the one the screen asked for meanwhile, once the terminal is large enough.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget

from tui.i18n import _
from tui.textual_compat import PresetScreen

if TYPE_CHECKING:
    from tui.ports import Backend

MIN_WIDTH = 80
MIN_HEIGHT = 24
WIDE = 110  # from here on, roomier cards and words
TALL = 34


class TooSmall(Widget):
    """Shown instead of a broken board when the terminal is below the minimum."""

    #: The keys it offers (the only ones that work meanwhile): the rules and quit.
    KEYS = frozenset({"question_mark", "ctrl+q"})

    DEFAULT_CSS = """
    TooSmall { display: none; width: 1fr; height: 1fr; content-align: center middle; }
    """

    def render(self) -> Text:
        w, h = self.app.size
        t = Text(justify="center")
        t.append("VOLTAGE\n\n", style="bold reverse")
        t.append(_("This terminal is %(width)d columns by %(height)d rows.") % {"width": w, "height": h} + "\n",
                 style="bold")
        t.append(_("Voltage needs at least %(width)d columns by %(height)d rows:") % {
            "width": MIN_WIDTH, "height": MIN_HEIGHT} + "\n")
        t.append(_("please enlarge the window (or make the font smaller).") + "\n\n")
        t.append(_("? rules   ctrl+q quit"), style="dim")
        return t


class SizedScreen(PresetScreen):
    """A screen that says how large the terminal must be when it is too small.

    Breakpoint classes: ``-narrow``/``-short`` (below the minimum: only the message
    shows), ``-wide`` and ``-tall`` (room for larger cards and words), set before the
    screen is first styled (:class:`~tui.textual_compat.PresetScreen`).
    """

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (MIN_WIDTH, "-fits-w"), (WIDE, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (MIN_HEIGHT, "-fits-h"), (TALL, "-tall")]

    _kept_focus: Widget | None = None  # the focus to give back once the terminal is large enough

    @property
    def too_small(self) -> bool:
        w, h = self.app.size
        return w < MIN_WIDTH or h < MIN_HEIGHT

    def takes_key(self, key: str) -> bool:
        """Does ``key`` go anywhere now?  While too small, only the keys the message offers."""
        return not self.too_small or key in TooSmall.KEYS

    def set_focus(self, widget: Widget | None, *args: Any, **kwargs: Any) -> None:
        """Textual's, except that while too small nothing takes the focus: the widget asked
        for gets it once the terminal is large enough."""
        if widget is not None and self.too_small:
            if self.is_current:  # (on a screen below, it is a hidden widget's focus moving on)
                self._kept_focus = widget
            widget = None
        super().set_focus(widget, *args, **kwargs)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        if not self.too_small:
            self._kept_focus = event.widget

    def on_resize(self) -> None:
        if self.too_small:
            super().set_focus(None)  # before the hidden widget's own blur moves it to a sibling
        else:
            self._give_focus_back()

    def on_screen_resume(self) -> None:
        if not self.too_small:
            self._give_focus_back()

    def _give_focus_back(self) -> None:
        kept = self._kept_focus
        if self.focused is None and kept is not None and kept.is_attached and kept.screen is self:
            self.set_focus(kept)


def quit_question(backend: Backend | None, *, hotseat: bool = False) -> str:
    """What Ctrl+Q in a live match asks: quitting's real cost, in one question.

    Online (``backend.online``) the lobby keeps (``backend.grace_seconds``) a dropped seat for its grace period
    and then hands it to a bot, except a guest's (no key: it cannot prove it is back),
    which a bot takes at once (``backend.guest``).  Offline nothing is saved: the match is lost.  Asking is
    the choice made for "never lose an offline match silently", rather than saving
    matches to resume: a local match is short, and a player who quits a game expects
    it to end, just not by a stray key.
    """
    if backend is not None and backend.online:
        if getattr(backend, "guest", False):
            return _("Quit? The match goes on without you: as a guest you cannot come back, so a bot takes your "
                     "seat now.")
        grace = getattr(backend, "grace_seconds", None)
        if isinstance(grace, (int, float)):
            return _("Quit? The match goes on: your seat waits %(seconds)s s for you to reconnect, then a bot "
                     "plays it.") % {"seconds": f"{grace:.0f}"}
        return _("Quit? The match goes on: your seat waits a while for you to reconnect, then a bot plays it.")
    if hotseat:
        return _("Quit? The hot-seat match is not saved: quitting loses it.")
    return _("Quit? The match is not saved: quitting loses it.")


class PlayScreen(SizedScreen):
    """What both games' match screens share: leaving for home, the question Ctrl+Q asks
    in a live match, and the match's end: :class:`Ended`, on which whoever composes the
    screens (the app, through the game registry) opens its game's results screen, and
    what the results' answer does (a rematch replaces this screen with a new one)."""

    class Ended(Message):
        """The match shown is over and its results are due (after the pause, or at once
        on a key).  The screen does not know its game's results screen: the app finds it
        (:mod:`tui.games.registry`) and pushes it over ``screen``, whose
        :meth:`~PlayScreen.results_closed` takes the answer."""

        def __init__(self, screen: PlayScreen, handles: list[Any], backend: Any, view: Any,
                     names: tuple[str, ...]) -> None:
            super().__init__()
            self.screen = screen
            self.handles = handles
            self.backend = backend
            self.view = view
            self.names = names

        @property
        def game(self) -> str:
            """The game's id (the registries' key)."""
            return str(self.handles[0].game)

        @property
        def control(self) -> PlayScreen:
            return self.screen

    #: Whether the match's end opens the results screen (a replay's last step does not).
    SHOWS_RESULTS = True

    #: The keys that stay the whole match: the key bar keeps them at its right end.
    STEADY_KEYS: tuple[str, ...] = ("resign",)

    @property
    def playing(self) -> bool:
        """This screen plays a seat in a match still going on (not watching, not a replay)."""
        return False

    def quit_question(self) -> str | None:
        """The question before quitting the app from here, or None: nothing would be lost."""
        if not self.SHOWS_RESULTS or not self.playing:
            return None
        return quit_question(self.backend, hotseat=len(self.handles) > 1)  # (a playing screen has both)

    handles: list[Any]  # the seat handles (a game's match screen sets them)
    backend: Any
    view: Any
    names: tuple[str, ...]

    def rematch_screen(self, handles: Any) -> Screen:
        raise NotImplementedError

    def action_leave(self) -> None:
        go_home = getattr(self.app, "go_home", None)
        if go_home is not None:
            go_home()
        else:  # pragma: no cover - an app without a home screen
            self.app.pop_screen()

    def action_results(self) -> None:
        self.show_results()

    _results_timer: Any = None

    def results_after(self, delay: float) -> None:
        """Open the results ``delay`` seconds from now, so the last move is seen first;
        any key before then opens them at once (see :meth:`on_key`)."""
        if delay > 0:
            self._results_timer = self.set_timer(delay, self._results_due)
        else:  # a zero timer is not allowed: run it after the next refresh
            self.call_after_refresh(self._results_due)

    def _results_due(self) -> None:
        self._results_timer = None
        self.show_results()

    def on_key(self, event: Any) -> None:
        if self._results_timer is not None:  # the match is over: a key means "show me"
            self._results_timer.stop()
            event.stop()
            event.prevent_default()
            self._results_due()

    def show_results(self) -> None:
        """Ask for the results (:class:`Ended`), if this screen is the one shown."""
        if self.is_current:
            self.post_message(self.Ended(self, self.handles, self.backend, self.view, self.names))

    def results_closed(self, result: tuple[str, Any] | None) -> None:
        """The results screen's answer: ``("rematch", handles)`` replaces this screen with
        the new match's, ``("home", None)`` goes home; None stays here."""
        if result is None:
            return
        what, value = result
        if what == "rematch" and value:
            self.app.switch_screen(self.rematch_screen(value))
        elif what == "home":
            self.action_leave()
