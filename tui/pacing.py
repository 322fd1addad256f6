"""How long the visible moments last: one frozen value, given to the app factory.

``make_app(backend, pacing=...)`` takes a :class:`Pacing`; every screen reads it from its
app (:func:`pacing_of`).  Tests pass a fast one (:data:`FAST`, or ``replace(FAST, ...)``)
instead of patching constants or attributes: the knobs a test may turn are exactly the
fields here, declared in one place with their reasons.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Pacing:
    #: how long a flip or a scored set stays highlighted (Voltage)
    flash_seconds: float = 1.8
    #: how long the final board shows before the results open (any key opens them sooner)
    results_delay: float = 1.2
    #: how long a refusal ("too slow", "does not fit") stays on High Voltage's prompt line
    hv_error_seconds: float = 3.0
    #: High Voltage: a card that fits only the top just covered still aims at that one for
    #: this long (a key pressed in the frame before the new top was painted)
    hv_aim_grace: float = 0.4


#: What people get.
DEFAULT = Pacing()

#: For tests: no highlight or results delay (the refusal line and the aim grace as people's).
FAST = Pacing(flash_seconds=0.0, results_delay=0.0)

#: For snapshots and screenshots: no highlight (a still picture of a position), the rest as people's.
NO_FLASH = Pacing(flash_seconds=0.0)


def pacing_of(app: Any) -> Pacing:
    """The pacing of ``app``: a :class:`~tui.app.VoltageApp`'s own, or people's for a bare
    app hosting one screen (a test's)."""
    pacing = getattr(app, "pacing", None)
    return pacing if isinstance(pacing, Pacing) else DEFAULT
