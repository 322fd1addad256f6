"""Each game's part of the lobby screen: its menu lines, what choosing one of them does,
and the words while a quick match, a room or a joined room waits.

The lobby screen (:mod:`tui.screens.lobby`) holds one :class:`LobbyPart` per game it
offers (``tui.games.registry.screens(game).lobby(game, backend)``) and never branches
on the game: it lays the parts out (the first game's lines lead, with "Join a friend's
room" after its room line; every other game follows under a heading made from its
:class:`~engine.game.GameInfo`), asks the part what a chosen line means
(:class:`Choice`) and what to say while waiting, and does the rest itself.

Two shapes of game cover what the lobby offers today, each parametrised by the game's
``GameInfo`` (a third game of either shape is one registry line):

- :class:`DuelPart`: two seats, turn by turn (Voltage): a room is for two, and each bot
  strength is its own line ("Play a bot: Medium").
- :class:`TablePart`: a table of ``min_seats`` to ``max_seats`` (High Voltage): a room's
  seats and a bot line-up are chosen with left/right on their line, a quick table may
  start before it is full, and so may its owner's room ("s: start now").

A part is made per lobby screen (it keeps that screen's choices: a room's seats, the
line-up shown), never shared between sessions: no module-level state.  Item ids are
the part's own ("quick", "room", "bots", "bot:<name>"); the screen prefixes the game id.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from rich.text import Text

from tui import words as W
from tui.i18n import N_, _, pgettext

if TYPE_CHECKING:
    from engine.game import GameInfo
    from tui.ports import LobbyBackend

_WORDS = {1: N_("one"), 2: N_("two"), 3: N_("three"), 4: N_("four"), 5: N_("five"), 6: N_("six"), 7: N_("seven"),
          8: N_("eight")}


_ORDINALS = {1: N_("first"), 2: N_("second"), 3: N_("third"), 4: N_("fourth"), 5: N_("fifth"), 6: N_("sixth")}


def _word(n: int) -> str:
    return _(_WORDS[n]) if n in _WORDS else str(n)


def _ordinal(n: int) -> str:
    return _(_ORDINALS[n]) if n in _ORDINALS else f"{n}th"


@dataclass(frozen=True)
class Choice:
    """What a chosen menu line asks the lobby to do: ``kind`` is "quick" (the quick
    match), "room" (a private room of ``size`` seats) or "bot" (a match against ``bot``:
    one bot name, or a line-up joined by commas)."""

    kind: str
    size: int = 2
    bot: str = ""
    time_control: str = "default"  # a room's clock as a player writes it ("5+5", "none")


def clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60}:{s % 60:02d}"


class LobbyPart(Protocol):
    """One game's part of one lobby screen (see the module docstring)."""

    game: str
    info: GameInfo
    #: The owner of a room may start it before it is full (bots take the empty seats).
    starts_early: bool
    #: Joining a room waits for it to fill or be started (else the match starts at once).
    room_waits: bool

    @property
    def title(self) -> str: ...  # as the backend names it (else the engine's title)

    def heading(self, width: int | None = None) -> Text: ...  # the line over this game's lines (not the first's)

    def play_lines(self, width: int | None = None) -> list[tuple[str, Text]]: ...  # quick match, private room

    def bot_lines(self) -> list[tuple[str, Text]]: ...

    def adjust(self, item: str, delta: int) -> bool: ...  # left/right on ``item``: changed?

    def choice(self, item: str) -> Choice | None: ...

    async def waiting(self, waited: float, offer_bot: bool) -> str: ...  # the quick match's status

    def bot_instead(self) -> str: ...  # the bot (or line-up) "b" plays after a long wait

    def room_status(self, room: Any, ssh: str, names: tuple[str, ...]) -> str: ...  # the owner's room, filling

    def joined_status(self, code: str, names: tuple[str, ...], size: int) -> str: ...


class _Part:
    """What both shapes share: the game, its title, its heading."""

    starts_early = False
    room_waits = False

    def __init__(self, info: GameInfo, backend: LobbyBackend) -> None:
        self.game = info.id
        self.info = info
        self.backend = backend

    @property
    def title(self) -> str:
        return self.backend.game_titles.get(self.game, self.info.title)

    def heading(self, width: int | None = None) -> Text:
        """The game, its seats and pace; a shorter form when the long one is wider than ``width``."""
        info = self.info
        seats = (str(info.min_seats) if info.min_seats == info.max_seats
                 else f"{info.min_seats}-{info.max_seats}")
        pace = _("real time") if info.real_time else _("turn by turn")
        values = {"title": self.title, "seats": seats, "pace": pace}
        line = _("%(title)s: %(seats)s players, %(pace)s") % values
        if width is not None and len(line) > width:
            line = pgettext("short", "%(title)s: %(seats)s players, %(pace)s") % values
        return Text(line, style="bold")

    def joined_status(self, code: str, names: tuple[str, ...], size: int) -> str:
        return (_("Room %(code)s (%(title)s): %(n)d of %(size)d seated: %(names)s") % {
                    "code": code, "title": self.title, "n": len(names), "size": size, "names": ", ".join(names)}
                + "\n" + _("It starts when full, or when its owner starts it.    Esc: leave the room"))


class DuelPart(_Part):
    """Two seats, turn by turn: one opponent, a bot strength per line.

    ``strengths(backend)`` gives the ``(label, bot name)`` pairs to offer (weakest first);
    a long wait offers the "medium" bot (else the first)."""

    def __init__(self, info: GameInfo, backend: LobbyBackend,
                 strengths: Callable[[LobbyBackend], list[tuple[str, str]]],
                 controls: Sequence[str] = (), default_control: str = "") -> None:
        super().__init__(info, backend)
        self._strengths = strengths
        #: The clocks a private room may have (left/right on its line, in their order: shortest
        #: first), the one chosen at first ``default_control``; () for a game without clocks.
        self.controls = tuple(controls)
        self.control = self.controls.index(default_control) if default_control in self.controls else 0

    def strengths(self) -> list[tuple[str, str]]:
        return list(self._strengths(self.backend))

    @property
    def room_control(self) -> str:
        """The clock chosen for a private room ("" for a game without clocks)."""
        return self.controls[self.control] if self.controls else ""

    def play_lines(self, width: int | None = None) -> list[tuple[str, Text]]:
        """The quick match's line and the private room's (its clock: a short word for none when
        the line is wider than ``width``)."""
        room = Text(_("Private room: %(title)s") % {"title": self.title})
        control = self.room_control
        if control:
            clock = control
            if control == "none":
                clock = _("untimed")  # (fits 80 columns in English)
                if width is not None and room.cell_len + len(clock) + 4 > width - 2:  # (the cursor takes 2)
                    clock = pgettext("short", "untimed")
            room.append(f" {clock}")
            room.append(" ←→", style="dim")
        return [("quick", Text(_("Quick match: %(title)s") % {"title": self.title})), ("room", room)]

    def bot_lines(self) -> list[tuple[str, Text]]:
        return [(f"bot:{bot}", Text(_("Play a bot: %(label)s") % {"label": W.bot_label(bot, label)}))
                for label, bot in self.strengths()]

    def adjust(self, item: str, delta: int) -> bool:
        if item != "room" or len(self.controls) < 2:
            return False
        self.control = (self.control + delta) % len(self.controls)
        return True

    def choice(self, item: str) -> Choice | None:
        if item == "quick":
            return Choice("quick")
        if item == "room":
            return Choice("room", size=self.info.min_seats, time_control=self.room_control or "default")
        if item.startswith("bot:"):
            return Choice("bot", bot=item.split(":", 1)[1])
        return None

    def _offer(self) -> tuple[str, str]:
        strengths = self.strengths()
        for label, bot in strengths:
            if bot == "medium":
                return W.bot_label(bot, label), bot
        return W.bot_label(strengths[0][1], strengths[0][0]), strengths[0][1]

    def bot_instead(self) -> str:
        return self._offer()[1]

    async def waiting(self, waited: float, offer_bot: bool) -> str:
        text = _("Waiting for an opponent... %(clock)s   Esc: leave the queue") % {"clock": clock(waited)}
        if offer_bot:
            text += "\n" + _("No one yet: press b to play a bot (%(bot)s) instead, or keep waiting.") % {
                "bot": self._offer()[0]}
        return text

    def room_status(self, room: Any, ssh: str, names: tuple[str, ...]) -> str:
        control = self.room_control
        if not control:
            head = _("Room %(code)s") % {"code": room.code}
        elif control == "none":
            head = _("Room %(code)s (untimed)") % {"code": room.code}
        else:
            head = _("Room %(code)s (clock %(clock)s)") % {"code": room.code, "clock": control}
        return (_("%(room)s: your friend picks 'Join a friend's room' and types %(code)s,") % {
                    "room": head, "code": room.code}
                + "\n" + _("or connects with: %(ssh)s    Esc: close the room") % {"ssh": ssh})


class TablePart(_Part):
    """A table of ``min_seats`` to ``max_seats``, in real time: left/right choose a
    room's seats (it starts with the most) and the bot line-up shown.

    ``levels(backend)`` gives the bot levels, slowest first; ``await starts_in(backend)`` the
    seconds until this player's quick table starts as it is (None: not counting down)."""

    starts_early = True
    room_waits = True

    def __init__(self, info: GameInfo, backend: LobbyBackend,
                 levels: Callable[[LobbyBackend], tuple[str, ...]],
                 starts_in: Callable[[LobbyBackend], Awaitable[float | None]]) -> None:
        super().__init__(info, backend)
        self._levels = levels
        self._starts_in = starts_in
        self.size = info.max_seats  # the seats of a new room
        self.lineup = 0  # which of lineups() the bots line shows

    def lineups(self) -> list[tuple[str, ...]]:
        """The bot line-ups offered: two mixed, then one to all the other seats of one level."""
        levels = tuple(self._levels(self.backend))
        mixed = [tuple(x for x in ("medium", "fast") if x in levels), levels]
        out = [m for m in mixed if m]
        out += [(level,) * n for n in range(1, self.info.max_seats) for level in levels]
        return list(dict.fromkeys(out))

    @staticmethod
    def lineup_text(lineup: tuple[str, ...]) -> str:
        return W.bot_lineup(lineup)

    def _lineup(self) -> tuple[str, ...]:
        lineups = self.lineups()
        return lineups[self.lineup % len(lineups)]

    def play_lines(self, width: int | None = None) -> list[tuple[str, Text]]:
        room = Text(_("Private room for %(n)d") % {"n": self.size})
        room.append("  " + _("←→ seats"), style="dim")
        return [("quick", Text(_("Quick match: %(title)s") % {"title": self.title})), ("room", room)]

    def bot_lines(self) -> list[tuple[str, Text]]:
        bots = Text(_("Play bots: %(bots)s") % {"bots": self.lineup_text(self._lineup())})
        bots.append("  ←→", style="dim")
        return [("bots", bots)]

    def adjust(self, item: str, delta: int) -> bool:
        if item == "room":  # round, as every other left/right choice
            low, count = self.info.min_seats, self.info.max_seats - self.info.min_seats + 1
            self.size = low + (self.size - low + delta) % count
            return True
        if item == "bots":
            self.lineup = (self.lineup + delta) % len(self.lineups())
            return True
        return False

    def choice(self, item: str) -> Choice | None:
        if item == "quick":
            return Choice("quick")
        if item == "room":
            return Choice("room", size=self.size)
        if item == "bots":
            return Choice("bot", bot=",".join(self._lineup()))
        return None

    def bot_instead(self) -> str:
        return ",".join(self.lineups()[0])

    async def waiting(self, waited: float, offer_bot: bool) -> str:
        info = self.info
        starts_in = await self._starts_in(self.backend)
        n = self.backend.snapshot().waiting.get(self.game, 0)
        text = _("%(title)s: %(n)d at the table, waiting for more... %(clock)s   Esc: leave") % {
            "title": self.title, "n": n, "clock": clock(waited)} + "\n"
        full = _word(info.max_seats)
        if starts_in is not None:
            text += _("Starting in %(clock)s unless more sit down (%(full)s start at once).") % {
                "clock": clock(starts_in + 0.999), "full": full}
        else:
            fewer = _(" or ").join(_word(k) for k in range(info.min_seats, info.max_seats))
            line = _("%(full)s start at once; %(fewer)s start a little after the %(nth)s sits down.") % {
                "full": full, "fewer": fewer, "nth": _ordinal(info.min_seats)}
            text += line[:1].upper() + line[1:]  # (a sentence: whatever word a language puts first)
        if offer_bot and n <= 1:
            text += "\n" + _("No one yet: press b to play bots (%(bots)s) instead, or keep waiting.") % {
                "bots": self.lineup_text(self.lineups()[0])}
        return text

    def room_status(self, room: Any, ssh: str, names: tuple[str, ...]) -> str:
        return (_("Room %(code)s (%(title)s): %(n)d of %(size)d seated: %(names)s") % {
                    "code": room.code, "title": self.title, "n": len(names), "size": room.size,
                    "names": ", ".join(names)}
                + "\n" + _("Friends pick 'Join a friend's room', type %(code)s; or %(ssh)s") % {
                    "code": room.code, "ssh": ssh}
                + "\n" + _("s: start now (bots take the empty seats)    Esc: close the room"))
