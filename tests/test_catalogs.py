"""The message catalogs (tools/catalogs.py, ``make catalogs``): every English message of the code has
its Catalan and Spanish translation, with the same placeholders, every plural form, nothing fuzzy or
obsolete, and the compiled catalogs the game loads say what the ``.po`` files say.  A new ``_("...")``
without its translations fails here: the next screens to be worded cannot slip through in English."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("voltage_catalogs_tool", ROOT / "tools" / "catalogs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


catalogs = _tool()


def test_the_catalogs_are_complete_and_compiled():
    found = catalogs.problems()
    assert found == [], "\n".join(found)


def test_a_new_english_message_without_its_translations_fails_the_check(tmp_path):
    new = tmp_path / "newscreen"
    new.mkdir()
    (new / "screen.py").write_text(
        "from tui.i18n import _, ngettext\n"
        "TITLE = _('A sentence nobody has translated yet')\n"
        "def cards(n):\n"
        "    return ngettext('%(n)d new card', '%(n)d new cards', n) % {'n': n}\n",
        encoding="utf-8",
    )
    found = catalogs.problems(roots=[*catalogs.PACKAGES, new])
    for lang in ("ca", "es"):
        assert any(line.startswith(f"{lang}: missing 'A sentence nobody has translated yet'") for line in found)
        assert any(line.startswith(f"{lang}: missing '%(n)d new card'") for line in found)
    assert any("voltage.pot is not the code's messages" in line for line in found)


@pytest.fixture
def locale(tmp_path):
    """A copy of the catalogs to spoil."""
    copy = tmp_path / "locale"
    shutil.copytree(catalogs.LOCALE, copy)
    return copy


def _spoil(locale: Path, lang: str, msgid: str, change) -> None:
    path = catalogs.po_path(lang, locale)
    catalog = catalogs.read(path, lang)
    change(catalog, catalog[msgid])
    path.write_bytes(catalogs.po_bytes(catalog))


def test_a_lost_placeholder_a_fuzzy_entry_an_obsolete_one_and_a_stale_compiled_catalog_are_found(locale):
    def drop_name(catalog, message):
        message.string = "vol la revenja"

    def fuzzy(catalog, message):
        message.flags.add("fuzzy")

    def lose_a_form(catalog, message):
        message.string = (message.string[0], "")

    _spoil(locale, "ca", "%(name)s wants a rematch", drop_name)
    _spoil(locale, "ca", "the match is over", fuzzy)
    _spoil(locale, "es", ("%(n)d player", "%(n)d players"), lose_a_form)
    es = catalogs.po_path("es", locale)
    es.write_text(es.read_text(encoding="utf-8") + '\nmsgid "An old sentence"\nmsgstr "Una frase vieja"\n',
                  encoding="utf-8")
    found = catalogs.problems(locale=locale)
    assert any(line.startswith("ca: 'vol la revenja' has placeholders []") for line in found), found
    assert any(line.startswith("ca: fuzzy 'the match is over'") for line in found), found
    assert any(line.startswith("es: '%(n)d player' lacks a plural form") for line in found), found
    assert any(line.startswith("es: obsolete 'An old sentence'") for line in found), found
    assert any(line.startswith("ca: ") and "is older than its .po" in line for line in found), found
    assert any(line.startswith("es: ") and "is older than its .po" in line for line in found), found


def test_the_plural_forms_are_two_one_for_one_and_one_for_every_other_count(locale):
    path = catalogs.po_path("ca", locale)
    path.write_text(path.read_text(encoding="utf-8").replace(
        "nplurals=2; plural=(n != 1);", "nplurals=3; plural=(n == 1 ? 0 : n == 0 ? 1 : 2);"), encoding="utf-8")
    found = catalogs.problems(locale=locale)
    assert any(line.startswith("ca: Plural-Forms is") for line in found), found


def test_the_web_page_words_keep_the_command_the_page_fills_in(locale):
    def lose_it(catalog, message):
        message.string = "Escriu el codi que t'ha donat l'ordre link"

    _spoil(locale, "ca", "Type the code that ssh HOST link gave you: this browser then plays as your key.", lose_it)
    found = catalogs.problems(locale=locale)
    assert any("must keep 'ssh HOST'" in line for line in found), found
