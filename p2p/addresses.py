"""The addresses at which a joiner might reach this machine, best first, and the default gateway.

Nothing is sent to find them: the interfaces are listed with ``ifaddr``
(``getifaddrs`` on POSIX, the adapter table on Windows), and where Linux
tells more (``/sys/class/net/*/flags``: is the interface up;
``/proc/net/if_inet6``: is an IPv6 address temporary, deprecated or still
tentative; ``/proc/net/route``: which interface the default route leaves by)
that is used too. The host name is never resolved: on Debian and Ubuntu it
maps to 127.0.1.1, which no friend can reach.

The order is the one a person would pick: IPv4 on the interface of the
default route (the Wi-Fi or Ethernet a friend at home shares), other IPv4
LAN addresses, addresses of virtual bridges (containers, VMs) last; then
global IPv6 (reachable across the internet where no firewall stops it),
then unique-local IPv6 (``fd00::/8``, the LAN only). Loopback only when
``bind`` asks for it or when nothing else exists (a machine off every network).

>>> found = [
...     InterfaceAddress("lo", ipaddress.ip_address("127.0.0.1")),
...     InterfaceAddress("docker0", ipaddress.ip_address("172.17.0.1")),
...     InterfaceAddress("wlan0", ipaddress.ip_address("2001:db8::5")),
...     InterfaceAddress("wlan0", ipaddress.ip_address("192.168.1.23")),
...     InterfaceAddress("wlan0", ipaddress.ip_address("fe80::1")),
... ]
>>> rank(found, default_interface="wlan0")
['192.168.1.23', '172.17.0.1', '2001:db8::5']
>>> host_addresses(bind="127.0.0.1")
['127.0.0.1']
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_VIRTUAL = ("docker", "br-", "veth", "virbr", "vmnet", "vboxnet", "lxc", "lxd", "cni", "podman", "vnet")
"""Name prefixes of interfaces that lead to containers or virtual machines on this computer, not to a friend."""

_WILDCARDS = ("", "0.0.0.0", "::")
_UNIQUE_LOCAL = ipaddress.ip_network("fc00::/7")

# Flags of /proc/net/if_inet6 (linux/if_addr.h) that make an address a poor one to hand out.
_IFA_F_TEMPORARY, _IFA_F_DADFAILED, _IFA_F_DEPRECATED, _IFA_F_TENTATIVE = 0x01, 0x08, 0x20, 0x40
_IFF_UP = 0x1


@dataclass(frozen=True)
class InterfaceAddress:
    """One address of one network interface, with what the system says about it."""

    interface: str
    address: IPAddress
    up: bool = True
    unstable: bool = False
    """Temporary (a privacy address that will change), deprecated, tentative or failed duplicate detection."""
    prefix: int | None = None
    """The length of its network's prefix (``/24``), where the system says."""

    @property
    def network(self) -> ipaddress.IPv4Network | ipaddress.IPv6Network:
        """The network this address is on (the address alone where the prefix is unknown)."""
        return ipaddress.ip_network(f"{self.address}/{self.prefix or self.address.max_prefixlen}", strict=False)


def host_addresses(bind: str | None = None, *, ipv4: bool = True, ipv6: bool = True) -> list[str]:
    """This machine's addresses a joiner might reach, best first; never empty.

    ``bind``: the address the host listens on (``None`` or a wildcard: all);
    ``ipv4``/``ipv6``: which families the listening socket accepts.
    """
    if bind is not None and bind not in _WILDCARDS:
        return [bind]
    found = [
        a
        for a in interface_addresses()
        if (a.address.version == 4 and ipv4) or (a.address.version == 6 and ipv6)
    ]
    return rank(found, default_interface=default_route_interface()) or ["127.0.0.1" if ipv4 else "::1"]


def is_loopback(bind: str | None) -> bool:
    """Whether the listening address ``bind`` is a loopback one (no one else could connect)."""
    try:
        return bind is not None and ipaddress.ip_address(bind.split("%")[0]).is_loopback
    except ValueError:
        return False


def rank(found: Iterable[InterfaceAddress], default_interface: str | None = None) -> list[str]:
    """The usable addresses among ``found``, best first (see the module's text)."""

    def order(item: InterfaceAddress) -> tuple[int, bool, bool]:
        address = item.address
        family_rank = 0 if address.version == 4 else (2 if address in _UNIQUE_LOCAL else 1)
        return family_rank, item.interface != default_interface, item.interface.startswith(_VIRTUAL)

    usable = sorted((a for a in found if _usable(a)), key=order)
    return list(dict.fromkeys(str(a.address) for a in usable))


def _usable(item: InterfaceAddress) -> bool:
    address = item.address
    return (
        item.up
        and not item.unstable
        and not (
            address.is_loopback or address.is_link_local or address.is_multicast or address.is_unspecified
        )
    )


def interface_addresses() -> list[InterfaceAddress]:
    """Every address of every interface, as the system lists them (in its order)."""
    import ifaddr

    unstable = _unstable_ipv6(_read("/proc/net/if_inet6"))
    found: list[InterfaceAddress] = []
    for adapter in ifaddr.get_adapters():
        name = adapter.name if isinstance(adapter.name, str) else adapter.name.decode(errors="replace")
        up = _is_up(_read(f"/sys/class/net/{name}/flags"))
        for ip in adapter.ips:
            text = ip.ip if isinstance(ip.ip, str) else ip.ip[0]
            with contextlib.suppress(ValueError):
                address = ipaddress.ip_address(text.split("%")[0])
                found.append(InterfaceAddress(name, address, up, address in unstable, ip.network_prefix))
    return found


def default_route_interface() -> str | None:
    """The interface the IPv4 default route leaves by (Linux), else ``None``."""
    route = default_route(_read("/proc/net/route"))
    return None if route is None else route[0]


def default_gateway() -> ipaddress.IPv4Address | None:
    """The IPv4 default gateway (Linux: ``/proc/net/route``), the home router on most LANs; else ``None``."""
    route = default_route(_read("/proc/net/route"))
    return None if route is None else route[1]


def default_gateway6() -> ipaddress.IPv6Address | None:
    """The IPv6 default gateway (Linux: ``/proc/net/ipv6_route``), with its interface as scope if link-local."""
    return default_route6(_read("/proc/net/ipv6_route"))


def default_route6(table: str) -> ipaddress.IPv6Address | None:
    """The next hop of the first default route in ``/proc/net/ipv6_route``'s text ``table``.

    >>> default_route6("0" * 32 + " 00 " + "0" * 32 + " 00 fe800000000000000000000000000001 00000400 0 0 3 wlan0")
    IPv6Address('fe80::1%wlan0')
    """
    for line in table.splitlines():
        fields = line.split()
        if len(fields) < 10 or fields[0] != "0" * 32 or fields[1] != "00" or fields[4] == "0" * 32:
            continue
        with contextlib.suppress(ValueError):
            hop = ipaddress.IPv6Address(bytes.fromhex(fields[4]))
            return ipaddress.IPv6Address(f"{hop}%{fields[9]}") if hop.is_link_local else hop
    return None


def default_route(table: str) -> tuple[str, ipaddress.IPv4Address] | None:
    """The interface and gateway of the first default route in ``/proc/net/route``'s text ``table``.

    >>> default_route("Iface\\tDestination\\tGateway \\tFlags\\neth0\\t00000000\\t0101A8C0\\t0003\\n")
    ('eth0', IPv4Address('192.168.1.1'))
    """
    for line in table.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 4 or fields[1] != "00000000":
            continue
        with contextlib.suppress(ValueError):
            flags, gateway = int(fields[3], 16), bytes.fromhex(fields[2])[::-1]  # little-endian hex
            if flags & 0x2 and len(gateway) == 4:  # RTF_GATEWAY
                return fields[0], ipaddress.IPv4Address(gateway)
    return None


def _unstable_ipv6(table: str) -> frozenset[IPAddress]:
    """The IPv6 addresses that ``/proc/net/if_inet6``'s text marks temporary, deprecated or tentative."""
    unstable: set[IPAddress] = set()
    bad = _IFA_F_TEMPORARY | _IFA_F_DADFAILED | _IFA_F_DEPRECATED | _IFA_F_TENTATIVE
    for line in table.splitlines():
        fields = line.split()
        with contextlib.suppress(ValueError, IndexError):
            if int(fields[4], 16) & bad:
                unstable.add(ipaddress.IPv6Address(bytes.fromhex(fields[0])))
    return frozenset(unstable)


def _is_up(flags: str) -> bool:
    """Whether ``/sys/class/net/IF/flags``'s text says up; unknown (not Linux) counts as up."""
    try:
        return bool(int(flags.strip(), 16) & _IFF_UP)
    except ValueError:
        return True


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def socket_families(sock: socket.socket) -> dict[str, bool]:
    """Which families a listening ``sock`` accepts, as keyword arguments of :func:`host_addresses`."""
    if sock.family == socket.AF_INET:
        return {"ipv4": True, "ipv6": False}
    v6only = sock.getsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY)
    return {"ipv4": not v6only, "ipv6": True}


def address_text(host: str, port: int) -> str:
    """``host:port`` as an invite writes it, an IPv6 address in brackets.

    >>> address_text("fd00:6::1", 47111), address_text("10.1.0.10", 47111)
    ('[fd00:6::1]:47111', '10.1.0.10:47111')
    """
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def same_host(name: str, peer: str | None) -> bool:
    """Whether the address ``name`` (as an invite writes it) is ``peer`` (as a socket reports it:
    an IPv4 address may come IPv4-mapped, an IPv6 one with its scope); a host name never is.

    >>> same_host("11.0.0.1", "::ffff:11.0.0.1"), same_host("fe80::1", "fe80::1%eth0"), same_host("a.example", "a.example")
    (True, True, False)
    """
    try:
        ours, theirs = (ipaddress.ip_address(text.split("%")[0]) for text in (name, peer or ""))
    except ValueError:
        return False
    return (getattr(theirs, "ipv4_mapped", None) or theirs) == (getattr(ours, "ipv4_mapped", None) or ours)


def beyond_reach(hosts: Iterable[str], found: Iterable[InterfaceAddress]) -> bool:
    """Whether every one of ``hosts`` (an invite's) is an address the internet does not route
    (private, shared, link-local…) on none of the networks of ``found`` (this machine's
    :func:`interface_addresses`): the invite of a host behind a router that opened no port,
    seen from another network. A name may lead anywhere: never beyond reach.

    >>> home = [InterfaceAddress("eth0", ipaddress.ip_address("10.2.0.10"), prefix=24)]
    >>> beyond_reach(["10.3.0.10", "fd00:3::a"], home), beyond_reach(["10.2.0.11"], home)
    (True, False)
    >>> beyond_reach(["10.3.0.10", "11.0.0.3"], home), beyond_reach(["box.lan"], home)
    (False, False)
    """
    networks = [item.network for item in found]
    for host in hosts:
        try:
            address = ipaddress.ip_address(host.split("%")[0])
        except ValueError:
            return False
        if address.is_global or any(address in network for network in networks):
            return False
    return True
