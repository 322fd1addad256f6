"""Hot-seat's two names, asked before the match (:class:`NamesScreen`; Enter twice keeps the defaults)."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from tui.i18n import N_, _
from tui.widgets.keybar import KeyBar
from tui.widgets.prompt import ActionButton


class NamesScreen(ModalScreen[tuple[str, str]]):
    """Hot-seat: the two players' names (Enter twice keeps the defaults)."""

    BINDINGS = [Binding("escape", "cancel", N_("back"), key_display="esc")]
    DEFAULT_CSS = """
    NamesScreen { align: center middle; }
    NamesScreen #names-box { width: 48; height: auto; padding: 1 2; border: double $accent; background: $surface; }
    NamesScreen Input { margin-bottom: 1; }
    NamesScreen #names-buttons { height: 1; align: center middle; }
    NamesScreen ActionButton { background: $primary-muted; }
    """

    def __init__(self, first: str, second: str) -> None:
        super().__init__()
        self.defaults = (first, second)

    def compose(self):
        with Vertical(id="names-box"):
            yield Static(Text(_("Hot-seat: two people, one keyboard"), style="bold"))
            yield Static(Text(_("First player's name (Enter keeps the grey one)"), style="dim"))
            yield Input(placeholder=self.defaults[0], max_length=24, id="name-0")
            yield Static(Text(_("Second player's name"), style="dim"))
            yield Input(placeholder=self.defaults[1], max_length=24, id="name-1")
            with Horizontal(id="names-buttons"):
                yield ActionButton(_("start [⏎]"), "start")
        yield KeyBar()

    def on_input_submitted(self, message: Input.Submitted) -> None:
        if message.input.id == "name-0":
            self.query_one("#name-1", Input).focus()
        else:
            self._done()

    def on_action_button_pressed(self, message: ActionButton.Pressed) -> None:
        self._done()

    def _done(self) -> None:
        names = []
        for i in (0, 1):
            value = self.query_one(f"#name-{i}", Input).value.strip()
            names.append(value or self.defaults[i])
        if names[0] == names[1]:
            names[1] += " (2)"
        self.dismiss((names[0], names[1]))

    def action_cancel(self) -> None:
        self.dismiss(None)
