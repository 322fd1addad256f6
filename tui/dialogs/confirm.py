"""A yes/no question over the current screen (``y``/``enter`` yes, ``n``/``esc`` no).

:class:`QuitScreen` is the one Ctrl+Q asks in a live match; a second Ctrl+Q answers
yes (the app's priority binding sees it first), as "press twice to quit" does elsewhere.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from tui.i18n import N_, _
from tui.widgets.keybar import KeyBar
from tui.widgets.prompt import ActionButton


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS = [
        Binding("y,enter", "answer(True)", N_("yes"), key_display="y/⏎"),
        Binding("n,escape", "answer(False)", N_("no"), key_display="n/esc"),
    ]
    DEFAULT_CSS = """
    ConfirmScreen { align: center middle; }
    ConfirmScreen > #dialog {
        width: 44; height: auto; padding: 1 2;
        border: thick $warning; background: $surface;
    }
    ConfirmScreen #question { width: 1fr; content-align: center middle; text-align: center; text-style: bold; }
    ConfirmScreen #answers { height: 1; margin-top: 1; align: center middle; }
    ConfirmScreen ActionButton { background: $primary-muted; }
    """

    def __init__(self, question: str, *, yes: str = "", no: str = "") -> None:
        super().__init__()
        self.question = question
        self.yes, self.no = yes or _("yes"), no or _("no")

    def compose(self):
        with Vertical(id="dialog"):
            yield Static(Text(self.question, justify="center"), id="question")
            with Horizontal(id="answers"):
                yield ActionButton(_("%(answer)s [y]") % {"answer": self.yes}, "yes")
                yield ActionButton(_("%(answer)s [n]") % {"answer": self.no}, "no")
        yield KeyBar()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_action_button_pressed(self, message: ActionButton.Pressed) -> None:
        self.dismiss(message.action == "yes")


class QuitScreen(ConfirmScreen):
    """Ctrl+Q in a live match: quit the app (yes) or go on playing (no)."""

    DEFAULT_CSS = """
    QuitScreen > #dialog { width: 56; }
    """

    def __init__(self, question: str) -> None:
        super().__init__(question, yes=_("quit"), no=_("keep playing"))
