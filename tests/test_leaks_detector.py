"""The check the language tests use (``tests.support.leaks``): on a Catalan or Spanish
screen it finds English words nobody put through ``_()`` and words cut short, and lets
through the language's own words, names and the games' names."""

from __future__ import annotations

from tests.support.leaks import unknown_words
from tui import i18n


def test_an_english_word_on_a_catalan_screen_is_named_as_english():
    with i18n.language("ca"):
        hint = i18n._("Hint: %(move)s") % {"move": "3"}
    assert hint == "Pista: 3"
    assert unknown_words(f"{hint}   Hint match", "ca") == ["Hint (English)", "match (English)"]


def test_a_word_cut_short_is_found_in_every_language():
    with i18n.language("es"):
        whole = i18n._("Hint: %(move)s") % {"move": "7"}
    assert unknown_words(whole, "es") == []
    assert unknown_words(whole[:-5], "es") == ["Pis (cut or unknown)"]
    assert unknown_words("Hin", "en") == ["Hin (cut or unknown)"]


def test_names_letters_numbers_and_the_games_names_pass():
    assert unknown_words("Alice  3♦ 7♣ [h]  High Voltage  Català 12:05", "ca", allowed={"Alice"}) == []
    assert unknown_words("Alice", "ca") == ["Alice (cut or unknown)"]
