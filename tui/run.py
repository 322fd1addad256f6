"""``voltage play``: the app against local matches (a bot, or hot-seat).

:func:`run_local` runs an app in this terminal for ``voltage play`` and
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
import logging
import multiprocessing
import signal
from concurrent.futures import Executor, ProcessPoolExecutor

log = logging.getLogger(__name__)


def _bot_pool() -> Executor | None:
    """One worker process for the bots, so a searching bot never slows the screen."""
    try:
        return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    except Exception:  # pragma: no cover - no process support: think in a thread instead
        log.exception("no process pool; bots think in a thread")
        return None


def default_name() -> str:
    """The login name (a log line reads "alice played ..."), or "Player"."""
    import getpass

    try:
        name = getpass.getuser().strip()
    except Exception:  # pragma: no cover - no login name in this environment
        name = ""
    return name[:24] or "Player"


INTERRUPTED = 130  # the exit status after SIGINT (128 + 2)


def run_local(app) -> int:
    """Run ``app`` in this terminal; its return code, or 130 after a SIGINT.

    Keys typed in one burst keep their order (Textual's own driver lets a key that
    bubbles to a binding land after the letters that followed it: see :mod:`tui.keys`)."""
    from tui.keys import ordered_driver_class

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


def play_main(name: str | None = None, seed: int | None = None, bot_delay: float = 0.7) -> int:
    from server.local import LocalBackend

    from tui.app import make_app

    pool = _bot_pool()
    backend = LocalBackend(seed=seed, bot_delay=bot_delay, executor=pool)
    app = make_app(backend, player_name=name or default_name())
    try:
        return run_local(app)
    finally:
        backend.close()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
