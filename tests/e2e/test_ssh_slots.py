"""Connection slots cannot be held without credentials (the MaxStartups-style
budget, the silent grace, the idle limits), with raw sockets and real clients."""

from __future__ import annotations

import asyncio
import time

import asyncssh
import pytest

from server.session.admission import Admission
from tests.support.terminal import Terminal, ssh_connect

tui_app = pytest.importorskip("tui.app")


async def silent_sockets(port: int, n: int, source: str = "127.0.0.1") -> list[tuple]:
    """``n`` TCP connections that never send a byte (each a (reader, writer))."""
    out = []
    for _ in range(n):
        out.append(await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)))
    return out


async def closed_by_server(reader: asyncio.StreamReader, timeout: float) -> bool:
    """True once the server has hung up (the client never sent anything)."""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            data = await asyncio.wait_for(reader.read(4096), max(0.01, deadline - time.monotonic()))
            if not data:
                return True
    except (TimeoutError, ConnectionError):
        return False
    return False


async def login_within(port: int, timeout: float) -> float:
    """Log in (retrying, as a user would after a refusal) and run ``who``; the seconds it took."""
    t0 = time.monotonic()
    while True:
        try:
            conn = await asyncio.wait_for(ssh_connect(port), max(0.1, t0 + timeout - time.monotonic()))
            async with conn:
                r = await asyncio.wait_for(conn.run("who"), 30)
            assert r.exit_status == 0
            return time.monotonic() - t0
        except (TimeoutError, OSError, asyncssh.Error) as e:
            if time.monotonic() - t0 > timeout:
                raise AssertionError(f"no login got in within {timeout} s") from e
            await asyncio.sleep(0.05)


def close_all(socks) -> None:
    for _r, w in socks:
        w.close()


async def test_twenty_silent_sockets_do_not_lock_their_address_out(start_server, echo_app):
    # Before: 20 silent sockets filled the per-address cap for the whole 30 s login timeout.
    # (the bound on the login is a fifth of the login timeout: generous for a loaded machine,
    # and still no lockout until the timeout)
    srv = await start_server(echo_app, silent_grace=1.0, login_timeout=300.0)
    socks = await silent_sockets(srv.port, 20)
    try:
        took = await login_within(srv.port, 60.0)
        assert took < 60.0
        # The silent ones are dropped after the grace, long before the login timeout.
        assert all(await asyncio.gather(*(closed_by_server(r, 60.0) for r, _w in socks)))
    finally:
        close_all(socks)


async def test_many_silent_sockets_from_many_addresses_do_not_lock_everyone_out(start_server, echo_app):
    # Before: filling max_connections with silent sockets locked out every address.
    srv = await start_server(
        echo_app, silent_grace=1.0, login_timeout=300.0, max_connections=60, max_startups=(5, 30, 20)
    )
    socks = []
    try:
        for i in range(2, 14):  # 12 addresses x 5 sockets
            socks += await silent_sockets(srv.port, 5, source=f"127.0.0.{i}")
        took = await login_within(srv.port, 60.0)
        assert took < 60.0
        assert srv.sessions.admission.startups <= 20  # the budget held
    finally:
        close_all(socks)


def test_random_early_drop_rises_from_rate_at_start_to_all_at_full():
    admission = Admission()
    admission.random.seed(1)
    budget = (10, 30, 100)
    assert not any(admission.early_drop(9, budget) for _ in range(200))
    assert all(admission.early_drop(100, budget) for _ in range(200))
    at_start = sum(admission.early_drop(10, budget) for _ in range(2000)) / 2000
    halfway = sum(admission.early_drop(55, budget) for _ in range(2000)) / 2000
    assert 0.25 < at_start < 0.35
    assert 0.6 < halfway < 0.7  # 30 % + 70 % x 1/2


async def test_a_logged_in_connection_without_a_session_is_dropped(start_server, echo_app):
    srv = await start_server(echo_app, session_idle=0.5)
    start = time.monotonic()  # before the server starts the connection's idle timer
    conn = await ssh_connect(srv.port)
    try:
        await asyncio.wait_for(conn.wait_closed(), 30)
    finally:
        conn.close()
    assert time.monotonic() - start >= 0.5  # not before its time


async def test_a_connection_that_opens_its_session_in_time_keeps_it(start_server, echo_app):
    # (a limit no loaded machine misses: what matters is that opening the session stops the timer)
    srv = await start_server(echo_app, session_idle=30.0)
    t = await Terminal().connect(srv.port, "bob")
    try:
        await t.wait_for("hello bob")
        assert all(c._timer is None for c in srv.live)  # its idle timer is gone
        assert not t.closed.is_set()
    finally:
        await t.close()


async def test_a_session_left_on_the_name_screen_ends_with_a_message(start_server):
    def factory(backend, player_name):
        return tui_app.make_app(backend, player_name=player_name)

    # Each session has name_idle on the name screen, from its start.  The one that chooses a
    # name starts first, so its watchdog has run out before the idle one's: it must choose
    # within name_idle (8 s: beside a CPU hog choosing took up to 2.5 s).
    name_idle = 8.0
    srv = await start_server(factory, name_idle=name_idle)
    named = await Terminal(100, 32).connect(srv.port, "named")
    idle = None
    try:
        await named.wait_for("Your name")
        named.press("enter")
        await named.wait_for("you: named")
        start = time.monotonic()  # before the idle session starts its watchdog
        idle = await Terminal(100, 32).connect(srv.port, "idle")
        await asyncio.wait_for(idle.closed.wait(), name_idle + 30)
        assert time.monotonic() - start >= name_idle  # not before its time
        assert "no name chosen" in idle.text()
        assert not named.closed.is_set()  # who chose a name stays
        named.press("down")
        await named.wait_for("you: named")
    finally:
        if idle is not None:
            await idle.close()
        await named.close()


async def test_clients_that_stop_right_after_key_exchange_are_dropped_and_lock_nobody_out(
        start_server, echo_app, monkeypatch):
    # A raw client can finish the key exchange (the server's costliest step) and then never ask
    # to log in: it is dropped after the silent grace like a silent socket, and meanwhile a real
    # login from its address gets in.
    stopper = "stops-after-kex"
    send = asyncssh.connection.SSHClientConnection.send_service_request

    def service_request(self, service):
        if getattr(self, "_username", None) == stopper:
            return  # keys exchanged: it never asks for the login service
        send(self, service)

    monkeypatch.setattr(asyncssh.connection.SSHClientConnection, "send_service_request", service_request)
    srv = await start_server(echo_app, silent_grace=1.0)
    stoppers = [asyncio.ensure_future(ssh_connect(srv.port, stopper)) for _ in range(3)]
    await login_within(srv.port, 10.0)
    done, pending = await asyncio.wait(stoppers, timeout=20)
    assert not pending, "a client that never asked to log in was kept"
    for d in done:
        assert isinstance(d.exception(), (asyncssh.DisconnectError, ConnectionError))
    await login_within(srv.port, 10.0)


async def test_a_third_quick_session_from_one_address_is_refused_with_a_line(start_server, echo_app):
    # Each new session starts an app: an address may start two at once, then one per 5 s (SSH and
    # the web draw on one budget); over it, SSH refuses at once and says when to try again.
    from server.session.budget import StartLimits

    srv = await start_server(echo_app, session_starts=StartLimits())
    first, second = Terminal(80, 24), Terminal(80, 24)
    third, other = Terminal(80, 24), Terminal(80, 24)
    try:
        for t in (first, second):
            await t.connect(srv.port, "me")
            await t.wait_for("hello me")
        await third.connect(srv.port, "me")
        await third.wait_for("too many new sessions from your address; try again in")
        await asyncio.wait_for(third.closed.wait(), 30)
        assert third.exit_status == 1
        assert not first.closed.is_set() and not second.closed.is_set()  # the first two play on
        # another address has its own budget
        await other.connect(srv.port, "them", local_addr=("127.0.0.9", 0))
        await other.wait_for("hello them")
        # commands start no app: not counted
        conn = await ssh_connect(srv.port)
        async with conn:
            assert (await asyncio.wait_for(conn.run("who"), 30)).exit_status == 0
    finally:
        for t in (first, second, third, other):
            await t.close()


async def test_a_classroom_behind_one_address_gets_in_when_the_operator_allows_it(start_server, echo_app):
    # ``--sessions-per-address 4:60``: four players behind one NAT address start at once (two by
    # default); the fifth is still held to the budget and told so.
    from server.session.budget import StartLimits

    srv = await start_server(echo_app, session_starts=StartLimits(), sessions_per_address=(4.0, 60.0))
    players = [Terminal(80, 24) for _ in range(5)]
    try:
        for i, t in enumerate(players[:4]):
            await t.connect(srv.port, f"pupil{i}")
            await t.wait_for(f"hello pupil{i}")
        await players[4].connect(srv.port, "pupil4")
        await players[4].wait_for("too many new sessions from your address; try again in")
        assert not any(t.closed.is_set() for t in players[:4])
    finally:
        for t in players:
            await t.close()
