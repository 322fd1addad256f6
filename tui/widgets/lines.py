"""A widget drawn line by line from rows of segments, repainting only the rows that changed.

The match screen redraws on every keypress and every move, for every player of
every match a server holds.  Textual's cost grows with the widgets it restyles,
lays out and composes, so the busiest parts of the screen (the board, the hand)
are each *one* widget that paints itself: :meth:`LineWidget.paint` returns the
rows (lists of :class:`rich.segment.Segment`), the base class keeps them as
strips, compares them with the rows on screen, and marks only the changed rows
dirty.  No CSS class changes, no layout, no child widgets.

Colours come from the theme (the widget's own background and foreground) so a
painted widget follows dark, light and no-colour terminals like the rest.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from rich.cells import cell_len, set_cell_size
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.color import Color
from textual.filter import LineFilter
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget

from tui.textual_compat import content_size, filter_lines, filters_for_rows, forget_drawn_lines, plain_lines

Row = list[Segment]

# Box characters: (top-left, horizontal, top-right, vertical, bottom-left, bottom-right).
BOXES = {
    "round": ("╭", "─", "╮", "│", "╰", "╯"),
    "heavy": ("┏", "━", "┓", "┃", "┗", "┛"),
    "double": ("╔", "═", "╗", "║", "╚", "╝"),
}


# Only for turning styled text into segments (string styles like "bold reverse" are parsed
# by a console); nothing is ever printed through it.
_CONSOLE = Console(width=10_000, color_system="truecolor", force_terminal=True, legacy_windows=False)


def text_rows(text: Text) -> list[Row]:
    """The lines of ``text`` as rows of segments (not wrapped: cut them with :func:`fit`).

    Shared with every other caller for the same text (a card's chip, a key bar's keys,
    a pile's count come back again and again, and Rich's rendering of them was about 5 %
    of a server's CPU): the rows must not be changed in place, only copied."""
    key = (text.plain, tuple(text.spans), text.style)
    rows = _TEXT_ROWS.get(key)
    if rows is None:
        segments = text.render(_CONSOLE, end="")
        if text.style:  # (rich applies a text's own style only when it has spans)
            segments = Segment.apply_style(segments, _CONSOLE.get_style(text.style))
        rows = [list(line) for line in Segment.split_lines(segments)]
        if len(_TEXT_ROWS) >= _TEXT_ROWS_KEPT:
            _TEXT_ROWS.clear()
        _TEXT_ROWS[key] = rows
    return list(rows)


_TEXT_ROWS: dict[tuple, list[Row]] = {}
_TEXT_ROWS_KEPT = 4096


def fit(row: Row, width: int, style: Style | None = None) -> Row:
    """``row`` cropped or padded (with ``style``) to exactly ``width`` cells."""
    return Segment.adjust_line_length(row, width, style=style, pad=True)


def text_cells(text: str, width: int) -> str:
    """``text`` cut (or padded) to ``width`` cells, with an ellipsis when cut."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return set_cell_size(text, width)
    return set_cell_size(text, width - 1) + "…"


def centred(text: str, width: int, style: Style | None) -> Row:
    """``text`` centred in ``width`` cells (cut with an ellipsis when too long)."""
    text = text_cells(text, width)
    left = (width - cell_len(text)) // 2
    right = width - left - cell_len(text)
    row: Row = []
    if left:
        row.append(Segment(" " * left))
    row.append(Segment(text, style))
    if right:
        row.append(Segment(" " * right))
    return row


@lru_cache(maxsize=64)
def background(bg: Color) -> Style:
    """A style of ``bg`` as background alone (one object per colour)."""
    return Style(bgcolor=bg.rich_color)


def with_background(row: Row, bg: Color | None) -> Row:
    """``row`` with ``bg`` under every segment that has no background of its own."""
    if bg is None:
        return row
    under = background(bg)
    return [Segment(s.text, under + s.style if s.style else under) for s in row]


def box(
    rows: list[Row],
    width: int,
    *,
    kind: str,
    line: Style,
    title: Iterable[Segment] = (),
    subtitle: Iterable[Segment] = (),
    align: str = "center",
) -> list[Row]:
    """``rows`` (each ``width - 2`` cells) framed: a title on the top edge, a subtitle on the bottom."""
    tl, h, tr, v, bl, br = BOXES[kind]
    inner = width - 2

    def edge(left: str, right: str, label: Iterable[Segment], where: str) -> Row:
        label = list(label)
        n = Segment.get_line_length(label)
        if not label or n + 2 > inner:
            return [Segment(left + h * inner + right, line)]
        label = [Segment(" ", line), *label, Segment(" ", line)]
        n += 2
        if where == "left":
            before = 1
        elif where == "right":
            before = inner - n - 1
        else:
            before = (inner - n) // 2
        before = max(0, before)
        after = inner - n - before
        return [Segment(left + h * before, line), *label, Segment(h * after + right, line)]

    out = [edge(tl, tr, title, align if align != "split" else "left")]
    side = Segment(v, line)
    out.extend([side, *row, side] for row in rows)
    out.append(edge(bl, br, subtitle, align if align != "split" else "right"))
    return out


class LineWidget(Widget):
    """Subclasses implement :meth:`paint`; call :meth:`repaint` when what they show changes."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._strips: list[Strip] = []
        self._raw: list[Row] = []  # the rows as painted, before the theme's colours
        self._base: Style | None = None
        self._base_theme: str | None = None
        self._over_base: dict[Style | None, Style] = {}
        self._styled: dict[Segment, tuple[Segment, int]] = {}
        self._painted_size: tuple[int, int] = (0, 0)
        self._palette: Palette | None = None
        self._filtered: tuple[tuple[LineFilter, ...], Color] | None = None  # what the strips were made with
        self._restyled = True  # styles updated since the theme's colours were last read
        self._top = 0  # a top border's rows (see render_lines)
        self._plain: bool | None = None  # see render_lines; None: not known since the last style update

    @property
    def size(self) -> Size:
        """The content's size, as Textual's (kept while the screen's map is the same: :func:`content_size`)."""
        return content_size(self)

    # -- to implement ---------------------------------------------------------

    def paint(self, width: int, height: int) -> list[Row]:
        raise NotImplementedError

    # -- colours ----------------------------------------------------------------

    def theme_color(self, name: str) -> Color:
        """A colour of the app's theme by name (``"error"``, ``"warning"``, ...)."""
        value = getattr(self.app.current_theme, name, None)
        return Color.parse(value) if value else self.palette().fg

    def palette(self) -> Palette:
        """The theme's background and foreground under this widget, and blends of them."""
        palette = self._palette  # (forgotten at a style update, as the theme's colours are)
        if palette is None:
            colors = self.colors
            palette = self._palette = Palette(colors[2], colors[3])
        return palette

    # -- drawing ----------------------------------------------------------------

    def repaint(self, *, now: bool = False) -> None:
        """Paint afresh and mark the rows that changed (none: nothing is redrawn).

        ``now``: write the changed rows to the terminal at once, outside Textual's next
        frame, where the app can (:meth:`tui.app.VoltageApp.paint_now`): for a change
        nothing else on the screen follows, such as a clock's second."""
        if not self.is_mounted:
            return
        width, height = self.size
        if width <= 0 or height <= 0:
            self._strips, self._raw = [], []
            return
        rows = self.paint(width, height)[:height]
        rows.extend([] for _ in range(height - len(rows)))
        # The theme's colours under every segment: a terminal's own default colours
        # (what a segment without them would get) need not match the theme.
        # (read again only after a style update, which every change of this widget's or
        # an ancestor's rules, the theme's and the colour choice's makes: walking the
        # ancestors' styles was a fifth of a repaint, and a third of a clock's tick)
        theme = getattr(self.app, "theme", None)
        if self._base is not None and theme == self._base_theme and not self._restyled:
            base, filtered = self._base, self._filtered
        else:
            base, filtered = self.rich_style, self._filters_now()
            self._restyled = False
        self._base_theme = theme
        full = (
            (width, height) != self._painted_size or len(self._raw) != height
            or base != self._base or filtered != self._filtered
        )
        if full:
            self._over_base, self._styled = {}, {}
        self._filtered = filtered
        over = self._over_base  # style -> base + style, filtered, for this theme
        # segment as painted -> (as drawn, its cells), for this theme: what the rows shown and the last
        # ones drawn were made of (each segment looked up once; emptied of the rest when it grows)
        styled = self._styled

        def draw(seg: Segment) -> tuple[Segment, int]:
            style = seg.style
            combined = over.get(style)
            if combined is None:
                combined = base + style if style else base
                if filtered is not None:
                    filters, background = filtered
                    for f in filters:
                        combined = f.apply([Segment(" ", combined)], background)[0].style or combined
                over[style] = combined
            done = styled[seg] = (Segment(seg.text, combined, seg.control), seg.cell_length)
            return done

        old_raw, old = self._raw, self._strips
        strips: list[Strip] = []
        changed: list[int] = []
        for y, row in enumerate(rows):
            if not full and row == old_raw[y]:
                strips.append(old[y])
                continue
            changed.append(y)
            segments = []
            cells = 0
            for seg in row:
                drawn = styled.get(seg) or draw(seg)
                segments.append(drawn[0])
                cells += drawn[1]
            if cells != width:  # cut or padded to the width
                segments = [(styled.get(seg) or draw(seg))[0] for seg in fit(row, width)]
            strips.append(Strip(segments, width))
        self._raw, self._strips, self._base = rows, strips, base
        if len(styled) > 2 * sum(map(len, rows)) + 64:  # kept: the segments of the rows shown (and a few more)
            self._styled = {seg: styled[seg] for row in rows for seg in row if seg in styled}
        if full:
            self._painted_size = (width, height)
            self.refresh()
            return
        # Mark runs of changed rows dirty; the rest stays on screen as it is.
        runs: list[Region] = []
        start = prev = -1
        for y in changed:
            if start < 0:
                start = prev = y
            elif y == prev + 1:
                prev = y
            else:
                runs.append(Region(0, start, width, prev - start + 1))
                start = prev = y
        if start >= 0:
            runs.append(Region(0, start, width, prev - start + 1))
        for region in runs:
            if now:
                self.paint_now(region)
            else:
                self.paint_soon(region)

    def paint_chars(self, x: int, y: int, chars: str) -> None:
        """Write ``chars`` from (``x``, ``y``) of the content at once, each in the style its cell shows
        now, where the app can (:meth:`tui.app.VoltageApp.paint_chars`: no row rendered, none compared);
        else as :meth:`paint_now`.  The widget's lines must hold them already, in those styles."""
        paint_chars = getattr(self.app, "paint_chars", None)
        if paint_chars is None or not paint_chars(self, x, y, chars):
            self.paint_now(Region(x, y, len(chars), 1))

    def paint_now(self, region: Region) -> None:
        """Write ``region`` (changed since the last frame) to the terminal at once, where
        the app can (:meth:`tui.app.VoltageApp.paint_now`); else refresh it for the next frame."""
        paint_now = getattr(self.app, "paint_now", None)
        if paint_now is None or not paint_now(self, region):
            self.refresh(region)

    def paint_soon(self, region: Region) -> None:
        """Have ``region`` (changed) written with the other rows changed in this turn of the loop,
        without a compositor frame, where the app can (:meth:`tui.app.VoltageApp.paint_soon`);
        else refresh it for the next frame."""
        paint_soon = getattr(self.app, "paint_soon", None)
        if paint_soon is None or not paint_soon(self, region):
            self.refresh(region)

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines of ``crop``: for a plain widget (no padding, outline, tint, hatch or
        opacity, no border but a top one: every painted widget here), the painted strips
        themselves, with the app's line filters; else through Textual's styles cache.

        What the styles cache does to a plain widget's line is nothing but copy it into a
        new strip and filter it (:mod:`tui.textual_compat.lines`, where Textual's version
        decides whether this path is taken); the copy defeats the strip's own filter cache,
        so every frame filtered every dirty line again.  A top border alone (the log's rule
        and title) is still Textual's to draw: its row comes from the styles cache, the rows
        under it are the painted strips."""
        if not self._is_plain():
            return super().render_lines(crop)
        top = self._top
        if crop.y < top:  # the top border's row
            edge = Region(crop.x, crop.y, crop.width, min(crop.bottom, top) - crop.y)
            rest = Region(crop.x, top, crop.width, crop.bottom - top)
            return super().render_lines(edge) + (self.render_lines(rest) if rest.height > 0 else [])
        crop = crop.translate((0, -top))  # in the content's rows
        width, height = self.size
        if self._painted_size != (width, height):
            self.repaint()
        strips = self._strips[crop.y : crop.bottom]
        if len(strips) < crop.height:
            strips = strips + [Strip.blank(width, self.rich_style)] * (crop.height - len(strips))
        strips = filter_lines(self, strips, self._filtered)
        x1, x2 = crop.column_span
        if (x1, x2) != (0, width):
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips

    # The app's line filters (Textual's ``ANSIToTruecolor``: ANSI colours as the theme's
    # truecolor, dim as a blend) act on each segment's style alone, so a painted row's styles
    # are filtered once, when the row is made, instead of every strip in every frame (a
    # filter's own cache of styles holds 1,024 for the whole process: a server of a hundred
    # apps made each style again, a tenth of its CPU).  Filters of other kinds, or none known,
    # are applied to the strips as Textual does.
    _SEGMENT_FILTERS = frozenset({"ANSIToTruecolor", "NoColor", "Monochrome", "DimFilter"})

    def _filters_now(self) -> tuple[tuple[LineFilter, ...], Color] | None:
        """The app's enabled line filters and this widget's background, when every one of
        them works a segment at a time (see above) and the widget is plain (else its lines
        go through the styles cache and the filters as Textual draws them); else None."""
        if not self._is_plain():
            return None
        return filters_for_rows(self, self._SEGMENT_FILTERS)

    def _is_plain(self) -> bool:
        plain = self._plain
        if plain is None:
            styles = self.styles
            (border_top, _), *sides = styles.border
            self._top = 1 if border_top else 0
            plain = (
                not self.BLANK
                and not any(kind for kind, _ in sides)
                and not any(kind for kind, _ in styles.outline)
                and not any(styles.padding)
                and not styles.tint.a
                and styles.text_opacity == 1.0
                and not (styles.has_rule("hatch") and styles.hatch != "none")
                and plain_lines()
            )  # (and no links: what styles cache does for auto_links needs a link's @click)
            forget_drawn_lines(self)  # lines the styles cache kept may be from the other path
            # (opacity: nothing here sets it, so it is read with the styles, not each frame)
            plain = self._plain = plain and self.opacity == 1.0
        return plain and not (self.show_vertical_scrollbar or self.show_horizontal_scrollbar)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self._painted_size != (width, self.size.height):
            self.repaint()
        if 0 <= y < len(self._strips):
            return self._strips[y]
        return Strip.blank(width, self.rich_style)

    def on_resize(self) -> None:
        self.repaint()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette = None
        self._restyled = True
        self._plain = None
        self._painted_size = (0, 0)  # colours may have changed: paint afresh when next drawn


class Palette:
    """Styles blended from a theme's background and foreground (``fg(0.4)`` is ``$foreground 40%``)."""

    def __init__(self, bg: Color, fg: Color) -> None:
        self.bg = bg
        self.fg = fg
        self._cache: dict[tuple, object] = {}

    def mix(self, alpha: float, under: Color | None = None) -> Color:
        """The foreground at ``alpha`` over ``under`` (the theme's background by default)."""
        key = ("mix", alpha, under)
        c = self._cache.get(key)
        if c is None:
            c = (under or self.bg).blend(self.fg, alpha)
            self._cache[key] = c
        return c  # type: ignore[return-value]

    def style(
        self,
        fg: Color | str | None = None,
        bg: Color | str | None = None,
        *,
        bold: bool = False,
        italic: bool = False,
        dim: bool = False,
        reverse: bool = False,
    ) -> Style:
        key = ("style", fg, bg, bold, italic, dim, reverse)
        s = self._cache.get(key)
        if s is None:
            s = Style(
                color=_rich(fg),
                bgcolor=_rich(bg),
                bold=bold or None,
                italic=italic or None,
                dim=dim or None,
                reverse=reverse or None,
            )
            self._cache[key] = s
        return s  # type: ignore[return-value]


def _rich(c: Color | str | None):  # noqa: ANN202 - a rich Color or None
    if c is None:
        return None
    if isinstance(c, str):
        c = Color.parse(c)
    return c.rich_color


class TextLines(LineWidget):
    """Rich text, painted: a ``Static`` without Textual's content pipeline and its relayouts."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.text = Text()
        self._text_rows: list[Row] = []

    def set_text(self, text: Text, *, now: bool = False) -> None:
        """Show ``text`` (``now``: see :meth:`LineWidget.repaint`)."""
        if text.plain == self.text.plain and text.spans == self.text.spans and text.style == self.text.style:
            return
        self.text = text
        rows = text_rows(text)
        relayout = len(rows) != len(self._text_rows)
        self._text_rows = rows
        if relayout and self.styles.height is not None and self.styles.height.is_auto:
            self.refresh(layout=True)
            now = False
        self.repaint(now=now)

    def paint(self, width: int, height: int) -> list[Row]:
        return self._text_rows

    def render(self) -> Text:  # what it shows, as text (drawing goes through render_line)
        return self.text

    def get_content_height(self, container, viewport, width: int) -> int:  # noqa: ANN001
        return max(1, len(self._text_rows))

    def get_content_width(self, container, viewport) -> int:  # noqa: ANN001
        return max((Segment.get_line_length(r) for r in self._text_rows), default=1)
