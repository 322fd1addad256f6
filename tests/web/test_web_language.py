"""The language of a browser's session: the page's hello sends ``navigator.language`` as the
client's ``LANG`` (``ca-ES`` -> ``ca_ES.UTF-8``), and the session reads it as an SSH client's."""

from __future__ import annotations

import html
import json
import re

import aiohttp
import pytest

from tests.support.leaks import unknown_words
from tests.web.browser import Tab, browser
from tests.web.conftest import WebTerminal


@pytest.mark.parametrize(("lang", "home"), [("ca_ES.UTF-8", "al vestíbul"), ("es_419.UTF-8", "en el vestíbulo"),
                                            ("en_GB.UTF-8", "in the lobby")])
async def test_the_hellos_lang_is_the_sessions_language(web_server, lang, home):
    served = await web_server()
    tab = await WebTerminal(served).connect(lang=lang)
    try:
        await tab.wait_for("Your name")
        tab.press("enter")
        await tab.wait_for(f"guest  {home}")
    finally:
        await tab.close()


async def test_a_catalan_browser_reads_the_catalan_lobby(web_server, tmp_path):
    served = await web_server()
    async with browser(tmp_path / "chromium", locale="ca-ES") as context:
        tab = await Tab(context.pages[0] if context.pages else await context.new_page()).open(served.url)
        await tab.wait_for("Your name")
        await tab.press("enter")
        await tab.wait_for("guest  al vestíbul")
        assert served.apps["guest"].language == "ca"


@pytest.mark.parametrize(("accept", "code"), [("ca-ES,ca;q=0.9,en;q=0.5", "ca"), ("es-419,es;q=0.8", "es"),
                                              ("en-GB,ca;q=0.5", "en"), ("de-DE,fr;q=0.7", "en"), ("", "en")])
async def test_the_page_is_in_the_browsers_first_language_of_ours(web_server, accept, code):
    served = await web_server()
    async with aiohttp.ClientSession() as http, http.get(served.url, headers={"Accept-Language": accept}) as r:
        assert r.status == 200 and "Accept-Language" in r.headers.get("Vary", "")
        page = await r.text()
    assert f'<html lang="{code}">' in page
    words = json.loads(re.search(r'<script id="words" type="application/json">(.*?)</script>', page, re.S)[1])
    # Every word the page shows, and every word its script may show (connection lost, the link form...):
    shown = re.sub(r"<script.*?</script>|<[^>]+>", " ", page, flags=re.S)
    text = html.unescape(shown) + "\n" + "\n".join(v for k, v in words.items() if k != "lang")
    host = served.url.split("//", 1)[1].split(":", 1)[0]
    assert unknown_words(text, code, allowed=["ssh", "link", "ABCD", "EFGH", "JavaScript", host]) == []
