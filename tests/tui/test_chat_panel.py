"""The chat panel on both games' match screens (a lobby in this process, no SSH): Tab opens
it in place of the log, typing there never plays, Esc gives the keys back to the game, the
quick phrases need no typing."""

from __future__ import annotations

import pytest

from server import games
from server.backend import SSHBackend
from server.lobby.core import Lobby
from tests.support.wait import until
from tui.app import make_app
from tui.chat.panel import ChatPanel
from tui.pacing import NO_FLASH


async def _typed(pilot, text: str) -> None:
    for ch in text:
        await pilot.press("space" if ch == " " else ch)


@pytest.mark.parametrize("game", ["voltage", "high-voltage"])
async def test_typing_in_the_chat_never_plays_and_esc_gives_the_keys_back(game):
    lobby = Lobby(bot_delay=60.0)
    ann = lobby.connect("SHA256:ann", "ann")
    lobby.claim_name(ann, "ann")
    backend = SSHBackend(lobby, ann)
    handles = await backend.play_bot(games.game(game).bot_levels()[0], game)
    (h,) = handles
    app = make_app(backend, player_name="ann", pacing=NO_FLASH)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(backend.match_screen(handles))
        await pilot.pause()
        match = h.match
        await until(lambda: h.countdown is None and (game != "high-voltage" or match.actions),
                    "the match under way (High Voltage's 3, 2, 1 over)")
        await pilot.press("tab")
        panel = app.screen.query_one(ChatPanel)
        assert panel.is_open and panel.typing
        before = len(match.actions)
        await _typed(pilot, "1234567890 abcd space")
        await pilot.press("enter")
        await pilot.pause()
        assert [line.text for line in panel.lines] == ["1234567890 abcd space"]
        # nothing played by ann (High Voltage's bot may draw meanwhile: it does not wait for her; its
        # actions say whose they are, Voltage's are all hers here, the bot waiting a minute to move)
        assert [a for a in match.actions[before:] if getattr(a, "seat", h.seat) == h.seat] == []
        await pilot.press("f6")  # a quick phrase, from the input or not
        await pilot.press("escape")
        await pilot.pause()
        assert not panel.typing and panel.is_open
        assert [line.phrase for line in panel.lines][-1] == "gg"
        lines = lobby.chat.match_lines(match, h.seat, ann.seat_identity)
        assert [x.text or x.phrase for x in lines] == ["1234567890 abcd space", "gg"]
        await pilot.press("tab")  # open, the game's keys active: the log comes back
        await pilot.pause()
        assert not panel.is_open and app.screen.chat.log.display
        # A line while the chat is closed: the log's title counts it.
        await lobby.chat.say(identity="SHA256:zed", name="zed", guest=False, text="psst", room="players", host=match,
                             seat=1 - (h.seat or 0))
        await pilot.pause()
        assert "chat: 1 new (tab)" in str(app.screen.chat.log.border_title)
        await pilot.press("tab")  # the chat again, typing
        assert panel.is_open and panel.typing and not app.screen.chat.log.display
        assert "chat" not in str(app.screen.chat.log.border_title or "")
        await pilot.press("tab")  # ... and Tab leaves the input as Esc does
        assert panel.is_open and not panel.typing
    lobby_close = getattr(match, "close", None)
    if lobby_close is not None:
        lobby_close()
