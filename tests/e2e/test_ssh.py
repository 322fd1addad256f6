"""The SSH server: commands, the terminal driver, identity, and every hardening guard."""

from __future__ import annotations

import asyncio
import time

import asyncssh
import pytest
from asyncssh.packet import Boolean, String, UInt32

from server.session.commands import help_text, usage
from server.ssh.hostkey import load_host_key
from tests.support.ssh import EchoApp
from tests.support.terminal import Terminal, ssh_connect
from tests.support.wait import until


async def run(port, command, **kw):
    conn = await ssh_connect(port, **kw)
    async with conn:
        return await asyncio.wait_for(conn.run(command), 30)


# -- commands --------------------------------------------------------------


async def test_help_and_who_print_plain_text_and_exit_0(start_server, echo_app):
    srv = await start_server(echo_app)
    r = await run(srv.port, "help")
    assert r.exit_status == 0 and r.stdout == help_text(srv.ssh_line()) and not r.stderr
    # Every line can be pasted as it is: the port and host are in it.
    assert f"ssh -t -p {srv.port} 127.0.0.1 join CODE" in r.stdout
    assert f"ssh -p {srv.port} 127.0.0.1 who" in r.stdout
    r = await run(srv.port, "who")
    assert r.exit_status == 0
    assert r.stdout.startswith("0 online, 0 matches running")
    assert "\x1b" not in r.stdout


@pytest.mark.parametrize("command", ["ls", "echo hi; cat /etc/passwd", "bash", "join", "watch A B", "help me"])
async def test_any_other_command_prints_usage_to_stderr_and_exits_1(start_server, echo_app, command):
    srv = await start_server(echo_app)
    r = await run(srv.port, command)
    assert r.exit_status == 1
    assert r.stdout == ""
    assert usage(srv.ssh_line()) in r.stderr
    assert f"ssh -t -p {srv.port} 127.0.0.1 [help" in r.stderr
    assert "root:" not in r.stderr  # nothing ran


@pytest.mark.parametrize("command", [None, "join ABCD", "watch ABCD"])
async def test_the_game_without_a_pty_is_told_a_terminal_is_required(start_server, echo_app, command):
    srv = await start_server(echo_app)
    r = await run(srv.port, command)
    assert r.exit_status == 1
    assert "ssh -t" in r.stderr
    assert echo_app.made == []


# OpenSSH's order (``ssh -Q cipher`` as its client asks, and its MACs): chacha20-poly1305 first.
OPENSSH_CIPHERS = ["chacha20-poly1305@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr",
                   "aes128-gcm@openssh.com", "aes256-gcm@openssh.com"]
OPENSSH_MACS = ["umac-64-etm@openssh.com", "umac-128-etm@openssh.com", "hmac-sha2-256-etm@openssh.com",
                "hmac-sha2-512-etm@openssh.com", "hmac-sha1-etm@openssh.com", "umac-64@openssh.com",
                "umac-128@openssh.com", "hmac-sha2-256", "hmac-sha2-512", "hmac-sha1"]


async def test_a_client_asking_openssh_s_way_gets_a_cheap_cipher_and_one_with_only_old_ciphers_still_connects(
        start_server, echo_app):
    srv = await start_server(echo_app)
    # chacha20-poly1305 costs the server several times AES's CPU per packet: a client that prefers it
    # (OpenSSH does) gets AES-CTR with an encrypt-then-MAC HMAC, and plays.
    conn = await ssh_connect(srv.port, encryption_algs=OPENSSH_CIPHERS, mac_algs=OPENSSH_MACS)
    async with conn:
        assert conn.get_extra_info("send_cipher") == "aes128-ctr"
        assert conn.get_extra_info("send_mac") == "hmac-sha2-256-etm@openssh.com"
        r = await asyncio.wait_for(conn.run("who"), 30)
        assert r.exit_status == 0 and r.stdout.startswith("0 online")
    # a client with AES-CTR and plain HMAC-SHA1 alone (an old one) is still served
    conn = await ssh_connect(srv.port, encryption_algs=["aes256-ctr"], mac_algs=["hmac-sha1"])
    async with conn:
        assert (conn.get_extra_info("send_cipher"), conn.get_extra_info("send_mac")) == ("aes256-ctr", "hmac-sha1")
    # one that speaks chacha20 alone is refused at the key exchange, as any unshared cipher is
    with pytest.raises(asyncssh.Error):
        await ssh_connect(srv.port, encryption_algs=["chacha20-poly1305@openssh.com"])


async def test_host_key_is_generated_once_and_kept(tmp_path):
    k1 = load_host_key(tmp_path)
    k2 = load_host_key(tmp_path)
    assert k1.get_fingerprint() == k2.get_fingerprint()
    assert k1.algorithm == b"ssh-ed25519"
    assert (tmp_path / "ssh_host_ed25519_key").stat().st_mode & 0o077 == 0


# -- the driver ------------------------------------------------------------


async def test_a_pty_session_runs_the_app_sized_resized_and_typed_into(start_server, echo_app):
    srv = await start_server(echo_app)
    t = await Terminal(90, 28).connect(srv.port, "bob")
    try:
        await t.wait_for("hello bob")
        await t.wait_for("size 90x28")
        t.press("up")
        await t.wait_for("key up")
        t.press("app-left")  # application cursor mode encoding
        await t.wait_for("key left")
        t.press("escape")  # a lone ESC becomes a key after the escape delay
        await t.wait_for("key escape")
        t.resize(70, 20)
        await t.wait_for("size 70x20")
        t.send("\x1b[<0;5;3M\x1b[<0;5;3m")  # an SGR mouse click on the input
        t.send("hi")  # the click focused the input, which now takes the typing
        await t.wait_for(r"▊\s+hi\s")
    finally:
        await t.close()


async def test_a_crash_in_one_sessions_app_ends_that_session_only(start_server, echo_app):
    srv = await start_server(echo_app)
    a = await Terminal().connect(srv.port, "alice")
    b = await Terminal().connect(srv.port, "bob")
    try:
        await a.wait_for("hello alice")
        await b.wait_for("hello bob")
        a.press("\x18")  # ctrl+x: the stand-in app raises
        await asyncio.wait_for(a.closed.wait(), 30)
        b.press("down")
        await b.wait_for("key down")
        c = await Terminal().connect(srv.port, "carol")
        await c.wait_for("hello carol")
        await c.close()
    finally:
        await a.close()
        await b.close()


async def test_a_client_that_stops_reading_stalls_no_one_else(start_server, echo_app):
    srv = await start_server(echo_app)
    slow = await Terminal().connect(srv.port, "slow")
    fast = await Terminal().connect(srv.port, "fast")
    try:
        await slow.wait_for("hello slow")
        await fast.wait_for("hello fast")
        slow.conn._transport.pause_reading()
        for _ in range(50):
            slow.press("up", "down")
        for key in ("left", "right", "up"):
            t0 = time.monotonic()
            fast.press(key)
            await fast.wait_for(f"key {key}")
            assert time.monotonic() - t0 < 3.0  # (a loaded machine takes a while; a frozen one, for ever)
    finally:
        slow.conn._transport.resume_reading()
        await slow.close()
        await fast.close()


# -- identity --------------------------------------------------------------


def _identity_app(seen):
    def factory(backend, name):
        seen.append(backend.player.identity)
        return EchoApp(backend, name)

    return factory


async def test_a_signed_public_key_login_is_the_identity(start_server):
    seen = []
    srv = await start_server(_identity_app(seen))
    key = asyncssh.generate_private_key("ssh-ed25519")
    t = await Terminal().connect(srv.port, "alice", client_keys=[key])
    try:
        await t.wait_for("hello alice")
        assert seen == [key.get_fingerprint("sha256")]
    finally:
        await t.close()


async def test_a_guest_and_a_key_offered_but_not_used_give_no_identity(start_server, monkeypatch):
    seen = []
    srv = await start_server(_identity_app(seen))
    t = await Terminal().connect(srv.port, "guest")
    await t.wait_for("hello guest")
    await t.close()
    # A key the client offers (the server answers PK_OK) but then cannot sign with.
    key = asyncssh.generate_private_key("ssh-ed25519")
    pair = asyncssh.load_keypairs([key])[0]

    def cannot_sign(data):
        raise ValueError("no signing today")

    monkeypatch.setattr(pair, "sign", cannot_sign, raising=False)
    if hasattr(pair, "sign_async"):
        async def cannot_sign_async(data):
            raise ValueError("no signing today")

        monkeypatch.setattr(pair, "sign_async", cannot_sign_async, raising=False)
    t = await Terminal().connect(srv.port, "offerer", client_keys=[pair])
    try:
        await t.wait_for("hello offerer")
        assert seen == [None, None]
    finally:
        await t.close()


# -- refusals --------------------------------------------------------------


async def test_no_port_forwarding_of_any_kind(start_server, echo_app, tmp_path):
    srv = await start_server(echo_app)
    conn = await ssh_connect(srv.port)
    async with conn:
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_connection(asyncssh.SSHTCPSession, "127.0.0.1", srv.port)
        with pytest.raises((asyncssh.Error, asyncssh.ChannelListenError)):
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", 22)
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_unix_connection(asyncssh.SSHUNIXSession, str(tmp_path / "sock"))
        with pytest.raises((asyncssh.Error, asyncssh.ChannelListenError)):
            await conn.forward_remote_path(str(tmp_path / "remote.sock"), str(tmp_path / "local.sock"))
    assert not (tmp_path / "remote.sock").exists()


async def test_no_agent_forwarding_and_no_x11(start_server, echo_app):
    srv = await start_server(echo_app)
    conn = await ssh_connect(srv.port)
    async with conn:
        chan, _ = await conn.create_session(asyncssh.SSHClientSession, term_type="xterm", encoding=None)
        agent = await chan._make_request(b"auth-agent-req@openssh.com")
        x11 = await chan._make_request(
            b"x11-req", Boolean(False), String(b"MIT-MAGIC-COOKIE-1"), String(b"00" * 16), UInt32(0)
        )
        assert agent is False and x11 is False
        (c,) = srv.live
        assert c.conn.get_agent_path() is None
        chan.close()


async def test_no_sftp_and_no_scp(start_server, echo_app, tmp_path):
    srv = await start_server(echo_app)
    conn = await ssh_connect(srv.port)
    async with conn:
        with pytest.raises(asyncssh.Error):
            await asyncio.wait_for(conn.start_sftp_client(), 30)
    conn = await ssh_connect(srv.port)
    async with conn:
        with pytest.raises(asyncssh.Error):
            await asyncio.wait_for(asyncssh.scp((conn, "/etc/passwd"), str(tmp_path / "x")), 30)
    assert not (tmp_path / "x").exists()
    r = await run(srv.port, "scp -f /etc/passwd")
    assert r.exit_status == 1 and "root:" not in r.stdout


async def test_one_session_per_connection(start_server, echo_app):
    srv = await start_server(echo_app)
    conn = await ssh_connect(srv.port)
    async with conn:
        await conn.create_session(asyncssh.SSHClientSession, "help")
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_session(asyncssh.SSHClientSession, "help")


# -- limits ----------------------------------------------------------------


async def test_login_timeout_drops_a_client_that_never_logs_in(start_server, echo_app):
    srv = await start_server(echo_app, login_timeout=0.5)
    reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
    await reader.readline()  # the server's version line; then say nothing
    t0 = time.monotonic()
    data = await asyncio.wait_for(reader.read(), 30)
    assert time.monotonic() - t0 < 15  # dropped after the login timeout (0.5 s), not kept
    assert data == b"" or reader.at_eof()
    writer.close()
    await until(lambda: not srv.live)


async def test_keepalives_drop_a_dead_client(start_server, echo_app):
    srv = await start_server(echo_app, keepalive_interval=0.2, keepalive_count_max=2)
    t = await Terminal().connect(srv.port, "ghost")
    await t.wait_for("hello ghost")
    assert srv.sessions.running == 1
    t.conn._transport.pause_reading()  # the client answers nothing from now on
    await until(lambda: srv.sessions.running == 0 and not srv.live)
    t.conn._transport.resume_reading()
    await t.close()


async def test_connections_are_capped_per_address_and_overall(start_server, echo_app):
    srv = await start_server(echo_app, max_per_address=2, max_connections=3)
    a = await ssh_connect(srv.port)
    b = await ssh_connect(srv.port)
    with pytest.raises((asyncssh.Error, OSError)):
        await asyncio.wait_for(ssh_connect(srv.port), 30)
    c = await ssh_connect(srv.port, local_addr=("127.0.0.2", 0))
    with pytest.raises((asyncssh.Error, OSError)):
        await asyncio.wait_for(ssh_connect(srv.port, local_addr=("127.0.0.3", 0)), 30)
    for conn in (a, b, c):
        conn.close()
        await conn.wait_closed()
    await until(lambda: not srv.live)
    d = await ssh_connect(srv.port)  # room again once they are gone
    d.close()


@pytest.mark.parametrize("pktsize", [0, 1, 100])
async def test_a_channel_with_a_tiny_maximum_packet_size_cannot_freeze_the_server(start_server, echo_app, pktsize):
    # Regression guard for asyncssh 2.24: a peer's maximum packet size is used
    # to split output; a tiny one makes the server loop instead of serving.
    srv = await start_server(echo_app)
    conn = await ssh_connect(srv.port)
    got = []

    class Session(asyncssh.SSHClientSession):
        def data_received(self, data, datatype):
            got.append(data)

    try:
        chan, _ = await asyncio.wait_for(
            conn.create_session(Session, term_type="xterm", encoding=None, max_pktsize=pktsize), 10
        )
        await asyncio.wait_for(chan.wait_closed(), 30)  # refused: the server hangs up
    except (asyncssh.Error, OSError):
        pass
    finally:
        conn.close()
    assert got == [] and echo_app.made == []
    t0 = time.monotonic()
    t = await Terminal().connect(srv.port, "next")
    await t.wait_for("hello next", timeout=30)
    assert time.monotonic() - t0 < 15  # served as usual (a server busy looping never would)
    await t.close()
    await until(lambda: not srv.live)


async def test_behind_nat_the_public_host_and_port_are_what_people_are_told(start_server, echo_app):
    srv = await start_server(echo_app, public_host="play.example", public_port=22)
    assert srv.ssh_line() == "ssh play.example"
    r = await run(srv.port, "help")
    assert "ssh -t play.example join CODE" in r.stdout and "-p" not in r.stdout
    srv2 = await start_server(echo_app, public_host="play.example", public_port=2022)
    r = await run(srv2.port, "nonsense")
    assert "usage: ssh -t -p 2022 play.example [help" in r.stderr
