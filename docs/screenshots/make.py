"""Make the screenshots in this folder: ``python docs/screenshots/make.py`` (needs rsvg-convert).

The match screen in the snapshot tests' position (tests/tui/test_snapshots.py), at
80x24 and 120x40 on the dark theme, plus 80x24 on the light theme and without colour;
the lobby (a key with rated matches) at 80x24 and 100x30; a finished match's replay
(every hand shows) at 100x30; High Voltage against two bots at 80x24; the lobby and a match
with the chat open at 80x24; the coach at 80x24: a hint, the replay's win-chance chart on a
mistake, a lesson step (``make.py coach``: only these); Learn High Voltage after a card that
does not fit, in English and in Catalan (``make.py hv-lesson``).
Textual exports SVG; rsvg-convert makes the PNGs (the SVG's per-span text widths
are dropped first, since librsvg misplaces text that starts with no-break spaces).
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from tests.tui.helpers import ContractHandle, FixedBackend  # noqa: E402
from tests.tui.test_snapshots import position  # noqa: E402
from tui.app import make_app  # noqa: E402
from tui.pacing import NO_FLASH  # noqa: E402


def to_png(svg: str, png: Path) -> None:
    svg = re.sub(r' textLength="[^"]*"', "", svg).replace("<svg ", '<svg xml:space="preserve" ', 1)
    tmp = png.with_suffix(".tmp.svg")
    tmp.write_text(svg, encoding="utf-8")
    try:
        subprocess.run(["rsvg-convert", "-o", str(png), str(tmp)], check=True)
    finally:
        tmp.unlink()


async def shot(name: str, size: tuple[int, int], *, colours: str = "dark") -> None:
    m = await position()
    app = make_app(FixedBackend([ContractHandle(m.handle(0))]), player_name="Ann", pacing=NO_FLASH)
    async with app.run_test(size=size) as pilot:
        app.set_colours(colours)
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        to_png(app.export_screenshot(title="Voltage"), HERE / f"{name}.png")
    print(HERE / f"{name}.png")


def _store_with_matches(path: Path):
    from server.store.db import Store
    from tests.server.test_commands import KA, KB, finished_match

    store = Store.open(path)
    store.upsert_player(KA, "Alice")
    store.upsert_player(KB, "Bob")
    ids = [finished_match(store, seed) for seed in (11, 12, 13)]
    return store, KA, ids


async def lobby_shots(tmp: Path) -> None:
    from server.backend import SSHBackend
    from server.lobby.core import Lobby
    from tests.server.test_commands import KB

    store, key, ids = _store_with_matches(tmp / "lobby")
    for size in ((80, 24), (100, 30)):
        lobby = Lobby(store=store, seed=1)
        bob = lobby.connect(KB, "Bob")
        lobby.claim_name(bob, "Bob")
        app = make_app(SSHBackend(lobby, lobby.connect(key, "alice")), player_name="alice")
        async with app.run_test(size=size) as pilot:
            await pilot.press("enter")
            await pilot.pause(0.3)
            png = HERE / f"lobby-{size[0]}x{size[1]}.png"
            to_png(app.export_screenshot(title="Voltage"), png)
            print(png)
    lobby = Lobby(store=store, seed=1)
    app = make_app(SSHBackend(lobby, lobby.connect(key, "alice")), player_name="alice")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("enter")
        await pilot.pause(0.3)
        app.push_screen(app.backend.replay_screen(ids[-1]))
        await pilot.pause(0.3)
        for _ in range(30):
            await pilot.press("right")
        await pilot.pause(0.3)
        png = HERE / "replay-100x30.png"
        to_png(app.export_screenshot(title="Voltage"), png)
        print(png)
    store.close()


async def high_voltage_shot() -> None:
    from server.host.common import Seat
    from server.host.highvoltage import HVMatch, bot_seat
    from tui.games.highvoltage.match import HVMatchScreen

    m = HVMatch([Seat("Ann", "ann"), bot_seat("medium"), bot_seat("fast")], seed=4,
                countdown_seconds=0.01, bot_speed=1.0)

    class HVBackend:
        def home_screen(self):
            return HVMatchScreen([m.handle(0)], self)

    app = make_app(HVBackend(), player_name="Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        m.start()
        while not (isinstance(app.screen, HVMatchScreen) and app.screen.view.can_act):
            await pilot.pause(0.05)
        await pilot.pause(2.5)  # a few of the bots' plays in the feed
        png = HERE / "high-voltage-80x24.png"
        to_png(app.export_screenshot(title="Voltage"), png)
        print(png)
    m.close()


async def chat_shots() -> None:
    """The lobby and a match with the chat open at 80x24 (a lobby in this process)."""
    from server.backend import SSHBackend
    from server.lobby.core import Lobby

    lobby = Lobby(bot_delay=0.2)
    ann, bob = lobby.connect("SHA256:ann", "ann"), lobby.connect("SHA256:bob", "bob")
    lobby.claim_name(ann, "ann")
    lobby.claim_name(bob, "bob")
    lines = [("SHA256:bob", "bob", "anyone up for high voltage?", ""), ("SHA256:ann", "ann", "", "hi"),
             ("SHA256:ann", "ann", "@bob sure, after this one", ""),
             ("SHA256:bob", "bob", "[bold]not bold[/] \x1b[2J", "")]
    for identity, name, text, phrase in lines:
        await lobby.chat.say(identity=identity, name=name, guest=False, text=text, phrase=phrase)
    ab, bb = SSHBackend(lobby, ann), SSHBackend(lobby, bob)
    app = make_app(ab, player_name="ann", pacing=NO_FLASH)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.press("c")
        await pilot.pause(0.3)
        for ch in "see you at the table":
            await pilot.press(ch if ch != " " else "space")
        await pilot.pause(0.3)
        to_png(app.export_screenshot(title="Voltage"), HERE / "lobby-chat-80x24.png")
        print(HERE / "lobby-chat-80x24.png")
        await pilot.press("escape")
        (ha,), (hb,) = await asyncio.gather(ab.quick_match("voltage"), bb.quick_match("voltage"))
        app.push_screen(ab.match_screen([ha]))
        await pilot.pause(0.5)
        await pilot.press("tab")
        await pilot.pause(0.3)
        await bb.match_chat([hb]).say("good luck!")
        await pilot.press("f3")
        await pilot.pause(0.3)
        for ch in "you too":
            await pilot.press(ch if ch != " " else "space")
        await pilot.press("enter")
        await pilot.pause(0.5)
        to_png(app.export_screenshot(title="Voltage"), HERE / "match-chat-80x24.png")
        print(HERE / "match-chat-80x24.png")
    ha.match.close()


async def coach_shots(tmp: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from server import coach as C
    from server.backend import SSHBackend
    from server.lobby.core import Lobby
    from server.local import LocalBackend
    from tui.games.voltage.lesson import LessonScreen

    C.use(C.Coach(executor=ThreadPoolExecutor(max_workers=1), analysis_iterations=300))
    backend = LocalBackend(seed=5, bot_delay=0.0)
    app = make_app(backend, player_name="Ann", pacing=NO_FLASH)
    async with app.run_test(size=(80, 24)) as pilot:  # a hint against Medium, a few turns in
        await pilot.press("enter")
        await pilot.pause(0.3)
        screen = app.screen
        for _ in range(3):
            while not screen.view.my_turn:
                await pilot.pause(0.05)
            await screen.submit(screen.view.legal[0])
        while not (screen.view.my_turn and screen.view.phase == "start"):
            if screen.view.my_turn:
                await screen.submit(screen.view.legal[-1])
            await pilot.pause(0.05)
        await pilot.press("h")
        while not screen.hint_line.startswith("Hint:"):
            await pilot.pause(0.1)
        await pilot.pause(0.3)
        to_png(app.export_screenshot(title="Voltage"), HERE / "hint-80x24.png")
        print(HERE / "hint-80x24.png")
    backend.close()
    store, key, ids = _store_with_matches(tmp / "coach")
    lobby = Lobby(store=store, seed=1)
    app = make_app(SSHBackend(lobby, lobby.connect(key, "alice")), player_name="alice")
    async with app.run_test(size=(80, 24)) as pilot:  # the replay's chart, on a mistake
        await pilot.press("enter")
        await pilot.pause(0.3)
        app.push_screen(app.backend.replay_screen(ids[0]))
        await pilot.pause(0.3)
        await pilot.press("c")
        while app.screen.moves is None:
            await pilot.pause(0.2)
        for _ in range(2):
            await pilot.press("m")
        await pilot.pause(0.3)
        to_png(app.export_screenshot(title="Voltage"), HERE / "replay-chart-80x24.png")
        print(HERE / "replay-chart-80x24.png")
    store.close()
    backend = LocalBackend(seed=5, bot_delay=0.0)
    app = make_app(backend, player_name="Ann", pacing=NO_FLASH)
    async with app.run_test(size=(80, 24)) as pilot:  # a lesson: the bypass, after a wrong move
        await pilot.press("l")
        await pilot.pause(0.3)
        screen = app.screen
        assert isinstance(screen, LessonScreen)
        screen.lesson_handle.load(2)
        screen.refresh_match()
        wrong = next(a for a in screen.view.legal if getattr(a, "target", None) is not None and a.target.value == 1)
        await screen.submit(wrong)
        await pilot.pause(0.3)
        to_png(app.export_screenshot(title="Voltage"), HERE / "lesson-80x24.png")
        print(HERE / "lesson-80x24.png")
    backend.close()
    C.use(None)


async def hv_lesson_shots() -> None:
    """Learn High Voltage at 80x24: the wrap-around lesson after a card that does not fit,
    in English and in Catalan."""
    from engine.highvoltage import rules as H
    from server.local import LocalBackend
    from tui import i18n
    from tui.games.highvoltage.lesson import HVLessonScreen

    for code, name in (("en", "hv-lesson-80x24.png"), ("ca", "hv-lesson-80x24-ca.png")):
        backend = LocalBackend(seed=5, bot_delay=0.0)
        app = make_app(backend, player_name="Ann", pacing=NO_FLASH)
        async with app.run_test(size=(80, 24)) as pilot:
            app.set_language(code)
            token = i18n.use(code)
            screen = HVLessonScreen(backend, "Ann")
            await app.push_screen(screen)
            screen.load(1)
            screen.act(screen.view.aim(H.Face(8, 2)))  # 8 on 9 (±3): only 6 or 2 fit
            await pilot.pause(0.3)
            to_png(app.export_screenshot(title="Voltage"), HERE / name)
            i18n.reset(token)
            print(HERE / name)
        backend.close()


async def main() -> None:
    import tempfile

    await shot("match-80x24", (80, 24))
    await shot("match-120x40", (120, 40))
    await shot("match-80x24-light", (80, 24), colours="light")
    await shot("match-80x24-no-color", (80, 24), colours="none")
    with tempfile.TemporaryDirectory() as tmp:
        await lobby_shots(Path(tmp))
    await high_voltage_shot()
    await chat_shots()
    with tempfile.TemporaryDirectory() as tmp:
        await coach_shots(Path(tmp))
    await hv_lesson_shots()


if __name__ == "__main__":
    if sys.argv[1:] == ["coach"]:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(coach_shots(Path(tmp)))
    elif sys.argv[1:] == ["hv-lesson"]:
        asyncio.run(hv_lesson_shots())
    else:
        asyncio.run(main())
