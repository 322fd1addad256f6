"""Ratings: OpenSkill updates for 2 and 4 seats, no rating with a bot, guests left out."""

import pytest

from server import ratings as R
from server.ratings import Entrant


def test_two_players_winner_up_loser_down():
    a, b = R.rate("voltage", [Entrant(0, 1, "a"), Entrant(1, 2, "b")])
    assert a.identity == "a" and b.identity == "b"
    assert a.after[0] > a.before[0] and b.after[0] < b.before[0]
    assert a.delta > 0 > b.delta
    assert a.before == (R.MU, R.SIGMA)
    # both grow more certain
    assert a.after[1] < R.SIGMA and b.after[1] < R.SIGMA


def test_an_upset_moves_more_than_an_expected_result():
    strong, weak = (35.0, 3.0), (15.0, 3.0)
    upset = R.rate("voltage", [Entrant(0, 2, "s", rating=strong), Entrant(1, 1, "w", rating=weak)])
    expected = R.rate("voltage", [Entrant(0, 1, "s", rating=strong), Entrant(1, 2, "w", rating=weak)])
    gain = upset[1].after[0] - weak[0]
    loss = weak[0] - expected[1].after[0]
    assert gain > 0 and loss >= 0 and gain > 10 * loss


def test_a_draw_between_equals_changes_no_mu():
    a, b = R.rate("voltage", [Entrant(0, 1, "a"), Entrant(1, 1, "b")])
    assert a.after[0] == pytest.approx(R.MU) == b.after[0]


def test_a_match_with_a_bot_is_not_rated():
    assert R.rate("voltage", [Entrant(0, 1, "a"), Entrant(1, 2, bot="random")]) == []
    assert R.rate("voltage", [Entrant(0, 2, "a"), Entrant(1, 1, bot="expert")]) == []
    assert R.rate("voltage", [Entrant(0, 1, bot="random"), Entrant(1, 2, bot="hard")]) == []
    # High Voltage: two people and a bot filling the third seat: not rated either.
    assert R.rate("high-voltage", [Entrant(0, 1, "a"), Entrant(1, 2, "b"), Entrant(2, 3, bot="fast")]) == []
    # A bot standing in for a person who left is that person's seat: still rated.
    a, b = R.rate("voltage", [Entrant(0, 1, "a"), Entrant(1, 2, "b", bot="medium")])
    assert a.delta > 0 > b.delta


def test_guests_are_not_rated_and_do_not_count():
    assert R.rate("voltage", [Entrant(0, 1, "a"), Entrant(1, 2)]) == []
    with_guest = R.rate("voltage", [Entrant(0, 1, "a"), Entrant(1, 2), Entrant(2, 3, "b")])
    without = R.rate("voltage", [Entrant(0, 1, "a"), Entrant(2, 3, "b")])
    assert with_guest == without


def test_four_players_with_a_tie():
    four = R.rate(
        "high-voltage",
        [Entrant(0, 3, "c"), Entrant(1, 1, "a"), Entrant(2, 1, "b"), Entrant(3, 4, "d")],
    )
    by = {c.identity: c for c in four}
    assert [c.seat for c in four] == [0, 1, 2, 3]
    assert by["a"].after == pytest.approx(by["b"].after)  # tied, equal before: equal after
    assert by["a"].after[0] > by["c"].after[0] > by["d"].after[0]
    assert by["a"].after[0] > R.MU > by["d"].after[0]


def test_four_players_strict_order_is_monotonic():
    out = R.rate("high-voltage", [Entrant(i, i + 1, f"p{i}") for i in range(4)])
    mus = [c.after[0] for c in out]
    assert mus == sorted(mus, reverse=True) and mus[0] > R.MU > mus[-1]


def test_display_and_ranks():
    assert R.display(R.MU, R.SIGMA) == 1000
    assert R.display(30, 2) == 1000 + 20 * 24
    assert R.ranks_from_winner(1) == [2, 1]
    assert R.ranks_from_winner(None, 3) == [1, 1, 1]


def test_sparkline():
    assert R.sparkline([]) == ""
    assert R.sparkline([1, 2, 3, 4, 5, 6, 7, 8]) == "▁▂▃▄▅▆▇█"
    assert len(R.sparkline([5, 5, 5])) == 3
    assert R.sparkline(range(100), width=10) == R.sparkline(range(90, 100))
