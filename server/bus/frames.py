"""The bus's own frames on Redis, declared like every other message on the wire
(:mod:`server.wire.codec`): what the Redis bus and the calls' lists put around a payload.

A payload is JSON the layer above made from its own declared messages
(:mod:`server.wire.messages`) and decodes itself (``RAW`` here): the bus carries it and
never looks inside.  :data:`FRAMES` encodes and decodes the frames alone; the one table
of the wire (:mod:`server.wire.table`) lists them too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.wire.codec import BOOL, FLOAT, INT, RAW, STR, Declared, Table, opt, record


@dataclass(frozen=True)
class IntentFrame:
    """An intent on the intents stream (see :class:`server.bus.Intent`)."""

    match: str
    seat: int
    session: str
    seq: int
    payload: Any


@dataclass(frozen=True)
class FullFrame:
    """A request for the full view of ``(match, seat)``, on the intents stream."""

    match: str
    seat: int


@dataclass(frozen=True)
class UpdateFrame:
    """An update on a seat's updates channel, at ``version`` (``full``: the whole present)."""

    version: int
    full: bool
    payload: Any


@dataclass(frozen=True)
class MessageFrame:
    """A message on a seat's second channel (never versioned)."""

    payload: Any


@dataclass(frozen=True)
class LobbyFrame:
    """A lobby snapshot, with its publisher's ``time_ns`` (a subscriber never goes back)."""

    time_ns: int
    payload: Any


@dataclass(frozen=True)
class RequestFrame:
    """A call from an edge's session to the host (:mod:`server.bus.rpc`): where its answer
    goes (``reply``: a list key), until when it is wanted (wall clock), and the call."""

    id: str
    edge: str
    session: str
    deadline: float
    reply: str
    payload: Any


@dataclass(frozen=True)
class InboxFrame:
    """What the host puts in an edge's inbox: the answer to request ``id`` (or to an
    intent), or, with no id, a push."""

    id: str | None
    payload: Any


DECLARED: tuple[Declared, ...] = (
    record(IntentFrame, "bus.intent", match=STR, seat=INT, session=STR, seq=INT, payload=RAW),
    record(FullFrame, "bus.full", match=STR, seat=INT),
    record(UpdateFrame, "bus.update", version=INT, full=BOOL, payload=RAW),
    record(MessageFrame, "bus.message", payload=RAW),
    record(LobbyFrame, "bus.lobby", time_ns=INT, payload=RAW),
    record(RequestFrame, "rpc.request", id=STR, edge=STR, session=STR, deadline=FLOAT, reply=STR, payload=RAW),
    record(InboxFrame, "rpc.inbox", id=opt(STR), payload=RAW),
)

FRAMES = Table(DECLARED)
