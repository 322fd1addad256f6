"""The rules document ships with the project: the README links a file in the repository,
and that file is what the ``?`` screen shows."""

from __future__ import annotations

import re
from pathlib import Path

from tests.tui.helpers import local_app, screen_text
from tui.screens.rules import RULES, RulesScreen, rules_text

ROOT = Path(__file__).resolve().parent.parent.parent
LINK = re.compile(r"\[([^\]]*)\]\(([^)\s]+)\)")


def rules_link() -> Path:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [t for _, t in LINK.findall(readme) if "rules" in t.lower() and "://" not in t]
    assert targets, "the README links no rules document"
    return ROOT / targets[0]


def test_the_readme_links_the_rules_file_in_the_repository():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "RULINGS" not in readme and "beside the checkout" not in readme  # nothing outside a clone
    path = rules_link()
    assert path.is_file(), path
    assert path.resolve() == RULES.resolve()  # the very file the ? screen reads
    text = path.read_text(encoding="utf-8")
    assert "## Voltage" in text and "## High Voltage" in text


async def test_the_question_mark_screen_shows_that_file():
    path = rules_link()
    lines = [line.strip("# ") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    app, backend = local_app(seed=1)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, RulesScreen)
        assert rules_text() == path.read_text(encoding="utf-8")
        shown = screen_text(app)
        assert lines[0] in shown and "Voltage (2 players, turn by turn)" in shown, shown
    backend.close()
