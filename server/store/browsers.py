"""Browsers linked to a key: the one-time link codes and the browsers' tokens, as the store keeps them.

A web player is a guest unless their browser is linked to a key.  From an SSH session of
that key, ``link`` gives a **code** (:data:`CODE_LENGTH` characters of Crockford's base 32,
shown ``ABCD-EFGH``: 40 bits, valid :data:`LINK_TTL` seconds, once; a key has at most one
live code, a new one replaces it).  Entered on the page, it gives that browser a **token**
(256 random bits) in a cookie; from then on the browser plays as the key.

Neither is stored as it is: the store keeps the SHA-256 of each (:func:`secret_hash`), so a
copy of the database links no browser.  A code is compared in its folded form
(:func:`fold_code`: case, spaces and dashes aside, ``O`` read as ``0``, ``I`` and ``L`` as
``1``), so what a person types from another screen still matches.  Guessing is the web
transport's to slow down (a budget of tries per address and overall); 40 bits against at
most one live code per key leaves a guess a chance of about one in 10^9 per thousand keys
holding a code.

A key keeps at most :data:`MAX_BROWSERS` browsers: linking one more forgets the one used
least recently.  ``unlink`` forgets them all.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

LINK_TTL = 600.0  # seconds a link code is good for
CODE_LENGTH = 8
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32: no I, L, O, U
MAX_BROWSERS = 20  # linked to one key at once
MAX_LABEL = 60  # characters kept of a browser's description

_READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1"})


def secret_hash(secret: str) -> str:
    """What the store keeps of a code or a token."""
    return hashlib.sha256(secret.encode()).hexdigest()


def new_code() -> str:
    """A fresh link code, as shown: ``ABCD-EFGH``."""
    raw = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    return f"{raw[:4]}-{raw[4:]}"


def fold_code(text: str) -> str | None:
    """``text`` as a code is compared (``abcd efgh`` -> ``ABCDEFGH``), or None when it cannot be one."""
    folded = "".join(ch for ch in text.upper() if ch not in " -").translate(_READ_AS)
    if len(folded) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in folded):
        return None
    return folded


def new_token() -> str:
    """A browser's token (what its cookie holds)."""
    return secrets.token_urlsafe(32)


@dataclass(frozen=True)
class BrowserRecord:
    """A browser linked to a key: what the key's settings screen lists (the token is never kept)."""

    token_hash: str
    identity: str
    label: str  # what the browser said it is, shortened ("Chrome on Linux")
    created: float
    last_seen: float
