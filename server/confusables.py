"""Names that look alike: a confusable skeleton, after Unicode TR 39 (section 4, "Confusable Detection").

Two names are alike when they are the same but for case (``fold``) or when their skeletons are equal
(``skeleton``): each character is replaced by the prototype it is confused with (TR 39's ``confusables.txt``
direction: ``0`` -> ``O``, ``1``, ``I`` and ``|`` -> ``l``, ``m`` -> ``rn``), once on the name as typed (``I``
is confusable with ``l``, ``i`` is not) and once more after case folding (``M`` folds to ``m``, which reads as
``rn``).  So with ``Alice`` taken, ``AIice`` (capital i), ``A1ice`` and ``ALICE`` are refused; with ``Bob``,
``B0b``; with ``Mary``, ``rnary``.  It errs on the side of refusing (``AIICE`` is alike to ``ALICE``): a
refused name costs its player another try, a lookalike lets them pass for someone else.

The table is data and small: TR 39's mappings among the characters a name may hold (letters, digits,
``_.-`` and spaces, see :func:`server.lobby.names.check_name`), and the Cyrillic and Greek letters that look
like Latin ones, in case names ever take more than ASCII (today they cannot, so a Cyrillic ``а`` never gets
this far).  Add a row to :data:`PROTOTYPES` (or :data:`SEQUENCES` for a pair of letters) to fold one more
lookalike.
"""

from __future__ import annotations

import functools
import unicodedata

#: One character -> the prototype it is confused with (case-sensitive, as TR 39's table is).
PROTOTYPES: dict[str, str] = {
    # Latin and digits (TR 39)
    "0": "O",
    "1": "l",
    "I": "l",
    "|": "l",
    # Cyrillic capitals
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C", "Т": "T",
    "Х": "X", "У": "Y", "Ѕ": "S", "І": "l", "Ј": "J", "Ԛ": "Q", "Ԝ": "W",
    # Cyrillic small letters
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ј": "j",
    "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l",
    # Greek capitals
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "l", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    # Greek small letters
    "ο": "o", "ν": "v", "ρ": "p", "ι": "i", "α": "a",
}

#: A letter -> the pair of letters it is confused with (TR 39 maps ``m`` to ``rn``).
SEQUENCES: dict[str, str] = {
    "m": "rn",
}

_TABLE = str.maketrans({**PROTOTYPES, **SEQUENCES})


def fold(name: str) -> str:
    """``name`` compared without case: NFKC, case-folded, inner spaces collapsed."""
    return " ".join(unicodedata.normalize("NFKC", name).casefold().split())


@functools.lru_cache(maxsize=8192)  # (each claim compares with every name online: each skeleton made once)
def skeleton(name: str) -> str:
    """What ``name`` looks like: its characters replaced by their prototypes, before and after case folding."""
    return fold(fold(unicodedata.normalize("NFKC", name).translate(_TABLE)).translate(_TABLE))


def alike(a: str, b: str) -> bool:
    """Do ``a`` and ``b`` look like one name (the same but for case, or one skeleton)?"""
    return fold(a) == fold(b) or skeleton(a) == skeleton(b)
