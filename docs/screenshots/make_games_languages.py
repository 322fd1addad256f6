"""The games' screenshots in Catalan and Spanish at 80x24: ``python docs/screenshots/make_games_languages.py``.

Voltage's match in the snapshot tests' position (tests/tui/test_snapshots.py), then with a
card picked (the choice of its side open), and High Voltage against two bots (the table a
moment into the match), each as a session of that language reads it.  The PNGs are made as
``make.py`` makes its own (:func:`make.to_png`).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE))

from make import to_png  # noqa: E402

from tests.tui.helpers import ContractHandle, FixedBackend  # noqa: E402
from tests.tui.test_snapshots import position  # noqa: E402
from tui import i18n  # noqa: E402
from tui.app import make_app  # noqa: E402
from tui.games.voltage.match import MatchScreen  # noqa: E402
from tui.pacing import NO_FLASH  # noqa: E402


async def match_shots(code: str) -> None:
    m = await position()
    with i18n.language(code):  # (the app keeps the language it was made in)
        app = make_app(FixedBackend([ContractHandle(m.handle(0))]), player_name="Ann", pacing=NO_FLASH)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        to_png(app.export_screenshot(title="Voltage"), HERE / f"match-{code}-80x24.png")
        screen = app.screen
        assert isinstance(screen, MatchScreen)
        card = next((o for o in screen.step.options if o.slot is not None), None)
        if card is not None:
            await pilot.press(card.key)
            await pilot.pause()
            to_png(app.export_screenshot(title="Voltage"), HERE / f"match-choice-{code}-80x24.png")
    print(HERE / f"match-{code}-80x24.png")


async def high_voltage_shot(code: str) -> None:
    from server.host.common import Seat
    from server.host.highvoltage import HVMatch, bot_seat
    from tui.games.highvoltage.match import HVMatchScreen

    m = HVMatch([Seat("Ann", "ann"), bot_seat("medium"), bot_seat("fast")], seed=4,
                countdown_seconds=0.01, bot_speed=1.0)

    class HVBackend:
        def home_screen(self):
            return HVMatchScreen([m.handle(0)], self)

    with i18n.language(code):
        app = make_app(HVBackend(), player_name="Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        m.start()
        while not (isinstance(app.screen, HVMatchScreen) and app.screen.view.can_act):
            await pilot.pause(0.05)
        await pilot.pause(2.5)  # a few of the bots' plays in the feed
        png = HERE / f"high-voltage-{code}-80x24.png"
        to_png(app.export_screenshot(title="Voltage"), png)
        print(png)
    m.close()


async def main() -> None:
    for code in ("ca", "es"):
        await match_shots(code)
        await high_voltage_shot(code)


if __name__ == "__main__":
    asyncio.run(main())
