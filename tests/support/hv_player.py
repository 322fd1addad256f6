"""A High Voltage player over SSH that plays like a person: it reads the top card and its hand
from its own screen (pyte-rendered) and presses a card's key, ``d`` or ``s``."""

from __future__ import annotations

import asyncio
import re
import time

from tests.support.terminal import Terminal

_TOP = re.compile(r"┃\s+(\d+)\s+±(\d) (turquoise|yellow|red)\s+┃")
_TOP_NO = re.compile(r"top card #(\d+)")
_KEYS = re.compile(r"[╭┏╔][─━═]([0-9a-z])[─━═]")
_CARDS = re.compile(r"[│┃║]\s*(\d+)\s*±(\d)\s*[│┃║]")


def read_screen(text: str) -> tuple[tuple[int, int] | None, list[tuple[str, int]], tuple[int, int] | None]:
    """What a person sees: the top card (value, modifier), the hand (key, value), and
    their own row of the players table (hand, pile)."""
    lines = text.splitlines()
    top = None
    for line in lines:
        m = _TOP.search(line)
        if m:
            top = (int(m.group(1)), int(m.group(2)))
    hand: list[tuple[str, int]] = []
    for i, line in enumerate(lines[:-1]):
        keys = _KEYS.findall(line)
        cards = _CARDS.findall(lines[i + 1])
        if keys and len(keys) == len(cards):
            hand += [(k, int(v)) for k, (v, _m) in zip(keys, cards, strict=True)]
    me = re.search(r"▸ \S+\s+(\d+)\s+(\d+)", text)
    return top, hand, (int(me.group(1)), int(me.group(2))) if me else None


def fits(value: int, top: tuple[int, int]) -> bool:
    v, m = top
    return value in ((v + m - 1) % 10 + 1, (v - m - 1) % 10 + 1)


async def play(t: Terminal, done: asyncio.Event) -> int:
    """Play from the screen until the results show; returns the keys pressed."""
    pressed = 0
    stuck_at: str | None = None
    seen = -1
    while not done.is_set():
        if t.frames == seen:  # nothing new on the screen: look again a moment later
            await asyncio.sleep(0.01)
            continue
        seen = t.frames
        text = t.text()
        if "wins High Voltage" in text or "Nobody wins" in text:
            return pressed
        top, hand, me = read_screen(text)
        if top is None or me is None or "Wait for the countdown" in text or "Play any time" not in text:
            continue
        key = next((k for k, v in hand if fits(v, top)), None)
        if key is None:
            if me[1] > 0:
                key = "d"
            elif stuck_at != text.split("feed")[0]:
                key, stuck_at = "s", text.split("feed")[0]
        if key is not None:
            t.press(key)
            pressed += 1
            deadline = time.monotonic() + 1.0
            while t.frames == seen and time.monotonic() < deadline and not done.is_set():
                await asyncio.sleep(0.005)  # wait for the screen to answer
            # Pacing, not a wait for a condition: the rest of the frame, and a person's next look (the
            # bots play on meanwhile, so the screen need never be still).
            await asyncio.sleep(0.02)
    return pressed
