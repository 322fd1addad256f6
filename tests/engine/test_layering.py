"""The engine is pure rules: importing any part of it pulls in no screen, network or host code."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = ("textual", "asyncssh", "tui", "server")

PROBE = r"""
import importlib, json, pkgutil, sys
import engine, engine.voltage.rules, engine.voltage.arena, engine.voltage.bots
names = []
for info in pkgutil.walk_packages(engine.__path__, "engine."):
    importlib.import_module(info.name)
    names.append(info.name)
forbidden = sorted(
    m for m in sys.modules
    if any(m == f or m.startswith(f + ".") for f in %r)
)
print(json.dumps({"imported": names, "forbidden": forbidden}))
"""


def test_engine_imports_nothing_of_textual_asyncssh_tui_or_server():
    out = subprocess.run(
        [sys.executable, "-c", PROBE % (FORBIDDEN,)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    wanted = {"engine.voltage.rules", "engine.voltage.arena", "engine.voltage.cards", "engine.voltage.bots"}
    assert wanted <= set(result["imported"])
    assert result["forbidden"] == [], f"engine pulled in {result['forbidden']}"


def test_the_probe_would_notice_a_forbidden_import():
    probe = PROBE.replace("import engine,", "import textual, engine,")
    out = subprocess.run([sys.executable, "-c", probe % (FORBIDDEN,)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "textual" in json.loads(out.stdout.strip().splitlines()[-1])["forbidden"]
