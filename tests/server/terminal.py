"""Moved to :mod:`tests.support.terminal` (tests/e2e and tests/server share it).  This name stays until the
tests still importing it (tests/server/test_commands*.py, tests/tui/test_replay_paths.py, test_quit.py) switch."""

from tests.support.terminal import Terminal, ssh_connect

__all__ = ["Terminal", "ssh_connect"]
