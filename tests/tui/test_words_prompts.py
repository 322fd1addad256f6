"""Honest prompts: a prompt offers only what can really be done, gives the
reason when something is not possible, and has a shorter form of the same meaning
for a narrow prompt line, which the prompt bar shows whole."""

from __future__ import annotations

from textual.app import App, ComposeResult

from engine.voltage import rules as V
from tests.tui.test_words_screens import voltage_match
from tui.games.voltage import choices as C
from tui.widgets.prompt import PromptBar

NAMES = ("Ann", "Bob")


def step_of(m) -> C.Step:
    return C.step_for(m.view(0), C.NOTHING, NAMES)


def test_an_empty_hand_is_told_to_draw_two_not_to_play_a_card():
    step = step_of(voltage_match("empty"))
    assert "play a card" not in step.prompt.lower()
    assert "hand is empty" in step.prompt and "draw two" in step.prompt
    assert [o.label for o in step.options] == ["draw two"]


def test_after_the_only_card_the_second_card_prompt_says_the_hand_is_empty():
    m = voltage_match("second")
    m.state.hands[0] = []
    step = step_of(m)
    assert "hand is empty" in step.prompt and "second card fits" not in step.prompt
    assert [o.label for o in step.buttons] == ["done: draw one"]


def test_with_nothing_left_to_draw_the_prompt_does_not_blame_a_full_hand():
    m = voltage_match("start")
    m.state.discard = []
    m.state.draw = []
    step = step_of(m)
    assert not step.buttons
    assert "full" not in step.prompt and "nothing is left to draw" in step.prompt


def test_done_says_no_draw_when_both_piles_are_empty():
    m = voltage_match("second")
    m.state.discard, m.state.draw = [], []
    step = step_of(m)
    assert [o.label for o in step.buttons] == ["done"]
    assert "draw one" not in step.prompt


def test_a_full_hand_still_says_why_there_is_no_drawing_two():
    m = voltage_match("start")
    m.state.hands[0] = m.state.hands[0] + [m.state.draw.pop(), m.state.draw.pop()]
    assert len(m.state.hands[0]) == V.HAND_LIMIT
    step = step_of(m)
    assert not step.buttons and "hand is full" in step.prompt


class _Bar(App):
    def compose(self) -> ComposeResult:
        yield PromptBar()


async def test_the_prompt_bar_shows_a_shorter_form_whole_rather_than_cut():
    step = step_of(voltage_match("second"))
    assert len(step.prompt.forms) > 1
    app = _Bar()
    async with app.run_test(size=(80, 3)) as pilot:
        bar = app.query_one(PromptBar)
        bar.show(step.prompt, mine=True, buttons=(("done: draw one [space]", "draw"),))
        await pilot.pause()
        shown = bar.render().plain
        assert "…" not in shown
        assert any(f in shown for f in step.prompt.forms), shown
        assert "done: draw one [space]" in shown
        # wide enough: the full sentence
        await pilot.resize_terminal(140, 3)
        await pilot.pause()
        assert str(step.prompt) in bar.render().plain


def test_every_explanation_of_a_click_has_a_form_that_fits_beside_the_buttons():
    """At 80 columns the prompt line leaves about 50 cells beside 'done: draw one [space]'."""
    from engine.voltage.cards import BYPASS, FUSE, Card

    m = voltage_match("second")
    view = m.view(0)
    said = []
    for card in (Card(BYPASS), Card(FUSE), Card(0), Card(11)):
        sel = C.Selection(0, card)
        for t in range(4):
            for side in (0, 1, None):
                said.append(C.explain_click(view, sel, t, side))
    for text in said:
        shortest = min(getattr(text, "forms", (text,)), key=len)
        assert len(shortest) <= 50, text
