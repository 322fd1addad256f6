"""A client that stops reading cannot grow the server's memory: what is queued
counts the transport, drawing pauses, resizes are coalesced and clamped, and a
session whose output stays stuck is closed with a log line."""

from __future__ import annotations

import asyncio
import logging
import socket
import time

import pytest

from server.session.driver import OutputLimits, _clamp_size
from tests.support.terminal import Terminal


def server_queued(srv) -> int:
    """Bytes the server holds for its clients: channel buffers and transport buffers."""
    total = 0
    for c in list(srv.live):
        if c.conn is not None and c.conn._transport is not None:
            total += c.conn._transport.get_write_buffer_size()
        if c.process is not None:
            total += c.process.channel.get_write_buffer_size()
    return total


async def test_a_client_with_a_huge_window_that_stops_reading_is_closed_and_memory_stays_bounded(
    start_server, echo_app, caplog
):
    caplog.set_level(logging.WARNING, logger="server.session.driver")
    limits = OutputLimits(high_water=64 * 1024, low_water=8 * 1024, stuck_close_after=1.0)
    srv = await start_server(echo_app, output_limits=limits)
    # A 1 GiB window: asyncssh moves all the output on to the transport at once.
    # A small receive buffer, set before connecting, so that what is not read piles up
    # in the server's process (where it counts) within a second, not after megabytes.
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", srv.port))
    stuck = await Terminal(200, 60).connect(srv.port, "stuck", window=1 << 30, sock=sock)
    other = await Terminal().connect(srv.port, "other")
    try:
        await stuck.wait_for("hello stuck")
        await other.wait_for("hello other")
        for c in srv.live:
            if c.username == "stuck":
                c.conn._transport.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        stuck.conn._transport.pause_reading()
        peak = 0
        deadline = time.monotonic() + 20
        flip = 0
        while not stuck.closed.is_set():
            # keep asking for huge frames, as the attack did (this also defeats keepalives)
            flip ^= 1
            stuck.chan.change_terminal_size(300 - flip, 150)
            stuck.send("\x1b[A")
            peak = max(peak, server_queued(srv))
            if time.monotonic() > deadline:
                raise AssertionError(f"the stuck session was never closed (queued {peak} bytes)")
            await asyncio.sleep(0.02)
        assert any("output has been stuck" in r.getMessage() for r in caplog.records)
        assert peak < 8 * 1024 * 1024, peak
        # Everyone else was served all along.
        other.press("down")
        await other.wait_for("key down", timeout=3.0)
    finally:
        if stuck.conn._transport is not None:
            stuck.conn._transport.resume_reading()
        await stuck.close()
        await other.close()


async def test_a_client_that_pauses_then_reads_again_gets_a_whole_fresh_screen(start_server, echo_app):
    srv = await start_server(echo_app, output_limits=OutputLimits(high_water=16 * 1024, low_water=1024))
    t = await Terminal(120, 40).connect(srv.port, "bob")
    try:
        await t.wait_for("hello bob")
        t.conn._transport.pause_reading()
        for i in range(300):
            t.resize(120 - i % 2, 40)
            await asyncio.sleep(0)
        t.conn._transport.resume_reading()
        t.press("down")
        await t.wait_for("key down size 1\\d\\dx40", timeout=30)
        await t.wait_for("hello bob")  # the whole screen is there, not just the changed line
        assert not t.closed.is_set()
    finally:
        await t.close()


async def test_resizes_are_coalesced_the_latest_size_wins(start_server, echo_app):
    srv = await start_server(echo_app, output_limits=OutputLimits(resize_interval=0.3))
    t = await Terminal(80, 24).connect(srv.port, "bob")
    try:
        await t.wait_for("hello bob")
        app = echo_app.made[0]
        sizes = []
        app.screen.watch  # noqa: B018 - the app is up
        original = app.post_message

        def spy(message):
            from textual import events

            if isinstance(message, events.Resize):
                sizes.append((message.size.width, message.size.height))
            return original(message)

        app.post_message = spy
        for w in range(60, 100):
            t.resize(w, 24)
        await t.wait_for("size 99x24")
        assert len(sizes) <= 3, sizes  # 40 requests, at most a few frames
        assert sizes[-1] == (99, 24)
    finally:
        await t.close()


def test_sizes_are_clamped_not_reset():
    limits = OutputLimits(max_width=400, max_height=200)
    assert _clamp_size(1000, 500, limits) == (400, 200)
    assert _clamp_size(0, 0, limits) == (80, 24)
    assert _clamp_size(132, 43, limits) == (132, 43)


def test_parsed_css_is_shared_between_sessions_of_one_theme_and_never_across_themes():
    from types import SimpleNamespace

    from tui.textual_compat import SharedParseCache

    dark, light = {"primary": "#0178d4", "text": "white"}, {"primary": "#0178d4", "text": "black"}
    one = SharedParseCache(SimpleNamespace(_variables=dict(dark)))
    other = SharedParseCache(SimpleNamespace(_variables=dict(dark)))  # another session, the same theme
    lit = SharedParseCache(SimpleNamespace(_variables=dict(light)))
    key = ("Screen { color: $text; }", "app.tcss")
    one[key] = ["rules for dark"]
    assert other[key] == ["rules for dark"], "a second session of the theme parses nothing again"
    with pytest.raises(KeyError):  # a light session never gets the dark rules
        lit[key]
    lit[key] = ["rules for light"]
    one._stylesheet._variables = dict(light)  # the first session changes theme (Textual sets a new dict)
    assert one[key] == ["rules for light"] and other[key] == ["rules for dark"]


async def test_a_usual_login_is_not_queued_behind_big_whole_frames(start_server, echo_app):
    # Every session's whole frames come out of one budget, in cells: here so small that a big
    # terminal's resize waits (its first frame used it up), while a new 80x24 login, and a resize
    # of a usual terminal, are drawn at once.
    from server.session.budget import RedrawBudget, RedrawLimits

    srv = await start_server(echo_app)
    srv.sessions.redraws = RedrawBudget(RedrawLimits(cells_per_second=0.001, cells_burst=1.0, free_cells=80 * 24))
    big, small = Terminal(400, 200), Terminal(80, 24)
    try:
        await big.connect(srv.port, "big")
        await big.wait_for("hello big")
        big.chan.change_terminal_size(399, 200)
        await small.connect(srv.port, "small")
        await small.wait_for("hello small")
        small.chan.change_terminal_size(70, 20)
        await small.wait_for("size 70x20")
        assert "size 399x200" not in big.text()  # (still waiting its turn)
        assert srv.sessions.redraws.held >= 1
    finally:
        await big.close()
        await small.close()


async def test_a_client_that_stops_reading_with_nothing_queued_is_asked_and_closed_by_its_stuck_time(
    start_server, echo_app, caplog
):
    # Fifty clients read their 400x200 lobby, then stopped reading and resized every 0.1 s: nothing
    # more was queued for them than their kernel buffers took, and each resize's frame waited its
    # turn in the process's budget of whole frames, so nothing told them from readers for up to
    # 40 s.  A keepalive request, which only a client that reads answers, does.
    from server.session.budget import RedrawBudget, RedrawLimits

    caplog.set_level(logging.WARNING, logger="server.session.driver")
    srv = await start_server(echo_app, output_limits=OutputLimits(stuck_close_after=1.0, resize_interval=0.0))
    # every whole frame after a session's first waits its turn for a long while
    srv.sessions.redraws = RedrawBudget(RedrawLimits(cells_per_second=100, cells_burst=100, free_cells=0))
    stuck = await Terminal(100, 30).connect(srv.port, "stuck")
    reader = await Terminal(100, 30).connect(srv.port, "reader")
    try:
        await stuck.wait_for("hello stuck")
        await reader.wait_for("hello reader")
        stuck.conn._transport.pause_reading()
        deadline = time.monotonic() + 20
        flip = 0
        while not stuck.closed.is_set():
            flip ^= 1
            for t in (stuck, reader):  # both owed a frame all along
                t.chan.change_terminal_size(100 - flip, 30)
            if time.monotonic() > deadline:
                raise AssertionError("the session that stopped reading was never closed")
            await asyncio.sleep(0.05)
        assert any("stuck" in r.getMessage() for r in caplog.records)
        assert not reader.closed.is_set()  # it answered: its frame waits its turn, it is not closed
        reader.press("down")
        await reader.wait_for("key down", timeout=5.0)
    finally:
        if stuck.conn._transport is not None:
            stuck.conn._transport.resume_reading()
        await stuck.close()
        await reader.close()
