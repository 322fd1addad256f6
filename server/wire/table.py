"""The one table of the wire: the shared values (:mod:`server.wire.types`), the messages
(:mod:`server.wire.messages`), the bus's own frames (:mod:`server.bus.frames`), and each
game's types and seat calls, taken from its entry in :mod:`server.games` (a game registered
later, a test's toy, is found at the first value of it).

``WIRE.encode(value)`` / ``WIRE.decode(data)`` for any declared value (tagged);
``WIRE.encoder(spec)`` / ``WIRE.decoder(spec)`` for a call's declared result.
"""

from __future__ import annotations

from collections.abc import Iterator

from server import games
from server.bus import frames
from server.wire import messages, types
from server.wire.codec import Declared, Table


def _games() -> Iterator[Declared]:
    for game in games.GAMES.values():
        yield from game.wire()
        yield from game.calls


WIRE = Table([*types.DECLARED, *messages.DECLARED, *frames.DECLARED], more=_games)
WIRE.refresh()
