"""Talk: the lobby's room and each match's two (its players' and its spectators').

- :mod:`server.chat.text`: what a line may hold (plain text, 200 characters, no control
  character, no bidi override) and the quick phrases;
- :mod:`server.chat.limits`: the rate limit per identity and the repeated line;
- :mod:`server.chat.storage`: the lines in the store (a line is accepted once stored),
  the lobby's last 100 and a match's, the operator's log;
- :mod:`server.chat.moderation`: an operator's silence (``voltage admin mute``): the
  silenced author's lines reach nobody but their author;
- :mod:`server.chat.rooms`: the rooms themselves, who reads what, and a session's door
  to them (:class:`~tui.ports.ChatRoom`).

A line travels as a :class:`tui.ports.ChatLine`: a match's on its seats' second stream
(the players' room said to the players' seats, the spectators' to seat -1: who may read
it is who may subscribe to that seat), the lobby's on the lobby's own stream.
"""
