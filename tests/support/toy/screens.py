"""Toy's screens (its ``tui/games/<game>/``): a minimal match screen that plays through its
seat handle and words its log, its results, its replay, and its line in the tui's registry."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from textual.binding import Binding
from textual.widgets import Static

from tests.support.toy import rules as T
from tests.support.toy import words
from tui import words as W
from tui.games.registry import GameScreens
from tui.ports import Backend, SeatHandle, Update
from tui.screens.base import PlayScreen
from tui.screens.results import ResultsBase
from tui.screens.stepping import Stepping


class ToyMatchScreen(PlayScreen):
    """The table, your hand, the log; ``1``-``3`` lay a card, ``q`` leaves once it is over."""

    BINDINGS = [*[Binding(str(i + 1), f"lay({i})", "lay") for i in range(3)], Binding("q", "leave", "leave")]

    def __init__(self, handles: Sequence[SeatHandle[Any]], backend: Backend | None = None) -> None:
        super().__init__()
        self.handles = list(handles)
        self.handle = self.handles[0]
        self.backend = backend
        self.error = ""
        self.refresh_match()

    def compose(self):
        yield Static(id="toy")

    def on_mount(self) -> None:
        self._unsubscribe = self.handle.subscribe(self._updated)
        self._draw()

    def on_unmount(self) -> None:
        self._unsubscribe()

    def refresh_match(self, *args: Any, **kwargs: Any) -> None:
        self.view = self.handle.view()
        self.names = tuple(self.handle.names)
        self.lines = words.lines(self.handle.log, self.names)
        self.notice = W.notice(self.handle.notice)
        if self.is_mounted:
            self._draw()

    def _updated(self, update: Update[Any]) -> None:
        self.view, self.names = update.view, tuple(update.names) or self.names
        self.lines += words.lines(update.entries, self.names)
        self.notice = W.notice(update.notice)
        self._draw()
        if self.view.over:
            self.results_after(0)

    def _draw(self) -> None:
        v = self.view
        t = Text()
        t.append(f"{self.notice}\n" if self.notice else "")
        for seat, cards in enumerate(v.table):
            t.append(f"{self.names[seat]}: {' '.join(map(str, cards))}\n")
        t.append(f"hand: {' '.join(map(str, v.hand or ()))}  {self.error}\n")
        t.append("\n".join(self.lines))
        self.query_one("#toy", Static).update(t)

    @property
    def playing(self) -> bool:
        return self.view.seat is not None and not self.view.over

    async def action_lay(self, slot: int) -> None:
        hand = self.view.hand or ()
        if slot < len(hand) and self.view.seat is not None:
            try:
                await self.handle.submit(T.Play(self.view.seat, hand[slot]))
                self.error = ""
            except ValueError as e:
                self.error = words.refusal(e)
            self._draw()

    def rematch_screen(self, handles: Any) -> Any:
        return ToyMatchScreen(handles, self.backend)


class ToyResultsScreen(ResultsBase):
    NOBODY = "A draw"

    def body_text(self) -> Text:
        return Text("  ".join(f"{n} {sum(c)}" for n, c in zip(self.names, self.final.table, strict=True)))

    def status_text(self) -> str:
        return ""


class ToyReplayScreen(Stepping, ToyMatchScreen, inherit_bindings=False):
    BINDINGS = Stepping.keys("round")
    WORDS = words


def _start(app: Any, backend: Any, player: str, opponent: str) -> None:
    app.push_screen(ToyMatchScreen(backend.start_match("toy", opponent, player), backend))


SCREENS = GameScreens(
    "toy",
    match=lambda handles, backend: ToyMatchScreen(handles, backend),
    results=lambda handles, backend, view, names: ToyResultsScreen(handles, backend, view, names),
    replay=lambda source, step: ToyReplayScreen(source, step),
    start=_start,
    words=lambda: words,
)
