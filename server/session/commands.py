"""What a client may ask for instead of the lobby (``ssh HOST who``): one table,
:data:`COMMANDS`, as wish's command middleware has it.  Each entry is a command's name,
its arguments as people see them, its line in ``help``, whether it needs a terminal
(``ssh -t``), and its handler; ``help`` and the usage line are made from the table.
Anything not in it is an unknown command (a usage line, exit status 1): no command ever
reaches a shell.

Exit statuses: 0 done; 1 refused (an unknown command, no terminal, nothing kept, no such
match); 2 a known command with the wrong arguments (its own usage line).  A match id
(``export``, ``replay``) is 1 to 18 ASCII digits, ``#`` before them allowed: anything else
(``²`` is a digit to ``str.isdigit``, 5,000 digits are past ``int()``'s limit, 20 digits
past SQLite's) is a usage line, never a traceback.

A command's output ends its lines with CR LF on a terminal and LF otherwise; what goes to
the error stream is written as it is.

A command answers in its player's language: the one their key chose in the settings, else
their client's locale's (``LC_ALL``, ``LC_MESSAGES``, ``LANG`` of that request:
``ssh -o SetEnv=LANG=ca_ES.UTF-8 HOST who`` answers in Catalan).  :func:`run_command` sets it
in the command's context, so everything worded while it runs (``help``, the usage lines,
``who``, ``leaderboard``, ``export``'s messages) is in it; the lobby and a replay start their
session in it.  The ``voltage:`` before an error and the commands and their arguments stay as typed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from server.session.driver import TerminalChannel
from server.session.identity import Identity
from server.session.services import Answer, no_records
from server.session.sessions import Console, Sessions, printable, refusal_words
from tui.i18n import N_, _, chosen, language
from tui.ports import Refused

log = logging.getLogger(__name__)


def tty(address: str) -> str:
    """``ssh -p 2222 play.example`` -> ``ssh -t -p 2222 play.example`` (a terminal, for the lobby)."""
    return "ssh -t" + address[3:] if address.startswith("ssh") else address


@dataclass
class Invocation:
    """One command as a transport received it."""

    command: str  # as the client gave it ("": none, the lobby)
    identity: Identity
    console: Console
    address: str = "ssh HOST"  # how players reach this server, for the usage and help lines
    env: Mapping[str, Any] = field(default_factory=dict)  # what the client sent (a session reads a few)
    terminal: TerminalChannel | None = None  # None: the client asked for no terminal
    peer: str = ""  # the client's address (for the log)
    language: str = "en"  # the player's (run_command sets it: the key's choice, else the client's locale's)

    @property
    def words(self) -> list[str]:
        return self.command.split()

    def say(self, text: str) -> None:
        """``text`` to the output, its lines ended as the client's terminal wants."""
        self.console.out(text.replace("\n", "\r\n") if self.terminal is not None else text)

    def answer(self, answer: Answer) -> int:
        if answer.out:
            self.say(answer.out)
        if answer.err:
            self.console.err(answer.err)
        return answer.code


Handler = Callable[[Sessions, Invocation, list[str]], Awaitable[int]]


@dataclass(frozen=True)
class Command:
    name: str  # the first word ("" for none: the lobby)
    args: str  # its arguments, as the usage and help lines show them
    summary: str  # its line in help
    run: Handler  # (sessions, invocation, arguments) -> exit status
    terminal: bool = False  # it runs an app: help shows it with ``ssh -t``
    # How many arguments it takes: another count is an unknown command.  None: its handler
    # checks them and answers a wrong count with its own usage line (exit status 2).
    arity: int | None = 0

    def line(self, address: str) -> str:
        """The command as it is typed: ``ssh -t -p 2222 HOST join CODE``."""
        return " ".join(part for part in (tty(address) if self.terminal else address, self.name, self.args) if part)


_MATCH_ID = re.compile(r"#?([0-9]{1,18})")


def match_id(args: list[str]) -> int | None:
    """A match id as typed (``12`` or ``#12``), the one argument: 1-18 ASCII digits, else None."""
    m = _MATCH_ID.fullmatch(args[0]) if len(args) == 1 else None
    return int(m.group(1)) if m else None


async def _play(sessions: Sessions, inv: Invocation, initial: tuple[str, str] | None) -> int:
    if inv.terminal is None:
        inv.console.err("voltage: " + _("the game needs a terminal: connect with ssh -t") + "\n")
        return 1
    return await sessions.play(inv.terminal, inv.identity, inv.env, initial=initial, console=inv.console,
                               peer=inv.peer)


async def _lobby(sessions: Sessions, inv: Invocation, args: list[str]) -> int:
    return await _play(sessions, inv, None)


async def _join(sessions: Sessions, inv: Invocation, args: list[str]) -> int:
    return await _play(sessions, inv, ("join", args[0].upper()))


async def _watch(sessions: Sessions, inv: Invocation, args: list[str]) -> int:
    return await _play(sessions, inv, ("watch", args[0].upper()))


async def _help(sessions: Sessions, inv: Invocation, args: list[str]) -> int:
    inv.say(help_text(inv.address))
    return 0


async def _who(sessions: Sessions, inv: Invocation, args: list[str]) -> int:
    inv.say(await sessions.services.who())  # (worded in this context's language)
    return 0


async def _leaderboard(sessions: Sessions, inv: Invocation, args: list[str]) -> int:
    if not sessions.services.keeps_records:
        inv.console.err(no_records())
        return 1
    if args:
        inv.console.err(usage_line(f"{inv.address} leaderboard"))
        return 2
    return inv.answer(await sessions.services.leaderboard())


async def _export(sessions: Sessions, inv: Invocation, args: list[str]) -> int:
    if not sessions.services.keeps_records:
        inv.console.err(no_records())
        return 1
    mid = match_id(args)
    if mid is None:
        inv.console.err(usage_line(f"{inv.address} export MATCH_ID", _("(a number)")))
        return 2
    return inv.answer(await sessions.services.export(mid))


def _words(inv: Invocation, make: Callable[[], str]) -> str:
    """A sentence of the tui's words, in the player's language."""
    with language(inv.language):
        return make()


def usage_line(command: str, note: str = "") -> str:
    """``usage: ssh HOST export MATCH_ID (a number)``, a line of the error stream."""
    return _("usage: %(command)s") % {"command": f"{command} {note}".strip()} + "\n"


async def _link(sessions: Sessions, inv: Invocation, args: list[str]) -> int:
    from server.store.browsers import LINK_TTL
    from tui import words as W

    key = inv.identity.key
    try:
        if key is None:
            raise Refused("link_needs_key")
        code = await sessions.services.link_code(key)
    except Refused as e:
        inv.console.err(f"voltage: {refusal_words(e, inv.env, inv.language)}\n")
        return 1
    unlink = f"{inv.address} unlink"
    inv.say(_words(inv, lambda: W.link_code(code, round(LINK_TTL / 60), sessions.web_address, unlink)))
    return 0


async def _unlink(sessions: Sessions, inv: Invocation, args: list[str]) -> int:
    from tui import words as W

    key = inv.identity.key
    if key is None:
        inv.console.err(f"voltage: {refusal_words(Refused('link_needs_key'), inv.env, inv.language)}\n")
        return 1
    try:
        count = await sessions.services.unlink(key)
    except Refused as e:
        inv.console.err(f"voltage: {refusal_words(e, inv.env, inv.language)}\n")
        return 1
    inv.say(_words(inv, lambda: W.unlinked(count)))
    return 0


async def _replay(sessions: Sessions, inv: Invocation, args: list[str]) -> int:
    mid = match_id(args)
    if mid is None:
        inv.console.err(usage_line(f"{tty(inv.address)} replay MATCH_ID", _("(a number)")))
        return 2
    if not sessions.services.keeps_records:
        inv.console.err("voltage: " + _("this server keeps no matches") + "\n")
        return 1
    if inv.terminal is None:
        inv.console.err("voltage: " + _("a replay needs a terminal: connect with %(command)s") % {
            "command": f"ssh -t HOST replay {mid}"} + "\n")
        return 1
    return await sessions.replay(inv.terminal, inv.identity, mid, console=inv.console, language=inv.language,
                                 peer=inv.peer)


#: Every command, in the usage line's order (help puts those that need a terminal first, and itself last).
COMMANDS: tuple[Command, ...] = (
    Command("", "", N_("the lobby: quick match, private rooms, bots, watching"), _lobby, terminal=True),
    Command("help", "", N_("this text"), _help),
    Command("who", "", N_("who is online and which matches are running"), _who),
    Command("join", "CODE", N_("join a friend's private room"), _join, terminal=True, arity=1),
    Command("watch", "CODE", N_("watch a match"), _watch, terminal=True, arity=1),
    Command("leaderboard", "", N_("the top 20 players of each game"), _leaderboard, arity=None),
    Command("export", "MATCH_ID", N_("a finished match as JSON (seed, actions, players, result)"), _export,
            arity=None),
    Command("replay", "MATCH_ID", N_("replay a finished match, step by step"), _replay, terminal=True, arity=None),
    Command("link", "", N_("a one-time code that lets a browser play as your key (the web page)"), _link),
    Command("unlink", "", N_("forget every browser linked to your key"), _unlink),
)
_BY_NAME = {c.name: c for c in COMMANDS}


def usage(address: str = "ssh HOST") -> str:
    """The one-line usage, with the ``ssh`` command that reaches this server."""
    named = " | ".join(f"{c.name} {c.args}".strip() for c in COMMANDS if c.name)
    return _("usage: %(command)s") % {"command": f"{tty(address)} [{named}]"}


def help_text(address: str = "ssh HOST") -> str:
    """``ssh HOST help``: every command, each a line that can be pasted as it is."""
    shown = sorted(COMMANDS, key=lambda c: (not c.terminal, c.name == "help"))
    rows = [(c.line(address), _(c.summary)) for c in shown]
    width = max(len(a) for a, _b in rows) + 2
    lines = "\n".join(f"  {a.ljust(width)}{b}" for a, b in rows)
    return (
        _("Voltage: card games over SSH.") + "\n\n" + lines + "\n\n"
        + _("Log in with an SSH key to be recognised when you reconnect (your key's\n"
            "fingerprint is your identity); without one you are a guest for that\n"
            "connection.  A dropped player keeps their seat for 60 seconds.") + "\n"
    )


async def command_language(sessions: Sessions, inv: Invocation) -> str:
    """The language a command answers in: its key's kept choice, else its client's locale's."""
    from server.session.environment import client_env

    kept = None
    if inv.identity.key:
        try:
            kept = await sessions.services.kept_language(inv.identity.key)
        except Refused:  # (a split server's host not reachable now: the client's locale decides)
            pass
        except Exception:  # (unreadable now: the client's locale decides)
            log.exception("could not read the language kept for a command")
    return chosen(kept, client_env(inv.env))


async def run_command(sessions: Sessions, inv: Invocation) -> int:
    """Run what ``inv`` asks for (the lobby when it asks for nothing); its exit status."""
    words = inv.words
    command = _BY_NAME.get(words[0] if words else "")
    args = words[1:]
    known = command is not None and (command.arity is None or len(args) == command.arity)
    if command is not None and known and command.terminal and command.name != "replay" and inv.terminal is not None:
        return await command.run(sessions, inv, args)  # a session: it finds its own language (its first frame first)
    inv.language = await command_language(sessions, inv)
    with language(inv.language):
        if command is None or (command.arity is not None and len(args) != command.arity):
            inv.console.err("voltage: " + _("unknown command %(command)s") % {"command": repr(printable(inv.command))}
                            + f"\n{usage(inv.address)}\n")
            return 1
        try:
            return await command.run(sessions, inv, args)
        except Refused as error:  # the server behind this one could not answer (a split server's host)
            from tui import words as W

            inv.console.err(f"voltage: {W.refusal(error)}\n")
            return 1
