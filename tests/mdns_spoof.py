"""A hostile machine on the LAN, for tests/test_netlab.py: it floods multicast DNS with made-up
``_trumps._tcp`` announcements, and announces a real host's name and key at its own address.

Run in a namespace: ``python -m tests.mdns_spoof COUNT NAME FINGERPRINT ADDRESS SECONDS`` sends,
for ``SECONDS``, unsolicited answers (as a host's announcement is) naming ``COUNT`` valid-looking
games, and one more under ``NAME`` and ``FINGERPRINT`` at ``ADDRESS`` port 47111; several
announcements to a packet, as fast as the socket takes them, again every second.
"""

from __future__ import annotations

import socket
import sys
import time

from zeroconf import ServiceInfo
from zeroconf._protocol.outgoing import DNSOutgoing
from zeroconf.const import _FLAGS_AA, _FLAGS_QR_RESPONSE

from engine import Rules
from p2p.discovery import SERVICE, announced_properties
from p2p.handshake import Terms

_PER_PACKET = 8
_LETTERS = str.maketrans("0123456789", "abcdefghij")


def _infos(count: int, name: str, fingerprint: str, address: str) -> list[ServiceInfo]:
    packed = socket.inet_aton(address)
    fakes = [(f"p{n}", f"{n:0>8}".translate(_LETTERS) * 4) for n in range(count)]
    return [
        ServiceInfo(SERVICE, f"trumps-spoof{n}.{SERVICE}", addresses=[packed], port=47111,
                    properties=announced_properties(player, fp, Terms(Rules(), 1)), server=f"spoof{n}.local.")
        for n, (player, fp) in enumerate([*fakes, (name, fingerprint)])
    ]  # fmt: skip


def _packets(infos: list[ServiceInfo]) -> list[bytes]:
    packets = []
    for start in range(0, len(infos), _PER_PACKET):
        out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
        for info in infos[start : start + _PER_PACKET]:
            for record in (info.dns_pointer(), info.dns_service(), info.dns_text(), *info.dns_addresses()):
                out.add_answer_at_time(record, 0)
        packets += out.packets()
    return packets


def main(argv: list[str]) -> None:
    count, name, fingerprint, address, seconds = int(argv[0]), argv[1], argv[2], argv[3], float(argv[4])
    packets = _packets(_infos(count, name, fingerprint, address))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("", 5353))  # answers come from the mDNS port, as a responder's do
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 255)
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(address))
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for packet in packets:
            sock.sendto(packet, ("224.0.0.251", 5353))
        time.sleep(1.0)


if __name__ == "__main__":
    main(sys.argv[1:])
