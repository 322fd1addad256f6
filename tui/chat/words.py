"""The chat's words (a line itself is never translated): the quick phrases, each
reader's own wording of a phrase's id, and what the panel says."""

from __future__ import annotations

from tui.i18n import N_, _, ngettext
from tui.ports import ChatLine

#: A quick phrase's words by its id (:data:`server.chat.text.PHRASES`, in that order).
PHRASE_WORDS: dict[str, str] = {
    "hi": N_("Hi!"),
    "glhf": N_("Good luck, have fun!"),
    "wp": N_("Well played!"),
    "thanks": N_("Thanks!"),
    "gg": N_("Good game!"),
}
PHRASES: tuple[str, ...] = tuple(PHRASE_WORDS)
#: The keys that say them, in that order (free in every screen that has a chat).
PHRASE_KEYS: tuple[str, ...] = ("f2", "f3", "f4", "f5", "f6")

ROOM_WORDS = {"players": N_("players"), "spectators": N_("spectators"), "lobby": N_("lobby")}
#: Where a line goes, whole (a language may join its words otherwise: "als jugadors").
TO_ROOM = {"players": N_("to the players"), "spectators": N_("to the spectators"), "lobby": N_("to the lobby")}


def phrase(pid: str) -> str:
    words = PHRASE_WORDS.get(pid)
    return _(words) if words is not None else pid


def text(line: ChatLine) -> str:
    """What a line says: its text as written, or its quick phrase in the reader's words."""
    return phrase(line.phrase) if line.phrase else line.text


def room(name: str) -> str:
    words = ROOM_WORDS.get(name)
    return _(words) if words is not None else name


def phrases_hint(wide: bool = False) -> str:
    """The quick phrases' keys: each with its words where there is room, else in one line."""
    if not wide:
        return _("F2-F6: quick phrases")
    return "  ".join(f"{k.upper()} {phrase(p)}" for k, p in zip(PHRASE_KEYS, PHRASES, strict=True))


def to_room(name: str) -> str:
    words = TO_ROOM.get(name)
    return _(words) if words is not None else name


def placeholder(target: str, free_text: bool, other: str | None) -> str:
    """The input's hint: where a line goes, how to change that, how to leave."""
    if not free_text:
        return _("quick phrases only (guest): F2-F6; Esc: back")
    where = to_room(target)
    if other is not None:
        where += "  " + _("^t: %(where)s") % {"where": to_room(other)}
    return where + "  " + _("Esc: back")


def muted(name: str) -> str:
    return _("%(name)s is muted for you (/unmute %(name)s)") % {"name": name}


def unmuted(name: str) -> str:
    return _("%(name)s is no longer muted") % {"name": name}


def usage() -> str:
    return _("/mute NAME, /unmute NAME, /muted")


def mutes(names: list[str]) -> str:
    if not names:
        return _("you have muted nobody")
    return _("muted: %(names)s") % {"names": ", ".join(names)}


def title(free_text: bool) -> str:
    return _("chat") if free_text else _("chat (quick phrases)")


def unread(n: int, key: str) -> str:
    """The chat's key, and how many lines came while it was closed."""
    if not n:
        return _("%(key)s: chat") % {"key": key}
    return ngettext("chat: %(n)d new (%(key)s)", "chat: %(n)d new (%(key)s)", n) % {"n": n, "key": key}


def said(line: ChatLine) -> str:
    """A chat line as a log line (a replay's): who said what, and in which room."""
    if line.room == "spectators":
        return _("%(name)s to the spectators: %(text)s") % {"name": line.author, "text": text(line)}
    return _("%(name)s says: %(text)s") % {"name": line.author, "text": text(line)}
