"""PCP (RFC 6887) MAP packets, sans I/O: the request to build, the answer to check as hostile input.

A MAP request asks the router (or, for IPv6, the firewall) to let inbound TCP
to ``internal_port`` through; the answer names the external address and port.
The mapping nonce ties an answer to its request and lets the same client renew
or delete it. An IPv4 address travels as an IPv4-mapped IPv6 address.

>>> nonce = bytes(range(12))
>>> request = map_request(nonce, ipaddress.ip_address("10.1.0.10"), 47111, 47111, 1200)
>>> len(request), request[:2].hex()
(60, '0201')
>>> answer = bytearray(request)
>>> answer[1] |= 0x80
>>> answer[8:24] = (3).to_bytes(4, "big") + bytes(12)   # epoch 3, reserved
>>> answer[44:60] = ipaddress.IPv6Address("::ffff:11.0.0.1").packed
>>> parse_map_answer(bytes(answer), nonce, 47111)
MapAnswer(lifetime=1200, epoch=3, external_port=47111, external_address=IPv4Address('11.0.0.1'))
"""

from __future__ import annotations

import ipaddress
import struct
from dataclasses import dataclass

from p2p.portmap.errors import not_ours, refused, wrong_size

VERSION = 2
_NAME = "PCP"
_OP_MAP, _ANSWER_BIT, _TCP = 1, 0x80, 6
_HEADER, _MAP_BODY = 24, 36
_MAX_SIZE = 1100
"""RFC 6887 §7: no PCP message is longer than 1100 bytes."""

IRT, MRT = 3.0, 1024.0
"""RFC 6887 §8.1.1: the first answer is awaited 3 s, each later wait doubles up to 1024 s (±10 % each)."""

RESULTS = {
    1: "unsupported version",
    2: "not authorized",
    3: "malformed request",
    4: "unsupported opcode",
    5: "unsupported option",
    6: "malformed option",
    7: "network failure",
    8: "no resources",
    9: "unsupported protocol",
    10: "user exceeded quota",
    11: "cannot provide external",
    12: "address mismatch",
    13: "excessive remote peers",
}

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@dataclass(frozen=True)
class MapAnswer:
    """What the router granted: for ``lifetime`` seconds, ``external_address``:``external_port``."""

    lifetime: int
    epoch: int
    external_port: int
    external_address: IPAddress


def _as_ipv6(address: IPAddress) -> bytes:
    if isinstance(address, ipaddress.IPv4Address):
        return ipaddress.IPv6Address(b"\0" * 10 + b"\xff\xff" + address.packed).packed
    return address.packed


def _from_ipv6(packed: bytes) -> IPAddress:
    address = ipaddress.IPv6Address(packed)
    return address.ipv4_mapped or address


def retry_delays(jitter: float = 0.0) -> list[float]:
    """RFC 6887 §8.1.1's waits between retransmissions, with one ``jitter`` in [-0.1, 0.1] for all.

    >>> retry_delays()[:4]
    [3.0, 6.0, 12.0, 24.0]
    """
    delays, wait = [], IRT
    while wait < MRT:
        delays.append((1 + jitter) * wait)
        wait = min(2 * wait, MRT)
    return [*delays, (1 + jitter) * MRT]


def map_request(
    nonce: bytes, client: IPAddress, internal_port: int, external_port: int, lifetime: int
) -> bytes:
    """MAP TCP ``internal_port`` of ``client`` (our address as the router sees it) for ``lifetime``
    seconds, wishing for ``external_port``; lifetime 0 deletes the mapping of this ``nonce``."""
    if len(nonce) != 12:
        raise ValueError("a PCP mapping nonce is 12 bytes")
    header = struct.pack("!BBHI", VERSION, _OP_MAP, 0, lifetime) + _as_ipv6(client)
    wanted = ipaddress.IPv6Address(0) if client.version == 6 else ipaddress.IPv4Address(0)
    body = nonce + struct.pack("!B3xHH", _TCP, internal_port, external_port) + _as_ipv6(wanted)
    return header + body


def parse_map_answer(data: bytes, nonce: bytes, internal_port: int) -> MapAnswer:
    """Check a datagram as the answer to our MAP request (``nonce``, ``internal_port``).

    A NAT-PMP router answers a PCP request with its own "unsupported version" (RFC 6887 §9).
    """
    if len(data) >= 4 and data[0] == 0 and data[2:4] == b"\x00\x01":  # NAT-PMP: version 0, result 1
        raise refused(_NAME, RESULTS[1], 1)
    if len(data) < _HEADER or len(data) > _MAX_SIZE or len(data) % 4:
        raise wrong_size(_NAME, len(data), f"{_HEADER + _MAP_BODY} to {_MAX_SIZE}, a multiple of 4")
    version, opcode, _, result, lifetime, epoch = struct.unpack_from("!BBBBII", data)
    if opcode != _OP_MAP | _ANSWER_BIT:
        raise not_ours(_NAME)
    if result:  # checked before the version: UNSUPP_VERSION comes in the server's own version
        raise refused(_NAME, RESULTS.get(result, f"result code {result}"), result)
    if version != VERSION:
        raise refused(_NAME, RESULTS[1], 1)
    if len(data) < _HEADER + _MAP_BODY:
        raise wrong_size(_NAME, len(data), f"{_HEADER + _MAP_BODY} to {_MAX_SIZE}, a multiple of 4")
    body = data[_HEADER : _HEADER + _MAP_BODY]
    protocol, internal, external = struct.unpack_from("!B3xHH", body, 12)
    if body[:12] != nonce or protocol != _TCP or internal != internal_port or (lifetime and not external):
        raise not_ours(_NAME)
    return MapAnswer(lifetime, epoch, external, _from_ipv6(body[20:36]))
