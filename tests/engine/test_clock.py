"""engine.clock (time controls, a clock folded from the time used) and the rules' ending
actions the clock, an abort and an agreed draw log: ``timeout``, ``abort``, ``agree``."""

from __future__ import annotations

import pytest

from engine import clock as C
from engine.errors import IllegalActionError
from engine.game import Termination
from engine.registry import RULES
from engine.voltage import rules as V
from tests.support.words import lines, refused


@pytest.mark.parametrize(
    "text, initial, increment, shown",
    [("5+5", 300, 5, "5+5"), ("10+0", 600, 0, "10+0"), ("2s+0", 2, 0, "2s+0"), ("90s+2", 90, 2, "90s+2"),
     (" 3 + 2 ", 180, 2, "3+2"), ("0.5+1", 30, 1, "30s+1")],
)
def test_a_control_reads_and_writes_as_players_say_it(text, initial, increment, shown):
    control = C.parse(text)
    assert control == C.TimeControl(initial, increment)
    assert C.format_control(control) == shown and C.parse(shown) == control


@pytest.mark.parametrize("text", ["none", "", "-", "off", None])
def test_no_clock_is_written_none(text):
    assert C.parse(text) is None and C.format_control(None) == "none"


@pytest.mark.parametrize("text", ["5", "5+", "+5", "five+5", "5+5+5", "0+5"])
def test_a_control_that_cannot_be_read_says_what_is_expected(text):
    with pytest.raises(ValueError):
        C.parse(text)


def test_the_default_is_five_minutes_and_five_seconds_a_turn():
    assert C.DEFAULT == C.TimeControl(300, 5) and C.DEFAULT.text == "5+5"


@pytest.mark.parametrize("ms, shown", [(300_000, "5:00"), (272_000, "4:32"), (271_001, "4:32"), (999, "0:01"),
                                       (0, "0:00"), (-4000, "0:00"), (59_999, "1:00")])
def test_a_bank_shows_whole_seconds_rounded_up_and_never_below_zero(ms, shown):
    assert C.format_ms(ms) == shown


def test_a_clock_is_the_bank_less_the_time_used_plus_an_increment_per_turn_ended():
    clock = C.Clock(C.TimeControl(60, 5))
    clock.charge(0, 3000, False)  # a first card
    clock.charge(0, 2000, True)  # the second, ending the turn
    clock.charge(1, 10_000, True)
    assert clock.remaining_ms(0) == 60_000 - 5000 + 5000
    assert clock.remaining_ms(1) == 60_000 - 10_000 + 5000
    assert clock.remaining_ms(1, running_ms=55_000) == 0 and clock.flagged(1, running_ms=55_000)
    assert not clock.flagged(0)
    entries = [(0, 3000, False), (0, 2000, True), (1, 10_000, True), (0, None, False)]
    folded = C.Clock.fold(C.TimeControl(60, 5), entries)
    assert folded.remaining_ms(0) == clock.remaining_ms(0) and folded.remaining_ms(1) == clock.remaining_ms(1)


def test_a_clock_view_counts_the_running_bank_down_from_its_moment():
    clock = C.Clock(C.TimeControl(60, 0))
    view = clock.view(running=1, running_ms=1000, as_of=100.0)
    assert view.remaining_ms == (60_000, 59_000)
    assert view.remaining(1, now=102.5) == 56_500 and view.remaining(0, now=102.5) == 60_000
    assert clock.view(None, 0, 100.0).remaining(1, 200.0) == 60_000  # stopped


def first_moves(state: V.State) -> V.State:
    """The first player's whole first turn."""
    first = state.to_move
    while state.to_move == first and not state.over:
        state, _ = V.apply(state, V.legal_actions(state)[0])
    return state


@pytest.mark.parametrize("action", [V.Timeout(1), V.Abort(0), V.AgreeDraw(1)])
def test_the_ending_actions_read_back_from_their_text(action):
    assert V.parse_action(action.text()) == action


def test_a_timeout_ends_the_match_on_time_for_the_other_seat():
    s = V.new_match(1)
    mover = s.to_move
    with pytest.raises(IllegalActionError):
        V.apply(s, V.Timeout(mover), mover)  # a seat never sends it: the host's clock does
    with pytest.raises(IllegalActionError):
        V.apply(s, V.Timeout(1 - mover), None)  # only the seat to move runs out
    after, events = V.apply(s, V.Timeout(mover), None)
    assert after.over and after.winner == 1 - mover and after.reason == "time"
    assert [e.kind for e in events] == ["timeout", "end"]
    assert RULES["voltage"].outcome(after).termination is Termination.TIME
    _, logged, _ = V.apply_logged(s, f"timeout {mover}")
    assert logged == after


def test_abort_is_allowed_only_before_both_players_moved():
    s = V.new_match(2)
    first, second = s.to_move, 1 - s.to_move
    assert V.may_abort(s, first) and V.may_abort(s, second)  # nobody moved: either
    mid, _ = V.apply(s, V.legal_actions(s)[0])
    assert V.moved(mid, first) and not V.may_abort(mid, second)
    s1 = first_moves(s)
    assert V.may_abort(s1, first) and not V.may_abort(s1, second)  # the first may, on the other's turn
    s2 = first_moves(s1)
    assert V.moved(s2, second) and not V.may_abort(s2, first) and not V.may_abort(s2, second)
    with refused("before both players have moved", IllegalActionError, "voltage"):
        V.apply(s2, V.Abort(first), first)
    with refused("only act for themselves", IllegalActionError, "voltage"):
        V.apply(s, V.Abort(first), second)
    after, events = V.apply(s1, V.Abort(first), first)
    assert after.over and after.winner is None and after.reason == "aborted"
    assert RULES["voltage"].outcome(after).termination is Termination.ABORTED
    assert lines("voltage", events[-1:], ("alice", "bob")) == ["The match is aborted: no result, no rating change."]


def test_an_agreed_draw_ends_the_match_drawn_by_agreement():
    s = first_moves(V.new_match(3))
    after, events = V.apply(s, V.AgreeDraw(0), 0)
    assert after.over and after.winner is None and after.reason == "agreement"
    assert RULES["voltage"].outcome(after).termination is Termination.AGREEMENT
    assert lines("voltage", events[-1:], ("alice", "bob")) == ["The match is drawn by agreement 0-0."]
    _, logged, _ = V.apply_logged(s, "agree 0")
    assert logged == after
    assert V.replay(3, [V.AgreeDraw(1)]).reason == "agreement"
