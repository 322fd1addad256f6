"""The Textual pieces of ``tui/textual_compat``: written for one Textual, pinned with the snapshots,
and on any other version backed off to Textual's own code with one warning line per process, the app
still served and drawn (a faked version, in a process of its own)."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.support.ssh import ROOMY_STARTS
from tui.textual_compat import gate

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_gate(monkeypatch):
    """The gate decides again under the test's version and environment, and again after it."""
    monkeypatch.delenv("VOLTAGE_TEXTUAL_COMPAT", raising=False)
    gate.reset()
    yield monkeypatch
    gate.reset()


def test_the_pin_the_snapshots_and_the_pieces_name_one_textual():
    pins = [d for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
            if re.match(r"textual\b", d)]
    assert pins == [f"textual=={gate.WRITTEN_FOR}"]
    assert (ROOT / "tests/tui/snapshots/TEXTUAL_VERSION").read_text().strip() == gate.WRITTEN_FOR


def test_another_version_backs_every_piece_off_with_one_warning(fresh_gate, caplog):
    fresh_gate.setattr(gate, "installed_version", lambda: "9.0.0")
    with caplog.at_level(logging.WARNING, logger="tui.textual_compat"):
        assert not any(gate.enabled(piece) for piece in gate.PIECES)
        assert gate.backed_off() == list(gate.PIECES)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1, lines  # one line, however often asked
    assert "Textual 9.0.0 is installed" in lines[0] and f"written for {gate.WRITTEN_FOR}" in lines[0]
    assert all(piece in lines[0] for piece in gate.PIECES)


@pytest.mark.parametrize(("setting", "version", "off"), [
    ("", gate.WRITTEN_FOR, []),
    ("off", gate.WRITTEN_FOR, list(gate.PIECES)),
    ("frames, strips", gate.WRITTEN_FOR, ["frames", "strips"]),
    ("force", "9.0.0", []),
])
def test_the_environment_switches_pieces_off_or_forces_them(fresh_gate, caplog, setting, version, off):
    fresh_gate.setattr(gate, "installed_version", lambda: version)
    fresh_gate.setenv("VOLTAGE_TEXTUAL_COMPAT", setting)
    with caplog.at_level(logging.WARNING, logger="tui.textual_compat"):
        assert gate.backed_off() == off
    assert len(caplog.records) == (0 if setting == "" else 1)


# -- a server on a faked Textual version, in a process of its own ------------------------------------

SESSIONS = ("alice", "bob")


async def scenario() -> None:
    """Serve two sessions on a Textual that is "9.0.0": each reaches the lobby, opens the rules and
    leaves them with a lone Escape.  Prints what the parent test checks, as JSON."""
    import asyncio

    from textual.strip import Strip

    gate.installed_version = lambda: "9.0.0"  # before anything asks the gate
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")

    from server import gcpolicy
    from server.config import ServerConfig
    from server.serve import local_sessions
    from server.ssh.server import VoltageServer
    from tests.support.terminal import Terminal
    from tui import textual_compat

    textual_divide = Strip.divide
    config = ServerConfig(host="127.0.0.1", port=0, session_starts=ROOMY_STARTS)
    server = VoltageServer(config, local_sessions(config))
    await server.start()
    gcpolicy.install()
    screens = []
    try:
        for name in SESSIONS:
            t = await Terminal(100, 32).connect(server.port, name)
            try:
                await t.wait_for("Your name")
                t.press("enter")
                await t.wait_for(f"you: {name}")
                t.send("?")
                await t.wait_until(lambda t=t: "you: " not in t.text(), "the rules screen")
                t.press("escape")  # alone: a key once the parser's delay is over
                await t.wait_for(f"you: {name}")
                screens.append(t.text())
            finally:
                await t.close()
        deadline = asyncio.get_running_loop().time() + 10
        while server.sessions.running and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.02)
        policy = gcpolicy.current()
        print(json.dumps({
            "screens": screens,
            "backed_off": textual_compat.backed_off(),
            "strips_as_textual_made_them": Strip.divide is textual_divide,
            "policy_manages": policy is not None and policy.manage,
        }))
    finally:
        gcpolicy.uninstall()
        server.close()
        await server.wait_closed()


def test_on_another_textual_the_pieces_back_off_and_the_app_still_serves_a_lobby():
    code = "import asyncio; from tests.tui import test_textual_compat as t; asyncio.run(t.scenario())"
    env = {k: v for k, v in os.environ.items() if k != "VOLTAGE_TEXTUAL_COMPAT"}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    warnings = [line for line in out.stderr.splitlines() if line.startswith("WARNING")]
    assert len(warnings) == 1, out.stderr  # one line for the process, not one per session
    assert "Textual 9.0.0 is installed" in warnings[0]
    assert seen["backed_off"] == list(gate.PIECES)
    assert seen["strips_as_textual_made_them"] and not seen["policy_manages"]
    for name, screen in zip(SESSIONS, seen["screens"], strict=True):
        assert f"you: {name}" in screen and "Voltage: lobby" in screen and "Quick match" in screen  # drawn by Textual


@pytest.mark.skipif(gate.installed_version() != gate.WRITTEN_FOR, reason="not the pinned Textual (see the probe)")
def test_on_the_pinned_textual_every_piece_finds_what_it_needs():
    """(On another Textual ``make textual-latest`` prints what each piece misses there.)"""
    from tui.textual_compat import probe

    assert {piece: lacks for piece, lacks in probe.missing().items() if lacks} == {}


async def test_a_screen_with_css_of_its_own_is_parsed_once_for_every_session():
    # A screen with CSS of its own, pushed in an app, makes Textual reparse every source in a fresh
    # stylesheet: with the sessions' shared cache, a second session's push parses nothing, and its
    # screen still looks as its CSS says.
    import textual.css.stylesheet as textual_stylesheet
    from textual.app import App
    from textual.screen import Screen
    from textual.widgets import Static

    from tui.textual_compat import share_css

    class Framed(Screen[None]):
        CSS = "Framed #label { color: red; width: 17; }"

        def compose(self):
            yield Static("framed", id="label")

    parsed: list[object] = []
    parse = textual_stylesheet.parse

    def counted(*args, **kwargs):
        parsed.append(args[2])  # (read_from)
        return parse(*args, **kwargs)

    async def session() -> tuple[int, str, int]:
        app: App[None] = App()
        share_css(app)
        async with app.run_test() as pilot:
            before = len(parsed)
            await app.push_screen(Framed())
            await pilot.pause()
            label = app.screen.query_one("#label", Static)
            return len(parsed) - before, str(label.styles.color), label.size.width

    textual_stylesheet.parse = counted
    try:
        first = await session()
        second = await session()
    finally:
        textual_stylesheet.parse = parse
    assert first[0] >= 1  # the first session parses the screen's CSS (and its sources)
    assert second == (0, first[1], 17), (first, second)  # the second parses nothing, and looks the same
    assert "255, 0, 0" in second[1]  # red, from the screen's CSS


async def _render_labels(texts: list[object]) -> list[list[tuple[str, object]]]:
    """One session (an app of its own) showing ``texts`` in labels 30 cells wide, the last one
    centred: each label's lines as (text, style) segments, as the compositor gets them."""
    from textual.app import App
    from textual.widgets import Label

    class Labels(App[None]):
        CSS = "Label { width: 30; } #centred { text-align: center; width: 30; }"

        def compose(self):
            for n, text in enumerate(texts):
                yield Label(text, id="centred" if n == len(texts) - 1 else None)

    app = Labels()
    out: list[list[tuple[str, object]]] = []
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        for label in app.query(Label):
            strips = label.render_lines(label.region.reset_offset)
            out.append([(seg.text, seg.style) for strip in strips for seg in strip])
    return out


async def test_content_one_session_rendered_is_not_rendered_again_by_the_next_and_reads_the_same():
    # Every session's lobby renders the same headings and menu lines in the same width: the second
    # session takes the first one's lines (piece content-strips), which read as Textual's own, styles
    # and all; content styled by a component class's name depends on the widget, and is rendered again.
    import textual.content as textual_content
    from rich.text import Text
    from textual.content import Content

    from tui.textual_compat import content_strips

    texts: list[object] = [
        Text.assemble(("Quick match", "bold"), ": ", ("Voltage", "underline red")),
        Content.from_markup("[b]Play[/b] a bot: [italic]Expert[/italic] and more words to wrap"),
        Content("plain", spans=[textual_content.Span(0, 5, ".label--dim")]),  # a component class's style
        Text("centred heading", style="reverse"),
    ]
    made: list[str] = []
    content_strips.unpatch_content_strips()
    render = Content.render_strips

    def counted(self, *args, **kwargs):  # (what reaches Textual's own render)
        made.append(self.plain)
        return render(self, *args, **kwargs)

    try:
        textual_own = await _render_labels(texts)
        assert content_strips.patch_content_strips()
        content_strips._ORIGINAL["render_strips"] = counted
        first = await _render_labels(texts)
        first_made = list(made)
        made.clear()
        second = await _render_labels(texts)
    finally:
        content_strips.unpatch_content_strips()
        Content.render_strips = render
        content_strips.patch_content_strips()
    assert first == textual_own and second == textual_own  # the same lines, segment for segment
    assert sorted(first_made) == sorted(["Quick match: Voltage", "Play a bot: Expert and more words to wrap",
                                         "plain", "centred heading"])
    assert made == ["plain"]  # the next session rendered only the widget-styled one again
    assert textual_own[0][0] == ("Quick match", textual_own[0][0][1]) and textual_own[0][0][1].bold


async def test_every_app_of_a_theme_is_given_the_theme_s_tokens_but_its_own_lists():
    # The theme's 168 variables are tokenized once per process (piece theme-tokens), and each app's
    # stylesheet gets lists of its own: CSS that sets a variable again adds to its app's list only.
    import textual.css.tokenize as textual_tokenize
    from textual.app import App

    from tui.textual_compat import session

    tokenized = []
    tokenize = session._tokenize_values

    def counted(values):
        tokenized.append(len(values))
        return tokenize(values)

    session._THEME_TOKENS.clear()
    session._tokenize_values = counted
    try:
        apps = [App(), App()]
        for app in apps:
            assert session.share_theme_tokens(app.stylesheet)
    finally:
        session._tokenize_values = tokenize
    assert len(tokenized) == 1 and tokenized[0] > 100
    first, second = (app.stylesheet._variable_tokens for app in apps)
    assert first == second == textual_tokenize.tokenize_values(apps[0].stylesheet._variables)
    assert first["primary"] is not second["primary"]
    first["primary"].append("changed")
    assert "changed" not in second["primary"]


def test_the_app_s_theme_variables_are_textual_s_for_each_theme_and_each_app_has_its_own():
    # VoltageApp makes a theme's CSS variables once per process (Textual makes them per app): still
    # Textual's own for the theme the app shows, dark or light, and a dict of each app's own.
    from textual.app import App

    from tui.app import THEMES, VoltageApp

    apps = [VoltageApp(backend=None), VoltageApp(backend=None)]
    backgrounds = set()
    for theme in THEMES.values():
        made = []
        for app in apps:
            app.theme = theme
            made.append(app.get_css_variables())
            assert app.theme_variables is made[-1]
        assert made[0] == made[1] == App.get_css_variables(apps[0])
        assert made[0] is not made[1]
        backgrounds.add(made[0]["background"])
    assert len(backgrounds) == len(THEMES)  # (each theme its own)


def test_a_callback_s_parameters_are_counted_as_inspect_counts_them_and_read_once_per_code(monkeypatch):
    # Textual asks how many parameters every callback takes; callables made afresh (a partial, a
    # closure, an object like Textual's AwaitMount) are counted once per code (piece param-counts).
    import inspect
    from functools import partial

    from tui.textual_compat import callbacks

    class Awaited:
        def __call__(self, a, b=1):
            return a

    class Handler:
        def on(self, event, extra=None):
            return event

    def plain(a, b, c):
        return a

    def made(n):
        return [lambda x: x, partial(plain, n), Awaited(), Handler().on, plain, (lambda: n)]

    read = []
    signature = inspect.signature

    def counted(func, *args, **kwargs):
        read.append(func)
        return signature(func, *args, **kwargs)

    monkeypatch.setattr(callbacks.inspect, "signature", counted)
    callbacks._BY_CODE.clear()
    first = [callbacks.count_parameters(f) for f in made(1)]
    assert first == [len(signature(f).parameters) for f in made(1)] == [1, 2, 2, 2, 3, 0]
    read.clear()
    assert [callbacks.count_parameters(f) for f in made(2)] == first
    assert read == []  # the second batch of fresh callables read no signature
