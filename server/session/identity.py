"""Who a session's player is, as its transport proved it.

- An SSH client that logged in with a signed public-key request is its key: the key's
  SHA256 fingerprint names the player across sessions and restarts (their name, ratings,
  settings and seats follow it).  A key merely offered proves nothing.
- Anyone else is a guest for that one session: nothing recognises them next time.
- A browser will present a token linked to a key (linked from an SSH session of that
  key): it then is that key, ``via="token"``; the lobby never asks how.

The user name a client gives (``ssh alice@HOST``) proves nothing: it only prefills the
name screen.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Identity:
    """A session's player: a key (``key``, what the lobby and the store know them by) or a guest."""

    username: str = ""  # what the client called itself: a suggestion, never trusted
    key: str | None = None  # "SHA256:..." of the key that proved it; None for a guest
    via: str = "guest"  # how it was proved: "ssh-key" or "guest" (a browser's linked token: "token")

    @classmethod
    def of_key(cls, fingerprint: str, username: str = "", *, via: str = "ssh-key") -> Identity:
        return cls(username=username, key=fingerprint, via=via)

    @classmethod
    def guest(cls, username: str = "") -> Identity:
        return cls(username=username)

    @property
    def is_guest(self) -> bool:
        return self.key is None
