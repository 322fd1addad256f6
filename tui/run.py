"""``voltage play``: the app against local matches (a bot, or hot-seat)."""

from __future__ import annotations

import logging
import multiprocessing
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


def play_main(name: str | None = None, seed: int | None = None, bot_delay: float = 0.7) -> int:
    from server.local import LocalBackend

    from .app import make_app

    pool = _bot_pool()
    backend = LocalBackend(seed=seed, bot_delay=bot_delay, executor=pool)
    app = make_app(backend, player_name=name or default_name())
    try:
        app.run()
    finally:
        backend.close()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
    return app.return_code or 0
