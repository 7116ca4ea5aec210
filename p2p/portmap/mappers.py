"""The three ways to ask a home router for a port, behind one small interface (:class:`Mapper`).

Each ``map`` asks for TCP ``internal_port`` of this machine to be reachable from
outside (wishing for the same number outside) and returns the :class:`Lease`
granted; calling it again with the lease's external port renews it; ``unmap``
deletes it. Failures are :class:`~p2p.portmap.errors.PortMapError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import itertools
import json
import os
import random
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
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
    epoch: int | None = None
    """The router's seconds since its start (NAT-PMP, PCP): one that went back means it forgot
    every mapping meanwhile (RFC 6886 §3.6)."""
    held: bool | None = None
    """Whether the router still held this mapping when asked again (UPnP tells: ``False`` after a
    router restart); ``None`` where it cannot tell."""


class Mapper(Protocol):
    """One way of asking the router (:attr:`method` names it: PCP, NAT-PMP, UPnP)."""

    method: str

    async def map(self, internal_port: int, external_port: int, lifetime: int) -> Lease:
        """Open (or renew) the mapping."""
        ...

    async def unmap(self, lease: Lease) -> None:
        """Delete the mapping."""
        ...

    async def holds(self, lease: Lease) -> bool | None:
        """Whether the router still holds ``lease``, asked without renewing it (``None``: this
        protocol cannot tell but by renewing)."""
        ...

    async def close(self) -> None:
        """Let go of what asking needed (UPnP's worker process); the mappings stay."""
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
            self.method, answer.external_address, answer.external_port, internal_port, answer.lifetime,
            answer.epoch,
        )  # fmt: skip

    async def unmap(self, lease: Lease) -> None:
        await self._ask(lease.internal_port, lease.external_port, 0)

    async def holds(self, lease: Lease) -> bool | None:
        """PCP tells only by renewing (its epoch then shows a restart)."""
        return None

    async def close(self) -> None:
        """A PCP client holds nothing between requests."""


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
            self.method, address.external_address, answer.external_port, internal_port, answer.lifetime,
            answer.epoch,
        )  # fmt: skip

    async def unmap(self, lease: Lease) -> None:
        await exchange(
            self.router, natpmp.PORT, lambda _: natpmp.delete_request(lease.internal_port),
            lambda data: natpmp.parse_map_answer(data, lease.internal_port), natpmp.RETRY_DELAYS, self.budget,
        )  # fmt: skip

    async def holds(self, lease: Lease) -> bool | None:
        """NAT-PMP tells only by renewing (its epoch then shows a restart)."""
        return None

    async def close(self) -> None:
        """A NAT-PMP client holds nothing between requests."""


class Worker(Protocol):
    """The UPnP worker process, as :class:`UpnpMapper` talks to it (a fake one in the tests)."""

    async def call(self, request: dict[str, Any], timeout: float) -> Any:
        """The answer's value to ``request``; :class:`WorkerError` with its text on an error,
        :class:`~p2p.portmap.errors.NoAnswer` when none came within ``timeout`` seconds."""
        ...

    async def close(self) -> None:
        """End the worker (bounded)."""
        ...


class WorkerError(Exception):
    """The worker's error answer: miniupnpc's exception text ("ConflictInMappingEntry"…)."""


class _WorkerProcess:
    """:mod:`p2p.portmap.upnp_worker` in a child process: requests and answers as JSON lines, its
    stderr (miniupnpc's C code writes there) going nowhere."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self._ids = itertools.count(1)
        self._lock = asyncio.Lock()

    @classmethod
    async def start(cls) -> _WorkerProcess:
        script = Path(__file__).with_name("upnp_worker.py")
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable, str(script), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            raise NoAnswer(
                Text(N_("cannot start the UPnP client: {error}"), error=exc.strerror or exc)
            ) from None
        return cls(process)

    async def call(self, request: dict[str, Any], timeout: float) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        async with self._lock:  # one request at a time; a late answer to an earlier one is skipped
            number = next(self._ids)
            try:
                async with asyncio.timeout(timeout):
                    self.process.stdin.write((json.dumps({**request, "id": number}) + "\n").encode())
                    await self.process.stdin.drain()
                    while True:
                        line = await self.process.stdout.readline()
                        if not line:
                            raise NoAnswer(Text(N_("the UPnP client stopped")))
                        with contextlib.suppress(ValueError):
                            reply = json.loads(line)
                            if isinstance(reply, dict) and reply.get("id") == number:
                                break
            except TimeoutError:
                raise NoAnswer(Text(N_("no UPnP router answered"))) from None
            except (OSError, RuntimeError):  # the worker is gone
                raise NoAnswer(Text(N_("the UPnP client stopped"))) from None
        if "error" in reply:
            raise WorkerError(str(reply["error"]))
        return reply.get("ok")

    async def close(self) -> None:
        if self.process.returncode is None and self.process.stdin is not None:
            self.process.stdin.close()
        try:
            await asyncio.wait_for(self.process.wait(), 1.0)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
            await self.process.wait()


FALLBACK_PORTS = 5
"""External ports tried after the one wished for when another machine holds it (UPnP)."""


def fallback_ports(wished: int) -> list[int]:
    """The external ports asked for, in order, when the router says another machine has ``wished``.

    >>> fallback_ports(47111)
    [47111, 47112, 47113, 47114, 47115, 47116]
    >>> fallback_ports(65534)
    [65534, 65535]
    """
    return [port for port in range(wished, wished + FALLBACK_PORTS + 1) if port <= 65535]


class UpnpMapper:
    """UPnP-IGD through ``miniupnpc`` (the reference client), run in a worker process of its own.

    The worker starts, and discovery with it, at construction, so that it runs while the
    faster protocols are tried; it is awaited at most ``budget`` seconds from then (miniupnpc's
    SSDP search waits at least a second for each of up to four device types). Where another
    machine holds the external port wished for, the next ones are asked for
    (:func:`fallback_ports`). A renewal first asks the router whether it still holds the
    mapping (:attr:`Lease.held`); after a failed request the router is looked for again.
    ``start``: how to start the worker (a fake one in the tests).
    """

    method = "UPnP"

    def __init__(self, budget: float, start: Callable[[], Awaitable[Worker]] = _WorkerProcess.start) -> None:
        self.budget = budget
        self._worker = asyncio.ensure_future(start())
        self._found = asyncio.ensure_future(self._discover())
        self._lan: str | None = None
        self._stale = False

    async def _discover(self) -> tuple[str, IPAddress]:
        worker = await self._worker
        try:
            found = await worker.call({"op": "discover"}, self.budget)
            return str(found["lan"]), ipaddress.ip_address(found["external"])
        except (WorkerError, KeyError, TypeError, ValueError):
            raise NoAnswer(Text(N_("no UPnP router answered"))) from None

    async def _router(self) -> tuple[Worker, str, IPAddress]:
        """The worker, our LAN address and the router's public one (looked for again after a failure)."""
        if self._stale:
            self._stale = False
            self._found = asyncio.ensure_future(self._discover())
        try:
            async with asyncio.timeout(self.budget):
                lan, external = await asyncio.shield(self._found)
            return await self._worker, lan, external
        except TimeoutError:
            self._stale = True
            raise NoAnswer(Text(N_("no UPnP router answered"))) from None
        except PortMapError:
            self._stale = True
            raise

    async def map(self, internal_port: int, external_port: int, lifetime: int) -> Lease:
        worker, lan, external = await self._router()
        try:
            held = await self._held(worker, external_port, lan, internal_port)
            for port in fallback_ports(external_port) if held is None else [external_port]:
                try:
                    granted = await worker.call(
                        {"op": "map", "external": port, "internal": internal_port, "lease": lifetime},
                        self.budget,
                    )
                except WorkerError as exc:
                    if "ConflictInMappingEntry" in str(exc) or "718" in str(exc):
                        continue
                    raise
                return Lease(self.method, external, port, internal_port, int(granted), held=held)
        except (WorkerError, NoAnswer) as exc:
            self._stale = True
            raise refused(self.method, str(exc), 0) from None
        taken = Text(N_("other machines on your network hold ports {first} to {last}"),
                     first=external_port, last=fallback_ports(external_port)[-1])  # fmt: skip
        raise refused(self.method, taken, 718)

    async def _held(self, worker: Worker, external_port: int, lan: str, internal_port: int) -> bool | None:
        """Whether the router holds our mapping of ``external_port`` now (``False``: no mapping of
        it; ``None``: none of ours). Another machine's is :class:`~p2p.portmap.errors.MappingTaken`."""
        entry = await worker.call({"op": "entry", "external": external_port}, self.budget)
        if entry is None:
            return False
        if [str(entry[0]), int(entry[1])] == [lan, internal_port]:
            return True
        return None

    async def holds(self, lease: Lease) -> bool | None:
        """Asks the router for its mapping of the lease's external port: still ours?"""
        worker, lan, _ = await self._router()
        try:
            return bool(await self._held(worker, lease.external_port, lan, lease.internal_port))
        except (WorkerError, NoAnswer) as exc:
            self._stale = True
            raise refused(self.method, str(exc), 0) from None

    async def unmap(self, lease: Lease) -> None:
        worker, _, _ = await self._router()
        try:
            await worker.call({"op": "unmap", "external": lease.external_port}, self.budget)
        except WorkerError as exc:
            raise refused(self.method, str(exc), 0) from None

    async def close(self) -> None:
        """End the worker (its discovery too, if still running)."""
        self._found.cancel()
        with contextlib.suppress(BaseException):
            await self._found  # retrieved: a discovery that failed after we gave up on it is no news
        if not self._worker.cancelled():
            with contextlib.suppress(BaseException):
                await (await self._worker).close()
            return
        self._worker.cancel()
