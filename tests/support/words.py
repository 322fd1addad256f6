"""What a player reads, for tests: engine errors, server refusals and log entries worded
by the tui (in English), so a test can still say the sentence a player sees while the
engine and the server carry only codes and parameters."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from tui.games.registry import words
from tui.i18n import ENGLISH, language


def said(error: BaseException, game: str = "") -> str:
    """``error`` (an engine error or a refusal) as the player reads it (``game``: whose words)."""
    with language(ENGLISH):
        return words(game).refusal(error)


def lines(game: str, entries: Sequence[Any], names: Sequence[str]) -> list[str]:
    """Log entries (events, notes) as the player reads them."""
    with language(ENGLISH):
        return words(game).lines(entries, names)


@contextlib.contextmanager
def refused(match: str, cls: type[BaseException] = ValueError, game: str = "") -> Iterator[Any]:
    """``pytest.raises(cls)`` whose error, as the player reads it, matches the regex ``match``."""
    with pytest.raises(cls) as info:
        yield info
    text = said(info.value, game)
    assert re.search(match, text), f"{text!r} does not match {match!r} ({info.value!s})"


def log_of(x: Any) -> list[str]:
    """The log of a match host or a seat handle (``game``, ``log``, ``names``) as its screen reads it."""
    return lines(x.game, x.log, x.names)


def feed_of(host: Any, seat: int | None) -> list[str]:
    """``seat``'s feed (its private entries too) as its screen reads it."""
    return lines(host.game, host.feed(seat), host.names)


def update_lines(update: Any, game: str, names: Sequence[str] | None = None) -> list[str]:
    """An update's new entries as its screen reads them (with the update's names)."""
    return lines(game, update.entries, names if names is not None else update.names)


def notice_of(notes: Any) -> str:
    """A status notice (its notes) as the screens read it ("" for none)."""
    from tui import words as W

    with language(ENGLISH):
        return W.notice(notes)


def history_line(record: Any, identity: str | None) -> str:
    """A stored match as the player's "Your matches" list words it (its longest form)."""
    from server.store.persist import history_item
    from tui import words as W

    with language(ENGLISH):
        return W.history_forms(history_item(record, identity))[0]


def status_of(player: Any) -> str:
    """What a player online is at, as the lobby screen words it (``playing ABCD``)."""
    from tui import words as W

    with language(ENGLISH):
        return W.status(player.status, player.where)
