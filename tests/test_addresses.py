"""Which of this machine's addresses go into the invite, in which order, from what the system reports."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p import addresses
from p2p.addresses import InterfaceAddress, default_route, host_addresses, rank


def _at(interface: str, text: str, **flags: bool) -> InterfaceAddress:
    return InterfaceAddress(interface, ipaddress.ip_address(text), **flags)


def test_the_lan_address_comes_first_and_loopback_link_local_and_unstable_ones_never() -> None:
    found = [
        _at("lo", "127.0.0.1"),
        _at("lo", "::1"),
        _at("eth0", "fe80::1"),
        _at("eth0", "169.254.3.4"),
        _at("eth0", "fd00::2"),
        _at("eth0", "2001:db8::9", unstable=True),
        _at("eth0", "2a01:4f8::7"),
        _at("virbr0", "192.168.122.1"),
        _at("eth0", "10.0.0.5"),
        _at("wlan0", "192.168.1.40", up=False),
    ]
    assert rank(found, default_interface="eth0") == ["10.0.0.5", "192.168.122.1", "2a01:4f8::7", "fd00::2"]


def test_the_default_route_interface_wins_among_lan_addresses() -> None:
    found = [_at("eth1", "10.9.0.2"), _at("wlan0", "192.168.1.23"), _at("docker0", "172.17.0.1")]
    assert rank(found, default_interface="wlan0")[0] == "192.168.1.23"
    assert rank(found, default_interface=None) == ["10.9.0.2", "192.168.1.23", "172.17.0.1"]


def test_a_specific_bind_is_the_only_address_even_loopback() -> None:
    assert host_addresses("127.0.0.1") == ["127.0.0.1"]
    assert host_addresses("::1") == ["::1"]


def test_a_machine_off_every_network_falls_back_to_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(addresses, "interface_addresses", lambda: [_at("lo", "127.0.0.1"), _at("lo", "::1")])
    assert host_addresses() == ["127.0.0.1"]
    assert host_addresses(ipv4=False) == ["::1"]


def test_the_families_of_the_listening_socket_are_respected(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        addresses, "interface_addresses", lambda: [_at("e", "10.1.0.10"), _at("e", "2001:db8::1")]
    )
    monkeypatch.setattr(addresses, "default_route_interface", lambda: "e")
    assert host_addresses("0.0.0.0", ipv6=False) == ["10.1.0.10"]
    assert host_addresses(None, ipv4=False) == ["2001:db8::1"]
    assert host_addresses() == ["10.1.0.10", "2001:db8::1"]


def test_the_host_name_is_never_consulted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Debian maps the host name to 127.0.1.1: resolving it must play no part."""

    def refuse(*args: object) -> object:
        raise AssertionError("the host name was resolved")

    monkeypatch.setattr("socket.gethostbyname", refuse)
    monkeypatch.setattr("socket.getaddrinfo", refuse)
    assert host_addresses()


def test_proc_tables_are_read_as_linux_writes_them() -> None:
    table = (
        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\n"
        "eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\n"
        "eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\n"
    )
    assert default_route(table) == ("eth0", ipaddress.IPv4Address("192.0.2.1"))
    no_gateway = table.replace("0003", "0001")  # a default route straight onto the link, not via a router
    assert default_route(no_gateway) is None
    inet6 = (
        "fe8000000000000000fc00fffe000001 04 40 20 80     eth0\n"
        "20010db8000000000000000000000009 04 40 00 01     eth0\n"
        "20010db8000000000000000000000007 04 40 00 20     eth0\n"
        "20010db8000000000000000000000005 04 40 00 80     eth0\n"
    )
    assert addresses._unstable_ipv6(inet6) == {
        ipaddress.ip_address("2001:db8::9"),
        ipaddress.ip_address("2001:db8::7"),
    }
    assert addresses._is_up("0x1003\n") and not addresses._is_up("0x1002") and addresses._is_up("")


@given(st.text())
def test_garbled_proc_tables_give_nothing_rather_than_fail(text: str) -> None:
    route = default_route(text)
    assert route is None or route[1].version == 4
    assert all(a.version == 6 for a in addresses._unstable_ipv6(text))


def test_this_machine_lists_something_usable() -> None:
    found = host_addresses()
    assert found and all(ipaddress.ip_address(a) for a in found)
