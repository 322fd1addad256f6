"""The session layer without SSH: a session over an in-memory terminal channel (bytes in,
bytes out, a size), as the WebSocket transport will give it, reaches the lobby and plays,
under the same input budget, output flow control and name watchdog as an SSH session
(the sessions are made by ``local_sessions``, as ``voltage serve`` makes them)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from textual.widgets import Input

from server.config import ServerConfig
from server.serve import local_sessions
from server.session.app import harden_app
from server.session.driver import InputLimits, OutputLimits
from server.session.identity import Identity
from server.session.services import LocalServices
from server.session.sessions import Sessions
from tests.support.channel import MemoryChannel
from tests.support.ssh import ROOMY_STARTS
from tests.support.wait import until
from tui.app import make_app
from tui.pacing import FAST

KEY = Identity.of_key("SHA256:alice-key", "alice")


class Made:
    """The sessions of a one-process server, and the apps they made."""

    def __init__(self, **config: Any) -> None:
        self.apps: list[Any] = []

        def factory(backend: Any, player_name: str) -> Any:
            app = harden_app(make_app(backend, player_name=player_name, pacing=FAST))
            self.apps.append(app)
            return app

        settings = {"session_starts": ROOMY_STARTS, **config}
        self.sessions: Sessions = local_sessions(ServerConfig(**settings), app_factory=factory)
        services = self.sessions.services
        assert isinstance(services, LocalServices)
        self.lobby = services.lobby

    def play(self, channel: MemoryChannel, identity: Identity = KEY, env: dict[str, str] | None = None
             ) -> asyncio.Task[int]:
        return asyncio.get_running_loop().create_task(self.sessions.play(channel, identity, env or {}))


@pytest.fixture
async def made() -> AsyncIterator[Callable[..., Made]]:
    made: list[Made] = []

    def make(**config: Any) -> Made:
        made.append(Made(**config))
        return made[-1]

    yield make
    for m in made:
        m.sessions.services.close()


async def ended(task: asyncio.Task[int]) -> int:
    return await asyncio.wait_for(task, 30)


async def test_a_session_over_an_in_memory_channel_reaches_the_lobby_and_plays_a_key(made):
    m = made()
    m.sessions.start()
    channel = MemoryChannel(100, 32)
    task = m.play(channel)
    await channel.wait_for("Your name")
    channel.press("enter")  # the name the user name suggested
    await channel.wait_for("you: alice")
    (player,) = m.lobby.players.values()
    assert player.identity == KEY.key and player.name == "alice"  # the key is the player
    assert m.sessions.running == 1
    channel.press("enter")  # quick match
    await channel.wait_for("Waiting for an opponent")
    channel.hang_up()
    assert await ended(task) == 0
    assert m.sessions.running == 0 and not m.lobby.players  # gone from the lobby with the session


async def test_a_guest_and_what_it_reads_of_the_client_environment_reach_the_session(made):
    m = made()
    channel = MemoryChannel(100, 32)
    task = m.play(channel, Identity.guest("bob"), {"NO_COLOR": "1", "PATH": "/bin", "LANG": "x" * 1000})
    await channel.wait_for("Your name")
    backend = m.apps[0].backend
    assert backend.guest and backend.env == {"NO_COLOR": "1", "LANG": "x" * 64}  # the names it reads, short
    channel.hang_up()
    assert await ended(task) == 0


async def test_a_session_left_on_the_name_screen_ends_with_a_message(made):
    m = made(name_idle=0.5)
    channel = MemoryChannel()
    start = time.monotonic()  # before the session starts its watchdog
    task = m.play(channel)
    # (not waiting for the name screen first: on a loaded machine the watchdog may run out
    # before the test has seen it drawn)
    assert await ended(task) == 1
    assert time.monotonic() - start >= 0.5  # not before its time
    assert "voltage: no name chosen in" in channel.raw.decode()
    assert not m.lobby.players


async def test_a_session_a_newer_one_of_its_key_took_over_is_not_ended_for_choosing_no_name(made):
    idle = 6.0  # (each session names itself well within it, a loaded machine too)
    m = made(name_idle=idle)
    first = MemoryChannel(100, 32)
    first_task = m.play(first)
    await first.wait_for("Your name")
    first.press("enter")
    await first.wait_for("you: alice")
    second = MemoryChannel(100, 32)
    started = time.monotonic()
    second_task = m.play(second)
    await second.wait_for("Your name")
    second.press("enter")  # the key's own name: this session takes over
    await second.wait_for("you: alice")
    await first.wait_for("opened in another session")
    await asyncio.sleep(max(0.0, started + idle + 0.5 - time.monotonic()))  # deliberately: past both watchdogs
    assert not first_task.done() and "no name chosen" not in first.raw.decode()
    first.press("enter")  # it had a name, and takes it back
    await first.wait_for("you: alice")
    for channel, task in ((first, first_task), (second, second_task)):
        channel.hang_up()
        assert await ended(task) == 0


async def test_a_sustained_flood_of_input_ends_the_session_with_a_message(made):
    # The budget is judged as the session takes the keys, so it is set below what a loaded
    # machine still takes (hundreds of keys a second when quiet, dozens beside a CPU hog).
    m = made(input_limits=InputLimits(events_per_second=5, events_burst=10, flood_close_after=1.0))
    channel = MemoryChannel()
    task = m.play(channel)
    await channel.wait_for("Your name")
    channel.send(b"a" * 65536)
    assert await ended(task) == 0
    assert "too much input; the session is closed" in channel.raw.decode()


def drawing_paused(app: Any) -> bool:
    """The driver stopped writing frames (one was written above the high water)."""
    return app._driver is not None and app._driver._paused_since is not None


async def test_output_not_taken_pauses_the_drawing_which_repaints_once_taken(made):
    m = made(output_limits=OutputLimits(high_water=10_000, low_water=1_000, poll=0.05))
    channel = MemoryChannel()
    task = m.play(channel)
    await channel.wait_for("Your name")
    app = m.apps[0]
    name = app.screen.query_one("#name", Input)
    channel.pending = 50_000  # the client stops taking output
    channel.press("Z")  # typed in the (empty) name box: the next frame is written, then the drawing pauses
    await until(lambda: name.value == "Z" and drawing_paused(app), "the drawing to pause")
    writes = channel.writes
    channel.press("e", "d")
    await until(lambda: name.value == "Zed", "the keys typed")
    await asyncio.sleep(0.3)  # deliberately: nothing is written while the client takes nothing
    assert channel.writes == writes and "Zed" not in channel.text()
    channel.pending = 0  # taken: the whole screen is drawn again
    await channel.wait_for("Zed")
    assert not channel.aborted
    channel.hang_up()
    assert await ended(task) == 0


async def test_output_left_unread_below_the_pause_holds_the_drawing_which_goes_on_once_read(made):
    # Fifty stuck 400x200 lobbies, their unread output under the pause, each rendered every arrival
    # in the lobby for no one: a new player's login waited about a second.
    m = made(output_limits=OutputLimits(high_water=10_000_000, low_water=1_000, poll=0.05, hold_after=0.2))
    channel = MemoryChannel()
    task = m.play(channel)
    await channel.wait_for("Your name")
    app = m.apps[0]
    name = app.screen.query_one("#name", Input)
    channel.pending = 5_000  # the client stops taking output (under the pause)
    channel.press("Z")  # drawn, and left unread
    await channel.wait_for("Z")
    await until(lambda: app._batch_count > 0, "the drawing to be held")
    writes = channel.writes
    channel.press("e", "d")
    await until(lambda: name.value == "Zed", "the keys typed")
    await asyncio.sleep(0.3)  # deliberately: nothing is drawn while the client reads nothing
    assert channel.writes == writes and "Zed" not in channel.text()
    channel.pending = 0  # read: what changed is drawn
    await channel.wait_for("Zed")
    assert not channel.aborted
    channel.hang_up()
    assert await ended(task) == 0


async def test_output_stuck_for_stuck_close_after_ends_the_session(made):
    m = made(output_limits=OutputLimits(high_water=10_000, low_water=1_000, poll=0.05, stuck_close_after=1.0))
    channel = MemoryChannel()
    task = m.play(channel)
    await channel.wait_for("Your name")
    start = time.monotonic()  # the drawing pauses after this, at the next frame
    channel.pending = 50_000  # the client stops taking output, for good
    channel.press("Z")  # a change to draw
    assert await ended(task) == 0
    assert time.monotonic() - start >= 1.0  # not before its time
    assert channel.aborted


async def test_a_burst_of_keys_acts_in_order_while_the_lobby_answers_slowly(made):
    """The lobby's calls are awaited (an edge asks a host over Redis): a key that asks waits
    for the answer before the next key of the same burst is read, so Enter (the name) then
    Enter (quick match) in one packet claim the name and then queue, as typed."""
    m = made()

    def slow(backend: Any) -> Any:
        for name in ("claim_name", "enter_lobby", "quick_match"):
            real = getattr(backend, name)

            async def answer(*args: Any, real: Any = real, **kwargs: Any) -> Any:
                await asyncio.sleep(0.3)  # (a host a little slow to answer)
                return await real(*args, **kwargs)

            setattr(backend, name, answer)
        return backend

    sessions = m.sessions
    factory = sessions.app_factory
    sessions.app_factory = lambda backend, player_name: factory(slow(backend), player_name)
    channel = MemoryChannel(100, 32)
    task = m.play(channel)
    await channel.wait_for("Your name")
    channel.send(b"\r\r")  # the name, then Quick match: Voltage, in one packet
    await channel.wait_for("Waiting for an opponent")
    (player,) = m.lobby.players.values()
    await until(lambda: player.status == "waiting", "the quick match to reach the lobby")
    assert player.name == "alice"
    channel.hang_up()
    assert await ended(task) == 0


async def test_a_repaint_from_the_channel_writes_the_whole_screen_at_its_new_size(made):
    from server.session.driver import Repaint

    m = made()
    channel = MemoryChannel(100, 32)
    task = m.play(channel)
    await channel.wait_for("Your name")
    # The client's picture is gone (a browser reloaded its page and came back to the session):
    # at the same size,
    channel.screen.reset()
    assert "Your name" not in channel.text()
    channel._input.put_nowait(Repaint(100, 32))
    await channel.wait_for("Your name")
    # and at another.
    channel.screen.reset()
    channel.screen.resize(30, 90)
    assert "Your name" not in channel.text()
    channel._input.put_nowait(Repaint(90, 30))
    await channel.wait_for("Your name")
    assert m.apps[0].size == (90, 30)
    channel.hang_up()
    assert await ended(task) == 0


async def test_a_client_that_stops_reading_is_closed_by_its_stuck_time_whatever_it_resizes(made):
    # Fifty such clients (a 400x200 terminal resized every 0.1 s) had every resize redraw the whole
    # screen into buffers that never drained below the pause, and none was ever closed.
    limits = OutputLimits(high_water=10_000_000, low_water=1_000, poll=0.05, stuck_close_after=1.0,
                          resize_interval=0.0)
    m = made(output_limits=limits)
    channel = MemoryChannel()
    task = m.play(channel)
    await channel.wait_for("Enter to go to the lobby")  # (the screen's last line)
    channel.pending = 5_000  # the client stops taking output
    drawn: list[int] = []

    async def resize_forever() -> None:
        for i in range(1000):
            channel.resize(100 - i % 2, 32)
            await asyncio.sleep(0.05)
            if not task.done():
                drawn.append(len(channel.raw))

    resizer = asyncio.get_running_loop().create_task(resize_forever())
    try:
        assert await ended(task) == 0
    finally:
        resizer.cancel()
    assert channel.aborted
    # Measured from the first resize on (the first frame may still have been on its way); the name's
    # blinking cursor is still written, a few bytes, where each resize drawn was the whole screen.
    whole = drawn[0] if drawn else 0
    assert len(drawn) > 5 and drawn[-1] - drawn[0] < whole // 4, "a resize was drawn while the last frame was unread"


class HeldFrames:
    """The process's budget of whole frames, held by the test: every whole frame after a session's
    first waits (asked again every 0.05 s) until ``holding`` is False."""

    def __init__(self) -> None:
        self.holding = True
        self.held = 0

    def charge(self, cells: int) -> None:
        pass

    def ask(self, cells: int) -> float:
        if self.holding:
            self.held += 1
            return 0.05
        return 0.0


async def on_a_held_frame(made: Callable[..., Made]) -> tuple[MemoryChannel, asyncio.Task[int], Any, HeldFrames]:
    """A session on its name screen whose whole frames after its first are held by the process's
    budget while the test says, with a stuck time of 0.3 s: its channel, task, app and budget."""
    limits = OutputLimits(high_water=10_000_000, low_water=1_000, poll=0.05, stuck_close_after=0.3,
                          resize_interval=0.0)
    m = made(output_limits=limits)
    budget = HeldFrames()
    m.sessions.redraws = budget  # type: ignore[assignment]
    channel = MemoryChannel()
    task = m.play(channel)
    await channel.wait_for("Your name")
    return channel, task, m.apps[0], budget


@pytest.mark.parametrize("stops", ["a few bytes left unread", "no answer to a ping"])
async def test_a_client_owed_a_held_frame_that_stopped_reading_is_closed_by_its_stuck_time(made, stops):
    # Fifty clients read their 400x200 lobby, stopped reading and resized every 0.1 s: the little
    # written to them since stayed under the unread mark (or in their kernel buffers, where nothing
    # tells it from read: only a question the client must read and answer does), and each resize's
    # frame waited its turn in the process's budget of whole frames for up to 40 s, so their stuck
    # time began only once it was drawn: 9 of 50 closed within 45 s.
    channel, task, app, _budget = await on_a_held_frame(made)
    if stops == "a few bytes left unread":
        channel.pending = 500
    else:
        channel.answers = False
    channel.resize(90, 30)
    assert await ended(task) == 0  # (its frame held all along)
    assert channel.aborted
    assert stops != "no answer to a ping" or channel.pings >= 1


async def test_a_reading_client_whose_frame_is_held_longer_than_the_stuck_time_gets_it(made):
    channel, task, app, budget = await on_a_held_frame(made)
    channel.resize(90, 30)  # everything read (nothing pending): the frame waits its turn, not the client
    await until(lambda: budget.held > 0, "the frame held")
    await asyncio.sleep(0.6)  # deliberately: twice the stuck time, held
    assert not task.done() and tuple(app.size) == (100, 32)
    budget.holding = False
    await until(lambda: tuple(app.size) == (90, 30), "the held frame drawn")
    await channel.wait_for("Your name")
    assert not task.done() and not channel.aborted
    assert channel.pings >= 1  # (asked, and it answered)
    channel.hang_up()
    assert await ended(task) == 0


async def test_a_resize_while_the_last_frame_is_unread_is_drawn_once_the_client_reads(made):
    limits = OutputLimits(high_water=10_000_000, low_water=1_000, poll=0.05, resize_interval=0.0)
    m = made(output_limits=limits)
    channel = MemoryChannel()
    m.play(channel)
    await channel.wait_for("Your name")
    app = m.apps[0]
    channel.pending = 5_000
    for width in (90, 95, 91):  # coalesced: the last size wins
        channel.resize(width, 30)
    await asyncio.sleep(0.3)  # deliberately: nothing is drawn while the client reads nothing
    assert tuple(app.size) == (100, 32)
    channel.pending = 0
    await until(lambda: tuple(app.size) == (91, 30), "the latest size drawn")
    channel.hang_up()
