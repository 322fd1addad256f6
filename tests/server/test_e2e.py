"""End to end: real SSH clients with PTYs, screens rendered by a terminal emulator
(pyte), the real app, playing by keystrokes through the server.

The tests read the server-side match only as an oracle (whose turn it is, what
is legal) to decide which keys to press and when the screen is ready for them.
"""

from __future__ import annotations

import asyncio
import re
import time

import asyncssh
import pytest

from server.ssh.server import harden_app
from tests.server.terminal import Terminal

tui_app = pytest.importorskip("tui.app")
choices = pytest.importorskip("tui.games.voltage.choices")

KEY_NAMES = {"space": " ", "up": "up", "down": "down"}


@pytest.fixture
async def game_server(start_server):
    """A server running the real app, with short grace and bot-offer delays."""
    apps: dict[str, object] = {}

    def factory(backend, player_name):
        app = harden_app(tui_app.make_app(backend, player_name=player_name))
        app.results_delay = 0.2
        app.flash_seconds = 0
        apps[backend.player.username] = app
        return app

    srv = await start_server(factory, grace=2.0, bot_offer_after=0.5, bot_delay=0.0)
    srv.apps = apps
    return srv


async def wait_until(predicate, timeout=10.0, what="condition"):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what() if callable(what) else what}")
        await asyncio.sleep(0.01)


async def enter(srv, username, key=None, *, command=None, name_ok=True) -> Terminal:
    t = await Terminal(100, 32).connect(srv.port, username, client_keys=[key] if key else (), command=command)
    if name_ok:
        await t.wait_for("Your name")
        t.press("enter")
        await t.wait_for(f"you: {username}")
    return t


async def quick_pair(srv, first: Terminal, second: Terminal, name: str = "alice"):
    """``first`` then ``second`` choose Quick match: Voltage; the match they are paired in
    (found by ``name``, one of theirs), once both screens show it."""
    first.press("home", "enter")
    await first.wait_for("Waiting for an opponent")
    second.press("home", "enter")
    await first.wait_for("VOLTAGE")
    await second.wait_for("VOLTAGE")
    return match_of(srv, name)


def match_of(srv, name):
    for h in srv.lobby.matches.values():
        if h.running and any(p is not None and p.name == name for p in h.humans):
            return h
    return None


def keys_for(view, names, app_mode: bool) -> list[str]:
    """The keystrokes that play the first option of each step, as a player would."""
    keys = []
    sel = choices.NOTHING
    while True:
        step = choices.step_for(view, sel, names)
        option = step.options[0]
        key = KEY_NAMES.get(option.key, option.key)
        if key in ("up", "down") and app_mode:
            key = "app-" + key
        keys.append(key)
        if option.action is not None:
            return keys
        sel = option.select


def top_line(term: Terminal) -> str:
    return next((line for line in term.screen.display if "VOLTAGE" in line), "")


def not_flipping(hosted) -> bool:
    """A flip's block buttons cover the totals row: check screens outside it."""
    return hosted.match.view(None).phase != "flip"


def totals(term: Terminal) -> list[tuple[int, int]]:
    """Each terminal's (top, bottom) totals as the screen shows them."""
    rows = [list(map(int, re.findall(r"Σ (\d+)", line))) for line in term.screen.display if "Σ" in line]
    rows = [r for r in rows if len(r) == 4]
    assert len(rows) >= 2, term.text()
    return list(zip(rows[0], rows[1]))


def scores(term: Terminal) -> dict[str, int]:
    top = next(line for line in term.screen.display if "VOLTAGE" in line)
    return {name: int(n) for name, n in re.findall(r"[▲▼] (\S+)\s+\S+\s+(\d)/4", top)}


async def play(srv, hosted, terms: dict[int, Terminal], apps: dict[int, object], *, stop=None, check_every=7):
    """Play the match by keystrokes until it ends (or ``stop()``)."""
    match = hosted.match
    names = match.names
    n = 0
    while not match.over and not (stop and stop()):
        seat = match.state.to_move
        if match.seats[seat].is_bot or seat not in terms:
            await asyncio.sleep(0.01)
            continue
        app = apps[seat]
        await wait_until(lambda: getattr(app.screen, "view", None) == match.view(seat), what="the screen's view")
        before = len(match.actions)
        keys = keys_for(match.view(seat), names, app_mode=bool(n % 2))
        terms[seat].press(*keys)
        await wait_until(lambda: len(match.actions) > before or match.over,
                         what=lambda: f"the action after {keys} from seat {seat}:\n{terms[seat].text()}")
        n += 1
        if n % check_every == 0 and not match.over and match.view(None).phase != "flip":
            await screens_agree(match, terms)


async def screens_agree(match, terms: dict[int, Terminal], spectator: Terminal | None = None):
    """Every screen shows the match's board totals and scores."""
    v = match.view(None)
    want_scores = {match.seats[s].name: v.scores[s] for s in (0, 1)}
    for seat, term in terms.items():
        # Own side at the bottom: top row is the opponent's total.
        want = [(v.total(t, 1 - seat), v.total(t, seat)) for t in range(4)]
        await wait_until(lambda: _safe(totals, term) == want and _safe(scores, term) == want_scores,
                         what=f"seat {seat}'s screen to agree:\n{term.text()}")
    if spectator is not None:
        want = [(v.total(t, 1), v.total(t, 0)) for t in range(4)]
        await wait_until(lambda: _safe(totals, spectator) == want and _safe(scores, spectator) == want_scores,
                         what=f"the spectator's screen to agree:\n{spectator.text()}")


def _safe(f, term):
    try:
        return f(term)
    except (AssertionError, StopIteration):
        return None


async def test_two_players_quick_match_play_watch_and_rematch(game_server):
    srv = game_server
    ka, kb = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    alice = await enter(srv, "alice", ka)
    bob = await enter(srv, "bob", kb)
    try:
        await alice.wait_for(r"Online \(2\)")
        hosted = await quick_pair(srv, alice, bob)
        assert hosted is not None and hosted.match.names == ("alice", "bob")

        # A third player watches from the lobby's list of matches.
        carol = await enter(srv, "carol")
        await carol.wait_for(hosted.code)
        carol.press("w")
        app = srv.apps["carol"]
        await wait_until(lambda: getattr(app.focused, "id", None) == "matches", what="focus on the matches")
        carol.press("enter")
        await carol.wait_for("Watching")
        assert "carol" in {p.name for p in hosted.spectators}
        # The palette (whose commands include writing screenshots) is not there.
        carol.press("\x10")  # ctrl+p
        await asyncio.sleep(0.2)
        assert not carol.has("Search for commands")

        terms = {0: alice, 1: bob}
        apps = {0: srv.apps["alice"], 1: srv.apps["bob"]}
        await play(srv, hosted, terms, apps, stop=lambda: len(hosted.match.actions) >= 12 and not_flipping(hosted))
        await screens_agree(hosted.match, terms, spectator=carol)
        await play(srv, hosted, terms, apps)
        v = hosted.match.view(None)
        winner = hosted.match.names[v.winner] if v.winner is not None else None
        for t in (alice, bob):
            await t.wait_for(f"{winner} wins the match" if winner else "drawn")
            await t.wait_for("rematch")

        # Rematch: both agree.
        alice.press("r")
        await alice.wait_for("Asking for a rematch")
        await bob.wait_for("alice wants a rematch")
        bob.press("r")
        await wait_until(lambda: match_of(srv, "alice") is not None, what="the rematch")
        again = match_of(srv, "alice")
        assert again.match is not hosted.match and set(again.match.names) == {"alice", "bob"}
        for t in (alice, bob):
            await t.wait_for("turn 1")
        await carol.close()
    finally:
        await alice.close()
        await bob.close()


async def test_a_dropped_player_comes_back_then_a_bot_holds_the_seat_until_they_return(game_server):
    srv = game_server
    ka = asyncssh.generate_private_key("ssh-ed25519")
    kb = asyncssh.generate_private_key("ssh-ed25519")
    alice = await enter(srv, "alice", ka)
    bob = await enter(srv, "bob", kb)
    try:
        alice.press("down", "enter")  # a private room
        code = (await alice.wait_for(r"Room ([A-Z]{4})")).group(1)
        # The line for a friend can be pasted as it is: the server's port and host are in it.
        await alice.wait_for(rf"ssh -t -p {srv.port} 127\.0\.0\.1 join {code}")
        bob.press("down", "down", "enter")
        await bob.wait_for("room code")
        bob.send(code.lower())
        bob.press("enter")
        await bob.wait_for("VOLTAGE")
        hosted = match_of(srv, "alice")
        apps = {0: srv.apps["alice"], 1: srv.apps["bob"]}
        await play(srv, hosted, {0: alice, 1: bob}, apps, stop=lambda: len(hosted.match.actions) >= 4 and not_flipping(hosted))

        # Alice drops; Bob sees the countdown; Alice comes back inside it, to her seat.
        await alice.close()
        await bob.wait_for(r"waiting for alice to reconnect \(0:0\d\)")
        alice = await Terminal(100, 32).connect(srv.port, "alice", client_keys=[ka])
        await alice.wait_for("VOLTAGE")
        await bob.wait_gone("waiting for alice")
        assert not hosted.match.seats[0].is_bot
        apps[0] = srv.apps["alice"]
        await screens_agree(hosted.match, {0: alice, 1: bob})

        # Dropped past the grace period: a bot plays her seat, shown as such.
        await alice.close()
        await wait_until(lambda: "alice (bot playing)" in top_line(bob), what="the bot in the top bar")
        before = len(hosted.match.actions)
        await play(srv, hosted, {1: bob}, apps, stop=lambda: len(hosted.match.actions) >= before + 3 and not_flipping(hosted))
        # She takes the seat back on return.
        alice = await Terminal(100, 32).connect(srv.port, "alice", client_keys=[ka])
        await alice.wait_for("VOLTAGE")
        await wait_until(lambda: "bot playing" not in top_line(bob), what="alice back in the top bar")
        assert not hosted.match.seats[0].is_bot
        apps[0] = srv.apps["alice"]
        await screens_agree(hosted.match, {0: alice, 1: bob})
    finally:
        await alice.close()
        await bob.close()


async def test_join_and_watch_by_code_from_the_command_line_and_the_bot_offer(game_server):
    srv = game_server
    dave = await enter(srv, "dave")
    try:
        dave.press("down", "enter")
        code = (await dave.wait_for(r"Room ([A-Z]{4})")).group(1)
        erin = await Terminal(100, 32).connect(srv.port, "erin", command=f"join {code}")
        await erin.wait_for("Your name")
        erin.press("enter")
        await erin.wait_for("VOLTAGE")
        await dave.wait_for("VOLTAGE")
        frank = await Terminal(100, 32).connect(srv.port, "frank", command=f"watch {code}")
        await frank.wait_for("Your name")
        frank.press("enter")
        await frank.wait_for("Watching")
        nobody = await Terminal(100, 32).connect(srv.port, "gina", command="watch ZZZZ")
        await nobody.wait_for("Your name")
        nobody.press("enter")
        await nobody.wait_for("you: ")
        await nobody.wait_for("no match ZZZZ")
        # Alone in the queue: after a while a bot is offered, and b takes it.
        nobody.press("enter")
        await nobody.wait_for("press b to play a bot")
        nobody.press("b")
        await nobody.wait_for("VOLTAGE")
        await nobody.wait_for(r"Bot \(")
        for t in (erin, frank, nobody):
            await t.close()
    finally:
        await dave.close()
