"""The session's language: every sentence the tui words goes through ``_()`` here.

The translation in use is the current session's, kept in a :class:`contextvars.ContextVar`:
many sessions share one process and one event loop, and each Textual app runs in a
context of its own, so two seats of one match may read two languages.  The default is
:class:`gettext.NullTranslations` (English, the messages as written).  Messages take
their values as ``%(name)s`` placeholders filled from a dict (a translator may reorder
them); a count goes through :func:`ngettext`.  Catalogs and choosing a language are the
languages issue's part; nothing here loads one yet.
"""

from __future__ import annotations

import contextlib
import contextvars
import gettext
from collections.abc import Iterator

ENGLISH = gettext.NullTranslations()  # the messages as written
#: The current session's translation (None: English).
_current: contextvars.ContextVar[gettext.NullTranslations | None] = contextvars.ContextVar(
    "voltage_translations", default=None
)


def _translation() -> gettext.NullTranslations:
    return _current.get() or ENGLISH


def _(message: str) -> str:
    """``message`` in the current session's language."""
    return _translation().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for the count ``n`` in the current session's language."""
    return _translation().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the current session's language, told apart by ``context`` (a word that
    reads one way in English and two ways elsewhere)."""
    return _translation().pgettext(context, message)


def N_(message: str) -> str:
    """Marks ``message`` for translation where it is defined (a table); ``_()`` words it where
    it is used."""
    return message


def translations() -> gettext.NullTranslations:
    """The current session's translation."""
    return _translation()


def use(translation: gettext.NullTranslations) -> contextvars.Token[gettext.NullTranslations | None]:
    """Word this context's sentences with ``translation`` from now on (a session's start)."""
    return _current.set(translation)


@contextlib.contextmanager
def language(translation: gettext.NullTranslations) -> Iterator[None]:
    """Word the sentences made inside the block with ``translation`` (English: ``NullTranslations()``)."""
    token = _current.set(translation)
    try:
        yield
    finally:
        _current.reset(token)

