"""Turn clocks, pure: a time control, and a clock folded from the time each seat used.

A :class:`TimeControl` is a bank per seat (``initial_s``) plus a Fischer increment
(``increment_s``) added to a seat's bank each time it ends a turn; it is written the
way players say it, ``"5+5"`` (minutes + seconds), and read back by :func:`parse`
(``"none"`` or ``""``: no clock).  A :class:`Clock` is nothing but the control and,
per seat, the milliseconds used and the turns ended, so it is *folded* from a stored
log (each action's used time and whether it ended its seat's turn) and the same
fold gives the same banks after a restart.  Time itself never enters here: the host
measures (``time.monotonic()``) and charges; this module adds and compares.

Decisions:

- **The default is 5+5** (:data:`DEFAULT`), for quick matches and bots.  A Voltage turn
  is 2 to 5 decisions (a card, a second card or a draw, a flip per transformer) of
  2 to 5 s each, so a careful turn takes 10-20 s; with 5 s back per turn a player who
  averages 12 s loses about 7 s a turn and still has a minute left after 40 turns (a
  long match), while a stalling opponent flags within 5 minutes.
- The increment is added when a seat *ends its turn* (the move passes to the other
  seat), not per action: a turn of five decisions is not worth five increments.
- A bank may go below zero (a bot, which never loses on time, or the moment between
  the flag and the host's timeout); :meth:`Clock.remaining_ms` reports it as it is and
  screens show 0:00.
- :class:`ClockView` is what a screen gets: each seat's remaining milliseconds at the
  wall-clock moment ``as_of`` (``time.time()``, comparable across processes, unlike
  monotonic time), and which seat's clock runs, so a screen counts down on its own
  between updates.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True)
class TimeControl:
    """A bank of ``initial_s`` seconds per seat, plus ``increment_s`` per turn ended."""

    initial_s: float
    increment_s: float = 0.0

    def __post_init__(self) -> None:
        if self.initial_s <= 0 or self.increment_s < 0:
            raise ValueError("a time control needs a positive bank and an increment of 0 or more")

    @property
    def text(self) -> str:
        """``"5+5"``: minutes + seconds; a bank that is no whole number of minutes is
        written in seconds, ``"90s+2"`` (tests use ``"2s+0"``)."""
        minutes = self.initial_s / 60
        bank = _num(minutes) if float(minutes).is_integer() else f"{_num(self.initial_s)}s"
        return f"{bank}+{_num(self.increment_s)}"

    def __str__(self) -> str:
        return self.text


#: Quick matches and bots on the server (see the module docstring for why).
DEFAULT = TimeControl(300, 5)

_CONTROL = re.compile(r"^\s*(\d+(?:\.\d+)?)(s?)\s*\+\s*(\d+(?:\.\d+)?)\s*$")


def parse(text: str | None) -> TimeControl | None:
    """``"5+5"`` -> 5 minutes + 5 s; ``"90s+2"`` -> 90 s + 2 s; ``"none"``, ``"-"`` or
    empty -> None (no clock).  Raises ``ValueError`` saying what is expected."""
    if text is None or text.strip().lower() in ("", "none", "-", "off"):
        return None
    m = _CONTROL.match(text)
    if not m:
        raise ValueError(f"{text!r}: a time control is MINUTES+SECONDS, e.g. 5+5 (or none)")
    bank = float(m.group(1)) * (1 if m.group(2) else 60)
    return TimeControl(bank, float(m.group(3)))


def format_control(control: TimeControl | None) -> str:
    """The inverse of :func:`parse` (``"none"`` for no clock)."""
    return control.text if control is not None else "none"


def format_ms(ms: float) -> str:
    """A bank as a player reads it: ``4:32``, whole seconds rounded up (a bank shows
    0:00 only once it ran out); never negative."""
    s = -int(-ms // 1000) if ms > 0 else 0
    return f"{s // 60}:{s % 60:02d}"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


@dataclass
class Clock:
    """The banks of a match's seats: ``used_ms[seat]`` and ``turns[seat]`` (turns ended)."""

    control: TimeControl
    seats: int = 2
    used_ms: list[int] = field(default_factory=list)
    turns: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not self.used_ms:
            self.used_ms = [0] * self.seats
        if not self.turns:
            self.turns = [0] * self.seats

    def charge(self, seat: int, ms: int, ends_turn: bool) -> None:
        """``seat`` used ``ms`` for one action; ``ends_turn``: it passed the move on."""
        self.used_ms[seat] += max(0, int(ms))
        if ends_turn:
            self.turns[seat] += 1

    def remaining_ms(self, seat: int, running_ms: float = 0) -> int:
        """``seat``'s bank now, less ``running_ms`` of a turn not yet charged."""
        c = self.control
        return int(c.initial_s * 1000 + self.turns[seat] * c.increment_s * 1000 - self.used_ms[seat] - running_ms)

    def flagged(self, seat: int, running_ms: float = 0) -> bool:
        """Has ``seat``'s bank run out?"""
        return self.remaining_ms(seat, running_ms) <= 0

    @classmethod
    def fold(cls, control: TimeControl, entries: Iterable[tuple[int, int | None, bool]], seats: int = 2) -> Clock:
        """The clock after ``entries``: (seat, used ms or None when not kept, ends turn)."""
        clock = cls(control, seats)
        for seat, ms, ends in entries:
            clock.charge(seat, ms or 0, ends)
        return clock

    def view(self, running: int | None, running_ms: float, as_of: float) -> ClockView:
        """What a screen shows: every bank at ``as_of``, ``running``'s less its turn so far."""
        return ClockView(
            self.control.text,
            tuple(self.remaining_ms(s, running_ms if s == running else 0) for s in range(self.seats)),
            running,
            as_of,
        )


@dataclass(frozen=True)
class ClockView:
    """A clock as sent to a screen: ``remaining_ms`` per seat at wall time ``as_of``,
    and the seat whose clock runs (None: stopped, e.g. the match is over)."""

    control: str
    remaining_ms: tuple[int, ...]
    running: int | None
    as_of: float

    def remaining(self, seat: int, now: float) -> int:
        """``seat``'s bank at wall time ``now`` (the running one counted down)."""
        ms = self.remaining_ms[seat]
        if seat == self.running:
            ms -= int(max(0.0, now - self.as_of) * 1000)
        return ms
