"""Every error the server turns a request down with is a ``tui.ports.Refused``:
a screen that catches ``Refused`` shows each one's line, whichever part said no."""

from __future__ import annotations

import pytest

from server.errors import RestoreError, ServerError
from server.lobby.core import Lobby
from server.lobby.models import LobbyError, NameRejected
from server.replay import ReplayError, replay_of
from server.store.db import MatchRecord, NameTaken, NotFound, RenameTooSoon, Store, StoreError
from tests.support.words import said
from tui.ports import Refused


def shown(request) -> str:
    """What a screen does with a backend call: the refusal, worded (by the tui: the server
    gives its code and params)."""
    try:
        request()
    except Refused as e:
        return said(e)
    return "done"


@pytest.mark.parametrize("kind", [ServerError, LobbyError, NameRejected, ReplayError, RestoreError, StoreError,
                                  NameTaken, NotFound])
def test_each_server_error_is_refused_and_a_value_error(kind):
    assert issubclass(kind, ServerError) and issubclass(kind, Refused) and issubclass(kind, ValueError)


def test_a_screen_catching_refused_shows_each_part_of_the_server_saying_no(tmp_path):
    lobby = Lobby()
    ann = lobby.connect("SHA256:ann")
    assert shown(lambda: lobby.claim_name(ann, "you")).startswith("'you' would read as a word")
    lobby.claim_name(ann, "ann")
    assert shown(lambda: lobby.join_room(ann, "ZZZZ")) == "no room ZZZZ"
    record = MatchRecord(id=7, game="no-such-game", seed=1, code="", status="finished", started=0.0,
                         ended=0.0, reason="", scores=None, seats=(), actions=())
    assert "cannot replay" in shown(lambda: replay_of(record))
    with Store.open(tmp_path) as store:
        store.upsert_player("SHA256:bob", "robert")
        store.upsert_player("SHA256:bob", "bob")  # a rename (a first name may change at once): an hour's hold
        assert shown(lambda: store.upsert_player("SHA256:bob", "bobby")).startswith("you took the name bob")
    assert shown(lambda: (_ for _ in ()).throw(RenameTooSoon("bob", 60))).startswith("you took the name bob")
    with pytest.raises(Refused) as e:
        raise RestoreError("does_not_replay", index=3, text="x", why="bad_action")
    assert e.value.code == "does_not_replay" and e.value.params["index"] == 3
