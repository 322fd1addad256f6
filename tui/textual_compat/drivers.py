"""Textual's Linux driver for local play, posting keys in the order they were typed.

:class:`OrderedLinuxDriver` posts each key through a :class:`tui.keys.KeySequencer` (the reason is
in :mod:`tui.keys`): its input thread waits for each key to settle before it posts the next, and never
waits once the app is exiting.  It reads the app and the loop a driver is given (``Driver.__init__``'s
protected attributes, which every driver of Textual's uses; no public accessor exists).  Not a piece
of the gate: on another Textual it still orders keys where it finds them, and where it does not
(those attributes renamed) it posts keys as Textual's own driver does.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any

from textual import events
from textual.message import Message

from tui.keys import KeySequencer

try:  # POSIX only
    from textual.drivers.linux_driver import LinuxDriver
except ImportError:  # pragma: no cover - Windows
    LinuxDriver = None  # type: ignore[assignment,misc]


if LinuxDriver is not None:

    class OrderedLinuxDriver(LinuxDriver):
        """Textual's Linux driver, posting keys through a :class:`KeySequencer`."""

        def send_message(self, message: Message) -> None:
            app = getattr(self, "_app", None)
            loop = getattr(self, "_loop", None)
            if not isinstance(message, events.Key) or app is None or loop is None:
                super().send_message(message)
                return
            sequencer = self.__dict__.get("_sequencer")
            if sequencer is None:
                sequencer = self._sequencer = KeySequencer(app, app.post_message)
            future = asyncio.run_coroutine_threadsafe(sequencer.send(message), loop=loop)
            try:
                asyncio.get_running_loop()
                return  # called on the loop itself: never block it
            except RuntimeError:
                pass
            # The input thread: wait until the key has settled, or the app is ending.
            while not self.exit_event.is_set():
                try:
                    future.result(0.05)
                    return
                except concurrent.futures.TimeoutError:
                    continue
                except Exception:
                    return


def ordered_driver_class(driver_class: Any) -> Any:
    """The driver to run a local app with: Textual's Linux driver becomes
    :class:`OrderedLinuxDriver`; any other is kept (Windows, a headless test driver)."""
    if LinuxDriver is not None and driver_class is LinuxDriver:
        return OrderedLinuxDriver
    return driver_class
