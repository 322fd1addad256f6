"""Is every word on a screen one of its language's? For the tests of the three languages.

A screen rendered in Catalan (or Spanish) should hold only words its catalog's
translations use (and the rules page of that language), names (players, the games, the
languages as their speakers name them) and single letters or numbers (cards, keys).
Any other word is either English that was never put through ``_()`` (a leak) or a word
cut short by a narrow layout ("Configuraci"). The same check on an English screen, with
the English messages as the vocabulary, finds words cut mid-word at 80x24.

``unknown_words(text, "ca", allowed={"Alice"})`` lists the offending words, each once,
with whether it reads as English (a word of the English messages that no Catalan
message uses) or as cut/unknown.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from pathlib import Path

from babel.messages.pofile import read_po

from tui import i18n

TUI = Path(i18n.__file__).resolve().parent
WORD = re.compile(r"[^\W\d_]+", re.UNICODE)

#: Words any screen may hold whatever its language: the games' and languages' own names,
#: and what a terminal's keys are called on the key caps.
ALWAYS = frozenset(w.lower() for w in (
    *i18n.LANGUAGE_NAMES.values(), "Voltage", "High", "Voltaje", "Voltatge", "Alto", "Alt",
    "Esc", "Tab", "Enter", "Ctrl", "Shift", "PgUp", "PgDn", "Home", "End", "Del", "Backspace",
    "Space",  # (the key bar names the space bar by its key cap, as it names Esc and Tab)
    "ogbp",  # (Voltage's four terminal keys, as the key bar groups them: "ogbp flip")
    "st", "nd", "rd", "th",  # (an English place's ending, split from its number by the check: "1st")
))


def words(text: str) -> list[str]:
    """The words of ``text`` (letters only; digits, signs and box drawing split them)."""
    return WORD.findall(text)


def _catalog_words(code: str) -> set[str]:
    path = TUI / "locale" / (code if code != "en" else "ca") / "LC_MESSAGES" / "voltage.po"
    with path.open("rb") as f:
        catalog = read_po(f)
    found: set[str] = set()
    for message in catalog:
        if not message.id:
            continue
        text_of = message.id if code == "en" else message.string
        texts: Iterable[str | None] = text_of if isinstance(text_of, (list, tuple)) else [text_of]
        for text in texts:
            # (a placeholder's name is not a word anyone reads)
            found.update(w.lower() for w in words(re.sub(r"%\(\w+\)[sdifr]", " ", text or "")))
    return found


@functools.cache
def vocabulary(code: str) -> frozenset[str]:
    """Every word the language ``code`` may show: its catalog's messages, its rules page."""
    found = _catalog_words(code)
    page = TUI / ("rules.md" if code == "en" else f"rules.{code}.md")
    found.update(w.lower() for w in words(page.read_text(encoding="utf-8")))
    return frozenset(found | ALWAYS)


def unknown_words(text: str, code: str, allowed: Iterable[str] = ()) -> list[str]:
    """The words of ``text`` that the language ``code`` does not use, each once, in order:
    ``"Quick (English)"`` for a word only the English messages use, ``"Configuraci (cut or
    unknown)"`` for a word no message uses. ``allowed``: names on this screen (players...)."""
    known = vocabulary(code) | {w.lower() for name in allowed for w in words(name)}
    english = vocabulary("en")
    seen: set[str] = set()
    out: list[str] = []
    for word in words(text):
        low = word.lower()
        if len(word) == 1 or low in known or low in seen:
            continue
        seen.add(low)
        kind = "English" if code != "en" and low in english else "cut or unknown"
        out.append(f"{word} ({kind})")
    return out
