"""Narrow errors of the rules engines.  All are ``ValueError``s."""


class RuleError(ValueError):
    """Base class of every error the engines raise about an action."""


class InvalidActionError(RuleError):
    """The text of an action could not be read (bad syntax, unknown card)."""


class IllegalActionError(RuleError):
    """The action is well formed but the rules do not allow it now.

    The message says why, in words fit to show a player.
    """
