"""What a session and the commands ask of the server behind them: one interface,
:class:`Services`, with two implementations, so that nothing in the session layer asks
which kind of server it runs in.

- :class:`LocalServices`: the lobby and the store of this process (``voltage serve``).
- :class:`server.edge.services.EdgeServices`: an edge of a split server, whose lobby and
  store are the host's, reached over Redis.

A player's session gets its backend (the tui's door to the lobby) from :meth:`Services.open`;
the commands get ``who``, the leaderboard, a match's export and a replay, and the browsers
linked to a key (``link``, ``unlink``; the web transport redeems a code and recognises a
linked browser's token): :class:`StoreLinks` over the store, which an edge's host runs too
(:func:`links_answer`).  The answers
keep the words the players read today; the leaderboard's and the export's come as an
:class:`Answer` (exit status, output, error), which is also what an edge's host sends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from server.session.identity import Identity

if TYPE_CHECKING:
    from server.lobby.core import Lobby
    from tui.ports import LobbyBackend

def no_records() -> str:
    """Why ``leaderboard``, ``export`` and ``replay`` have nothing to read, in the current context's language."""
    from tui.i18n import _

    return "voltage: " + _("this server keeps no matches or ratings") + "\n"


@dataclass(frozen=True)
class Answer:
    """A command's answer: its exit status, what goes to its output and to its error stream."""

    code: int
    out: str = ""
    err: str = ""


@dataclass
class Opened:
    """A player's backend for one session (a :class:`tui.ports.LobbyBackend`), and what to
    call once the session has ended."""

    backend: LobbyBackend
    close: Callable[[], None]


class Services(Protocol):
    @property
    def keeps_records(self) -> bool:
        """Matches and ratings are kept (``leaderboard``, ``export`` and ``replay`` have something to read)."""
        ...

    def start(self) -> int:
        """Before the first session (needs a running loop): bring back what a restart left
        unfinished; how many matches came back."""
        ...

    def announce(self, address: str) -> None:
        """How players reach this server (``ssh -p 2222 HOST``), for the screens that tell a friend."""
        ...

    def close(self) -> None:
        """The server is stopping (its sessions are gone): let go of what runs here."""
        ...

    async def open(self, identity: Identity, initial: tuple[str, str] | None, env: Mapping[str, str]) -> Opened:
        """The backend of a new player session (``initial``: ``("join" | "watch", CODE)``);
        raises :class:`tui.ports.Refused` with the line to show when there is none."""
        ...

    async def open_replay(self, match_id: int, identity: Identity) -> Any:
        """The backend of an app that shows one finished match to ``identity``; raises
        :class:`server.replay.ReplayError` saying why not."""
        ...

    async def who(self) -> str: ...  # worded in the current context's language

    async def kept_language(self, key: str) -> str | None: ...  # the language a key chose (None: none)

    async def leaderboard(self) -> Answer: ...

    async def export(self, match_id: int) -> Answer: ...

    async def link_code(self, key: str) -> str:
        """A one-time code that links a browser to the key ``key`` (as shown: ``ABCD-EFGH``);
        raises :class:`tui.ports.Refused` (``links_need_store``, ``link_unknown_key``)."""
        ...

    async def redeem_link(self, code: str, label: str) -> tuple[str, str] | None:
        """Use a link code up: ``(token, key)`` for the browser it links (``label``: what the
        browser says it is), or None when it is no live code."""
        ...

    async def browser_key(self, token: str) -> str | None:
        """The key a browser's token is linked to (None: none: a guest)."""
        ...

    async def unlink(self, key: str) -> int:
        """Forget every browser linked to ``key``; how many there were."""
        ...


class StoreLinks:
    """The linked browsers' operations on a store (None: a server that keeps nothing, which
    links nothing), each refusal a :class:`tui.ports.Refused` with its code."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def link_code(self, key: str) -> str:
        from server.store.db import StoreError
        from tui.ports import Refused

        if self.store is None:
            raise Refused("links_need_store")
        try:
            return str(self.store.new_link_code(key))
        except StoreError:
            raise Refused("link_unknown_key") from None

    def redeem(self, code: str, label: str) -> tuple[str, str] | None:
        return None if self.store is None else self.store.redeem_link_code(code, label)

    def browser_key(self, token: str) -> str | None:
        return None if self.store is None else self.store.browser_identity(token)

    def unlink(self, key: str) -> int:
        return 0 if self.store is None else int(self.store.unlink_browsers(key))

    def browsers(self, key: str | None) -> list[Any]:
        """The key's browsers as the settings screen lists them (:class:`tui.ports.LinkedBrowser`)."""
        from tui.ports import LinkedBrowser

        if self.store is None or not key:
            return []
        return [LinkedBrowser(b.label, b.created, b.last_seen) for b in self.store.browsers(key)]


def store_language(store: Any, key: str) -> str | None:
    """The language ``key`` chose in the settings, read from ``store`` (None: none, or nothing kept)."""
    if store is None:
        return None
    value = store.settings(key).get("language")
    return value if isinstance(value, str) else None


def leaderboard_answer(store: Any) -> Answer:
    """``leaderboard`` read from ``store`` (None: a server that keeps nothing)."""
    from server.store import persist

    if store is None:
        return Answer(1, err=no_records())
    return Answer(0, out=persist.text_leaderboard(store))


def export_answer(store: Any, match_id: str) -> Answer:
    """``export MATCH_ID`` read from ``store``: the match as JSON, or why not."""
    from server.store import persist

    if store is None:
        return Answer(1, err=no_records())
    code, text = persist.export_command(store, match_id)
    return Answer(code, out=text) if code == 0 else Answer(code, err=f"voltage: {text}")


class LocalServices:
    """The lobby and the store in this process."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.links = StoreLinks(lobby.store)

    @property
    def store(self) -> Any:
        return self.lobby.store  # server.store.db.Store, or None: nothing kept

    @property
    def keeps_records(self) -> bool:
        return self.store is not None

    def start(self) -> int:
        return len(self.lobby.restore())

    def announce(self, address: str) -> None:
        self.lobby.ssh_line = address

    def close(self) -> None:
        for h in list(self.lobby.matches.values()):
            h.match.close()  # (the store keeps every unfinished match for the next start)

    async def open(self, identity: Identity, initial: tuple[str, str] | None, env: Mapping[str, str]) -> Opened:
        from server.backend import SSHBackend

        lobby = self.lobby
        player = lobby.connect(identity.key, identity.username)
        backend = SSHBackend(lobby, player, initial=initial, env=dict(env))

        def close() -> None:
            backend.close()
            lobby.leave(player)

        return Opened(backend, close)

    async def open_replay(self, match_id: int, identity: Identity) -> Any:
        from server.coach import attach_analysis
        from server.replay import Replay
        from tui.screens.replay import ReplayBackend

        replay = attach_analysis(Replay.load(self.store, match_id, identity.key), self.store, identity.key)
        return ReplayBackend(replay, player=self.lobby.connect(identity.key, identity.username))

    async def who(self) -> str:
        return self.lobby.who_text()

    async def kept_language(self, key: str) -> str | None:
        return store_language(self.store, key)

    async def leaderboard(self) -> Answer:
        return leaderboard_answer(self.store)

    async def export(self, match_id: int) -> Answer:
        return export_answer(self.store, str(match_id))

    async def link_code(self, key: str) -> str:
        return self.links.link_code(key)

    async def redeem_link(self, code: str, label: str) -> tuple[str, str] | None:
        return self.links.redeem(code, label)

    async def browser_key(self, token: str) -> str | None:
        return self.links.browser_key(token)

    async def unlink(self, key: str) -> int:
        return self.links.unlink(key)
