"""The one root of the errors the server turns a request down with.

:class:`ServerError` is a :class:`tui.ports.Refused` (itself a ``ValueError``): a
screen catches ``Refused`` and shows ``str(e)``, whichever part of the server said
no.  The layers are server > tui > engine, so the server may import ``tui.ports``
(a module of protocols, no Textual).

The errors stay defined where they are raised (``LobbyError`` and ``NameRejected``
in :mod:`server.lobby.models`, ``ReplayError`` in :mod:`server.replay`,
``RestoreError`` in :mod:`server.store.persist`, ``StoreError`` and its
``NameTaken`` / ``RenameTooSoon`` / ``NotFound`` in :mod:`server.store.db`); each
derives from this root, and the old import paths keep working.  Decision: one root
here, not one module of every error, so that a module's errors read beside the
code that raises them.
"""

from __future__ import annotations

from tui.ports import Refused


class ServerError(Refused):
    """A request the server understood and turned down; ``str(e)`` is one line for the player."""
