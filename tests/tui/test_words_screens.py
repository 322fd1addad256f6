"""Every word on the match screens whole: both games, in the states that
matter, at 80x24 (and wider where a text only grows there), with no text region
ending in a cut word.

How a cut is found: the test knows the long forms the screen could show (the
prompt's longest form, the log and feed lines, the widgets' own phrases such as
"6 cards" or "V: a transformer on top") and looks, in every row drawn, for a
piece of one of them that stops short: either right before an ellipsis
("done, draw …"), or inside a word where the row's word ends ("6 ca", "face
dow", "a transformer o").  A shorter *form* passes (it stops at a word's end:
"Second card, or done."), and so does a line wrapped at a space.  Names are not
checked: a long name may end in "…", the one thing a screen can do with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from textual.app import App

from engine.highvoltage import rules as H
from engine.voltage import cards as K
from engine.voltage import rules as V
from engine.voltage.cards import Card
from server.host.common import Seat
from server.host.highvoltage import HVMatch
from server.host.voltage import Match
from tests.support.wait import until
from tests.support.words import feed_of, lines, log_of
from tests.tui.helpers import FixedBackend
from tui.app import make_app
from tui.games.highvoltage.match import HVMatchScreen
from tui.games.voltage.match import MatchScreen
from tui.pacing import FAST, NO_FLASH

# -- finding cut words -----------------------------------------------------------


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):  # (the common prefix of any two strings)
        if x != y:
            break
        n += 1
    return n


def cut_words(rows: Iterable[str], forms: Iterable[str], names: Iterable[str] = ()) -> list[str]:
    """Each place a row shows a piece of a long form that stops short: before "…", or
    mid-word.  Pieces are matched from the form's start and from each of its words
    (a wrapped line's later rows begin there), and count only when they hold more
    than one word: one word alone ("card" of "cards", "play" of "played") is as
    likely another text.  A piece that is the start of a name (a name cut with
    "…") is not a cut word."""
    names = [n for n in names if n]
    rows = [r.rstrip() for r in rows]
    bad: list[str] = []
    seen: set[tuple[str, str]] = set()  # (form, row): the longest piece is enough to say
    for form in set(forms):
        starts = [0] + [i + 1 for i, ch in enumerate(form) if ch == " " and i + 1 < len(form)]
        for j in starts:
            tail = form[j:]
            if len(tail) < 4:
                continue
            head = tail[:3]
            for row in rows:
                pos = row.find(head)
                while pos != -1:
                    if pos == 0 or not row[pos - 1].isalnum():
                        k = _common(row[pos:], tail)
                        piece = row[pos : pos + k]
                        if k < len(tail) and " " in piece.strip() and not any(n.startswith(piece) for n in names):
                            after = row[pos + k] if pos + k < len(row) else ""
                            ellipsis = after == "…"
                            mid_word = tail[k - 1].isalnum() and tail[k].isalnum() and not after.isalnum()
                            if (ellipsis or mid_word) and (form, row) not in seen:
                                seen.add((form, row))
                                bad.append(f"{piece!r}{after} (of {form!r}) in row {row!r}")
                    pos = row.find(head, pos + 1)
    return bad


SECOND = "Second card (to another terminal), or done: draw one."
DEALT = "Cards dealt to 4 players; four each in hand, face down."


def test_the_finder_sees_each_cut_the_issue_names_and_passes_shorter_forms():
    cases = {
        "6 cards": "│ V▒ V▒ V▒ V▒ V▒ V▒  6 ca",
        SECOND: " ▶  Second card (to another terminal), or done: draw …  done",
        DEALT: "  · Cards dealt to 4 players; four each in hand, face dow",
        "Everyone is stuck: the bottom card 7 (±3) goes on top.": "   card 7 (±3) goes on to",
        "V: a transformer on top": "│V: a transformer o│",
    }
    for form, row in cases.items():
        assert cut_words([row], [form]), (form, row)
    whole = {
        "6 cards": "│ V▒ V▒ V▒ V▒ V▒ V▒  6",
        SECOND: " ▶  Second card, or done.   done: draw one [space]",
        DEALT: " · Cards dealt to 4 players; four\n   each in hand, face down.",
        "V: a transformer on top": "│transformer on top│",
    }
    for form, text in whole.items():
        assert not cut_words(text.splitlines(), [form]), (form, text)


# -- Voltage positions -----------------------------------------------------------


def _take(free: list[int], code: str, transformer: bool | None = None) -> int:
    face = K.parse_face(code)
    for c in free:
        if K.CARD_FACE[c] == face and (transformer is None or K.CARD_TRANSFORMER[c] == transformer):
            free.remove(c)
            return c
    raise LookupError(code)


def voltage_match(kind: str, names: tuple[str, str] = ("Ann", "Bob")) -> Match:
    """Ann (seat 0, at the bottom) to move, Bob holding six cards; orange holds two of
    Bob's cards (a bypass has two to choose from), green one card each side."""
    m = Match([Seat(names[0], "a"), Seat(names[1], "b")], seed=3, bot_delay=0)
    s = m.state
    free = list(range(K.DECK_SIZE))
    s.board = [[] for _ in range(8)]
    s.board[1] = [_take(free, "O1"), _take(free, "O2")]
    s.board[3] = [_take(free, "G3")]
    s.board[2] = [_take(free, "G1")]
    hand = [_take(free, c, False) for c in ("O1", "G2", "B3", "BY")]
    s.hands[1] = [_take(free, c) for c in ("O2", "O3", "G1", "P1", "P2", "B1")]
    s.to_move, s.phase, s.first_terminal, s.flips = 0, V.START, -1, 0
    if kind == "empty":
        hand = []
    elif kind == "second":
        s.phase, s.first_terminal = V.SECOND, 0
    elif kind == "second-none":
        hand = [_take(free, "O3", False)]
        s.phase, s.first_terminal = V.SECOND, 0
    elif kind == "flip":
        s.phase, s.flips = V.FLIP, 1
    elif kind == "waiting":
        s.to_move = 1
    s.hands[0] = hand
    top = next(c for c in free if K.CARD_TRANSFORMER[c])  # a transformer on top of the draw pile
    free.remove(top)
    s.draw, s.discard = free + [top], []
    # some long lines in the log, in the engine's own words
    n = m.names
    card = Card.of
    m.log += [
        V.Event("play", seat=1, card=card(_take(free, "BY")), terminal=0, side=0, target=card(s.board[1][0])),
        V.Event("flip", seat=1, terminal=1, plus=False),
        V.Event("score", seat=1, terminal=2, totals=(3, 3), plus=False, winner=0),
        V.Event("reshuffle", count=31),
    ]
    assert lines("voltage", m.log[-4:], n)[-1] == "The discard pile was shuffled into a new draw pile (31 cards)."
    return m


def voltage_forms(screen: MatchScreen) -> list[str]:
    view, step = screen.view, screen.step
    forms = log_of(screen.viewer)
    forms += list(getattr(step.prompt, "forms", (step.prompt,)))[:1]
    forms += [f"{o.label} [space]" for o in step.buttons]
    n = len(view.hand_backs[1 - screen.me])
    forms += [f"{n} card{'s' if n != 1 else ''}", f"{view.draw_count} cards", f"{view.discard_count} cards"]
    forms += ["V: a transformer on top", "+ high wins", "− low wins", "your side"]
    forms += [f"{screen.names[1 - screen.me]}'s side"]
    return forms


def rows_of(app: App) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def voltage_cuts(kind: str, size: tuple[int, int], keys: tuple[str, ...] = (), names=("Ann", "Bob")) -> list[str]:
    m = voltage_match(kind, names)
    app = make_app(FixedBackend([m.handle(0)]), player_name=names[0], pacing=NO_FLASH)
    async with app.run_test(size=size) as pilot:
        await until(lambda: isinstance(app.screen, MatchScreen))
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MatchScreen)
        cuts = cut_words(rows_of(app), voltage_forms(screen), screen.names)
        return [f"{kind} {size}: {b}" for b in cuts]


VOLTAGE_STATES = [
    ("start", ()),  # Bob holds six; a transformer on top of the draw pile
    ("second", ()),  # a second card, or done
    ("second-none", ()),
    ("flip", ()),
    ("start", ("4", "o")),  # a bypass on orange: which card it takes
    ("empty", ()),
    ("waiting", ()),  # Bob to move
]


async def test_no_voltage_screen_ends_a_line_in_a_cut_word_at_80x24():
    bad: list[str] = []
    for kind, keys in VOLTAGE_STATES:
        bad += await voltage_cuts(kind, (80, 24), keys)
    bad += await voltage_cuts("waiting", (80, 24), names=("Maximilian Longname", "Bartholomew Smith"))
    assert not bad, "\n".join(bad)


async def test_no_voltage_screen_ends_a_line_in_a_cut_word_when_wider():
    bad: list[str] = []
    for size in ((100, 30), (200, 60)):
        for kind, keys in (("start", ()), ("second", ()), ("start", ("4", "o"))):
            bad += await voltage_cuts(kind, size, keys)
    assert not bad, "\n".join(bad)


# -- High Voltage ------------------------------------------------------------------


class Host(App):
    def __init__(self, handles: list[Any], practice: bool = False) -> None:
        super().__init__()
        self.handles = handles
        self.practice = practice
        self.pacing = FAST

    def on_mount(self) -> None:
        self.push_screen(HVMatchScreen(self.handles, practice=self.practice))


_CHIP = re.compile(r"(\d+) \(±([123])\)")


async def hv_cuts(players: int, size: tuple[int, int], practice: bool = False) -> list[str]:
    names = ["Alice", "Bob", "Cleo", "Dan"][:players]
    m = HVMatch([Seat(x, x.lower()) for x in names], seed=4, countdown_seconds=0.03)
    if practice:  # a long match: three-digit plays and flips on the top line
        m.state.plays, m.state.flips = 123, 12
    m.log += [
        H.Event("flip", card=H.Face(7, 3)),
        H.Event("slow", seat=1, card=H.Face(2, 1), aimed=H.Face(3, 1), covered=H.Face(8, 2)),
    ]
    app = Host([m.handle(0)], practice)
    try:
        async with app.run_test(size=size) as pilot:
            m.start()
            await until(lambda: isinstance(app.screen, HVMatchScreen) and app.screen.view.can_act)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, HVMatchScreen)
            # the feed draws each card as a chip: " 7 ±3 "
            forms = [_CHIP.sub(r" \1 ±\2 ", line) for line in feed_of(m, 0)]
            forms += [screen._prompt(), "feed, newest first"]
            rows = rows_of(app)
            cuts = cut_words(rows, forms, m.names)
            if practice:  # the practice label is whole, in one of its forms (a cut at a space loses it too)
                top = rows[0].rstrip()
                whole = ("PRACTICE: double border = it fits", "PRACTICE: double border fits")
                if not (any(w in top for w in whole) or top.endswith(" PRACTICE")):
                    cuts.append(f"the top line {top!r}")
            return [f"High Voltage x{players} {size}: {b}" for b in cuts]
    finally:
        m.close()


async def test_no_high_voltage_feed_line_is_cut():
    bad: list[str] = []
    for players, size in ((4, (80, 24)), (2, (80, 24)), (4, (100, 30)), (4, (200, 60))):
        bad += await hv_cuts(players, size)
    assert not bad, "\n".join(bad)


async def test_the_high_voltage_top_line_in_practice_is_not_cut():
    bad = await hv_cuts(4, (80, 24), practice=True)
    assert not bad, "\n".join(bad)


# -- the other screens: lobby, results, start ---------------------------------------


async def test_no_lobby_results_or_start_screen_line_ends_in_a_cut_word_at_80x24(tmp_path):
    from server.backend import SSHBackend
    from server.lobby.core import Lobby
    from server.store.db import Store
    from server.store.persist import history_item
    from tests.support.store import KA, KB, finished_match
    from tests.tui.helpers import local_app
    from tui.dialogs.confirm import ConfirmScreen
    from tui.games.voltage.results import ResultsScreen
    from tui.screens.lobby import LobbyScreen
    from tui.words import history_forms

    bad: list[str] = []
    with Store.open(tmp_path) as store:
        store.upsert_player(KA, "Alice")
        store.upsert_player(KB, "Bob")
        for seed in (11, 12):
            finished_match(store, seed)
        hv = store.create_match("high-voltage", 5, [
            {"name": "Alice", "identity": KA}, {"name": "Bot (slow)", "identity": None, "bot": "slow"},
            {"name": "Bob", "identity": KB}])
        store.finish_match(hv, [2, 3, 1], "won", (3, 12, 0))
        lobby = Lobby(store=store, seed=1)
        backend = SSHBackend(lobby, lobby.connect(KA, "alice"))
        app = make_app(backend, player_name="alice")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("enter")
            await pilot.pause(0.2)
            screen = app.screen
            assert isinstance(screen, LobbyScreen)
            forms = [str(label) for _i, label in screen._choices()]
            forms += [LobbyScreen.keys_help(), LobbyScreen.keys_help(short=True)]
            forms += ["Voltage: lobby    you: alice    " + "    ".join(
                f"{g} {r} ({n} rated)" for g, r, n in await backend.ratings())]
            forms += [history_forms(history_item(r, KA))[0] for r in store.player_history(KA)]
            bad += [f"lobby: {b}" for b in cut_words(rows_of(app), forms, ["Alice", "Bob", "alice"])]
    app, backend = local_app(seed=8)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        bad += [f"start: {b}" for b in cut_words(rows_of(app), [], [])]
        await pilot.press("enter")
        await until(lambda: isinstance(app.screen, MatchScreen))
        await pilot.press("ctrl+r")
        await until(lambda: isinstance(app.screen, ConfirmScreen))
        bad += [f"confirm: {b}" for b in cut_words(rows_of(app), [app.screen.question], [])]
        await pilot.press("y")
        await until(lambda: isinstance(app.screen, ResultsScreen))
        await pilot.pause()
        results = app.screen
        forms = [results.winner_text().plain, results.status_text(), "back to start [b]", "rematch [r]"]
        bad += [f"results: {b}" for b in cut_words(rows_of(app), forms, [])]
    backend.close()
    assert not bad, "\n".join(bad)
