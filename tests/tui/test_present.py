"""The view-to-widget mappings of both games (``tui/games/<game>/present.py``), tested as
pure functions: no app runs here."""

from __future__ import annotations

from dataclasses import replace

from engine.highvoltage import rules as H
from engine.voltage import rules as V
from tui.games.highvoltage import present as HP
from tui.games.voltage import choices as C
from tui.games.voltage import present as VP


def hv_view(seat: int | None = 0, players: int = 3, seed: int = 5) -> H.HighVoltageView:
    return H.view(H.new_match(seed, players), seat)


class TestHighVoltage:
    def test_the_status_line_shortens_by_meaning_to_fit(self):
        v = hv_view()
        assert HP.status(v, practice=False, width=100).plain == "HIGH VOLTAGE  3 players · 0 played"
        wide = HP.status(v, practice=True, width=100).plain
        assert wide.endswith(" PRACTICE: double border = it fits ")
        assert HP.status(v, practice=True, width=40).plain == "HV  3 players · 0 played   PRACTICE "

    def test_the_prompt_says_what_this_seat_can_do(self):
        v = hv_view()
        assert v.counting_down
        assert HP.prompt(v, ("A", "B", "C"), 3) == "Wait for the countdown…"
        assert HP.prompt(v, ("A", "B", "C"), None) == "Waiting for the match to start…"
        assert HP.prompt(hv_view(None), ("A", "B", "C"), 3) == "Watching.  q leave"
        state, _ = H.apply(H.new_match(5, 3), H.GO, None)
        assert HP.prompt(H.view(state, 1), ("A", "B", "C"), None) == "Play any time: press a card's key, or click it"

    def test_the_countdown_caption_and_the_hand_note(self):
        v = hv_view()
        assert HP.countdown_caption(v, None) == "waiting for the start…"
        assert HP.countdown_caption(v, 2) == "hands face down: get ready!"
        assert HP.hand_note(hv_view(None), holding=False) == "Watching: every hand is hidden from spectators."
        state, _ = H.apply(H.new_match(5, 3), H.GO, None)
        assert HP.hand_note(H.view(state, 0), holding=True) == ""
        assert HP.hand_note(H.view(state, 0), holding=False) == "Your hand is empty: draw (d)."

    def test_the_prompt_line_shows_a_refusal_instead_of_the_prompt(self):
        assert HP.prompt_line("Play", mine=True).plain == " ▶  Play"
        assert HP.prompt_line("Play", error="too slow").plain == " ✗  too slow"

    def test_the_practice_hint_names_the_values_that_fit(self):
        v = hv_view()
        a, b = v.top.targets
        hint = HP.practice_hint(v)
        assert hint.startswith("practice: ") and str(a) in hint and str(b) in hint


class TestVoltage:
    def test_the_board_offers_exactly_the_steps_destinations(self):
        state = V.new_match(3)
        seat = state.to_move
        view = V.view(state, seat)
        step = C.step_for(view, C.NOTHING, ("Ann", "Bob"))
        card = next(o for o in step.options if o.slot is not None)
        chosen = C.step_for(view, replace(C.NOTHING, slot=card.slot), ("Ann", "Bob"))
        states = VP.terminals(view, chosen, ("Ann", "Bob"), me=seat, notes={2: "↕ now +"})
        assert len(states) == 4
        keys = {o.key for o in chosen.options if o.side is not None}
        shown = {s.top.dest_key for s in states} | {s.bottom.dest_key for s in states}
        assert keys == shown - {""}
        assert states[2].note == "↕ now +" and states[2].flash and not states[0].flash
        assert states[0].bottom.label == "your side" and states[0].top.label == f"{('Ann', 'Bob')[1 - seat]}'s side"

    def test_a_spectator_sees_both_sides_named(self):
        view = V.view(V.new_match(3), None)
        assert VP.side_labels(view, ("Ann", "Bob"), 0) == ("Bob's side", "Ann's side")

    def test_the_prompt_bar_buttons_and_whose_prompt_it_is(self):
        state = V.new_match(3)
        view = V.view(state, state.to_move)
        step = C.step_for(view, C.NOTHING, ("Ann", "Bob"))
        assert VP.prompt_is_mine(step)
        assert ("cancel [esc]", "cancel") in VP.prompt_buttons(step, view, selecting=True)
        assert ("cancel [esc]", "cancel") not in VP.prompt_buttons(step, view, selecting=False)
        other = V.view(state, 1 - state.to_move)
        assert not VP.prompt_is_mine(C.step_for(other, C.NOTHING, ("Ann", "Bob")))
