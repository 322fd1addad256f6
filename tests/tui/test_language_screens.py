"""The app's own screens in each language: at 80x24 and wide, a Catalan or Spanish screen
holds only its language's words (no English leak, nothing cut short), and an English one
no word cut mid-way; no line ends cut ("…"); the lobby's and the settings' keys are all
named in every language; a browser's guest is told to link a key.

The screens of a match (each game's board, log, results body) are the games' own tests'."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from types import SimpleNamespace

import pytest

from server.backend import SSHBackend
from server.lobby.core import Lobby
from server.replay import Replay
from tests.support.fakes import FakeLobby
from tests.support.leaks import unknown_words
from tests.support.store import KA, KB, finished_match
from tests.support.wait import until
from tests.tui.helpers import local_app
from tests.tui.test_lobby_screen import lines_of
from tui import i18n, reach
from tui.app import make_app
from tui.chat.panel import ChatPanel
from tui.dialogs.challenge import ChallengeScreen
from tui.dialogs.confirm import QuitScreen
from tui.dialogs.names import NamesScreen
from tui.dialogs.pass_keyboard import PassKeyboardScreen
from tui.ports import LeaderEntry
from tui.screens.base import quit_question
from tui.screens.leaderboard import LeaderboardScreen
from tui.screens.lobby import LobbyScreen
from tui.screens.replay import ReplayBackend
from tui.screens.rules import RulesScreen
from tui.screens.settings import SettingsScreen
from tui.screens.start import StartScreen
from tui.widgets.keybar import KeyBar

CODES = ("en", "ca", "es")
SIZES = ((80, 24), (160, 50))
NAMES = ("Alice", "Bob", "alice")
EVERY = pytest.mark.parametrize(("code", "size"), [(c, s) for c in CODES for s in SIZES],
                                ids=[f"{c}-{w}x{h}" for c in CODES for w, h in SIZES])


def text_of(app) -> str:
    return "\n".join(lines_of(app))


def problems(app, code: str, where: str, allowed=NAMES) -> list[str]:
    """What is wrong with the screen shown in ``code``: words not of the language, lines cut."""
    text = text_of(app)
    found = [f"{where}: {w}" for w in unknown_words(text, code, allowed)]
    found += [f"{where}: cut line {line.strip()!r}" for line in text.splitlines() if "…" in line]
    return found


def dialog_problems(app, code: str, where: str, allowed=NAMES) -> list[str]:
    """:func:`problems` of the dialog shown over another screen: its own words only (the screen
    under it shows through around it, its words cut by the dialog's edges)."""
    from textual.widgets import Input, Static

    screen = app.screen
    parts = [str(w.render()) for w in screen.query(Static)]
    parts += [w.placeholder for w in screen.query(Input)] + [bar.text.plain for bar in screen.query(KeyBar)]
    text = "\n".join(parts)
    found = [f"{where}: {w}" for w in unknown_words(text, code, allowed)]
    return found + [f"{where}: cut {text!r}" for _ in [1] if "…" in text]


@contextlib.contextmanager
def speaking(code: str, transport: str = "ssh") -> Iterator[None]:
    """An app made in here words in ``code`` and is reached through ``transport``."""
    token = reach.use(transport)
    try:
        with i18n.language(code):
            yield
    finally:
        reach.reset(token)


def stocked(store) -> None:
    """Alice and Bob, two matches they played (ratings, a history)."""
    store.upsert_player(KA, "Alice")
    store.upsert_player(KB, "Bob")
    for seed in (11, 12):
        finished_match(store, seed)


def shows(app, make) -> None:
    """The screen ``make()`` makes, shown by the app's own task (in the session's language, as
    a screen the app opens itself: the test's task has none)."""
    app.call_later(lambda: app.push_screen(make()))


async def shown(pilot, kind) -> None:
    await until(lambda: isinstance(pilot.app.screen, kind), what=lambda: type(pilot.app.screen).__name__)
    await pilot.pause()


# -- the lobby, its panels, its chat, the settings, the leaderboard ------------------------------


@EVERY
async def test_the_lobby_and_the_screens_over_it_hold_only_their_languages_words(store, code, size):
    stocked(store)
    bad: list[str] = []
    with speaking(code):
        lobby = Lobby(store=store, seed=1)
        backend = SSHBackend(lobby, lobby.connect(KA, "alice"))
        app = make_app(backend, player_name="alice")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        bad += problems(app, code, "the name box")
        await pilot.press("enter")
        await until(lambda: backend.named)
        await pilot.pause(0.2)
        bad += problems(app, code, "the Play menu")
        for key, panel in (("o", "#players"), ("w", "#matches"), ("h", "#history")):
            await pilot.press(key)
            await pilot.pause()
            assert app.screen.focused is app.screen.query_one(panel)
            bad += problems(app, code, f"{panel} focused")
        await pilot.press("c")
        await pilot.pause()
        await pilot.press("f2")  # a quick phrase, in the reader's words
        await until(lambda: app.screen.query_one(ChatPanel).lines)
        await pilot.pause()
        bad += problems(app, code, "the chat")
        await pilot.press("escape", "s")
        await shown(pilot, SettingsScreen)
        bad += problems(app, code, "the settings")
        await pilot.press("escape")
        await shown(pilot, LobbyScreen)
        await pilot.press("l")
        await shown(pilot, LeaderboardScreen)
        await until(lambda: "Alice" in text_of(app))
        bad += problems(app, code, "the leaderboard")
        await pilot.press("question_mark")
        await shown(pilot, RulesScreen)
        bad += problems(app, code, "the rules")
    assert bad == []


@pytest.mark.parametrize("code", CODES)
@pytest.mark.parametrize("transport", ["ssh", "web"])
async def test_a_guests_lobby_and_settings_say_how_to_keep_things(store, code, transport):
    bad: list[str] = []
    with speaking(code, transport):  # (the app runs in it: the transport is the session's context's)
        lobby = Lobby(store=store, seed=1)
        backend = SSHBackend(lobby, lobby.connect(None, "guest"))
        app = make_app(backend, player_name="guest")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("g", "i", "l", "enter")
            await until(lambda: backend.named)
            await pilot.pause(0.2)
            lobby_text = text_of(app)
            bad += problems(app, code, "a guest's lobby", ("gil",))
            await pilot.press("s")
            await shown(pilot, SettingsScreen)
            settings_text = text_of(app)
            bad += problems(app, code, "a guest's settings", ("gil",))
    assert bad == []
    with speaking(code):
        link = i18n._("link a key to keep your matches\nand a rating:\n%(link)s,\nthen the code on this page")
        log_in = i18n._("log in with an SSH key to keep\nyour matches and a rating")
    said_link, said_log_in = link.split()[:3], log_in.split()[:3]
    if transport == "web":  # told to link a key, with the command that gives a code
        assert " ".join(said_link) in lobby_text and "HOST link" in settings_text
        assert " ".join(said_log_in) not in lobby_text
    else:
        assert " ".join(said_log_in) in lobby_text and "link" not in settings_text
        assert " ".join(said_link) not in lobby_text


def keys_named(line: str) -> set[str]:
    """The keys a key line names: each entry is a key, a space, its words; two spaces apart."""
    return {entry.strip().split(" ")[0] for entry in line.strip().split("  ") if entry.strip()}


async def test_the_lobbys_and_the_settings_keys_are_all_named_in_every_language_at_80x24(store):
    stocked(store)
    named: dict[str, dict[str, set[str]]] = {}
    for code in CODES:
        with speaking(code):
            lobby = Lobby(store=store, seed=1)
            backend = SSHBackend(lobby, lobby.connect(KA, "alice"))
            app = make_app(backend, player_name="alice")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            await until(lambda backend=backend: backend.named)
            await pilot.pause(0.2)
            status = app.screen.query_one("#status").render()
            lobby_keys = keys_named(str(status).splitlines()[-1])
            await pilot.press("s")
            await shown(pilot, SettingsScreen)
            bar = app.screen.query_one(KeyBar).text.plain
            named[code] = {"lobby": lobby_keys, "settings": keys_named(bar)}
            assert bar.strip() and "…" not in bar
    assert {"⏎", "w", "h", "l", "s", "?", "^q"} <= named["en"]["lobby"]
    assert {"Esc", "?", "^q"} <= named["en"]["settings"]
    for code in ("ca", "es"):
        assert named[code] == named["en"], code


class _NoBoard(FakeLobby):
    """A lobby whose leaderboard is empty, or has one rated player (``full``)."""

    def __init__(self, full: bool) -> None:
        super().__init__()
        self.full = full

    def home_screen(self) -> LeaderboardScreen:
        return LeaderboardScreen(self)

    async def leaderboard_games(self) -> list[tuple[str, str]]:
        return [("voltage", "Voltage"), ("high-voltage", "High Voltage")]

    async def leaderboard(self, game: str, n: int = 20) -> list[LeaderEntry]:
        if not self.full:
            return []
        return [LeaderEntry(place=1, name="Alice", rating=1012, games=31, history=(1000, 990, 1012), me=True)]


@EVERY
async def test_the_leaderboard_empty_and_full(code, size):
    bad: list[str] = []
    for full in (False, True):
        with speaking(code):
            app = make_app(_NoBoard(full))
        async with app.run_test(size=size) as pilot:
            await shown(pilot, LeaderboardScreen)
            await until(lambda app=app: app.screen.query("#lb-rows Static"))
            await pilot.pause()
            bad += problems(app, code, "the leaderboard" + (" full" if full else " empty"))
    assert bad == []


# -- voltage play: the start screen, the dialogs; the too-small message -------------------------------


def _challenge() -> SimpleNamespace:
    return SimpleNamespace(challenger=SimpleNamespace(name="Bob"), seconds_left=25.0, game="voltage")


@EVERY
async def test_the_start_screen_and_the_dialogs_hold_only_their_languages_words(code, size):
    bad: list[str] = []
    with speaking(code):
        app, backend = local_app(seed=3, name="Alice")
    try:
        async with app.run_test(size=size) as pilot:
            await shown(pilot, StartScreen)
            bad += problems(app, code, "start")
            await pilot.press("tab")  # the game column
            await pilot.pause()
            bad += problems(app, code, "start, the game column")
            shows(app, lambda: NamesScreen("Alice", i18n._("Player 2")))
            await shown(pilot, NamesScreen)
            bad += dialog_problems(app, code, "hot-seat's names")
            await pilot.press("escape")
            await shown(pilot, StartScreen)
            for backend_, hotseat in ((None, False), (None, True),
                                      (SimpleNamespace(online=True, guest=False, grace_seconds=120.0), False),
                                      (SimpleNamespace(online=True, guest=True), False)):
                with i18n.language(code):
                    question = quit_question(backend_, hotseat=hotseat)
                shows(app, lambda question=question: QuitScreen(question))
                await shown(pilot, QuitScreen)
                bad += dialog_problems(app, code, "the quit question")
                await pilot.press("n")
                await shown(pilot, StartScreen)
            shows(app, lambda: ChallengeScreen(_challenge(), "Voltage"))
            await shown(pilot, ChallengeScreen)
            bad += dialog_problems(app, code, "a challenge")
            await pilot.press("n")
            await shown(pilot, StartScreen)
            shows(app, lambda: PassKeyboardScreen("Bob"))
            await shown(pilot, PassKeyboardScreen)
            bad += problems(app, code, "pass the keyboard")
    finally:
        backend.close()
    assert bad == []


@pytest.mark.parametrize("code", CODES)
async def test_the_too_small_message_in_every_language(code):
    bad: list[str] = []
    with speaking(code):
        app, backend = local_app(seed=3)
    try:
        async with app.run_test(size=(60, 20)) as pilot:
            await shown(pilot, StartScreen)
            bad += problems(app, code, "too small")
            assert "60" in text_of(app) and "80" in text_of(app)
    finally:
        backend.close()
    assert bad == []


@EVERY
async def test_a_replays_bar_and_keys(tmp_path, code, size):
    from server.store.db import Store

    with Store.open(tmp_path) as store:
        stocked(store)
        replay = Replay.load(store, 1, KA)
    with speaking(code):
        app = make_app(ReplayBackend(replay))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        bar = str(app.screen.query_one("#replay-bar").render())
        keys = app.screen.query_one(KeyBar).text.plain
        await pilot.press("s")  # a seat's view
        await pilot.pause()
        seat = str(app.screen.query_one("#replay-bar").render())
    found = unknown_words("\n".join((bar, keys, seat)), code, NAMES)
    assert found == [] and "…" not in bar + keys + seat, (found, bar, keys, seat)


# -- the check itself --------------------------------------------------------------------------------


async def test_an_english_label_left_unwrapped_on_a_catalan_screen_is_caught(store, monkeypatch):
    """A new line put on the lobby without its catalog entry (``Text("Settings")`` instead of
    ``Text(_("Settings"))``) shows in English on a Catalan screen: the check names it."""
    import tui.screens.lobby as lobby_module

    worded = lobby_module._
    monkeypatch.setattr(lobby_module, "_", lambda message: message if message == "Settings" else worded(message))
    stocked(store)
    with speaking("ca"):
        lobby = Lobby(store=store, seed=1)
        backend = SSHBackend(lobby, lobby.connect(KA, "alice"))
        app = make_app(backend, player_name="alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await until(lambda: backend.named)
        await pilot.pause(0.2)
        assert unknown_words(text_of(app), "ca", NAMES) == ["Settings (English)"]


async def test_a_language_chosen_in_the_settings_rewords_the_lobby_under_them(store):
    """English, then Spanish on the settings' Language line: the lobby it goes back to says
    everything in Spanish (its menu, panels, keys), not only what changed since."""
    from tests.tui.test_lobby_screen import open_settings, point_at

    stocked(store)
    lobby = Lobby(store=store, seed=1)
    backend = SSHBackend(lobby, lobby.connect(KA, "alice"))
    app = make_app(backend, player_name="alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await until(lambda: backend.named)
        await pilot.pause(0.2)
        assert problems(app, "en", "the lobby") == []
        menu = await open_settings(pilot)
        point_at(menu, "language")
        await pilot.press("left")  # English -> Español
        await until(lambda: app.language == "es")
        await pilot.pause()
        assert problems(app, "es", "the settings") == []
        await pilot.press("escape")
        await shown(pilot, LobbyScreen)
        await until(lambda: "en el vestíbulo" in text_of(app), what=lambda: text_of(app))
        assert problems(app, "es", "the lobby") == []


@pytest.mark.parametrize("code", CODES)
async def test_what_the_lobby_says_while_waiting_in_every_language(store, code):
    """A quick match of each game (its bot offered after the wait), a private room of each: the
    status lines under the lists, at 80x24."""
    from tui.screens.lobby_modes import Browsing, Hosting, Queued

    stocked(store)
    bad: list[str] = []
    with speaking(code):
        lobby = Lobby(store=store, seed=1, bot_offer_after=0.0)
        backend = SSHBackend(lobby, lobby.connect(KA, "alice"))
        app = make_app(backend, player_name="alice")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("enter")
        await until(lambda: backend.named)
        await pilot.pause(0.2)
        screen = app.screen
        assert isinstance(screen, LobbyScreen)
        menu = screen.query_one("#choices")
        menu.index = [i for i, _t in menu.items].index("voltage:room")
        await pilot.press("right", "right", "right")  # 5+5 -> 10+5 -> 15+10 -> no clock
        await pilot.pause()
        assert "5+5" not in text_of(app) and "15+10" not in text_of(app)
        bad += problems(app, code, "a room without a clock")
        for item, mode in (("voltage:quick", Queued), ("high-voltage:quick", Queued), ("voltage:room", Hosting),
                           ("high-voltage:room", Hosting)):
            menu.index = [i for i, _t in menu.items].index(item)
            await pilot.press("enter")
            await until(lambda mode=mode: isinstance(screen.mode, mode))
            await until(lambda: str(screen.query_one("#status").render()).count("\n") >= 2)
            await pilot.pause(0.3)
            room = screen.mode.room.code if isinstance(screen.mode, Hosting) else ""
            bad += problems(app, code, item, (*NAMES, room))  # (a room's code is data)
            await pilot.press("escape")
            await until(lambda: isinstance(screen.mode, Browsing))
    assert bad == []


async def test_a_key_bar_too_narrow_for_a_languages_words_takes_their_short_forms_first():
    """Every key stays in the bar when the language has short words for them (its ``short``
    entries); without them, the last keys would be left out."""
    import gettext

    from textual.app import App
    from textual.binding import Binding
    from textual.screen import Screen

    class Long(gettext.NullTranslations):  # (a language whose words are long, with short forms)
        WORDS = {"one": "the first of the keys", "two": "the second of the keys", "three": "the third key"}
        _catalog = {f"short\x04{k}": k[:3] for k in WORDS}  # ("one" is its own short form, as English)

        def gettext(self, message: str) -> str:
            return self.WORDS.get(message, message)

        def pgettext(self, context: str, message: str) -> str:
            return self._catalog.get(f"{context}\x04{message}", message)

    class Keys(Screen):
        BINDINGS = [Binding("a", "one", i18n.N_("one")), Binding("b", "two", i18n.N_("two")),
                    Binding("c", "three", i18n.N_("three"))]

        def compose(self):
            yield KeyBar()

    class Bare(App):
        def on_mount(self) -> None:
            self.push_screen(Keys())

    for catalog, shown_ in ((Long(), "a one  b two  c thr"), (i18n.ENGLISH, "a one  b two  c three")):
        with i18n.language(catalog):
            app = Bare()
            async with app.run_test(size=(40, 5)) as pilot:
                await until(lambda app=app: isinstance(app.screen, Keys))
                await pilot.pause()
                assert app.screen.query_one(KeyBar).text.plain.strip() == shown_
