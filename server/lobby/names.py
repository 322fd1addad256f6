"""Names in the lobby: what a name may be, one name per key, a stored key's own names.

- :func:`check_name` says what a name may be (shown on other people's screens and
  in their logs, so no control characters and no words that read as a sentence).
- One name per key: a name online, or kept for a key player dropped from a running
  match, is taken for everyone else; another session of the *same* key does not
  count (claiming the name makes the newest session take over: :mod:`server.lobby.away`).
- A name that looks like one taken or owned (``AIice`` for ``Alice``, ``B0b`` for ``Bob``:
  one confusable skeleton, :mod:`server.confusables`) is refused as well, saying which.
- With a store, a name once used by a key belongs to that key (a guest may not use
  it), and a key may change its name once per cooldown (the store's
  ``RenameTooSoon``, turned into :class:`~server.lobby.models.NameRejected`).

:class:`Names` is one part the :class:`~server.lobby.core.Lobby` holds; what it needs
of the lobby is :class:`NamesHost`.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

from server import confusables
from server.lobby.models import Hosted, NameRejected, Player

if TYPE_CHECKING:  # pragma: no cover
    from server.store.db import Store

log = logging.getLogger(__name__)

NAME_MAX = 16
_NAME_RE = re.compile(r"[A-Za-z0-9_.\-]+(?: [A-Za-z0-9_.\-]+)*")
_NAME_DROP = re.compile(r"[^A-Za-z0-9_.\-]")
# Names that would read as words in someone else's log and results ("You goes first.", "Nobody wins.").
_MISLEADING = frozenset({"you", "nobody"})


def check_name(name: str) -> str:
    """The name as it will be shown, or :class:`NameRejected` saying what is wrong."""
    name = name.strip()
    if not name:
        raise NameRejected("name_needed")
    if len(name) > NAME_MAX:
        raise NameRejected("name_too_long", most=NAME_MAX)
    if not _NAME_RE.fullmatch(name):
        raise NameRejected("name_characters")
    if name.casefold() in _MISLEADING:
        raise NameRejected("name_misleading", name=name)
    return name


def name_from_username(username: str | None) -> str:
    """A name to prefill from an SSH username: unsafe characters dropped, cut to size."""
    name = _NAME_DROP.sub("", username or "")[:NAME_MAX]
    return name if name and name.casefold() not in _MISLEADING else "guest"


def same_key(a: Player, b: Player | None) -> bool:
    """``a`` and ``b`` are sessions of one key (a guest is nobody's)."""
    return b is not None and bool(a.identity) and a.identity == b.identity


class NamesHost(Protocol):
    """What :class:`Names` needs of its lobby (the façade implements it)."""

    store: Store | None  # the names keys own (None: nothing kept)
    matches: dict[str, Hosted]  # a dropped key player's name is kept while its match runs

    @property
    def players(self) -> dict[int, Player]:
        """The players online, by session id (a claimed name puts one there)."""
        ...

    def supersede(self, old: Player, new: Player) -> None:
        """``new``, a newer session of ``old``'s key, takes over from it."""
        ...

    def changed(self) -> None:
        """Tell the lobby screens (soon) that something changed."""
        ...


class Names:
    """Who goes by which name (see the module docstring)."""

    def __init__(self, lobby: NamesHost) -> None:
        self.lobby = lobby

    def connect(self, identity: str | None, username: str = "") -> Player:
        """A new session: a player not yet online (no name yet)."""
        if identity and self.lobby.store is not None:
            try:
                self.lobby.store.touch_player(identity)
            except Exception:
                log.exception("could not note player %s as seen", identity)
        return Player(identity=identity, username=username)

    def name_taken(self, name: str, by: Player | None = None) -> bool:
        """Is ``name`` in use by someone else online, or kept for a dropped key player?

        Another session of ``by``'s own key does not count: claiming the name makes
        the newest session take over (see :meth:`claim_name`).  A guest's name is
        free again as soon as the guest is gone."""
        key = name.lower()
        return any(other.lower() == key for other in self._others(by))

    def looks_taken(self, name: str, by: Player | None = None) -> str | None:
        """The name in use by someone else (as :meth:`name_taken` counts them) that ``name`` looks
        like but is not (:mod:`server.confusables`), or None."""
        key, look = name.lower(), confusables.skeleton(name)
        return next((o for o in self._others(by) if o.lower() != key and confusables.skeleton(o) == look), None)

    def _others(self, by: Player | None) -> Iterator[str]:
        """The names others go by: online, and kept for dropped key players (see :meth:`name_taken`)."""
        for p in self.lobby.players.values():
            if p is not by and not same_key(p, by):
                yield p.name
        # Names of dropped key players still seated in a running match are kept for them.
        for h in self.lobby.matches.values():
            if not h.running:
                continue
            for i, human in enumerate(h.humans):
                if human is not None and human is not by and human.id not in self.lobby.players:
                    if not human.identity:
                        continue  # a guest cannot come back: its name is free
                    if by is not None and by.identity and h.match.seats[i].identity == by.identity:
                        continue
                    yield human.name

    def other_session(self, player: Player) -> Player | None:
        """Another online session of ``player``'s key, if there is one."""
        if not player.identity:
            return None
        for p in self.lobby.players.values():
            if p is not player and p.identity == player.identity:
                return p
        return None

    def stored_name(self, player: Player) -> str | None:
        """The name ``player``'s key goes by in the store (None: a guest, or a new key)."""
        if not player.identity or self.lobby.store is None:
            return None
        try:
            known = self.lobby.store.player(player.identity)
        except Exception:
            log.exception("could not read player %s", player.identity)
            return None
        return known.name if known is not None else None

    def rename_wait(self, player: Player) -> float:
        """Seconds until ``player``'s key may take another name (0: now, or a guest)."""
        if not player.identity or self.lobby.store is None:
            return 0.0
        try:
            return float(self.lobby.store.rename_wait(player.identity))
        except Exception:
            log.exception("could not read player %s", player.identity)
            return 0.0

    def suggest_name(self, username: str | None, player: Player | None = None) -> str:
        # A returning key: the name it goes by (another session of this key holding it
        # does not count: see name_taken).
        stored = self.stored_name(player) if player is not None else None
        if stored is not None and not self.name_taken(stored, player):
            try:
                return check_name(stored)
            except NameRejected:
                pass
        base = name_from_username(username)
        if self._free(base, player):
            return base
        for n in itertools.count(2):
            suffix = str(n)
            name = base[: NAME_MAX - len(suffix)] + suffix
            if self._free(name, player):
                return name
        raise AssertionError  # pragma: no cover

    def _free(self, name: str, player: Player | None) -> bool:
        """Would ``name`` be accepted for ``player`` (a name to suggest)?"""
        return not self.name_taken(name, player) and self.looks_taken(name, player) is None \
            and not self._reserved(name, player)

    def _reserved(self, name: str, player: Player | None) -> bool:
        """Is ``name`` kept for another key (stored players own the names they used)?"""
        if self.lobby.store is None:
            return False
        try:
            return not self.lobby.store.name_free_for(name, player.identity if player is not None else None)
        except Exception:
            log.exception("could not check the name %r", name)
            return False

    def claim_name(self, player: Player, name: str) -> str:
        """Put ``player`` online as ``name`` (checked); raises :class:`NameRejected`.

        With a store, a name once used by a key belongs to that key: a key
        player is recorded under it (reserving it), a guest may not use it."""
        name = check_name(name)
        if self.name_taken(name, player):
            raise NameRejected("name_playing", name=name)
        like = self.looks_taken(name, player)
        if like is not None:
            raise NameRejected("name_looks_like", name=name, like=like)
        self._keep_name(player, name)
        old = self.other_session(player)
        if old is not None:
            self.lobby.supersede(old, player)
        player.name = name
        player.superseded = False
        self.lobby.players[player.id] = player
        self.lobby.changed()
        return name

    def _keep_name(self, player: Player, name: str) -> None:
        store = self.lobby.store
        if store is None:
            return
        from server.store.db import NameLookalike, NameTaken, RenameTooSoon

        try:
            if player.identity:
                store.upsert_player(player.identity, name)
            elif store.name_owner(name) is not None:
                raise NameTaken(name)
            elif (like := store.name_like(name, None)) is not None:
                raise NameLookalike(name, like)
        except RenameTooSoon as e:
            raise NameRejected(e.code, **e.params) from None
        except NameLookalike as e:
            raise NameRejected("name_looks_like", name=name, like=e.params["like"]) from None
        except NameTaken:
            if player.identity:
                raise NameRejected("name_of_other_key", name=name) from None
            raise NameRejected(
                "name_of_a_key", name=name
            ) from None
        except Exception:  # a storage problem must not keep anyone out of the lobby
            log.exception("could not record the name %r", name)
