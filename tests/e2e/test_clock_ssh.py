"""Over real SSH (pyte-rendered PTYs): a quick match shows both clocks (5+5); a draw
offered with ``=`` reaches the opponent, who accepts with ``y``; a match aborted with
``a`` before the first move ends with no result."""

from __future__ import annotations

import re

from engine.voltage import rules as V
from tests.support.e2e import alice_and_bob, quick_pair, top_line
from tests.support.wait import until


async def test_a_draw_offered_by_key_is_accepted_by_key(game_server):
    srv = game_server
    async with alice_and_bob(srv) as (alice, bob):
        hosted = await quick_pair(srv, alice, bob)
        m = hosted.match
        for t in (alice, bob):  # both banks, in the top bar: 5:00 (the mover's may have begun to run)
            await until(lambda t=t: len(re.findall(r"\b[45]:\d\d\b", top_line(t))) == 2,
                        what=lambda t=t: t.text())
        while m.state.turns < 3:  # a draw may be offered from turn 3 (before, abort is the key)
            await m.handle(m.state.to_move).submit(m.view(m.state.to_move).legal[0])
        await alice.wait_for("offer draw")
        alice.press("=")
        await bob.wait_for(r"alice offers a draw: \[y\] accept, \[n\] decline")
        bob.press("y")
        for t in (alice, bob):
            await t.wait_for("drawn by agreement")
        assert m.over and m.state.reason == V.AGREEMENT and m.winner is None


async def test_a_match_aborted_by_key_before_the_first_move(game_server):
    srv = game_server
    async with alice_and_bob(srv) as (alice, bob):
        hosted = await quick_pair(srv, alice, bob)
        m = hosted.match
        await alice.wait_for("abort")
        alice.press("a")
        await alice.wait_for(r"Abort this match\?")
        alice.press("y")
        for t in (alice, bob):
            await t.wait_for("The match is aborted")
        assert m.over and m.state.reason == V.ABORTED and m.winner is None
