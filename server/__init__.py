"""Hosting: matches and their seats, the lobby, and the SSH server."""
