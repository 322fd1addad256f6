"""Running an app in this terminal (``voltage play``, ``voltage replay``).

The tui never imports ``server``: what backend an app gets is composed in
``voltage/cli.py`` (``voltage play``: a local backend and its bot pool), which hands
the app here.  :func:`run_local` runs an app in this terminal for ``voltage play`` and
``voltage replay``.  In the terminal's raw mode Ctrl-C is a key (Textual's
"press ctrl+q to quit" hint), but a SIGINT can still come (``kill -INT``, or
during start-up): it ends the app as Ctrl+Q does, restoring the terminal, with
exit status 130 and no traceback.  Without this, asyncio cancelled the app's
task, Textual swallowed the cancellation, and the command said 0.  Only here,
never in :func:`tui.app.make_app`: the SSH server runs one app per session and
its SIGINT belongs to the server.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any


def default_name() -> str:
    """The login name (a log line reads "alice played ..."), or "Player"."""
    import getpass

    try:
        name = getpass.getuser().strip()
    except Exception:  # pragma: no cover - no login name in this environment
        name = ""
    return name[:24] or "Player"


INTERRUPTED = 130  # the exit status after SIGINT (128 + 2)


def run_local(app: Any) -> int:
    """Run ``app`` in this terminal; its return code, or 130 after a SIGINT.

    Keys typed in one burst keep their order (Textual's own driver lets a key that
    bubbles to a binding land after the letters that followed it: see :mod:`tui.keys`)."""
    from tui.textual_compat import ordered_driver_class

    app.driver_class = ordered_driver_class(app.driver_class)
    interrupted = False

    async def main() -> None:
        nonlocal interrupted
        loop = asyncio.get_running_loop()

        def on_sigint() -> None:
            nonlocal interrupted
            interrupted = True
            app.exit(return_code=INTERRUPTED)

        try:
            loop.add_signal_handler(signal.SIGINT, on_sigint)
            installed = True
        except (NotImplementedError, RuntimeError, ValueError):  # pragma: no cover - no Unix signals
            installed = False
        try:
            await app.run_async()
        finally:
            if installed:
                loop.remove_signal_handler(signal.SIGINT)  # back to KeyboardInterrupt

    asyncio.run(main())
    return INTERRUPTED if interrupted else (app.return_code or 0)
