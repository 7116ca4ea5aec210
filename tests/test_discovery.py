"""What a host announces on the LAN, and how announcements heard there are checked (hostile input)."""

from __future__ import annotations

import asyncio
import ipaddress
import os
import shutil
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from zeroconf import ServiceStateChange

from engine import Rules
from p2p import discovery
from p2p.discovery import DiscoveryError, FoundHost, announced_properties, read_properties
from p2p.handshake import LAN_SECRET, Terms
from p2p.invite import Invite

FINGERPRINT = "7j33u3l6rypiweqlbeiso7l7oiwizoth"
TERMS = Terms(Rules(pickup="voluntary", sixes=False), 5)


def test_an_announcement_carries_name_key_and_terms_and_reads_back() -> None:
    properties = announced_properties("Ганна", FINGERPRINT, TERMS)
    assert set(properties) == {b"name", b"fp", b"games", b"rules"}  # nothing secret, nothing more
    assert read_properties(properties) == ("Ганна", FINGERPRINT, TERMS)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        (b"name", b""),
        (b"name", b"x" * 33),
        (b"name", b"ann\x1b[2J"),  # a terminal escape in the name
        (b"name", b"\xff\xfe"),
        (b"name", None),
        (b"fp", b"7J33U3L6RYPIWEQLBEISO7L7OIWIZOTH"),
        (b"fp", FINGERPRINT[:31].encode()),
        (b"games", b"0"),
        (b"games", b"100"),
        (b"games", b"\xd9\xa3"),  # an Arabic-Indic digit three
        (b"rules", b"pickup=sometimes"),
        (b"rules", None),
    ],
)
def test_a_bad_field_makes_the_whole_announcement_unusable(field: bytes, value: bytes | None) -> None:
    properties: dict[bytes, bytes | None] = dict(announced_properties("ann", FINGERPRINT, TERMS))
    properties[field] = value
    with pytest.raises(DiscoveryError):
        read_properties(properties)


@given(
    st.dictionaries(
        st.sampled_from([b"name", b"fp", b"games", b"rules", b"x"]), st.none() | st.binary(max_size=80)
    )
)
def test_any_txt_record_is_a_host_or_a_discovery_error(properties: dict[bytes, bytes | None]) -> None:
    try:
        name, fingerprint, terms = read_properties(properties)
    except DiscoveryError:
        return
    assert name.isprintable() and len(fingerprint) == 32 and 1 <= terms.games <= 99


def test_a_found_host_is_an_invite_without_a_secret() -> None:
    found = FoundHost("ann", FINGERPRINT, TERMS, ("10.3.0.10", "2001:db8:3::a"), 47111)
    invite = found.invite()
    assert invite == Invite((("10.3.0.10", 47111), ("2001:db8:3::a", 47111)), FINGERPRINT, LAN_SECRET)
    assert invite.secret == b""  # the announcement never had one: the host's person decides


def test_an_announcement_listing_many_addresses_is_dialed_at_an_invites_worth_at_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Flaw: a fake announcement listing a thousand addresses made a joiner that chose it dial every
    one. The host found keeps the first 16 (an invite holds no more)."""
    addresses = [ipaddress.ip_address(f"10.9.{n // 250}.{n % 250 + 1}") for n in range(1000)]

    class Browser:
        def __init__(self, zc: object, service: str, handlers: list[Any]) -> None:
            handlers[0](zeroconf=zc, service_type=service, name="ann." + service, state_change=ServiceStateChange.Added)

        async def async_cancel(self) -> None:
            pass

    class Info:
        def __init__(self, service: str, name: str) -> None:
            self.properties, self.port = announced_properties("ann", FINGERPRINT, TERMS), 47111

        async def async_request(self, zc: object, timeout: int) -> bool:
            return True

        def ip_addresses_by_version(self, version: object) -> list[Any]:
            return addresses

    class Zeroconf:
        def __init__(self, interfaces: object) -> None:
            self.zeroconf = self

        async def async_close(self) -> None:
            pass

    monkeypatch.setattr(discovery, "AsyncZeroconf", Zeroconf)
    monkeypatch.setattr(discovery, "AsyncServiceBrowser", Browser)
    monkeypatch.setattr(discovery, "AsyncServiceInfo", Info)
    [found] = asyncio.run(discovery.browse(0))
    assert len(found.addresses) == 16 and len(found.invite().addresses) == 16
    assert found.addresses[0] == "10.9.0.1"


@pytest.mark.net
def test_looking_for_games_with_no_network_interface_says_so_in_one_line() -> None:
    """In a network namespace of its own (no interface up, not even loopback) zeroconf raises a
    RuntimeError, not an OSError: the person gets one line and status 1, never a traceback."""
    if shutil.which("unshare") is None or subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode:
        pytest.skip("no network namespace of its own here (unshare -n needs root)")
    found = subprocess.run(
        ["unshare", "-n", sys.executable, "-m", "cli", "join", "--name", "bob", "--bot", "easy"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ,
    )
    lines = found.stderr.splitlines()
    assert found.returncode == 1 and "Traceback" not in found.stderr
    assert lines[-1].startswith("trumps join: cannot look for hosts on the local network (")
