"""The tui never imports ``server``: importing every tui module pulls in no server code.

The screens reach their backends only through :mod:`tui.ports`; ``voltage/cli.py`` (or
the SSH server) composes a backend with the app.  So a new backend (an edge that talks
to a remote host) needs no change to the tui, and the tui cannot lean on a host's insides.
"""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = ("server", "asyncssh")

PROBE = r"""
import importlib, json, pkgutil, sys
import tui
names = []
for info in pkgutil.walk_packages(tui.__path__, "tui."):
    importlib.import_module(info.name)
    names.append(info.name)
forbidden = sorted(
    m for m in sys.modules
    if any(m == f or m.startswith(f + ".") for f in %r)
)
print(json.dumps({"imported": names, "forbidden": forbidden}))
"""


def probe(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code % (FORBIDDEN,)], capture_output=True, text=True,
                         timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_tui_imports_nothing_of_server():
    result = probe(PROBE)
    assert {"tui.app", "tui.ports", "tui.run", "tui.screens.lobby", "tui.screens.replay",
            "tui.games.voltage.match", "tui.games.highvoltage.match"} <= set(result["imported"])
    assert result["forbidden"] == [], f"the tui pulled in {result['forbidden']}"


def test_the_probe_would_notice_a_server_import():
    result = probe(PROBE.replace("import tui\n", "import tui, server.local\n"))
    assert "server.local" in result["forbidden"]


def test_no_tui_module_imports_server_even_inside_a_function():
    """Imports done late (in a function, as ``voltage play``'s once were) are not seen by
    the probe above; the source is read for them."""
    import ast
    from pathlib import Path

    import tui

    found = []
    for path in sorted(Path(tui.__file__).parent.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                mods = [node.module]
            else:
                continue
            found += [f"{path.name}:{node.lineno} {m}" for m in mods if m.split(".")[0] in FORBIDDEN]
    assert found == []
