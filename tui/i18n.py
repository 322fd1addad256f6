"""The session's language: every sentence the tui words goes through ``_()`` here.

Three languages: English (the messages as written), Catalan and Spanish, whose catalogs
are ``tui/locale/<code>/LC_MESSAGES/voltage.mo`` (compiled from the ``.po`` beside them by
``make catalogs`` and committed, so an editable install and a wheel both have them),
read by the standard library's :mod:`gettext`.

The language in use is the current session's, a :class:`Speech` kept in a
:class:`contextvars.ContextVar`: many sessions share one process and one event loop, and
each session's app runs in a context of its own (every task and callback of that app
copies it), so two seats of one match may read two languages.  The context holds the
session's one :class:`Speech` object, and changing the language (the settings screen)
changes that object in place: every task of the session, each with its own copy of the
context, reads the new language at once.  With no session (a test, a server's own
English output) the messages are as written.

A session's language comes from the client's locale (:func:`client_language`: ``LC_ALL``,
then ``LC_MESSAGES``, then ``LANG``; ``ca*`` Catalan, ``es*`` Spanish, anything else
English), unless the player chose one in the settings (kept for a key).  Messages take
their values as ``%(name)s`` placeholders filled from a dict (a translator may reorder
them); a count goes through :func:`ngettext`.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import gettext
import logging
from collections.abc import Iterator, Mapping
from pathlib import Path

log = logging.getLogger(__name__)

DOMAIN = "voltage"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
#: The languages a session may read, by code; English first (the messages as written).
LANGUAGES: tuple[str, ...] = ("en", "ca", "es")
#: Each language as its speakers name it (the settings screen's line shows these, untranslated).
LANGUAGE_NAMES = {"en": "English", "ca": "Català", "es": "Español"}
#: The client's environment names that tell its language, strongest first (as POSIX has it).
LOCALE_NAMES: tuple[str, ...] = ("LC_ALL", "LC_MESSAGES", "LANG")

ENGLISH = gettext.NullTranslations()  # the messages as written


@functools.cache
def translation(code: str) -> gettext.NullTranslations:
    """The catalog of the language ``code`` (English, or a language without its catalog: the
    messages as written)."""
    if code not in LANGUAGES or code == "en":
        return ENGLISH
    try:
        return gettext.translation(DOMAIN, LOCALE_DIR, languages=[code])
    except OSError:
        log.warning("no %s catalog in %s: the %s messages are shown in English", code, LOCALE_DIR, code)
        return ENGLISH


def locale_language(value: str) -> str:
    """The language of a locale name: ``ca_ES.UTF-8`` -> ``"ca"``, ``es_AR`` -> ``"es"``,
    anything else (``C``, ``en_GB.UTF-8``, ``de``) -> ``"en"``."""
    value = value.strip().lower()
    for code in LANGUAGES[1:]:
        if value.startswith(code):
            return code
    return "en"


def client_language(env: Mapping[str, str]) -> str:
    """The language of a client's locale: the first of ``LC_ALL``, ``LC_MESSAGES`` and ``LANG``
    that is set and not empty decides (``voltage play``: this process's environment)."""
    for name in LOCALE_NAMES:
        value = env.get(name)
        if value:
            return locale_language(str(value))
    return "en"


def chosen(kept: object, env: Mapping[str, str]) -> str:
    """A session's language: the one the player chose (``kept``, a setting), if it is one of
    :data:`LANGUAGES`, else the client's locale's."""
    return kept if isinstance(kept, str) and kept in LANGUAGES else client_language(env)


class Speech:
    """A session's language: its code and catalog, changed in place (see the module's notes)."""

    def __init__(self, language: str | gettext.NullTranslations = "en") -> None:
        self.code = "en"
        self.translation: gettext.NullTranslations = ENGLISH
        self.set(language)

    def set(self, language: str | gettext.NullTranslations) -> None:
        if isinstance(language, str):
            self.code = language if language in LANGUAGES else "en"
            self.translation = translation(self.code)
        else:  # a catalog of its own (a test's)
            self.translation = language
            self.code = str(language.info().get("language", "") or "en") if language is not ENGLISH else "en"


#: The current session's language (None: English, the messages as written).
_current: contextvars.ContextVar[Speech | None] = contextvars.ContextVar("voltage_speech", default=None)


def _translation() -> gettext.NullTranslations:
    speech = _current.get()
    return speech.translation if speech is not None else ENGLISH


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


def NP_(context: str, message: str) -> str:
    """Marks ``message`` in ``context`` for translation where it is defined (a key's short words:
    ``NP_("short", "see the board")``); ``pgettext()`` words it where it is used."""
    return message


def short(message: str) -> str:
    """``message``'s short form in the current session's language (its entry in the context
    ``short``), or ``message`` worded as it is when the language has none (English: the
    messages as written are the short ones)."""
    t = _translation()
    words = t.pgettext("short", message)
    kept = getattr(t, "_catalog", None)  # (a short form may read as the English does: "no")
    return words if words != message or (kept is not None and f"short\x04{message}" in kept) else t.gettext(message)


def translations() -> gettext.NullTranslations:
    """The current session's translation."""
    return _translation()


def current() -> str:
    """The current session's language code (``"en"`` with no session)."""
    speech = _current.get()
    return speech.code if speech is not None else "en"


def speech() -> Speech | None:
    """The current session's :class:`Speech` (None: no session set one in this context)."""
    return _current.get()


def use(language: str | gettext.NullTranslations | Speech) -> contextvars.Token[Speech | None]:
    """Word this context's sentences in ``language`` (a code, a catalog or a session's
    :class:`Speech`) from now on: a session's start, before its app is made."""
    return _current.set(language if isinstance(language, Speech) else Speech(language))


def reset(token: contextvars.Token[Speech | None]) -> None:
    """Undo a :func:`use` (a session's end)."""
    _current.reset(token)


def switch(code: str) -> None:
    """The session changes its language (the settings screen): every task of the session reads
    it from now on.  A context with no session's :class:`Speech` gets one of its own."""
    speech = _current.get()
    if speech is None:
        use(code)
    else:
        speech.set(code)


def ensure() -> Speech:
    """The context's :class:`Speech`, made (English) if it has none: an app run with no session
    around it (a test's) still has one language for all its tasks."""
    speech = _current.get()
    if speech is None:
        speech = Speech("en")
        _current.set(speech)
    return speech


@contextlib.contextmanager
def language(language: str | gettext.NullTranslations) -> Iterator[None]:
    """Word the sentences made inside the block in ``language`` (a code, or a catalog:
    ``ENGLISH``)."""
    token = use(language)
    try:
        yield
    finally:
        _current.reset(token)
