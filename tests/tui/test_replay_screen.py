"""The replay screen: a finished match from the store, stepped through by keys, with
the board, hands and log as the replay model says they were at each step: every hand
face up by default (the match is over), or one seat's own view (``s``)."""

from __future__ import annotations

import random

import pytest

from engine.voltage import rules as V
from server.replay import Replay
from server.store.db import Store
from tests.support.words import lines
from tui.app import make_app
from tui.games.voltage.board import Board
from tui.games.voltage.hand import HandView, OpponentHand
from tui.games.voltage.replay import OpenHand, ReplayScreen
from tui.pacing import FAST
from tui.screens.replay import ReplayBackend
from tui.text import card_label
from tui.widgets.keybar import KeyBar
from tui.widgets.log import MatchLog

A, B = "SHA256:alice", "SHA256:bob"
SEATS = [{"name": "Alice", "identity": A}, {"name": "Bob", "identity": B}]


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A finished match that scored several sets, in a store."""
    rng = random.Random(8)
    s = V.new_match(2024)
    actions = []
    while not s.over:
        a = rng.choice(V.legal_actions(s))
        actions.append(a)
        s, _ = V.apply(s, a)
    assert sum(s.scores) >= 3
    d = tmp_path_factory.mktemp("replay")
    with Store.open(d) as store:
        mid = store.create_match("voltage", 2024, SEATS)
        for i, a in enumerate(actions):
            store.append_action(mid, i, a.text())
        store.finish_match(mid, [1, 2] if s.winner == 0 else [2, 1], s.reason, s.scores)
    ro = Store.open(d, readonly=True)
    yield ro, mid
    ro.close()


def shown_board(screen: ReplayScreen) -> list[tuple[tuple, tuple]]:
    """(top cards, bottom cards) of each terminal as the board widgets hold them."""
    board = screen.query_one(Board)
    return [(t.top.cards, t.bottom.cards) for t in board.states]


def expected_board(view: V.VoltageView) -> list[tuple[tuple, tuple]]:
    me = view.seat if view.seat is not None else 0
    return [(view.board[t][1 - me], view.board[t][me]) for t in range(4)]


def hand_shown(screen: ReplayScreen) -> tuple:
    return screen.query_one(HandView).faces


def backs_shown(screen: ReplayScreen) -> int:
    return screen.query_one(HandView).backs


def painted(widget) -> str:
    """What a painted widget shows, as plain text (its rows, top to bottom)."""
    return "\n".join("".join(seg.text for seg in row) for row in widget._raw)


def open_hand(screen: ReplayScreen):
    """The top seat's hand face up (tui.games.voltage.replay.OpenHand), if the screen has one."""
    found = screen.query("#open-hand")
    assert found, "no face-up hand for the top seat"
    return found.first()


def top_hand_faces(screen: ReplayScreen) -> tuple:
    """The top seat's cards as shown face up (none when its hand shows backs)."""
    found = screen.query("#open-hand")
    return found.first(OpenHand).cards if found and found.first().display else ()


def agrees(screen: ReplayScreen, replay: Replay, step: int, seat: int | None = None) -> None:
    """The screen shows ``step`` as every hand (``seat`` None) or as ``seat`` saw it."""
    view = replay.view(step) if seat is None else replay.seat_view(step, seat)
    assert screen.step_no == step
    assert screen.view == view
    assert shown_board(screen) == expected_board(view)
    assert screen.query_one(MatchLog).lines == lines("voltage", replay.entries(step), replay.names)
    me = view.seat if view.seat is not None else 0
    if seat is None:  # both hands face up, the top one where the live screen has backs
        hands = replay.hands(step)
        assert hand_shown(screen) == hands[me] and backs_shown(screen) == 0
        assert top_hand_faces(screen) == hands[1 - me]
        assert not screen.query_one(OpponentHand).display
        text = painted(open_hand(screen))
        assert all(card_label(c) in text for c in hands[1 - me])
    else:  # the seat's own hand, the other's backs only
        assert hand_shown(screen) == view.hand
        assert top_hand_faces(screen) == ()
        opponent = screen.query_one(OpponentHand)
        assert opponent.display and f"{len(view.hand_backs[1 - me])} card" in str(opponent.render())


async def run_replay(replay: Replay):
    app = make_app(ReplayBackend(replay), pacing=FAST)  # (a live match's end would open the results at once)
    return app


async def test_step_forward_back_and_jump_to_a_set_as_a_spectator(stored):
    store, mid = stored
    replay = Replay.load(store, mid)  # no viewer: a spectator
    assert replay.sets >= 3
    app = await run_replay(replay)
    async with app.run_test(size=(100, 32)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        agrees(screen, replay, 0)
        assert "REPLAY" in str(screen.bar_text()) and "step 0/" in str(screen.bar_text())
        for _ in range(5):
            await pilot.press("right")
        await pilot.pause()
        agrees(screen, replay, 5)
        assert screen.step_text() and lines("voltage", replay.step_entries(5), replay.names)[0] in screen.step_text()
        await pilot.press("left", "left")
        await pilot.pause()
        agrees(screen, replay, 3)

        # ] goes to the start of the next set, [ back to the start of this one.
        await pilot.press("right_square_bracket")
        await pilot.pause()
        agrees(screen, replay, replay.set_start(2))
        assert replay.set_at(screen.step_no) == 2
        await pilot.press("pagedown")
        await pilot.pause()
        agrees(screen, replay, replay.set_start(3))
        assert "set 3 of" in str(screen.bar_text())
        await pilot.press("right", "right", "left_square_bracket")
        await pilot.pause()
        agrees(screen, replay, replay.set_start(3))
        await pilot.press("pageup")
        await pilot.pause()
        agrees(screen, replay, replay.set_start(2))

        await pilot.press("end")
        await pilot.pause()
        agrees(screen, replay, replay.last)
        assert screen.view.over
        await pilot.pause()
        assert app.screen is screen  # no results screen: the end is a step like the others
        await pilot.press("right")  # past the end: stays
        await pilot.pause()
        agrees(screen, replay, replay.last)
        await pilot.press("home")
        await pilot.pause()
        agrees(screen, replay, 0)
        # Nothing can be played from a replay: the match keys do nothing.
        await pilot.press("1", "space", "o")
        await pilot.pause()
        agrees(screen, replay, 0)
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code in (0, None)


async def test_every_hand_is_shown_and_s_switches_to_one_seats_view(stored):
    """Issue 14: a finished match shows both hands' faces; ``s`` cycles every hand →
    Alice's view → Bob's view → every hand, the other hand then showing only backs."""
    store, mid = stored
    replay = Replay.load(store, mid)  # as `voltage replay ID` opens it: no viewer
    app = await run_replay(replay)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        step = next(i for i in range(len(replay)) if all(len(h) >= 3 for h in replay.hands(i)))
        screen.go(step)
        await pilot.pause()
        agrees(screen, replay, step)
        assert "s  every hand" in str(screen.bar_text())
        board_size = screen.query_one(Board).size
        assert open_hand(screen).size.height >= 7  # two rows of cards and the name
        for seat, words in ((0, "s  Alice's view"), (1, "s  Bob's view")):
            await pilot.press("s")
            await pilot.pause()
            agrees(screen, replay, step, seat)
            assert words in str(screen.bar_text())
            # Seen as Alice (Bob): her (his) side is named, "your side" is only ever the viewer's.
            labels = {t.bottom.label for t in screen.query_one(Board).states}
            assert labels == {f"{replay.names[seat]}'s side"}
            await pilot.press("right")  # stepping keeps the seat's view
            await pilot.pause()
            agrees(screen, replay, step + 1, seat)
            await pilot.press("left")
        await pilot.press("s")
        await pilot.pause()
        agrees(screen, replay, step)
        assert "s  every hand" in str(screen.bar_text())
        assert screen.query_one(Board).size == board_size  # the board kept every row
        keys = screen.query_one(KeyBar).text.plain
        assert "s seat view" in keys and keys.rstrip().endswith("? rules") and len(keys) <= 80


async def test_a_player_sees_every_hand_from_their_own_seat_and_their_own_view(stored):
    store, mid = stored
    replay = Replay.load(store, mid, viewer=B)
    assert replay.seat == 1
    app = await run_replay(replay)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        for step in (0, 7, replay.set_start(2)):
            screen.go(step)
            await pilot.pause()
            agrees(screen, replay, step)  # Bob at the bottom, Alice's hand face up above
            assert screen.me == 1 and top_hand_faces(screen) == replay.hands(step)[0]
        await pilot.press("s", "s")  # Alice's view, then Bob's own: what he saw at the time
        await pilot.pause()
        assert "s  your view  ·  Alice v Bob" in str(screen.bar_text())
        for step in (0, 7, replay.set_start(2)):
            screen.go(step)
            await pilot.pause()
            agrees(screen, replay, step, 1)
            view = replay.view(step)
            assert view.hand == V.view(replay.state(step), 1).hand and hand_shown(screen) == view.hand
            # The other hand is only backs: the screen got the seat's view, nothing more.
            n = len(V.view(replay.state(step), 0).hand)  # Alice's hand: only its size is shown
            assert len(view.hand_backs[0]) == n
            assert f"{n} card" in str(screen.query_one("#opponent").render())
            assert {t.bottom.label for t in screen.query_one(Board).states} == {"your side"}


async def test_the_replay_bar_keeps_the_names_and_says_whose_view_without_contradiction(tmp_path):
    """"Alice v Bot (easy)" whole at 90 and 80 columns; a seat's view never says "as" someone
    else; shortened by meaning, and cut with an ellipsis only when nothing else can go."""
    rng = random.Random(8)
    s = V.new_match(2024)
    with Store.open(tmp_path) as store:
        mid = store.create_match("voltage", 2024, [SEATS[0], {"name": "Bot (easy)", "bot": "easy"}])
        n = 0
        while not s.over:
            a = rng.choice(V.legal_actions(s))
            store.append_action(mid, n, a.text())
            s, _ = V.apply(s, a)
            n += 1
        store.finish_match(mid, [1, 2] if s.winner == 0 else [2, 1], s.reason, s.scores)
        for viewer in (A, None):
            replay = Replay.load(store, mid, viewer)
            for width in (120, 90, 80):
                app = await run_replay(replay)
                async with app.run_test(size=(width, 30)) as pilot:
                    await pilot.pause()
                    screen = app.screen
                    bar = str(screen.query_one("#replay-bar").render())
                    assert bar == str(screen.bar_text()) and bar.endswith("  ·  Alice v Bot (easy)"), bar
                    assert "s  every hand  as " + ("Alice" if viewer else "a spectator") in bar or width < 90
                    for _ in range(2):
                        await pilot.press("s")
                        await pilot.pause()
                        bar = str(screen.bar_text())
                        assert bar.endswith("  ·  Alice v Bot (easy)") and " as " not in bar, bar
                        assert ("your view" if viewer else "view") in bar or "Bot (easy)'s view" in bar
        narrow = str(screen.bar_text(40))
        assert len(narrow) == 40 and narrow.endswith("…")
