"""No tooltip and no toast rack on every screen: piece ``no-overlays``.

Textual gives every screen two widgets of its own as it composes it (``Screen._extend_compose``):
a ``Tooltip``, shown while the mouse rests on a widget with a tooltip, and a ``ToastRack``, where
``App.notify`` shows its toasts.  No widget here has a tooltip, and nothing notifies (a refusal is
said where the player looks: the lobby's status line), so each session's start made, styled,
mounted and laid out four widgets that never show (two screens each): 6 % of a first frame's
Python calls (``benchmarks/session_start.py --calls``).  :func:`without_overlays` asks Textual
not to make them, as its own ``run_test(tooltips=False, notifications=False)`` does.  Off: the
screens have them, hidden, as before.
"""

from __future__ import annotations

from typing import Any

from tui.textual_compat.gate import enabled, private, reads_as


def unexpected() -> list[str]:
    """What of Textual's app and screen this piece misses (for the probe)."""
    screen = private("textual.screen", "Screen")
    app = private("textual.app", "App")
    if screen is None or app is None:
        return ["textual.screen.Screen", "textual.app.App"]
    missing = [] if reads_as(screen._extend_compose, ["if not self.app._disable_tooltips:",
                                                      "if not self.app._disable_notifications:"]) else [
        "Screen._extend_compose (its source)"]
    if not reads_as(app.__init__, ["self._disable_tooltips = False", "self._disable_notifications = False"]):
        missing.append("App.__init__ (its source)")
    return missing


def without_overlays(app: Any) -> bool:
    """``app``'s screens get no tooltip and no toast rack.  True when so; False where the piece is off."""
    if not enabled("no-overlays") or not hasattr(app, "_disable_tooltips") or not hasattr(
            app, "_disable_notifications"):
        return False
    app._disable_tooltips = True
    app._disable_notifications = True
    return True
