"""Text pieces the widgets share: names made safe, cards, card backs and blocks.

Everything here returns :class:`rich.text.Text` built from plain strings, never
markup, so a player called ``[red]`` or ``\\x1b[2J`` is shown literally.
Colour is never the only cue: every card carries its colour's letter (or a
special's symbol), every block its sign.

Words are never cut mid-word.  A text that may not fit has shorter
*forms* of the same meaning (:class:`Forms`, longest first), and a widget shows
the longest form that fits (:func:`fit_forms`); only when even the shortest is
too long (a very long name, a very narrow box) is it cut, at a word boundary,
with an ellipsis (:func:`fit_words`).  Cutting by cells would leave "6 ca" or
"done, draw …", which reads as a broken screen rather than a short one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from rich.cells import cell_len, set_cell_size
from rich.style import Style
from rich.text import Text

from engine.voltage.cards import BYPASS, COLOUR_LETTERS, FUSE, Card
from tui.i18n import N_, _, translations

# The minus sign in words: U+2212, the sign the board's blocks show, so the log and
# the board never disagree ("flipped green to −", not an ASCII hyphen).
MINUS = "−"

# Card colours (backgrounds) and the text drawn on them; chosen to read on dark and
# light themes alike (the card has its own background), in truecolour and 256 colours.
CARD_BG = ("#e0781f", "#2f9a48", "#2f6fd0", "#8a4fc8")
CARD_FG = ("#101010", "#08140b", "#ffffff", "#ffffff")
SPECIAL_BG = "#303030"
SPECIAL_FG = "#ffd23c"
BACK_BG = "#5a4a8a"
BACK_FG = "#e8e0ff"
TERMINAL_FG = ("#f08a30", "#3cb85a", "#4a8ae8", "#a56ae0")

SYMBOL = {BYPASS: "↔", FUSE: "×"}
SHORT = {BYPASS: "BY", FUSE: "FU"}
WORD = {BYPASS: N_("bypass"), FUSE: N_("fuse")}  # (worded with _() where drawn)
#: A Voltage terminal's colour, worded where it is drawn (the engine's ``COLOURS``).
COLOUR_WORDS = (N_("orange"), N_("green"), N_("blue"), N_("purple"))
TRANSFORMER_MARK = "V"


def plain(text: str, width: int | None = None) -> str:
    """``text`` made safe for a terminal: control and format characters dropped, and cut
    to ``width`` with an ellipsis."""
    out = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
    if width is not None and len(out) > width:
        out = out[: width - 1] + "…"
    return out


def safe(text: str) -> str:
    """``text`` with every control or format character shown as an escape (``\\x1b``).

    Names and log lines pass through here before they reach a widget: nothing a
    player types can move the cursor, clear the screen or reorder the line.
    """
    out: list[str] = []
    for ch in text:
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


class Forms(str):
    """A text (its longest form) that also knows shorter forms of the same meaning.

    A ``str``, so anything that compares, formats or stores it sees the longest
    form; a widget that lacks room asks :func:`fit_forms` for a shorter one.
    Passing the forms along inside the string keeps every caller (a screen, a
    test) unchanged: only the widget that draws it needs to know.
    """

    forms: tuple[str, ...]

    def __new__(cls, *forms: str) -> Forms:
        if not forms:
            raise ValueError("Forms needs at least one form")
        self = super().__new__(cls, forms[0])
        self.forms = tuple(forms)
        return self


def forms_of(text: str | Iterable[str]) -> tuple[str, ...]:
    """Every form of ``text``, longest first (a plain ``str`` has one)."""
    if isinstance(text, Forms):
        return text.forms
    if isinstance(text, str):
        return (text,)
    return tuple(text)


def fit_words(text: str, width: int) -> str:
    """``text`` if it fits in ``width`` cells; else cut after its last whole word that
    fits, with an ellipsis (a single word longer than ``width`` is cut with one)."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    room = set_cell_size(text, width - 1)
    cut = room.rstrip()
    if not text[len(room) : len(room) + 1].isspace():  # the cut fell inside a word: drop it
        space = cut.rfind(" ")
        if space > 0:
            cut = cut[:space]
    return cut.rstrip(" ,:;—-") + "…"


def fit_forms(text: str | Iterable[str], width: int) -> str:
    """The longest form of ``text`` that fits in ``width`` cells (the shortest cut at a
    word boundary when none fits)."""
    forms = forms_of(text)
    for form in forms:
        if cell_len(form) <= width:
            return form
    return fit_words(forms[-1], width)


def name_text(name: str, style: str | Style = "") -> Text:
    """A player's name as plain text (never markup)."""
    return Text(safe(name), style=style, no_wrap=True, overflow="ellipsis")


def card_style(card: Card) -> Style:
    if card.special:
        return Style(color=SPECIAL_FG, bgcolor=SPECIAL_BG, bold=True)
    return Style(color=CARD_FG[card.colour], bgcolor=CARD_BG[card.colour], bold=True)


def card_label(card: Card) -> str:
    """Three cells: ``2 O`` for a number card, ``↔BY`` / ``×FU`` for the specials."""
    if card.special:
        return SYMBOL[card.face] + SHORT[card.face]
    return f"{card.value} {COLOUR_LETTERS[card.colour]}"


def chip(card: Card, *, wide: bool = False) -> Text:
    """One card on one line: `` 2 O `` on its colour, with ``V`` when its back is a transformer.

    ``wide`` adds the colour's name (``2 O orange``) or the special's word.
    """
    label = card_label(card)
    if wide:
        word = _(WORD[card.face]) if card.special else _(COLOUR_WORDS[card.colour])
        label = f"{label} {word:<6}"
    t = Text(f" {label} ", style=card_style(card))
    t.append(TRANSFORMER_MARK if card.transformer else " ", style=card_style(card) + Style(italic=True))
    return t


def card_lines(card: Card, width: int, height: int) -> list[Text]:
    """A card drawn as a block ``width`` cells wide and ``height`` (1-3) lines tall.

    1 line: `` 2 O  V``; 2 lines: value and letter, then the colour's name;
    3 lines: a corner index top-left and bottom-right, the name in the middle.
    The transformer mark ``V`` sits at the right of the first line.
    """
    style = card_style(card)
    mark = TRANSFORMER_MARK if card.transformer else " "
    if card.special:
        corner, word, letter = SYMBOL[card.face], _(WORD[card.face]), SHORT[card.face]
    else:
        corner, word, letter = str(card.value), _(COLOUR_WORDS[card.colour]), COLOUR_LETTERS[card.colour]
    if height <= 1:
        label = card_label(card)
        if width >= len(label) + len(word) + 4:
            label = f"{label} {word}"
        body = f" {label}".ljust(width - 1)[: width - 1] + mark
        return [Text(body, style=style)]
    first = f" {corner} {letter}".ljust(width - 1)[: width - 1] + mark
    # (a word too long for the card is left out, never cut: its letter and colour say it)
    name = (word if len(word) <= width else "").center(width)
    if height == 2:
        return [Text(first, style=style), Text(name, style=style)]
    last = f"{letter} {corner} ".rjust(width)[-width:]
    return [Text(first, style=style), Text(name, style=style), Text(last, style=style)]


def slot_lines(label: str, width: int, height: int) -> list[str]:
    """An empty place a card may go: a dashed box around ``label``."""
    if height <= 1:
        return [f"╌{label}╌".center(width, "╌")[:width]]
    inner = max(1, width - 2)
    top = "┌" + "╌" * inner + "┐"
    mid = "╎" + label.center(inner)[:inner] + "╎"
    bottom = "└" + "╌" * inner + "┘"
    if height == 2:
        return [mid, bottom]
    return [top, mid, bottom]


def back(transformer: bool) -> Text:
    """A card back: ``▒▒`` or ``V▒`` (a transformer's back shows its V)."""
    style = Style(color=BACK_FG, bgcolor=BACK_BG, bold=True)
    return Text(f"{TRANSFORMER_MARK}▒" if transformer else "▒▒", style=style)


def backs(flags: tuple[bool, ...] | list[bool]) -> Text:
    t = Text(no_wrap=True)
    for i, tr in enumerate(flags):
        if i:
            t.append(" ")
        t.append_text(back(tr))
    return t




def sign(plus: bool) -> str:
    return "+" if plus else MINUS


def terminal_title(t: int) -> str:
    return f"{COLOUR_LETTERS[t]} {_(COLOUR_WORDS[t])}"


def score_track(score: int, *, wide: bool = False, goal: int = 4) -> Text:
    """A score track 0..goal: ``●●○○`` (or ``●━●━○─○`` when wide); the number follows."""
    t = Text(no_wrap=True)
    for i in range(goal):
        won = i < score
        if wide and i:
            t.append("━" if won else "─", style="bold" if won else "dim")
        t.append("●" if won else "○", style="bold" if won else "dim")
    t.append(f"  {score}/{goal}", style="bold")
    return t


#: The log lines that get a marker of their own, by kind: the messages that word them (as
#: tui/games/voltage/words.py does), matched in the session's language, so a Catalan or
#: Spanish log is marked as an English one is.
LOG_KINDS: dict[str, tuple[str, ...]] = {
    "score": (N_("%(colour)s (%(sign)s) scored %(a)d-%(b)d (tie: the fifth card loses): %(winner)s wins the set."),
              N_("%(colour)s (%(sign)s) scored %(a)d-%(b)d: %(winner)s wins the set.")),
    "flip": (N_("%(who)s flipped %(colour)s to %(sign)s."),),
    "end": (N_("The match is aborted: no result, no rating change."),
            N_("The match is drawn by agreement %(a)d-%(b)d."),
            N_("%(loser)s lost on time: %(winner)s wins the match %(won)d-%(lost)d."),
            N_("The match is drawn %(a)d-%(b)d (%(reason)s)."),
            N_("%(winner)s wins the match %(won)d-%(lost)d (%(reason)s)."),
            N_("%(who)s resigned.")),
    "transformer": (N_("%(who)s drew a transformer."),),
}
_PLACEHOLDER = re.compile(r"%\\\((\w+)\\\)[sd]")
_kind_patterns: dict[object, list[tuple[str, re.Pattern[str]]]] = {}  # by catalog


def _pattern(message: str) -> re.Pattern[str]:
    """A worded message as a pattern: its placeholders stand for any text."""
    return re.compile(_PLACEHOLDER.sub(".+?", re.escape(message).replace("%%", "%")) + r"$", re.S)


def classify_log(line: str) -> str:
    """The kind of a log line, for its marker: score, flip, end, transformer or plain (in the
    session's language: the messages of :data:`LOG_KINDS` as it words them)."""
    catalog = translations()
    patterns = _kind_patterns.get(catalog)
    if patterns is None:
        patterns = _kind_patterns[catalog] = [(kind, _pattern(_(m))) for kind, ms in LOG_KINDS.items() for m in ms]
    for kind, pattern in patterns:
        if pattern.match(line):
            return kind
    return "plain"


LOG_MARK = {"score": "★", "flip": "↕", "end": "■", "transformer": "V", "plain": "·"}


SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Iterable[int | float], width: int) -> str:
    """The last ``width`` of ``values`` as one line of bars, lowest to highest (``▁``..``█``)."""
    shown = list(values)[-width:] if width > 0 else []
    if not shown:
        return ""
    low, high = min(shown), max(shown)
    span = (high - low) or 1
    return "".join(SPARKS[round((v - low) * (len(SPARKS) - 1) / span)] for v in shown)
