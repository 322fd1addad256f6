"""Waiting in tests: on a condition with a deadline, never for a fixed time.

``until`` polls a condition on the running loop (the app, the server and the lobby under test run on
that loop too, so a plain short sleep lets them work) and fails, naming what it waited for, once the
deadline passes.  The default deadline is generous (30 s): it costs nothing when things are fast and
spares a loaded machine a false failure.  ``settle`` lets the tasks just scheduled take a few steps,
for a check that something is waiting (not done) at that moment.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable

DEADLINE = 30.0
"""Seconds ``until`` waits by default before it fails."""

POLL = 0.01
"""Seconds between two looks at the condition."""


async def until(
    predicate: Callable[..., object],
    what: str | Callable[..., object] = "the condition",
    *,
    timeout: float = DEADLINE,
) -> None:
    """Wait until ``predicate()`` is true (it may return an awaitable, which is awaited), or fail after
    ``timeout`` seconds saying what was awaited (``what``, or ``what()`` when callable: a screen, a state).
    Both are called without arguments (``Callable[..., object]``: a lambda may bind loop variables as defaults)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what() if callable(what) else what}")
        await asyncio.sleep(POLL)


async def settle(steps: int = 5) -> None:
    """Let the tasks scheduled so far run ``steps`` steps (a few loop turns, no time)."""
    for _ in range(steps):
        await asyncio.sleep(0)
