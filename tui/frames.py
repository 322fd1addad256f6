"""Write only the cells that changed: a shadow of what the terminal shows.

Textual writes each dirty region's lines whole, although most of their cells are what the terminal
already shows.  :class:`Shadow` keeps, per app, the picture the terminal shows (per line, cells of
``(sgr, char)``, interned for the process) and turns each compositor update into the terminal sequence
that changes that picture into the new one: per line, runs of changed cells, each a cursor move (the
shortest one), SGR only where the style changes (only what differs from the last style), then the
text; unchanged cells between two runs are written again when that costs fewer bytes than jumping
over them.  When the picture is unknown (the start, a new size, frames the driver dropped) lines are
written whole, as Textual would.  A frame costs about a fifth of Textual's bytes for the same CPU.
The app (:class:`tui.textual_compat.ShadowedApp`) writes every frame through it; the measurements and the
decisions are in ``docs/design/frames.md``.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress, repeat
from operator import ne
from typing import Any

from rich.cells import cell_len, get_character_cell_size
from rich.color import ColorSystem
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tui.textual_compat import update_rows

Cell = tuple[str, str]  # (sgr parameters, character; "" for a wide character's second cell)


# SGR attribute codes (as Rich/Textual write them) and the code that turns each off.
_OFF = {"1": "22", "2": "22", "3": "23", "4": "24", "21": "24", "5": "25", "6": "25", "7": "27",
        "8": "28", "9": "29", "51": "54", "52": "54", "53": "55"}


def _parse(sgr: str) -> tuple[frozenset[str], str, str] | None:
    """SGR parameters as (attributes, foreground, background), colours as written;
    None for a code this does not know."""
    attrs: set[str] = set()
    fg = bg = ""
    tokens = sgr.split(";") if sgr else []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t in ("38", "48"):
            n = 3 if i + 1 < len(tokens) and tokens[i + 1] == "5" else 5
            code = ";".join(tokens[i : i + n])
            if t == "38":
                fg = code
            else:
                bg = code
            i += n
            continue
        if t in _OFF:
            attrs.add(t)
        elif t.isdigit() and (30 <= int(t) <= 39 or 90 <= int(t) <= 97):
            fg = t
        elif t.isdigit() and (40 <= int(t) <= 49 or 100 <= int(t) <= 107):
            bg = t
        else:
            return None
        i += 1
    return frozenset(attrs), fg, bg


_changes: dict[tuple[str | None, str], str] = {}

# The cells a shadow keeps, each kind once for the whole process: a terminal of 100x32 is
# 3,200 cells of a few hundred kinds, and a tuple each was 200 KB per session.
_CELLS: dict[Cell, Cell] = {}
_CELLS_KEPT = 50_000


def sgr_change(old: str | None, new: str) -> str:
    """The shortest SGR sequence that takes the terminal from style ``old`` (SGR
    parameters; None: unknown) to ``new``."""
    key = (old, new)
    try:
        return _changes[key]
    except KeyError:
        pass
    absolute = f"\x1b[0;{new}m" if new else "\x1b[0m"
    result = absolute
    parsed_old = None if old is None else _parse(old)
    parsed_new = _parse(new)
    if parsed_old is not None and parsed_new is not None:
        pa, pf, pb = parsed_old
        na, nf, nb = parsed_new
        offs = {_OFF[a] for a in pa - na}
        codes = sorted(offs)
        codes.extend(sorted((na - pa) | {a for a in na & pa if _OFF[a] in offs}))
        if nf != pf:
            codes.append(nf or "39")
        if nb != pb:
            codes.append(nb or "49")
        relative = f"\x1b[{';'.join(codes)}m" if codes else ""
        if len(relative) < len(absolute):
            result = relative
    if len(_changes) > 8192:
        _changes.clear()
    _changes[key] = result
    return result


def _sgr(style: Style | None, color_system: ColorSystem) -> str:
    if style is None:
        return ""
    ansi = style._ansi
    if ansi is None:
        ansi = Strip.render_ansi(style, color_system)
    return ansi


def _cells(strip: Strip, color_system: ColorSystem, keep: bool = False) -> list[Cell]:
    """The cells of a strip, left to right (each one the process's own tuple of its kind).

    A painted widget's strips are made of the same segment objects frame after frame (its
    drawn segments are kept: :meth:`tui.widgets.lines.LineWidget.repaint`), so with ``keep``
    (strips painted widgets hand over themselves) each segment's cells are kept too, by the
    segment's identity (the entry holds the segment, so the id is not reused while it is
    kept).  A compositor's strips are cut anew each frame: keeping theirs would only make
    garbage (two objects a segment for the collector)."""
    out: list[Cell] = []
    extend = out.extend
    kept = _SEGMENT_CELLS
    for segment in strip:
        hit = kept.get(id(segment))
        if hit is not None and hit[0] is segment and hit[1] is color_system:
            extend(hit[2])
            continue
        text, style, control = segment
        if control or not text:
            continue
        if get_character_cell_size(text[0]) == 0:  # joins the cell before: not a segment's own
            _add_cells(out, text, _sgr(style, color_system))
            continue
        sgr = _sgr(style, color_system)
        cells = _RUNS.get((text, sgr))
        if cells is None:
            cells = []
            _add_cells(cells, text, sgr)
            if len(_CELLS) > _CELLS_KEPT:
                _CELLS.clear()
            cells = list(map(_CELLS.setdefault, cells, cells))
            if len(_RUNS) >= _RUNS_KEPT:
                _RUNS.clear()
            _RUNS[text, sgr] = cells
        if keep:
            if len(kept) >= _SEGMENTS_KEPT:
                kept.clear()
            kept[id(segment)] = (segment, color_system, cells)
        extend(cells)
    return out


def _add_cells(out: list[Cell], text: str, sgr: str) -> None:
    if text.isascii() or cell_len(text) == len(text):
        out.extend(zip(repeat(sgr, len(text)), text, strict=False))
        return
    for ch in text:
        width = get_character_cell_size(ch)
        if width == 1:
            out.append((sgr, ch))
        elif width == 2:
            out.append((sgr, ch))
            out.append((sgr, ""))
        elif out:  # zero width: joins the cell before
            prev_sgr, prev = out[-1]
            out[-1] = (prev_sgr, prev + ch)


# Each run of text's cells, by its text and style, for the process: a compositor cuts its strips anew
# each frame, but from the same few hundred texts (a board's rows, a hand, a key bar) in every session,
# so one dictionary look-up finds a run's cells where each cell was made and looked up again (the
# profile of 200 players put a sixth of the server's CPU in this function, most of it that).  The
# lists are shared, never changed: callers copy out of them.
_RUNS: dict[tuple[str, str], list[Cell]] = {}
_RUNS_KEPT = 32768

# Each segment's cells, by the segment's identity: about 200 bytes an entry, for the process.
_SEGMENT_CELLS: dict[int, tuple[Segment, ColorSystem, list[Cell]]] = {}
_SEGMENTS_KEPT = 8192


def forget_cells() -> None:
    """Empty the process's tables of cells, segments' cells and style changes (made again by the
    next frames): for a process giving memory back once many sessions have ended
    (:mod:`server.memory`), as their entries, made by any session, would keep it."""
    _CELLS.clear()
    _RUNS.clear()
    _SEGMENT_CELLS.clear()
    _changes.clear()


def _move(row: int, col: int, y: int, x: int, width: int) -> str:
    """The shortest cursor move from (``col``, ``row``) to (``x``, ``y``); ``row`` -1: unknown.
    A cursor left past the last column is not trusted (terminals differ there).

    Besides ``ESC[y;xH`` and the relative moves: ``ESC D`` (index) one row down, keeping
    the column (it scrolls only from the last row, and a move down never starts there; a
    line feed would be one byte, but a local terminal's output processing may turn it into
    CR LF), backspaces left, and a carriage return to the line's start (``ESC D \r ESC[C``:
    the next line's second column in six bytes, not seven from row 10 on)."""
    absolute = f"\x1b[{y + 1};{x + 1}H"
    if row < 0 or col >= width:
        return absolute
    if row == y:
        vertical = ""
    elif y > row:
        vertical = "\x1bD" if y - row == 1 else f"\x1b[{y - row}B"
    else:
        vertical = f"\x1b[{row - y}A" if row - y > 1 else "\x1b[A"
    if x == col:
        horizontal = ""
    elif x > col:
        horizontal = f"\x1b[{x - col}C" if x - col > 1 else "\x1b[C"
    else:
        horizontal = "\b" * (col - x) if col - x <= 3 else f"\x1b[{col - x}D"
    start = "\r" + ("" if x == 0 else "\x1b[C" if x == 1 else f"\x1b[{x}C")
    relative = vertical + (horizontal if len(horizontal) <= len(start) else start)
    return relative if len(relative) < len(absolute) else absolute


class Shadow:
    """What the terminal shows (see the module's notes)."""

    def __init__(self) -> None:
        self.size: tuple[int, int] | None = None
        self.lines: list[list[Cell] | None] = []
        self.row = self.col = -1  # where the cursor is (-1: unknown)
        self.sgr: str | None = None  # the terminal's style ("": reset, as each frame leaves it; None: unknown)
        self.full_frames = 0  # frames written whole (size changed, or the picture unknown)

    def forget(self) -> None:
        """The terminal's picture is unknown (frames were dropped): write the next ones whole."""
        self.size = None
        self.lines = []
        self.row = self.col = -1
        self.sgr = None

    def _reset(self, size: tuple[int, int]) -> None:
        self.size = size
        self.lines = [None] * size[1]
        self.row = self.col = -1
        self.sgr = None

    def diff(self, update: Any, size: tuple[int, int], color_system: ColorSystem | None) -> str | None:
        """The terminal sequence for ``update`` (a compositor update) given what the terminal shows,
        or None when the update is not one this knows (the caller writes it as Textual would)."""
        rows = update_rows(update, size[1])
        if rows is None:
            return None
        return self.diff_rows(rows, size, color_system)

    def diff_rows(
        self, rows: Iterable[tuple[int, Iterable[tuple[int, Strip]]]], size: tuple[int, int],
        color_system: ColorSystem | None, *, painted: bool = False,
    ) -> str:
        """The terminal sequence that writes ``rows`` (per line: its pieces, each a column
        and a strip) where they differ from what the terminal shows: a compositor's update
        (:meth:`diff`), or a widget's own lines painted without a frame
        (:meth:`tui.app.VoltageApp.paint_now`; ``painted``: their segments' cells are kept, see
        :func:`_cells`)."""
        color_system = color_system or ColorSystem.TRUECOLOR
        if size != self.size:
            self._reset(size)
            self.full_frames += 1
        width, height = size
        out: list[str] = []
        # the terminal's SGR (None: unknown, each frame ends with a reset), cursor row, column
        state: list[Any] = [self.sgr, self.row, self.col]
        for y, pieces in rows:
            if not 0 <= y < height:
                continue
            old = self.lines[y]
            if old is None:
                old = self.lines[y] = [("", "\0")] * width  # nothing known: every cell differs
            line: list[Cell] | None = None
            lo, hi = width, 0
            for x, strip in pieces:
                if x >= width:
                    continue
                new = _cells(strip, color_system, painted)
                end = min(x + len(new), width)
                if end - x < len(new):
                    new = new[: end - x]
                if old[x:end] == new:
                    continue
                if line is None:
                    line = old.copy()
                line[x:end] = new  # (each cell the process's one tuple of its kind: _cells)
                lo, hi = min(lo, x), max(hi, end)
            if line is not None:
                # the whole line at once: a gap between two widgets' changes is weighed too
                self._emit_line(out, state, y, lo, old, line[lo:hi], width)
                self.lines[y] = line
        return self._ended(out, state)

    def _ended(self, out: list[str], state: list[Any]) -> str:
        """The sequence ``out`` makes, with the style reset at its end; the cursor and style it leaves kept."""
        self.row, self.col = state[1], state[2]
        if not out:
            return ""
        if state[0]:
            out.append("\x1b[0m")
        self.sgr = ""
        return "".join(out)

    def put(self, x: int, y: int, chars: str, size: tuple[int, int]) -> str | None:
        """The terminal sequence that writes ``chars`` from column ``x`` of row ``y``, each in the style its
        cell has on the terminal now (a clock's digits, whose style stays); None when the cells there are
        not known to be one character each (unknown, a wide or joined one): the caller writes as usual."""
        width, height = size
        if size != self.size or not 0 <= y < height or x < 0 or x + len(chars) > width:
            return None
        old = self.lines[y]
        if old is None:
            return None
        end = x + len(chars)
        cells = old[x:end]
        if any(len(ch) != 1 for _sgr, ch in cells) or (end < width and old[end][1] == ""):
            return None
        intern = _CELLS.setdefault
        new = [intern((sgr, ch), (sgr, ch)) for (sgr, _old), ch in zip(cells, chars, strict=True)]
        if new == cells:
            return ""
        out: list[str] = []
        state: list[Any] = [self.sgr, self.row, self.col]
        self._emit_line(out, state, y, x, old, new, width)
        line = old.copy()
        line[x:end] = new
        self.lines[y] = line
        return self._ended(out, state)

    def park(self, x: int, y: int) -> str:
        """Put the cursor at (``x``, ``y``) (where the app wants the terminal's cursor)."""
        if self.size is None or (self.row, self.col) == (y, x):
            return ""
        move = _move(self.row, self.col, y, x, self.size[0])
        self.row, self.col = y, x
        return move

    @staticmethod
    def _emit_line(
        out: list[str], state: list[Any], y: int, x0: int, old: list[Cell], new: list[Cell], width: int
    ) -> None:
        """Append the runs of ``new`` (cells from column ``x0``) that differ from ``old``.

        Between two changed runs of the line the unchanged cells are either written
        again or jumped over (``ESC[nC``), whichever costs fewer bytes: a one-cell gap
        in another style costs two style changes, more than the jump."""
        n = len(new)
        runs: list[list[int]] = []
        # the changed cells' indexes, found in C (map, compress); runs built from them
        changed = list(compress(range(n), map(ne, new, old[x0 : x0 + n])))
        k = 0
        while k < len(changed):
            start = changed[k]
            i = start + 1
            k += 1
            while k < len(changed) and changed[k] == i:
                i += 1
                k += 1
            if new[start][1] == "" and start > 0:
                start -= 1  # a wide character's second cell: write the character
            if i < n and new[i][1] == "":
                i += 1  # do not cut a wide character in two
            if runs and start <= runs[-1][1]:
                runs[-1][1] = i
            else:
                runs.append([start, i])
        if not runs:
            return
        current = state[0]
        for k, (start, stop) in enumerate(runs):
            col = x0 + start
            if k == 0:
                out.append(_move(state[1], state[2], y, col, width))
            else:
                # the gap: written again, or jumped?
                prev_stop = runs[k - 1][1]
                gap = new[prev_stop:start]
                first = new[start][0]
                jump = len(_move(y, x0 + prev_stop, y, col, width))
                if first != current:
                    jump += len(sgr_change(current, first))
                cost, s = 0, current
                for sgr, ch in gap:
                    if sgr != s:
                        cost += len(sgr_change(s, sgr))
                        s = sgr
                    cost += len(ch) if ch.isascii() else len(ch.encode())
                    if cost >= jump:
                        break
                if cost < jump and first != s:
                    cost += len(sgr_change(s, first))
                if cost < jump:
                    start = prev_stop  # cheaper to write the gap again
                else:
                    out.append(_move(y, x0 + prev_stop, y, col, width))
            for sgr, ch in new[start:stop]:
                if sgr != current:
                    out.append(sgr_change(current, sgr))
                    current = sgr
                if ch:
                    out.append(ch)
            state[1], state[2] = y, x0 + stop
        state[0] = current
