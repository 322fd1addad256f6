"""The in-process bus: asyncio queues in one event loop (``voltage serve`` without options).

Same contract as the Redis bus (``tests/bus/test_bus_contract.py`` runs both), so
the host and the edge code never ask which one they have.  Decisions:

- Nothing is lost in-process, so ``ack`` has nothing to do and ``state`` stays
  ``"connected"``; a version gap can still happen (a slow subscriber's full queue
  drops its oldest update) and is handled the same way.
- Payloads are passed as they are (no copy: a view is built fresh for each update
  and never mutated afterwards).  ``strict=True`` sends each payload through a
  JSON round trip instead, so a test on the local bus fails where Redis would (a
  non-JSON value, a tuple turning into a list) and no object is shared.
- Dedupe of ``(session, seq)`` keeps each key ``dedupe_ttl`` seconds, as the Redis
  bus does, so both forget at the same time.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Sequence
from typing import Any

from server.bus import JSON, Bus, FullRequest, Intent, SeatMessage, Subscription, Update


class LocalBus(Bus):
    def __init__(self, *, strict: bool = False, dedupe_ttl: float = 600.0, lobby_interval: float = 1.0) -> None:
        super().__init__(lobby_interval=lobby_interval)
        self.strict = strict
        self.dedupe_ttl = dedupe_ttl
        self._intents: asyncio.Queue[Intent | FullRequest | None] = asyncio.Queue()
        self._seen: OrderedDict[tuple[str, int], float] = OrderedDict()  # (session, seq) -> expiry
        self._updates: dict[tuple[str, int], set[Subscription[Any]]] = {}
        self._messages: dict[tuple[str, int], set[Subscription[Any]]] = {}
        self._lobby_subs: set[Subscription[JSON]] = set()
        self._lobby_latest: JSON | None = None
        self._presence: dict[str, float] = {}  # edge -> expiry (monotonic)

    def _carry(self, payload: JSON) -> JSON:
        return json.loads(json.dumps(payload)) if self.strict else payload

    # -- intents --------------------------------------------------------------------
    async def send_intent(self, intent: Intent) -> bool:
        self._check_open()
        now = time.monotonic()
        while self._seen and next(iter(self._seen.values())) <= now:
            self._seen.popitem(last=False)
        key = (intent.session, intent.seq)
        if key in self._seen:
            return False
        self._seen[key] = now + self.dedupe_ttl
        carried = Intent(intent.match, intent.seat, intent.session, intent.seq, self._carry(intent.payload))
        self._intents.put_nowait(carried)
        return True

    async def request_full(self, match: str, seat: int) -> None:
        self._check_open()
        self._intents.put_nowait(FullRequest(match, seat))

    async def intents(self) -> AsyncIterator[Intent | FullRequest]:
        while True:
            item = await self._intents.get()
            if item is None:
                return
            yield item

    async def ack(self, item: Intent | FullRequest) -> None:
        return None

    # -- updates --------------------------------------------------------------------
    async def publish_update(self, match: str, seat: int, version: int, payload: JSON, *, full: bool = False) -> None:
        self._check_open()
        for sub in list(self._updates.get((match, seat), ())):
            sub.put(Update(match, seat, version, self._carry(payload), full))

    async def subscribe_updates(self, match: str, seat: int) -> Subscription[Update]:
        return self._subscribe((match, seat), (self._updates,))

    def _subscribe(self, key: tuple[str, int], routes: tuple[dict[tuple[str, int], set[Subscription[Any]]], ...]
                   ) -> Subscription[Any]:
        def drop(sub: Subscription[Any]) -> None:
            for route in routes:
                subs = route.get(key)
                if subs is not None:
                    subs.discard(sub)
                    if not subs:
                        del route[key]

        sub: Subscription[Any] = Subscription(drop)
        for route in routes:
            route.setdefault(key, set()).add(sub)
        return sub

    # -- a seat's second stream -----------------------------------------------------
    async def _publish_messages(self, messages: Sequence[SeatMessage]) -> None:
        self._check_open()
        for m in messages:
            for sub in list(self._messages.get((m.match, m.seat), ())):
                sub.put(SeatMessage(m.match, m.seat, self._carry(m.payload)))

    async def subscribe_seat(self, match: str, seat: int) -> Subscription[Update | SeatMessage]:
        return self._subscribe((match, seat), (self._updates, self._messages))

    # -- lobby ----------------------------------------------------------------------
    async def _publish_lobby_now(self, snapshot: JSON) -> None:
        self._lobby_latest = self._carry(snapshot)
        for sub in list(self._lobby_subs):
            sub.put(self._lobby_latest)

    async def lobby(self) -> Subscription[JSON]:
        sub: Subscription[JSON] = Subscription(self._lobby_subs.discard)
        if self._lobby_latest is not None:
            sub.put(self._lobby_latest)
        self._lobby_subs.add(sub)
        return sub

    # -- presence -------------------------------------------------------------------
    async def heartbeat(self, edge_id: str, ttl: float) -> None:
        self._presence[edge_id] = time.monotonic() + ttl

    async def alive_edges(self) -> set[str]:
        now = time.monotonic()
        for edge in [e for e, expiry in self._presence.items() if expiry <= now]:
            del self._presence[edge]
        return set(self._presence)

    # -- lifetime -------------------------------------------------------------------
    async def close(self) -> None:
        if self.state == "closed":
            return
        await super().close()
        self._intents.put_nowait(None)
        for subs in [*self._updates.values(), *self._messages.values()]:
            for sub in list(subs):
                sub.end()
        for lobby_sub in list(self._lobby_subs):
            lobby_sub.end()
        self._updates.clear()
        self._messages.clear()
        self._lobby_subs.clear()
