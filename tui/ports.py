"""What the screens need from whatever serves them: the seams between ``tui`` and its backends.

The screens never import ``server``: a backend (the SSH lobby, local play, a replay,
and later an edge that talks to a host over Redis) satisfies the protocols declared here,
and ``voltage/cli.py`` composes the two.

:class:`Refused` is the one error a screen catches from a backend: the request was
understood and turned down (a name taken, a room code unknown, a move out of turn).
Its text is one line, written for the player, and shown as it is.
"""

from __future__ import annotations


class Refused(ValueError):
    """A backend turned a request down; ``str(e)`` is the one-line reason for the player.

    A ``ValueError`` so that screens written before this root keep catching it."""
