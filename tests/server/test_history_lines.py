"""A player's own finished matches in the lobby: the result always shows, in words that
say what happened (a resignation says so), shortened by meaning on a narrow list."""

from __future__ import annotations

import asyncio
import re

import pytest

from server.backend import SSHBackend
from server.lobby.core import Lobby
from tests.support.store import KA, KB, finished_match
from tui import words as W


def history(store, width=None, key=KA, name="alice"):
    """The lines of the lobby's "Your matches" list at ``width`` (the backend gives the data,
    the tui words it)."""
    lobby = Lobby(store=store, seed=1)
    items = asyncio.run(SSHBackend(lobby, lobby.connect(key, name)).history())
    return [line for _id, line in W.history_lines(items, width)]


def test_a_resigned_match_says_so(store):
    mid = store.create_match("voltage", 6, [{"name": "Alice", "identity": KA}, {"name": "Bob", "identity": KB}])
    store.finish_match(mid, [1, 2], "resignation", (0, 0))
    (line,) = history(store)
    assert "won by resignation (0-0)" in line and "won 0-0" not in line
    (bob_line,) = history(store, key=KB, name="bob")
    assert "lost by resignation (0-0)" in bob_line


@pytest.mark.parametrize("width", [200, 60, 46, 34, 28])
def test_every_line_shows_its_result_in_one_form_that_fits(store, width):
    finished_match(store, 11)
    mid = store.create_match("high-voltage", 5, [
        {"name": "Alice", "identity": KA}, {"name": "Bot (slow)", "identity": None, "bot": "slow"},
        {"name": "Bob", "identity": KB}])
    store.finish_match(mid, [2, 3, 1], "won", (3, 12, 0))
    hv, voltage = history(store, width)
    for line in (hv, voltage):
        assert len(line) <= width, line
    assert "2nd" in hv and ("lost" in voltage or "won" in voltage or "drew" in voltage)
    if width >= 200:
        assert "High Voltage v Bot (slow), Bob" in hv
    # One form for the whole list: the date (MM-DD) shows on both lines or on neither.
    def dated(line):
        return re.search(r"\b\d\d-\d\d\b", line) is not None

    assert dated(hv) == dated(voltage)
