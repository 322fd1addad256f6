"""The edge of a split server: SSH sessions and their Textual apps, the host reached over Redis.

:mod:`server.edge.backend` implements the tui's seams (:class:`tui.ports.LobbyBackend`,
:class:`tui.ports.SeatHandle`) over the bus; :mod:`server.ssh.server` runs the
same SSH server with a :class:`~server.edge.backend.EdgeClient` in place of a lobby.
"""
