"""What a session reads of the environment its client sent (SSH's ``SetEnv``/``SendEnv``; a
browser's page sends ``LANG`` from ``navigator.language``): these names only, and short values,
since a client may send any number of any size.  ``NO_COLOR`` starts the app without colour;
``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` choose a session's language (:func:`tui.i18n.client_language`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

CLIENT_ENV: tuple[str, ...] = ("NO_COLOR", "LANG", "LC_ALL", "LC_MESSAGES")
MAX_VALUE = 64  # characters kept of a value


def client_env(sent: Mapping[str, Any]) -> dict[str, str]:
    """The names of :data:`CLIENT_ENV` that the client sent, each value cut to :data:`MAX_VALUE`."""
    return {name: str(sent[name])[:MAX_VALUE] for name in CLIENT_ENV if name in sent}
