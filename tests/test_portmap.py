"""Port mapping without a router: the NAT-PMP and PCP packets (answers are hostile input), the UDP
exchange against a fake router on loopback, and the order, renewal and deletion of leases."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import ipaddress
import itertools
import struct
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p.portmap import MapResult, PortMapping, natpmp, pcp
from p2p.portmap.errors import MalformedReply, MappingRefused, NoAnswer, PortMapError, UnsupportedVersion
from p2p.portmap.keeper import CHECK_EVERY, LOST_RETRY_MAX, LeaseKeeper, epoch_went_back
from p2p.portmap.mappers import Lease, NatPmpMapper, PcpMapper, UpnpMapper, WorkerError
from p2p.portmap.udp import exchange
from p2p.text import Text

LAN = ipaddress.ip_address("10.1.0.10")
PUBLIC = ipaddress.IPv4Address("11.0.0.1")
NONCE = bytes(range(12))
LOOPBACK = ipaddress.IPv4Address("127.0.0.1")


# ------------------------------------------------------------------ NAT-PMP


def _natpmp_map_answer(
    internal: int, external: int, lifetime: int, result: int = 0, version: int = 0
) -> bytes:
    return struct.pack("!BBHIHHI", version, 130, result, 9, internal, external, lifetime)


def test_natpmp_requests_are_the_rfc_bytes() -> None:
    assert natpmp.external_address_request() == b"\x00\x00"
    assert natpmp.map_request(4711, 4712, 7200) == bytes.fromhex("0002 0000 1267 1268 00001c20")
    assert natpmp.delete_request(4711) == bytes.fromhex("0002 0000 1267 0000 00000000")


def test_natpmp_answers_are_read() -> None:
    address = natpmp.parse_address_answer(bytes.fromhex("0080 0000 00000005") + PUBLIC.packed)
    assert address == natpmp.AddressAnswer(5, PUBLIC)
    assert natpmp.parse_map_answer(_natpmp_map_answer(4711, 4800, 3600), 4711) == natpmp.MapAnswer(
        9, 4711, 4800, 3600
    )


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (_natpmp_map_answer(4711, 4711, 60)[:15], MalformedReply),  # short
        (_natpmp_map_answer(4711, 4711, 60) + b"\0", MalformedReply),  # long
        (_natpmp_map_answer(4712, 4712, 60), MalformedReply),  # another port's answer
        (_natpmp_map_answer(4711, 0, 60), MalformedReply),  # a lease of no port
        (b"\x00\x81" + _natpmp_map_answer(4711, 4711, 60)[2:], MalformedReply),  # a UDP mapping's answer
        (_natpmp_map_answer(4711, 4711, 60, result=2), MappingRefused),
        (_natpmp_map_answer(4711, 4711, 60, result=1), UnsupportedVersion),
        (_natpmp_map_answer(4711, 4711, 60, version=1), UnsupportedVersion),
    ],
)
def test_natpmp_answers_that_are_not_a_grant_are_refused_specifically(
    answer: bytes, error: type[Exception]
) -> None:
    with pytest.raises(error):
        natpmp.parse_map_answer(answer, 4711)


def test_a_natpmp_refusal_says_why() -> None:
    with pytest.raises(MappingRefused, match="NAT-PMP: not authorized") as caught:
        natpmp.parse_map_answer(_natpmp_map_answer(4711, 4711, 60, result=2), 4711)
    assert caught.value.code == 2


# ------------------------------------------------------------------ PCP


def _pcp_answer(
    request: bytes, external: str = "11.0.0.1", port: int = 4711, lifetime: int = 600, result: int = 0
) -> bytes:
    answer = bytearray(request)
    answer[1] |= 0x80
    answer[3] = result
    answer[4:8] = lifetime.to_bytes(4, "big")
    answer[8:24] = (77).to_bytes(4, "big") + bytes(12)
    answer[42:44] = port.to_bytes(2, "big")
    address = ipaddress.ip_address(external)
    answer[44:60] = (
        ipaddress.IPv6Address(b"\0" * 10 + b"\xff\xff" + address.packed) if address.version == 4 else address
    ).packed
    return bytes(answer)


def test_a_pcp_map_request_has_the_rfc_layout() -> None:
    request = pcp.map_request(NONCE, LAN, 4711, 4712, 1200)
    assert len(request) == 60
    version, opcode, _, lifetime = struct.unpack_from("!BBHI", request)
    assert (version, opcode, lifetime) == (2, 1, 1200)
    assert ipaddress.IPv6Address(request[8:24]).ipv4_mapped == LAN
    assert request[24:36] == NONCE and request[36] == 6  # TCP
    assert struct.unpack_from("!HH", request, 40) == (4711, 4712)
    assert ipaddress.IPv6Address(request[44:60]) == ipaddress.IPv6Address("::ffff:0.0.0.0")
    v6 = pcp.map_request(NONCE, ipaddress.ip_address("2001:db8::5"), 4711, 4711, 0)
    assert ipaddress.IPv6Address(v6[8:24]) == ipaddress.IPv6Address("2001:db8::5") and v6[44:60] == bytes(16)


def test_pcp_answers_are_read_for_ipv4_and_ipv6() -> None:
    request = pcp.map_request(NONCE, LAN, 4711, 4711, 600)
    assert pcp.parse_map_answer(_pcp_answer(request), NONCE, 4711) == pcp.MapAnswer(600, 77, 4711, PUBLIC)
    options = _pcp_answer(request) + bytes(8)  # options after the MAP body are allowed (and ignored)
    assert pcp.parse_map_answer(options, NONCE, 4711).external_address == PUBLIC
    pinhole = _pcp_answer(request, external="2001:db8:1::a")
    assert pcp.parse_map_answer(pinhole, NONCE, 4711).external_address == ipaddress.ip_address(
        "2001:db8:1::a"
    )


@pytest.mark.parametrize(
    ("damage", "error"),
    [
        (lambda a: a[:59], MalformedReply),
        (lambda a: a[:24] + a[25:], MalformedReply),
        (lambda a: a + bytes(1100), MalformedReply),
        (lambda a: a[:24] + bytes(12) + a[36:], MalformedReply),  # another nonce
        (lambda a: a[:1] + b"\x02" + a[2:], MalformedReply),  # answers another opcode
        (lambda a: a[:1] + b"\x01" + a[2:], MalformedReply),  # a request, not an answer
        (lambda a: a[:36] + b"\x11" + a[37:], MalformedReply),  # UDP, not TCP
        (lambda a: a[:40] + b"\x00\x01" + a[42:], MalformedReply),  # another internal port
        (lambda a: a[:3] + b"\x02" + a[4:], MappingRefused),
        (lambda a: a[:3] + b"\x01" + a[4:], UnsupportedVersion),
        (lambda a: b"\x01" + a[1:], UnsupportedVersion),
        (lambda a: b"\x00\x81\x00\x01" + bytes(12), UnsupportedVersion),  # a NAT-PMP router's reply
    ],
)
def test_pcp_answers_that_are_not_ours_or_not_a_grant_are_refused_specifically(
    damage: Callable[[bytes], bytes], error: type[PortMapError]
) -> None:
    answer = _pcp_answer(pcp.map_request(NONCE, LAN, 4711, 4711, 600))
    with pytest.raises(error):
        pcp.parse_map_answer(damage(answer), NONCE, 4711)


def test_the_pcp_retry_schedule_doubles_from_3_s_to_1024_s() -> None:
    delays = pcp.retry_delays()
    assert delays[0] == 3.0 and delays[-1] == 1024.0
    assert all(later == min(2 * earlier, 1024.0) for earlier, later in itertools.pairwise(delays))
    assert pcp.retry_delays(0.1)[0] == pytest.approx(3.3)
    assert natpmp.RETRY_DELAYS[0] == 0.25 and len(natpmp.RETRY_DELAYS) == 9 and natpmp.RETRY_DELAYS[-1] == 64


@given(st.binary(max_size=1200), st.integers(0, 65535))
def test_any_datagram_is_a_grant_or_a_specific_error_never_a_crash(data: bytes, port: int) -> None:
    for parse in (
        lambda: natpmp.parse_map_answer(data, port),
        lambda: natpmp.parse_address_answer(data),
        lambda: pcp.parse_map_answer(data, NONCE, port),
    ):
        with contextlib.suppress(PortMapError):
            parse()


@given(st.binary(min_size=60, max_size=60))
def test_a_pcp_answer_shaped_datagram_grants_only_what_we_asked_about(tail: bytes) -> None:
    data = b"\x02\x81" + tail[2:24] + NONCE + tail[36:]
    try:
        answer = pcp.parse_map_answer(data, NONCE, 4711)
    except PortMapError:
        return
    assert struct.unpack_from("!H", data, 40)[0] == 4711 and data[36] == 6
    assert answer.external_port > 0 or answer.lifetime == 0


# ------------------------------------------------------------------ the UDP exchange, on loopback

T = TypeVar("T")


Reply = Callable[[bytes, int], list[bytes]]
"""A fake router's answers to a request, given the request and how many came so far."""


class FakeRouter(asyncio.DatagramProtocol):
    """A router on 127.0.0.1 answering each request with what ``reply`` makes of it (nothing for None)."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.requests: list[bytes] = []

    # typeshed's DatagramProtocol declares this very signature with the same ignore (CPython's datagram
    # transport is no DatagramTransport subclass at run time, so isinstance cannot narrow instead).
    def connection_made(self, transport: asyncio.DatagramTransport) -> None:  # type: ignore[override]
        self.transport = transport

    def datagram_received(self, data: bytes, addr: tuple[Any, ...]) -> None:
        self.requests.append(data)
        for answer in self.reply(data, len(self.requests)):
            self.transport.sendto(answer, addr)


async def _router(reply: Reply) -> tuple[asyncio.DatagramTransport, FakeRouter, int]:
    transport, router = await asyncio.get_running_loop().create_datagram_endpoint(
        lambda: FakeRouter(reply), local_addr=("127.0.0.1", 0)
    )
    return transport, router, transport.get_extra_info("sockname")[1]


@pytest.mark.net
def test_the_exchange_ignores_garbage_and_strangers_answers_and_retransmits_when_unanswered() -> None:
    def reply(request: bytes, count: int) -> list[bytes]:
        if count == 1:
            return []  # lost: the client must send again
        answer = _pcp_answer(request)
        return [b"garbage", _pcp_answer(request.replace(NONCE, bytes(12))), answer]

    async def scenario() -> tuple[pcp.MapAnswer, int]:
        transport, router, port = await _router(reply)
        try:
            got = await exchange(
                LOOPBACK, port, lambda ours: pcp.map_request(NONCE, ours, 4711, 4711, 600),
                lambda data: pcp.parse_map_answer(data, NONCE, 4711), [0.05, 0.1, 0.2], 5.0,
            )  # fmt: skip
            return got, len(router.requests)
        finally:
            transport.close()

    answer, requests = asyncio.run(scenario())
    assert answer.external_address == PUBLIC and requests == 2


@pytest.mark.net
def test_the_request_carries_our_address_as_the_router_sees_it() -> None:
    async def scenario() -> list[bytes]:
        transport, router, port = await _router(lambda request, count: [_pcp_answer(request)])
        try:
            await exchange(LOOPBACK, port, lambda ours: pcp.map_request(NONCE, ours, 4711, 4711, 60),
                           lambda data: pcp.parse_map_answer(data, NONCE, 4711), [1.0], 5.0)  # fmt: skip
        finally:
            transport.close()
        return list(router.requests)

    seen = asyncio.run(scenario())
    assert ipaddress.IPv6Address(seen[0][8:24]).ipv4_mapped == LOOPBACK


@pytest.mark.net
def test_a_refusal_ends_the_exchange_with_its_reason() -> None:
    async def scenario() -> None:
        transport, _, port = await _router(lambda request, count: [_pcp_answer(request, result=2)])
        try:
            await exchange(LOOPBACK, port, lambda ours: pcp.map_request(NONCE, ours, 4711, 4711, 60),
                           lambda data: pcp.parse_map_answer(data, NONCE, 4711), [1.0], 5.0)  # fmt: skip
        finally:
            transport.close()

    with pytest.raises(MappingRefused, match="not authorized"):
        asyncio.run(scenario())


@pytest.mark.net
def test_silence_ends_at_the_budget_and_a_closed_port_at_once() -> None:
    async def silent() -> None:
        transport, router, port = await _router(lambda request, count: [])
        try:
            await exchange(
                LOOPBACK, port, lambda ours: b"\0\0", natpmp.parse_address_answer, [0.05] * 100, 0.3
            )
        finally:
            transport.close()
        assert 3 <= len(router.requests) <= 8

    with pytest.raises(NoAnswer, match="no answer"):
        asyncio.run(silent())

    async def closed() -> None:
        transport, _, port = await _router(lambda request, count: [])
        transport.close()  # nothing listens there now: ICMP port unreachable
        await exchange(LOOPBACK, port, lambda ours: b"\0\0", natpmp.parse_address_answer, [5.0], 10.0)

    with pytest.raises(NoAnswer, match="nothing answers"):
        asyncio.run(closed())


@pytest.mark.net
def test_natpmp_and_pcp_mappers_against_a_fake_router() -> None:
    def reply(request: bytes, count: int) -> list[bytes]:
        if request[0] == 2:
            return [b"\x00\x81\x00\x01" + bytes(12)]  # a NAT-PMP-only router answers PCP so
        if request == b"\x00\x00":
            return [bytes.fromhex("0080 0000 00000001") + PUBLIC.packed]
        internal, external, lifetime = struct.unpack_from("!HHI", request, 4)
        return [_natpmp_map_answer(internal, external or internal, lifetime)]

    async def scenario() -> tuple[Lease, type[Exception]]:
        transport, router, port = await _router(reply)
        try:
            pcp_mapper, natpmp_mapper = PcpMapper(LOOPBACK, 1.0), NatPmpMapper(LOOPBACK, 1.0)
            error: type[Exception] = Exception
            try:
                await _on(port, pcp_mapper.map(4711, 4711, 60))
            except UnsupportedVersion as exc:
                error = type(exc)
            lease = await _on(port, natpmp_mapper.map(4711, 4711, 60))
            await _on(port, natpmp_mapper.unmap(lease))
            assert router.requests[-1] == natpmp.delete_request(4711)
            return lease, error
        finally:
            transport.close()

    lease, error = asyncio.run(scenario())
    assert error is UnsupportedVersion
    assert lease == Lease("NAT-PMP", PUBLIC, 4711, 4711, 60, epoch=9)


async def _on(port: int, coroutine: Awaitable[T]) -> T:
    """Run a mapper's request against the fake router's ``port`` instead of 5351."""
    from unittest import mock

    with mock.patch.object(natpmp, "PORT", port):
        return await coroutine


# ------------------------------------------------------------------ the order, renewal and deletion


class FakeMapper:
    """A mapper that grants (or refuses with ``error``) and logs what it was asked."""

    def __init__(self, method: str, error: PortMapError | None = None, lifetime: int = 600) -> None:
        self.method, self.error, self.lifetime = method, error, lifetime
        self.calls: list[str] = []
        self.renewed = asyncio.Event()

    async def map(self, internal_port: int, external_port: int, lifetime: int) -> Lease:
        self.calls.append(f"map {external_port}")
        if len(self.calls) > 1:
            self.renewed.set()
        if self.error is not None:
            raise self.error
        return Lease(self.method, PUBLIC, external_port, internal_port, self.lifetime)

    async def unmap(self, lease: Lease) -> None:
        self.calls.append(f"unmap {lease.external_port}")

    async def holds(self, lease: Lease) -> bool | None:
        self.calls.append(f"holds {lease.external_port}")
        return None

    async def close(self) -> None:
        self.calls.append("close")


def test_the_first_way_that_works_is_kept_the_rest_untried_and_deleted_on_exit() -> None:
    async def scenario() -> tuple[MapResult, list[FakeMapper]]:
        first = FakeMapper("PCP", NoAnswer("no answer"))
        second, third = FakeMapper("UPnP"), FakeMapper("other")
        async with PortMapping(4711, [first, second, third]) as mapping:
            result = mapping.result
        return result, [first, second, third]

    result, (first, second, third) = asyncio.run(scenario())
    assert result.mapped is not None and result.mapped.method == "UPnP" and result.pinhole is None
    assert [(method, str(error)) for method, error in result.failures] == [("PCP", "no answer")]
    assert first.calls == ["map 4711", "close"] and second.calls == ["map 4711", "unmap 4711", "close"]
    assert third.calls == ["close"]  # never asked; every mapper is let go of


def test_natpmp_is_asked_only_when_the_router_speaks_no_pcp(monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario(pcp_error: PortMapError) -> list[str]:
        natpmp_mapper = NatPmpMapper(LOOPBACK, 0.1)
        calls: list[str] = []

        async def fake_map(internal: int, external: int, lifetime: int) -> Lease:
            calls.append("NAT-PMP")
            return Lease("NAT-PMP", PUBLIC, external, internal, lifetime)

        monkeypatch.setattr(natpmp_mapper, "map", fake_map)
        pcp_mapper = PcpMapper(LOOPBACK, 0.1)
        monkeypatch.setattr(pcp_mapper, "map", FakeMapper("PCP", pcp_error).map)
        unmap = FakeMapper("x").unmap
        monkeypatch.setattr(pcp_mapper, "unmap", unmap)
        monkeypatch.setattr(natpmp_mapper, "unmap", unmap)
        async with PortMapping(4711, [pcp_mapper, natpmp_mapper]) as mapping:
            calls.append(str(mapping.result.mapped and mapping.result.mapped.method))
        return calls

    assert asyncio.run(scenario(UnsupportedVersion("v0", 1))) == ["NAT-PMP", "NAT-PMP"]
    assert asyncio.run(scenario(NoAnswer("silence"))) == ["None"]


def test_leases_are_renewed_while_hosting_and_pinholes_held_beside_the_mapping() -> None:
    async def scenario() -> tuple[FakeMapper, FakeMapper, MapResult]:
        mapping4, pinhole = FakeMapper("UPnP", lifetime=0), FakeMapper("PCP", lifetime=1)
        async with PortMapping(4711, [mapping4], [pinhole], lifetime=1) as mapping:
            await asyncio.wait_for(pinhole.renewed.wait(), 10)
            result = mapping.result
        return mapping4, pinhole, result

    mapping4, pinhole, result = asyncio.run(scenario())
    assert result.mapped is not None and result.pinhole is not None
    assert mapping4.calls == ["map 4711", "unmap 4711", "close"]  # checked only every minute
    assert pinhole.calls[:2] == ["map 4711", "map 4711"] and pinhole.calls[-2:] == ["unmap 4711", "close"]


def test_a_host_stopped_by_a_signal_still_deletes_its_mapping() -> None:
    mapper = FakeMapper("PCP")

    async def host() -> None:
        async with PortMapping(4711, [mapper]):
            await asyncio.sleep(60)

    async def scenario() -> None:
        task = asyncio.create_task(host())
        while not mapper.calls:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert mapper.calls == ["map 4711", "unmap 4711", "close"]


def test_a_host_stopped_while_still_asking_gives_back_what_was_granted() -> None:
    granted = FakeMapper("PCP")

    class Silent(FakeMapper):
        async def map(self, internal_port: int, external_port: int, lifetime: int) -> Lease:
            await asyncio.sleep(60)
            raise AssertionError("not reached")

    async def scenario() -> None:
        task = asyncio.create_task(PortMapping(4711, [granted], [Silent("PCP")]).__aenter__())
        while not granted.calls:
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    assert granted.calls == ["map 4711", "unmap 4711", "close"]


def test_nothing_is_asked_for_a_loopback_host() -> None:
    from p2p.portmap import default_mappers

    assert default_mappers("127.0.0.1", True, True) == ([], [])
    assert default_mappers("::1", True, True) == ([], [])


# ------------------------------------------------------------------ keeping a mapping (fed a clock)


def _lease(lifetime: int = 1200, port: int = 4711, **extra: Any) -> Lease:
    return Lease("UPnP", PUBLIC, port, 4711, lifetime, **extra)


def test_a_mapping_is_looked_at_every_ten_seconds_and_renewed_by_half_its_lease() -> None:
    keeper = LeaseKeeper(_lease(1200), now=0.0)
    assert keeper.next_at == CHECK_EVERY and not keeper.renewing(CHECK_EVERY)
    keeper.held(CHECK_EVERY)
    assert keeper.next_at == 2 * CHECK_EVERY and keeper.renewing(600.0)  # half the lease: renewed
    short = LeaseKeeper(_lease(12), now=10.0)
    assert short.next_at == 16.0 and short.renewing(16.0)
    forever = LeaseKeeper(_lease(0), now=0.0)  # a lease until deleted: looked at all the same
    assert forever.next_at == CHECK_EVERY and not forever.renewing(1e9)
    assert (
        keeper.granted(700.0, _lease(1200, held=True)) is None and keeper.next_at == 710.0
    )  # nothing to say


def test_a_lost_joiner_has_the_router_asked_at_once_and_soon_until_it_opens_the_port_again() -> None:
    keeper = LeaseKeeper(_lease(), now=0.0)
    keeper.lost(5.0)
    assert keeper.next_at == 5.0 and keeper.renewing(5.0)
    said = [keeper.failed(t, NoAnswer("no UPnP router answered")) for t in (5.0, 6.0, 8.0, 12.0, 20.0, 60.0)]
    assert str(said[0]).startswith("Your router does not open port 4711 again (no UPnP router answered)")
    assert said[1:] == [None] * 5  # said once
    assert keeper.next_at == 60.0 + LOST_RETRY_MAX
    back = keeper.granted(61.0, _lease(held=False))
    assert str(back) == "Your router had lost port 4711 (did it restart?): it is open again (UPnP)."
    assert not keeper.urgent and keeper.next_at == 61.0 + CHECK_EVERY


def test_a_router_that_answers_again_after_failing_is_said_to() -> None:
    keeper = LeaseKeeper(_lease(), now=0.0)
    keeper.lost(1.0)
    keeper.failed(1.0, NoAnswer("silence"))
    assert str(keeper.granted(2.0, _lease(held=True))) == "Your router opened port 4711 again (UPnP)."


def test_failed_checks_while_the_joiner_plays_are_retried_quietly() -> None:
    keeper = LeaseKeeper(_lease(1200), now=0.0)
    assert keeper.failed(60.0, NoAnswer("silence")) is None and keeper.next_at == 60.0 + CHECK_EVERY


def test_an_epoch_that_went_back_means_the_router_restarted_and_forgot() -> None:
    keeper = LeaseKeeper(Lease("PCP", PUBLIC, 4711, 4711, 1200, epoch=5000), now=0.0)
    assert keeper.granted(60.0, Lease("PCP", PUBLIC, 4711, 4711, 1200, epoch=5058)) is None
    restarted = keeper.granted(120.0, Lease("PCP", PUBLIC, 4711, 4711, 1200, epoch=4))
    assert str(restarted) == "Your router had lost port 4711 (did it restart?): it is open again (PCP)."
    assert not epoch_went_back(100, 0.0, 151, 60.0)  # a router clock 1/8 slow, rounded, is allowed
    assert epoch_went_back(100, 0.0, 100, 60.0)


def test_a_mapping_that_moved_says_the_invite_no_longer_leads_here() -> None:
    keeper = LeaseKeeper(_lease(port=4711), now=0.0)
    moved = keeper.granted(60.0, _lease(port=4712, held=None))
    assert str(moved) == (
        "Your router now forwards 11.0.0.1:4712 to this machine (it was 11.0.0.1:4711): the invite "
        "your friend has no longer leads here."
    )


def test_a_lost_joiner_makes_the_host_ask_its_router_again_at_once_and_say_what_it_found() -> None:
    class Forgetful(FakeMapper):
        async def map(self, internal_port: int, external_port: int, lifetime: int) -> Lease:
            await super().map(internal_port, external_port, lifetime)
            return Lease(self.method, PUBLIC, external_port, internal_port, 1200, held=len(self.calls) == 1)

    async def scenario() -> tuple[list[str], list[Text]]:
        mapper, said = Forgetful("UPnP"), list[Text]()
        async with PortMapping(4711, [mapper], report=said.append) as mapping:
            mapping.joiner_lost()
            while len(mapper.calls) < 2:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.01)
        return mapper.calls, said

    calls, said = asyncio.run(scenario())
    assert calls == ["map 4711", "map 4711", "unmap 4711", "close"]
    assert said == ["Your router had lost port 4711 (did it restart?): it is open again (UPnP)."]


# ------------------------------------------------------------------ UPnP, through its worker


class FakeWorker:
    """The UPnP worker without miniupnpc: a router holding ``entries`` (external port: [client, port])."""

    def __init__(self, entries: dict[int, list[object]] | None = None, router: bool = True) -> None:
        self.entries = {} if entries is None else entries
        self.router = router
        self.ops: list[str] = []
        self.closed = False

    async def call(self, request: dict[str, Any], timeout: float) -> Any:
        op = request["op"]
        self.ops.append(op if "external" not in request else f"{op} {request['external']}")
        if not self.router:
            raise WorkerError("no UPnP router answered")
        if op == "discover":
            return {"lan": "10.1.0.10", "external": "11.0.0.1"}
        port = int(request["external"])
        if op == "entry":
            return self.entries.get(port)
        if op == "map":
            if port in self.entries and self.entries[port] != ["10.1.0.10", request["internal"]]:
                raise WorkerError("ConflictInMappingEntry")
            self.entries[port] = ["10.1.0.10", request["internal"]]
            return request["lease"]
        self.entries.pop(port, None)
        return True

    async def close(self) -> None:
        self.closed = True


def _upnp(worker: FakeWorker) -> UpnpMapper:
    async def start() -> FakeWorker:
        return worker

    return UpnpMapper(1.0, start)


def test_a_port_another_machine_holds_on_the_router_falls_back_to_the_next() -> None:
    worker = FakeWorker({4711: ["10.1.0.11", 4711]})

    async def scenario() -> MapResult:
        async with PortMapping(4711, [_upnp(worker)]) as mapping:
            return mapping.result

    result = asyncio.run(scenario())
    assert result.mapped is not None and result.mapped.external_port == 4712
    assert result.reachable(["10.1.0.10"], 4711) == [("11.0.0.1", 4712), ("10.1.0.10", 4711)]
    assert worker.ops == ["discover", "entry 4711", "map 4711", "map 4712", "unmap 4712"] and worker.closed
    assert worker.entries == {4711: ["10.1.0.11", 4711]}  # the other machine's is left alone


def test_a_router_full_of_other_machines_ports_says_so() -> None:
    worker = FakeWorker({port: ["10.1.0.11", port] for port in range(4711, 4720)})

    async def scenario() -> MapResult:
        async with PortMapping(4711, [_upnp(worker)]) as mapping:
            return mapping.result

    ((method, error),) = asyncio.run(scenario()).failures
    assert method == "UPnP" and "other machines on your network hold ports 4711 to 4716" in str(error)


def test_a_upnp_renewal_tells_whether_the_router_still_held_the_mapping() -> None:
    worker = FakeWorker()

    async def scenario() -> tuple[Lease, Lease]:
        mapper = _upnp(worker)
        first = await mapper.map(4711, 4711, 1200)
        worker.entries.clear()  # the router restarted
        again = await mapper.map(4711, first.external_port, 1200)
        await mapper.close()
        return first, again

    first, again = asyncio.run(scenario())
    assert (first.held, again.held) == (False, False) and again.external_port == 4711


def test_no_upnp_router_is_one_clean_error_and_it_is_looked_for_again_next_time() -> None:
    worker = FakeWorker(router=False)
    errors: list[dict[str, Any]] = []

    async def scenario() -> list[str]:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: errors.append(context))
        mapper = _upnp(worker)
        for _ in range(2):
            with pytest.raises(NoAnswer, match="no UPnP router answered"):
                await mapper.map(4711, 4711, 60)
        await mapper.close()
        return worker.ops

    assert asyncio.run(scenario()) == ["discover", "discover"]
    gc.collect()
    assert errors == [] and worker.closed


def test_a_discovery_given_up_on_leaves_no_unretrieved_error_behind() -> None:
    """Issue 21: 'Future exception was never retrieved … NoAnswer' at the host's exit on a network
    without UPnP: the discovery failed after the host had stopped waiting for it."""
    errors: list[dict[str, Any]] = []

    class Slow(FakeWorker):
        async def call(self, request: dict[str, Any], timeout: float) -> Any:
            await asyncio.sleep(0.2)
            raise WorkerError("no UPnP router answered")

    async def scenario() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: errors.append(context))

        async def start() -> FakeWorker:
            return Slow()

        mapper = UpnpMapper(0.05, start)
        async with PortMapping(4711, [FakeMapper("PCP", NoAnswer("silence")), mapper]) as mapping:
            assert mapping.result.mapped is None
            await asyncio.sleep(0.3)  # the discovery fails now, nobody waiting for it

    asyncio.run(scenario())
    gc.collect()
    assert errors == []


# ------------------------------------------------------------------ attacks from the LAN (issue 19)


def test_a_mapping_another_lan_machine_deleted_is_restored_at_the_next_look_and_said() -> None:
    """Where a router lets any LAN machine delete any mapping (UPnP without secure mode; miniupnpd
    refuses it, tests/test_netlab.py), the host finds it gone at its next look and asks again."""
    worker, said = FakeWorker(), list[Text]()

    async def scenario() -> None:
        async with PortMapping(4711, [_upnp(worker)], report=said.append, check_every=0.05):
            worker.entries.clear()  # eve: DeletePortMapping 4711
            while not said:
                await asyncio.sleep(0.01)

    asyncio.run(scenario())
    assert said == ["Your router had lost port 4711 (did it restart?): it is open again (UPnP)."]
    assert "entry 4711" in worker.ops[3:] and worker.ops.count("map 4711") == 2


def test_a_mapping_another_lan_machine_took_over_is_said_to_no_longer_lead_here() -> None:
    """Eve deletes ann's mapping and maps the port to herself: joiners dialing the invite reach
    eve, who cannot answer under ann's key (a denial of service, never an impersonation). Ann's
    host cannot take the port back; it says her invite no longer leads to her."""
    worker, said = FakeWorker(), list[Text]()

    async def scenario() -> None:
        async with PortMapping(4711, [_upnp(worker)], report=said.append, check_every=0.05):
            worker.entries[4711] = ["10.1.0.66", 4711]  # eve's now
            while not said:
                await asyncio.sleep(0.01)

    asyncio.run(scenario())
    assert said == [
        "Your router now forwards 11.0.0.1:4712 to this machine (it was 11.0.0.1:4711): the invite your "
        "friend has no longer leads here."
    ]
    assert worker.entries[4711] == ["10.1.0.66", 4711]  # eve's mapping is not touched


@pytest.mark.net
def test_a_forged_natpmp_answer_from_another_address_than_the_gateway_is_never_read() -> None:
    """Eve, on the LAN, answers our NAT-PMP request first, from her own address, with a public
    address of her choosing: the socket is connected to the gateway, so the kernel drops it; the
    gateway's own (later) answer is the one taken."""
    forged: list[tuple[str, int]] = []
    answer_of = bytes.fromhex("0080 0000 00000001")

    async def scenario() -> natpmp.AddressAnswer:
        loop = asyncio.get_running_loop()
        eve, _ = await loop.create_datagram_endpoint(asyncio.DatagramProtocol, local_addr=("127.0.0.2", 0))

        class Gateway(asyncio.DatagramProtocol):
            def connection_made(self, transport: asyncio.DatagramTransport) -> None:  # type: ignore[override]
                self.transport = transport

            def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
                eve.sendto(answer_of + bytes([6, 6, 6, 6]), addr)  # eve's, first, to our very port
                forged.append(addr)
                loop.call_later(0.1, self.transport.sendto, answer_of + PUBLIC.packed, addr)

        transport, _ = await loop.create_datagram_endpoint(Gateway, local_addr=("127.0.0.1", 0))
        port = transport.get_extra_info("sockname")[1]
        try:
            return await exchange(
                LOOPBACK, port, lambda ours: b"\0\0", natpmp.parse_address_answer, [1.0], 3.0
            )
        finally:
            transport.close()
            eve.close()

    answer = asyncio.run(scenario())
    assert forged and answer.external_address == PUBLIC
