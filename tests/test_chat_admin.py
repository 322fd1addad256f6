"""``voltage admin mute / unmute / mutes / chat-log`` on a data directory, beside the server's
lobby reading the same store: a silence holds from the next line, and the log shows it."""

from __future__ import annotations

from server.chat.rooms import Chat
from server.store.db import Store
from voltage.cli import main


async def test_admin_silences_and_reads_the_log(tmp_path, capsys):
    store = Store.open(tmp_path, lock=False)
    try:
        store.upsert_player("key-a", "alice")
        chat = Chat(store)
        heard = []
        chat.listen(heard.append)
        await chat.say(identity="key-a", name="alice", guest=False, text="hello")
        assert [line.text for line in heard] == ["hello"]
        assert main(["admin", "--data-dir", str(tmp_path), "mute", "Alice", "15m"]) == 0
        assert "silenced until" in capsys.readouterr().out
        line = await chat.say(identity="key-a", name="alice", guest=False, text="am I heard")
        assert line.text == "am I heard" and [h.text for h in heard] == ["hello"]  # said to nobody else
        assert [x.text for x in chat.lobby_lines("key-a")] == ["hello", "am I heard"]
        assert [x.text for x in chat.lobby_lines("key-b")] == ["hello"]
        assert main(["admin", "--data-dir", str(tmp_path), "mutes"]) == 0
        assert "alice" in capsys.readouterr().out.lower()
        assert main(["admin", "--data-dir", str(tmp_path), "chat-log"]) == 0
        out = capsys.readouterr().out
        assert "lobby  alice: hello" in out and "alice: am I heard  (silenced" in out
        assert main(["admin", "--data-dir", str(tmp_path), "unmute", "alice"]) == 0
        await chat.say(identity="key-a", name="alice", guest=False, text="back")
        assert heard[-1].text == "back"
        assert main(["admin", "--data-dir", str(tmp_path), "mute", "alice", "soon"]) == 2
    finally:
        store.close()
