"""What the end-to-end tests share: driving the real app over SSH by keys, as a player would.

``play`` reads the server-side match only as an oracle (whose turn it is, what is legal)
to decide which keys to press and when the screen is ready for them; every wait here
waits on a condition with a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import weakref
from collections.abc import AsyncIterator, Mapping
from typing import Any

import asyncssh
from textual.app import App

from tests.support.ssh import lobby_of
from tests.support.terminal import Terminal
from tests.support.wait import until
from tui.games.voltage import choices
from tui.games.voltage.hand import Places, keep_places

KEY_NAMES = {"space": " ", "up": "up", "down": "down"}


async def enter(srv, username, key=None, *, command=None, name_ok=True) -> Terminal:
    t = await Terminal(100, 32).connect(srv.port, username, client_keys=[key] if key else (), command=command)
    if name_ok:
        await t.wait_for("Your name")
        t.press("enter")
        await t.wait_for(f"you: {username}")
    return t


@contextlib.asynccontextmanager
async def alice_and_bob(srv) -> AsyncIterator[tuple[Terminal, Terminal]]:
    """Alice and Bob, each with a key of their own, named and in the lobby; both
    sessions closed when the block ends."""
    ka, kb = (asyncssh.generate_private_key("ssh-ed25519") for _ in range(2))
    alice = await enter(srv, "alice", ka)
    bob = None
    try:
        bob = await enter(srv, "bob", kb)
        yield alice, bob
    finally:
        await alice.close()
        if bob is not None:
            await bob.close()


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
    for h in lobby_of(srv).matches.values():
        if h.running and any(p is not None and p.name == name for p in h.humans):
            return h
    return None


class Hands:
    """Where each seat's screen shows its hand cards, and so their keys: as the match screen
    places them (:func:`tui.games.voltage.hand.keep_places`: kept for the rest of a turn).
    Ask it at each of the seat's steps, as the screen sees each of them."""

    def __init__(self) -> None:
        self._last: dict[int | None, tuple[int, tuple, Places]] = {}

    def places(self, view) -> Places:
        hand = view.hand or ()
        last = self._last.get(view.seat)
        shown = [last[1][i] if i is not None else None for i in last[2]] if last and last[0] == view.turn else ()
        places = keep_places(hand, shown)
        self._last[view.seat] = (view.turn, hand, places)
        return places


_HANDS: weakref.WeakKeyDictionary[Terminal, Hands] = weakref.WeakKeyDictionary()


def hands_of(term: Terminal) -> Hands:
    """The hand places of the screen ``term`` shows (a new connection's screen starts afresh)."""
    hands = _HANDS.get(term)
    if hands is None:
        hands = _HANDS[term] = Hands()
    return hands


def keys_for(view, names, app_mode: bool, hands: Hands | None = None, places: Places | None = None) -> list[str]:
    """The keystrokes that play the first option of each step, as a player would (a hand
    card by the key its screen shows: ``places``, the screen's own, or as ``hands`` follows
    them, else its place in the hand)."""
    keys = []
    sel = choices.NOTHING
    if places is None:
        places = hands.places(view) if hands is not None else keep_places(view.hand or ())
    while True:
        step = choices.step_for(view, sel, names)
        option = step.options[0]
        key = KEY_NAMES.get(option.key, option.key)
        if step.kind == choices.CARD and option.slot is not None:
            key = choices.HAND_KEYS[places.index(option.slot)]
        if key in ("up", "down") and app_mode:
            key = "app-" + key
        keys.append(key)
        if option.action is not None:
            return keys
        assert option.select is not None  # an option that acts on nothing selects something
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
    return list(zip(rows[0], rows[1], strict=True))


def scores(term: Terminal) -> dict[str, int]:
    top = next(line for line in term.screen.display if "VOLTAGE" in line)
    return {name: int(n) for name, n in re.findall(r"[▲▼] (\S+)\s+\S+\s+(\d)/4", top)}


async def play(srv, hosted, terms: dict[int, Terminal], apps: Mapping[int, App[Any]], *, stop=None, check_every=7):
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
        # (the lambdas are awaited at once, before the loop moves on: binding their names as defaults says so)
        await until(lambda app=app, seat=seat: getattr(app.screen, "view", None) == match.view(seat),
                    what="the screen's view")
        before = len(match.actions)
        keys = keys_for(match.view(seat), names, app_mode=bool(n % 2), hands=hands_of(terms[seat]),
                        places=getattr(app.screen, "places", None))
        terms[seat].press(*keys)
        def late(keys: list[str] = keys, seat: int = seat) -> str:
            return f"the action after {keys} from seat {seat}:\n{terms[seat].text()}"

        await until(lambda before=before: len(match.actions) > before or match.over, what=late)
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
        await until(lambda t=term, w=want: _safe(totals, t) == w and _safe(scores, t) == want_scores,
                    what=f"seat {seat}'s screen to agree:\n{term.text()}")
    if spectator is not None:
        want = [(v.total(t, 1), v.total(t, 0)) for t in range(4)]
        await until(lambda: _safe(totals, spectator) == want and _safe(scores, spectator) == want_scores,
                    what=f"the spectator's screen to agree:\n{spectator.text()}")


def _safe(f, term):
    try:
        return f(term)
    except (AssertionError, StopIteration):
        return None
