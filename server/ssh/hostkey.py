"""The server's SSH host key: made on first use and kept in the data directory; never
replaced silently (the clients know it)."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path

import asyncssh

log = logging.getLogger(__name__)

HOST_KEY_FILE = "ssh_host_ed25519_key"


class HostKeyError(Exception):
    """The host key cannot be read or made; the message says what to do."""


def load_host_key(
    data_dir: Path, warn: Callable[[str], None] | None = None, *, used_before: bool | None = None
) -> asyncssh.SSHKey:
    """The server's ed25519 host key, generated on first use and kept in ``data_dir``.

    A key file that cannot be read is :class:`HostKeyError` (never replaced: the
    clients know that key).  A key missing from a data directory that was used
    before (it holds a database or the key's ``.pub``) is made anew, but
    ``warn`` (default: a log warning) is told loudly: every client that
    connected before will see a changed host key.  ``used_before`` overrides
    that judgement (the caller looked before it created the database).
    """
    path = data_dir / HOST_KEY_FILE
    pub = data_dir / (HOST_KEY_FILE + ".pub")
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise HostKeyError(f"cannot create the data directory {data_dir}: {e.strerror or e}") from e
    if path.exists() or path.is_symlink():
        try:
            return asyncssh.read_private_key(str(path))
        except (OSError, asyncssh.KeyImportError, ValueError) as e:
            raise HostKeyError(
                f"the host key {path} cannot be read ({getattr(e, 'strerror', None) or e}). "
                "Restore it from a backup; or move it aside to make a new one, and clients "
                "that connected before will see a changed host key"
            ) from e
    signs = [p.name for p in (data_dir / "voltage.db", pub) if p.exists()]
    if used_before is not None:
        signs = [n for n in signs if n != "voltage.db" or used_before]
    key = asyncssh.generate_private_key("ssh-ed25519")
    tmp = path.with_suffix(".tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(key.export_private_key())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        pub.write_bytes(key.export_public_key())
    except OSError as e:
        raise HostKeyError(f"cannot write a new host key {path}: {e.strerror or e}") from e
    if signs:
        text = (
            f"the host key {path} is missing, but this data directory was used before "
            f"(it holds {' and '.join(signs)}): a NEW host key was made "
            f"({key.get_fingerprint('sha256')}). Every client that connected before will see "
            "\"REMOTE HOST IDENTIFICATION HAS CHANGED\" and must drop the old key "
            "(ssh-keygen -R '[HOST]:PORT'). If the key was lost by mistake, stop the server "
            "and put the old key back."
        )
        (warn or log.warning)(text)
    return key
