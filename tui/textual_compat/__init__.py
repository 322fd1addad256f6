"""Everything that reaches into Textual's private modules and attributes, or patches Textual, in one place.

The rest of the code calls the names below, never a private name of Textual's.  Each piece was
written for one Textual (:data:`WRITTEN_FOR`, the version pyproject pins and the SVG snapshots
record) and applies only there; on another version it backs off to Textual's own code, with one
warning line per process naming them all (:mod:`tui.textual_compat.gate`; ``VOLTAGE_TEXTUAL_COMPAT``
switches pieces off for measuring, or forces them on).  Backing off draws the same screens: what it
costs is speed and memory, as below.  ``make textual-latest`` runs the suite on the newest Textual
and says which pieces back off and what breaks.

All of them off (``VOLTAGE_TEXTUAL_COMPAT=off``, ``benchmarks/render.py`` at 80x24, on a busy
machine): an update 1,065 -> 5,649 bytes per screen, a keypress 932 -> 5,708, a clock's second 25 ->
313 bytes and 0.66 -> 2.80 ms of CPU; the CPU per update and keypress about the same (within the
machine's noise, up to a third more).  What each piece buys, and what backing it off costs:

- ``frames`` (:class:`ShadowedApp`, ``App._display``): a frame is written as the cells that changed,
  not the dirty regions' lines whole (:mod:`tui.frames`): at 80x24 an update 5,606 -> ~1,120 bytes
  per screen, a keypress 5,708 -> ~1,050, a clock's second ~2,700 -> ~160 bytes; CPU about the same.
  Off: Textual writes every dirty line whole, about five times the bytes.
- ``paint-now`` (:meth:`ShadowedApp.paint_now`): a clock's digits are written at once, without a
  timer, a message and a compositor pass over the screen (about ten times what the cells cost);
  :meth:`ShadowedApp.paint_chars` writes them in the styles the terminal shows there, with no row
  rendered or compared (3,000 ticks of one screen in memory: 188-219 -> 122-164 us a tick, three
  alternating pairs), and where the digits go is kept on the widget for as long as the screen's map is
  the same, not found again each second by a walk of the screen (130-173 -> 87-115 us, three pairs).
  Off (and with ``frames`` off): the widget refreshes as any other.
- ``direct-rows`` (:meth:`ShadowedApp.paint_soon`): the rows a painted widget found changed are written
  together with the others of the same turn of the event loop (a keypress's, an update's) once its
  handler has returned, without the screen's update timer, idle messages and a compositor pass; a
  region is refreshed for Textual's frame instead while a layout, scroll or style update is pending on
  the screen, or something is drawn over it.  At 80x24 an update 7.9 -> 3.6 ms of CPU per screen, a
  keypress 7.0 -> 4.1 (``benchmarks/render.py``, a busy machine).  Off: every change is a frame.
- ``row-renders`` (:class:`RowCompositor`, ``Compositor._get_renders``): a partial update renders
  only its rows of the widgets it crosses, not every line of every visible widget (a clock's tick:
  the top bar's line and one row beside it, not eleven widgets whole).  Off: Textual's renders.
- ``covered-rows`` (:class:`RowCompositor`, with ``row-renders``): a widget's rows that the widgets in
  front of it draw over whole are not rendered (the compositor keeps the front one's cells anyway):
  the containers under the panels and the screen under them all.  A session's first frame renders
  51 lines for the start screen's 24 rows (79 before), 62 for a match's (92); its Python calls
  84,100 -> 75,500, an arrival among 20 in the lobby 118,700 -> 104,100
  (``benchmarks/session_start.py --calls``).  Off: every line of every widget the frame crosses.
- ``plain-lines`` (:mod:`tui.textual_compat.lines`): painted widgets hand over their strips, filtered
  once when a row is made, instead of a copy through the styles cache filtered every frame (the
  filters' 1,024-style cache thrashed with a hundred apps: load.py's CPU per action 26.9 -> 23.2 ms;
  the log's renders 53 -> 8 ms in render.py's run).  Off: every line through the styles cache.
- ``first-style`` (:class:`PresetScreen`): a new screen is styled once, as it mounts (a lone
  player's name prompt 51 -> 47 ms).  Off: its first resize and resume restyle it again.
- ``one-layout`` (:class:`PresetScreen`, :class:`ShadowedApp`): a screen is laid out again only when
  its size changed or a layout was asked for since its last (Textual laid it out again on each Resize:
  its own first layout sends it one, the driver's first says the size the app started at, and each
  screen's Resize laid every screen under it out too); a layout's new sizes ask for no second layout
  and repaint (Textual's ``_size_updated(layout=False)``, as after a scroll); nothing is rendered
  while the app batches (the start: its frame was thrown away), the frame after is whole; the focus
  moving repaints the two widgets, not the screen.  A session's first frame: 13 -> 5 layout passes,
  2 -> 1 whole render, 120,000 -> 94,000 Python calls; an arrival among 100 in the lobby 175,000 ->
  127,000 calls (``benchmarks/session_start.py --calls``).  Off: Textual's passes and renders.
- ``prompt-update`` (:class:`PresetScreen`): a screen's change after a quiet spell is drawn as soon
  as the app has handled every message on its way, not on the next tick of Textual's update timer
  (up to 1/60 s later, with nothing to do meanwhile); faster changes still wait for the timer.  A
  session's first frame: the 10-13 ms it sat waiting are gone (``benchmarks/session_start.py``: wall
  = CPU; a lone ``ssh`` player's name prompt 85-91 -> 74-80 ms), for 0.6 % more Python calls and
  the same single frame.  Off: every change waits for the timer.
- ``title-rows`` (:func:`set_border_title`): a border title set to what it was is nothing, a new one
  repaints its row (:meth:`tui.widgets.menu.Menu.set_title`), not the widget whole: the lobby's
  Online title counts the players, so every arrival made every lobby screen render both lists.
  An arrival among 100: 14.8 -> 4.2 list renders, 158,000 -> 127,000 Python calls.  Off: Textual's
  setter (the widget drawn whole, changed or not).
- ``style-cache`` (:mod:`tui.textual_compat.styles`): a node's rules are found once per process for
  its path (each node's class, id, classes and the pseudo-classes its rules look at) and the rule sets
  (shared by the apps of one theme), not once per session: a session's first frame styles its thirty
  nodes from what the first session found (``Stylesheet.apply`` 4.4 -> 2.6 s of a 60-start profile;
  a start among 100 in the lobby 89,000 -> 84,000 Python calls, an arrival 127,000 -> 121,000).
  Off: every node matched against every rule, every session.
- ``strips`` (:mod:`tui.textual_compat.strips`): strips do not cache themselves (each such strip was
  a reference cycle: 60,000 objects a second for the collector with 10 sessions, 95 % of what a full
  collection found) and make their seven caches only when they store a result (29 % of a session's
  tracked objects).  Off: all that garbage goes to the cyclic collector again.
- ``dismantle`` (:mod:`tui.textual_compat.dismantle`): an ended app's cycles are broken by hand, so
  it is freed by reference counts though frozen (7,845 cyclic objects per session before, 163
  after), which lets ``server/gcpolicy.py`` freeze survivors and never run a full collection.  Off:
  the collector policy stands down too and CPython's own collector runs, with its full-collection
  pauses (65 ms to over a second with 50 sessions, stopping every session).
- ``input-parser`` (:class:`SessionParser`): the parser's key cache dies with its session.  Off:
  Textual's class-wide cache keeps up to 1,024 ended sessions' apps alive (~0.5-0.8 MB each).
- ``escape-deadline`` (:func:`escape_deadline`): a lone ESC becomes a key when the parser's delay
  is over.  Off: every session's parser is ticked every 0.1 s, as Textual's own driver does.
- ``method-caches`` (:func:`forget_session_caches`): two method caches keyed by widgets are
  cleared at a session's end.  Off: they keep the last ~100 ended sessions' caches (~0.4 MB each).
- ``shared-css`` (:func:`share_css`): parsed CSS shared by every app of the process.  Off: each
  session parses the app's CSS again as it starts.
- ``param-counts`` (:func:`patch_parameter_counts`, :mod:`tui.textual_compat.callbacks`): a callback's
  parameters are counted once per function's code, not by ``inspect.signature`` on each call of a
  callable made afresh (a signal's partials, a closure per key).  Off: ~3 % more CPU per keypress.
- ``dispatch-plans`` (:func:`patch_dispatch`, :mod:`tui.textual_compat.dispatch`): the handlers of a
  message are found once per receiver class, handler name and message class, not by walking the
  MRO for each message (what depends on the message, a prevented default and ``@on`` selectors, is
  still looked at per message).  Off: ~4 % more CPU per keypress.
- ``content-strips`` (:func:`patch_content_strips`, :mod:`tui.textual_compat.content_strips`): a
  widget's content is rendered to lines once per process for the same words, size and styles, not
  once per session (450 of a first frame's 492 renders had been made by an earlier session).  Off:
  every session renders its headings, menus and help again.
- ``theme-tokens`` (:func:`share_css`): a stylesheet is given its theme's variables tokenized as the
  last one with the same variables had them (168 variables, ~0.8 ms per session).  Off: each app
  tokenizes them again.
- ``no-overlays`` (:func:`without_overlays`, :mod:`tui.textual_compat.overlays`): the screens get
  no tooltip and no toast rack, which nothing here shows (a session's start made four such widgets:
  6 % of its first frame's Python calls).  Off: they are made, and stay hidden.
- ``known-size`` (:func:`content_size`): a painted widget's size (its content's) is kept with the entry
  of the screen's map it was read from, and read again only when the map has another entry for it (a
  layout makes new entries): Textual's ``Widget.size`` walks up to the screen and looks the widget up
  in the map each time, and every repaint and every show asks it (6 % of a keypress's CPU, py-spy
  on ``render.py``).
  Off: Textual's ``Widget.size``.

Reads and settings with no public way, made as found on any version (switching them off would
change what a player sees, which backing off must not): an app's terminal, to ring the bell and set
the window's title (:func:`write_to_terminal`); its line filters, for the colour-less choice
(:func:`set_no_colour`); whether a message pump has closed (:func:`is_closed`); that a session's app
leaves the process's ``sys.stdout``/``sys.stderr`` alone (:func:`keep_process_streams`: else each app
points them at itself while it runs, and apps ending out of order leave them at an ended app, where
the server's own prints vanish); the app and loop a
driver is given, for local play's keys in order (:func:`ordered_driver_class`); and Textual's xterm
parser itself, without which no session reads a key.  (A driver's own use of the attributes
``Driver.__init__`` sets for it, as ``server``'s SSH driver makes, is the interface Textual gives
drivers, and stays with the driver.)  :mod:`tui.textual_compat.probe` says what each piece would miss
on the Textual installed.
"""

from __future__ import annotations

from tui.textual_compat.callbacks import patch_parameter_counts
from tui.textual_compat.content_strips import forget_content_strips, patch_content_strips
from tui.textual_compat.dismantle import dismantle, dismantle_removed, track_nodes
from tui.textual_compat.dispatch import patch_dispatch
from tui.textual_compat.drivers import ordered_driver_class
from tui.textual_compat.frames import ShadowedApp, is_closed, set_no_colour, update_rows, write_to_terminal
from tui.textual_compat.gate import PIECES, WRITTEN_FOR, backed_off, enabled, installed_version
from tui.textual_compat.lines import content_size, filter_lines, filters_for_rows, forget_drawn_lines, plain_lines
from tui.textual_compat.overlays import without_overlays
from tui.textual_compat.screens import PresetScreen, RowCompositor, install_row_renders
from tui.textual_compat.session import (
    SessionParser,
    SharedParseCache,
    escape_deadline,
    forget_session_caches,
    input_parser,
    keep_process_streams,
    share_css,
)
from tui.textual_compat.strips import patch_textual_strips, unpatch_textual_strips
from tui.textual_compat.styles import forget_styles, patch_style_cache
from tui.textual_compat.titles import set_border_title

__all__ = [
    "PIECES",
    "WRITTEN_FOR",
    "PresetScreen",
    "RowCompositor",
    "SessionParser",
    "ShadowedApp",
    "SharedParseCache",
    "backed_off",
    "content_size",
    "dismantle",
    "dismantle_removed",
    "enabled",
    "escape_deadline",
    "filter_lines",
    "forget_drawn_lines",
    "forget_session_caches",
    "forget_styles",
    "input_parser",
    "install_row_renders",
    "installed_version",
    "is_closed",
    "keep_process_streams",
    "ordered_driver_class",
    "patch_dispatch",
    "patch_parameter_counts",
    "patch_style_cache",
    "patch_textual_strips",
    "plain_lines",
    "filters_for_rows",
    "forget_content_strips",
    "patch_content_strips",
    "set_border_title",
    "set_no_colour",
    "share_css",
    "track_nodes",
    "unpatch_textual_strips",
    "update_rows",
    "without_overlays",
    "write_to_terminal",
]
