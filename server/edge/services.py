"""The session layer's services on an edge of a split server: every answer comes from the
host over Redis, through the edge's :class:`~server.edge.backend.EdgeClient` (the host has
the lobby and the store; see :mod:`server.cluster.host` for its side)."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping
from typing import Any, TypeVar

from server.edge.backend import EdgeClient
from server.session.identity import Identity
from server.session.services import Answer, Opened
from server.wire import messages as M
from tui.i18n import current
from tui.ports import Refused

T = TypeVar("T")
LINK_TIMEOUT = 5.0  # a linked-browser call (the host answers from its store at once)
#: the refusals that say the host could not be reached (Redis away, the host restarting)
UNREACHED = frozenset({"not_answering", "host_away"})


async def reached(call: Awaitable[T]) -> T:
    """``call``'s answer; a host this edge cannot reach (Redis away, the host down) as one
    refusal, ``unreachable``, which a command says in one line (never a traceback)."""
    try:
        return await call
    except Refused as error:
        if error.code in UNREACHED:
            raise Refused("unreachable") from None
        raise


class EdgeServices:
    def __init__(self, client: EdgeClient) -> None:
        self.client = client

    @property
    def keeps_records(self) -> bool:
        return True  # the host's store (a host without one says so in its answers)

    def start(self) -> int:
        return 0  # the host restores the matches

    def announce(self, address: str) -> None:
        self.client.ssh_line = address

    def close(self) -> None:
        pass  # (the client is its owner's to close)

    async def open(self, identity: Identity, initial: tuple[str, str] | None, env: Mapping[str, str]) -> Opened:
        backend = await self.client.open_session(identity.key, identity.username, initial, dict(env))
        return Opened(backend, backend.close)

    async def open_replay(self, match_id: int, identity: Identity) -> Any:
        from tui.screens.replay import ReplayBackend

        return ReplayBackend(await self.client.replay(match_id, identity.key))

    async def who(self) -> str:
        return await reached(self.client.who_text(current()))

    async def kept_language(self, key: str) -> str | None:
        return await reached(self.client.kept_language(key))

    async def leaderboard(self) -> Answer:
        return await self._command(["leaderboard"])

    async def export(self, match_id: int) -> Answer:
        return await self._command(["export", str(match_id)])

    async def link_code(self, key: str) -> str:
        return str(await reached(self.client.ask("", M.LINK_CODE, LINK_TIMEOUT, key=key)))

    async def redeem_link(self, code: str, label: str) -> tuple[str, str] | None:
        got = await reached(self.client.ask("", M.REDEEM_LINK, LINK_TIMEOUT, code=code, label=label))
        return (str(got[0]), str(got[1])) if got else None

    async def browser_key(self, token: str) -> str | None:
        got = await reached(self.client.ask("", M.BROWSER_KEY, LINK_TIMEOUT, token=token))
        return str(got) if got else None

    async def unlink(self, key: str) -> int:
        return int(await reached(self.client.ask("", M.UNLINK, LINK_TIMEOUT, key=key)))

    async def _command(self, words: list[str]) -> Answer:
        got = await reached(self.client.command(words, current()))
        return Answer(got.code, out=got.out, err=got.err)
