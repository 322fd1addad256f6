"""The language over real SSH (pyte-rendered PTYs): a client sending ``LANG=ca_ES.UTF-8``
reads the lobby in Catalan (what the catalogs word by now: the status lines, the settings'
language line, the rules page), ``es_ES.UTF-8`` in Spanish, ``C`` in English; a key's choice
on the settings screen wins over the client's locale, in its next session and after a
restart; two players of one match, one Catalan and one English, each read their own log
of the same moves."""

from __future__ import annotations

import re

import asyncssh
import pytest

from tests.e2e.test_settings_ssh import settings_shown, stored_server
from tests.support.e2e import match_of, play
from tests.support.ssh import lobby_of
from tests.support.terminal import Terminal
from tests.support.wait import until
from tui.games.registry import words
from tui.i18n import language

HOME = {"ca": "al vestíbul", "es": "en el vestíbulo", "en": "in the lobby"}
LINE = {"ca": "Idioma: Català", "es": "Idioma: Español", "en": "Language: English"}
RULES = {"ca": "Voltage (2 jugadors, per torns)", "es": "Voltage (2 jugadores, por turnos)",
         "en": "Voltage (2 players, turn by turn)"}


async def enter(srv, username: str, env: dict[str, str], key=None) -> Terminal:
    """Into the lobby, whatever its language (the name box's title, then "you: NAME" in the title)."""
    t = await Terminal(100, 32).connect(srv.port, username, client_keys=[key] if key else (), env=env)
    await t.wait_for("Your name|El teu nom|Tu nombre")
    t.press("enter")
    await t.wait_for(f"(you|tu|tú): {username}")
    return t


@pytest.mark.parametrize(("lang", "code"), [("ca_ES.UTF-8", "ca"), ("es_ES.UTF-8", "es"), ("C", "en")])
async def test_the_clients_lang_is_the_lobbys_language(tmp_path, lang, code):
    apps: dict = {}
    async with stored_server(tmp_path, apps) as srv:
        t = await enter(srv, "alice", {"LANG": lang})
        try:
            await t.wait_for(f"alice  {HOME[code]}")
            assert apps["alice"].language == code
            await settings_shown(t, LINE[code])
            t.press("escape")
            await t.wait_for(f"alice  {HOME[code]}")
            t.send("?")
            await t.wait_for(re.escape(RULES[code]))
        finally:
            await t.close()


async def test_a_keys_choice_wins_over_the_locale_after_a_reconnect_and_a_restart(tmp_path):
    apps: dict = {}
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with stored_server(tmp_path, apps) as srv:
        t = await enter(srv, "alice", {"LANG": "C"}, key)
        try:
            await settings_shown(t, "Language: English")
            t.press("down", "down", "down")  # colours, your turn, challenges, language
            t.press("right")
            await t.wait_for("Idioma: Català")
            t.press("escape")
            await t.wait_for(f"alice  {HOME['ca']}")
        finally:
            await t.close()
        await until(lambda: not lobby_of(srv).snapshot().players, what="alice gone")
        t = await enter(srv, "alice", {"LANG": "es_ES.UTF-8"}, key)
        try:
            await t.wait_for(f"alice  {HOME['ca']}")
        finally:
            await t.close()
    async with stored_server(tmp_path, apps) as srv:  # the same store, a new server
        t = await enter(srv, "alice", {"LANG": "es_ES.UTF-8", "LC_ALL": "en_US.UTF-8"}, key)
        try:
            await t.wait_for(f"alice  {HOME['ca']}")
            await settings_shown(t, "Idioma: Català")
        finally:
            await t.close()
    # A guest's choice lasts its session only: the locale again next time.
    async with stored_server(tmp_path, apps) as srv:
        t = await enter(srv, "guest", {"LANG": "es_ES.UTF-8"})
        try:
            await settings_shown(t, "Idioma: Español")
            t.press("down", "down", "down")
            t.press("right")
            await t.wait_for("Language: English")
        finally:
            await t.close()
        await until(lambda: not lobby_of(srv).snapshot().players, what="the guest gone")
        t = await enter(srv, "guest", {"LANG": "es_ES.UTF-8"})
        try:
            await t.wait_for(f"guest  {HOME['es']}")
        finally:
            await t.close()


async def test_a_catalan_and_an_english_player_each_read_their_own_log_of_the_same_moves(tmp_path):
    apps: dict = {}
    ka, kb = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    async with stored_server(tmp_path, apps) as srv:
        alice = await enter(srv, "alice", {"LANG": "ca_ES.UTF-8"}, ka)
        bob = await enter(srv, "bob", {"LANG": "en_GB.UTF-8"}, kb)
        try:
            alice.press("home", "enter")
            await alice.wait_for("Esperant un rival")  # (her quick match, in Catalan)
            bob.press("home", "enter")
            await until(lambda: match_of(srv, "alice") is not None, what="the match")
            hosted = match_of(srv, "alice")
            seats = {p.name: i for i, p in enumerate(hosted.humans) if p is not None}
            terms = {seats["alice"]: alice, seats["bob"]: bob}
            seat_apps = {seats["alice"]: apps["alice"], seats["bob"]: apps["bob"]}
            match = hosted.match
            await play(srv, hosted, terms, seat_apps, stop=lambda: len(match.actions) >= 6)

            def log(name: str, code: str) -> list[str]:
                with language(code):
                    return words(match.game).lines(match.feed(seats[name]), match.names)

            for name, code in (("alice", "ca"), ("bob", "en")):
                app = apps[name]
                await until(lambda app=app, name=name, code=code: getattr(app.screen, "lines", None)
                            == log(name, code), what=lambda app=app: getattr(app.screen, "lines", None))
            catalan, english = log("alice", "ca"), log("bob", "en")
            assert len(catalan) == len(english) >= 6 and catalan != english
            assert any(line.startswith("Comença ") for line in catalan), catalan
            assert any(line.endswith(" goes first.") for line in english), english
        finally:
            await alice.close()
            await bob.close()
