"""A node's styles found once per process (piece ``style-cache``): the second session's nodes, set at
once from what the first session's setters stored (a fresh node's rules), hold the very rules Textual's
own ``Stylesheet.apply`` gives them, component classes included."""

from __future__ import annotations

from typing import Any

import pytest

from server.host.common import Seat
from server.host.voltage import Match
from tests.support.compat import needs
from tests.tui.helpers import FixedBackend, local_app
from tui.app import make_app
from tui.pacing import FAST
from tui.textual_compat import gate, share_css, styles


def _apps() -> dict[str, Any]:
    match = Match([Seat("Ann", "a"), Seat("Bob", "b")], seed=3, bot_delay=0)
    return {
        "start": lambda: local_app()[0],
        "voltage-match": lambda: make_app(FixedBackend([match.handle(0)]), player_name="Ann", pacing=FAST),
    }


async def _styles_of(make: Any, layouts: list[Any]) -> dict[str, Any]:
    """Every node of the app's screen: its CSS rules, its components' rules, and what the rules decide
    that Textual keeps apart (displayed, scrollbars shown)."""
    app = make()
    share_css(app)  # (as the server does for every session: the apps share their rule sets)
    out: dict[str, Any] = {}

    def rules(node: Any) -> dict[str, Any]:
        found = dict(node.styles.base._rules)
        if "layout" in found:  # (an object of each node's own, as Textual's setter makes it: by its kind)
            layouts.append(found["layout"])
            found["layout"] = type(found["layout"]).__name__
        return found

    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for n, node in enumerate(app.screen.walk_children(with_self=True)):
            out[f"{n} {node!r}"] = (
                rules(node),
                {name: dict(s.base._rules) for name, s in sorted(node._component_styles.items())},
                node.display,
                getattr(node, "show_vertical_scrollbar", None),
                getattr(node, "show_horizontal_scrollbar", None),
            )
    return out


@needs("style-cache")
@pytest.mark.parametrize("screen", ["start", "voltage-match"])
async def test_a_later_session_s_nodes_hold_the_rules_textual_gives_them(screen: str, monkeypatch: Any) -> None:
    make = _apps()[screen]
    styles.forget_styles()
    layouts: list[Any] = []  # (every node's layout object, every session's: each its own, none shared)
    first = await _styles_of(make, layouts)  # (it finds the rules, and keeps what fresh nodes were set)
    assert styles._SET  # fresh nodes' rules kept
    later = await _styles_of(make, layouts)  # set at once from what was kept
    assert len({id(layout) for layout in layouts}) == len(layouts) > 2
    monkeypatch.setenv("VOLTAGE_TEXTUAL_COMPAT", "style-cache")
    gate.reset()
    try:
        textual_own = await _styles_of(make, [])
    finally:
        monkeypatch.delenv("VOLTAGE_TEXTUAL_COMPAT")
        gate.reset()
    assert len(textual_own) > 10
    assert later == textual_own
    assert first == textual_own
