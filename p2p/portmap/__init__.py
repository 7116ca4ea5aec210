"""Asking the home router to open the host's port: PCP, NAT-PMP and UPnP-IGD, and the IPv6 pinhole.

::

    async with PortMapping(47111) as mapping:
        mapping.result.mapped      # the IPv4 Lease (external address and port), or None
        mapping.result.pinhole     # the IPv6 firewall pinhole, or None
        mapping.result.failures    # (method, PortMapError) for each way that did not work
        ...                        # leases are renewed at half their lifetime meanwhile

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
from collections.abc import Sequence
from dataclasses import dataclass

from p2p.portmap.errors import PortMapError, UnsupportedVersion
from p2p.portmap.mappers import Lease, Mapper, NatPmpMapper, PcpMapper, UpnpMapper

LIFETIME = 1200
"""Seconds asked for each lease: renewed at half-time while hosting, gone 20 minutes after a crash."""

BUDGET = 1.5
"""Seconds each protocol may take to answer before the host gives up on it (the invite waits)."""

UPNP_BUDGET = 2.5
"""Seconds UPnP's discovery may take: miniupnpc waits a second for each kind of device it
searches for (up to four); most routers answer the first or second."""
UNMAP_BUDGET = 1.0
RETRY_AFTER_FAILED_RENEWAL = 30.0

__all__ = ["Lease", "MapResult", "Mapper", "PortMapError", "PortMapping", "default_mappers"]


@dataclass(frozen=True)
class MapResult:
    """What the router did for us."""

    mapped: Lease | None = None
    """The IPv4 port mapping (``external_address`` is the router's public address), if any way worked."""
    pinhole: Lease | None = None
    """The IPv6 pinhole through the router's firewall, if one was asked for and opened."""
    failures: tuple[tuple[str, PortMapError], ...] = ()
    """Each way that was tried and did not work, with why."""

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
    lease: Lease


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
    """An async context manager holding the router's port mappings for ``internal_port`` while it runs."""

    def __init__(
        self,
        internal_port: int,
        ipv4: Sequence[Mapper],
        ipv6: Sequence[Mapper] = (),
        lifetime: int = LIFETIME,
    ) -> None:
        self.internal_port, self.lifetime = internal_port, lifetime
        self._ipv4, self._ipv6 = list(ipv4), list(ipv6)
        self._held: list[_Held] = []
        self._renewals: list[asyncio.Task[None]] = []
        self.result = MapResult()

    async def __aenter__(self) -> PortMapping:
        failures: list[tuple[str, PortMapError]] = []
        try:
            mapped, pinhole = await asyncio.gather(
                self._first(self._ipv4, failures), self._first(self._ipv6, failures)
            )
        except BaseException:  # stopped while asking: give back what was already granted
            await self.__aexit__()
            raise
        self.result = MapResult(mapped, pinhole, tuple(failures))
        return self

    async def _first(
        self, mappers: Sequence[Mapper], failures: list[tuple[str, PortMapError]]
    ) -> Lease | None:
        """The lease of the first mapper that works; NAT-PMP only after PCP said it is not spoken."""
        pcp_unsupported = False
        for mapper in mappers:
            if isinstance(mapper, NatPmpMapper) and not pcp_unsupported:
                continue
            try:
                lease = await mapper.map(self.internal_port, self.internal_port, self.lifetime)
            except PortMapError as exc:
                failures.append((mapper.method, exc))
                pcp_unsupported |= isinstance(mapper, PcpMapper) and isinstance(exc, UnsupportedVersion)
                continue
            held = _Held(mapper, lease)
            self._held.append(held)
            if lease.lifetime:
                self._renewals.append(asyncio.create_task(self._renew(held)))
            return lease
        return None

    async def _renew(self, held: _Held) -> None:
        """Ask again at half the lease's lifetime, for as long as we host (RFC 6886 §3.3's advice)."""
        wait = held.lease.lifetime / 2
        while True:
            await asyncio.sleep(wait)
            try:
                held.lease = await held.mapper.map(
                    self.internal_port, held.lease.external_port, self.lifetime
                )
                wait = held.lease.lifetime / 2
            except PortMapError:
                wait = min(RETRY_AFTER_FAILED_RENEWAL, max(held.lease.lifetime / 4, 1.0))

    @property
    def leases(self) -> list[Lease]:
        """The leases held now (renewals may have changed their lifetimes)."""
        return [held.lease for held in self._held]

    async def __aexit__(self, *exc: object) -> None:
        for task in self._renewals:
            task.cancel()
        for held in self._held:
            with contextlib.suppress(PortMapError, TimeoutError):
                await asyncio.wait_for(held.mapper.unmap(held.lease), UNMAP_BUDGET)
        self._held.clear()
