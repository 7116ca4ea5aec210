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
import threading
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

    Discovery starts at construction, so that it runs while the faster protocols are tried,
    and is awaited at most ``budget`` seconds from then: miniupnpc's SSDP search waits at
    least a second for each of up to four device types, four seconds where nothing answers.
    It runs in a daemon thread, which a host that is done with it does not wait for.
    """

    method = "UPnP"
    _DESCRIPTION = "Your trumps"

    def __init__(self, budget: float) -> None:
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + budget
        self._found: asyncio.Future[Any] = loop.create_future()

        def discover() -> None:
            try:
                client = self._discover()
            except PortMapError as exc:
                loop.call_soon_threadsafe(self._settle, None, exc)
            else:
                loop.call_soon_threadsafe(self._settle, client, None)

        threading.Thread(target=discover, name="upnp-discovery", daemon=True).start()

    def _settle(self, client: Any, error: PortMapError | None) -> None:
        if self._found.done():  # given up on already
            return
        if error is None:
            self._found.set_result(client)
        else:
            self._found.set_exception(error)

    @staticmethod
    def _discover() -> Any:
        import miniupnpc  # type: ignore[import-not-found,unused-ignore]  # a C extension without types

        client = miniupnpc.UPnP()
        try:
            if not client.discover():
                raise NoAnswer(Text(N_("no UPnP router answered")))
            client.selectigd()
        except PortMapError:
            raise
        except Exception:  # miniupnpc raises a plain Exception, its text often just "Success"
            raise NoAnswer(Text(N_("no UPnP router answered"))) from None
        return client

    async def _client(self) -> Any:
        wait = max(0.0, self._deadline - asyncio.get_running_loop().time())
        try:
            return await asyncio.wait_for(asyncio.shield(self._found), wait)
        except TimeoutError:
            raise NoAnswer(Text(N_("no UPnP router answered"))) from None

    async def map(self, internal_port: int, external_port: int, lifetime: int) -> Lease:
        client = await self._client()

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
        client = await self._client()
        try:
            await asyncio.to_thread(client.deleteportmapping, lease.external_port, "TCP")
        except Exception as exc:
            raise refused(self.method, str(exc), 0) from None
