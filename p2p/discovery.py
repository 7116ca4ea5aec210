"""Finding a host on the local network: DNS-SD over multicast DNS (``python-zeroconf``), ``_trumps._tcp``.

A host announces its player name, its key fingerprint, its port, its addresses and
the terms (games and rules), and nothing secret: the record is what an invite says
but its secret, so a joiner who picks it is still pinned to the host's key by the
fingerprint, and knocks with :data:`~p2p.handshake.LAN_SECRET` (the host's person
then decides, and both compare the verification code). Every
announcement heard is hostile input: a record whose fields do not pass
:func:`read_properties` is left out of the list, never shown.

>>> properties = announced_properties("ann", "7j33u3l6rypiweqlbeiso7l7oiwizoth", Terms(Rules(), 3))
>>> properties[b"rules"], properties[b"games"]
(b'pickup=forced sixes=on max_moves=1000', b'3')
>>> name, fingerprint, terms = read_properties(properties)
>>> name, terms.games, terms.rules == Rules()
('ann', 3, True)
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice, zip_longest
from typing import Any

from zeroconf import Error as ZeroconfError
from zeroconf import InterfaceChoice, IPVersion, ServiceStateChange
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from engine import Rules
from p2p.errors import P2PError
from p2p.handshake import LAN_SECRET, Terms
from p2p.invite import MAX_ADDRESSES, Invite
from p2p.text import N_, Text

SERVICE = "_trumps._tcp.local."
_FINGERPRINT = re.compile("[a-z2-7]{32}")
_GAMES = re.compile("[0-9]{1,2}")


class DiscoveryError(P2PError):
    """An announcement on the network that is not a valid host record."""


@dataclass(frozen=True)
class FoundHost:
    """A host heard on the local network: whom, with which terms, where."""

    name: str
    fingerprint: str
    terms: Terms
    addresses: tuple[str, ...]
    port: int

    def invite(self) -> Invite:
        """The invite this record stands for: every address, the fingerprint, no secret (a LAN knock)."""
        return Invite(tuple((address, self.port) for address in self.addresses), self.fingerprint, LAN_SECRET)


def announced_properties(name: str, fingerprint: str, terms: Terms) -> dict[bytes, bytes]:
    """The TXT record of a host (DNS-SD key=value pairs)."""
    return {
        b"name": name.encode(),
        b"fp": fingerprint.encode(),
        b"games": str(terms.games).encode(),
        b"rules": terms.rules.notation().encode(),
    }


def read_properties(properties: Mapping[bytes, bytes | None]) -> tuple[str, str, Terms]:
    """The name, fingerprint and terms in a TXT record heard on the network, checked."""
    unreadable = DiscoveryError(Text(N_("an announcement with unreadable fields")))
    texts = []
    for key in (b"name", b"fp", b"games", b"rules"):
        value = properties.get(key)
        try:
            texts.append(value.decode() if value is not None else None)
        except UnicodeDecodeError:
            raise unreadable from None
    name, fingerprint, games, rules_text = texts
    if name is None or fingerprint is None or games is None or rules_text is None:
        raise unreadable
    try:
        rules = Rules.parse(rules_text)
    except ValueError:
        raise unreadable from None
    if not (0 < len(name) <= 32 and name.isprintable() and name.strip() == name):
        raise DiscoveryError(Text(N_("an announcement with a bad player name")))
    if not _FINGERPRINT.fullmatch(fingerprint) or not _GAMES.fullmatch(games) or not 1 <= int(games) <= 99:
        raise DiscoveryError(Text(N_("an announcement with a bad fingerprint or game count")))
    return name, fingerprint, Terms(rules, int(games))


@contextlib.contextmanager
def _network_errors(template: str) -> Iterator[None]:
    """Socket and zeroconf failures (no multicast here, a port taken, no interface up: zeroconf
    raises a ``RuntimeError`` for that) as a :class:`DiscoveryError`."""
    try:
        yield
    except (OSError, ZeroconfError, RuntimeError) as exc:
        raise DiscoveryError(Text(template, error=exc)) from None


def _instance(fingerprint: str) -> str:
    """The DNS-SD instance name: unique per host key, short, ASCII (the player name is in the TXT)."""
    return f"trumps-{fingerprint[:16]}.{SERVICE}"


class Announcement:
    """An async context manager announcing a host on ``addresses`` (this machine's own) while it runs."""

    def __init__(
        self, name: str, fingerprint: str, terms: Terms, addresses: Iterable[str], port: int
    ) -> None:
        self.name, self.fingerprint, self.terms, self.port = name, fingerprint, terms, port
        self.addresses = [ipaddress.ip_address(a.split("%")[0]) for a in addresses]
        self._zeroconf: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None

    async def __aenter__(self) -> Announcement:
        ipv4 = [str(a) for a in self.addresses if a.version == 4]
        info = AsyncServiceInfo(
            SERVICE,
            _instance(self.fingerprint),
            addresses=[a.packed for a in self.addresses],
            port=self.port,
            properties=announced_properties(self.name, self.fingerprint, self.terms),
            server=f"trumps-{self.fingerprint[:16]}.local.",
        )
        template = N_("cannot announce this game on the local network ({error})")
        with _network_errors(template):
            zeroconf = AsyncZeroconf(interfaces=ipv4 or InterfaceChoice.All)
        try:
            with _network_errors(template):
                await zeroconf.async_register_service(info)
        except BaseException:
            await zeroconf.async_close()
            raise
        self._zeroconf, self._info = zeroconf, info
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._zeroconf is not None and self._info is not None
        try:
            await self._zeroconf.async_unregister_service(self._info)
        finally:
            await self._zeroconf.async_close()


MAX_HEARD = 1024
"""Names of announcements kept, at most (a known host's own is kept beyond them): a flood of
them costs a few kilobytes, and hides no host this machine has played."""
MAX_ASKED = 32
"""Announcements whose details are not in the cache already are asked for, at most this many."""
MAX_LISTED = 20
"""Hosts listed at most, known ones first; how many more were heard is said."""


@dataclass(frozen=True)
class Browsed:
    """What :func:`browse` heard: the hosts to list, the names announced under another key than
    the known player of that name (left out), and how many more hosts were heard than listed."""

    found: list[FoundHost]
    impostors: list[str]
    more: int = 0


@dataclass(frozen=True)
class Heard:
    """One announcement's details, as zeroconf gives them (unchecked)."""

    instance: str
    properties: Mapping[bytes, bytes | None]
    addresses: tuple[str, ...]
    port: int


def hosts_of(heard: Iterable[Heard], known: Mapping[str, str] | None = None) -> Browsed:
    """The hosts announced in ``heard`` (in order heard), checked as hostile input. ``known``: the
    players this machine has met, name to fingerprint. One host per key: records naming the same
    fingerprint are merged (an announcement copying a real host's fingerprint at another address
    cannot hide the real one: both are dialed, and only the real host answers under its key), the
    record under that key's own instance name first, each record's addresses interleaved, an
    invite's worth at most. A record calling itself a known player's name under another key is
    left out (the handshake would refuse it) and its name returned. Known hosts come first.

    >>> ann = announced_properties("ann", "a" * 32, Terms(Rules(), 1))
    >>> browsed = hosts_of([Heard("x", ann, ("10.0.0.66",), 47111), Heard("trumps-aaaaaaaaaaaaaaaa", ann, ("10.0.0.5",), 47111)])
    >>> browsed.found[0].addresses
    ('10.0.0.5', '10.0.0.66')
    """
    known = known or {}
    grouped: dict[str, list[tuple[str, Terms, Heard]]] = {}
    impostors: list[str] = []
    for record in heard:
        try:
            name, fingerprint, terms = read_properties(record.properties)
        except DiscoveryError:
            continue
        if name in known and known[name] != fingerprint:
            impostors.append(name)
            continue
        if record.addresses and 0 < record.port < 65536:
            grouped.setdefault(fingerprint, []).append((name, terms, record))
    hosts = []
    for fingerprint, records in grouped.items():
        own = _instance(fingerprint).removesuffix(f".{SERVICE}")
        records.sort(key=lambda item: item[2].instance.removesuffix(f".{SERVICE}") != own)
        name, terms, first = records[0]
        name = next((player for player, fp in known.items() if fp == fingerprint), name)
        mixed = (a for round_ in zip_longest(*(r.addresses for _, _, r in records)) for a in round_ if a)
        addresses = tuple(islice(dict.fromkeys(mixed), MAX_ADDRESSES))
        hosts.append(FoundHost(name, fingerprint, terms, addresses, first.port))
    hosts.sort(key=lambda host: host.fingerprint not in known.values())
    return Browsed(hosts[:MAX_LISTED], list(dict.fromkeys(impostors)), max(0, len(hosts) - MAX_LISTED))


async def browse(seconds: float, known: Mapping[str, str] | None = None) -> Browsed:
    """The games announced on the local network within ``seconds`` (see :func:`hosts_of`; ``known``:
    the players met before, name to fingerprint). Details already in the cache (an announcement
    carries them) are taken from it; the others are asked for all at once, within a second."""
    known = known or {}
    own = {_instance(fingerprint) for fingerprint in known.values()}
    names: dict[str, None] = {}

    def heard(zeroconf: Any, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change is not ServiceStateChange.Removed and (len(names) < MAX_HEARD or name in own):
            names[name] = None

    with _network_errors(N_("cannot look for hosts on the local network ({error})")):
        zeroconf = AsyncZeroconf(interfaces=InterfaceChoice.All)
    browser = AsyncServiceBrowser(zeroconf.zeroconf, SERVICE, handlers=[heard])
    try:
        await asyncio.sleep(seconds)
        order = sorted(names, key=lambda name: name not in own)  # known hosts' own first
        infos = [AsyncServiceInfo(SERVICE, name) for name in order]
        missing = [info for info in infos if not info.load_from_cache(zeroconf.zeroconf)][:MAX_ASKED]
        await asyncio.gather(*(info.async_request(zeroconf.zeroconf, 1000) for info in missing))
        return hosts_of(
            (
                Heard(
                    str(info.name),
                    info.properties,
                    tuple(str(a) for a in info.ip_addresses_by_version(IPVersion.All) if not a.is_link_local),
                    int(info.port or 0),
                )
                for info in infos
                if info.properties and info.port
            ),
            known,
        )
    finally:
        await browser.async_cancel()
        await zeroconf.async_close()
