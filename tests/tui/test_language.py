"""The language a session reads: from the client's locale (``LC_ALL``, then ``LC_MESSAGES``,
then ``LANG``), or the player's choice on the settings screen, which applies at once; two
sessions of one process read two languages side by side; places and dates in each
language's own short forms; ``voltage play --lang``."""

from __future__ import annotations

import asyncio
import time

import pytest

from server.session.sessions import refusal_words, session_language
from tests.support.wait import until
from tests.tui.helpers import local_app, screen_text
from tests.tui.test_lobby_screen import enter_lobby, lines_of, lobby_app, open_settings, point_at
from tui import i18n
from tui import words as W
from tui.ports import Refused


@pytest.mark.parametrize(("env", "code"), [
    ({"LANG": "ca_ES.UTF-8"}, "ca"),
    ({"LANG": "es_ES.UTF-8"}, "es"),
    ({"LANG": "es_AR"}, "es"),
    ({"LANG": "C"}, "en"),
    ({"LANG": "en_GB.UTF-8"}, "en"),
    ({"LANG": "de_DE.UTF-8"}, "en"),
    ({}, "en"),
    ({"LANG": "es_ES.UTF-8", "LC_MESSAGES": "ca_ES.UTF-8"}, "ca"),
    ({"LANG": "ca_ES.UTF-8", "LC_MESSAGES": "es_ES", "LC_ALL": "C.UTF-8"}, "en"),
    ({"LANG": "ca_ES.UTF-8", "LC_ALL": ""}, "ca"),  # (an empty name says nothing)
])
def test_the_clients_locale_names_the_language_lc_all_first_then_lc_messages_then_lang(env, code):
    assert i18n.client_language(env) == code


def test_a_kept_choice_wins_over_the_locale_and_anything_else_kept_is_ignored():
    assert i18n.chosen("es", {"LANG": "ca_ES.UTF-8"}) == "es"
    assert i18n.chosen("en", {"LANG": "ca_ES.UTF-8"}) == "en"
    assert i18n.chosen("klingon", {"LANG": "ca_ES.UTF-8"}) == "ca"
    assert i18n.chosen(None, {"LANG": "C"}) == "en"


def test_places_and_dates_in_each_languages_short_forms():
    places = {"en": ["1st", "2nd", "3rd", "4th", "11th", "21st"],
              "ca": ["1r", "2n", "3r", "4t", "11è", "21è"],
              "es": ["1.º", "2.º", "3.º", "4.º", "11.º", "21.º"]}
    when = time.mktime((2025, 3, 14, 18, 2, 0, 0, 0, -1))
    dates = {"en": ("2025-03-14", "03-14 18:02"), "ca": ("14/03/2025", "14/03 18:02"),
             "es": ("14/03/2025", "14/03 18:02")}
    for code, want in places.items():
        with i18n.language(code):
            assert [W.ordinal(n) for n in (1, 2, 3, 4, 11, 21)] == want
            assert (W.date(when, "date"), W.date(when, "day_time")) == dates[code]


def test_plural_forms_follow_the_count_in_every_language():
    for code, one, two in (("en", "1 player", "2 players"), ("ca", "1 jugador", "2 jugadors"),
                           ("es", "1 jugador", "2 jugadores")):
        with i18n.language(code):
            assert i18n.ngettext("%(n)d player", "%(n)d players", 1) % {"n": 1} == one
            assert i18n.ngettext("%(n)d player", "%(n)d players", 2) % {"n": 2} == two


async def test_two_sessions_word_the_same_refusal_each_in_its_own_language_at_the_same_time():
    said: dict[str, list[str]] = {}
    go = asyncio.Event()

    async def session(code: str) -> None:
        i18n.use(code)  # (each task has its own context, as each session's does)
        await go.wait()
        said[code] = []
        for _ in range(3):
            said[code].append(W.refusal(Refused("challenge_self")))
            await asyncio.sleep(0)

    tasks = [asyncio.ensure_future(session(code)) for code in ("en", "ca", "es")]
    await asyncio.sleep(0)
    go.set()
    await asyncio.gather(*tasks)
    assert said["en"] == ["you cannot challenge yourself"] * 3
    assert said["ca"] == ["no et pots reptar"] * 3
    assert said["es"] == ["no puedes retarte"] * 3
    assert i18n.current() == "en"  # (this context was never changed)


def test_a_line_written_before_any_app_runs_is_in_the_clients_language():
    error = Refused("challenge_self")
    assert refusal_words(error, {"LANG": "ca_ES.UTF-8"}) == "no et pots reptar"
    assert refusal_words(error, {"LC_ALL": "es_ES.UTF-8", "LANG": "ca_ES.UTF-8"}) == "no puedes retarte"
    assert refusal_words(error, {"LANG": "C"}) == "you cannot challenge yourself"


class _Kept:
    def __init__(self, identity: str | None, kept: dict[str, str]) -> None:
        self.identity = identity
        self.kept = kept

    async def settings(self) -> dict[str, str]:
        return self.kept


async def test_a_session_starts_in_its_keys_kept_language_else_in_its_clients():
    ca = {"LANG": "ca_ES.UTF-8"}
    assert await session_language(_Kept("SHA256:k", {"language": "es"}), ca) == "es"
    assert await session_language(_Kept("SHA256:k", {"colours": "light"}), ca) == "ca"
    assert await session_language(_Kept(None, {"language": "es"}), ca) == "ca"  # (a guest has kept nothing)
    assert await session_language(object(), {"LANG": "C"}) == "en"


async def test_the_settings_language_line_changes_the_language_at_once_and_keeps_it(store):  # noqa: F811
    app, backend = lobby_app(store)
    saved = []

    async def save_setting(key: str, value: str) -> None:
        saved.append((key, value))

    backend.save_setting = save_setting
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        assert "alice  in the lobby" in "\n".join(lines_of(app)).replace("Alice", "alice")
        menu = await open_settings(pilot)
        assert "Language: English" in "\n".join(lines_of(app))
        point_at(menu, "language")
        await pilot.press("enter")
        await pilot.pause()
        assert app.language == "ca" and "Idioma: Català" in "\n".join(lines_of(app))
        await pilot.press("right")
        await pilot.pause()
        assert app.language == "es" and "Idioma: Español" in "\n".join(lines_of(app))
        await pilot.press("left", "left")
        await pilot.pause()
        assert app.language == "en" and "Language: English" in "\n".join(lines_of(app))
        assert saved == [("language", "ca"), ("language", "es"), ("language", "ca"), ("language", "en")]
        await pilot.press("left")  # (wraps round: Español)
        await pilot.pause()
        await pilot.press("escape")
        await until(lambda: "en el vestíbulo" in "\n".join(lines_of(app)),
                    what=lambda: "\n".join(lines_of(app)))  # the lobby under it, worded again


async def test_the_rules_page_is_the_sessions_languages():
    from tui.screens.rules import RulesScreen, rules_text

    for code, heading in (("en", "Voltage (2 players, turn by turn)"), ("ca", "Voltage (2 jugadors, per torns)"),
                          ("es", "Voltage (2 jugadores, por turnos)")):
        assert heading in rules_text(code)
        with i18n.language(code):
            app, backend = local_app(seed=1)
            async with app.run_test(size=(100, 40)) as pilot:
                await pilot.pause()
                await pilot.press("question_mark")
                await pilot.pause()
                assert isinstance(app.screen, RulesScreen)
                assert heading in screen_text(app)
            backend.close()


def test_voltage_play_takes_lang_and_otherwise_follows_the_local_locale(monkeypatch):
    from voltage import cli

    parser = cli.build_parser()
    assert parser.parse_args(["play", "--lang", "ca"]).lang == "ca"
    assert parser.parse_args(["play"]).lang is None
    with pytest.raises(SystemExit):
        parser.parse_args(["play", "--lang", "fr"])

    async def speaks(lang: str | None) -> str:  # (a task of its own: the setting stays in it)
        cli._speak(lang)
        return i18n.current()

    monkeypatch.setenv("LANG", "es_ES.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    assert asyncio.run(speaks(None)) == "es"
    assert asyncio.run(speaks("ca")) == "ca"
    monkeypatch.setenv("LC_ALL", "C")
    assert asyncio.run(speaks(None)) == "en"


async def test_a_session_gone_while_its_kept_language_is_read_is_counted_out_and_closed() -> None:
    from types import SimpleNamespace

    from server.session.services import Opened
    from server.session.sessions import Sessions
    from tests.support.channel import MemoryChannel

    reading = asyncio.Event()
    closed: list[bool] = []

    class SlowBackend:
        identity = "SHA256:k"
        name_prefill = "alice"

        async def settings(self) -> dict[str, str]:
            reading.set()
            await asyncio.Event().wait()  # (the store never answers)
            return {}

    async def open_(identity, initial, env):
        return Opened(SlowBackend(), lambda: closed.append(True))

    sessions = Sessions(SimpleNamespace(open=open_))  # (only open is asked for)
    task = asyncio.ensure_future(sessions.play(MemoryChannel(), None, {"LANG": "ca_ES.UTF-8"}))  # type: ignore[arg-type]
    await asyncio.wait_for(reading.wait(), 10)
    assert sessions.running == 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert sessions.running == 0 and closed == [True] and i18n.current() == "en"
