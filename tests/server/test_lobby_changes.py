"""The lobby's numbered snapshots and the deltas between them: applied in order they give
the snapshot's state (a random lobby's history, a real lobby's arrivals and departures);
the host's messages over the wire are deltas between whole snapshots; an edge that
missed a delta ignores what follows it and converges on the next whole snapshot."""

from __future__ import annotations

import random
from typing import Any

from server.bus.local import LocalBus
from server.cluster.host import SNAPSHOT_EVERY, HostService
from server.edge.backend import EdgeClient
from server.lobby.changes import EMPTY, ChangeLog, apply, merge
from server.lobby.core import Lobby
from server.lobby.models import LobbyDelta, MatchInfo, PlayerInfo, Snapshot
from server.wire import messages as M
from server.wire.table import WIRE

STATUSES = ("lobby", "waiting", "playing", "watching", "played")


def random_lobbies(seed: int, steps: int) -> list[Snapshot]:
    """A lobby's history: players come, go and change what they do; matches start, end and score."""
    rng = random.Random(seed)
    players: dict[str, PlayerInfo] = {}
    matches: dict[str, MatchInfo] = {}
    out = []
    for step in range(steps):
        for _ in range(rng.randint(0, 12)):
            roll = rng.random()
            if roll < 0.45 or not players:
                name = f"{rng.choice('abcXYZ')}{rng.randint(0, 400)}"
                if name.lower() not in {n.lower() for n in players}:
                    players[name] = PlayerInfo(name, rng.choice(STATUSES), rng.choice(("", "ABCD")))
            elif roll < 0.65:
                players.pop(rng.choice(list(players)))
            elif roll < 0.8:
                name = rng.choice(list(players))
                players[name] = PlayerInfo(name, rng.choice(STATUSES))
            elif roll < 0.9 or not matches:
                code = f"M{step}{rng.randint(0, 99)}"
                matches[code] = MatchInfo(code, "voltage", ("a", "b"), (0, 0), 0)
            else:
                code = rng.choice(list(matches))
                if rng.random() < 0.5:
                    matches.pop(code)
                else:
                    m = matches[code]
                    matches[code] = MatchInfo(code, m.game, m.names, (m.scores[0] + 1, m.scores[1]), m.spectators)
        listed = list(matches.values())
        if rng.random() < 0.05:
            rng.shuffle(listed)  # (a rare move of the order: said in the delta)
            matches = {m.code: m for m in listed}
        out.append(Snapshot(tuple(sorted(players.values(), key=lambda p: p.name.lower())), tuple(listed),
                            {"voltage": rng.randint(0, 2)}))
    return out


def test_deltas_applied_in_order_give_each_published_snapshot() -> None:
    for seed in range(20):
        log = ChangeLog(keep=1000)
        shown = EMPTY
        for snapshot in random_lobbies(seed, 60):
            before = log.version
            published = log.publish(snapshot)
            deltas = log.since(before)
            assert deltas is not None
            for delta in deltas:
                shown = apply(shown, delta)
            assert shown == published == snapshot
            assert shown.version == published.version


def test_deltas_merged_do_what_they_do_one_after_the_other() -> None:
    for seed in range(20):
        log = ChangeLog(keep=1000)
        for snapshot in random_lobbies(seed, 40):
            log.publish(snapshot)
        deltas = log.since(0)
        assert deltas is not None
        for start in range(0, len(deltas) - 5, 5):
            run = deltas[start:start + 5]
            merged = merge(run)
            if merged is None:  # (the matches' order moved: the snapshot is read instead)
                assert any(d.order for d in run)
                continue
            one_by_one = log_state(deltas[:start])
            for d in run:
                one_by_one = apply(one_by_one, d)
            assert apply(log_state(deltas[:start]), merged) == one_by_one


def log_state(deltas: list[LobbyDelta]) -> Snapshot:
    state = EMPTY
    for d in deltas:
        state = apply(state, d)
    return state


def test_a_reader_too_far_behind_is_told_to_read_the_snapshot() -> None:
    log = ChangeLog(keep=4)
    for snapshot in random_lobbies(1, 12):
        log.publish(snapshot)
    assert log.since(log.version) == []
    assert log.since(log.version - 4) is not None
    assert log.since(0) is None  # (forgotten)
    assert log.since(log.version + 1) is None  # (a version from another log)


async def test_a_real_lobbys_arrivals_and_departures_are_deltas_that_give_its_snapshot() -> None:
    lobby = Lobby(seed=1)
    first = lobby.published()
    sessions = []
    for i in range(30):
        p = lobby.connect(None, f"u{i}")
        lobby.claim_name(p, f"Player{i}")
        sessions.append(p)
        if i % 7 == 0:
            lobby.published()  # (a screen reading in between: a version of its own)
    for p in sessions[::3]:
        lobby.leave(p)
    now = lobby.published()
    deltas = lobby.changes(first.version)
    assert deltas is not None and len(deltas) >= 2
    shown = first
    for delta in deltas:
        shown = apply(shown, delta)
    assert shown == now and [p.name for p in shown.players] == [p.name for p in lobby.snapshot().players]
    assert len(now.players) == 20
    lobby.presence.close()


def wired(message: Any) -> Any:
    """A message as an edge reads it: through the declared wire."""
    return WIRE.decode(WIRE.encode(message))


async def test_the_host_sends_deltas_between_whole_snapshots_and_an_edge_that_missed_one_converges() -> None:
    lobby = Lobby(seed=1)
    host = HostService(lobby, LocalBus(), calls=None)  # type: ignore[arg-type]  # (no calls: messages only)
    edge = EdgeClient(LocalBus(), calls=None, edge="e1")  # type: ignore[arg-type]
    late = EdgeClient(LocalBus(), calls=None, edge="e2")  # type: ignore[arg-type]
    kinds = []
    seen: dict[int, Snapshot] = {}  # what the first edge's screens were shown, by its versions
    for i in range(3 * SNAPSHOT_EVERY):
        for j in range(3):
            lobby.claim_name(lobby.connect(None, f"u{i}-{j}"), f"P{i}x{j}")
        message = WIRE.decode(host._lobby_message())
        kinds.append(type(message).__name__)
        edge._lobby_took(message)
        if i != 3:  # the second edge misses one message (a delta)
            took = late._lobby_took(message)
            if i == 4:  # the delta after the one it missed: ignored (it waits for a whole one)
                assert not took and late.snapshot() != lobby.snapshot()
                assert len(late.snapshot().players) == 3 * 3
        assert edge.snapshot() == lobby.snapshot()  # (the first edge took every message)
        seen[edge.lobby_log.version] = edge.snapshot()
    assert kinds[0] == "LobbySnapshot" and "LobbyChanges" in kinds
    assert kinds.count("LobbySnapshot") <= len(kinds) // SNAPSHOT_EVERY + 1
    assert kinds[3] == kinds[4] == "LobbyChanges" and kinds[5] == "LobbySnapshot"
    # The second edge ignored what followed the missed delta, then took the next whole one.
    assert late.snapshot() == lobby.snapshot()
    for _ in range(3):  # the lobby quiet: empty deltas change nothing
        message = WIRE.decode(host._lobby_message())
        assert not late._lobby_took(message) or isinstance(message, M.LobbySnapshot)
    assert late.snapshot() == edge.snapshot() == lobby.snapshot()
    # What an edge's screens read: the deltas since the version each shows, in the edge's own numbers.
    for version, shown in seen.items():
        deltas = edge.lobby_log.since(version)
        assert deltas is not None
        for d in deltas:
            shown = apply(shown, d)
        assert shown == lobby.snapshot()
    lobby.presence.close()


def test_the_wire_carries_a_delta_and_a_snapshots_version() -> None:
    delta = LobbyDelta(3, 4, (PlayerInfo("Ann", "lobby"),), ("Bob",), (MatchInfo("ABCD", "voltage", ("a", "b"),
                                                                                  (1, 0), 2),), ("WXYZ",),
                       {"voltage": 1}, ("ABCD",))
    assert wired(M.LobbyChanges(delta, "e")) == M.LobbyChanges(delta, "e")
    snapshot = Snapshot((PlayerInfo("Ann", "lobby"),), (), {}, 7)
    assert wired(M.LobbySnapshot(snapshot, "e")).snapshot.version == 7
