"""High Voltage on screen: a local match by keys to the end, mouse play, the countdown,
too-slow refusals, practice marks, results, the setup dialog, and the 80x24 layout."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import Any

from textual.app import App

from engine.highvoltage import rules as H
from server.host.common import Seat
from server.host.highvoltage import HVMatch, bot_seat, local_match
from tests.support.wait import until
from tests.support.words import log_of
from tests.tui.helpers import local_app
from tui.games.highvoltage.card import HVTopCard, big
from tui.games.highvoltage.match import HVMatchScreen
from tui.games.highvoltage.results import HVResultsScreen
from tui.games.highvoltage.setup import HVSetupScreen
from tui.games.highvoltage.table import CARD_KEYS, CARD_WIDTH, HVHand, reconcile
from tui.pacing import FAST, Pacing
from tui.screens.start import StartScreen

F = H.Face.parse
SIZE = (80, 24)
PATIENT = replace(FAST, hv_error_seconds=30.0)  # an error stays up for the whole test


class Host(App):
    """A bare app showing one High Voltage screen (no start screen)."""

    def __init__(self, handles: list[Any], backend: Any = None, *, practice: bool = False,
                 pacing: Pacing = PATIENT) -> None:
        super().__init__()
        self.handles, self.backend_, self.practice = handles, backend, practice
        self.pacing = pacing

    def on_mount(self) -> None:
        self.push_screen(HVMatchScreen(self.handles, self.backend_, practice=self.practice))


def text_of(app: App) -> str:
    """The screen as plain text, row by row."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def wait_text(pilot, app: App, text: str) -> str:
    await until(lambda: text in text_of(app), what=lambda: text_of(app))
    return text_of(app)


def people(seed: int = 5, n: int = 2, **kw) -> HVMatch:
    names = ["Alice", "Bob", "Cleo", "Dan"][:n]
    opts = dict(countdown_seconds=0.03, bot_speed=100.0) | kw
    return HVMatch([Seat(x, x.lower()) for x in names], seed=seed, **opts)


def fitting_slot(screen: HVMatchScreen) -> int | None:
    """A slot whose card fits the top card as drawn (what a person reads off the screen)."""
    top = screen.shown_top()[0]
    for i, face in enumerate(screen.slots):
        if face is not None and H.fits(face, top):
            return i
    return None


async def started(pilot, m: HVMatch, screen_of) -> HVMatchScreen:
    m.start()
    await until(lambda: isinstance(screen_of(), HVMatchScreen) and screen_of().view.can_act)
    return screen_of()


# ---------------------------------------------------------------------------


def test_slots_keep_their_keys():
    a, b, c, d = F("1/1"), F("2/2"), F("3/3"), F("4/1")
    slots = reconcile([], (a, b, c))
    assert slots == [a, b, c]
    slots = reconcile(slots, (a, c))  # b played: a gap, c keeps key 3
    assert slots == [a, None, c]
    slots = reconcile(slots, (a, c, d))  # a draw fills the gap
    assert slots == [a, d, c]
    assert reconcile([a, None, c], (a,)) == [a]  # gaps at the end go
    assert reconcile([a, a], (a, a, a)) == [a, a, a]
    assert CARD_KEYS[:11] == tuple("12345678900"[:10]) + ("a",)
    assert not {"d", "s", "q", "r"} & set(CARD_KEYS)


def test_big_digits():
    rows = big("10")
    assert len(rows) == 5 and len(set(map(len, rows))) == 1
    assert len(big("±3")[0]) == 6 + 2 + 6  # two cells after the ±


async def test_a_local_match_by_keys_to_the_end():
    app, backend = local_app(seed=21)
    backend.hv_options = dict(countdown_seconds=0.03, bot_speed=300.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        await pilot.press("tab", "down")  # the game column: High Voltage
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, HVSetupScreen))
        await pilot.press("enter")  # you against one medium bot
        await until(lambda: isinstance(app.screen, HVMatchScreen))
        screen = app.screen
        assert screen.names == ("You", "Medium bot")
        t0 = time.monotonic()
        actions = refused = 0
        while not isinstance(app.screen, HVResultsScreen):
            await until(
                lambda: isinstance(app.screen, HVResultsScreen) or (screen.view.can_act and screen.is_current),
                what=lambda: text_of(app),
            )
            if isinstance(app.screen, HVResultsScreen) or screen.view.over:
                break
            view = screen.view
            slot = fitting_slot(screen)
            before = len(screen.handle.match.actions)
            if slot is not None:
                await pilot.press(CARD_KEYS[slot] if slot < len(CARD_KEYS) else "enter")
            elif view.pile_counts[view.seat]:
                await pilot.press("d")
            elif not view.stuck[view.seat]:
                await pilot.press("s")
            else:
                await asyncio.sleep(0.01)
                continue
            done = screen.handle.match.actions[before:]
            if done and done[0].__class__ is not H.Go:
                actions += 1
            if screen.error:
                refused += 1
                assert "too slow" in screen.error or "countdown" in screen.error, screen.error
            assert actions < 500
        await until(lambda: isinstance(app.screen, HVResultsScreen))
        m = screen.handle.match
        assert m.over and m.winner is not None
        took = time.monotonic() - t0
        print(f"{actions} actions by keys, {refused} refused, in {took:.1f}s; winner {m.names[m.winner]}")
        await wait_text(pilot, app, "wins High Voltage")
        await pilot.press("b")
        await until(lambda: isinstance(app.screen, StartScreen))
    backend.close()


async def test_playing_a_card_by_mouse_and_drawing_by_the_button():
    m = people(seed=3)
    app = Host([m.handle(0)])
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot, m, lambda: app.screen)
        slot = fitting_slot(screen)
        assert slot is not None, "seed 3 deals seat 0 a card that fits"
        face = screen.slots[slot]
        hand = screen.query_one(HVHand)
        x, y = (slot % hand.per_row) * CARD_WIDTH + 3, (slot // hand.per_row) * 3 + 1
        assert hand.slot_at(x, y) == slot and hand.slot_at(x - 3 + CARD_WIDTH - 1, y) is None
        await pilot.click(hand, offset=(x, y))
        await pilot.pause()
        assert m.view(None).top == face and m.state.plays == 1
        assert screen.slots[slot] is None or screen.slots[slot] != face or screen.view.hand.count(face) > 0
        pile = m.view(0).pile_counts[0]
        await pilot.click("#button-draw")
        await pilot.pause()
        assert m.view(0).pile_counts[0] == pile - 1
    m.close()


async def test_input_during_the_countdown_is_ignored_with_a_message():
    m = people(seed=3, countdown_seconds=60.0)
    app = Host([m.handle(0)])
    async with app.run_test(size=SIZE) as pilot:
        m.start()
        await until(lambda: isinstance(app.screen, HVMatchScreen) and app.screen.countdown == 3)
        screen = app.screen
        assert screen.view.hand is None and screen.has_class("-counting")
        for key in ("1", "d", "s", "enter"):
            await pilot.press(key)
            assert screen.error.startswith("Wait for the countdown"), (key, screen.error)
        assert m.actions == []
        text = text_of(app)
        assert "hands face down: get ready!" in text and "✗" in text
    m.close()


async def test_a_late_play_is_refused_as_too_slow_and_keeps_the_card():
    seed = next(s for s in range(500) if all(H.has_fitting_card(H.new_match(s, 2), i) for i in (0, 1)))
    m = people(seed=seed)
    app = Host([m.handle(0)])
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot, m, lambda: app.screen)
        slot = fitting_slot(screen)
        mine = screen.slots[slot]
        bob = m.view(1)
        theirs = next(c for c in bob.hand if H.fits(c, bob.top))
        # Bob covers the top; the screen has not heard yet when the key arrives
        await m.handle(1).submit(bob.aim(theirs))
        await screen.play_slot(slot)
        assert screen.error.startswith("too slow: the"), screen.error
        await pilot.pause()
        assert mine in m.view(0).hand and mine in screen.slots
        assert screen.view.top == theirs
        text = text_of(app)
        assert "too slow" in text and "Alice: too slow" in "\n".join(log_of(m.handle(0)))
    m.close()


async def test_practice_marks_the_cards_that_fit_and_plain_play_does_not():
    for practice in (True, False):
        m = people(seed=3)
        app = Host([m.handle(0)], practice=practice)
        async with app.run_test(size=SIZE) as pilot:
            screen = await started(pilot, m, lambda app=app: app.screen)
            fits = {i for i, f in enumerate(screen.slots) if f is not None and H.fits(f, screen.view.top)}
            marked = screen.query_one(HVHand).fits
            assert marked == (fits if practice else set())
            assert ("fits" in text_of(app)) == practice
        m.close()


async def test_practice_is_never_online():
    class Online:
        online = True

    m = people()
    assert not HVMatchScreen([m.handle(0)], Online(), practice=True).practice


async def test_the_screen_at_80x24_shows_everything_and_names_as_plain_text():
    seats = [Seat("[red]Eve[/red]", "e"), bot_seat("fast"), bot_seat("medium"), bot_seat("slow")]
    m = HVMatch(seats, seed=4, countdown_seconds=0.03, bot_speed=2.0)
    app = Host([m.handle(0)])
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot, m, lambda: app.screen)
        await pilot.press("d")
        await pilot.pause()
        text = text_of(app)
        lines = text.splitlines()
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        top = screen.view.top
        assert f"top card #{screen.view.top_no}" in text
        assert f"{top.value}  ±{top.mod} {H.MODIFIER_COLOURS[top.mod]}" in text  # sign and colour word
        assert "█" in text  # the value in block digits
        assert "[red]Eve[/red]" in text  # shown literally, never as markup
        for name in ("Bot (fast)", "Bot (medium)", "Bot (slow)"):
            assert name in text
        assert "hand pile" in text and "feed, newest first" in text
        for face in screen.slots:
            if face is not None:
                assert f"{face.value}" in text
        # every part is inside the 80x24 screen
        for sel in ("#hv-top", "#hv-players", "#hv-feed", "#hv-prompt-row", "#hv-hand"):
            region = screen.query_one(sel).region
            assert region.width > 0 and region.height > 0 and region.right <= 80 and region.bottom <= 24, sel
        assert screen.query_one(HVTopCard).region.height >= 9
    m.close()


async def test_results_rank_everyone_and_rematch_locally():
    app, backend = local_app(seed=5)
    backend.hv_options = dict(countdown_seconds=0.02, bot_speed=50.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        handles = backend.start_match("high-voltage", "fast,fast", "You")
        app.push_screen(HVMatchScreen(handles, backend))
        await until(lambda: isinstance(app.screen, HVMatchScreen) and app.screen.view.can_act)
        assert app.screen.names == ("You", "Fast bot", "Fast bot 2")
        await handles[0].resign()  # you leave, then a bot: one is left, and wins
        await handles[0].match.submit(2, H.Resign(2))
        await until(lambda: isinstance(app.screen, HVResultsScreen))
        text = await wait_text(pilot, app, "3rd")
        assert "◀ you" in text and "(left)" in text and "1st  Fast bot " in text
        old = handles[0].match
        await pilot.press("r")
        await until(lambda: isinstance(app.screen, HVMatchScreen) and app.screen.handle.match is not old)
        assert app.screen.names == ("You", "Fast bot", "Fast bot 2") and old._closed
    backend.close()


async def test_the_setup_dialog():
    app, backend = local_app(seed=5)
    backend.hv_options = dict(countdown_seconds=60.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("tab", "down", "enter")
        await until(lambda: isinstance(app.screen, HVSetupScreen))
        setup = app.screen
        await pilot.press("4")  # you and three bots
        await pilot.press("down", "right")  # bot 1: medium -> fast
        await pilot.press("down", "left")  # bot 2: slow -> fast (wraps)
        await pilot.press("p")
        result = setup.result()
        assert result.bots == ["fast", "fast", "fast"] and result.practice
        assert result.opponent == "fast,fast,fast"
        await pilot.press("3")
        assert setup.result().bots == ["fast", "fast"]
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, HVMatchScreen))
        assert app.screen.practice and app.screen.view.players == 3
        await wait_text(pilot, app, "PRACTICE")
    backend.close()


def test_local_match_seats():
    m = local_match("Ann", "slow,medium,medium", seed=1)
    assert m.names == ("Ann", "Slow bot", "Medium bot", "Medium bot 2")
    assert [s.bot for s in m.seats] == [None, "slow", "medium", "medium"]


async def test_arrows_and_enter_and_letter_keys_past_ten_cards():
    m = people(seed=3)
    app = Host([m.handle(0)])
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot, m, lambda: app.screen)
        for _ in range(8):
            await screen.action_draw()
        await pilot.pause()
        assert len(screen.slots) == 12
        hand = screen.query_one(HVHand)
        top_line = hand.render().plain.splitlines()[3]  # the second row of cards
        assert "─a─" in top_line and "─b─" in top_line  # keys past 1-9 and 0 are letters
        # walk the cursor to a card that fits and play it with Enter
        slot = fitting_slot(screen)
        assert slot is not None
        await pilot.press("right")
        assert screen.cursor == 0
        for _ in range(slot):
            await pilot.press("right")
        face = screen.slots[slot]
        await pilot.press("enter")
        assert m.view(None).top == face and m.state.plays == 1
        # a letter key plays the card in its slot (or says why not)
        await pilot.press("b")
        assert m.state.plays == 2 or screen.error


async def test_a_key_pressed_just_after_the_top_changed_is_aimed_at_the_card_before():
    seed = next(s for s in range(500) if all(H.has_fitting_card(H.new_match(s, 2), i) for i in (0, 1)))
    m = people(seed=seed)
    # A slow test machine must not turn "too slow" into "does not fit":
    app = Host([m.handle(0)], pacing=replace(FAST, hv_error_seconds=30.0, hv_aim_grace=60.0))
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot, m, lambda: app.screen)
        bob = m.view(1)
        theirs = next(c for c in bob.hand if H.fits(c, bob.top))
        mine = [i for i, f in enumerate(screen.slots) if f and H.fits(f, bob.top) and not H.fits(f, theirs)]
        assert mine, "this deal gives Alice a card that fits only the old top"
        await m.handle(1).submit(bob.aim(theirs))
        await pilot.pause()  # the screen now shows Bob's card on top
        assert screen.view.top == theirs
        await screen.play_slot(mine[0])
        assert screen.error.startswith("too slow"), screen.error


# -- every input path aims at the top card as drawn -----------------------------


def race_deal(draws: int = 0, first_slot: int = 0) -> tuple[int, H.Face, int]:
    """(seed, Bob's card, Alice's slot) for a race: Bob holds a card that fits the first top,
    and Alice (after ``draws`` draws) holds, in a slot from ``first_slot`` on, a card that
    fits both that top and Bob's card, so only its aim says which one she played on."""
    for seed in range(3000):
        state, _ = H.apply(H.new_match(seed, 2), H.GO, None)
        for _ in range(draws):
            state, _ = H.apply(state, H.Draw(0), 0)
        alice, bob = H.view(state, 0), H.view(state, 1)
        dealt = H.view(H.apply(H.new_match(seed, 2), H.GO, None)[0], 0).hand
        assert dealt is not None and alice.hand is not None and bob.hand is not None  # seats' views
        slots = reconcile([], dealt)
        slots = reconcile(slots, alice.hand)
        for theirs in bob.hand:
            if not H.fits(theirs, bob.top):
                continue
            for i, face in enumerate(slots):
                if i >= first_slot and face is not None and H.fits(face, alice.top) and H.fits(face, theirs):
                    return seed, theirs, i
    raise AssertionError("no such deal")


async def covered_before_drawn(pilot, app, m: HVMatch, screen: HVMatchScreen, theirs: H.Face) -> H.Face:
    """Bob covers the top card; Alice's screen reads the update (its view has Bob's card)
    but has not painted it yet (called inside ``app.batch_update()``).  Returns the top
    card Alice sees."""
    seen = screen.view.top
    await until(lambda: f"top card #{screen.view.top_no} " in text_of(app))
    await m.handle(1).submit(m.view(1).aim(theirs))
    await until(lambda: screen.view.top == theirs)
    return seen


async def race(path: str, *, practice: bool = False, draws: int = 0, first_slot: int = 0) -> None:
    seed, theirs, slot = race_deal(draws, first_slot)
    m = people(seed=seed)
    # This card fits both tops: only the aim decides.
    app = Host([m.handle(0)], practice=practice, pacing=replace(FAST, hv_error_seconds=30.0, hv_aim_grace=0.0))
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot, m, lambda: app.screen)
        for _ in range(draws):
            await screen.action_draw()
        await pilot.pause()
        mine = screen.slots[slot]
        assert mine is not None and m.state.plays == 0
        with app.batch_update():  # nothing is painted in here
            await covered_before_drawn(pilot, app, m, screen, theirs)
            if path == "key":
                await pilot.press(CARD_KEYS[slot])
            elif path == "cursor":
                for _ in range(slot + 1):
                    await pilot.press("right")
                assert screen.cursor == slot
                await pilot.press("enter")
            elif path == "click":
                hand = screen.query_one(HVHand)
                x, y = (slot % hand.per_row) * CARD_WIDTH + 3, (slot // hand.per_row) * 3 + 1
                assert hand.slot_at(x, y) == slot
                await pilot.click(hand, offset=(x, y))
            else:  # pragma: no cover
                raise AssertionError(path)
            assert screen.error.startswith("too slow"), (path, screen.error)
            assert m.state.plays == 1 and m.view(None).top == theirs  # only Bob's play
            assert mine in (m.view(0).hand or ()) and screen.slots[slot] == mine  # the card is kept
        # The next frame paints Bob's card: from then on a key is aimed at it.
        screen.refresh()
        await until(lambda: f"top card #{m.view(None).top_no} " in text_of(app))
        assert screen.aim(mine).aimed_at == theirs
    m.close()


async def test_a_number_key_is_aimed_at_the_top_card_drawn_not_a_newer_one():
    await race("key")


async def test_a_letter_key_is_aimed_at_the_top_card_drawn():
    await race("key", draws=8, first_slot=10)


async def test_arrows_and_enter_are_aimed_at_the_top_card_drawn():
    await race("cursor")


async def test_a_click_is_aimed_at_the_top_card_drawn():
    await race("click")


async def test_practice_is_aimed_at_the_top_card_drawn():
    await race("key", practice=True)


async def test_the_key_bar_keeps_the_steady_keys_at_the_right_as_in_voltage():
    """The project's key bar, not Textual's footer: resign stands at the right end while the keys
    of the moment stay at the left."""
    from tui.widgets.keybar import KeyBar

    m = people()
    app = Host([m.handle(0)])
    async with app.run_test(size=SIZE) as pilot:
        screen = await started(pilot, m, lambda: app.screen)
        bar = screen.query_one(KeyBar)
        await until(lambda: "resign" in bar.text.plain, what=lambda: bar.text.plain)
        keys = bar.text.plain.rstrip()
        assert keys.startswith(" 1-9 0 a… play"), keys
        assert keys.endswith("^r resign") and len(keys) == SIZE[0] - 1, keys  # flush right, a margin
        assert " " * 10 in keys[keys.index("stuck"):], keys
        await pilot.resize_terminal(60, 20)  # too small: the keys that play do nothing, and are not shown
        await until(lambda: "play" not in bar.text.plain, what=lambda: bar.text.plain)
        assert bar.text.plain.strip() == "^r resign"
