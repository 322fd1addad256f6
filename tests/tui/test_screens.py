"""The screens' promises: hidden cards stay hidden, hot-seat hands stay private,
no input crashes the app, a small terminal is told its size, names are shown
literally, refusals are explained, the rules are one key away."""

import random
from dataclasses import replace

from engine.errors import IllegalActionError
from engine.voltage import cards as K
from engine.voltage import rules as V
from server.host.common import Seat
from server.host.voltage import Match
from tests.support.wait import until
from tests.support.words import log_of
from tests.tui.helpers import (
    ContractHandle,
    FixedBackend,
    local_app,
    match_screen,
    ready,
    screen_text,
    widget_texts,
)
from tui.app import make_app
from tui.dialogs.confirm import ConfirmScreen
from tui.dialogs.pass_keyboard import PassKeyboardScreen
from tui.games.voltage import choices as C
from tui.games.voltage.board import Board
from tui.games.voltage.hand import HandView
from tui.games.voltage.match import MatchScreen
from tui.games.voltage.results import ResultsScreen
from tui.pacing import FAST
from tui.ports import Note
from tui.screens.base import TooSmall
from tui.screens.rules import RulesScreen
from tui.screens.start import StartScreen


def two_humans(seed: int, names=("Ann", "Bob")) -> Match:
    return Match([Seat(names[0], "a"), Seat(names[1], "b")], seed=seed, bot_delay=0)


def fixed_app(handles, pacing=FAST):
    app = make_app(FixedBackend(handles), player_name="Ann", pacing=pacing)
    return app


# -- hidden information --------------------------------------------------------

FUSE_IDS = [c for c in range(K.DECK_SIZE) if K.CARD_FACE[c] == K.FUSE]
BYPASS_IDS = [c for c in range(K.DECK_SIZE) if K.CARD_FACE[c] == K.BYPASS]


def secret_match(seed: int = 4) -> Match:
    """Seat 1 holds all four blown fuses and the four bypasses top the draw pile:
    no fuse or bypass is anywhere seat 0 may look."""
    m = two_humans(seed)
    s = m.state
    secret = set(FUSE_IDS + BYPASS_IDS)
    pool = [c for c in s.hands[0] + s.hands[1] + s.draw if c not in secret]
    s.hands[1] = list(FUSE_IDS)
    s.hands[0] = pool[:4]
    n1, n2, rest = pool[4], pool[5], pool[6:]
    b = BYPASS_IDS
    top_first = [n1, b[0], b[1], n2, b[2], b[3]]  # seat 0 draws one a turn, seat 1 two
    s.draw = rest + top_first[::-1]
    s.to_move = s.first_player = 0
    return m


def assert_nothing_secret(app) -> None:
    for text in (screen_text(app), widget_texts(app)):
        for word in ("FU", "fuse", K.face_code(K.BYPASS), "bypass", "×", "↔"):
            assert word not in text, f"{word!r} reached the screen"


async def test_nothing_the_opponent_may_not_see_reaches_any_widget():
    m = secret_match()
    app = fixed_app([ContractHandle(m.handle(0))])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MatchScreen)
        assert_nothing_secret(app)
        # play a few turns: seat 0 plays number cards through the keys, seat 1 only draws
        for turn in range(2):
            await until(lambda: ready(app))
            play = next(a for a in screen.view.legal if isinstance(a, V.Play))
            await pilot.press(C.HAND_KEYS[screen.place_of(screen.view.hand.index(play.card))], "up")
            await until(lambda: screen.view.phase == "second")
            await pilot.press("space")  # done: draw one (a plain card; the bypasses go to seat 1)
            await until(lambda: not screen.view.my_turn or screen.view.phase == "flip")
            while screen.view.phase == "flip":
                await pilot.press("o")
                await pilot.pause()
            if turn == 0:
                await m.handle(1).submit(V.DRAW)  # seat 1 draws two bypasses, unseen
                while m.state.phase == V.FLIP:
                    await m.handle(1).submit(V.Flip(1))
            await pilot.pause()
            assert_nothing_secret(app)
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            assert_nothing_secret(app)
            await pilot.resize_terminal(80, 24)
        assert K.BYPASS in {K.CARD_FACE[c] for c in m.state.hands[1]}  # they really hold them


# -- hot-seat ------------------------------------------------------------------


async def test_hot_seat_hides_each_hand_until_its_owner_takes_the_keyboard():
    m = two_humans(9)
    handles = [m.handle(0), m.handle(1)]
    app = fixed_app(handles)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(lambda: isinstance(app.screen, PassKeyboardScreen))
        first = m.state.to_move
        assert ("Ann" if first == 0 else "Bob") in screen_text(app)
        ms = match_screen(app)
        # behind the pass screen, the hand is only backs
        assert not ms.query_one(HandView).faces
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, MatchScreen))
        assert ms.viewer.seat == first
        faces = list(ms.query_one(HandView).faces)
        assert faces == list(m.view(first).hand)
        # a whole turn: draw two (flipping if a transformer comes), then the pass screen again
        await pilot.press("space")
        while m.state.phase == V.FLIP:
            await until(lambda: ms.step.kind == C.FLIP)
            await pilot.press("g")
        await until(lambda: isinstance(app.screen, PassKeyboardScreen))
        assert m.state.to_move == 1 - first
        assert not ms.query_one(HandView).faces
        assert ms.concealed
        await pilot.click(offset=(40, 10))
        await until(lambda: isinstance(app.screen, MatchScreen))
        assert ms.viewer.seat == 1 - first
        faces = list(ms.query_one(HandView).faces)
        assert faces == list(m.view(1 - first).hand)


async def test_hot_seat_from_the_start_screen_asks_for_two_names():
    app, backend = local_app(seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for _ in range(8):
            await pilot.press("down")  # the last choice is hot-seat
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press(*"Zoë", "enter")
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, PassKeyboardScreen))
        ms = match_screen(app)
        assert ms.hotseat and ms.names == ("Zoë", "Player 2")
    backend.close()


# -- robustness ----------------------------------------------------------------

GARBAGE = [*"abcdefghijklmnopqrstuvwxyz0123456789!@#$%^&*()-=+[]{};:'\",<.>/\\|`~",
           "enter", "escape", "space", "tab", "shift+tab", "up", "down", "left", "right", "home", "end",
           "pageup", "pagedown", "delete", "backspace", "insert", "f1", "f5", "f12", "ctrl+a", "ctrl+z",
           "ctrl+x", "ctrl+l", "question_mark", "U", "D", "O"]


async def test_no_key_crashes_the_app():
    app, backend = local_app(seed=21)
    rng = random.Random(5)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        for _ in range(5):
            keys = [rng.choice(GARBAGE) for _ in range(16)]
            await pilot.press(*keys)
            await pilot.pause()
            assert app.is_running and app.return_code is None
            if isinstance(app.screen, RulesScreen):
                await pilot.press("escape")
        # every screen still answers
        assert app.screen_stack
    backend.close()


async def test_clicks_anywhere_do_not_crash_and_refusals_are_one_line():
    m = two_humans(2)
    app = fixed_app([m.handle(m.state.to_move)])
    rng = random.Random(1)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for _ in range(20):
            await pilot.click(offset=(rng.randrange(80), rng.randrange(23)))
        await pilot.pause()
        assert app.is_running
        screen = match_screen(app)
        assert "\n" not in screen.error


async def test_a_refused_action_is_explained_and_loses_nothing():
    m = two_humans(2)
    h = m.handle(m.state.to_move)

    class Refusing(ContractHandle):
        __slots__ = ()

        async def submit(self, action):
            raise IllegalActionError("the server says no")

    app = fixed_app([Refusing(h)])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        before = h.view()
        await pilot.press("space")
        await pilot.pause()
        assert screen.error == "the server says no"
        assert "the server says no" in screen_text(app)
        assert h.view() == before and screen.view == before


async def test_a_terminal_below_80x24_says_how_large_it_must_be():
    app, backend = local_app(seed=1)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "60 columns by 20 rows" in text and "at least 80 columns by 24 rows" in text
        await pilot.resize_terminal(80, 24)
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, MatchScreen))
        await pilot.resize_terminal(79, 30)
        await pilot.pause()
        assert app.screen.query_one(TooSmall).display
        assert "79 columns by 30 rows" in screen_text(app)
        assert "VOLTAGE" in screen_text(app) and "Σ" not in screen_text(app)
        await pilot.press("1", "space")  # nothing is played blind
        await pilot.pause()
        assert app.screen.view.turn == match_screen(app).view.turn
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert not app.screen.query_one(TooSmall).display
        assert "Σ" in screen_text(app)
    backend.close()


async def test_names_with_markup_and_escape_codes_are_shown_literally():
    name = "[red]Eve[/red]\x1b[2J"
    m = two_humans(6, names=(name, "[b]Bob"))
    app = fixed_app([m.handle(0)])
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        text = screen_text(app)
        assert "[red]Eve[/red]\\x1b[2J" in text
        assert "[b]Bob" in text
        assert "\x1b" not in text


# -- the rules, resigning, watching, notices ----------------------------------


async def test_the_rules_open_from_anywhere_with_question_mark():
    app, backend = local_app(seed=1)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        from tui.screens.rules import rules_text

        assert "Rules" in screen_text(app) and "Voltage" in screen_text(app)
        text = rules_text()
        assert "High Voltage" in text and "60 seconds" in text and "bot plays" in text
        await pilot.press("escape")
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, MatchScreen))
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MatchScreen)
    backend.close()


async def test_resigning_asks_first_then_shows_the_results():
    app, backend = local_app(seed=8)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, MatchScreen))
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await pilot.pause()
        assert not match_screen(app).view.over
        await pilot.press("ctrl+r", "y")
        await until(lambda: isinstance(app.screen, ResultsScreen))
        text = screen_text(app)
        assert "Medium bot wins the match" in text and "resignation" in text
        await pilot.press("v")  # look at the final board
        await pilot.pause()
        assert isinstance(app.screen, MatchScreen)
        await pilot.press("enter")  # and back to the results
        await until(lambda: isinstance(app.screen, ResultsScreen))
        await pilot.press("r")  # rematch
        await until(lambda: isinstance(app.screen, MatchScreen) and not app.screen.view.over)
        assert len(backend.matches) == 2
    backend.close()


async def test_a_spectator_sees_board_scores_and_log_never_a_hand_and_cannot_play():
    m = two_humans(3)
    app = fixed_app([m.handle(None)])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.step.kind == C.WATCH
        assert not screen.query_one(HandView).faces
        assert "Watching" in screen_text(app)
        mover = m.state.to_move
        await m.handle(mover).submit(V.DRAW)
        while m.state.phase == V.FLIP:
            await m.handle(mover).submit(V.Flip(0))
        await pilot.pause()
        assert "drew" in screen_text(app)
        await pilot.press("1", "space", "up", "o")
        await pilot.pause()
        assert not screen.error and m.state.to_move == 1 - mover


async def test_a_notice_shows_prominently():
    m = two_humans(3)
    app = fixed_app([m.handle(0)])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        m.set_notice(Note.of("waiting_reconnect", name="Bob", seconds=45))
        await pilot.pause()
        assert "waiting for Bob to reconnect (0:45)" in screen_text(app)
        m.set_notice()
        await pilot.pause()
        assert "reconnect" not in screen_text(app)


async def test_a_flip_and_a_scored_set_are_visible_moments():
    m = two_humans(3)
    app = fixed_app([m.handle(0)], pacing=replace(FAST, flash_seconds=30))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        before = screen.view
        flipped = V.VoltageView(**{**before.__dict__, "plus": (not before.plus[0],) + before.plus[1:]})
        screen._detect_moments(before, flipped)
        assert screen.notes[0].startswith("↕")
        board = [list(p) for p in before.board]
        board[2] = ((), ())
        pre = V.VoltageView(**{**before.__dict__, "board": tuple(
            ((K.Card(6), K.Card(7)), (K.Card(8),)) if t == 2 else before.board[t] for t in range(4))})
        scored = V.VoltageView(**{**before.__dict__, "scores": (1, 0)})
        screen._detect_moments(pre, scored)
        assert screen.notes[2].startswith("★") and "Ann" in screen.notes[2]
        screen._render_all()
        await pilot.pause()
        text = screen_text(app)
        assert "★ Ann" in text and "↕ now" in text
        assert screen.query_one(Board).states[2].flash


async def test_two_apps_share_nothing():
    a1, b1 = local_app(seed=1)
    a2, b2 = local_app(seed=1)
    assert a1 is not a2 and a1.backend is not a2.backend
    assert a1.screen_stack is not a2.screen_stack
    async with a1.run_test(size=(80, 24)) as p1:
        await p1.pause()
        assert isinstance(a1.screen, StartScreen)


async def test_the_key_bar_is_clickable_resigning_by_mouse_alone():
    from tui.widgets.keybar import KeyBar

    app, backend = local_app(seed=8)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.click("#button-start")
        await until(lambda: isinstance(app.screen, MatchScreen))
        bar = app.screen.query_one(KeyBar)
        # (the player's turn, the bar drawn for it: nothing moves its keys until the player acts, where a
        # bot's move between reading the bar and clicking could)
        await until(lambda: app.screen.view.my_turn and any(action == "resign" for *_k, action in bar._spans))
        await pilot.pause()
        start = next(s for s, _e, _n, action in bar._spans if action == "resign")
        await pilot.click(bar, offset=(start + 1, 0))
        await until(lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.click("#button-yes")
        # (the results' buttons are composed after the screen is pushed: a busy machine showed it without them)
        await until(lambda: isinstance(app.screen, ResultsScreen) and bool(app.screen.query("#button-home")))
        await pilot.click("#button-home")
        await until(lambda: isinstance(app.screen, StartScreen))
    backend.close()


async def test_the_prompt_line_buttons_are_clickable():
    from tui.widgets.prompt import PromptBar

    m = two_humans(2)
    mover = m.state.to_move
    app = fixed_app([m.handle(mover)])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(PromptBar)
        start, _end, name = bar._spans[0]
        assert name == "draw"
        await pilot.click(bar, offset=(start + 1, 0))
        await until(lambda: m.state.to_move != mover or m.state.phase == V.FLIP)
        assert any("drew" in line for line in log_of(m))


# -- the log --------------------------------------------------------------------


async def test_the_log_shows_the_newest_first_and_the_wheel_scrolls_to_older_lines():
    from textual.app import App

    from tui.widgets.log import MatchLog

    lines = [f"Move {i} was made." for i in range(40)]

    class LogApp(App[None]):
        def compose(self):
            yield MatchLog()

    from textual.events import MouseScrollDown

    async def wheel_down(pilot, log: MatchLog) -> None:
        log.post_message(MouseScrollDown(log, 2, 2, 0, 1, 0, False, False, False))
        await pilot.pause()

    def shown(log: MatchLog) -> list[str]:
        """The log's rows as drawn (the text of each painted line)."""
        return [strip.text.strip() for strip in log._strips]

    app = LogApp()
    async with app.run_test(size=(30, 8)) as pilot:
        log = app.query_one(MatchLog)
        log.show(lines)
        await pilot.pause()
        rows = shown(log)
        assert rows[0] == "· Move 39 was made."
        assert rows[-1] == "▼ 33 more lines"  # 40 lines, 7 shown (the last row says so)
        await wheel_down(pilot, log)
        rows = shown(log)
        assert rows[0] == "· Move 36 was made." and rows[-1] == "▼ 30 more lines"
        for _ in range(20):  # to the oldest: no note, the first move last
            await wheel_down(pilot, log)
        rows = shown(log)
        assert rows[-1] == "· Move 0 was made." and not any("more line" in r for r in rows)
        log.show(lines + ["Move 40 was made."])  # a new line: back to the newest
        await pilot.pause()
        assert shown(log)[0] == "· Move 40 was made."


async def test_the_start_screen_is_centred_at_once_and_lists_the_chosen_game_s_opponents():
    from tui.games.highvoltage.setup import HVSetupScreen

    app, backend = local_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: isinstance(app.screen, StartScreen))
        await pilot.pause()
        box = app.screen.query_one("#start").region
        assert abs(box.x - (100 - box.right)) <= 1 and abs(box.y - (30 - 1 - box.bottom)) <= 1, box  # the first time
        assert "Hot-seat" in screen_text(app) and "Easy bot" in screen_text(app)
        await pilot.press("tab", "down")  # High Voltage: its own bots, and no hot-seat
        await until(lambda: "Slow bot" in screen_text(app), what=lambda: screen_text(app))
        text = screen_text(app)
        assert "Easy bot" not in text and "Hot-seat" not in text and "Fast bot" in text, text
        await pilot.press("tab", "down", "enter")  # the fast bot: the first bot of the setup
        await until(lambda: isinstance(app.screen, HVSetupScreen))
        assert app.screen.levels[0] == "fast"
        await pilot.press("escape", "tab", "up")  # back to Voltage: its opponents again
        await until(lambda: "Hot-seat" in screen_text(app), what=lambda: screen_text(app))
        assert "Medium bot" in screen_text(app) and app.screen.opponents[app.screen.opponent][0] == "medium"
    backend.close()
