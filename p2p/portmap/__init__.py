"""Asking the home router to open the host's port: PCP, NAT-PMP and UPnP-IGD, and the IPv6 pinhole.

::

    async with PortMapping(47111) as mapping:
        mapping.result.mapped      # the IPv4 Lease (external address and port), or None
        mapping.result.pinhole     # the IPv6 firewall pinhole, or None
        mapping.result.failures    # (method, PortMapError) for each way that did not work
        ...                        # renewed and checked meanwhile (p2p.portmap.keeper)
        mapping.joiner_lost()      # ask the router again at once

On exit the mappings are deleted (bounded: a silent router does not hold the host up);
after a crash they lapse by themselves at the end of their lifetime, which is why it is
short (:data:`LIFETIME`). The order: PCP to the default gateway first (the newest, one
round trip); NAT-PMP only when the router says it speaks no PCP; UPnP last, its
discovery started at once so that it overlaps the others. For IPv6, one PCP request
for a pinhole to the IPv6 gateway, at the same time. Nothing here prints: the result is
structured, the caller words it.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from p2p.portmap.errors import PortMapError, UnsupportedVersion
from p2p.portmap.keeper import CHECK_EVERY, LeaseKeeper
from p2p.portmap.mappers import Lease, Mapper, NatPmpMapper, PcpMapper, UpnpMapper
from p2p.text import Text

LIFETIME = 1200
"""Seconds asked for each lease: renewed at half-time while hosting, gone 20 minutes after a crash."""

BUDGET = 1.5
"""Seconds each protocol may take to answer before the host gives up on it (the invite waits)."""

UPNP_BUDGET = 2.5
"""Seconds UPnP's discovery may take: miniupnpc waits a second for each kind of device it
searches for (up to four); most routers answer the first or second."""
UNMAP_BUDGET = 1.0
PROBE_LIFETIME = 120
"""Seconds asked for by :func:`probe`, which deletes the mapping at once anyway."""

__all__ = ["Lease", "MapResult", "Mapper", "PortMapError", "PortMapping", "Reach", "default_mappers", "probe"]


class Reach(enum.Enum):
    """Who can join a game hosted behind this router (:attr:`MapResult.reach`)."""

    ANYWHERE = "anywhere"
    """The router opened the port, and its public address is on the internet."""
    SHARED = "shared"
    """The router opened it, but its "public" address is itself behind the provider's NAT
    (carrier-grade NAT, 100.64/10 or private): nobody outside gets through, port or not."""
    IPV6 = "ipv6"
    """No IPv4 port, but the router's firewall lets IPv6 connections in: friends with IPv6."""
    NEARBY = "nearby"
    """Nothing opened: friends on this network, or a port forwarded by hand."""


@dataclass(frozen=True)
class MapResult:
    """What the router did for us."""

    mapped: Lease | None = None
    """The IPv4 port mapping (``external_address`` is the router's public address), if any way worked."""
    pinhole: Lease | None = None
    """The IPv6 pinhole through the router's firewall, if one was asked for and opened."""
    failures: tuple[tuple[str, PortMapError], ...] = ()
    """Each way that was tried and did not work, with why."""

    @property
    def reach(self) -> Reach:
        """Who could join a game hosted here, as the router's answers show.

        >>> from ipaddress import ip_address
        >>> MapResult(Lease("UPnP", ip_address("100.64.7.1"), 47111, 47111, 1200)).reach
        <Reach.SHARED: 'shared'>
        """
        if self.mapped is not None:
            return Reach.ANYWHERE if self.mapped.external_address.is_global else Reach.SHARED
        return Reach.IPV6 if self.pinhole is not None else Reach.NEARBY

    def reachable(self, local: Sequence[str], port: int) -> list[tuple[str, int]]:
        """Where a joiner may connect, best first: the router's public address and port when
        mapped, then ``local`` (this machine's own addresses, see
        :func:`p2p.addresses.host_addresses`) on ``port`` (the invite's list in protocol 3)."""
        public = (
            [] if self.mapped is None else [(str(self.mapped.external_address), self.mapped.external_port)]
        )
        return list(dict.fromkeys([*public, *((address, port) for address in local)]))


@dataclass
class _Held:
    mapper: Mapper
    keeper: LeaseKeeper
    report: bool
    """Whether its news is said (the IPv4 mapping's; the IPv6 pinhole is kept quietly)."""
    wake: asyncio.Event = field(default_factory=asyncio.Event)


def default_mappers(bind: str | None, ipv4: bool, ipv6: bool) -> tuple[list[Mapper], list[Mapper]]:
    """The ways to try on this machine's network: for IPv4 (in order) and for IPv6 (the PCP pinhole).

    ``bind``: the host's listening address (``None``: all); ``ipv4``, ``ipv6``: the families it
    accepts. A loopback ``bind`` gets none: nobody outside could use the port.
    """
    from p2p.addresses import default_gateway, default_gateway6, is_loopback

    if is_loopback(bind):
        return [], []
    gateway, gateway6 = default_gateway(), default_gateway6()
    found4: list[Mapper] = [PcpMapper(gateway, BUDGET), NatPmpMapper(gateway, BUDGET)] if gateway else []
    found6: list[Mapper] = [PcpMapper(gateway6, BUDGET)] if gateway6 else []
    return ([*found4, UpnpMapper(UPNP_BUDGET)] if ipv4 else []), (found6 if ipv6 else [])


class PortMapping:
    """An async context manager holding the router's port mappings for ``internal_port`` while it runs.

    ``external_port``: the port wished for outside (default: ``internal_port``); ``report``:
    where news of the mapping goes while hosting (:mod:`p2p.portmap.keeper`: the router
    forgot it and opens it again, or does not); ``check_every``: seconds between looks at it.
    The mappers are closed on exit.
    """

    def __init__(
        self,
        internal_port: int,
        ipv4: Sequence[Mapper],
        ipv6: Sequence[Mapper] = (),
        lifetime: int = LIFETIME,
        external_port: int | None = None,
        report: Callable[[Text], None] | None = None,
        check_every: float = CHECK_EVERY,
    ) -> None:
        self.internal_port, self.lifetime, self.check_every = internal_port, lifetime, check_every
        self.external_port = internal_port if external_port is None else external_port
        self.report: Callable[[Text], None] = report or (lambda text: None)
        self._ipv4, self._ipv6 = list(ipv4), list(ipv6)
        self._held: list[_Held] = []
        self._keeping: list[asyncio.Task[None]] = []
        self.result = MapResult()

    async def __aenter__(self) -> PortMapping:
        failures: list[tuple[str, PortMapError]] = []
        try:
            mapped, pinhole = await asyncio.gather(
                self._first(self._ipv4, failures, True), self._first(self._ipv6, failures, False)
            )
        except BaseException:  # stopped while asking: give back what was already granted
            await self.__aexit__()
            raise
        self.result = MapResult(mapped, pinhole, tuple(failures))
        return self

    async def _first(
        self, mappers: Sequence[Mapper], failures: list[tuple[str, PortMapError]], report: bool
    ) -> Lease | None:
        """The lease of the first mapper that works; NAT-PMP only after PCP said it is not spoken."""
        pcp_unsupported = False
        for mapper in mappers:
            if isinstance(mapper, NatPmpMapper) and not pcp_unsupported:
                continue
            try:
                lease = await mapper.map(self.internal_port, self.external_port, self.lifetime)
            except PortMapError as exc:
                failures.append((mapper.method, exc))
                pcp_unsupported |= isinstance(mapper, PcpMapper) and isinstance(exc, UnsupportedVersion)
                continue
            keeper = LeaseKeeper(lease, asyncio.get_running_loop().time(), self.check_every)
            held = _Held(mapper, keeper, report)
            self._held.append(held)
            self._keeping.append(asyncio.create_task(self._keep(held)))
            return lease
        return None

    async def _keep(self, held: _Held) -> None:
        """Ask the router again whenever the keeper says (renewals, checks, a lost joiner)."""
        loop, keeper = asyncio.get_running_loop(), held.keeper
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(held.wake.wait(), max(0.0, keeper.next_at - loop.time()))
            held.wake.clear()
            if loop.time() < keeper.next_at:
                continue
            try:
                if not keeper.renewing(loop.time()) and await held.mapper.holds(keeper.lease):
                    keeper.held(loop.time())
                    continue
                lease = await held.mapper.map(self.internal_port, keeper.lease.external_port, self.lifetime)
            except PortMapError as exc:
                news = keeper.failed(loop.time(), exc)
            else:
                news = keeper.granted(loop.time(), lease)
            if news is not None and held.report:
                self.report(news)

    def joiner_lost(self) -> None:
        """The joiner's connection was lost: ask the router about every mapping at once (it may
        have restarted and forgotten them, and the joiner gets back in only through them)."""
        now = asyncio.get_running_loop().time()
        for held in self._held:
            held.keeper.lost(now)
            held.wake.set()

    @property
    def leases(self) -> list[Lease]:
        """The leases held now (renewals may have changed their lifetimes)."""
        return [held.keeper.lease for held in self._held]

    async def __aexit__(self, *exc: object) -> None:
        for task in self._keeping:
            task.cancel()
        await asyncio.gather(*self._keeping, return_exceptions=True)
        for held in self._held:
            with contextlib.suppress(PortMapError, TimeoutError):
                await asyncio.wait_for(held.mapper.unmap(held.keeper.lease), UNMAP_BUDGET)
        self._held.clear()
        await asyncio.gather(
            *(mapper.close() for mapper in {*self._ipv4, *self._ipv6}), return_exceptions=True
        )


async def probe(port: int, ipv4: Sequence[Mapper], ipv6: Sequence[Mapper] = ()) -> MapResult:
    """Whether the router opens ``port`` (what ``trumps host --check`` says): a mapping asked for
    and given back at once, short-lived in case the deletion is lost."""
    async with PortMapping(port, ipv4, ipv6, lifetime=PROBE_LIFETIME) as mapping:
        return mapping.result
