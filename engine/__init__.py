"""Pure game rules: cards, states, actions, legal moves, scoring, per-seat views, bots.

No I/O, no asyncio, no Textual: everything here is deterministic from
(seed, actions).  ``engine.voltage.rules`` holds the rules of Voltage.
"""
