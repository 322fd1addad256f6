"""Frames written as the cells that changed (:mod:`tui.frames`) show the same picture.

Two apps of a two-human match run on the SSH driver over in-memory channels, each
channel feeding a terminal emulator (pyte).  Each app also feeds every frame Textual
rendered, as Textual writes it (the dirty regions' lines whole), into a second
emulator.  After every write the two pictures must be the same, cell for cell
(character, colours, attributes), over a random run of match updates and keys.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
from collections.abc import AsyncIterator
from typing import Any

import pyte
import pytest
from rich.segment import Segment
from rich.style import Style
from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate
from textual.geometry import Region
from textual.strip import Strip

from engine.errors import IllegalActionError
from engine.voltage import rules as V
from server.host.voltage import Match, Seat
from server.session.driver import OutputLimits, TerminalChannel, run_app
from tests.support.compat import needs
from tests.support.wait import until
from tests.tui.helpers import FixedBackend
from tui import textual_compat
from tui.app import VoltageApp
from tui.frames import Shadow
from tui.games.voltage.match import MatchScreen
from tui.games.voltage.scores import TopBar


def picture(screen: pyte.Screen) -> list[list[tuple]]:
    return [
        [tuple(screen.buffer[y][x]) for x in range(screen.columns)]
        for y in range(screen.lines)
    ]


def first_difference(a: pyte.Screen, b: pyte.Screen) -> str:
    for y in range(a.lines):
        for x in range(a.columns):
            if a.buffer[y][x] != b.buffer[y][x]:
                return f"x={x} y={y}: {a.buffer[y][x]} written whole, {b.buffer[y][x]} as changes"
    return ""


class Terminal(TerminalChannel):
    def __init__(self, size: tuple[int, int]) -> None:
        self._size = size
        self.screen = pyte.Screen(*size)
        self.stream = pyte.ByteStream(self.screen)
        self.bytes = 0
        self.writes = 0
        self.pending = 0  # what the client has not taken yet (a test sets it)
        self.input: asyncio.Queue[bytes] = asyncio.Queue()

    def pending_output(self) -> int:
        return self.pending

    def write(self, data: bytes) -> None:
        self.bytes += len(data)
        self.writes += 1
        self.stream.feed(data)

    async def read(self) -> bytes:
        return await self.input.get()

    def close(self) -> None:
        self.input.put_nowait(b"")

    @property
    def size(self) -> tuple[int, int]:
        return self._size


class TwoTerminals(VoltageApp):
    """The app, also writing Textual's own frames into a second emulator to compare with."""

    def __init__(self, *args: Any, terminal: Terminal, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.terminal = terminal
        self.full = pyte.Screen(*terminal.size)
        self.full_stream = pyte.Stream(self.full)
        self.full_bytes = 0
        self.frames = 0
        self.direct = 0  # writes of rows without a compositor frame (ShadowedApp._write_rows)
        self.mismatch: str | None = None

    def _display(self, screen: Any, renderable: Any) -> None:
        if isinstance(renderable, CompositorUpdate) and self._running and not self._batch_count:
            text = renderable.render_segments(self.console)
            self.full_bytes += len(text.encode())
            self.full_stream.feed(text)
        super()._display(screen, renderable)
        if isinstance(renderable, CompositorUpdate) and self._running and not self._batch_count:
            self.frames += 1
            if self.mismatch is None and (diff := first_difference(self.full, self.terminal.screen)):
                self.mismatch = f"frame {self.frames}: the pictures differ at {diff}"

    def _write_rows(self, rows: Any) -> None:
        # rows written without a frame (a clock's second, a keypress's painted rows): whole, as
        # a frame of them would write them, into the second emulator too
        rows = [(y, list(pieces)) for y, pieces in rows]
        text = "".join(f"\x1b[{y + 1};{x + 1}H" + strip.render(self.console) for y, pieces in rows
                       for x, strip in pieces) + "\x1b[0m"
        self.full_bytes += len(text.encode())
        self.full_stream.feed(text)
        super()._write_rows(rows)
        self.direct += 1
        if self.mismatch is None and (diff := first_difference(self.full, self.terminal.screen)):
            self.mismatch = f"rows written without a frame ({self.direct}): the pictures differ at {diff}"


def full_render(app: VoltageApp) -> pyte.Screen:
    """The screen as a full frame of it draws it now (every widget, every line)."""
    size = (app.size.width, app.size.height)
    screen = pyte.Screen(*size)
    update = app.screen._compositor.render_update(full=True)
    assert isinstance(update, CompositorUpdate)
    pyte.Stream(screen).feed(update.render_segments(app.console))
    return screen


def settled(app: TwoTerminals, shown_only: bool = False) -> bool:
    """Nothing left to draw: no message waiting in the app, the screen or any widget, no refresh,
    layout or style update asked for and not yet done, no animation running.  A widget's refresh
    waits in its own queue until it has posted the screen its update: the app and the screen can
    both be idle meanwhile, while a full render would already draw the widget's new lines.  Rows
    waiting to be written without a frame (``paint_soon``) are something left to draw too.
    ``shown_only``: what is not displayed does not count (a hidden input keeps a repaint asked for
    while hidden: Textual posts it once the input shows)."""
    screen = app.screen
    if not app._message_queue.empty() or app.animator._animations or app.painting_soon:
        return False
    if screen._dirty_widgets or screen._callbacks:
        return False
    return not any(
        not node._message_queue.empty()
        or ((node.display or not shown_only)
            and (node._repaint_required or node._layout_required or node._scroll_required
                 or node._recompose_required or node._refresh_styles_required))
        for node in screen.walk_children(with_self=True)
    )


@contextlib.asynccontextmanager
async def two_screens(match: Match, size: tuple[int, int]) -> AsyncIterator[tuple[list[TwoTerminals], list[Terminal]]]:
    """Both seats' apps of ``match`` on the SSH driver, each on its own terminal, until the block ends."""
    terminals = [Terminal(size), Terminal(size)]
    apps = [
        TwoTerminals(FixedBackend([match.handle(seat)]), player_name=match.names[seat], terminal=terminals[seat])
        for seat in (0, 1)
    ]
    tasks = [asyncio.get_running_loop().create_task(run_app(app, t)) for app, t in zip(apps, terminals, strict=True)]
    try:
        await until(lambda: all(app.frames > 0 and isinstance(app.screen, MatchScreen) for app in apps))
        yield apps, terminals
    finally:
        for app in apps:
            app.exit()
        for t in terminals:
            t.close()
        await asyncio.wait(tasks, timeout=30)


KEYS = [b"1", b"2", b"3", b"4", b"\x1b", b" ", b"\x1b[C", b"\x1b[D", b"\r", b"\t", b"x"]


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_changed_cells_show_the_same_picture_as_whole_regions(size: tuple[int, int]) -> None:
    rng = random.Random(size[0])
    match = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=5, bot_delay=0)
    async with two_screens(match, size) as (apps, terminals):
        for _ in range(60):
            if match.over:
                break
            if rng.random() < 0.4:
                view = match.view(match.state.to_move)
                legal = [a for a in view.legal if not isinstance(a, V.Resign)]
                try:
                    await match.handle(view.to_move).submit(rng.choice(legal))
                except IllegalActionError:
                    pass  # a key sent just before made the move first: the match went on anyway
            else:
                key = rng.choice(KEYS)
                terminals[rng.randrange(2)].input.put_nowait(key)
            await asyncio.sleep(0)
            await until(lambda: all(settled(app) for app in apps))
            for app in apps:
                assert app.mismatch is None, app.mismatch
            # partial frames render only the dirty rows (tui/textual_compat/screens.py): what
            # the terminal shows is still what a full frame would draw
            for app, t in zip(apps, terminals, strict=True):
                assert not (diff := first_difference(full_render(app), t.screen)), diff
        await until(lambda: all(settled(app) for app in apps))
        for app, t in zip(apps, terminals, strict=True):
            assert app.mismatch is None, app.mismatch
            assert picture(app.full) == picture(t.screen)
            assert app.frames + app.direct > 10
            if textual_compat.enabled("frames"):  # (else Textual writes its own frames: the same bytes)
                assert t.bytes < app.full_bytes  # and fewer bytes for it


async def test_after_dropped_frames_the_terminal_gets_the_whole_picture_again() -> None:
    """A client that stops reading has frames dropped (server.session.driver); once it reads
    again its terminal must show the match as it is, although the changes it missed
    were never written."""
    match = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=5, bot_delay=0)
    terminal = Terminal((80, 24))
    app = TwoTerminals(FixedBackend([match.handle(0)]), player_name="Ann", terminal=terminal)
    limits = OutputLimits(high_water=1, low_water=0, poll=0.01)
    task = asyncio.get_running_loop().create_task(run_app(app, terminal, output_limits=limits))
    try:
        await until(lambda: app.frames > 0 and isinstance(app.screen, MatchScreen) and settled(app))
        terminal.pending = 10  # the client stops reading: the next frame pauses output (and the app's
        # updates are held meanwhile: what it would draw for no one is not drawn at all)
        for _ in range(3):
            view = match.view(match.state.to_move)
            move = next(a for a in view.legal if not isinstance(a, V.Resign | V.AgreeDraw))
            await match.handle(view.to_move).submit(move)
        writes = terminal.writes
        terminal.pending = 0  # reading again
        await until(
            lambda: terminal.writes > writes and settled(app) and not first_difference(app.full, terminal.screen)
        )
    finally:
        app.exit()
        terminal.close()
        await asyncio.wait([task], timeout=30)


def strip(text: str, style: Style) -> Strip:
    return Strip([Segment(text, style)], len(text))


def test_only_the_changed_run_is_written_and_a_forgotten_terminal_gets_it_all() -> None:
    shadow = Shadow()
    red, blue = Style(color="red"), Style(color="blue")
    line = [strip("hello world, hello there", red)]
    full = LayoutUpdate([line, line], Region(0, 0, 24, 2))
    first = shadow.diff(full, (24, 2), None)
    assert first is not None and "hello there" in first
    # one word changes on the second line: one cursor move, one style, the word
    chops = [{0: strip("hello world, hello there", red)}, {0: strip("hello world, jelly there", red)}]
    update = ChopsUpdate(chops, [(1, 0, 24)], [[24], [24]])
    out = shadow.diff(update, (24, 2), None)
    assert out == "\x1b[2;14H\x1b[31mjelly\x1b[0m"  # from the reset the last frame ended with
    # the same again: nothing to write
    assert shadow.diff(update, (24, 2), None) == ""
    # a style change is a change
    chops = [{0: strip("hello world, hello there", red)}, {0: strip("hello world, jelly there", blue)}]
    assert "\x1b[34m" in (shadow.diff(ChopsUpdate(chops, [(1, 0, 24)], [[24], [24]]), (24, 2), None) or "")
    shadow.forget()
    out = shadow.diff(update, (24, 2), None)
    assert out is not None and "hello world, jelly there" in out


def test_a_wide_character_is_written_whole() -> None:
    shadow = Shadow()
    style = Style(color="red")
    shadow.diff(LayoutUpdate([[strip("ab日本cd", style)]], Region(0, 0, 8, 1)), (8, 1), None)
    # the second half of 本 cannot be written alone: the change starts at 本
    new = Strip([Segment("ab日", style), Segment("木", style), Segment("cd", style)], 8)
    out = shadow.diff(ChopsUpdate([{0: new}], [(0, 0, 8)], [[8]]), (8, 1), None)
    assert out == "\x1b[1;5H\x1b[31m木\x1b[0m"


def test_a_run_seen_before_shows_as_itself_after_an_accent_joined_it_elsewhere() -> None:
    # The cells of a run of text are made once for the process and shared (by text and style);
    # an accent that joins the cell before it, on one terminal, must not change that run on another.
    style = Style(color="red")
    first, second = Shadow(), Shadow()
    accented = Strip([Segment("cafe", style), Segment("\u0301", style)], 4)
    out = first.diff(LayoutUpdate([[accented]], Region(0, 0, 4, 1)), (4, 1), None)
    assert out is not None and "cafe\u0301" in out
    plain = second.diff(LayoutUpdate([[strip("cafe", style)]], Region(0, 0, 4, 1)), (4, 1), None)
    assert plain is not None and "cafe" in plain and "\u0301" not in plain
    # and the same text in another style is its own run
    blue = second.diff(LayoutUpdate([[strip("cafe", Style(color="blue"))]], Region(0, 0, 4, 1)), (4, 1), None)
    assert blue is not None and "\x1b[34m" in blue


def test_a_style_change_writes_only_what_differs() -> None:
    from tui.frames import sgr_change

    assert sgr_change(None, "97;40") == "\x1b[0;97;40m"  # unknown state: the reset form
    assert sgr_change("97;40", "1;97;40") == "\x1b[1m"
    assert sgr_change("1;97;104", "97;40") == "\x1b[22;40m"
    assert sgr_change("1;2;97", "2;97") == "\x1b[22;2m"  # 22 turns both off: dim comes back
    assert sgr_change("7;97;40", "") == "\x1b[0m"


def test_a_later_run_on_the_same_line_moves_the_cursor_forward() -> None:
    shadow = Shadow()
    style = Style(color="red")
    shadow.diff(LayoutUpdate([[strip("a" * 30, style)]], Region(0, 0, 30, 1)), (30, 1), None)
    new = strip("b" + "a" * 20 + "b" + "a" * 8, style)
    out = shadow.diff(ChopsUpdate([{0: new}], [(0, 0, 30)], [[30]]), (30, 1), None)
    assert out == "\x1b[1;1H\x1b[31mb\x1b[20Cb\x1b[0m"


def test_every_cursor_move_lands_where_it_is_meant_to_and_is_the_shortest() -> None:
    from tui.frames import _move

    rng = random.Random(3)
    width, height = 30, 8
    for _ in range(2000):
        row, col = rng.randrange(height), rng.randrange(width + 1)  # width: past the last column
        y, x = rng.randrange(height), rng.randrange(width)
        screen = pyte.Screen(width, height)
        stream = pyte.Stream(screen)
        stream.feed(f"\x1b[{row + 1};{min(col, width - 1) + 1}H")
        if col == width:
            stream.feed("z")  # the cursor left past the last column
        move = _move(row, col, y, x, width)
        stream.feed(move)
        assert (screen.cursor.y, screen.cursor.x) == (y, x), (row, col, y, x, move)
        assert len(move) <= len(f"\x1b[{y + 1};{x + 1}H")
        assert "\n" not in move  # a local terminal's output processing may make it CR LF
    # the next line's second column: index, carriage return, forward one (not ESC[21;2H)
    assert _move(19, 20, 20, 1, width) == "\x1bD\r\x1b[C"


@needs("frames", "paint-now", "row-renders")
async def test_the_clock_s_tick_writes_only_the_digits_that_changed() -> None:
    from engine.clock import TimeControl

    match = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=5, bot_delay=0, control=TimeControl(600.0))
    match.start()
    terminal = Terminal((80, 24))
    app = TwoTerminals(FixedBackend([match.handle(0)]), player_name="Ann", terminal=terminal)
    task = asyncio.get_running_loop().create_task(run_app(app, terminal))
    try:
        await until(lambda: app.frames > 0 and isinstance(app.screen, MatchScreen) and settled(app))
        sizes: list[int] = []
        before: list[list[tuple]] = []
        after: list[list[tuple]] = []
        write = terminal.write

        def tap(data: bytes) -> None:
            before[:] = picture(terminal.screen)
            write(data)
            after[:] = picture(terminal.screen)
            sizes.append(len(data))

        terminal.write = tap  # type: ignore[method-assign]
        await until(lambda: len(sizes) >= 2)  # two ticks of the running clock
        changed = [(x, y) for y in range(24) for x in range(80) if before[y][x] != after[y][x]]
        assert changed and all(y == 0 for _, y in changed)  # the top bar only
        assert len(changed) <= 4  # "9:58" -> "9:57": the digits that changed
        # a cursor move, a style (up to ~30 bytes in 24-bit colour, which the app uses in some orders of
        # the tests in one worker: 45 bytes were seen), a digit or two: not the bar's 80 cells again
        assert sizes[-1] < 64
        assert app.full_bytes > 0 and app.mismatch is None
    finally:
        app.exit()
        terminal.close()
        await asyncio.wait([task], timeout=30)


@needs("frames", "paint-now")
async def test_clock_ticks_written_without_a_frame_show_the_full_picture() -> None:
    """A clock's second is written straight from the top bar (``VoltageApp.paint_chars``),
    with no compositor frame: the terminal must show what a full frame would, and the
    running bank must count down on it."""
    from engine.clock import TimeControl

    size = (100, 32)
    match = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=5, bot_delay=0, control=TimeControl(600.0))
    match.start()
    async with two_screens(match, size) as (apps, terminals):

        def banks(t: Terminal) -> list[int]:
            """The banks the top bar shows, in seconds."""
            return [int(m) * 60 + int(s) for m, s in re.findall(r"(\d+):(\d\d)", t.screen.display[0])]

        # the mover's bank falls below 10:00 and the screen's opening frames are written, then
        # two more seconds: two ticks at least, each written on both terminals (a tick the loop
        # ran late shows the second it is, so the wait is for a bank, not a given digit)
        await until(lambda: all(min(banks(t), default=600) < 600 for t in terminals))
        await until(lambda: all(settled(app) for app in apps))
        # on a busy machine the screens' last opening frames (their restyle and relayout) may
        # come after the first ticks: wait for a second of the bank that came without a frame
        last: dict[str, list[int]] = {"frames": [-1, -1], "banks": [0, 0]}

        def a_tick_without_a_frame() -> bool:
            frames, shown = [app.frames for app in apps], [min(banks(t)) for t in terminals]
            if frames != last["frames"]:
                last.update(frames=frames, banks=shown)
                return False
            return all(s < b for s, b in zip(shown, last["banks"], strict=True)) and all(settled(app) for app in apps)

        await until(a_tick_without_a_frame)
        assert all(max(banks(t)) == 600 for t in terminals)  # the other bank stands
        # a tick writes its digits in the styles the terminal shows there: no row of the bar is rendered
        rendered: list[Any] = []

        def counted(render: Any) -> Any:
            def render_lines(crop: Any) -> Any:
                rendered.append(crop)
                return render(crop)

            return render_lines

        for app in apps:
            bar = app.screen.query_one("#topbar", TopBar)
            bar.render_lines = counted(bar.render_lines)  # type: ignore[method-assign]
        frames = [app.frames for app in apps]
        writes = [t.writes for t in terminals]
        shown = [min(banks(t)) for t in terminals]
        await until(
            lambda: all(
                min(banks(t)) <= s - 2 and t.writes >= w + 2
                for t, s, w in zip(terminals, shown, writes, strict=True)
            )
        )
        await until(lambda: all(settled(app) for app in apps))
        assert rendered == []
        for app, t, f, w in zip(apps, terminals, frames, writes, strict=True):
            assert t.writes >= w + 2
            assert app.frames == f  # no compositor frame for a tick
            assert not (diff := first_difference(full_render(app), t.screen)), diff
            # the row a tick made in place is the row the whole text makes
            bar = app.screen.query_one("#topbar", TopBar)
            assert bar._strips[0].text == bar.render().plain.ljust(size[0])


@needs("frames", "paint-now")
async def test_a_clock_tick_after_the_bar_moved_writes_its_digits_where_the_bar_is_now() -> None:
    """A tick keeps where the clock's cells are from the last one while the screen's map is the same;
    once the bar is drawn elsewhere (an offset), the next tick's digits go to the new place: the terminal
    shows what a full frame would."""
    from engine.clock import TimeControl

    size = (100, 32)
    match = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=5, bot_delay=0, control=TimeControl(600.0))
    match.start()
    async with two_screens(match, size) as (apps, terminals):
        app, terminal = apps[0], terminals[0]

        def clocks() -> list[tuple[int, int]]:
            """The banks the top bar shows: (column, seconds) each."""
            row = terminal.screen.display[0]
            return [(m.start(), int(m[1]) * 60 + int(m[2])) for m in re.finditer(r"(\d+):(\d\d)", row)]

        async def a_tick() -> None:
            """Wait for a second of the running bank that came without a frame."""
            await until(lambda: len(clocks()) == 2 and settled(app))
            frames, before = app.frames, min(s for _x, s in clocks())
            await until(lambda: len(clocks()) == 2 and min(s for _x, s in clocks()) < before
                        and settled(app) and app.frames == frames)

        for _ in range(2):  # (the first may draw the bar's row whole; the next knows the digits' place)
            await a_tick()
        columns = [x for x, _s in clocks()]
        bar = app.screen.query_one("#topbar", TopBar)
        bar.styles.offset = (3, 0)  # the bar is drawn three columns right: one frame
        await until(lambda: len(clocks()) == 2 and [x for x, _s in clocks()] != columns and settled(app))
        moved = [x for x, _s in clocks()]
        for _ in range(2):
            await a_tick()
            assert [x for x, _s in clocks()] == moved
        assert not (diff := first_difference(full_render(app), terminal.screen)), diff
        assert app.mismatch is None


def shown(terminal: Terminal) -> str:
    return "\n".join(terminal.screen.display)


@contextlib.asynccontextmanager
async def lobby_session(players: int) -> AsyncIterator[tuple[Any, Terminal, TwoTerminals]]:
    """A session's app (alice's) on the SSH driver, in a lobby with ``players`` others online: the
    lobby, the terminal and the app, until the block ends."""
    from tests.tui.test_lobby_rows import crowded_lobby

    lobby, backend = crowded_lobby(players)
    terminal = Terminal((80, 24))
    app = TwoTerminals(backend, player_name="alice", terminal=terminal)
    task = asyncio.get_running_loop().create_task(run_app(app, terminal))
    try:
        yield lobby, terminal, app
    finally:
        app.exit()
        terminal.close()
        await asyncio.wait([task], timeout=30)
        lobby.presence.close()


@needs("prompt-update")
async def test_a_new_session_s_first_frame_is_drawn_once_its_app_is_quiet_not_on_the_update_timer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A session's lobby is drawn as soon as its start has been handled, not an update period (1/60 s)
    later, with nothing to do meanwhile: with the screens' update timer stopped, the first picture still
    comes, whole, in one frame."""
    from textual.timer import Timer

    resume = Timer.resume

    def stopped(self: Timer) -> None:
        if self.name != "screen_update":
            resume(self)

    monkeypatch.setattr(Timer, "resume", stopped)
    async with lobby_session(5) as (_lobby, terminal, app):
        await until(lambda: "Your name" in shown(terminal) and settled(app, shown_only=True))
        assert app.frames == 1
        assert not (diff := first_difference(full_render(app), terminal.screen)), diff


async def test_a_new_session_s_name_box_has_the_focus_from_the_start_and_nothing_else_ever_takes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The name box is what a new session types into: the focus goes there and nowhere first (a menu
    given the focus and losing it at once restyled both, and the box's blur validated it)."""
    from textual.screen import Screen
    from textual.widgets import Input

    focused: list[str | None] = []
    set_focus = Screen.set_focus

    def record(self: Screen, widget: Any, *args: Any, **kwargs: Any) -> Any:
        if widget is not None and widget is not self.focused:
            focused.append(widget.id)
        return set_focus(self, widget, *args, **kwargs)

    monkeypatch.setattr(Screen, "set_focus", record)
    async with lobby_session(5) as (_lobby, terminal, app):
        await until(lambda: "Your name" in shown(terminal) and settled(app, shown_only=True))
        assert app.screen.focused is not None and app.screen.focused.id == "name"
        assert focused == ["name"]
        terminal.input.put_nowait(b"Zoe")
        await until(lambda: app.screen.query_one("#name", Input).value == "Zoe")


async def test_a_lobby_draws_its_first_frame_once_and_its_lists_changes_as_a_full_frame_would() -> None:
    """A session's lobby on the SSH driver: its first picture is one frame (none rendered and thrown
    away, none drawn again after a second layout); an arrival below the Online list's window repaints
    the title's count alone, the list not rendered again; and after every change the terminal shows
    what a full frame draws."""
    from tests.tui.test_lobby_rows import arrive
    from tui.widgets.rows import RowMenu

    async with lobby_session(40) as (lobby, terminal, app):
        await until(lambda: "Your name" in shown(terminal) and settled(app, shown_only=True))
        if textual_compat.enabled("one-layout"):
            assert app.frames == 1
        terminal.input.put_nowait(b"\r")  # the suggested name
        await until(lambda: "you: alice" in shown(terminal) and "Online (41)" in shown(terminal)
                    and settled(app, shown_only=True))
        players = app.screen.query_one("#players", RowMenu)
        matches = app.screen.query_one("#matches", RowMenu)
        renders = players.renders, matches.renders
        arrive(lobby, "zz-last")  # far below the window: the count in the title changes, no row shown
        await until(lambda: "Online (42)" in shown(terminal) and settled(app, shown_only=True))
        if textual_compat.enabled("title-rows"):
            assert (players.renders, matches.renders) == renders
        assert not (diff := first_difference(full_render(app), terminal.screen)), diff
        arrive(lobby, "aaron")  # at the top of the window: its rows move down
        await until(lambda: "aaron" in shown(terminal) and "Online (43)" in shown(terminal)
                    and settled(app, shown_only=True))
        assert not (diff := first_difference(full_render(app), terminal.screen)), diff
        assert app.mismatch is None, app.mismatch
