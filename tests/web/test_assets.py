"""The page's files: the vendored terminal emulator is what tools/vendor-xterm.sh recorded (versions,
checksums, licences), every static file is package data (a wheel serves it too), and only the
static folder's own files are served."""

from __future__ import annotations

import fnmatch
import hashlib
import tomllib
from pathlib import Path

from server.web.assets import static_files

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "server" / "web" / "static"
VENDOR = STATIC / "vendor"


def test_the_vendored_files_are_the_ones_recorded_with_their_licences():
    lines = [line for line in (VENDOR / "VERSIONS").read_text().splitlines() if line and not line.startswith("#")]
    packages = {line.split()[0]: line.split()[1] for line in lines if line.startswith("@")}
    assert packages["@xterm/xterm"].startswith("6.")
    assert set(packages) == {"@xterm/xterm", "@xterm/addon-fit", "@xterm/addon-unicode11", "@xterm/addon-webgl"}
    sums = dict(reversed(line.split()) for line in lines if not line.startswith("@"))
    files = sorted(p.name for p in VENDOR.iterdir() if p.name != "VERSIONS")
    assert sorted(sums) == files
    for name, digest in sums.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name
    for script in ("xterm", "addon-fit", "addon-unicode11", "addon-webgl"):
        assert (VENDOR / f"{script}.js").is_file() and "MIT" in (VENDOR / f"{script}.LICENSE").read_text()


def test_every_static_file_is_package_data():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["server"]
    for path in STATIC.rglob("*"):
        if path.is_file():
            relative = str(path.relative_to(ROOT / "server"))
            assert any(fnmatch.fnmatch(relative, g) for g in globs), relative


def test_only_the_static_folder_s_files_are_served_by_name():
    served = static_files()
    assert "vendor/xterm.js" in served and "page.js" in served and "vendor/xterm.LICENSE" in served
    assert "index.html" not in served  # (the page is rendered, at /)
    assert all(not name.startswith((".", "/")) and ".." not in name for name in served)
    assert served["vendor/xterm.js"].content_type.startswith("text/javascript")
