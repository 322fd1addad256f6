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
