"""Fixtures for every test folder: the SSH server fixtures (``start_server``, ``echo_app``) live in
:mod:`tests.support.ssh` and are loaded here because tests/server and tests/e2e both use them
(pytest only honours ``pytest_plugins`` in the root conftest)."""

pytest_plugins = ["tests.support.ssh"]
