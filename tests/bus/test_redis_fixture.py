"""The private redis-server fixture itself: fails loudly when missing, stops by pid."""

from __future__ import annotations

import os

import pytest

from tests.support import redis as support


def test_missing_redis_server_fails_with_the_install_command(monkeypatch, tmp_path):
    monkeypatch.setattr(support.shutil, "which", lambda name: None)
    with pytest.raises(pytest.fail.Exception, match="apt-get install -y redis-server"):
        support.RedisServer(tmp_path)


def test_the_server_answers_and_is_stopped_by_its_pid(redis_server):
    assert redis_server.ping()
    pid = redis_server.pid
    redis_server.stop()
    assert not redis_server.ping()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone (and reaped), not just silent
    redis_server.start()  # same address again, as a restart needs
    assert redis_server.ping() and redis_server.pid != pid
