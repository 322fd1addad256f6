"""What a server with a data directory answers: ``leaderboard`` and ``export ID`` as
plain text (no PTY), ``replay ID`` on a terminal only, and a data directory it cannot
use refused at start with a clear message."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import asyncssh
import pytest

from engine.voltage import rules as V
from server.session.commands import help_text
from server.store.db import Store
from tests.support.store import KA, KB, finished_match
from tests.support.terminal import Terminal, ssh_connect


async def run(port, command):
    conn = await ssh_connect(port)
    async with conn:
        return await asyncio.wait_for(conn.run(command), 30)


async def test_leaderboard_prints_the_top_players_per_game(kept):
    r = await run(kept.port, "leaderboard")
    assert r.exit_status == 0 and not r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "Voltage: top 20"
    rows = [line.split() for line in lines[2:4]]
    assert [row[0] for row in rows] == ["1", "2"] and {row[1] for row in rows} == {"Alice", "Bob"}
    store = kept.store
    for row in rows:
        ident = KA if row[1] == "Alice" else KB
        mu, sigma, games = store.rating(ident, "voltage")
        assert int(row[2]) == round(1000 + 20 * (mu - 3 * sigma)) and int(row[3]) == games == 2
    r = await run(kept.port, "leaderboard extra")
    assert r.exit_status == 2


async def test_export_writes_the_match_as_json(kept):
    mid = kept.ids[0]
    r = await run(kept.port, f"export {mid}")
    assert r.exit_status == 0 and not r.stderr
    data = json.loads(r.stdout)
    rec = kept.store.match_record(mid)
    assert data["id"] == mid and data["seed"] == rec.seed == 11 and data["game"] == "voltage"
    assert data["actions"] == list(rec.actions)
    assert [p["name"] for p in data["players"]] == ["Alice", "Bob"]
    assert data["result"]["ranks"] == list(rec.ranks) and data["result"]["winners"] == list(rec.winners)
    assert all("identity" not in p for p in data["players"])  # key fingerprints stay on the server
    # Replaying the exported actions from the seed gives the stored result.
    s = V.new_match(data["seed"])
    for text in data["actions"]:
        a = V.parse_action(text)
        s, _ = V.apply(s, a)
    assert s.over and list(s.scores) == data["result"]["scores"]

    for command, status, words in (
        ("export 999", 1, "no match 999"),
        (f"export {kept.running}", 1, "not finished"),
        ("export", 2, "usage"),
        ("export abc", 2, "usage"),
    ):
        r = await run(kept.port, command)
        assert r.exit_status == status and words in r.stderr and not r.stdout, command


@pytest.mark.parametrize(
    "command",
    ["export 99999999999999999999", "export \u00b2", "export " + "7" * 5000, "replay \u00b2",
     "replay 99999999999999999999", "replay " + "7" * 5000, "export \u0661\u0662"],
    ids=["export-20-digits", "export-superscript", "export-5000-digits", "replay-superscript",
         "replay-20-digits", "replay-5000-digits", "export-arabic-digits"],
)
async def test_a_match_id_that_is_not_a_plain_number_gets_a_usage_line(kept, command, caplog):
    # These used to raise (int() of "\u00b2", past int()'s digit limit, past SQLite's
    # integer range): a traceback in the log, exit 1 and an empty message.
    r = await run(kept.port, command)
    assert r.exit_status == 2, (r.exit_status, r.stderr)
    assert r.stderr.startswith("usage: ") and "MATCH_ID (a number)" in r.stderr
    assert not r.stdout
    assert "Traceback" not in caplog.text and "session failed" not in caplog.text
    r = await run(kept.port, f"export #{kept.ids[0]}")  # and the server still answers
    assert r.exit_status == 0


async def test_replay_needs_a_terminal_and_shows_one_with_it(kept):
    mid = kept.ids[1]
    r = await run(kept.port, f"replay {mid}")
    assert r.exit_status == 1 and "ssh -t" in r.stderr and not r.stdout
    r = await run(kept.port, "replay")
    assert r.exit_status == 2 and "usage" in r.stderr

    t = await Terminal(100, 32).connect(kept.port, "carol", command=f"replay {mid}")
    try:
        await t.wait_for(rf"REPLAY.*#{mid}.*step 0/")
        await t.wait_for("as a spectator")
        t.press("right", "right", "right")
        await t.wait_for(r"step 3/")
        t.send("]")
        await t.wait_for(r"set 2( of|/)")
        t.send("q")
        await asyncio.wait_for(t.closed.wait(), 30)
        assert t.exit_status == 0
    finally:
        await t.close()

    # An unknown or unfinished match is refused with the reason, on a terminal too.
    t = await Terminal(100, 32).connect(kept.port, "carol", command=f"replay {kept.running}")
    await asyncio.wait_for(t.closed.wait(), 30)
    assert t.exit_status == 1


async def test_a_player_replays_their_own_match_with_their_hand(kept):
    key = asyncssh.generate_private_key("ssh-ed25519")
    fp = key.get_fingerprint("sha256")
    store = kept.store
    store.upsert_player(fp, "Dana")
    mid = finished_match(store, 14, names=("Dana", "Bob"), idents=(fp, KB))
    t = await Terminal(100, 32).connect(kept.port, "dana", client_keys=[key], command=f"replay {mid}")
    try:
        await t.wait_for("as Dana")
        await t.wait_for("your side")
    finally:
        await t.close()


async def test_help_lists_the_new_commands(kept):
    r = await run(kept.port, "help")
    assert r.stdout == help_text(kept.ssh_line())
    for word in ("leaderboard", "export MATCH_ID", "replay MATCH_ID"):
        assert word in r.stdout


async def test_a_server_without_a_store_says_it_keeps_nothing(start_server, echo_app):
    srv = await start_server(echo_app)
    for command in ("leaderboard", "export 1"):
        r = await run(srv.port, command)
        assert r.exit_status == 1 and "keeps no" in r.stderr


@pytest.mark.parametrize("damage", ["garbage", "newer", "file"])
def test_a_data_directory_it_cannot_use_is_refused_at_start(tmp_path, damage):
    """(An unwritable directory is refused too, see test_store; root can write anywhere.)"""
    import sqlite3

    d = tmp_path / "data"
    if damage == "file":
        d.write_text("not a directory")
    else:
        d.mkdir()
        if damage == "garbage":
            (d / "voltage.db").write_bytes(b"this is not a database at all" * 200)
        else:
            Store.open(d).close()
            c = sqlite3.connect(d / "voltage.db")
            c.execute("PRAGMA user_version = 99")
            c.close()
    p = subprocess.run(
        [sys.executable, "-m", "voltage", "serve", "--port", "0", "--data-dir", str(d)],
        capture_output=True, text=True, timeout=20,
    )
    assert p.returncode != 0
    assert p.stderr.startswith("voltage serve: ") and str(d) in p.stderr, p.stderr
    assert "Voltage is serving" not in p.stdout
    if damage == "garbage":
        assert "not a usable Voltage database" in p.stderr
        assert (d / "voltage.db").read_bytes().startswith(b"this is not")  # left as it was
    elif damage == "newer":
        assert "schema version 99" in p.stderr


async def test_a_high_voltage_match_replays_over_ssh(kept, capsys):
    from tests.server.test_hv_replay_model import store_hv_match

    store = kept.store
    hv, actions, final = store_hv_match(store, seed=3)
    t = await Terminal(100, 32).connect(kept.port, "carol", command=f"replay {hv}")
    try:
        await t.wait_for(rf"REPLAY.*#{hv}.*step 0/{len(actions)}")
        await t.wait_for("HIGH VOLTAGE")
        await t.wait_for("The countdown: hands face down")
        t.send("]")
        await t.wait_for("round 2/")
        await t.wait_for("Everyone is stuck")
        t.press("end")
        await t.wait_for(rf"step {len(actions)}/{len(actions)}")
        await t.wait_for("laid the last card")
        t.send("q")
        await asyncio.wait_for(t.closed.wait(), 30)
        assert t.exit_status == 0
    finally:
        await t.close()
    # An unknown match is refused with the reason, locally too (read-only, beside the running server).
    from voltage.cli import main

    assert main(["replay", "999", "--data-dir", str(store.path.parent)]) == 1
    assert "no match 999" in capsys.readouterr().err
