"""What a session reads of the environment its client sent (SSH's ``SetEnv``/``SendEnv``; a
browser's page will send the same names): these names only, and short values, since a client
may send any number of any size.  ``NO_COLOR`` starts the app without colour; the locale
names will choose a session's language."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CLIENT_ENV: tuple[str, ...] = ("NO_COLOR", "LANG", "LC_ALL")
MAX_VALUE = 64  # characters kept of a value


def client_env(sent: Mapping[str, Any]) -> dict[str, str]:
    """The names of :data:`CLIENT_ENV` that the client sent, each value cut to :data:`MAX_VALUE`."""
    return {name: str(sent[name])[:MAX_VALUE] for name in CLIENT_ENV if name in sent}
