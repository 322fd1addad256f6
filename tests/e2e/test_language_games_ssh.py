"""The games and the commands in the player's language over real SSH: ``who``, ``help`` and a
usage line answer in Catalan or Spanish as the request's ``LANG`` says (a key's kept choice
winning over it), and a Catalan player's whole Voltage match against a bot shows no English
on any screen of it (pyte-rendered, each screen checked by :func:`tests.support.leaks.unknown_words`)."""

from __future__ import annotations

import asyncio
import time

import asyncssh
import pytest

from server.session.commands import COMMANDS
from tests.e2e.test_settings_ssh import stored_server
from tests.support.e2e import hands_of, keys_for, match_of
from tests.support.leaks import unknown_words
from tests.support.terminal import Terminal, ssh_connect
from tests.support.wait import until
from tests.tui.test_language_games import APP_WORDS_PENDING
from tui.games.voltage.match import MatchScreen

WHO = {"ca": "0 en línia, 0 partides en joc", "es": "0 en línea", "en": "0 online, 0 matches running"}
HELP = {"ca": "Voltage: jocs de cartes per SSH.", "es": "Voltage: juegos de cartas por SSH.",
        "en": "Voltage: card games over SSH."}
USAGE = {"ca": "ús: ssh", "es": "uso: ssh", "en": "usage: ssh"}


async def run(port: int, command: str, env: dict[str, str], **kw):
    conn = await ssh_connect(port, **kw)
    async with conn:
        return await asyncio.wait_for(conn.run(command, env=env), 30)


@pytest.mark.parametrize(("lang", "code"), [("ca_ES.UTF-8", "ca"), ("es_ES.UTF-8", "es"), ("C", "en")])
async def test_who_help_and_a_usage_line_answer_in_the_requests_language(tmp_path, lang, code):
    async with stored_server(tmp_path, {}) as srv:
        r = await run(srv.port, "who", {"LANG": lang})
        assert r.exit_status == 0 and WHO[code] in r.stdout, r.stdout
        r = await run(srv.port, "help", {"LC_ALL": lang, "LANG": "C"})
        assert r.exit_status == 0 and r.stdout.startswith(HELP[code]), r.stdout
        typed = ["ssh", *(c.name for c in COMMANDS), *(c.args for c in COMMANDS)]  # (typed as they are)
        assert unknown_words(r.stdout, code, allowed=typed) == [], r.stdout
        r = await run(srv.port, "export nine", {"LANG": lang})
        assert r.exit_status == 2 and r.stderr.startswith(USAGE[code]), r.stderr
        r = await run(srv.port, "dance", {"LANG": lang})
        assert r.exit_status == 1 and USAGE[code] in r.stderr, r.stderr


async def test_a_keys_kept_language_wins_over_the_requests_for_a_command(tmp_path):
    key = asyncssh.generate_private_key("ssh-ed25519")
    async with stored_server(tmp_path, {}) as srv:
        store = srv.sessions.services.store
        fingerprint = "SHA256:" + key.get_fingerprint("sha256").split(":", 1)[1]
        store.upsert_player(fingerprint, "alice")
        store.set_setting(fingerprint, "language", "es").result()
        r = await run(srv.port, "who", {"LANG": "ca_ES.UTF-8"}, client_keys=[key])
        assert WHO["es"] in r.stdout, r.stdout


async def test_a_catalan_players_whole_match_against_a_bot_shows_no_english(tmp_path):
    apps: dict = {}
    async with stored_server(tmp_path, apps) as srv:
        t = await Terminal(100, 32).connect(srv.port, "alice", env={"LANG": "ca_ES.UTF-8"})
        try:
            await until(lambda: "alice" in t.text(), what=t.text)
            t.press("enter")  # the name offered
            await until(lambda: getattr(apps.get("alice"), "language", None) == "ca")
            t.press("home", "enter")  # quick match; alone, a bot is offered after a moment, and b takes it
            pressed = [0.0]

            def take_the_bot() -> bool:
                if match_of(srv, "alice") is not None:
                    return True
                if time.monotonic() - pressed[0] > 0.3:
                    pressed[0] = time.monotonic()
                    t.press("b")
                return False

            await until(take_the_bot, what=t.text)
            hosted = match_of(srv, "alice")
            match = hosted.match
            seat = next(i for i, p in enumerate(hosted.humans) if p is not None)
            app = apps["alice"]
            names = [*match.names, *APP_WORDS_PENDING]
            checked = 0
            while not match.over:
                if match.state.to_move != seat:
                    await asyncio.sleep(0.01)
                    continue
                await until(lambda: isinstance(app.screen, MatchScreen) and app.screen.view == match.view(seat),
                            what="the screen's view")
                # every screen of the player's turns: no word that is not Catalan (a frame half drawn
                # settles: a word that stays is a leak)
                await until(lambda: unknown_words(t.text(), "ca", allowed=names) == [],
                            what=lambda: f"{unknown_words(t.text(), 'ca', allowed=names)}\n{t.text()}")
                checked += 1
                before = len(match.actions)
                t.press(*keys_for(match.view(seat), names, app_mode=bool(checked % 2), hands=hands_of(t),
                                  places=getattr(app.screen, "places", None)))
                await until(lambda before=before: len(match.actions) > before or match.over, what=t.text)
            assert checked >= 3
        finally:
            await t.close()
