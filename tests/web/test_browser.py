"""A browser and an SSH terminal at one table: headless chromium opens the page, sees the lobby,
meets an SSH player (a pyte terminal) through quick match and plays a whole Voltage match by
keystrokes, reloading its page midway (its seat comes back); both screens agree on the result.
Then that SSH player's key links the browser, which plays as the key: its name and rating.

The tests read the server-side match only as an oracle (whose turn it is, what is legal) to
decide which keys to press and when the screen is ready for them, as tests/e2e does."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Mapping
from typing import Any

import asyncssh
from textual.app import App

from server import ratings as R
from tests.support.e2e import enter, keys_for, match_of
from tests.support.store import finished_match
from tests.support.terminal import Terminal
from tests.support.wait import until
from tests.web.browser import Tab, browser


async def play_to_the_end(served, hosted, players: dict[int, Tab | Terminal], apps: Mapping[int, App[Any]], *,
                          midway=None) -> None:
    """Each seat presses the keys of its first option until the match is over (``midway()`` once, after 10 moves)."""
    match = hosted.match
    n = 0
    while not match.over:
        seat = match.state.to_move
        app = apps[seat]
        await until(lambda app=app, seat=seat: getattr(app.screen, "view", None) == match.view(seat),
                    what="the screen's view")
        before = len(match.actions)
        keys = keys_for(match.view(seat), match.names, app_mode=False, places=getattr(app.screen, "places", None))
        player = players[seat]
        if isinstance(player, Tab):
            await player.press(*keys)
        else:
            player.press(*keys)
        await until(lambda before=before: len(match.actions) > before or match.over,
                    what=lambda keys=keys, seat=seat: f"the action after {keys} from seat {seat}")
        n += 1
        if n == 10 and midway is not None:
            await midway()


async def test_a_browser_plays_an_ssh_player_to_the_end_then_plays_as_a_linked_key(web_server, tmp_path):
    served = await web_server()
    bob_key = asyncssh.generate_private_key("ssh-ed25519")
    async with browser(tmp_path / "chromium") as context:
        tab = await Tab(context.pages[0] if context.pages else await context.new_page()).open(served.url)
        await tab.wait_for("Your name")
        await tab.wait_for("Quick match: Voltage")
        await tab.press("Control+u")
        await tab.type("webby")
        await tab.press("enter")
        await tab.wait_for("you: webby")
        web_app = served.apps["guest"]
        assert (await tab.state())["renderer"] in ("webgl", "dom")

        bob = await enter(served, "bob", bob_key)
        try:
            await tab.wait_for(r"Online \(2\)")
            await tab.press("home", "enter")  # quick match
            await tab.wait_for("Waiting for an opponent")
            bob.press("home", "enter")
            await tab.wait_for("VOLTAGE")
            await bob.wait_for("VOLTAGE")
            hosted = match_of(served, "webby")
            assert hosted is not None and set(hosted.match.names) == {"webby", "bob"}
            web_seat = hosted.match.names.index("webby")
            players: dict[int, Tab | Terminal] = {web_seat: tab, 1 - web_seat: bob}
            apps = {web_seat: web_app, 1 - web_seat: served.apps["bob"]}

            async def reload() -> None:
                # The page goes and comes back: its tab brings it back to the same session and seat.
                await tab.page.reload()
                await tab.wait_for("VOLTAGE")
                await tab.wait_for("webby")
                assert served.apps["guest"] is web_app and not hosted.match.seats[web_seat].is_bot
                assert (await tab.state())["sessions"] == 1

            await play_to_the_end(served, hosted, players, apps, midway=reload)
            v = hosted.match.view(None)
            result = (f"{hosted.match.names[v.winner]} wins the match" if v.winner is not None
                      else "The match is drawn")
            await tab.wait_for(result)
            await bob.wait_for(result)
            scores = f"{v.scores[web_seat]}-{v.scores[1 - web_seat]}"
            assert scores in (await tab.text()) or f"{v.scores[1 - web_seat]}-{v.scores[web_seat]}" in (
                await tab.text())
            assert not [e for e in tab.errors if "Content Security Policy" in e], tab.errors
        finally:
            await bob.close()

        # Bob's key, rated in a match of its own, links this browser: it plays as bob.
        fp = bob_key.get_fingerprint("sha256")
        served.store.upsert_player("SHA256:carol", "carol")
        finished_match(served.store, 21, names=("bob", "carol"), idents=(fp, "SHA256:carol"))
        mu, sigma, games = served.store.rating(fp, "voltage")
        conn = await asyncssh.connect("127.0.0.1", served.port, username="bob", client_keys=[bob_key],
                                      known_hosts=None, agent_path=None, preferred_auth="publickey")
        async with conn:
            code = re.search(r"Your link code: (\S+)", (await asyncio.wait_for(conn.run("link"), 10)).stdout)[1]
        page = tab.page
        await page.click("#link-open")
        await page.fill("#link-code", code.lower())
        await page.click("#link-submit")
        await tab.wait_for("Your name")
        await tab.wait_for(r"\bbob\b")  # the key's name, prefilled
        assert (await tab.state())["linked"]
        await tab.press("enter")
        await tab.wait_for(rf"you: bob\s+Voltage {R.display(mu, sigma)} \({games} rated\)")


async def test_a_resized_window_is_drawn_at_its_new_size(web_server, tmp_path):
    # A person's resize (one when the drag ends) is given to the app and drawn, the resizes' budget
    # and their settling notwithstanding.
    served = await web_server(store=False)
    async with browser(tmp_path / "chromium", 1000, 700) as context:
        page = context.pages[0] if context.pages else await context.new_page()
        tab = await Tab(page).open(served.url)
        await tab.wait_for("Your name")
        app = served.apps["guest"]

        async def terminal() -> tuple[int, int]:
            return tuple(await page.evaluate("() => [window.voltage.term.cols, window.voltage.term.rows]"))

        first = await terminal()
        assert tuple(app.size) == first
        await page.set_viewport_size({"width": 1500, "height": 950})

        async def grown() -> bool:
            cols, rows = await terminal()
            return cols > first[0] and rows > first[1]

        await until(grown, "the page's terminal fitted to the bigger window")
        size = await terminal()
        await until(lambda: tuple(app.size) == size, lambda: f"the app at {size}, not {tuple(app.size)}")
        await tab.wait_for("Your name")
        widest = 0

        async def to_the_edge() -> bool:
            nonlocal widest
            widest = max(len(line) for line in (await tab.text()).splitlines())
            return widest == size[0]

        await until(to_the_edge, lambda: f"the picture {size[0]} columns wide, not {widest}")
        assert not tab.errors
