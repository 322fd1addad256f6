"""The language of a browser's session: the page's hello sends ``navigator.language`` as the
client's ``LANG`` (``ca-ES`` -> ``ca_ES.UTF-8``), and the session reads it as an SSH client's; a
browser's guest is told to link a key where an SSH client's is told to log in with one."""

from __future__ import annotations

import re

import pytest

from tests.web.browser import Tab, browser
from tests.web.conftest import WebTerminal


@pytest.mark.parametrize(("lang", "home"), [("ca_ES.UTF-8", "al vestíbul"), ("es_419.UTF-8", "en el vestíbulo"),
                                            ("en_GB.UTF-8", "in the lobby")])
async def test_the_hellos_lang_is_the_sessions_language(web_server, lang, home):
    served = await web_server()
    tab = await WebTerminal(served).connect(lang=lang)
    try:
        await tab.wait_for("Your name|El teu nom|Tu nombre")
        tab.press("enter")
        await tab.wait_for(f"guest  {home}")
    finally:
        await tab.close()


async def test_a_catalan_browser_reads_the_catalan_lobby(web_server, tmp_path):
    served = await web_server()
    async with browser(tmp_path / "chromium", locale="ca-ES") as context:
        tab = await Tab(context.pages[0] if context.pages else await context.new_page()).open(served.url)
        await tab.wait_for("El teu nom")
        await tab.press("enter")
        await tab.wait_for("guest  al vestíbul")
        assert served.apps["guest"].language == "ca"


async def test_a_browsers_guest_is_told_to_link_a_key_not_to_log_in_with_one(web_server):
    """A guest over SSH is told to log in with an SSH key to keep their matches; a browser has
    no key to log in with: its guest is told to link one (the command, then the page's code)."""
    served = await web_server()
    tab = await WebTerminal(served).connect()
    try:
        await tab.wait_for("Your name")
        tab.press("enter")
        await tab.wait_for("guest  in the lobby")
        await tab.wait_for("link a key to keep your matches")
        assert "log in with an SSH key" not in tab.text()
        assert re.search(r"ssh .*link,", tab.text()), tab.text()
    finally:
        await tab.close()
