"""The web transport: the same sessions as SSH's, in a browser (``voltage serve --web PORT``).

One aiohttp server in the process's own event loop (or each edge's) serves one page, its
static files and a WebSocket per browser tab; each WebSocket is a
:class:`~server.session.driver.TerminalChannel` handed to the process's
:class:`~server.session.sessions.Sessions`, so the admission, input budget, output flow
control, collector hooks and name watchdog are SSH's own.  Never a process per visitor.

- ``assets.py``: the page and its static files, read from the package once at start.
- ``channel.py``: a session's terminal over a WebSocket, which outlives a dropped socket
  for the grace period (a reconnecting tab gets its session, screen and seat back).
- ``server.py``: the listener, the page, the WebSocket endpoint, linking a browser to a key,
  and the HTTP side of the hardening.
"""
