"""Admission: which new connections are let in, before anyone has logged in.

Keyed by the peer's address only, so every transport of a process shares one
:class:`Admission` (its counts are the process's), whatever protocol it speaks:

- a cap on connections overall (``max_connections``) and per address (``max_per_address``);
- budgets of connections not yet authenticated, in the spirit of OpenSSH's
  ``MaxStartups`` (``start:rate:full``, overall and per address): below ``start`` every
  new one is let in, from there the chance of a drop rises from ``rate`` % to 100 % at
  ``full``.  Twenty silent sockets used to lock an address out for the whole 30 s login
  timeout, indefinitely, and 1,000 locked out everyone; with random early drop a real
  login still gets in while the budget fills.

A transport asks :meth:`Admission.admit` when a connection arrives, tells the
:class:`Ticket` when the client has proved who it is (or chosen to be a guest), and
releases it when the connection ends.  Dropping silent or idle connections early is the
transport's part (it knows what "asked to log in" means).
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class AdmissionLimits:
    max_connections: int = 1000
    max_per_address: int = 20
    # MaxStartups-style budgets of unauthenticated connections: (start, rate %, full)
    max_startups: tuple[int, int, int] = (10, 30, 100)
    max_startups_per_address: tuple[int, int, int] = (3, 30, 10)


class Ticket:
    """One admitted connection: counted until :meth:`release`, and in the budget of
    connections not yet logged in until :meth:`authenticated` (each counts once)."""

    __slots__ = ("_admission", "peer", "logged_in", "released")

    def __init__(self, admission: Admission, peer: str) -> None:
        self._admission = admission
        self.peer = peer
        self.logged_in = False
        self.released = False

    def authenticated(self) -> None:
        if not self.logged_in and not self.released:
            self.logged_in = True
            self._admission._unstart(self.peer)

    def release(self) -> None:
        if not self.released:
            self.released = True
            self._admission._release(self)


class Admission:
    """The connection counts of one process, and the decision to let one more in."""

    def __init__(self, limits: AdmissionLimits | None = None) -> None:
        self.limits = limits or AdmissionLimits()
        self.connections = 0
        self.per_address: dict[str, int] = {}
        self.startups = 0  # connections not yet logged in
        self.startups_per_address: dict[str, int] = {}
        self.random = random.Random()

    def admit(self, peer: str) -> Ticket | None:
        """A ticket for a new connection from ``peer``, or None: refuse it."""
        limits = self.limits
        if self.connections >= limits.max_connections:
            log.info("refusing %s: %d connections already", peer, self.connections)
            return None
        if self.per_address.get(peer, 0) >= limits.max_per_address:
            log.info("refusing %s: too many connections from that address", peer)
            return None
        if self.early_drop(self.startups, limits.max_startups):
            log.info("refusing %s: %d connections not logged in yet", peer, self.startups)
            return None
        if self.early_drop(self.startups_per_address.get(peer, 0), limits.max_startups_per_address):
            log.info("refusing %s: too many connections from that address not logged in yet", peer)
            return None
        self.connections += 1
        self.per_address[peer] = self.per_address.get(peer, 0) + 1
        self.startups += 1
        self.startups_per_address[peer] = self.startups_per_address.get(peer, 0) + 1
        return Ticket(self, peer)

    def early_drop(self, n: int, budget: tuple[int, int, int]) -> bool:
        """MaxStartups ``start:rate:full``: drop with a chance rising from ``rate`` %
        at ``start`` unauthenticated connections to 100 % at ``full``."""
        start, rate, full = budget
        if n < start:
            return False
        if n >= full:
            return True
        chance = rate / 100 + (1 - rate / 100) * (n - start) / max(1, full - start)
        return self.random.random() < chance

    def _unstart(self, peer: str) -> None:
        self.startups -= 1
        n = self.startups_per_address.get(peer, 1) - 1
        if n:
            self.startups_per_address[peer] = n
        else:
            self.startups_per_address.pop(peer, None)

    def _release(self, ticket: Ticket) -> None:
        self.connections -= 1
        n = self.per_address.get(ticket.peer, 1) - 1
        if n:
            self.per_address[ticket.peer] = n
        else:
            self.per_address.pop(ticket.peer, None)
        if not ticket.logged_in:
            self._unstart(ticket.peer)
