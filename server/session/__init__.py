"""The session layer: one player's session, whatever carries it (see docs/design/sessions.md)."""
