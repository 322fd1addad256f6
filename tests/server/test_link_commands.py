"""``ssh HOST link`` and ``ssh HOST unlink``: a one-time code for a key's browser, and forgetting them all."""

from __future__ import annotations

import asyncio
import re
from concurrent.futures import ThreadPoolExecutor

import asyncssh
import pytest

from server.config import ServerConfig
from server.serve import local_sessions
from server.ssh.server import VoltageServer
from server.store.db import Store
from tests.support.ssh import ROOMY_STARTS
from tests.support.terminal import ssh_connect


@pytest.fixture
async def kept(tmp_path):
    """A server over a store."""
    store = Store.open(tmp_path / "data")
    executor = ThreadPoolExecutor(max_workers=1)
    config = ServerConfig(host="127.0.0.1", port=0, session_starts=ROOMY_STARTS)
    srv = VoltageServer(config, local_sessions(config, executor=executor, store=store))
    await srv.start()
    srv.store = store
    yield srv
    srv.close()
    await srv.wait_closed()
    executor.shutdown(wait=False, cancel_futures=True)
    store.close()


async def run(port, command, key=None):
    conn = await ssh_connect(port, client_keys=[key] if key else ())
    async with conn:
        return await asyncio.wait_for(conn.run(command), 10)


async def test_a_named_key_gets_a_code_that_links_a_browser_once(kept):
    key = asyncssh.generate_private_key("ssh-ed25519")
    fp = key.get_fingerprint("sha256")
    kept.store.upsert_player(fp, "Dana")
    kept.sessions.web_address = "http://play.example:8080/"
    r = await run(kept.port, "link", key)
    assert r.exit_status == 0 and not r.stderr
    code = re.search(r"Your link code: (\S+)", r.stdout).group(1)
    assert "http://play.example:8080/" in r.stdout and "10 minutes" in r.stdout and "unlink" in r.stdout
    token, identity = kept.store.redeem_link_code(code, "Firefox on Linux")
    assert identity == fp and kept.store.browser_identity(token) == fp
    assert kept.store.redeem_link_code(code, "again") is None

    r = await run(kept.port, "unlink", key)
    assert r.exit_status == 0 and "1 browser is no longer linked" in r.stdout
    assert kept.store.browser_identity(token) is None
    r = await run(kept.port, "unlink", key)
    assert r.exit_status == 0 and "No browser was linked" in r.stdout


async def test_a_guest_or_a_key_without_a_name_gets_no_code(kept):
    r = await run(kept.port, "link")
    assert r.exit_status == 1 and "needs an SSH key" in r.stderr and not r.stdout
    r = await run(kept.port, "unlink")
    assert r.exit_status == 1 and "needs an SSH key" in r.stderr
    stranger = asyncssh.generate_private_key("ssh-ed25519")
    r = await run(kept.port, "link", stranger)
    assert r.exit_status == 1 and "no name here yet" in r.stderr


async def test_a_server_without_a_store_links_nothing(start_server, echo_app):
    srv = await start_server(echo_app)
    r = await run(srv.port, "link", asyncssh.generate_private_key("ssh-ed25519"))
    assert r.exit_status == 1 and "links no browsers" in r.stderr


async def test_help_lists_link_and_unlink(kept):
    r = await run(kept.port, "help")
    assert "link " in r.stdout and "unlink " in r.stdout
    r = await run(kept.port, "link extra")
    assert r.exit_status == 1 and "unknown command" in r.stderr
