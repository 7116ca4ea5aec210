"""NAT-PMP (RFC 6886) packets, sans I/O: requests to build, answers to check as hostile input.

>>> external_address_request()
b'\\x00\\x00'
>>> request = map_request(47111, 47111, 1200)
>>> request.hex()
'00020000b807b807000004b0'
>>> answer = bytes.fromhex("0082000000000007b807b807000004b0")
>>> parse_map_answer(answer, 47111)
MapAnswer(epoch=7, internal_port=47111, external_port=47111, lifetime=1200)
>>> parse_map_answer(b"\\x00\\x82\\x00\\x02" + bytes(12), 47111)
Traceback (most recent call last):
...
p2p.portmap.errors.MappingRefused: the router refused (NAT-PMP: not authorized)
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass

from p2p.portmap.errors import not_ours, refused, wrong_size

PORT = 5351
"""The UDP port the router listens on (PCP shares it)."""

VERSION = 0
_NAME = "NAT-PMP"
_OP_EXTERNAL_ADDRESS, _OP_MAP_TCP, _ANSWER = 0, 2, 128

RETRY_DELAYS = tuple(0.25 * 2**n for n in range(9))
"""RFC 6886 §3.1: wait 250 ms for the first answer, doubling each time, nine tries (about 64 s in all)."""

RESULTS = {
    1: "unsupported version",
    2: "not authorized",
    3: "network failure",
    4: "out of resources",
    5: "unsupported opcode",
}


@dataclass(frozen=True)
class AddressAnswer:
    """The router's answer to :func:`external_address_request`."""

    epoch: int
    external_address: ipaddress.IPv4Address


@dataclass(frozen=True)
class MapAnswer:
    """The router's answer to :func:`map_request`: the port it opened, for how many seconds."""

    epoch: int
    internal_port: int
    external_port: int
    lifetime: int


def external_address_request() -> bytes:
    """Ask for the router's public IPv4 address."""
    return struct.pack("!BB", VERSION, _OP_EXTERNAL_ADDRESS)


def map_request(internal_port: int, external_port: int, lifetime: int) -> bytes:
    """Ask for TCP ``external_port`` (a wish) to reach ``internal_port`` for ``lifetime`` seconds.

    Lifetime 0 with external port 0 deletes the mapping (RFC 6886 §3.4).
    """
    return struct.pack("!BBHHHI", VERSION, _OP_MAP_TCP, 0, internal_port, external_port, lifetime)


def delete_request(internal_port: int) -> bytes:
    """Remove our TCP mapping of ``internal_port``."""
    return map_request(internal_port, 0, 0)


def _header(data: bytes, opcode: int) -> int:
    """Check the common part of an answer to ``opcode``; the epoch (raises on an error result)."""
    if len(data) < 8:
        raise wrong_size(_NAME, len(data), "8 or more")
    version, answered, result, epoch = struct.unpack_from("!BBHI", data)
    if answered != _ANSWER + opcode:
        raise not_ours(_NAME)
    if version != VERSION:
        result = 1
    if result:
        raise refused(_NAME, RESULTS.get(result, f"result code {result}"), result)
    return int(epoch)


def parse_address_answer(data: bytes) -> AddressAnswer:
    """Check a datagram as the answer to :func:`external_address_request`."""
    epoch = _header(data, _OP_EXTERNAL_ADDRESS)
    if len(data) != 12:
        raise wrong_size(_NAME, len(data), "12")
    return AddressAnswer(epoch, ipaddress.IPv4Address(data[8:12]))


def parse_map_answer(data: bytes, internal_port: int) -> MapAnswer:
    """Check a datagram as the answer to our :func:`map_request` for ``internal_port``."""
    epoch = _header(data, _OP_MAP_TCP)
    if len(data) != 16:
        raise wrong_size(_NAME, len(data), "16")
    internal, external, lifetime = struct.unpack_from("!HHI", data, 8)
    if internal != internal_port or (lifetime and not external):
        raise not_ours(_NAME)
    return MapAnswer(epoch, internal, external, lifetime)
