"""The web transport without a browser: the page and its files, the WebSocket protocol, linking a
browser to a key, a dropped tab coming back to its session, and the hardening (each refusal as a
browser or an attacker would meet it)."""

from __future__ import annotations

import asyncio
import gzip
import json
import re
from typing import Any

import aiohttp
import asyncssh
import pytest
from multidict import CIMultiDict

from server.session.driver import InputLimits, unsent
from tests.support.terminal import ssh_connect
from tests.support.wait import until
from tests.web.conftest import WebTerminal


async def get(url: str, **kw) -> tuple[int, CIMultiDict[str], bytes]:
    """A GET as it came (a gzipped body stays gzipped)."""
    async with aiohttp.ClientSession(auto_decompress=False) as http, http.get(url, allow_redirects=False, **kw) as r:
        return r.status, CIMultiDict(r.headers), await r.read()


def text(headers: CIMultiDict[str], body: bytes) -> str:
    return (gzip.decompress(body) if headers.get("Content-Encoding") == "gzip" else body).decode()


async def test_the_page_and_its_files_with_the_security_headers(web_server):
    served = await web_server(store=False)
    status, headers, body = await get(served.url)
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self';" in csp and "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert headers["X-Content-Type-Options"] == "nosniff" and headers["X-Frame-Options"] == "DENY"
    page = text(headers, body)
    assert "Link a key" in page and "{{" not in page and "<script>" not in page  # no inline script
    words = json.loads(re.search(r'<script id="words" type="application/json">(.*?)</script>', page).group(1))
    assert words["lost"].startswith("The connection was lost") and "ssh -p" in words["link_help"]
    for src in re.findall(r'(?:src|href)="(/static/[^"]+)"', page):
        status, headers, body = await get(served.url[:-1] + src, headers={"Accept-Encoding": "gzip"})
        assert status == 200, src
        assert "immutable" in headers["Cache-Control"] and headers["Content-Security-Policy"] == csp
    status, headers, body = await get(served.url + "static/vendor/xterm.js", headers={"Accept-Encoding": "gzip"})
    assert headers["Content-Encoding"] == "gzip" and b"Terminal" in gzip.decompress(body)
    etag = headers["ETag"]
    status, _headers, _body = await get(served.url + "static/vendor/xterm.js", headers={"If-None-Match": etag})
    assert status == 304


async def test_nothing_outside_the_static_files_is_served(web_server):
    served = await web_server(store=False)
    base = served.url[:-1]
    for path in ("/../../etc/passwd", "/static/../../etc/passwd", "/static/%2e%2e/%2e%2e/etc/passwd",
                 "/static/..%2f..%2fetc%2fpasswd", "/%2e%2e/%2e%2e/etc/passwd", "/static/", "/static/vendor/",
                 "/static/vendor", "/static/index.html", "/static/VERSIONS", "/static/../server.py",
                 "/static/%2e%2e/server.py", "/etc/passwd", "/static/.hidden", "/index.html"):
        async with aiohttp.ClientSession() as http, http.get(aiohttp.client.URL(base + path, encoded=True)) as r:
            body = await r.read()
            assert r.status in (404, 405), (path, r.status)
            assert b"root:" not in body and b"import" not in body, path
            assert r.headers["X-Content-Type-Options"] == "nosniff"


async def test_a_tab_plays_as_a_guest_beside_an_ssh_player(web_server):
    served = await web_server(store=False)
    tab = await WebTerminal(served).connect()
    try:
        await tab.wait_for("Your name")
        assert tab.resume and not tab.linked
        tab.press("\x15", *"webby", "enter")
        await tab.wait_for("you: webby")
        conn = await ssh_connect(served.port)
        async with conn:
            who = await asyncio.wait_for(conn.run("who"), 10)
        assert "webby" in who.stdout
    finally:
        await tab.close()


async def test_resizes_are_clamped_and_coalesced(web_server):
    # What the player sees: a flood of sizes is drawn once, at the last; a size beyond the server's
    # bounds is drawn at the bounds; a message that is not a size changes nothing.
    served = await web_server(store=False)
    tab = await WebTerminal(served).connect()
    try:
        await tab.wait_for("Your name")
        app = served.apps["guest"]
        await until(lambda: tab.painted() == (100, 32), "the first picture, at the tab's size")
        whole = app.shadow.full_frames  # (pictures written whole: the first, and one for each new size)
        await tab.control({"type": "resize", "cols": 100_000, "rows": -5})  # not sizes: ignored
        await tab.control({"type": "resize", "cols": "wide", "rows": 1.5})
        for i in range(20):  # a window dragged by a page that sent each step
            await tab.resize(80 + i, 24 + i)
        await until(lambda: tab.painted() == (99, 43) and "Your name" in tab.text(), "the last size drawn")
        assert app.shadow.full_frames == whole + 1, "drawn once, at the last size"
        await tab.resize(999, 999)  # clamped by the driver
        await until(lambda: tab.painted() == (400, 200) and "Your name" in tab.text(), "drawn at the bounds")
        assert app.shadow.full_frames == whole + 2
        assert not tab.closed.is_set()
    finally:
        await tab.close()


async def test_a_resize_over_its_budget_is_held_and_keys_typed_after_it_are_not(web_server):
    # Resizes spend their cells (each may redraw the whole screen): one over the budget is held, the
    # latest size winning, and given to the app once its cells are due, while the socket is read on.
    from dataclasses import replace

    served = await web_server(store=False)
    served.web.limits = replace(served.web.limits, resize_cells_burst=3000, resize_cells_per_second=600,
                                resize_floor=1)
    tab = await WebTerminal(served).connect()
    try:
        await tab.wait_for("Your name")
        app = served.apps["guest"]
        await tab.control({"type": "resize", "cols": 100, "rows": 24})  # 2,400 cells of 3,000
        await until(lambda: tuple(app.size) == (100, 24), "the first resize")
        channel = served.web.web_sessions[tab.resume].channel
        given: list[tuple[int, int]] = []  # the sizes the channel gives the driver from now on
        read = channel.read

        async def recording() -> Any:
            got = await read()
            if isinstance(got, tuple):
                given.append(got)
            return got

        channel.read = recording
        await tab.control({"type": "resize", "cols": 100, "rows": 30})  # over: held
        await tab.control({"type": "resize", "cols": 100, "rows": 28})  # held instead of it
        tab.press("\x15", *"zed")
        await tab.wait_for("zed")
        assert tuple(app.size) == (100, 24)  # the keys came first
        await until(lambda: tuple(app.size) == (100, 28), "the held resize, once its cells are due")
        assert given == [(100, 28)]  # (never the size it replaced)
        assert not tab.closed.is_set()
    finally:
        await tab.close()


async def test_big_screens_from_one_address_are_drawn_at_the_pace_of_its_budget(web_server):
    # A big screen's whole redraw takes the loop for 30-90 ms: an address's tabs share one budget of
    # cells, so a second big tab opened at once starts smaller and is drawn at its size once due.
    from dataclasses import replace

    served = await web_server(store=False)
    served.web.limits = replace(served.web.limits, resize_cells_burst=30_000, resize_cells_per_second=7_500)
    first = await WebTerminal(served, 300, 100).connect()
    second = WebTerminal(served, 300, 100)
    try:
        await first.wait_for("Your name")
        await until(lambda: first.painted() == (300, 100), "the first tab drawn at its size at once")
        await second.connect()
        await second.wait_for("Your name")
        assert second.painted() == (200, 60)  # (its address's cells spent: smaller, at first)
        await until(lambda: second.painted() == (300, 100), "the second tab drawn at its size once due")
    finally:
        await first.close()
        await second.close()


@pytest.mark.parametrize(("lang", "closed"), [("en_GB.UTF-8", "too many messages; the session is closed"),
                                              ("ca_ES.UTF-8", "massa missatges: la sessió s'ha tancat"),
                                              ("es_ES.UTF-8", "demasiados mensajes: la sesión se ha cerrado")])
async def test_a_sustained_flood_of_resizes_closes_the_session(web_server, lang, closed):
    # (the closing line in the session's language, as the driver's for too much input)
    served = await web_server(store=False, input_limits=InputLimits(flood_close_after=1.0))
    tab = await WebTerminal(served).connect(lang=lang)
    try:
        await tab.wait_for("Your name|El teu nom|Tu nombre")

        async def flood() -> None:
            i = 0
            while not tab.closed.is_set() and i < 100_000:
                await tab.control({"type": "resize", "cols": 80 + i % 2, "rows": 24})
                i += 1

        sender = asyncio.get_running_loop().create_task(flood())
        await tab.wait_for(f"voltage: {closed}", timeout=20)
        assert await tab.wait_closed() == 1000
        sender.cancel()
        await until(lambda: served.sessions.running == 0, "the session's end")
    finally:
        await tab.close()


async def test_an_oversized_message_closes_the_socket(web_server):
    served = await web_server(store=False, web_max_message=64 * 1024)
    tab = await WebTerminal(served).connect()
    try:
        await tab.wait_for("Your name")
        tab.send(b"a" * (64 * 1024 + 1))
        assert await tab.wait_closed() == 1009  # message too big
    finally:
        await tab.close()


async def test_the_upgrade_and_the_link_form_refuse_another_origin(web_server):
    served = await web_server(store=False)
    for origin in ("http://evil.example", "null", "", f"http://127.0.0.1:{served.web.port + 1}",
                   f"ws://127.0.0.1:{served.web.port}"):
        tab = WebTerminal(served)
        try:
            try:
                await tab.connect(origin=origin)
                raise AssertionError(f"the upgrade from {origin!r} was accepted")
            except aiohttp.WSServerHandshakeError as e:
                assert e.status == 403, origin
        finally:
            await tab.close()
    async with aiohttp.ClientSession() as http:
        async with http.post(served.url + "link", json={"code": "ABCD-EFGH"},
                             headers={"Origin": "http://evil.example"}) as r:
            assert r.status == 403
    assert served.sessions.admission.connections == 0


async def test_a_socket_that_never_says_hello_is_closed(web_server):
    served = await web_server(store=False, silent_grace=0.5)
    tab = await WebTerminal(served).connect(hello=False)
    try:
        assert await tab.wait_closed() == 1008
        assert served.sessions.running == 0 and served.sessions.admission.connections == 0
    finally:
        await tab.close()


async def test_two_hundred_idle_sockets_are_refused_or_closed(web_server):
    served = await web_server(store=False, silent_grace=1.0)
    tabs = [WebTerminal(served) for _ in range(200)]
    admission = served.sessions.admission
    refused = peak = 0
    try:
        for tab in tabs:
            try:
                await tab.connect(hello=False)
            except aiohttp.WSServerHandshakeError as e:
                assert e.status == 503
                refused += 1
            peak = max(peak, admission.connections)
        # never more held from one address than its cap, however slowly the 200 arrive (the silent
        # grace may close the first ones while the last are still coming, and let more in)
        assert peak <= admission.limits.max_per_address
        assert refused > 0
        assert served.sessions.running == 0
        for tab in tabs:
            if tab.ws is not None:
                assert await tab.wait_closed() == 1008
        assert served.sessions.admission.connections == 0 and served.sessions.admission.startups == 0
        # and a real tab gets in afterwards
        late = await WebTerminal(served).connect()
        try:
            await late.wait_for("Your name")
        finally:
            await late.close()
    finally:
        await asyncio.gather(*(tab.close() for tab in tabs))


async def test_a_linked_browser_plays_as_the_key_until_unlinked(web_server):
    served = await web_server()
    key = asyncssh.generate_private_key("ssh-ed25519")
    fp = key.get_fingerprint("sha256")
    served.store.upsert_player(fp, "Dana")
    conn = await ssh_connect(served.port, client_keys=[key])
    async with conn:
        linked = await asyncio.wait_for(conn.run("link"), 10)
    code = re.search(r"Your link code: (\S+)", linked.stdout).group(1)
    assert served.web.url in linked.stdout
    async with aiohttp.ClientSession() as http:
        async with http.post(served.url + "link", json={"code": code}, headers={"Origin": served.origin}) as r:
            assert r.status == 200
            cookie = r.cookies["voltage_browser"]
            assert cookie["httponly"] and cookie["samesite"] == "Strict" and not cookie["secure"]
            token = cookie.value
        async with http.post(served.url + "link", json={"code": code}, headers={"Origin": served.origin}) as r:
            assert r.status == 403  # once only
        # Behind a TLS proxy (a loopback peer saying so), the cookie is Secure.
        conn = await ssh_connect(served.port, client_keys=[key])
        async with conn:
            again = re.search(r"Your link code: (\S+)", (await conn.run("link")).stdout).group(1)
        async with http.post(served.url + "link", json={"code": again},
                             headers={"Origin": "https://play.example", "X-Forwarded-Proto": "https",
                                      "X-Forwarded-Host": "play.example", "X-Forwarded-For": "203.0.113.9"}) as r:
            assert r.status == 200 and r.cookies["voltage_browser"]["secure"]
    tab = await WebTerminal(served).connect(cookies={"voltage_browser": token})
    try:
        await tab.wait_for("Your name")
        assert tab.linked
        await tab.wait_for("Dana")  # the key's name, prefilled
        backend = served.apps["Dana"].backend
        assert backend.identity == fp and not backend.guest
    finally:
        await tab.close()
    conn = await ssh_connect(served.port, client_keys=[key])
    async with conn:
        assert "2 browsers are no longer linked" in (await conn.run("unlink")).stdout
    tab = await WebTerminal(served).connect(cookies={"voltage_browser": token})
    try:
        await tab.wait_for("Your name")
        assert not tab.linked and served.apps["guest"].backend.guest
    finally:
        await tab.close()


async def test_a_link_code_guessed_ten_thousand_times_links_nothing(web_server):
    from server.session.budget import KeyedBudget

    served = await web_server()
    served.web.penalties = KeyedBudget(1e9, 1e9, 1e12, 1e12)  # (the budget of tries alone: answered at once)
    served.store.upsert_player("SHA256:dana", "Dana")
    code = served.store.new_link_code("SHA256:dana")
    statuses: dict[int, int] = {}
    async with aiohttp.ClientSession() as http:
        for i in range(10_000):
            guess = f"{i:08d}"
            async with http.post(served.url + "link", json={"code": guess}, headers={"Origin": served.origin}) as r:
                statuses[r.status] = statuses.get(r.status, 0) + 1
                assert "voltage_browser" not in r.cookies
        assert statuses.get(200, 0) == 0 and statuses[429] >= 9_990, statuses
        # The real code still links, from another address (a proxy's client).
        async with http.post(served.url + "link", json={"code": code},
                             headers={"Origin": served.origin, "X-Forwarded-For": "198.51.100.7"}) as r:
            assert r.status == 200


async def test_a_dropped_tab_comes_back_to_its_session_and_its_screen(web_server):
    served = await web_server(store=False, grace=30.0)
    tab = await WebTerminal(served).connect()
    try:
        await tab.wait_for("Your name")
        tab.press("\x15", *"webby", "enter")
        await tab.wait_for("you: webby")
        app = served.apps["guest"]
        token = tab.resume
        await tab.drop()
        await asyncio.sleep(0.3)  # deliberately: the session runs on while the tab is away
        assert served.sessions.running == 1 and not app._exit_renderables
        await tab.connect(resume=token)
        await tab.wait_for("you: webby")  # the whole screen again, on a fresh terminal
        assert tab.resume == token and served.apps["guest"] is app
        assert [p.name for p in served.lobby.players.values()] == ["webby"]
    finally:
        await tab.close()


async def test_a_session_whose_tab_does_not_come_back_ends_after_the_hold(web_server):
    served = await web_server(store=False, grace=0.5)
    tab = await WebTerminal(served).connect()
    try:
        await tab.wait_for("Your name")
        token = tab.resume
        await tab.drop()
        await until(lambda: not served.sessions.running, "the dropped session's end")
        assert served.sessions.admission.connections == 0
        await tab.connect(resume=token)  # too late: a new session
        await tab.wait_for("Your name")
        assert tab.resume != token
    finally:
        await tab.close()


async def test_a_second_tab_with_the_token_takes_the_session_over(web_server):
    served = await web_server(store=False)
    first = await WebTerminal(served).connect()
    second = WebTerminal(served)
    try:
        await first.wait_for("Your name")
        await second.connect(resume=first.resume)
        await second.wait_for("Your name")
        assert await first.wait_closed() == 4000  # moved to another tab
        assert served.sessions.running == 1
    finally:
        await first.close()
        await second.close()


async def test_bye_ends_the_session_at_once(web_server):
    served = await web_server(store=False, grace=60.0)
    tab = await WebTerminal(served).connect()
    try:
        await tab.wait_for("Your name")
        await tab.control({"type": "bye"})
        assert await tab.wait_closed() == 1000
        assert tab.controls[-1] == {"type": "end", "status": 0}
        await until(lambda: served.sessions.running == 0 and not served.web.web_sessions, "the session's end")
        assert served.sessions.admission.connections == 0
    finally:
        await tab.close()


async def test_a_stopping_server_ends_its_web_sessions_at_once(web_server):
    served = await web_server(store=False)
    tab = await WebTerminal(served).connect()
    try:
        await tab.wait_for("Your name")
        served.web.close()
        await asyncio.wait_for(served.web.wait_closed(), 5)
        assert served.sessions.running == 0 and not served.web.web_sessions
        assert await tab.wait_closed() == 1000 and tab.controls[-1]["type"] == "end"
    finally:
        await tab.close()


async def test_a_session_whose_socket_sent_an_oversized_message_is_not_held(web_server):
    # A dropped network's session is held for its tab's return; one whose socket broke the protocol
    # is not: an address sending oversized messages in a loop kept an app running for each.
    served = await web_server(store=False, web_max_message=64 * 1024, grace=60.0)  # (the hold: the grace)
    tab = await WebTerminal(served).connect()
    try:
        await tab.wait_for("Your name")
        tab.send(b"a" * (64 * 1024 + 1))
        assert await tab.wait_closed() == 1009
        deadline = asyncio.get_running_loop().time() + 10
        while served.sessions.running or served.web.web_sessions:
            assert asyncio.get_running_loop().time() < deadline, "the session was held"
            await asyncio.sleep(0.05)
    finally:
        await tab.close()


async def test_a_hello_over_the_budget_of_new_sessions_waits_for_its_turn(web_server):
    from server.session.budget import KeyedBudget

    served = await web_server(store=False)
    served.sessions.starts = KeyedBudget(1, 0.5, 100, 20.0)  # one at once, then one every 2 s
    first = await WebTerminal(served).connect()
    second = await WebTerminal(served).connect()  # over the budget: it waits, then gets its session
    try:
        await first.wait_for("Your name")
        await second.wait_for("Your name")
        assert first.resume and second.resume and first.resume != second.resume
        assert not second.closed.is_set()
    finally:
        await first.close()
        await second.close()


def test_a_budget_says_when_its_next_token_is_due():
    from server.session.budget import KeyedBudget

    b = KeyedBudget(2, 1.0, 100, 20.0)
    assert b.due("a") == 0.0 and b.take("a") and b.take("a")
    assert not b.take("a") and 0.9 < b.due("a") <= 1.0
    assert b.due("b") == 0.0  # another address has its own


async def test_an_address_refused_again_and_again_waits_before_it_is_answered(web_server):
    # Every refusal costs the address a token (here: 3, then one per 10 s); in debt (the 5th), its
    # requests wait before they are looked at, so a loop of bad requests costs the server next to
    # nothing.  Another address is answered at once meanwhile.
    from server.session.budget import KeyedBudget

    served = await web_server(store=False)
    served.web.penalties = KeyedBudget(3, 0.1, 1e12, 1e12)
    async with aiohttp.ClientSession() as http:
        for _ in range(4):
            async with http.get(served.url + "nothing-here") as r:
                assert r.status == 404
        held = asyncio.ensure_future(http.get(served.url + "nothing-here"))
        async with http.get(served.url + "nothing-here", headers={"X-Forwarded-For": "198.51.100.7"}) as r:
            assert r.status == 404  # (from a proxy's other client: its own budget)
        assert not held.done()
        held.cancel()


async def test_an_address_that_keeps_sending_oversized_messages_is_made_to_wait(web_server):
    # A socket closed for an oversized message, in its session or instead of its hello, costs its
    # address half of its budget of refusals (OpenSSH's PerSourcePenalties idea: an abuse costs more
    # than a mistake): after a few, its next upgrade waits before it is looked at, unread, while
    # another address is answered at once.
    from server.web.server import PENALTY_MAX

    served = await web_server(store=False, web_max_message=1024)
    penalties = served.web.penalties
    in_session = await WebTerminal(served).connect()
    try:
        await in_session.wait_for("Your name")
        in_session.send(b"a" * 1025)
        assert await in_session.wait_closed() == 1009
    finally:
        await in_session.close()
    sockets = 1
    while penalties.debt("127.0.0.1") < PENALTY_MAX / 2:  # (each costs 5 s of a budget of 10 s, 2 tokens a second back)
        assert sockets < 5, "five oversized messages and the address is not in debt"
        before_hello = await WebTerminal(served).connect(hello=False)
        try:
            before_hello.send(b"a" * 1025)
            assert await before_hello.wait_closed() == 1009
        finally:
            await before_hello.close()
        sockets += 1
    async with aiohttp.ClientSession() as http:
        held = asyncio.ensure_future(http.ws_connect(served.url + "ws", headers={"Origin": served.origin}))
        async with http.get(served.url, headers={"X-Forwarded-For": "198.51.100.7"}) as r:
            assert r.status == 200  # (from a proxy's other client: not in debt)
        assert not held.done()
        held.cancel()
    assert served.sessions.running == 0


async def test_a_ping_is_answered_once_the_tab_has_read_what_came_before_it(web_server):
    # The driver's question to a client that may have stopped reading (TerminalChannel.ping, an SSH
    # keepalive for SSH): a tab whose browser stopped reading (a frozen tab, its TCP window full) does
    # not answer it, nor does its output leave the server's buffers; once it reads, both do.
    served = await web_server(store=False)
    async with aiohttp.ClientSession() as http:
        ws = await http.ws_connect(served.url + "ws", headers={"Origin": served.origin}, max_msg_size=0)
        await ws.send_str(json.dumps({"type": "hello", "cols": 100, "rows": 32}))
        hello = await ws.receive()  # (the session's token, first)
        channel = served.web.web_sessions[json.loads(hello.data)["resume"]].channel
        got = 0

        async def read() -> None:  # (the client answers a ping when it reads up to it: aiohttp's autoping)
            nonlocal got
            async for msg in ws:
                got += len(msg.data) if msg.type == aiohttp.WSMsgType.BINARY else 0

        reader = asyncio.get_running_loop().create_task(read())
        answered = channel.ping()
        assert answered is not None
        await asyncio.wait_for(answered, 10)  # a tab that reads answers
        reader.cancel()  # the tab stops reading
        await until(lambda: reader.done(), "the tab no longer reading")
        before = got
        channel.write(b"x" * 3_000_000)  # more than the socket's buffers hold (less than the driver's hard limit)
        unread = channel.ping()
        assert unread is not None
        sock = channel._request.transport.get_extra_info("socket")
        await until(lambda: unsent(sock) > 0, "the tab's TCP window full: the kernel holding the output")
        assert channel.pending_output() > 1_000_000  # (counted: the driver's stuck time can start)
        assert not unread.done()  # (its ping behind that output)
        reader = asyncio.get_running_loop().create_task(read())  # the tab reads again
        await asyncio.wait_for(unread, 30)
        assert got - before >= 3_000_000  # answered after the output before it was read
        await until(lambda: channel.pending_output() == 0, "the buffers drained")
        await ws.close()
        reader.cancel()
