"""A :class:`~tui.ports.ChatRoom` made from a backend's four chat calls, whatever carries
them (the one-process server's backend, or an edge's that asks the host):

- ``chat_lines(where)``: the lines this session may read (``where``: a seat handle, or
  None for the lobby);
- ``chat_say(where, room, text, phrase)``: the line as accepted;
- ``chat_mutes()``: the authors this key muted (``who`` -> name);
- ``chat_mute(name, on)``: mute or unmute a name; the author's ``who``;

and where new lines come from (``listen``: the lobby's stream, or the seat's second
stream filtered to its chat lines)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from tui.ports import ChatCallback, ChatLine, Unsubscribe


class ChatDoor:
    def __init__(self, backend: Any, where: Any, rooms: tuple[str, ...], *, free_text: bool,
                 listen: Callable[[ChatCallback], Unsubscribe]) -> None:
        self._backend = backend
        self._where = where
        self._rooms = rooms
        self._free_text = free_text
        self._listen = listen

    @property
    def rooms(self) -> tuple[str, ...]:
        return self._rooms

    @property
    def free_text(self) -> bool:
        return self._free_text

    @property
    def me(self) -> str:
        return str(self._backend.name)

    def lines(self) -> Awaitable[list[ChatLine]]:
        result: Awaitable[list[ChatLine]] = self._backend.chat_lines(self._where)
        return result

    def listen(self, callback: ChatCallback) -> Unsubscribe:
        return self._listen(callback)

    def say(self, text: str, *, phrase: str = "", room: str = "") -> Awaitable[ChatLine]:
        result: Awaitable[ChatLine] = self._backend.chat_say(self._where, room or self._rooms[0], text, phrase)
        return result

    def mutes(self) -> Awaitable[dict[str, str]]:
        result: Awaitable[dict[str, str]] = self._backend.chat_mutes()
        return result

    def mute(self, name: str, on: bool = True) -> Awaitable[str]:
        result: Awaitable[str] = self._backend.chat_mute(name, on)
        return result


def kept(listen: Callable[[ChatCallback], Unsubscribe], held: list[Unsubscribe]) -> Callable[[ChatCallback],
                                                                                         Unsubscribe]:
    """``listen``, each subscription also kept in ``held`` until it ends: a backend ends
    what is left when its session ends (a screen's context must not outlive its session
    in a listener list that outlives it: the lobby's)."""

    def listening(callback: ChatCallback) -> Unsubscribe:
        stop = listen(callback)
        held.append(stop)

        def unlisten() -> None:
            stop()
            if stop in held:
                held.remove(stop)

        return unlisten

    return listening


def seat_lines(subscribe_messages: Callable[[Callable[[Any], None]], Unsubscribe]) -> Callable[[ChatCallback],
                                                                                                 Unsubscribe]:
    """``listen`` for a match: the chat lines among a seat's messages."""

    def listen(callback: ChatCallback) -> Unsubscribe:
        def said(message: Any) -> None:
            if isinstance(message, ChatLine):
                callback(message)

        return subscribe_messages(said)

    return listen


def match_rooms(seat: int | None) -> tuple[str, ...]:
    """Where a seat may write: a player to the players (and the spectators), a spectator to
    the spectators."""
    return ("players", "spectators") if seat is not None else ("spectators",)
