"""A session on an edge starts in its key's kept language with no call before its first frame
beyond the one that opens it (the host sends the key's settings with the opening), and an
edge's commands answer in the language the request asks for."""

from __future__ import annotations

from server.edge.backend import EdgeClient, RemoteBackend
from server.session.sessions import session_language


async def test_an_edge_session_starts_in_its_keys_kept_language_without_a_second_call(kept_cluster, monkeypatch):
    client = await EdgeClient.connect(kept_cluster.url)
    try:
        first = await client.open_session("SHA256:ann", "ann", None, {})
        assert await first.claim_name("ann") == "ann"
        await first.save_setting("language", "es")
        first.close()
        calls: list[str] = []
        ask = RemoteBackend._call

        async def counted(self, op, *args, **kwargs):
            calls.append(op)
            return await ask(self, op, *args, **kwargs)

        monkeypatch.setattr(RemoteBackend, "_call", counted)
        again = await client.open_session("SHA256:ann", "ann", None, {"LANG": "ca_ES.UTF-8"})
        assert await session_language(again, {"LANG": "ca_ES.UTF-8"}) == "es"
        assert calls == []  # (the settings came with the opening)
        assert (await again.settings()).get("language") == "es" and calls == ["settings"]  # later: asked afresh
        guest = await client.open_session(None, "bo", None, {"LANG": "ca_ES.UTF-8"})
        assert await session_language(guest, {"LANG": "ca_ES.UTF-8"}) == "ca"
        assert "en línia" in await client.who_text("ca") and "online" in await client.who_text("en")
    finally:
        await client.close()
