"""Narrow errors of the rules engines, as data.  All are ``ValueError``\\ s.

Each carries a stable ``code`` (``"not_your_turn"``, ``"no_such_card"``) and the
``params`` a sentence about it needs (``card=...``); the tui words them for the
player, in the player's language.  ``str(e)`` is a terse form for logs and tests
(``no_such_card card=Card(...)``), never shown to a player.
"""

from __future__ import annotations

from typing import Any, Self


class RuleError(ValueError):
    """Base class of every error the engines raise about an action (and of their codes)."""

    def __init__(self, code: str = "not_allowed", /, **params: Any) -> None:
        self.code = code
        self.params: dict[str, Any] = params
        super().__init__(code)

    def __str__(self) -> str:
        if not self.params:
            return self.code
        return self.code + " " + " ".join(f"{k}={v!r}" for k, v in self.params.items())

    def __reduce__(self) -> tuple[Any, ...]:  # (crosses a process pool whole: code and params)
        return (_rebuild, (type(self), self.code, self.params))

    @classmethod
    def of(cls, code: str, params: dict[str, Any]) -> Self:
        """This class's error with ``code`` and ``params``, however its constructor is
        spelled (what a remote peer or a pickle rebuilds)."""
        error = cls.__new__(cls)
        RuleError.__init__(error, code, **params)
        return error


def _rebuild(cls: type[RuleError], code: str, params: dict[str, Any]) -> RuleError:
    return cls.of(code, params)


class InvalidActionError(RuleError):
    """The text of an action could not be read (bad syntax, unknown card)."""


class IllegalActionError(RuleError):
    """The action is well formed but the rules do not allow it now (``code`` says why)."""
