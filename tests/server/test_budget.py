"""A connection's budget of messages and bytes (server.session.budget): within it a client reads on;
over it, it is held back for as long as its tokens take to come; over it for ``close_after`` seconds
without a break, it is to be closed; a break long enough to rest forgives it."""

from __future__ import annotations

import pytest

from server.session import budget as budget_module
from server.session.budget import ConnectionBudget, ConnectionLimits


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(budget_module.time, "monotonic", c)
    return c


def test_within_the_budget_a_connection_reads_on(clock: Clock) -> None:
    b = ConnectionBudget(ConnectionLimits(messages_per_second=100, messages_burst=100))
    for _ in range(50):
        assert b.spend(2, 100) == 0.0
        clock.now += 0.02  # 100 messages a second: the rate
    assert b.slowed == 0 and b.over_for == 0.0


def test_over_the_budget_it_is_held_back_then_closed(clock: Clock) -> None:
    b = ConnectionBudget(ConnectionLimits(messages_per_second=100, messages_burst=100, close_after=2.0))
    assert b.spend(100, 100) == 0.0  # the burst
    wait = b.spend(50, 100)
    assert wait == pytest.approx(0.5)  # 50 messages at 100 a second
    held = 0
    while (wait := b.spend(50, 100)) is not None:  # it goes on sending as soon as it may
        assert wait > 0
        held += 1
        clock.now += wait
    assert held >= 3 and b.over_for >= 2.0


def test_bytes_count_as_well_as_messages(clock: Clock) -> None:
    b = ConnectionBudget(ConnectionLimits(bytes_per_second=1000, bytes_burst=1000))
    assert b.spend(1, 1000) == 0.0
    assert b.spend(1, 500) == pytest.approx(0.5)


def test_a_rest_forgives_a_burst_over_the_budget(clock: Clock) -> None:
    b = ConnectionBudget(ConnectionLimits(messages_per_second=100, messages_burst=100, close_after=2.0))
    b.spend(150, 0)
    assert b.over_for == 0.0 and b.over_since is not None
    clock.now += 1.5  # rested: half its burst back and more
    assert b.spend(1, 0) == 0.0
    assert b.over_since is None
    clock.now += 5.0
    assert b.spend(150, 0) is not None  # a new burst starts a new count


def test_new_sessions_two_at_once_from_an_address_then_one_per_interval(clock: Clock) -> None:
    from server.session.budget import KeyedBudget, StartLimits

    b = KeyedBudget.of(StartLimits(per_address_burst=2, per_address_every=5.0, overall_burst=3,
                                   overall_per_second=1.0))
    assert b.take("a") and b.take("a")
    assert not b.take("a") and b.due("a") == pytest.approx(5.0)  # nothing taken by a refusal
    assert b.take("b")  # another address has its own (and the overall budget its 3rd)
    assert not b.take("c") and b.due("c") == pytest.approx(1.0)  # everyone's is spent
    clock.now += 5.0
    assert b.take("a") and not b.take("a")


def test_whole_frames_big_ones_wait_their_turn_usual_ones_never(clock: Clock) -> None:
    from server.session.budget import RedrawBudget, RedrawLimits

    b = RedrawBudget(RedrawLimits(cells_per_second=100_000, cells_burst=100_000, free_cells=80 * 24))
    assert b.ask(400 * 200) == 0.0 and b.ask(400 * 200) == 0.0  # the burst, then into debt
    wait = b.ask(400 * 200)
    assert wait == pytest.approx(0.6)  # out of the 60,000 cells' debt at 100,000 a second
    assert b.ask(80 * 24) == 0.0  # a usual terminal's frame: drawn at once (and counted)
    clock.now += 0.7
    assert b.ask(400 * 200) == 0.0 and b.held == 1


def test_a_keyed_budget_forgets_addresses_beyond_its_bound(clock: Clock) -> None:
    from server.session.budget import KeyedBudget

    b = KeyedBudget(1, 0.001, 1e9, 1e9)
    b._bucket.MAX_KEYS = 100
    for i in range(1000):
        assert b.take(f"10.0.{i // 256}.{i % 256}")
    assert len(b._bucket.buckets) <= 100
