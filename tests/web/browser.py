"""A real browser for the web tests: Debian's chromium, headless, driven by Playwright's Python
package (never a browser of Playwright's own download: there is none here).  The terminal's
text is read from xterm.js's buffer (the WebGL renderer draws no DOM text)."""

from __future__ import annotations

import asyncio
import re
import shutil
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, async_playwright

from tests.support.wait import DEADLINE

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

# tests.support.terminal's key names -> Playwright's
KEYS = {"enter": "Enter", "escape": "Escape", "tab": "Tab", "backspace": "Backspace", "up": "ArrowUp",
        "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight", "home": "Home", "end": "End",
        "app-up": "ArrowUp", "app-down": "ArrowDown", "app-left": "ArrowLeft", "app-right": "ArrowRight",
        " ": "Space", "space": "Space"}

SCREEN_TEXT = """() => {
  const term = window.voltage && window.voltage.term;
  if (!term) return "";
  const buffer = term.buffer.active;
  const rows = [];
  for (let y = 0; y < term.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    rows.push(line ? line.translateToString(true) : "");
  }
  return rows.join("\\n");
}"""


def chromium() -> str:
    path = shutil.which(CHROMIUM) or shutil.which("chromium")
    if path is None:
        pytest.fail("chromium is missing: install Debian's package (apt-get install -y chromium, "
                    "or .ci/install-chromium); the browser tests need it and never skip")
    return path


@asynccontextmanager
async def browser(profile: Path, width: int = 1000, height: int = 700, locale: str | None = None
                  ) -> AsyncIterator[Any]:
    """A headless chromium with a fresh profile (its user data directory: ``profile``); ``locale``:
    its language (``navigator.language``), "ca-ES" say (None: chromium's own)."""
    executable = chromium()
    async with async_playwright() as p:
        context = await p.chromium.launch_persistent_context(
            str(profile), executable_path=executable, headless=True, args=ARGS,
            viewport={"width": width, "height": height}, locale=locale)
        try:
            yield context
        finally:
            await context.close()


class Tab:
    """One page with the game's terminal, typed at and read as a player would."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.errors: list[str] = []
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)

    async def open(self, url: str) -> Tab:
        await self.page.goto(url)
        return self

    async def text(self) -> str:
        return str(await self.page.evaluate(SCREEN_TEXT))

    async def state(self) -> dict[str, Any]:
        return dict(await self.page.evaluate("() => window.voltage.state"))

    async def wait_for(self, pattern: str, timeout: float = DEADLINE) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while True:
            text = await self.text()
            m = re.search(pattern, text)
            if m:
                return m
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {pattern!r} in the browser; screen:\n{text}")
            await asyncio.sleep(0.05)

    async def press(self, *keys: str) -> None:
        await self.page.evaluate("() => window.voltage.term.focus()")
        for key in keys:
            await self.page.keyboard.press(KEYS.get(key, key))

    async def type(self, text: str) -> None:
        await self.page.evaluate("() => window.voltage.term.focus()")
        await self.page.keyboard.type(text)
