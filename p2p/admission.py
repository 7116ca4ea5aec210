"""Who the host lets in while handshakes are pending, and how refusals are reported: pure decisions.

:class:`Admission` bounds the handshakes in progress: at most
:data:`MAX_PENDING` that have not proven the invite secret, at most
:data:`MAX_PER_SOURCE` of those from one source (an IPv4 address, an IPv6 /64),
the oldest unproven one making room when the pool is full. A handshake that
proved the secret is never evicted, and the source the playing peer last came
from has a reserved slot: its newest connection replaces its oldest instead of
being refused. :class:`Approvals` bounds the questions a LAN knock puts to the
host's person: one at a time, a few per source, none for a source once declined,
a few in all. :class:`RefusalLog` turns refusals into at most one line per
interval. Neither does any I/O (docs/protocol.md, "Admission").
"""

from __future__ import annotations

import collections
import ipaddress
from collections.abc import Hashable
from dataclasses import dataclass, field

from p2p.text import N_, Text, ntext

MAX_PENDING = 16
"""Handshakes at most in progress that have not proven the invite secret."""
MAX_PER_SOURCE = 4
"""Of those, at most this many from one source address (IPv4) or /64 (IPv6)."""


def host_of(address: str) -> str:
    """The IP address as a person reads it: an IPv4 address mapped into IPv6 as plain IPv4."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return address


def source_of(address: str) -> str:
    """The source a connection is counted under: the IPv4 address (also when mapped into IPv6),
    or the IPv6 /64 network, since one home usually gets a whole /64."""
    address = host_of(address)
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


@dataclass
class Admission:
    """The pending handshakes, by a key per connection, and which to drop for a new one."""

    max_pending: int = MAX_PENDING
    max_per_source: int = MAX_PER_SOURCE
    reserved: str | None = None
    """The source of the playing peer's last connection (its reserved slot)."""
    _pending: dict[Hashable, tuple[str, bool]] = field(default_factory=dict)

    def arrive(self, key: Hashable, source: str) -> list[Hashable] | None:
        """A new connection from ``source``: the connections to drop to make room for it, or
        ``None`` if it is itself refused (its source has its share already)."""
        unproven = [(k, s) for k, (s, proven) in self._pending.items() if not proven]
        mine = [k for k, s in unproven if s == source]
        drop: list[Hashable] = []
        if len(mine) >= self.max_per_source:
            if source != self.reserved:
                return None
            drop.append(mine[0])
        elif len(unproven) >= self.max_pending:
            others = [k for k, s in unproven if s != self.reserved]
            drop.append(others[0] if others else unproven[0][0])
        for k in drop:
            del self._pending[k]
        self._pending[key] = (source, False)
        return drop

    def prove(self, key: Hashable) -> None:
        """The connection proved the invite secret: it is never dropped to make room."""
        if key in self._pending:
            self._pending[key] = (self._pending[key][0], True)

    def leave(self, key: Hashable) -> None:
        """The connection's handshake ended (either way)."""
        self._pending.pop(key, None)

    def __len__(self) -> int:
        return len(self._pending)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._pending


MAX_QUESTIONS_PER_SOURCE = 2
"""LAN joiners' questions to the host's person, at most, from one source."""
MAX_QUESTIONS = 8
"""LAN joiners' questions, at most, in one hosting: after that only invites get in."""


@dataclass
class Approvals:
    """Whether a LAN knock may put its question ("bob wants to join — accept?") to the host's
    person: a flood of LAN strangers costs the person a bounded number of answers."""

    max_per_source: int = MAX_QUESTIONS_PER_SOURCE
    max_questions: int = MAX_QUESTIONS
    asking: str | None = None
    """The source whose question is open (one at a time)."""
    _asked: collections.Counter[str] = field(default_factory=collections.Counter)
    _declined: set[str] = field(default_factory=set)

    def welcome(self, source: str) -> bool:
        """Whether a LAN knock from ``source`` is taken at all (else it gets the stranger's refusal)."""
        return (
            source not in self._declined
            and self._asked[source] < self.max_per_source
            and sum(self._asked.values()) < self.max_questions
        )

    def open(self, source: str) -> bool:
        """Open the question for ``source``; ``False`` if another is open or it is not welcome."""
        if self.asking is not None or not self.welcome(source):
            return False
        self.asking = source
        self._asked[source] += 1
        return True

    def answer(self, source: str, accepted: bool) -> None:
        """The person answered (no answer in time counts as no): a declined source is not asked again."""
        if self.asking == source:
            self.asking = None
        if not accepted:
            self._declined.add(source)


@dataclass
class RefusalLog:
    """Refused connections as at most one line each ``interval`` seconds (the rest counted in it)."""

    interval: float = 1.0
    _last: float = float("-inf")
    _held: int = 0

    def held(self, now: float) -> Text | None:
        """The count of refusals not shown yet, once the interval has passed (``None`` if none)."""
        if not self._held or now - self._last < self.interval:
            return None
        self._last, held, self._held = now, self._held, 0
        return ntext("refused {count} more connection", "refused {count} more connections", held)

    def note(self, now: float, address: str, error: object) -> Text | None:
        """The line to show for this refusal now, or ``None`` (it is counted into the next line)."""
        if now - self._last < self.interval:
            self._held += 1
            return None
        self._last, held, self._held = now, self._held, 0
        if not held:
            return Text(N_("refused a connection from {address}: {error}"), address=address, error=error)
        return ntext(
            "refused a connection from {address}: {error} (and {count} more before it)",
            "refused a connection from {address}: {error} (and {count} more before it)",
            held,
            address=address,
            error=error,
        )
