"""The page and its static files, read from the package once at start and served from memory.

Only what is in ``static/`` (and ``static/vendor/``: xterm.js and its addons, vendored by
``tools/vendor-xterm.sh``) is ever served, by exact name from a table made at start: a path
is looked up, never joined to a directory, so ``/../../etc/passwd``, ``%2e%2e`` or a symlink
cannot reach a file outside, and there is no listing of anything.  Each file is kept with its
gzip form (the vendored terminal is ~0.8 MB, ~0.2 MB gzipped) and an ETag.

The page itself (``index.html``) is a template: its words come from :func:`tui.words.web_page`
(through ``_()``, in the session's language once the languages issue chooses one), filled in
HTML-escaped, and the words its script shows go in a JSON block the script reads (never
executed: the Content-Security-Policy allows only the page's own script files).
"""

from __future__ import annotations

import gzip
import hashlib
import html
import json
import mimetypes
from dataclasses import dataclass
from importlib import resources

TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
}
SERVED = ("", "vendor")  # the folders of static/ whose files are served (by exact name)
PRIVATE = ("index.html",)  # read here and rendered (at /), never served as it is


@dataclass(frozen=True)
class Asset:
    body: bytes
    gzipped: bytes | None  # None: not worth it
    content_type: str
    etag: str


def asset(body: bytes, content_type: str) -> Asset:
    squeezed = gzip.compress(body, 9, mtime=0) if len(body) > 512 else None
    if squeezed is not None and len(squeezed) >= len(body):
        squeezed = None
    return Asset(body, squeezed, content_type, '"' + hashlib.sha256(body).hexdigest()[:32] + '"')


def static_files() -> dict[str, Asset]:
    """Every file served under ``/static/``, by its path there (``vendor/xterm.js``)."""
    root = resources.files("server.web") / "static"
    found: dict[str, Asset] = {}
    for folder in SERVED:
        where = root / folder if folder else root
        for entry in where.iterdir():
            name = entry.name
            if not entry.is_file() or name.startswith(".") or (not folder and name in PRIVATE):
                continue
            suffix = "." + name.rsplit(".", 1)[-1] if "." in name else ""
            content_type = TYPES.get(suffix) or mimetypes.guess_type(name)[0] or "application/octet-stream"
            if name.endswith(".LICENSE") or name == "VERSIONS":
                content_type = "text/plain; charset=utf-8"
            found[f"{folder}/{name}" if folder else name] = asset(entry.read_bytes(), content_type)
    return found


def page_template() -> str:
    return (resources.files("server.web") / "static" / "index.html").read_text(encoding="utf-8")


def render_page(template: str, words: dict[str, str], static: dict[str, Asset]) -> Asset:
    """``index.html`` with its words filled in (``{{key}}``), the script's words as JSON
    (``{{words_json}}``) and each static file's ETag in its address (``{{v:NAME}}``), so a new
    version is fetched anew."""
    text = template
    for key, value in words.items():
        text = text.replace("{{" + key + "}}", html.escape(value))
    as_json = json.dumps(words, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")
    text = text.replace("{{words_json}}", as_json)
    for name, file in static.items():
        text = text.replace("{{v:" + name + "}}", f"/static/{name}?v={file.etag.strip(chr(34))[:12]}")
    return asset(text.encode("utf-8"), TYPES[".html"])
