"""Keys reach the app in the order they were typed, even when many arrive at once.

Why keys of one burst were reordered (the cause, in Textual 8.2 itself): a
driver posts every key to the App's queue; the App forwards each one to the
focused widget's queue.  An ``Input`` handles a printable key right there, but
a key it does not handle itself (ctrl+u, backspace, left, enter, a screen's
bindings...) *bubbles*: widget -> its parents -> screen -> App, one queue hop
at a time, and its binding only runs when it is back at the App.  By then the
letters that followed it have long been typed into the Input.  So "Hello" +
one burst of ``ctrl+u World`` typed "World" first and then cleared the field,
``backspace Y`` gave "Hello", ``left X`` put the X at the end.  A pause
between keys hid it.  Textual's own Linux driver (``voltage play``) posts keys
the same way, so a local burst (tmux ``send-keys``, a paste without bracketed
paste) reorders there too.

The fix, at the root and for every screen: :class:`KeySequencer` posts one
key, then follows it along the path it takes, queue by queue, with a
``call_later`` callback on each node (the App, the widget it was forwarded
to, each parent up to the App again).  A node's queue is first in, first out,
so when the callback runs on a node that node has finished with the key; when
it has run on the App a second time the key's trip (bindings included) is
over and the next key is posted.  Several hops of a no-op callback cost far
less than the key itself.  A key whose handler never returns (or a node that
closed under it) must not freeze the input: after ``timeout`` seconds the next
key goes anyway.

Only keys wait: mouse events, pastes and resizes are posted straight away (a
paste goes to the same widget queue as the keys around it, so it keeps its
place).

Local play: :class:`tui.textual_compat.drivers.OrderedLinuxDriver` is Textual's Linux
driver with the same sequencing (its input thread waits for each key to settle
before it posts the next; it never waits once the app is exiting), as
``tui/run.py`` runs a local app.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from textual import events
from textual.message import Message

# A key still travelling after this long lets the next one go (a handler that
# waits on something slow must not freeze the keyboard).
SETTLE_TIMEOUT = 2.0


class KeySequencer:
    """Posts messages to ``app`` through ``post``; each key only after the previous
    one has finished its trip through the DOM (see the module's notes)."""

    PASSES = 2

    def __init__(self, app: Any, post: Callable[[Message], object], *, timeout: float = SETTLE_TIMEOUT) -> None:
        self._app = app
        self._post = post
        self._timeout = timeout

    async def send(self, message: Message) -> None:
        """Post ``message``; for a key, return once it has been fully handled."""
        if not isinstance(message, events.Key):
            self._post(message)
            return
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self._timeout
        self._post(message)
        # Twice along the path: the key's own trip, then the messages its handling posted
        # on the way (a menu's Chosen, bubbling to the screen that acts on it: it may move
        # the focus to an input that the next letters are meant for).
        for _pass in range(self.PASSES):
            done: asyncio.Future[None] = loop.create_future()
            if not self._follow(done):
                return
            try:
                await asyncio.wait_for(asyncio.shield(done), max(0.0, deadline - loop.time()))
            except TimeoutError:
                return

    def _follow(self, done: asyncio.Future[None]) -> bool:
        app = self._app

        def finish() -> None:
            if not done.done():
                done.set_result(None)

        def at_app() -> None:
            # The App forwarded the key to what has the focus (or the screen), or a
            # priority binding took it; follow it from there.
            try:
                target = app.focused or app.screen
            except Exception:
                finish()
                return
            if target is None or not target.call_later(self._hop, target, finish):
                finish()

        return bool(app.call_later(at_app))

    def _hop(self, node: Any, finish: Callable[[], None]) -> None:
        # ``node`` has handled the key (or never had it); it bubbles to the parent next.
        # (A method, not a closure calling itself: that closure was a reference cycle
        # per key, holding the app until a collection found it.)
        app = self._app
        parent = getattr(node, "parent", None)
        if parent is None:
            finish()
        elif parent is app:
            if not app.call_later(finish):
                finish()
        elif not parent.call_later(self._hop, parent, finish):
            finish()
