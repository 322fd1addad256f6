"""The top bar and the key bar never cut a word: long names are shortened
(ending in "…") before the turn number is lost, and a key is shown with its words
whole or not at all."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import Screen

from tui.games.voltage.scores import TopBar
from tui.widgets.keybar import KeyBar


class _Top(App):
    def compose(self) -> ComposeResult:
        yield TopBar(id="topbar")


async def test_long_names_are_shortened_before_the_turn_number_is_cut():
    app = _Top()
    async with app.run_test(size=(80, 3)) as pilot:
        bar = app.query_one(TopBar)
        await pilot.pause()
        bar.show(("Maximilian Longname", "Bartholomew Smith"), (2, 3), 0, 1, 12)
        await pilot.pause()
        shown = bar.render_line(0).text  # what is drawn, at the bar's width
        assert shown.rstrip().endswith("turn 12"), shown
        assert "Maximilian…" in shown and "Bartholomew…" in shown, shown
        assert "2/4" in shown and "3/4" in shown
        await pilot.resize_terminal(140, 3)
        await pilot.pause()
        bar.show(("Maximilian Longname", "Bartholomew Smith"), (2, 3), 0, 1, 12)
        await pilot.pause()
        assert "Maximilian Longname" in bar.render().plain and "Bartholomew Smith" in bar.render().plain


class _Keys(Screen):
    BINDINGS = [
        Binding("a", "noop(1)", "first thing"),
        Binding("b", "noop(2)", "second thing"),
        Binding("c", "noop(3)", "third thing"),
        Binding("d", "noop(4)", "fourth thing"),
    ]

    def compose(self) -> ComposeResult:
        yield KeyBar()

    def action_noop(self, n: int) -> None:
        pass


class _KeysApp(App):
    def on_mount(self) -> None:
        self.push_screen(_Keys())


async def test_the_key_bar_shows_each_key_with_its_words_whole_or_not_at_all():
    app = _KeysApp()
    async with app.run_test(size=(40, 3)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        await pilot.pause()
        shown = bar.render_line(0).text.rstrip()  # what is drawn, at the bar's width
        assert "a first thing" in shown, shown
        words = ["a first thing", "b second thing", "c third thing", "d fourth thing"]
        rest = shown
        for w in words:
            rest = rest.replace(w, "")
        assert rest.strip() == "", f"a cut entry in {shown!r}"


class _Moment(Screen):
    """Keys of the moment that change (a choice made), and one that stays."""

    STEADY_KEYS = ("resign",)
    BINDINGS = [
        Binding("1", "choose", "card"),
        Binding("space", "draw", "draw"),
        Binding("o", "noop", "terminal"),
        Binding("escape", "noop", "cancel"),
        Binding("ctrl+r", "resign", "resign", key_display="^r"),
    ]
    chosen = False

    def compose(self) -> ComposeResult:
        yield KeyBar()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool:
        if action in ("choose", "draw"):
            return not self.chosen
        if action == "noop":
            return self.chosen
        return True

    def action_choose(self) -> None:
        self.chosen = True
        self.refresh_bindings()

    def action_noop(self) -> None:
        pass


class _MomentApp(App):
    BINDINGS = [Binding("ctrl+q", "quit", "quit", key_display="^q")]

    def on_mount(self) -> None:
        self.push_screen(_Moment())


async def test_the_steady_keys_keep_their_place_when_the_keys_of_the_moment_change():
    for width in (80, 40):
        app = _MomentApp()
        async with app.run_test(size=(width, 3)) as pilot:
            await pilot.pause()
            bar = app.screen.query_one(KeyBar)
            before = bar.render_line(0).text
            await pilot.press("1")
            await pilot.pause()
            after = bar.render_line(0).text
            assert "1 card" in before and "o terminal" in after and "o terminal" not in before
            for steady in ("^r resign", "^q quit"):
                assert steady in before and before.index(steady) == after.index(steady), (before, after)
            assert before.rstrip().endswith("^q quit") and len(before.rstrip()) == width - 1, before


async def test_a_narrow_key_bar_keeps_the_keys_of_the_moment_before_the_steady_ones():
    app = _MomentApp()
    async with app.run_test(size=(24, 3)) as pilot:
        await pilot.pause()
        shown = app.screen.query_one(KeyBar).render_line(0).text
        assert "1 card" in shown and "space draw" in shown, shown
        assert "^q quit" not in shown, shown
