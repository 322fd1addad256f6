"""How the session's player reaches this server: ``"ssh"`` (a terminal) or ``"web"`` (the
browser page), for the few sentences that tell a guest what to do about it.

A guest over SSH keeps nothing until they log in with an SSH key; a guest in a browser has no
key to log in with, and is told to link one instead (``ssh HOST link`` in a terminal, then the
code on the page's "Link a key").  The transport says which when it opens a session
(``server.session.sessions.Sessions.play``), in the session's context before its app is made,
as the language is (:mod:`tui.i18n`): every task of the app reads it.  With no session (a
test, ``voltage play``) it is SSH's.
"""

from __future__ import annotations

import contextvars

TRANSPORTS: tuple[str, ...] = ("ssh", "web")

_current: contextvars.ContextVar[str] = contextvars.ContextVar("voltage_transport", default="ssh")


def use(transport: str) -> contextvars.Token[str]:
    """The session in this context is reached through ``transport`` (anything unknown: SSH)."""
    return _current.set(transport if transport in TRANSPORTS else "ssh")


def reset(token: contextvars.Token[str]) -> None:
    """Undo a :func:`use` (a session's end)."""
    _current.reset(token)


def current() -> str:
    """``"ssh"`` or ``"web"``."""
    return _current.get()


def web() -> bool:
    """The player reads this in a browser (a guest there links a key rather than logs in with one)."""
    return _current.get() == "web"
