"""The lobby over SSH with a store: the player's rating in the title, their own finished
matches newest first (Enter replays one), and the leaderboard screen."""

from __future__ import annotations

import asyncssh

from tests.support.store import KB, finished_match
from tests.support.terminal import Terminal


async def test_the_lobby_shows_rating_history_replay_and_leaderboard(kept):
    key = asyncssh.generate_private_key("ssh-ed25519")
    fp = key.get_fingerprint("sha256")
    store = kept.store
    store.upsert_player(fp, "erin")
    older = finished_match(store, 21, names=("erin", "Bob"), idents=(fp, KB))
    newer = finished_match(store, 22, names=("Bob", "erin"), idents=(KB, fp))
    mu, sigma, games = store.rating(fp, "voltage")
    shown = round(1000 + 20 * (mu - 3 * sigma))

    t = await Terminal(100, 32).connect(kept.port, "someone", client_keys=[key])
    try:
        await t.wait_for("Your name")
        assert t.has(r"│\s+erin\s")  # a returning key is offered its own name
        t.press("enter")
        await t.wait_for(rf"you: erin\s+Voltage {shown} \({games} rated\)")
        # Own matches, newest first.
        m = await t.wait_for(rf"#{newer} .*\n(.*\n)*.*#{older} ")
        assert m
        assert f"#{newer} " not in t.reversed_text()  # the menu of ways to play has the focus
        t.send("h")
        # Focus moves after the key is handled: the focused list shows its cursor row in reverse video.
        await t.wait_until(lambda: f"#{newer} " in t.reversed_text(), what="the history list to take the focus")
        t.press("enter")
        await t.wait_for(rf"REPLAY.*#{newer}.*as erin")
        t.press("right")
        await t.wait_for("step 1/")
        t.send("q")
        await t.wait_for("you: erin")
        # The leaderboard, from its key: every rated player with a sparkline.
        t.send("l")
        await t.wait_for("Leaderboard: Voltage")
        await t.wait_for(r"1  \S+ +\d+ +\d+ +[▁▂▃▄▅▆▇█]")
        for name in ("Alice", "Bob", "erin"):
            assert t.has(rf"\d  {name} "), t.text()
        t.send("q")
        await t.wait_for("you: erin")
    finally:
        await t.close()
