"""The one bit of I/O NAT-PMP and PCP need: send a request to the router, retransmit on the RFC's
schedule, and take the first datagram that parses as the answer (anything else is ignored)."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
from collections.abc import Callable, Sequence
from typing import TypeVar

from p2p.portmap.errors import MalformedReply, NoAnswer
from p2p.text import N_, Text

T = TypeVar("T")
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class _Inbox(asyncio.DatagramProtocol):
    def __init__(self) -> None:
        self.datagrams: asyncio.Queue[bytes | OSError] = asyncio.Queue(maxsize=64)

    def datagram_received(self, data: bytes, addr: object) -> None:
        with contextlib.suppress(asyncio.QueueFull):  # a flood is dropped, not stored
            self.datagrams.put_nowait(data)

    def error_received(self, exc: Exception) -> None:
        if isinstance(exc, OSError):
            with contextlib.suppress(asyncio.QueueFull):
                self.datagrams.put_nowait(exc)


async def exchange(
    router: IPAddress,
    port: int,
    request: Callable[[IPAddress], bytes],
    parse: Callable[[bytes], T],
    delays: Sequence[float],
    budget: float,
) -> T:
    """Send ``request(our address)`` to ``router``:``port``, again after each of ``delays`` seconds,
    until a datagram ``parse`` accepts arrives or ``budget`` seconds are over.

    Only datagrams from the router reach us (the socket is connected to it); those that
    ``parse`` rejects as :class:`MalformedReply` are ignored, its other errors (a refusal) raised.
    An ICMP "port unreachable" (nothing listens there) ends it at once.
    """
    loop = asyncio.get_running_loop()
    try:
        transport, inbox = await loop.create_datagram_endpoint(_Inbox, remote_addr=(str(router), port))
    except OSError as exc:
        raise NoAnswer(
            Text(N_("cannot reach the router at {router}: {error}"), router=router, error=exc.strerror or exc)
        ) from None
    try:
        ours = ipaddress.ip_address(transport.get_extra_info("sockname")[0])
        payload = request(ours)
        deadline = loop.time() + budget
        for delay in delays:
            transport.sendto(payload)
            wait_until = min(deadline, loop.time() + delay)
            while (left := wait_until - loop.time()) > 0:
                try:
                    datagram = await asyncio.wait_for(inbox.datagrams.get(), left)
                except TimeoutError:
                    break
                if isinstance(datagram, OSError):
                    raise NoAnswer(Text(N_("nothing answers on the router at {router} ({error})"),
                                        router=router, error=datagram.strerror or datagram))  # fmt: skip
                with contextlib.suppress(MalformedReply):
                    return parse(datagram)
            if loop.time() >= deadline:
                break
        raise NoAnswer(Text(N_("no answer from the router at {router}"), router=router))
    finally:
        transport.close()
