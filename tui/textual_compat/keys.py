"""A play screen runs a key's bindings where it takes the key, not a turn of the event loop later at the app.

Textual hands a key to the focused widget, or to the screen, and lets it bubble up to the app, a message
posted to each message pump on the way; only the app's own handler (``App._on_key``) then runs the bindings of
the focus chain (``App._check_bindings``: from the focused widget up to the app, the same chain wherever it is
asked from).  Each post is a turn of the event loop, and on a busy server a turn is every session's work, so a
match's key waited once more for nothing but the trip back to the app.  :func:`run_bindings_here`, called by
a screen's key handler, runs them there, in the screen's task, and stops the key when one ran; the key then
goes no further, as after the app's.  A screen with ``key_...`` methods of its own is left to Textual (they
run before the bindings there, and would here too, but are not looked at).  Piece ``screen-keys``.
"""

from __future__ import annotations

from typing import Any

from tui.textual_compat.gate import enabled


async def run_bindings_here(screen: Any, event: Any) -> bool:
    """Run the bindings of ``event``'s key now, for ``screen`` (the one shown), as the app would once the key
    had bubbled up to it; True (and the key stopped) when one ran."""
    if not enabled("screen-keys") or event._stop_propagation or _has_key_methods(type(screen)):
        return False
    app = screen.app
    if app.screen is not screen:
        return False
    if not await app._check_bindings(event.key):
        return False
    event.stop()
    event.prevent_default()
    return True


_KEY_METHODS: dict[type, bool] = {}


def _has_key_methods(cls: type) -> bool:
    found = _KEY_METHODS.get(cls)
    if found is None:
        found = _KEY_METHODS[cls] = any(name.startswith("key_") for name in dir(cls))
    return found


def unexpected() -> list[str]:
    """What this piece needs of Textual that the installed one lacks."""
    from textual import events
    from textual.app import App

    missing = [f"App.{name}" for name in ("_check_bindings", "_on_key") if not hasattr(App, name)]
    key = events.Key("a", "a")
    missing += [f"Key.{name}" for name in ("_stop_propagation", "stop", "prevent_default") if not hasattr(key, name)]
    return missing
