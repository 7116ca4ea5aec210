"""Who the host lets in while handshakes are pending, and how refusals are reported: pure decisions.

:class:`Admission` bounds the connections in progress in stages. Until its
first flight (hello and knock) is read, a connection holds a cheap slot: at most
:data:`MAX_ARRIVING` of those, :data:`MAX_PER_SOURCE` per source (an IPv4
address, an IPv6 /64). Then a knock that proved the invite secret is *proven*:
at most :data:`MAX_PROVEN`, :data:`MAX_PER_SOURCE` per source, and never evicted
for anyone who has not proven it; other handshakes (LAN knocks) are pending: at
most :data:`MAX_PENDING`, :data:`MAX_PER_SOURCE` per source. A full stage drops
the oldest of the network (IPv4 /24, IPv6 /48) holding the most, and the source
the playing peer last came from has a reserved slot: its newest connection
replaces its oldest instead of being refused. :class:`Gate` says who may still
get in once a match is on. :class:`Approvals` bounds the questions a LAN knock
puts to the host's person: one at a time, a few per source, none for a source
once declined, a few in all. :class:`RefusalLog` turns refusals into at most one
line per interval. None does any I/O (docs/operations.md, "Admission": the bounds and
why no flood evicts a friend).
"""

from __future__ import annotations

import collections
import ipaddress
from collections.abc import Hashable
from dataclasses import dataclass, field

from p2p.errors import P2PError, PeerBusy
from p2p.messages import Abort
from p2p.text import N_, Text, ntext

MAX_PENDING = 16
"""Handshakes at most in progress, their first flight read, that have not proven the invite
secret (LAN knocks: any other knock is answered at once)."""
MAX_PROVEN = 16
"""Handshakes at most in progress whose knock proved the invite secret (only holders of the secret
can make them: a joiner reading the rules, the playing joiner coming back)."""
MAX_PER_SOURCE = 4
"""Of those, and of the pending ones, at most this many from one source address (IPv4) or /64
(IPv6); as many of the connections whose first flight is not read yet."""
MAX_ARRIVING = 256
"""Connections at most whose first flight (hello and knock) is not read yet: more than the
listener accepts in the few event-loop turns between a connection's accept and the reading of a
first flight sent with it (:data:`ACCEPT_BATCH` a turn), so no flood evicts such a connection."""
ACCEPT_BATCH = 64
"""Connections the listener accepts at most in one event-loop turn (and its listen backlog)."""
FIRST_FLIGHT_TIMEOUT = 10.0
"""Seconds a new connection may take to send its hello and knock (a joiner sends both at once)."""


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


def network_of(source: str) -> str:
    """The network a :func:`source_of` source belongs to, for choosing whom a full pool drops: its
    IPv4 /24 or IPv6 /48 (what one machine or site can cheaply hold many addresses of)."""
    try:
        network = ipaddress.ip_network(source, strict=False)
    except ValueError:
        return source
    return str(network.supernet(new_prefix=24 if network.version == 4 else 48))


@dataclass
class _Stage:
    """One stage of the pool: connections by key with their sources, oldest first, bounded in
    all and per source. Each decision costs a few dictionary steps per member at most, and no
    address parsing but the newcomer's: under a flood it runs for every connection accepted."""

    capacity: int
    per_source: int
    """Members at most from one source: fewer than ``capacity``, so that a full stage always holds
    someone besides the reserved source to drop for a newcomer."""
    evict_own: bool
    """Whether a source beyond its share replaces its own oldest (else its newest is refused)."""
    _sources: dict[Hashable, str] = field(default_factory=dict)
    _by_source: dict[str, dict[Hashable, None]] = field(default_factory=dict)
    _networks: dict[str, str] = field(default_factory=dict)
    """The network of each source present."""
    _crowd: collections.Counter[str] = field(default_factory=collections.Counter)
    """Members per network."""

    def __post_init__(self) -> None:
        if not 0 < self.per_source < self.capacity:
            raise ValueError(f"a stage of {self.capacity} needs a share per source below it, not {self.per_source}")

    def room(self, source: str, reserved: str | None) -> list[Hashable] | None:
        """The members to drop so that one more from ``source`` fits; ``None``: it is refused."""
        mine = self._by_source.get(source, {})
        if len(mine) >= self.per_source:
            return [next(iter(mine))] if self.evict_own or source == reserved else None
        if len(self._sources) < self.capacity:
            return []
        spared = self._by_source.get(reserved, {}) if reserved is not None else {}
        crowd = self._crowd
        if spared:
            crowd = collections.Counter(crowd)
            crowd[self._networks[str(reserved)]] -= len(spared)
        most = max(crowd.values())  # > 0: the reserved source holds per_source < capacity at most
        # the oldest of the network holding the most: a flood makes room out of itself
        return [next(k for k, s in self._sources.items() if k not in spared and crowd[self._networks[s]] == most)]

    def add(self, key: Hashable, source: str) -> None:
        """``key`` from ``source`` joins, the newest."""
        self._sources[key] = source
        self._by_source.setdefault(source, {})[key] = None
        network = self._networks.setdefault(source, network_of(source))
        self._crowd[network] += 1

    def remove(self, key: Hashable) -> str | None:
        """``key`` leaves; its source (``None`` if it was not here)."""
        source = self._sources.pop(key, None)
        if source is None:
            return None
        mine = self._by_source[source]
        del mine[key]
        network = self._networks[source]
        self._crowd[network] -= 1
        if not self._crowd[network]:
            del self._crowd[network]
        if not mine:
            del self._by_source[source], self._networks[source]
        return source

    def __len__(self) -> int:
        return len(self._sources)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._sources


@dataclass
class Admission:
    """The connections a host holds before they are let in, in stages, and whom to drop.

    A new connection *arrives* in the first-flight stage: a cheap slot (a socket and a few
    hundred bytes) until its hello and knock are read, at most :data:`MAX_ARRIVING` in all and
    :data:`MAX_PER_SOURCE` per source, a source beyond its share replacing its own oldest. Once
    its first flight is read (:meth:`flown`), a knock that proved the invite secret is *proven*:
    at most :data:`MAX_PROVEN` of those, :data:`MAX_PER_SOURCE` per source, a source beyond
    its share again replacing its own oldest (the friend's redial its stale attempts); any other
    handshake still going on (a LAN knock) is *pending*: at most :data:`MAX_PENDING` of those,
    :data:`MAX_PER_SOURCE` per source, a source beyond its share refused. In each stage a full one
    drops the oldest of the network holding the most, the reserved source left out (a stage holds
    more than one source's share, so a full one always holds someone else); the LAN joiner being
    asked about is never dropped (:meth:`keep`)."""

    max_pending: int = MAX_PENDING
    max_per_source: int = MAX_PER_SOURCE
    max_arriving: int = MAX_ARRIVING
    max_proven: int = MAX_PROVEN
    reserved: str | None = None
    """The source of the playing peer's last connection (its reserved slot)."""
    _arriving: _Stage = field(init=False)
    _proven: _Stage = field(init=False)
    _pending: _Stage = field(init=False)
    _kept: set[Hashable] = field(default_factory=set)
    """The LAN joiner being asked about (:meth:`keep`): never dropped to make room."""

    def __post_init__(self) -> None:
        self._arriving = _Stage(self.max_arriving, self.max_per_source, evict_own=True)
        self._proven = _Stage(self.max_proven, self.max_per_source, evict_own=True)
        self._pending = _Stage(self.max_pending, self.max_per_source, evict_own=False)

    def arrive(self, key: Hashable, source: str) -> list[Hashable]:
        """A new connection from ``source``, its first flight not read yet: the connections to
        drop to make room for it (first-flight ones only: nobody later is ever dropped for it)."""
        return self._enter(self._arriving, key, source) or []

    def flown(self, key: Hashable, proven: bool) -> list[Hashable] | None:
        """The connection's first flight was read and its knock taken (``proven``: under the invite
        secret): the handshakes of its stage to drop to make room for it, or ``None`` if it is
        itself refused (a LAN knock whose source has its share of pending ones already, or a
        connection dropped meanwhile)."""
        source = self._arriving.remove(key)
        if source is None:
            return None
        return self._enter(self._proven if proven else self._pending, key, source)

    def _enter(self, stage: _Stage, key: Hashable, source: str) -> list[Hashable] | None:
        drop = stage.room(source, self.reserved)
        if drop is not None:
            for k in drop:
                stage.remove(k)
            stage.add(key, source)
        return drop

    def keep(self, key: Hashable) -> None:
        """The pending connection is not to be dropped to make room (the LAN joiner being asked about)."""
        if self._pending.remove(key) is not None:
            self._kept.add(key)

    def leave(self, key: Hashable) -> None:
        """The connection's handshake ended (either way)."""
        for stage in (self._arriving, self._proven, self._pending):
            stage.remove(key)
        self._kept.discard(key)

    @property
    def arriving(self) -> int:
        """Connections whose first flight is not read yet."""
        return len(self._arriving)

    def __len__(self) -> int:
        return len(self._arriving) + len(self._proven) + len(self._pending) + len(self._kept)

    def __contains__(self, key: Hashable) -> bool:
        return any(key in stage for stage in (self._arriving, self._proven, self._pending, self._kept))


def busy(host: str) -> Abort:
    """The one answer every joiner but the playing one gets, whatever its name or key."""
    return Abort(reason="busy", detail=f"{host} is playing another match right now: try again later")


Refusal = tuple[Abort, P2PError]
"""What a refused joiner is sent, and the error the host's refusal report names."""


@dataclass
class Gate:
    """Whom the host still lets in once a joiner won its match: that joiner alone, told apart by
    its name as soon as its first flight is read (anyone else hears ``busy`` before any rules
    are shown), then by its identity key at its ``accept`` (anyone else hears a sealed ``busy``
    at once); and not even it once the match is over with no rematch begun (docs/protocol.md,
    "Checks, in order"). Shared by the handshakes of one listener, read at each of their steps.

    >>> gate = Gate("ann")
    >>> gate.knocked("eve") is None  # no match yet: anyone with the invite may win it
    True
    >>> gate.bind("bob", bytes(32))
    >>> gate.knocked("eve")[0].detail
    'ann is playing another match right now: try again later'
    >>> gate.knocked("bob") is None, gate.accepted("bob", bytes(32)) is None
    (True, True)
    >>> gate.accepted("bob", bytes(31) + b"x")[0].reason
    'busy'
    """

    host: str
    """The host's name, as its ``busy`` says it."""
    joiner: tuple[str, bytes] | None = None
    """The playing joiner's name and identity key, once one won the match."""
    lan: bool = False
    """Whether the playing joiner came by the LAN knock (then its returns may come by it too)."""
    over: bool = False
    """Whether the match has ended with no rematch begun: its joiner's return is refused too."""

    def bind(self, name: str, key: bytes, lan: bool = False) -> None:
        """The match is on with the joiner ``name`` of identity ``key`` (by the LAN knock if ``lan``)."""
        self.joiner, self.lan, self.over = (name, key), lan, False

    def knocked(self, name: str) -> Refusal | None:
        """The refusal of a first flight whose hello names ``name`` (its knock taken), or ``None``:
        a match is on with a joiner of another name."""
        if self.joiner is None or name == self.joiner[0]:
            return None
        return busy(self.host), self._playing()

    def _playing(self) -> PeerBusy:
        """Why the host refused someone: its own match, with its joiner (the host's words)."""
        assert self.joiner is not None
        return PeerBusy(Text(N_("you are playing a match with {name}"), name=self.joiner[0]))

    def accepted(self, name: str, key: bytes) -> Refusal | None:
        """The refusal of an ``accept`` of ``name`` with identity ``key``, or ``None``: a match is
        on with another joiner, or it is over (its own joiner is told so)."""
        if self.joiner is None:
            return None
        if (name, key) != self.joiner:
            return busy(self.host), self._playing()
        if self.over:
            detail = f"{self.host}'s match with you is over: ask for a new invite to play again"
            return Abort(reason="busy", detail=detail), PeerBusy(
                Text(N_("{name} came back after the match was over"), name=name)
            )
        return None


MAX_QUESTIONS_PER_SOURCE = 2
"""LAN joiners' questions to the host's person, at most, from one source."""
MAX_QUESTIONS = 8
"""LAN joiners' questions, at most, in one hosting: after that only invites get in."""
MAX_LAN_OFFERS_PER_SOURCE = 16
"""Offers to LAN knocks, at most, from one source while no match is on."""
MAX_LAN_OFFERS = 64
"""Offers to LAN knocks, at most, in one hosting while no match is on: each offer tells its joiner
the code of its session, so this bounds the codes a relay can try to match another session's
with (docs/protocol-rationale.md, "Why the LAN knock is safe")."""


@dataclass
class Approvals:
    """Whether a LAN knock may put its question ("bob wants to join — accept?") to the host's
    person: a flood of LAN strangers costs the person a bounded number of answers."""

    max_per_source: int = MAX_QUESTIONS_PER_SOURCE
    max_questions: int = MAX_QUESTIONS
    max_offers_per_source: int = MAX_LAN_OFFERS_PER_SOURCE
    max_offers: int = MAX_LAN_OFFERS
    asking: str | None = None
    """The source whose question is open (one at a time)."""
    _asked: collections.Counter[str] = field(default_factory=collections.Counter)
    _offers: collections.Counter[str] = field(default_factory=collections.Counter)
    _declined: set[str] = field(default_factory=set)

    def welcome(self, source: str) -> bool:
        """Whether a LAN knock from ``source`` is taken at all (else it gets the stranger's refusal)."""
        return self._may_ask(source) and self.may_offer(source)

    def _may_ask(self, source: str) -> bool:
        return (
            source not in self._declined
            and self._asked[source] < self.max_per_source
            and sum(self._asked.values()) < self.max_questions
        )

    def may_offer(self, source: str) -> bool:
        """Whether an offer may still go to a LAN knock from ``source``. The offer tells the joiner
        its session's code before the person is asked anything, so offers are bounded too."""
        return self._offers[source] < self.max_offers_per_source and sum(self._offers.values()) < self.max_offers

    def offered(self, source: str) -> None:
        """An offer goes to a LAN knock from ``source`` (:meth:`may_offer` said it may)."""
        self._offers[source] += 1

    def open(self, source: str) -> bool:
        """Open the question for ``source``; ``False`` if another is open or it is not welcome."""
        if self.asking is not None or not self._may_ask(source):  # its offer is counted already
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
