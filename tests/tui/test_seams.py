"""The seams of :mod:`tui.ports`: every backend, host, handle and replay the app is given
satisfies its protocol.

At run time the checkable protocols are asked (``isinstance``); the assignments in
:func:`_typed` say the same to a type checker (mypy over ``tests/``), which checks every
member's signature, not only its presence.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import IllegalActionError
from server.backend import SSHBackend
from server.host.common import Seat
from server.host.highvoltage import HVMatch, HVSeatHandle
from server.host.voltage import Match, SeatHandle
from server.local import LocalBackend
from server.replay import Replay
from tests.support.words import refused
from tui import ports
from tui.screens.replay import ReplayBackend
from tui.screens.stepping import ReplayHandle


def _typed(m: Match, hv: HVMatch, a: SeatHandle, b: HVSeatHandle, ssh: SSHBackend, local: LocalBackend,
           replay: Replay, rh: ReplayHandle, rb: ReplayBackend) -> None:  # pragma: no cover - for mypy
    hosts: list[ports.Host] = [m, hv]
    handles: list[ports.SeatHandle[Any]] = [a, b, rh]
    lobby: ports.LobbyBackend = ssh
    extras: ports.LobbyExtras = ssh
    home: ports.HomeBackend = local
    source: ports.ReplaySource = replay
    backends: list[ports.Backend] = [ssh, local, rb]
    del hosts, handles, lobby, extras, home, source, backends


async def test_both_hosts_and_their_handles_satisfy_the_seams():
    v = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=1, bot_delay=0)
    hv = HVMatch([Seat("Ann", "a"), Seat("Bob", "b")], seed=1)
    for host in (v, hv):
        assert isinstance(host, ports.Host)
        for seat in (0, None):
            assert isinstance(host.handle(seat), ports.SeatHandle)
    local = LocalBackend(seed=1, bot_delay=0)
    handles = local.start_match("voltage", "random", "Ann")
    assert all(isinstance(h, ports.SeatHandle) for h in handles)
    local.close()


def test_refusing_turns_an_old_value_error_into_a_refusal_and_keeps_its_words():
    with refused("^no room KCUZ$", ports.Refused) as e:
        with ports.refusing():
            raise ValueError("no room KCUZ")
    assert isinstance(e.value.__cause__, ValueError) and e.value.code == "refused"
    with refused("^it is not your turn$", ports.Refused, "voltage") as e:  # an engine error keeps its code
        with ports.refusing():
            raise IllegalActionError("not_your_turn")
    assert e.value.code == "not_your_turn"
    with pytest.raises(KeyError):  # a bug stays a bug
        with ports.refusing():
            raise KeyError("x")


def test_the_pacing_is_one_frozen_value_given_to_the_app_factory() -> None:
    import dataclasses

    from tui.app import make_app
    from tui.pacing import DEFAULT, FAST, Pacing, pacing_of

    app = make_app(LocalBackend(seed=1, bot_delay=0), pacing=FAST)
    assert pacing_of(app) is FAST and app.results_delay == 0.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        FAST.results_delay = 1.0  # type: ignore[misc]  # (the point: it cannot be changed)
    app.results_delay = 0.2  # (older code's attribute: it replaces the pacing, FAST stays as it is)
    assert pacing_of(app) == dataclasses.replace(FAST, results_delay=0.2) and FAST.results_delay == 0.0
    assert pacing_of(object()) is DEFAULT == Pacing()
