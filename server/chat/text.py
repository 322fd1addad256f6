"""What a chat line may hold: plain text, at most :data:`MAX_CHARS` characters.

A line is shown on other people's terminals, so nothing in it may reach a terminal as
a command: every C0 and C1 control character (ESC, the one-byte CSI U+009B, BEL,
backspace, carriage return...) becomes a visible placeholder (U+241B "␛" for ESC, the
Control Pictures block for C0, U+FFFD for C1), so ``ESC [2J`` arrives as the inert
text "␛[2J" and a reader sees that something was there; tabs and line breaks become
spaces; bidi overrides and isolates are removed (they would reorder what the reader
sees); surrogates are dropped.  Markup is never interpreted: screens show a line as
plain ``Text``, so ``[bold]`` is shown as typed.  A longer line is cut (a 10,000
character paste becomes its first 200 characters).

Quick phrases (:data:`PHRASES`) are ids, worded by each reader in their own language
(:mod:`tui.chat.words`); a guest may use them where free text is refused.
"""

from __future__ import annotations

import unicodedata

MAX_CHARS = 200

#: The quick phrases a key away, in their order (lichess's presets): their ids.
PHRASES: tuple[str, ...] = ("hi", "glhf", "wp", "thanks", "gg")

# Bidi embeddings, overrides, isolates and marks: removed.
BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
SPACES = frozenset("\t\n\v\f\r\u2028\u2029\x85")


def _visible(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block: "␛" for ESC, "␇" for BEL
    if code == 0x7F:
        return "\u2421"  # "␡"
    return "\ufffd"  # C1 (U+0080..U+009F: the one-byte CSI, OSC, ST...)


def clean(text: str) -> str:
    """``text`` as a line others may read: see the module's notes.  Never longer than
    :data:`MAX_CHARS`; leading and trailing spaces gone, runs of spaces kept as typed."""
    out: list[str] = []
    n = 0
    for ch in text[: MAX_CHARS * 4]:  # (a paste is cut before the work, then again after it)
        if ch in SPACES:
            ch = " "
        elif ch in BIDI:
            continue
        else:
            cat = unicodedata.category(ch)
            if cat == "Cs":
                continue
            if cat == "Cc":
                ch = _visible(ch)
        out.append(ch)
        n += 1
    return "".join(out).strip()[:MAX_CHARS].rstrip()
