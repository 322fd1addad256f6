"""The message catalogs: extract, update and compile them (``make catalogs``), and check them (a test).

- extract: every ``_()``, ``ngettext()``, ``pgettext()`` and ``N_()`` of the packages (``babel.cfg``
  says which files) into ``tui/locale/voltage.pot``, each message with the files it comes from
  (no line numbers: moving a line changes nothing) and the ``TRANSLATORS:`` comment above it;
- update: each language's ``.po`` follows the template: a new message comes in untranslated (or
  as a fuzzy guess from a similar old one, for the translator to confirm), a message gone from the
  code is dropped (no obsolete entries), the plural forms are the language's;
- compile: each ``.po`` into the ``.mo`` beside it, which the package ships and loads at run time
  with the standard library's :mod:`gettext` (committed: ``pip install -e .`` and a wheel both have
  them, and installing needs no Babel);
- check (:func:`problems`, run by ``tests/test_catalogs.py``): every message of the code is in each
  ``.po``, translated, not fuzzy, with the same ``%(name)s`` placeholders as its English, every
  plural form present, nothing obsolete, and each ``.mo`` holds what its ``.po`` says.

A file is written only when its messages change, so a second run changes nothing (the header's
dates stay as they are).  Babel is a test and development dependency only.

    python tools/catalogs.py          # extract, update, compile (make catalogs)
    python tools/catalogs.py --check  # the problems, one a line; exit status 1 if any
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

REPO = Path(__file__).resolve().parent.parent
PACKAGES = tuple(REPO / name for name in ("engine", "server", "tui", "voltage"))
LOCALE = REPO / "tui" / "locale"
DOMAIN = "voltage"
TEMPLATE = LOCALE / f"{DOMAIN}.pot"
#: The translated languages and their plural forms (one form for 1, another for every other count).
PLURAL_FORMS = {
    "ca": "nplurals=2; plural=(n != 1);",
    "es": "nplurals=2; plural=(n != 1);",
}
#: Words the code replaces in a message after translating it (``tui.words.web_page``): kept as they are.
LITERALS = ("ssh HOST",)
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2), "pgettext": ((1, "c"), 2), "NP_": ((1, "c"), 2)}
COMMENT_TAGS = ("TRANSLATORS:",)
WIDTH = 100
#: A placeholder of Python's ``%`` formatting: ``%(name)s``, ``%(n)d``, ``%(seconds).0f``; or ``%%``.
PLACEHOLDER = re.compile(r"%(?:\((?P<name>[^)]*)\))?[#0 +\-]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?P<kind>[a-zA-Z%])")


def po_path(lang: str, locale: Path = LOCALE) -> Path:
    return locale / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(lang: str, locale: Path = LOCALE) -> Path:
    return po_path(lang, locale).with_suffix(".mo")


def _shown(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


# -- extracting --------------------------------------------------------------------


def extract(roots: Iterable[Path] = PACKAGES) -> Catalog:
    """The template: every message the code marks, in the order the files are read."""
    with open(REPO / "babel.cfg", encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f)
    template = Catalog(project="Voltage", domain=DOMAIN, charset="utf-8", fuzzy=False)
    for root in roots:
        root = Path(root)
        prefix = root.relative_to(REPO).as_posix() if root.is_relative_to(REPO) else root.name
        found = extract_from_dir(root, method_map, options_map, keywords=KEYWORDS, comment_tags=COMMENT_TAGS,
                                 strip_comment_tags=True)
        for filename, _lineno, message, comments, context in found:
            template.add(message, None, [(f"{prefix}/{filename}", None)], auto_comments=comments, context=context)
    return template


# -- reading and writing -------------------------------------------------------------


def read(path: Path, lang: str | None = None) -> Catalog:
    with open(path, "rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def po_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_po(out, catalog, width=WIDTH, include_lineno=False, ignore_obsolete=True)
    return out.getvalue()


def mo_bytes(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


_DATES = re.compile(rb'^"(?:POT-Creation-Date|PO-Revision-Date): [^"]*\\n"\n', re.MULTILINE)


def write_if_changed(path: Path, data: bytes, *, dates_matter: bool = False) -> bool:
    """Write ``data`` unless the file says the same (apart from its header's dates)."""
    if path.exists():
        old = path.read_bytes()
        if old == data or (not dates_matter and _DATES.sub(b"", old) == _DATES.sub(b"", data)):
            return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def set_plural_forms(catalog: Catalog, lang: str) -> None:
    if catalog.plural_forms != PLURAL_FORMS[lang]:
        catalog.mime_headers = [("Plural-Forms", PLURAL_FORMS[lang])]  # (sets that header, keeps the others)


def update() -> list[str]:
    """Extract, update every language's catalog, compile: the files written."""
    written: list[str] = []
    template = extract()
    if write_if_changed(TEMPLATE, po_bytes(template)):
        written.append(str(TEMPLATE.relative_to(REPO)))
    for lang in PLURAL_FORMS:
        path = po_path(lang)
        if path.exists():
            catalog = read(path, lang)
        else:
            catalog = Catalog(locale=lang, domain=DOMAIN, project="Voltage", charset="utf-8", fuzzy=False)
        set_plural_forms(catalog, lang)
        catalog.update(template, update_creation_date=False)
        catalog.obsolete.clear()
        if write_if_changed(path, po_bytes(catalog)):
            written.append(str(path.relative_to(REPO)))
        compiled = read(path, lang)  # (as it is on disk: what a translator wrote)
        if write_if_changed(mo_path(lang), mo_bytes(compiled), dates_matter=True):
            written.append(str(mo_path(lang).relative_to(REPO)))
    return written


# -- checking ------------------------------------------------------------------------


def placeholders(text: str) -> list[str]:
    """The ``%`` placeholders of a message, sorted (``%%`` left out): ``['%(n)d', '%(name)s']``."""
    return sorted(m.group(0) for m in PLACEHOLDER.finditer(text) if m.group("kind") != "%")


def _key(message: Message) -> tuple[str, str | None]:
    mid = message.id if isinstance(message.id, str) else message.id[0]
    return mid, message.context


def _forms(message: Message) -> tuple[list[str], list[str]]:
    """The English forms and the translated ones of a message."""
    ids = [message.id] if isinstance(message.id, str) else list(message.id)
    strings = [message.string] if isinstance(message.string, str) else list(message.string or ())
    return ids, strings


def problems(roots: Sequence[Path] = PACKAGES, langs: Iterable[str] = tuple(PLURAL_FORMS),
             locale: Path = LOCALE) -> list[str]:
    """Everything wrong with the catalogs in ``locale``, one line each (none: all is well), for the
    messages of the files under ``roots``."""
    found: list[str] = []
    template = extract(roots)
    wanted = {_key(m): m for m in template if m.id}
    template_path = locale / TEMPLATE.name
    on_disk = {_key(m) for m in read(template_path) if m.id} if template_path.exists() else set()
    if on_disk != set(wanted):
        found.append(f"{_shown(template_path)} is not the code's messages: run `make catalogs`")
    for lang in langs:
        path = po_path(lang, locale)
        if not path.exists():
            found.append(f"{lang}: no catalog {_shown(path)}: run `make catalogs`")
            continue
        catalog = read(path, lang)
        if catalog.plural_forms != PLURAL_FORMS[lang]:
            found.append(f"{lang}: Plural-Forms is {catalog.plural_forms!r}, not {PLURAL_FORMS[lang]!r}")
        have = {_key(m): m for m in catalog if m.id}
        for key, english in wanted.items():
            message = have.get(key)
            where = ", ".join(sorted({loc for loc, _n in english.locations}))
            if message is None:
                found.append(f"{lang}: missing {key[0]!r} ({where}): run `make catalogs`, then translate it")
                continue
            if message.fuzzy:
                found.append(f"{lang}: fuzzy {key[0]!r}: check the translation and remove the fuzzy flag")
            if isinstance(english.id, str) != isinstance(message.id, str):
                found.append(f"{lang}: {key[0]!r} is a plural message in one file and not the other")
                continue
            ids, strings = _forms(message)
            if not any(strings):
                found.append(f"{lang}: untranslated {key[0]!r} ({where})")
                continue
            if len(ids) > 1 and (len(strings) != catalog.num_plurals or not all(strings)):
                found.append(f"{lang}: {key[0]!r} lacks a plural form ({catalog.num_plurals} wanted)")
            for i, string in enumerate(strings):
                source = ids[min(i, len(ids) - 1)]
                if placeholders(string) != placeholders(source):
                    found.append(f"{lang}: {string!r} has placeholders {placeholders(string)}, its English "
                                 f"{source!r} {placeholders(source)}")
                for literal in LITERALS:
                    if source.count(literal) != string.count(literal):
                        found.append(f"{lang}: {string!r} must keep {literal!r} as its English has it (the code "
                                     "fills it in)")
        for key in have.keys() - wanted.keys():
            found.append(f"{lang}: obsolete {key[0]!r} (no longer in the code): run `make catalogs`")
        if catalog.obsolete:
            found.append(f"{lang}: {len(catalog.obsolete)} obsolete entries kept: run `make catalogs`")
        found += _compiled(lang, catalog, mo_path(lang, locale))
    return found


def _compiled(lang: str, catalog: Catalog, path: Path) -> list[str]:
    """Does the ``.mo`` hold what the ``.po`` says?"""
    if not path.exists():
        return [f"{lang}: no compiled catalog {_shown(path)}: run `make catalogs`"]
    with open(path, "rb") as f:
        compiled = read_mo(f)

    def table(c: Catalog, skip_fuzzy: bool) -> dict[tuple[str, str | None], object]:
        return {_key(m): m.string if isinstance(m.string, str) else tuple(m.string)
                for m in c if m.id and m.string and not (skip_fuzzy and m.fuzzy)}

    if table(compiled, False) != table(catalog, True) or compiled.plural_forms != catalog.plural_forms:
        return [f"{lang}: {_shown(path)} is older than its .po: run `make catalogs`"]
    return []


def main(argv: Sequence[str]) -> int:
    if "--check" in argv:
        found = problems()
        for line in found:
            print(line)
        return 1 if found else 0
    for name in update():
        print(f"wrote {name}")
    found = problems()
    if found:
        print(f"{len(found)} problems left (python tools/catalogs.py --check lists them)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
