"""A replay's analysis on an edge: the coach runs on the host, this edge asks for it.

The host's coach (:mod:`server.coach`: one low-priority worker, one analysis per player at a
time, each kept with its match once made) is the embedded one; an edge holds none.  A
replay of a finished Voltage match opened here gets a :class:`RemoteAnalysis` (the
replay screen's :class:`~tui.games.voltage.chart.AnalysisSource`): the analysis the host
kept, read when the replay opens, else made on the host when the player asks for the
chart, its progress pushed to this edge (:class:`~server.wire.messages.AnalysisProgress`)
and shown as it comes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from server.wire import messages as M

if TYPE_CHECKING:  # pragma: no cover
    from server.edge.backend import EdgeClient

GAME = "voltage"  # the game the coach analyses (server.coach.GAME; not imported: its engine stays on the host)
KEPT_TIMEOUT = 10.0
#: An analysis is about a minute of the host's coach worker, longer behind others' (the
#: worker takes them in turn): the edge waits this long before it says the host did not answer.
ANALYSIS_TIMEOUT = 900.0


class RemoteAnalysis:
    """A finished match's analysis from the host's coach, for the player ``identity``."""

    def __init__(self, client: EdgeClient, match_id: int, identity: str | None, kept: Sequence[Any] | None) -> None:
        self.client = client
        self.match_id = match_id
        self.identity = identity
        self.kept = tuple(kept) if kept is not None else None

    def stored(self) -> Sequence[Any] | None:
        return self.kept

    async def run(self, progress: Callable[[int, int], None]) -> Sequence[Any]:
        """Made on the host now (or joined, if it is being made); raises the host's refusal
        (:class:`~tui.ports.Refused`: ``analysis_busy``, ``not_answering``)."""
        stop = self.client.follow_analysis(self.match_id, progress)
        try:
            moves = await self.client.ask("", M.ANALYSE, ANALYSIS_TIMEOUT, id=self.match_id, identity=self.identity)
        finally:
            stop()
        self.kept = tuple(moves)
        return self.kept


async def attach(client: EdgeClient, replay: Any, identity: str | None) -> Any:
    """Give a Voltage ``replay`` its analysis (``replay.analysis``), with the one the host kept
    if there is one; a replay of another game is returned as it is."""
    if replay.record.game != GAME:
        return replay
    kept = await client.ask("", M.KEPT_ANALYSIS, KEPT_TIMEOUT, id=replay.record.id, identity=identity)
    replay.analysis = RemoteAnalysis(client, replay.record.id, identity, kept)
    return replay
