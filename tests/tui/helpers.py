"""Driving the Voltage app in tests: a seeded local backend, waiting, and turning a
chosen legal action into key presses or mouse clicks (read from the screen's own
step, the way a person reads the prompt)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from textual.screen import Screen
from textual.widget import Widget

from engine.voltage import rules as V
from server.local import LocalBackend
from tests.support.wait import until
from tui.app import VoltageApp, make_app
from tui.games.voltage import choices as C
from tui.games.voltage.board import Board
from tui.games.voltage.hand import HandView
from tui.games.voltage.match import MatchScreen
from tui.games.voltage.piles import Piles
from tui.games.voltage.results import ResultsScreen
from tui.pacing import FAST, Pacing
from tui.ports import Handles, RatingChange


def local_app(seed: int = 7, *, name: str = "You", bot_delay: float = 0.0,
              pacing: Pacing = FAST) -> tuple[VoltageApp, LocalBackend]:
    backend = LocalBackend(seed=seed, bot_delay=bot_delay)
    app = make_app(backend, player_name=name, pacing=pacing)
    return app, backend


def match_screen(app: VoltageApp) -> MatchScreen | None:
    for s in reversed(app.screen_stack):
        if isinstance(s, MatchScreen):
            return s
    return None


def ready(app: VoltageApp) -> bool:
    """The human can act now, or the match is decided."""
    if isinstance(app.screen, ResultsScreen):
        return True
    s = app.screen
    return isinstance(s, MatchScreen) and not s._busy and (s.view.my_turn or s.view.over) and not s.concealed


def pick_action(view: V.VoltageView, rng: random.Random) -> V.Action:
    """A seeded choice that mostly hurries a terminal toward its fifth card (so matches
    end sooner), and otherwise picks any legal action (draws, specials, flips)."""
    plays = [a for a in view.legal if isinstance(a, V.Play)]
    if plays and rng.random() < 0.7:
        most = max(view.count(a.terminal) for a in plays)
        return rng.choice([a for a in plays if view.count(a.terminal) == most])
    return rng.choice(view.legal)


def _slot(screen: MatchScreen, card: Any) -> int:
    """The place (key index) of a hand card, as the screen shows it."""
    assert screen.view.hand is not None
    return screen.place_of(screen.view.hand.index(card))


def _target_key(screen: MatchScreen, target: Any) -> str:
    for o in screen.step.options:
        if o.target == target:
            return o.key
    raise AssertionError(f"target {target} not offered: {screen.step}")


async def play_by_keys(pilot: Any, screen: MatchScreen, action: V.Action, rng: random.Random) -> None:
    view = screen.view
    if isinstance(action, (V.Draw, V.Pass)):
        await pilot.press("space")
    elif isinstance(action, V.Flip):
        if rng.random() < 0.5:
            await pilot.press(C.TERMINAL_KEYS[action.terminal])
        else:  # walk the cursor to it and confirm
            opts = screen.step.cursor_options
            want = next(i for i, o in enumerate(opts) if o.action == action)
            for _ in range((want - screen.cursor) % len(opts)):
                await pilot.press("right")
            await pilot.press("enter")
    elif isinstance(action, V.Play):
        await pilot.press(C.HAND_KEYS[_slot(screen, action.card)])
        assert screen.sel.card == action.card, screen.step
        if not action.card.special:
            await pilot.press("up" if action.side != C.me_of(view) else "down")
        else:
            await pilot.press(C.TERMINAL_KEYS[action.terminal])
            if screen.step.kind == C.TARGET:
                await pilot.press(_target_key(screen, action.target))
    await pilot.pause()


async def play_by_clicks(pilot: Any, screen: MatchScreen, action: V.Action) -> None:
    view = screen.view
    me = C.me_of(view)
    board = screen.query_one(Board)
    if isinstance(action, (V.Draw, V.Pass)):
        await pilot.click(screen.query_one(Piles), offset=(2, 1))
    elif isinstance(action, V.Flip):
        await pilot.click(board, offset=board.point_of(action.terminal, "block"))
    elif isinstance(action, V.Play):
        hand = screen.query_one(HandView)
        await pilot.click(hand, offset=hand.point_of(_slot(screen, action.card)))
        await pilot.pause()
        assert screen.sel.card == action.card, screen.step
        position = "top" if action.side != me else "bottom"
        if action.target is not None:
            index = view.board[action.terminal][action.side].index(action.target)
            await pilot.click(board, offset=board.point_of(action.terminal, position, index))
        else:
            await pilot.click(board, offset=board.point_of(action.terminal, position))
    await pilot.pause()


async def play_match(pilot: Any, app: VoltageApp, *, by: str, seed: int = 1, max_actions: int = 400) -> int:
    """Play the human seat to the end; returns the number of actions made."""
    rng = random.Random(seed)
    keys_rng = random.Random(seed + 1)  # how to press (direct key or cursor), apart from what to play
    n = 0
    while True:
        await until(lambda: ready(app))
        if isinstance(app.screen, ResultsScreen):
            return n
        screen = app.screen
        assert isinstance(screen, MatchScreen)
        if screen.view.over:
            continue
        before = len(screen.viewer.log)
        action = pick_action(screen.view, rng)
        if by == "keys":
            await play_by_keys(pilot, screen, action, keys_rng)
        else:
            await play_by_clicks(pilot, screen, action)
        assert not screen.error, f"{action} refused: {screen.error}"
        await until(  # (the defaults bind this round's screen, count and action)
            lambda screen=screen, before=before: (
                len(screen.viewer.log) > before or isinstance(app.screen, ResultsScreen)
            ),
            what=lambda screen=screen, action=action: (
                f"{action} made nothing happen; step {screen.step}, sel {screen.sel}, error {screen.error!r}"
            ),
        )
        n += 1
        assert n < max_actions, "the match did not end"


class ContractHandle:
    """Only what the seat-handle contract (:class:`tui.ports.SeatHandle`) offers a screen:
    no way to the match behind it.

    Screens given this instead of a real handle prove they read nothing but views,
    names, the log and the notice, and act only through ``submit``.
    """

    __slots__ = ("_h",)
    _h: Any

    def __init__(self, handle: Any) -> None:
        object.__setattr__(self, "_h", handle)

    seat = property(lambda self: self._h.seat)
    names = property(lambda self: self._h.names)
    log = property(lambda self: self._h.log)
    notice = property(lambda self: self._h.notice)
    game = property(lambda self: self._h.game)
    spectator = property(lambda self: self._h.spectator)
    countdown = property(lambda self: self._h.countdown)
    version = property(lambda self: self._h.version)
    # The bare contract: no game extras (no clock, no draw offer to make), as the snapshots show it.
    extras: Any = MappingProxyType({})

    def view(self) -> V.VoltageView:
        return self._h.view()

    def subscribe(self, callback: Any) -> Any:
        return self._h.subscribe(callback)

    def subscribe_messages(self, callback: Any) -> Any:
        return self._h.subscribe_messages(callback)

    async def submit(self, action: V.Action) -> None:
        await self._h.submit(action)

    async def resign(self) -> None:
        await self._h.resign()


class FixedBackend:
    """A backend whose home screen is a match screen for the given handles
    (a :class:`tui.ports.Backend`)."""

    online: bool = False

    def __init__(self, handles: Handles) -> None:
        self.handles = handles
        self.rematches = 0

    def home_screen(self) -> Screen[Any]:
        return MatchScreen(self.handles, self)

    async def rematch(self, handles: Handles) -> Handles | None:
        self.rematches += 1
        return None

    async def rating_change(self, handles: Handles) -> Sequence[RatingChange] | None:
        return None


def screen_text(app: VoltageApp) -> str:
    """Every character drawn on the screen now (the SVG export's text, unescaped)."""
    import html
    import re

    svg = app.export_screenshot()
    parts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    return html.unescape("".join(parts)).replace("\xa0", " ")


def widget_texts(app: VoltageApp) -> str:
    """The plain text of every widget's own rendering, shown or not."""
    out: list[str] = []
    for w in app.screen.walk_children(Widget, with_self=True):
        try:
            r = w.render()
        except Exception:
            continue
        plain = getattr(r, "plain", None)
        if isinstance(plain, str):
            out.append(plain)
        for attr in ("border_title", "border_subtitle"):
            v = getattr(w, attr, None)
            if v:
                out.append(str(v))
    return "\n".join(out)
