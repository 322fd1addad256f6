"""Fixtures for every test folder, loaded here because several folders use them (pytest only honours
``pytest_plugins`` in the root conftest): the ``store`` with Alice and Bob of :mod:`tests.support.store`,
and the SSH server fixtures (``start_server``, ``echo_app``, ``kept``) of :mod:`tests.support.ssh` (which
imports the first: it is loaded first, so that pytest rewrites its asserts)."""

pytest_plugins = ["tests.support.store", "tests.support.ssh"]
