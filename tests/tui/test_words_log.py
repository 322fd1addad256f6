"""One minus sign everywhere: the log says a block flipped to "−", the sign
the board's blocks show, never an ASCII hyphen."""

from __future__ import annotations

import pytest

from engine.voltage import rules as V
from tests.support.wait import until
from tests.support.words import log_of
from tests.tui.helpers import FixedBackend
from tests.tui.test_words_screens import rows_of, voltage_match
from tui.app import make_app
from tui.games.voltage.match import MatchScreen
from tui.games.voltage.words import line
from tui.pacing import NO_FLASH
from tui.text import sign

NAMES = ("Ann", "Bob")


def test_the_log_words_a_minus_block_with_the_boards_sign():
    flip = line(V.Event("flip", seat=0, terminal=1, plus=False), NAMES)
    assert flip == f"Ann flipped green to {sign(False)}."
    assert "-" not in flip
    score = line(V.Event("score", seat=1, terminal=2, totals=(3, 1), plus=False, winner=0), NAMES)
    assert score.startswith(f"Blue ({sign(False)}) scored")
    assert line(V.Event("flip", seat=0, terminal=1, plus=True), NAMES) == "Ann flipped green to +."


async def test_a_real_flip_reads_the_same_in_the_log_as_on_the_block():
    m = voltage_match("flip")
    app = make_app(FixedBackend([m.handle(0)]), player_name="Ann", pacing=NO_FLASH)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(lambda: isinstance(app.screen, MatchScreen))
        await pilot.pause()
        await pilot.press("o")  # orange was +: now −
        await until(lambda: any("flipped orange" in line for line in log_of(m)))
        await pilot.pause()
        line = next(line for line in reversed(log_of(m)) if "flipped orange" in line)
        assert line.endswith(f"to {sign(False)}.")
        shown = "\n".join(rows_of(app))
        assert f"{sign(False)}." in shown and " -." not in shown and "\n-." not in shown


@pytest.mark.parametrize("code", ["en", "ca", "es"])
def test_a_log_line_gets_its_marker_in_every_language(code):
    from tui import i18n
    from tui.text import classify_log

    lines = {
        "score": ("%(colour)s (%(sign)s) scored %(a)d-%(b)d: %(winner)s wins the set.",
                  {"colour": "Red", "sign": "+", "a": 3, "b": 2, "winner": "Ann"}),
        "flip": ("%(who)s flipped %(colour)s to %(sign)s.", {"who": "Ann", "colour": "red", "sign": "-"}),
        "end": ("%(winner)s wins the match %(won)d-%(lost)d (%(reason)s).",
                {"winner": "Ann", "won": 4, "lost": 2, "reason": "four sets"}),
        "transformer": ("%(who)s drew a transformer.", {"who": "Bob"}),
        "plain": ("%(who)s drew a card.", {"who": "Bob"}),
    }
    with i18n.language(code):
        for kind, (message, values) in lines.items():
            line = i18n._(message) % values
            assert classify_log(line) == kind, line
