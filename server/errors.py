"""The one root of the errors the server turns a request down with.

:class:`ServerError` is a :class:`tui.ports.Refused` (itself a ``ValueError``): a
screen catches ``Refused`` and words it (:func:`tui.words.refusal`), whichever part of the server said
no.  The layers are server > tui > engine, so the server may import ``tui.ports``
(a module of protocols, no Textual).

Like every :class:`~tui.ports.Refused`, each carries a ``code`` and ``params``, never a
sentence: the tui words it for the player.  The errors stay defined where they are
raised (``LobbyError`` and ``NameRejected`` in :mod:`server.lobby.models`,
``ReplayError`` in :mod:`server.replay`, ``StoreError`` and its ``NameTaken`` /
``RenameTooSoon`` / ``NotFound`` in :mod:`server.store.db`), but for
:class:`RestoreError`, which the hosts' restores and the store's restore share.
Decision: one root here, not one module of every error, so that a module's errors read
beside the code that raises them.
"""

from __future__ import annotations

from tui.ports import Refused


class ServerError(Refused):
    """A request the server understood and turned down (its ``code`` and ``params``)."""


class RestoreError(ServerError):
    """A stored match that cannot be brought back (a log that no longer replays, a time
    control that cannot be read); logged with its code and params, the match left as it is."""
