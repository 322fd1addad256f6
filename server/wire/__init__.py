"""The declared wire between an edge and the host (see ``docs/design/wire.md``).

- :mod:`server.wire.codec`: the machinery: a :class:`~server.wire.codec.Table` of declared
  types (each a stable short tag and explicit fields), the specs of a field's value, and
  :class:`~server.wire.codec.CodecError`.
- :mod:`server.wire.types`: the values every game shares (notes, updates, lobby lines,
  history items, records for replays, refusals).
- :mod:`server.wire.messages`: what crosses between edge and host (lobby calls and their
  replies, intents and their results, pushes, seat descriptors, updates, snapshots).
- :mod:`server.wire.table`: the one table, the shared declarations plus each game's
  (declared with its entry in :mod:`server.games`).

This package's ``__init__`` imports nothing: :mod:`server.games` imports the codec, and
the table imports :mod:`server.games`.
"""
