"""The Textual app of one session, made by an :data:`AppFactory` from the session's backend.

Every app a remote player reaches is hardened (:func:`harden_app`): nothing in it may
touch the server's files.  Tests and ``voltage edge --fast`` give their own factory,
which hardens the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

AppFactory = Callable[[Any, str], Any]  # (backend, the name to prefill) -> a Textual App


def default_app_factory(backend: Any, player_name: str) -> Any:
    from tui.app import make_app

    return harden_app(make_app(backend, player_name=player_name))


def harden_app(app: Any) -> Any:
    """Take away what a remote player must not reach: the command palette (its
    "Screenshot" command writes files on the server) and screenshots themselves."""
    app.ENABLE_COMMAND_PALETTE = False
    app.use_command_palette = False
    app.deliver_screenshot = lambda *args, **kwargs: None
    app.save_screenshot = lambda *args, **kwargs: ""
    app.action_screenshot = lambda *args, **kwargs: None
    return app
