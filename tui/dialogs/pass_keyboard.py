"""Hot-seat: between turns the next player takes the keyboard; their hand shows only after they confirm."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Static

from tui.i18n import N_, _
from tui.screens.base import SizedScreen, TooSmall
from tui.text import LOG_MARK, classify_log, name_text, safe
from tui.widgets.keybar import KeyBar


class PassKeyboardScreen(SizedScreen):
    BINDINGS = [Binding("enter,space", "ready", N_("I'm ready"), key_display="⏎")]
    DEFAULT_CSS = """
    PassKeyboardScreen { align: center middle; }
    PassKeyboardScreen #pass-box {
        width: 60; height: auto; padding: 1 2; border: double $accent; background: $surface;
    }
    PassKeyboardScreen #pass-box > Static { width: 1fr; }
    PassKeyboardScreen #pass-title { text-align: center; text-style: bold; margin-bottom: 1; }
    PassKeyboardScreen #pass-body { text-align: center; }
    PassKeyboardScreen #pass-recent { margin-top: 1; color: $text-muted; }
    PassKeyboardScreen.-narrow #pass-box, PassKeyboardScreen.-short #pass-box { display: none; }
    PassKeyboardScreen.-narrow TooSmall, PassKeyboardScreen.-short TooSmall { display: block; }
    """

    def __init__(self, name: str, recent: list[str] | None = None) -> None:
        super().__init__()
        self.player = name
        self.recent = recent or []

    def compose(self):
        yield TooSmall()
        with Vertical(id="pass-box"):
            t = Text(justify="center")
            t.append(_("Pass the keyboard to") + "\n")
            t.append_text(name_text(self.player, "bold reverse"))
            yield Static(t, id="pass-title")
            body = Text(justify="center")
            head, _gap, tail = (_("%(name)s: press Enter (or click here) when you are ready.\nYour hand stays "
                                  "hidden until then.") % {"name": "\0"}).partition("\0")
            body.append(head)
            body.append_text(name_text(self.player, "bold"))
            body.append(tail)
            yield Static(body, id="pass-body")
            if self.recent:
                r = Text()
                r.append(_("Latest:") + "\n", style="bold")
                for line in reversed(self.recent):
                    r.append(f"{LOG_MARK[classify_log(line)]} {safe(line)}\n")
                yield Static(r, id="pass-recent")
        yield KeyBar()

    def action_ready(self) -> None:
        self.dismiss(None)

    def on_click(self, event: events.Click) -> None:
        self.dismiss(None)
