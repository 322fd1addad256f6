"""The rules of both games as the project plays them (``?`` from anywhere).

The page is ``tui/rules.md``: the project's own rules document, in its own words,
and the one the README links, so a reader of a clone and a player in the app read
the same text.  Each language has its page, written in it (``rules.ca.md``,
``rules.es.md``); the screen shows the session's.  They stay inside the ``tui``
package (not ``docs/``) so that ``pip install .`` installs them as package data
(``[tool.setuptools.package-data]``) and this screen finds them beside the code.
"""

from __future__ import annotations

from pathlib import Path

from rich.markdown import Markdown
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from tui.i18n import N_, current
from tui.widgets.keybar import KeyBar

RULES = Path(__file__).resolve().parent.parent / "rules.md"


def rules_path(language: str | None = None) -> Path:
    """The rules page in ``language`` (None: the session's), or the English one."""
    code = language or current()
    page = RULES.with_name(f"rules.{code}.md")
    return page if code != "en" and page.exists() else RULES


def rules_text(language: str | None = None) -> str:
    return rules_path(language).read_text(encoding="utf-8")


class RulesScreen(Screen):
    BINDINGS = [
        Binding("escape,q,question_mark", "close", N_("back"), key_display="esc"),
        Binding("up,k", "scroll(-1)", "scroll", show=False),
        Binding("down,j", "scroll(1)", N_("scroll"), key_display="↑↓"),
        Binding("pageup,b", "page(-1)", "page", show=False),
        Binding("pagedown,space", "page(1)", N_("page"), key_display="pgup/pgdn"),
        Binding("home", "top", "top", show=False),
    ]
    DEFAULT_CSS = """
    RulesScreen #rules { padding: 0 2; }
    RulesScreen #rules-text { max-width: 100; }
    """

    def compose(self):
        with VerticalScroll(id="rules"):
            # Rich's Markdown in one Static: far quicker to show than a widget per block.
            yield Static(Markdown(rules_text(), hyperlinks=False), id="rules-text")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#rules").focus()

    def reword(self) -> None:
        """The language changed: its page."""
        self.query_one("#rules-text", Static).update(Markdown(rules_text(), hyperlinks=False))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_scroll(self, delta: int) -> None:
        self.query_one("#rules", VerticalScroll).scroll_relative(y=delta * 2, animate=False)

    def action_page(self, delta: int) -> None:
        s = self.query_one("#rules", VerticalScroll)
        s.scroll_relative(y=delta * max(1, s.size.height - 2), animate=False)

    def action_top(self) -> None:
        self.query_one("#rules", VerticalScroll).scroll_home(animate=False)
