"""How often one identity may speak: at most ``lines`` lines in ``per`` seconds (5 in
10 s), and never the same line twice in a row within ``repeat_window`` seconds.  A line
over the limit is refused with ``chat_too_fast`` (``wait``: the seconds until the next
one is allowed), a repeat with ``chat_repeated``: the author's screen says so.

The limit is per identity (a key; a guest's one connection), across every room: a
flood cannot move from the lobby to a match.  Kept in memory (a restart forgets it)."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable

from tui.ports import Refused


class RateLimit:
    def __init__(self, lines: int = 5, per: float = 10.0, *, repeat_window: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.lines = lines
        self.per = per
        self.repeat_window = repeat_window
        self.clock = clock
        self._said: dict[str, deque[float]] = {}
        self._last: dict[str, tuple[str, float]] = {}

    def check(self, who: str, line: str) -> None:
        """Raise :class:`Refused` if ``who`` may not say ``line`` now; else count it."""
        now = self.clock()
        said = self._said.setdefault(who, deque())
        while said and said[0] <= now - self.per:
            said.popleft()
        last = self._last.get(who)
        if last is not None and last[0] == line and now - last[1] < self.repeat_window:
            raise Refused("chat_repeated")
        if len(said) >= self.lines:
            raise Refused("chat_too_fast", wait=max(1, math.ceil(said[0] + self.per - now)))
        said.append(now)
        self._last[who] = (line, now)
        if len(self._said) > 10_000:  # forget the quiet ones
            for key in [k for k, q in self._said.items() if not q or q[-1] <= now - self.per]:
                self._said.pop(key, None)
                self._last.pop(key, None)
