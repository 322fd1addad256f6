"""The split server under outages, end to end: a real redis-server stopped and started
again, edges killed (-9) and restarted, the host killed and restarted, with real SSH
clients.  What is asserted is what a player notices: a clear line instead of a
traceback, a bank that is not charged for time nobody could play, a notice that says the
match is paused and goes when it resumes, a match between two people that carries on
with both seats and is stored once."""

from __future__ import annotations

import pytest

from tests.support.terminal import ssh_connect


@pytest.mark.parametrize(("lang", "line"), [
    ("C", "voltage: the game server is not reachable right now"),
    ("es_ES.UTF-8", "voltage: el servidor de juego no está disponible ahora mismo"),
])
async def test_who_during_a_redis_outage_is_one_clear_line_and_exit_1(cluster, lang, line):
    edge = await cluster.add_edge()
    async with await ssh_connect(edge.port, "dave") as conn:  # the edge answers while Redis is up
        assert (await conn.run("who")).exit_status == 0
    cluster.redis.stop()
    try:
        for command in ("who", "leaderboard", "export 3"):
            async with await ssh_connect(edge.port, "dave") as conn:
                r = await conn.run(command, env={"LANG": lang})
            assert r.exit_status == 1, (command, r.stdout, r.stderr)
            assert r.stderr.strip() == line and not r.stdout, (command, r.stderr)
        log = edge.log.read_text(errors="replace")
        assert "Traceback" not in log and "NoReply" not in log, log
    finally:
        cluster.redis.start()
    async with await ssh_connect(edge.port, "dave") as conn:  # and back once Redis is
        r = await conn.run("who")
    assert r.exit_status == 0, r.stderr
