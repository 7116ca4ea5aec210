"""The three ways to ask a home router for a port, behind one small interface (:class:`Mapper`).

Each ``map`` asks for TCP ``internal_port`` of this machine to be reachable from
outside (wishing for the same number outside) and returns the :class:`Lease`
granted; calling it again with the lease's external port renews it; ``unmap``
deletes it. Failures are :class:`~p2p.portmap.errors.PortMapError`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
import random
from dataclasses import dataclass
from typing import Any, Protocol

from p2p.portmap import natpmp, pcp
from p2p.portmap.errors import NoAnswer, PortMapError, refused
from p2p.portmap.udp import IPAddress, exchange
from p2p.text import N_, Text


@dataclass(frozen=True)
class Lease:
    """A port the router opened: ``external_address``:``external_port`` leads to our ``internal_port``.

    ``lifetime``: seconds granted (0: until deleted, for routers that only grant that);
    for an IPv6 pinhole the external address is our own.
    """

    method: str
    external_address: IPAddress
    external_port: int
    internal_port: int
    lifetime: int


class Mapper(Protocol):
    """One way of asking the router (:attr:`method` names it: PCP, NAT-PMP, UPnP)."""

    method: str

    async def map(self, internal_port: int, external_port: int, lifetime: int) -> Lease:
        """Open (or renew) the mapping."""
        ...

    async def unmap(self, lease: Lease) -> None:
        """Delete the mapping."""
        ...


class PcpMapper:
    """PCP (RFC 6887) MAP requests to ``router``: an IPv4 NAT mapping, or an IPv6 firewall pinhole."""

    method = "PCP"

    def __init__(self, router: IPAddress, budget: float) -> None:
        self.router, self.budget = router, budget
        self.nonce = os.urandom(12)  # names the mapping for renewal and deletion; not a secret

    async def _ask(self, internal_port: int, external_port: int, lifetime: int) -> pcp.MapAnswer:
        return await exchange(
            self.router,
            natpmp.PORT,
            lambda ours: pcp.map_request(self.nonce, ours, internal_port, external_port, lifetime),
            lambda data: pcp.parse_map_answer(data, self.nonce, internal_port),
            pcp.retry_delays(random.uniform(-0.1, 0.1)),  # jitter so that many clients do not retry in step
            self.budget,
        )

    async def map(self, internal_port: int, external_port: int, lifetime: int) -> Lease:
        answer = await self._ask(internal_port, external_port, lifetime)
        return Lease(
            self.method, answer.external_address, answer.external_port, internal_port, answer.lifetime
        )

    async def unmap(self, lease: Lease) -> None:
        await self._ask(lease.internal_port, lease.external_port, 0)


class NatPmpMapper:
    """NAT-PMP (RFC 6886) requests to ``router`` (IPv4 only)."""

    method = "NAT-PMP"

    def __init__(self, router: ipaddress.IPv4Address, budget: float) -> None:
        self.router, self.budget = router, budget

    async def map(self, internal_port: int, external_port: int, lifetime: int) -> Lease:
        address = await exchange(
            self.router, natpmp.PORT, lambda _: natpmp.external_address_request(),
            natpmp.parse_address_answer, natpmp.RETRY_DELAYS, self.budget,
        )  # fmt: skip
        answer = await exchange(
            self.router, natpmp.PORT, lambda _: natpmp.map_request(internal_port, external_port, lifetime),
            lambda data: natpmp.parse_map_answer(data, internal_port), natpmp.RETRY_DELAYS, self.budget,
        )  # fmt: skip
        return Lease(
            self.method, address.external_address, answer.external_port, internal_port, answer.lifetime
        )

    async def unmap(self, lease: Lease) -> None:
        await exchange(
            self.router, natpmp.PORT, lambda _: natpmp.delete_request(lease.internal_port),
            lambda data: natpmp.parse_map_answer(data, lease.internal_port), natpmp.RETRY_DELAYS, self.budget,
        )  # fmt: skip


class UpnpMapper:
    """UPnP-IGD through ``miniupnpc`` (the reference client), its blocking calls run in threads.

    Discovery (an SSDP search lasting ``discover_ms``) starts at construction, so that it
    runs while the faster protocols are tried.
    """

    method = "UPnP"
    _DESCRIPTION = "Your trumps"

    def __init__(self, discover_ms: int) -> None:
        self._found = asyncio.ensure_future(asyncio.to_thread(self._discover, discover_ms))
        self._found.add_done_callback(lambda done: done.cancelled() or done.exception())  # seen, if unused

    @staticmethod
    def _discover(discover_ms: int) -> Any:
        import miniupnpc  # type: ignore[import-not-found,unused-ignore]  # a C extension without types

        client = miniupnpc.UPnP()
        client.discoverdelay = discover_ms
        try:
            found = client.discover()
            if not found:
                raise NoAnswer(Text(N_("no UPnP router answered")))
            client.selectigd()
        except PortMapError:
            raise
        except Exception:  # miniupnpc raises a plain Exception, its text often just "Success"
            raise NoAnswer(Text(N_("no UPnP router answered"))) from None
        return client

    async def map(self, internal_port: int, external_port: int, lifetime: int) -> Lease:
        client = await self._found

        def add(lease: int) -> None:
            client.addportmapping(
                external_port, "TCP", client.lanaddr, internal_port, self._DESCRIPTION, "", lease
            )

        try:
            try:
                await asyncio.to_thread(add, lifetime)
            except Exception as exc:
                if "OnlyPermanentLeasesSupported" not in str(exc):
                    raise
                lifetime = 0  # an IGDv1 router that grants only mappings until deleted (or rebooted)
                await asyncio.to_thread(add, 0)
            external = ipaddress.ip_address(await asyncio.to_thread(client.externalipaddress))
        except Exception as exc:
            raise refused(self.method, str(exc), 0) from None
        return Lease(self.method, external, external_port, internal_port, lifetime)

    async def unmap(self, lease: Lease) -> None:
        client = await self._found
        try:
            await asyncio.to_thread(client.deleteportmapping, lease.external_port, "TCP")
        except Exception as exc:
            raise refused(self.method, str(exc), 0) from None

    def close(self) -> None:
        """Stop waiting for the discovery (its thread ends by itself within ``discover_ms``)."""
        self._found.cancel()
