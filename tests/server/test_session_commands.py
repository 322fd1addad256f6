"""The command table without a transport: help and the usage line come from it, what needs
a terminal is refused without one (no session is opened), anything else is a usage line,
and a command's output ends its lines as the client's terminal wants."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from server.session.commands import COMMANDS, Invocation, help_text, run_command, usage
from server.session.identity import Identity
from server.session.services import Answer, Opened
from server.session.sessions import Sessions
from tests.support.channel import MemoryChannel

ADDRESS = "ssh -p 2022 play.example"


class Console:
    def __init__(self) -> None:
        self.stdout = ""
        self.stderr = ""

    def out(self, text: str) -> None:
        self.stdout += text

    def err(self, text: str) -> None:
        self.stderr += text


class Services:
    """Answers that say where they came from; opening anything is recorded and refused."""

    keeps_records = True

    def __init__(self) -> None:
        self.opened: list[str] = []

    def start(self) -> int:
        return 0

    def announce(self, address: str) -> None:
        pass

    def close(self) -> None:
        pass

    async def open(self, identity: Identity, initial: tuple[str, str] | None, env: Mapping[str, str]) -> Opened:
        from tui.ports import Refused

        self.opened.append("play")
        raise Refused("no lobby in this test")

    async def open_replay(self, match_id: int, identity: Identity) -> Any:
        from server.replay import ReplayError

        self.opened.append("replay")
        raise ReplayError(f"no match {match_id}")

    async def who(self) -> str:
        return "1 online\n  alice  (lobby)\n"

    async def kept_language(self, key: str) -> str | None:
        return None

    async def leaderboard(self) -> Answer:
        return Answer(0, out="the board\n")

    async def export(self, match_id: int) -> Answer:
        return Answer(1, err=f"voltage: no match {match_id}\n")

    async def link_code(self, key: str) -> str:
        from tui.ports import Refused

        self.opened.append("link")
        raise Refused("links_need_store")

    async def redeem_link(self, code: str, label: str) -> tuple[str, str] | None:
        return None

    async def browser_key(self, token: str) -> str | None:
        return None

    async def unlink(self, key: str) -> int:
        return 0


async def run(command: str, *, terminal: MemoryChannel | None = None) -> tuple[int, Console, Services]:
    services = Services()
    console = Console()
    invocation = Invocation(command, Identity.guest("carol"), console, ADDRESS, terminal=terminal)
    code = await run_command(Sessions(services), invocation)
    return code, console, services


def test_help_and_the_usage_line_are_made_from_the_table():
    text, line = help_text(ADDRESS), usage(ADDRESS)
    assert line.startswith("usage: ssh -t -p 2022 play.example [") and line.endswith("]")
    forms = line.split("[", 1)[1].rstrip("]").split(" | ")
    assert forms == [f"{c.name} {c.args}".strip() for c in COMMANDS if c.name]
    for command in COMMANDS:
        assert command.line(ADDRESS) in text and command.summary in text
        assert command.line(ADDRESS).startswith("ssh -t -p 2022" if command.terminal else "ssh -p 2022")


@pytest.mark.parametrize("command", [c for c in COMMANDS if c.terminal], ids=lambda c: c.name or "lobby")
async def test_what_needs_a_terminal_is_refused_without_one_and_opens_nothing(command):
    words = [command.name] + ["12"] * (1 if command.arity is None else command.arity)
    code, console, services = await run(" ".join(words).strip())
    assert code == 1 and "needs a terminal" in console.stderr and "ssh -t" in console.stderr
    assert not console.stdout and services.opened == []


@pytest.mark.parametrize("command", ["ls", "join", "watch A B", "help me", "who else", "scp -f /etc/passwd"])
async def test_anything_else_is_a_usage_line_and_exit_1(command):
    code, console, services = await run(command)
    assert code == 1 and not console.stdout and services.opened == []
    assert console.stderr == f"voltage: unknown command {command!r}\n{usage(ADDRESS)}\n"


@pytest.mark.parametrize("command", ["leaderboard x", "export", "export 1 2", "export ²", "export " + "9" * 19,
                                     "replay", "replay abc"])
async def test_a_known_command_with_wrong_arguments_gets_its_own_usage_line_and_exit_2(command):
    code, console, services = await run(command)
    assert code == 2 and console.stderr.startswith("usage: ") and command.split()[0] in console.stderr
    assert services.opened == []


async def test_output_ends_its_lines_as_the_clients_terminal_wants():
    code, console, _ = await run("who")
    assert code == 0 and console.stdout == "1 online\n  alice  (lobby)\n"
    code, console, _ = await run("who", terminal=MemoryChannel())
    assert code == 0 and console.stdout == "1 online\r\n  alice  (lobby)\r\n"
    code, console, _ = await run("export #7")
    assert code == 1 and console.stderr == "voltage: no match 7\n" and not console.stdout


async def test_a_refusal_to_open_is_one_line_and_exit_1():
    code, console, services = await run("join abcd", terminal=MemoryChannel())
    assert code == 1 and console.stderr == "voltage: no lobby in this test\r\n" and services.opened == ["play"]
    code, console, services = await run("replay 5", terminal=MemoryChannel())
    assert code == 1 and console.stderr == "voltage: no match 5\n" and services.opened == ["replay"]
