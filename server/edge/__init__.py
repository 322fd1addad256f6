"""The edge of a split server: SSH sessions and their Textual apps, the host reached over Redis.

:mod:`server.edge.backend` implements the tui's seams (:class:`tui.ports.LobbyBackend`,
:class:`tui.ports.SeatHandle`) over the bus; :mod:`server.edge.services` gives the session
layer the host's answers (:class:`~server.edge.services.EdgeServices`), so the same
transports serve an edge's sessions as a one-process server's.
"""
