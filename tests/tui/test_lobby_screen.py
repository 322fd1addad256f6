"""The lobby screen (a real lobby and backend, driven by a Pilot): it fits or says how
large the terminal must be, its title is shortened by meaning, its key line names every
key that works, the panel with the focus is the one outlined, "Your matches" opens on
the newest match; and its settings screen: each choice at once, a guest's for the
session, NO_COLOR shown with its reason, a rename through the lobby's cooldown."""

from __future__ import annotations

import re

from server.backend import SSHBackend
from server.lobby.core import Lobby
from tests.support.store import KA, KB, finished_match
from tests.support.wait import until
from tui.app import make_app
from tui.screens.lobby import LobbyScreen
from tui.widgets.menu import Menu


def lines_of(app) -> list[str]:
    """The screen's rows as plain text (from the SVG Textual exports)."""
    import html

    svg = app.export_screenshot()
    rows: dict[str, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        x, y, t = float(m.group(1)), m.group(2), html.unescape(m.group(3))
        rows.setdefault(y, []).append((x, t.replace("\xa0", " ")))
    out = []
    for y in sorted(rows, key=float):
        out.append("".join(t for _x, t in sorted(rows[y])))
    return out


def colours_drawn(app) -> set:
    """Every colour in the segments the screen draws now (through the app's filters)."""
    found = set()
    for strip in app.screen._compositor.render_strips():
        for seg in strip:
            style = seg.style
            if style is not None:
                found |= {c for c in (style.color, style.bgcolor) if c is not None and not c.is_default}
    return found


def lobby_app(store, identity=KA, username="alice"):
    lobby = Lobby(store=store, seed=1)
    backend = SSHBackend(lobby, lobby.connect(identity, username))
    return make_app(backend, player_name=username), backend


async def enter_lobby(pilot):
    await pilot.press("enter")
    await pilot.pause()


async def test_a_terminal_too_small_for_the_lobby_says_how_large_it_must_be(store):
    app, _ = lobby_app(store)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        text = "\n".join(lines_of(app))
        assert "This terminal is 60 columns by 20 rows" in text
        assert "at least 80 columns by 24 rows" in text
        assert "Quick match" not in text
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        text = "\n".join(lines_of(app))
        assert "Quick match: Voltage" in text and "Leaderboard" in text


async def test_while_too_small_keys_go_nowhere_but_rules_and_quit(store):
    from tui.screens.rules import RulesScreen

    app, backend = lobby_app(store, identity="SHA256:newkey", username="zed")
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        await pilot.press("Z", "e", "d", "enter")  # into a hidden name box: nothing happens
        await pilot.pause()
        assert not backend.named and [p.name for p in backend.snapshot().players] == []
        await pilot.press("question_mark")  # what the message offers: the rules
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        await pilot.press("escape")
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        name = app.screen.query_one("#name")
        assert name.has_focus and "Zed" not in name.value and "?" not in name.value
        await pilot.press("enter")
        await pilot.pause()
        assert backend.named


async def test_the_focus_is_where_it_was_after_the_terminal_was_too_small(store):
    app, _ = lobby_app(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        play, history = app.screen.query_one("#choices", Menu), app.screen.query_one("#history", Menu)
        assert play.has_focus
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        await pilot.press("h")  # ignored meanwhile
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert play.has_focus
        await pilot.press("down")
        await pilot.pause()
        assert play.index == 1  # Down works at once, with no Tab first
        await pilot.press("h")
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert history.has_focus


async def test_the_title_is_shortened_by_meaning_never_cut(store):
    finished_match(store, 11)
    # A second game rated too: two ratings in the title.
    mid = store.create_match("high-voltage", 5, [{"name": "Alice", "identity": KA}, {"name": "Bob", "identity": KB}])
    store.finish_match(mid, [1, 2], "won", (0, 12))
    app, backend = lobby_app(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        ratings = await backend.ratings()
        assert len(ratings) == 2
        title = lines_of(app)[0].rstrip()
        assert len(title) <= 80
        for _game, shown, _games in ratings:
            assert str(shown) in title
        # Every word of the title is whole: it ends in the last rating, not a cut "(3".
        assert title.endswith(f" {ratings[-1][1]}"), title
        await pilot.resize_terminal(200, 30)
        await pilot.pause()
        wide = lines_of(app)[0]
        assert "(1 rated)" in wide and "High Voltage" in wide


async def test_the_key_line_names_rules_and_quit(store):
    app, _ = lobby_app(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        bottom = lines_of(app)[-1]
        assert "? rules" in bottom and "^q quit" in bottom
        assert len(bottom.rstrip()) <= 80


async def test_the_outlined_panel_is_the_one_with_the_focus(store):
    app, _ = lobby_app(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        play, matches = app.screen.query_one("#choices", Menu), app.screen.query_one("#matches", Menu)
        assert play.has_focus and play.styles.border_top != matches.styles.border_top
        focused_border = play.styles.border_top
        await pilot.press("w")
        await pilot.pause()
        assert matches.has_focus
        assert matches.styles.border_top == focused_border
        assert play.styles.border_top != focused_border


async def test_your_matches_open_on_the_newest_match_after_a_new_one(store):
    finished_match(store, 11)
    finished_match(store, 12)
    app, backend = lobby_app(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        history = app.screen.query_one("#history", Menu)
        await pilot.press("h", "down")
        assert history.index == 1
        newest = finished_match(store, 13)
        assert isinstance(app.screen, LobbyScreen)
        await app.screen._refresh_history()  # (what the lobby does when it shows again)
        await pilot.pause()
        assert history.items[0][0] == f"replay:{newest}"
        assert history.index == 0


async def test_your_matches_begin_with_the_record_against_bots(store):
    mid = store.create_match("voltage", 3, [{"name": "Alice", "identity": KA}, {"name": "Bot (easy)", "bot": "easy"}])
    store.finish_match(mid, [1, 2], "four sets", [4, 2])
    finished_match(store, 11)
    app, _ = lobby_app(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        history = app.screen.query_one("#history", Menu)
        assert history.items[0][0].startswith("-") and "v bots" in history.items[0][1].plain
        assert "easy 1-0" in "\n".join(lines_of(app))
        await pilot.press("h")
        await pilot.pause()
        assert history.items[history.index][0].startswith("replay:")  # (the record is never chosen)


async def open_settings(pilot):
    """``s`` in the lobby: the settings screen."""
    from tui.screens.settings import SettingsScreen

    await pilot.press("s")
    await pilot.pause()
    assert isinstance(pilot.app.screen, SettingsScreen)
    return pilot.app.screen.query_one("#settings-menu", Menu)


def point_at(menu, item):
    menu.index = [i for i, _t in menu.items].index(item)


async def test_colours_dark_light_or_none_from_the_settings_screen(store):
    app, backend = lobby_app(store)
    saved = []

    async def save_setting(key, value):
        saved.append((key, value))

    backend.save_setting = save_setting
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        menu = await open_settings(pilot)
        assert "Colours: dark" in "\n".join(lines_of(app))
        point_at(menu, "colours")
        await pilot.press("right")
        await pilot.pause()
        assert app.colours == "light" and "Colours: light" in "\n".join(lines_of(app))
        await pilot.press("right")
        await pilot.pause()
        assert app.colours == "none" and "Colours: no colour" in "\n".join(lines_of(app))
        # No colour: not one segment drawn carries a colour (bold, dim, reverse stay).
        assert colours_drawn(app) == set()
        await pilot.press("right")
        await pilot.pause()
        assert app.colours == "dark" and colours_drawn(app)
        assert saved == [("colours", "light"), ("colours", "none"), ("colours", "dark")]
        # And the lobby under it was drawn again in the colours chosen.
        await pilot.press("left")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and app.colours == "none" and colours_drawn(app) == set()


async def test_the_lobby_keeps_one_settings_line_and_s_or_that_line_opens_the_screen(store):
    app, _ = lobby_app(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        text = "\n".join(lines_of(app))
        assert "Settings" in text
        for gone in ("Colours:", "Your turn:", "Challenges:"):
            assert gone not in text
        await open_settings(pilot)
        text = "\n".join(lines_of(app))
        assert "Settings: they follow your key" in text
        for line in ("Colours: dark", "Your turn: bell and title", "Challenges: welcome", "Name: Alice"):
            assert line in text
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        point_at(app.screen.query_one("#choices", Menu), "settings")
        await pilot.press("enter")
        await pilot.pause()
        assert "Settings: they follow your key" in "\n".join(lines_of(app))


async def test_settings_while_waiting_for_a_match_keep_the_place_in_the_queue(store):
    app, backend = lobby_app(store)
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        await pilot.press("enter")  # Quick match: Voltage
        await pilot.pause()
        assert "Waiting for an opponent" in "\n".join(lines_of(app))
        await open_settings(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert "Waiting for an opponent" in "\n".join(lines_of(app))
        assert backend.player.status != "in the lobby"


async def test_a_rename_too_soon_shows_the_cooldown_line_and_keeps_the_name(store):
    store.upsert_player(KA, "Alicia")  # a rename: Alice's key took its name just now, by renaming itself
    store.upsert_player(KA, "Alice", cooldown=0)
    app, backend = lobby_app(store)
    async with app.run_test(size=(100, 30)) as pilot:
        assert "Your name: Alice (Enter to go; a new name in 60 min)" in "\n".join(lines_of(app))
        await enter_lobby(pilot)
        menu = await open_settings(pilot)
        point_at(menu, "name")
        await pilot.press("enter")
        await pilot.pause()
        assert "a new name is possible in 60 minutes" in "\n".join(lines_of(app))  # said before one is typed
        await pilot.press(*["backspace"] * 5, *"Alicia", "enter")
        await pilot.pause()
        text = "\n".join(lines_of(app))
        assert "you took the name Alice less than an hour ago" in text
        assert "a new name is possible in" in text
        assert backend.name == "Alice"
        await pilot.press("escape", "escape")  # the name's question, then the screen
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen) and "you: Alice" in lines_of(app)[0]


async def test_a_rename_through_the_settings_shows_in_the_lobby(store):
    app, backend = lobby_app(store, identity=None, username="guest")
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        menu = await open_settings(pilot)
        point_at(menu, "name")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press(*["backspace"] * 5, *"Gus", "enter")
        await pilot.pause()
        assert "Renamed: you are Gus now (it was guest)." in "\n".join(lines_of(app))
        assert "Name: Gus" in "\n".join(lines_of(app)) and backend.name == "Gus"
        await pilot.press("escape")
        await pilot.pause()
        assert "you: Gus" in lines_of(app)[0]
        assert [p.name for p in backend.snapshot().players] == ["Gus"]


async def test_a_guests_choices_last_for_the_session_only(store):
    lobby = Lobby(store=store, seed=1)
    for _session in (1, 2):
        backend = SSHBackend(lobby, lobby.connect(None, "guest"))
        app = make_app(backend, player_name="guest")
        async with app.run_test(size=(100, 30)) as pilot:
            await enter_lobby(pilot)
            menu = await open_settings(pilot)
            assert "for this session" in lines_of(app)[0]
            text = "\n".join(lines_of(app))
            # A new session (the second round) starts from the defaults again.
            assert "Your turn: bell and title" in text and "Challenges: welcome" in text
            assert "Colours: dark" in text
            for item in ("alerts", "challenges", "colours"):
                point_at(menu, item)
                await pilot.press("enter")
            await pilot.pause()
            assert app.turn_alerts is False and await backend.refuses_challenges() and app.colours == "light"
            # The same session: back in the lobby (a new lobby screen, as after a match), and here again.
            app.go_home()
            app.home = None
            app.go_home()
            await pilot.pause()
            assert isinstance(app.screen, LobbyScreen)
            assert app.turn_alerts is False and app.colours == "light"
            await open_settings(pilot)
            text = "\n".join(lines_of(app))
            assert "Your turn: no alert" in text and "Challenges: refused" in text and "Colours: light" in text
        lobby.leave(backend.player)


async def test_no_color_from_the_client_is_shown_with_its_reason_and_not_offered(store):
    lobby = Lobby(store=store, seed=1)
    backend = SSHBackend(lobby, lobby.connect(KA, "alice"), env={"NO_COLOR": "1"})
    app = make_app(backend, player_name="alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        menu = await open_settings(pilot)
        assert app.colours == "none"
        assert "Colours: no colour  (your terminal sent NO_COLOR)" in "\n".join(lines_of(app))
        point_at(menu, "colours")
        await pilot.press("right")
        await pilot.pause()
        assert app.colours == "none" and colours_drawn(app) == set()
        assert "Connect without it to choose colours." in "\n".join(lines_of(app))
        assert "colours" not in await backend.settings()  # the key's own choice is left alone


async def test_the_settings_screen_fits_80x24_with_every_line_whole_and_says_when_too_small(store):
    from tests.tui.test_words_screens import cut_words, rows_of

    store.upsert_player(KA, "Alicia")  # Alice's name is a rename: the cooldown applies
    store.upsert_player(KA, "Alice", cooldown=0)
    app, backend = lobby_app(store)
    async with app.run_test(size=(80, 24)) as pilot:
        await enter_lobby(pilot)
        menu = await open_settings(pilot)
        point_at(menu, "name")
        await pilot.press("enter")
        await pilot.press(*["backspace"] * 5, *"Alicia", "enter")
        await pilot.pause()
        rows = rows_of(app)
        text = " ".join(r.strip(" │") for r in lines_of(app))
        cooldown = "you took the name Alice less than an hour ago: a new name is possible in 60 minutes"
        assert cooldown in " ".join(text.split())  # (wrapped at a space, never cut)
        forms = [t.plain for _i, t in menu.items] + [cooldown, "Settings: they follow your key to its next session"]
        assert cut_words(rows, forms, ["Alice"]) == []
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        assert "This terminal is 60 columns by 20 rows" in "\n".join(lines_of(app))


async def test_a_new_key_s_name_box_is_empty_its_login_only_suggested_and_its_first_rename_free(store):
    """``ssh root@…`` with a new key: the box does not hold "root", it only suggests it (Enter
    takes it); renaming that first name is not locked for an hour."""
    app, backend = lobby_app(store, identity="SHA256:new", username="root")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        from textual.widgets import Input

        box = app.screen.query_one("#name", Input)
        assert box.value == "" and box.placeholder.startswith("root? (a suggestion")
        await enter_lobby(pilot)  # Enter on the empty box: the suggestion
        assert backend.name == "root" and "you: root" in lines_of(app)[0]
        menu = await open_settings(pilot)
        point_at(menu, "name")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press(*["backspace"] * 4, *"Dave", "enter")
        await pilot.pause()
        assert backend.name == "Dave" and store.player("SHA256:new").name == "Dave"
        assert "Renamed: your key goes by Dave now (it was root)." in "\n".join(lines_of(app))


async def test_a_known_key_s_watch_or_join_goes_straight_there(store):
    """``ssh -t HOST watch CODE``: a key with a name goes to the match, no name prompt; a new
    key is asked its name first."""
    from tui.games.voltage.match import MatchScreen

    lobby = Lobby(store=store, seed=1, bot_delay=0.0)
    bob = lobby.connect(KB, "bob")
    lobby.claim_name(bob, "Bob")
    (h,) = lobby.play_bot(bob, "random")
    code = h.match.code

    async def watch(identity: str, prompted: bool) -> None:
        backend = SSHBackend(lobby, lobby.connect(identity, "carol"), initial=("watch", code))
        app = make_app(backend, player_name="carol")
        async with app.run_test(size=(100, 30)) as pilot:
            if prompted:
                await until(lambda: "Your name: at most 16 letters" in "\n".join(lines_of(app)))
                assert not backend.named
                await pilot.press(*"Carol", "enter")
            await until(lambda: isinstance(app.screen, MatchScreen), what=lambda: lines_of(app))
            assert isinstance(app.screen, MatchScreen) and app.screen.view.seat is None  # watching
            assert backend.name == ("Alice" if identity == KA else "Carol")

    await watch(KA, prompted=False)
    await watch("SHA256:new", prompted=True)
    h.match.close()


async def test_the_settings_list_the_browsers_linked_to_the_key(store):
    app, _ = lobby_app(store)
    async with app.run_test(size=(110, 32)) as pilot:
        await enter_lobby(pilot)
        await open_settings(pilot)
        await pilot.pause()
        text = "\n".join(lines_of(app))
        assert "No browser is linked to your key (ssh HOST link gives a code for the web page)" in text
        await pilot.press("escape")
        for label in ("Chrome on Linux", "Firefox on Android"):
            store.redeem_link_code(store.new_link_code(KA), label)
        await open_settings(pilot)
        await pilot.pause()
        text = "\n".join(lines_of(app))
        assert "2 browsers linked to your key (ssh HOST unlink forgets them):" in text
        assert re.search(r"Firefox on Android: linked \d{4}-\d\d-\d\d, last used \d{4}-\d\d-\d\d \d\d:\d\d", text)
        assert "Chrome on Linux: linked" in text


async def test_a_guest_s_settings_list_no_browsers(store):
    app, _ = lobby_app(store, identity=None, username="zed")
    async with app.run_test(size=(110, 32)) as pilot:
        await enter_lobby(pilot)
        await open_settings(pilot)
        await pilot.pause()
        assert "browser" not in "\n".join(lines_of(app)).lower()


async def test_a_lesson_s_match_refused_is_said_on_the_lobby_s_status_line(store):
    # A lesson ends by starting a match against a bot; when the server refuses it, the player, back
    # in the lobby, reads why there (the screens have no toast rack: nothing else would show it).
    from tui.games.lessons import match_after_lesson
    from tui.ports import Refused

    app, backend = lobby_app(store)

    async def refuse(bot, game):
        raise Refused("save_failed")

    backend.play_bot = refuse
    async with app.run_test(size=(100, 30)) as pilot:
        await enter_lobby(pilot)
        assert not app.screen.query("ToastRack") and not app.screen.query("Tooltip")
        await match_after_lesson(app, backend, "voltage", "easy", "alice", lambda handles, b: None)
        await pilot.pause()
        assert isinstance(app.screen, LobbyScreen)
        assert "the server cannot save moves right now" in "\n".join(lines_of(app))
