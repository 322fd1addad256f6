"""The app's output: frames written as the cells that changed, and a widget's rows painted at once.

:class:`ShadowedApp` overrides ``App._display`` (Textual's one place that writes a frame) so that a
compositor update goes through the app's :class:`tui.frames.Shadow`, which writes only what changed
since the last frame; :meth:`ShadowedApp.paint_now` writes a widget's changed rows without a frame.
:func:`update_rows` reads the compositor's private update classes for the shadow.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from textual import events, messages
from textual.app import App
from textual.filter import Monochrome, NoColor
from textual.geometry import Region

from tui.textual_compat.gate import enabled, private

if TYPE_CHECKING:
    from rich.console import RenderableType
    from textual.screen import Screen
    from textual.strip import Strip
    from textual.widget import Widget

    from tui.frames import Shadow

ReturnType = TypeVar("ReturnType")

# Per line of the terminal: its pieces, each a column and a strip.
Rows = Iterable[tuple[int, Iterable[tuple[int, "Strip"]]]]

_CompositorUpdate: Any = private("textual._compositor", "CompositorUpdate")
_ChopsUpdate: Any = private("textual._compositor", "ChopsUpdate")
_LayoutUpdate: Any = private("textual._compositor", "LayoutUpdate")
_MAP_CHANGES = (messages.Layout, messages.UpdateScroll)  # what a screen's queue may hold that moves its widgets


def update_rows(update: object, height: int) -> Rows | None:
    """The rows a compositor update writes (``ChopsUpdate``: the dirty spans; ``LayoutUpdate``: a
    region whole), or None for an update of another kind."""
    if _ChopsUpdate is not None and isinstance(update, _ChopsUpdate):
        return _chop_rows(update, height)
    if _LayoutUpdate is not None and isinstance(update, _LayoutUpdate):
        return _layout_rows(update, update.region.x, update.region.y, height)
    return None


def _chop_rows(update: Any, height: int) -> Iterator[tuple[int, list[tuple[int, Strip]]]]:
    # Exactly the cells Textual's ChopsUpdate.render_segments writes: per span, each
    # chop that reaches into it, from the chop's start to the span's end.
    chops = update.chops
    chop_ends = update.chop_ends
    for y, x1, x2 in update.spans:
        if y >= height:
            continue
        pieces = []
        for end, (x, strip) in zip(chop_ends[y], chops[y].items(), strict=False):
            if strip is None or x > x2 or end <= x1:
                continue
            if end > x2:
                if x2 <= x:
                    continue
                strip = strip.crop(0, x2 - x)
            pieces.append((x, strip))
        yield y, pieces


def _layout_rows(update: Any, x0: int, y0: int, height: int) -> Iterator[tuple[int, list[tuple[int, Strip]]]]:
    for y, line in enumerate(update.strips, y0):
        if y >= height:
            break
        pieces = []
        x = x0
        for strip in line:
            pieces.append((x, strip))
            x += strip.cell_length
        yield y, pieces


class ShadowedApp(App[ReturnType]):
    """Textual's App writing its frames through ``self.shadow`` (a :class:`tui.frames.Shadow`,
    which the subclass makes): pieces ``frames`` and ``paint-now``."""

    shadow: Shadow

    def _display(self, screen: Screen, renderable: RenderableType | None) -> None:
        # Textual's App._display, for frames the shadow writes: the same sync markers and
        # flush; the cursor is left where the frame ends unless the app places it (an input).
        if not (_CompositorUpdate is not None and isinstance(renderable, _CompositorUpdate) and self._writes_frames()):
            super()._display(screen, renderable)
            return
        try:
            rows = update_rows(renderable, self.size.height)
            text = None if rows is None else self.shadow.diff_rows(
                rows, (self.size.width, self.size.height), self.console._color_system)
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
        """Frames go through the shadow: the piece applies, a real terminal driver, running, not batching."""
        driver = self._driver
        return bool(
            not self._batch_count and self._running and not self._closed and not self.is_headless
            and driver is not None and not driver.is_inline and enabled("frames")
        )

    # -- the app's start: one layout, one frame (piece one-layout) -------------------------------

    def get_default_screen(self) -> Screen:
        """The screen under every other (Textual's bare one), laid out once per size as they are."""
        if not enabled("one-layout"):
            return super().get_default_screen()
        from tui.textual_compat.screens import PresetScreen

        return PresetScreen(id="_default")

    async def _on_resize(self, event: events.Resize) -> None:
        # The driver's first Resize says the size Textual started the app at (it read it from the
        # driver): Textual would send every screen that size again, each laid out again.  A Resize
        # to the size the app has is let go when the app writes its own frames (a driver that asks
        # for a whole frame again first forgets the terminal: :meth:`forget_terminal` repaints).
        if self._size is not None and event.size == self._size and self._writes_frames() and enabled("one-layout"):
            event.prevent_default()
            event.stop()

    def _end_batch(self) -> None:
        super()._end_batch()
        if not self._batch_count and self._running and enabled("one-layout"):
            # A screen that skipped its frames in the batch (PresetScreen) draws them now.
            for screen in self.screen_stack[-1:]:
                if screen._repaint_required:
                    screen.check_idle()

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
        if not self._writes_frames() or not enabled("paint-now") or not _settled(self.screen):
            return False
        rows = self._rows_now(widget, region)
        if rows is None:
            return False
        self._write_rows(rows)
        return True

    def paint_soon(self, widget: Widget, region: Region) -> bool:
        """Write ``region`` of ``widget`` (as :meth:`paint_now`) with every other region asked for in
        this turn of the event loop, in one write, once the handler that asked has returned; False
        when the app does not write frames itself (the caller refreshes as usual).

        What a keypress or a match update changes is a few rows of painted widgets, which they
        know (:meth:`tui.widgets.lines.LineWidget.repaint`): written so, they cost no screen
        update timer, no idle messages and no compositor pass over the screen (a third of a
        frame's CPU).  A region that cannot be written so when the turn ends (a layout pending,
        another screen shown, something drawn over it) is refreshed then, for Textual's next frame."""
        if not self._writes_frames() or not enabled("direct-rows"):
            return False
        queue = self.__dict__.setdefault("_paint_queue", {})
        if not queue:
            asyncio.get_running_loop().call_soon(self._flush_paints)
        queue.setdefault(widget, set()).add(region)
        return True

    @property
    def painting_soon(self) -> bool:
        """Whether regions wait to be written (:meth:`paint_soon`): the app has not drawn all it was asked."""
        return bool(self.__dict__.get("_paint_queue"))

    def _flush_paints(self) -> None:
        queue: dict[Widget, set[Region]] = self.__dict__.pop("_paint_queue", {})
        writes = self._writes_frames()
        rows: dict[int, list[tuple[int, Strip]]] = {}
        try:
            if writes and queue and not _settled(self.screen):
                writes = False
            for widget, regions in queue.items():
                for region in sorted(regions):
                    got = self._rows_now(widget, region) if writes else None
                    if got is None:
                        if widget.is_attached:
                            widget.refresh(region)
                        continue
                    for y, pieces in got:
                        rows.setdefault(y, []).extend(pieces)
            if rows:
                self._write_rows(sorted(rows.items()))
        except Exception as error:  # a loop callback: the app handles it as it would a frame's
            self.shadow.forget()
            self._handle_exception(error)

    def paint_chars(self, widget: Widget, x: int, y: int, chars: str) -> bool:
        """Write ``chars`` at (``x``, ``y``) of ``widget``'s content now, each in the style its cell has on
        the terminal: for characters that change in a style that does not, a clock's digits.  False when
        that cannot be known to be right (the caller paints as usual: :meth:`paint_now`).

        :meth:`paint_now` renders the widget's rows and compares them with the terminal's; a tick that
        changes four digits needs neither: the terminal's picture (the shadow) has their styles.  The
        widget's lines must already hold the new characters (its next frame draws them, the same)."""
        if not chars.isascii() or not chars.isprintable() or not self._writes_frames() or not enabled("paint-now"):
            return False
        if self.screen._scroll_required:
            return False
        # Nothing pending elsewhere on the screen matters here, as it does to paint_now (:func:`_settled`):
        # the map is the one the terminal's picture was drawn with until the next frame, which redraws
        # whatever moves (the shadow knows these cells were written), and no line of the widget is rendered.
        placed = self._placed(widget, Region(x, y, len(chars), 1), keep=True)
        if placed is None:
            return False
        own, target, _where = placed
        if target.width != len(chars) or target.height != 1:
            return False  # clipped
        text = self.shadow.put(target.x, target.y, chars, (self.size.width, self.size.height))
        if text is None:
            return False
        widget._styles_cache.set_dirty(own)
        if text:
            self._write_changes(text)
        return True

    def _rows_now(self, widget: Widget, region: Region) -> list[tuple[int, list[tuple[int, Strip]]]] | None:
        """``region`` of ``widget`` as rows of the screen, each its pieces (a column and a strip), made
        now; None when what a frame would draw there cannot be known to be the widget's lines."""
        placed = self._placed(widget, region)
        if placed is None:
            return None
        own, target, where = placed
        if not target:
            return []
        widget._styles_cache.set_dirty(own)
        strips = widget.render_lines(target.translate((-where.x, -where.y)))
        return [(target.y + i, [(target.x, strip)]) for i, strip in enumerate(strips)]

    def _placed(
        self, widget: Widget, region: Region, *, keep: bool = False
    ) -> tuple[Region, Region, Region] | None:
        """Where ``region`` of ``widget``'s content is: in the widget's own coordinates, on the screen
        (cut to what shows), and the widget's place; None when a frame would not draw the widget's lines
        there (not on the screen shown, a layout to come, something in front of it there).

        ``keep``: the answer is kept on the widget for as long as the screen's map is the same object (Textual
        makes a new one whenever anything is laid out or scrolled again), for a region asked for again and
        again (a clock's digits, every second), not found by a walk of the widgets in front of it each time."""
        screen = self.screen
        if screen._layout_required or widget._layout_required:
            return None
        visible = screen._compositor.visible_widgets
        if keep:
            known = widget.__dict__.get("_placed_in")  # (the map, the region, the answer)
            if known is not None and known[0] is visible and known[1] == region:
                return known[2]
        # Where the widget is on the screen shown, its content's offset and what is drawn in front of
        # it: found once per map (a walk up to its screen and over the screen's widgets), not for every
        # region asked of it (each run of changed rows of each painted widget, every keypress).  The map
        # is the screen's own: a widget in it is on that screen.
        front = widget.__dict__.get("_front_of")  # (the map, its place, its content's offset, what is over it)
        if front is None or front[0] is not visible:
            placed = visible.get(widget)
            if placed is None or widget.screen is not screen:
                return None
            over = []
            for other, (other_where, other_clip) in visible.items():  # front to back
                if other is widget:
                    break
                drawn = other_where.intersection(other_clip)
                if drawn:
                    over.append(drawn)
            front = widget.__dict__["_front_of"] = (visible, placed, widget.content_offset, over)
        where, clip = front[1]
        own = region.translate(front[2])  # in the widget's own coordinates
        target = own.translate(where.offset).intersection(clip).intersection(where)
        if target and any(drawn.overlaps(target) for drawn in front[3]):
            return None  # something is drawn over it here
        if keep:
            widget.__dict__["_placed_in"] = (visible, region, (own, target, where))
        return own, target, where

    def _write_rows(self, rows: Rows) -> None:
        """Write ``rows`` (screen rows of pieces) where they differ from what the terminal shows."""
        text = self.shadow.diff_rows(rows, (self.size.width, self.size.height), self.console._color_system,
                                     painted=True)
        if text:
            self._write_changes(text)

    def forget_terminal(self) -> None:
        """What the terminal shows is unknown (the driver dropped frames): the next frame
        is the whole screen, written whole."""
        self.shadow.forget()
        if self.is_running and not is_closed(self) and self.screen_stack:
            self.screen.refresh()


def _settled(screen: Screen) -> bool:
    """Whether the screen's map is the one its next frame will use: no layout or scroll asked of it
    (a widget's request travels as a message), no node with a layout, scroll or style update to come."""
    if screen._layout_required or screen._scroll_required:
        return False
    queued: Iterable[object] = screen._message_queue.values
    if any(isinstance(message, _MAP_CHANGES) for message in queued):
        return False
    stack = list(screen._nodes)
    while stack:
        node = stack.pop()
        if node._layout_required or node._scroll_required or node._refresh_styles_required:
            return False
        stack.extend(node._nodes)
    return True


# -- reads and settings with no public way (on every version, as found) -----------------------------


def is_closed(node: object) -> bool:
    """Whether a message pump (an app, a widget) has closed: its end, for an app."""
    return bool(getattr(node, "_closed", False))


def write_to_terminal(app: App[Any], text: str) -> bool:
    """Write ``text`` (an escape sequence: a bell, a window title) to ``app``'s terminal;
    False where there is none (headless, not running)."""
    driver = getattr(app, "_driver", None)
    if driver is None or app.is_headless:
        return False
    driver.write(text)
    return True


def set_no_colour(app: App[Any], on: bool) -> bool:
    """Textual's NO_COLOR filter switched on or off for ``app`` alone (Textual reads ``NO_COLOR``
    once, from the process's environment).  False where this Textual keeps no list of filters."""
    filters = getattr(app, "_filters", None)
    if not isinstance(filters, list):
        return False
    filters = [f for f in filters if not isinstance(f, (NoColor, Monochrome))]
    if on:
        filters.append(NoColor())
    app._filters = filters
    return True
