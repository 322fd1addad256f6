"""The SSH transport of the session layer: the listener (server.py), one connection (connection.py),
its session process as a terminal channel (channel.py) and the host key (hostkey.py)."""
