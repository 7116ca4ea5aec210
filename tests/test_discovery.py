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


def _heard(
    monkeypatch: pytest.MonkeyPatch, records: list[tuple[str, str, str, list[str]]], cached: bool = True
) -> None:
    """The LAN as zeroconf would show it: ``(instance, player name, fingerprint, addresses)``
    records, announced in this order, their details in the cache (else asked for)."""
    by_name = {instance: (name, fp, addresses) for instance, name, fp, addresses in records}

    class Browser:
        def __init__(self, zc: object, service: str, handlers: list[Any]) -> None:
            for instance, *_ in records:
                handlers[0](zeroconf=zc, service_type=service, name=f"{instance}.{service}",
                            state_change=ServiceStateChange.Added)  # fmt: skip

        async def async_cancel(self) -> None:
            pass

    class Info:
        def __init__(self, service: str, name: str) -> None:
            player, fp, self.addresses = by_name[name.removesuffix(f".{service}")]
            self.name, self.port = name, 47111
            self.announced = announced_properties(player, fp, TERMS)
            self.properties: dict[bytes, bytes] = self.announced if cached else {}

        def load_from_cache(self, zc: object) -> bool:
            return cached

        async def async_request(self, zc: object, timeout: int) -> bool:
            assert not cached, "a record already in the cache is not asked for"
            self.properties = self.announced
            return True

        def ip_addresses_by_version(self, version: object) -> list[Any]:
            return [ipaddress.ip_address(address) for address in self.addresses]

    class Zeroconf:
        def __init__(self, interfaces: object) -> None:
            self.zeroconf = self

        async def async_close(self) -> None:
            pass

    monkeypatch.setattr(discovery, "AsyncZeroconf", Zeroconf)
    monkeypatch.setattr(discovery, "AsyncServiceBrowser", Browser)
    monkeypatch.setattr(discovery, "AsyncServiceInfo", Info)


def test_an_announcement_listing_many_addresses_is_dialed_at_an_invites_worth_at_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Flaw: a fake announcement listing a thousand addresses made a joiner that chose it dial every
    one. The host found keeps the first 16 (an invite holds no more)."""
    addresses = [f"10.9.{n // 250}.{n % 250 + 1}" for n in range(1000)]
    _heard(monkeypatch, [("ann", "ann", FINGERPRINT, addresses)], cached=False)
    [found] = asyncio.run(discovery.browse(0)).found
    assert len(found.addresses) == 16 and len(found.invite().addresses) == 16
    assert found.addresses[0] == "10.9.0.1"


@pytest.mark.net
def test_looking_for_games_with_no_network_interface_says_so_in_one_line() -> None:
    """In a network namespace of its own (no interface up, not even loopback) zeroconf raises a
    RuntimeError, not an OSError: the person gets one line and status 1, never a traceback."""
    if (
        shutil.which("unshare") is None
        or subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode
    ):
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


# ------------------------------------------------------------------ hostile announcements (issue 19)

ANN = "ann3u3l6rypiweqlbeiso7l7oiwizoth"
EVE = "eve3u3l6rypiweqlbeiso7l7oiwizoth"


def test_a_spoofed_announcement_copying_a_real_hosts_key_does_not_hide_the_real_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Attack: eve announces ann's name and fingerprint at her own address, heard before ann's.
    One record was kept per fingerprint, the first heard: the joiner dialed only eve's address and
    met a key mismatch there, never ann. Now both addresses are dialed; only ann can answer under
    her key, so eve's costs one failed connection."""
    _heard(
        monkeypatch,
        [("trumps-eve", "ann", ANN, ["10.3.0.66"]), (f"trumps-{ANN[:16]}", "ann", ANN, ["10.3.0.10"])],
    )
    [found] = asyncio.run(discovery.browse(0)).found
    assert found.fingerprint == ANN and set(found.addresses) == {"10.3.0.10", "10.3.0.66"}
    assert found.addresses[0] == "10.3.0.10"  # the record under ann's own instance name first


def test_an_announcement_under_a_known_players_name_with_another_key_is_left_out_and_said(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Attack: eve announces "ann" with her own key, to a joiner who has played ann. It was listed
    beside the real ann as a second "ann" (the handshake would then refuse the changed key, loudly,
    but only after the joiner picked it). Now it is not offered, and the joiner is told."""
    _heard(
        monkeypatch,
        [("trumps-eve", "ann", EVE, ["10.3.0.66"]), (f"trumps-{ANN[:16]}", "ann", ANN, ["10.3.0.10"])],
    )
    browsed = asyncio.run(discovery.browse(0, known={"ann": ANN}))
    assert [(host.name, host.fingerprint) for host in browsed.found] == [("ann", ANN)]
    assert browsed.impostors == ["ann"]


def test_a_flood_of_announcements_never_hides_a_known_host_and_costs_bounded_work(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Attack: 5,000 valid-looking announcements before ann's. Only the first 32 names heard were
    looked at, so ann was never listed. Now a known host's own instance is always looked at and
    listed first; the names kept, the hosts listed and the requests sent stay bounded."""
    flood = [(f"trumps-fake{n}", f"p{n}", f"{n:0>8}".translate(str.maketrans("0123456789", "abcdefghij")) * 4,
              [f"10.3.{n // 250}.{n % 250 + 1}"]) for n in range(5000)]  # fmt: skip
    _heard(monkeypatch, [*flood, (f"trumps-{ANN[:16]}", "ann", ANN, ["10.3.0.10"])])
    browsed = asyncio.run(discovery.browse(0, known={"ann": ANN}))
    assert browsed.found[0].name == "ann" and browsed.found[0].addresses == ("10.3.0.10",)
    assert (
        len(browsed.found) == discovery.MAX_LISTED
        and browsed.more == discovery.MAX_HEARD - discovery.MAX_LISTED + 1
    )
