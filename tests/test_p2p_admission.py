"""Admission and refusal reports, as pure decisions fed keys, sources and a fake clock (no sockets):
floods from one address, one network or many never evict the friend nor take its reserved slot."""

from __future__ import annotations

from collections.abc import Callable, Hashable

import pytest

from p2p.admission import MAX_ARRIVING, Admission, RefusalLog, source_of


def _pending(admission: Admission, key: str | int, source: str) -> list[Hashable] | None:
    """A LAN knock from ``source``: it arrives, and its first flight is read without the secret."""
    admission.arrive(key, source)
    return admission.flown(key, proven=False)


def test_a_source_gets_its_share_of_pending_handshakes_and_no_more() -> None:
    admission = Admission(max_pending=16, max_per_source=4)
    assert [_pending(admission, i, "192.0.2.1") for i in range(4)] == [[], [], [], []]
    assert _pending(admission, 4, "192.0.2.1") is None  # refused: the others' slots stay free
    assert _pending(admission, 5, "192.0.2.2") == []


def test_a_full_pool_drops_its_oldest_unproven_handshake_never_a_proven_one() -> None:
    admission = Admission(max_pending=3, max_per_source=2)
    admission.arrive("bob", "198.51.100.7")
    admission.flown("bob", proven=True)  # bob's knock proved the invite secret: he is reading the rules
    for i in range(3):
        _pending(admission, i, f"192.0.2.{10 + i}")
    assert _pending(admission, 3, "192.0.2.2") == [0]
    assert _pending(admission, 4, "192.0.2.3") == [1]
    assert "bob" in admission and len(admission) == 4


def test_the_playing_peers_source_has_a_reserved_slot() -> None:
    """Another program behind the same address (or a flood from it) cannot keep the peer out: its
    newest connection replaces its oldest unproven one instead of being refused."""
    admission = Admission(max_pending=4, max_per_source=2, reserved="203.0.113.9")
    assert _pending(admission, "a", "203.0.113.9") == []
    assert _pending(admission, "b", "203.0.113.9") == []
    assert _pending(admission, "back", "203.0.113.9") == ["a"]
    for i in range(4):
        _pending(admission, i, f"192.0.2.{i}")
    assert "back" in admission  # the pool made room from elsewhere


def test_a_source_beyond_its_share_of_first_flight_slots_replaces_its_own_oldest() -> None:
    """Before its first flight is read nothing is known of a connection, so a source's newest
    one takes its own oldest one's slot: sharing an address with a flooder costs the friend only
    the flooder's rate, never a refusal, and nobody else's slot."""
    admission = Admission(max_arriving=8, max_per_source=2)
    assert admission.arrive("other", "192.0.2.9") == []
    assert [admission.arrive(i, "192.0.2.1") for i in range(5)] == [[], [], [0], [1], [2]]
    assert "other" in admission and admission.arriving == 3


def test_full_first_flight_slots_drop_the_busiest_networks_oldest_and_nothing_later() -> None:
    admission = Admission(max_arriving=4, max_pending=4, max_per_source=2)
    _pending(admission, "lan", "198.51.100.1")
    admission.arrive("bob", "198.51.100.2")
    admission.flown("bob", proven=True)
    for i in range(4):
        admission.arrive(i, f"192.0.2.{i}")  # one /24
    assert admission.arrive("friend", "203.0.113.5") == [0]
    assert admission.arrive("next", "203.0.113.6") == [1]  # still the /24 holding the most
    assert all(key in admission for key in ("lan", "bob", "friend", "next"))
    assert admission.flown(0, proven=True) is None  # dropped meanwhile: its late flight gets nothing


def test_ipv6_sources_are_counted_per_64_and_mapped_ipv4_as_ipv4() -> None:
    assert source_of("2001:db8:1:2::5") == source_of("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert source_of("::ffff:192.0.2.7") == "192.0.2.7"


def test_refusals_are_reported_at_most_once_a_second_with_a_count() -> None:
    log = RefusalLog(interval=1.0)
    lines = [log.note(now / 100, "192.0.2.1:5", "garbage") for now in range(250)]  # 100 a second
    shown = [line for line in lines if line is not None]
    assert len(shown) == 3
    assert str(shown[0]) == "refused a connection from 192.0.2.1:5: garbage"
    assert str(shown[1]).endswith("(and 99 more before it)")


def test_refusals_held_back_are_counted_in_a_later_line() -> None:
    log = RefusalLog(interval=1.0)
    assert log.note(0.0, "192.0.2.1:5", "garbage") is not None
    assert log.note(0.1, "192.0.2.1:6", "garbage") is None
    assert log.held(0.5) is None  # not yet: at most one line a second
    assert str(log.held(1.1)) == "refused 1 more connection"
    assert log.held(5.0) is None  # nothing left to tell


def test_a_stage_holds_more_than_one_sources_share() -> None:
    """So a full stage always holds someone else than the reserved source, whom it drops instead:
    sizes where the reserved source alone could fill a stage are refused."""
    too_small: tuple[Callable[[], Admission], ...] = (
        lambda: Admission(max_per_source=4, max_arriving=4),
        lambda: Admission(max_per_source=4, max_pending=4),
        lambda: Admission(max_per_source=4, max_pending=3),
    )
    for make in too_small:
        with pytest.raises(ValueError):
            make()
    admission = Admission(max_pending=3, max_per_source=2, reserved="203.0.113.9")
    assert [_pending(admission, i, "203.0.113.9") for i in range(3)] == [[], [], [0]]  # its own oldest
    assert _pending(admission, "x", "192.0.2.1") == []
    assert _pending(admission, "y", "192.0.2.2") == ["x"]  # full: never the reserved source's


def _proven(admission: Admission, key: str | int, source: str) -> list[Hashable] | None:
    """A knock that proved the invite secret from ``source``: it arrives, and its first flight is read."""
    admission.arrive(key, source)
    return admission.flown(key, proven=True)


def test_proven_first_flights_that_never_accept_are_bounded_per_source_and_in_all() -> None:
    """Issue 19, flaw 3: whoever holds the invite secret (the opponent, or anyone it was forwarded
    to) opened proven first flights that never send the accept, each kept 600 s and never evicted,
    until the host ran out of descriptors. Now a source's newest proven one replaces its own
    oldest, and a full stage drops the busiest network's oldest: a bounded count, whatever the pace."""
    admission = Admission(max_proven=8, max_per_source=4)
    assert [_proven(admission, i, "192.0.2.1") for i in range(6)] == [[], [], [], [], [0], [1]]
    for i in range(20):
        _proven(admission, f"n{i}", f"198.51.{i}.1")  # one per /24: the oldest of the busiest goes
    assert len(admission) == 8
    assert _proven(admission, "friend", "203.0.113.5") is not None and "friend" in admission
    assert len(admission) == 8


def test_the_playing_joiners_source_keeps_its_proven_handshake_against_a_flood() -> None:
    """The reserved source (the playing joiner's last) is never the one a full stage drops for
    another source's proven knock: a flood from elsewhere churns only itself."""
    admission = Admission(max_proven=4, max_per_source=2, reserved="203.0.113.9")
    assert _proven(admission, "back", "203.0.113.9") == []
    for i in range(30):
        _proven(admission, i, f"10.{i}.0.1")
    assert "back" in admission and len(admission) == 4


@pytest.mark.parametrize(
    ("address", "source"),
    [
        ("2001:DB8:0:1::5", "2001:db8:0:1::/64"),
        ("2001:db8:0:1:ffff:ffff:ffff:ffff", "2001:db8:0:1::/64"),
        ("fe80::1%eth0", "fe80::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("0:0:0:0:0:ffff:c000:0207", "192.0.2.7"),
    ],
)
def test_one_source_however_its_address_is_written(address: str, source: str) -> None:
    """A flooder varying the interface half of its /64 or writing its IPv4 address mapped into
    IPv6 stays one source. Check: :func:`source_of` (the /64, ``ipv4_mapped``)."""
    assert source_of(address) == source


def test_a_flood_from_other_sources_never_takes_the_reserved_slot() -> None:
    """The playing joiner's source keeps its slot while strangers from many /64s fill the pool again
    and again, in either stage. Check: ``_Stage.room`` drops the oldest *not* from the reserved source."""
    back = source_of("2001:db8:0:1::5")
    admission = Admission(reserved=back, max_arriving=16)
    assert admission.arrive("bob", back) == []
    assert admission.arrive("lan-bob", back) == [] and admission.flown("lan-bob", proven=False) == []
    for n in range(201):
        stranger = source_of(f"2001:db8:1:{n}::9")
        admission.arrive(n, stranger)
        if n % 2:  # half of them LAN knocks, pending
            assert admission.flown(n, proven=False) is not None
    assert "bob" in admission and "lan-bob" in admission
    assert admission.arriving == 16 and len(admission) == 32


def test_a_burst_from_four_addresses_cannot_evict_the_friend_before_its_knock_is_read() -> None:
    """Flaw: the friend's connection is unproven until its knock has been read, one event-loop turn
    or a round trip after it was accepted. 16 connections from just 4 addresses arriving meanwhile
    (one accept batch) dropped it, the oldest unproven one, so a sustained flood from 4 machines kept
    the friend out. Now each source beyond its share replaces its own oldest first-flight slot."""
    admission = Admission()
    admission.arrive("friend", source_of("198.51.100.7"))
    for n in range(64):
        admission.arrive(n, source_of(f"192.0.2.{n % 4}"))
    assert "friend" in admission and admission.arriving == 17


@pytest.mark.parametrize(
    ("friend", "flood"),
    [("2001:db8:9::7", "2001:db8:1:{n:x}::9"), ("198.51.100.7", "192.0.2.{n}")],
    ids=["64s-of-one-48", "addresses-of-one-24"],
)
def test_a_burst_from_many_addresses_of_one_network_cannot_evict_the_friend(friend: str, flood: str) -> None:
    """The burst above, from 64 /64s of one /48 (or 64 addresses of one IPv4 /24), which one hosting
    account holds: each /64 is its own source (its own share), but the pool makes room out of the
    network holding the most. Check: :func:`p2p.admission.network_of` in ``Admission.arrive``."""
    admission = Admission(max_arriving=16)
    admission.arrive("friend", source_of(friend))
    for n in range(64):
        admission.arrive(n, source_of(flood.format(n=n)))
    assert "friend" in admission and len(admission) == 16


def test_a_flood_from_many_networks_cannot_evict_the_friend_before_its_knock_is_read() -> None:
    """Flaw: the pool of 16 unproven handshakes counted a connection from its accept, before its
    first flight (hello + knock) was read. A flood from 16 networks or more (one connection each,
    so no network holds more than the friend's) then dropped the oldest: 16 arrivals between the
    friend's accept and the reading of its knock evicted it, whatever its proof."""
    admission = Admission()
    admission.arrive("friend", source_of("198.51.100.7"))
    for n in range(40):
        admission.arrive(n, source_of(f"10.{n}.0.1"))  # 40 /24s, one connection each
    assert "friend" in admission
    assert admission.flown("friend", proven=True) == []  # its knock proved the secret
    for n in range(40, 1040):
        admission.arrive(n, source_of(f"10.{n // 256}.{n % 256}.1"))
    assert "friend" in admission and admission.arriving == MAX_ARRIVING  # bounded, and it stays
