"""When the joiner dials which address of an invite (p2p/dialing.py), fed outcomes and a clock: a
restarted host is found again about a second after it listens, whatever its black-hole addresses do;
and over loopback, every address dialled, the one that answers kept, a silent one holding up nothing."""

from __future__ import annotations

import asyncio
import heapq
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2p.connect import REDIAL_CONNECT_TIMEOUT, _all_failed, join, listening_socket
from p2p.dialing import FAST_MAX, SLOW_MAX, DialPlan, Outcome
from p2p.errors import (
    ConnectionClosed,
    PeerTimeout,
)
from p2p.invite import Invite, new_secret
from tests.support.hosts import loopback_listener
from tests.support.peers import Side, accept_all, run

PUBLIC, LAN, V6 = ("11.0.0.1", 47111), ("10.1.0.10", 47111), ("2001:db8:1::a", 47111)
RTT = 0.05
"""A round trip to the host's router, in the simulations."""


def _back_after(plan: DialPlan, listening_at: float, limit: float = 400.0) -> float:
    """Seconds from the host listening again to the joiner's connection reaching it, simulated:
    the public address is refused (the router is there, the program is not) until ``listening_at``
    and then answers; the LAN address is a black hole (every attempt waits out the connect
    timeout); the IPv6 one has no route."""
    plan.start(0.0)
    ends: list[tuple[float, tuple[str, int], Outcome | None]] = []
    now = 0.0
    while now < limit:
        for address in plan.due(now):
            if address == PUBLIC:
                heapq.heappush(ends, (now + RTT, address, None if now >= listening_at else Outcome.REFUSED))
            elif address == LAN:
                heapq.heappush(ends, (now + REDIAL_CONNECT_TIMEOUT, address, Outcome.SILENT))
            else:
                heapq.heappush(ends, (now + RTT, address, Outcome.UNREACHABLE))
        wake = plan.wake_at()
        if ends and (wake is None or ends[0][0] <= wake):
            now, address, outcome = heapq.heappop(ends)
            if outcome is None:
                plan.succeeded(address)
                return now - listening_at
            plan.failed(address, now, outcome)
        else:
            assert wake is not None, "nothing due and nothing being dialed"
            now = wake
    raise AssertionError("never back")


@given(st.floats(0.0, 170.0), st.sampled_from([0.8, 1.0, 1.2]), st.booleans())
def test_a_restarted_host_is_reached_within_about_a_second_of_listening(
    listening_at: float, jitter: float, answered_before: bool
) -> None:
    """The invite as printed: public address, LAN address (a black hole from here), IPv6 (no
    route). Whether or not this joiner had reached the host by its public address before (a
    restarted joiner has not), that address is dialed again at least every 1.2 s."""
    plan = DialPlan((PUBLIC, LAN, V6), answered={PUBLIC} if answered_before else (), jitter=lambda: jitter)
    assert _back_after(plan, listening_at) <= FAST_MAX * 1.2 + 2 * RTT


def test_the_old_all_or_nothing_round_would_have_waited_for_the_black_hole() -> None:
    """What issue 21 measured (26 s): a round that ends only when every address has failed waits
    out the black hole's connect timeout each time. Here no address waits for another."""
    plan = DialPlan((LAN, PUBLIC), jitter=lambda: 1.0)
    plan.start(0.0)
    assert plan.due(0.0) == [LAN]
    assert plan.due(0.25) == [PUBLIC]  # the LAN attempt is still hanging: the next one goes anyway
    plan.failed(PUBLIC, 0.3, Outcome.REFUSED)
    assert plan.wake_at() == 0.55 and plan.due(0.55) == [PUBLIC]


def test_an_address_where_nothing_answers_backs_off_to_the_slow_limit() -> None:
    plan = DialPlan((LAN,), jitter=lambda: 1.0)
    plan.start(0.0)
    now, gaps = 0.0, []
    for _ in range(10):
        assert plan.due(now) == [LAN]
        plan.failed(LAN, now, Outcome.SILENT)
        wake = plan.wake_at()
        assert wake is not None
        gaps.append(wake - now)
        now = wake
    assert gaps[:3] == [0.25, 0.5, 1.0] and max(gaps) == SLOW_MAX


def test_an_address_that_led_to_the_host_is_never_left_more_than_the_fast_limit() -> None:
    plan = DialPlan((LAN, PUBLIC), answered={PUBLIC}, jitter=lambda: 1.0)
    plan.start(0.0)
    assert plan.due(0.0) == [PUBLIC]  # first, though the invite lists it second
    for outcome in (Outcome.SILENT, Outcome.UNREACHABLE, Outcome.SILENT, Outcome.SILENT):
        plan.failed(PUBLIC, 10.0, outcome)
        assert plan.wake_at() is not None
        assert PUBLIC in plan.due(10.0 + FAST_MAX)


def test_a_single_round_dials_each_address_once_the_next_at_once_after_a_failure() -> None:
    plan = DialPlan((PUBLIC, LAN, V6), once=True, stagger=0.25)
    plan.start(0.0)
    assert plan.due(0.0) == [PUBLIC] and plan.wake_at() == 0.25
    plan.failed(PUBLIC, 0.01, Outcome.REFUSED)
    assert plan.due(0.01) == [LAN] and plan.wake_at() == 0.26
    assert plan.due(0.26) == [V6] and plan.wake_at() is None and not plan.exhausted
    plan.failed(V6, 0.3, Outcome.UNREACHABLE)
    plan.failed(LAN, 10.01, Outcome.SILENT)
    assert plan.exhausted and plan.due(100.0) == []


def test_the_trouble_names_what_the_address_that_led_to_the_host_met() -> None:
    plan = DialPlan((LAN, PUBLIC), answered={PUBLIC})
    plan.start(0.0)
    assert plan.trouble("ann") is None
    plan.due(1.0)
    plan.failed(LAN, 1.0, Outcome.SILENT)
    assert str(plan.trouble("ann")) == "no answer from 10.1.0.10:47111"
    plan.failed(PUBLIC, 1.0, Outcome.REFUSED)
    trouble = str(plan.trouble("ann"))
    assert trouble.startswith("11.0.0.1:47111 refuses connections") and "ann's program" in trouble
    plan.failed(PUBLIC, 2.0, Outcome.SPOKE, "the connection closed")
    assert "the handshake did not complete (the connection closed)" in str(plan.trouble("ann"))


def test_every_address_failing_is_one_line_with_ipv6_in_brackets() -> None:
    error = _all_failed([(V6, PeerTimeout("no answer")), (LAN, ConnectionClosed("refused"))])
    assert str(error) == (
        "no address of the invite answered ([2001:db8:1::a]:47111: no answer; 10.1.0.10:47111: refused)"
    )


@pytest.mark.net
def test_the_joiner_dials_every_address_and_keeps_the_one_that_answers(tmp_path: Path) -> None:
    """The invite's list: the first address is dead (nothing listens there), the second is the host."""
    bob = Side.make(tmp_path, "bob")
    dead = listening_socket("127.0.0.1", 0)
    dead_port = dead.getsockname()[1]
    dead.close()

    async def scenario() -> tuple[str, str]:
        _, listener, port = loopback_listener(tmp_path)
        async with listener:
            invite = listener.invite([("127.0.0.1", dead_port), ("127.0.0.1", port)])
            channel, session = await join(invite, bob.me, "bob", bob.known, accept_all)
            host_channel, host_session = await listener.first()
            await channel.close()
            await host_channel.close()
            return session.code, host_session.code

    mine, theirs = run(scenario())
    assert mine == theirs


@pytest.mark.net
def test_when_every_address_fails_one_line_names_each(tmp_path: Path) -> None:
    bob = Side.make(tmp_path, "bob")
    ports = []
    for _ in range(2):
        dead = listening_socket("127.0.0.1", 0)
        ports.append(dead.getsockname()[1])
        dead.close()
    invite = Invite(tuple(("127.0.0.1", port) for port in ports), bob.me.fingerprint, new_secret())
    with pytest.raises(ConnectionClosed, match="no address of the invite answered") as failed:
        run(join(invite, bob.me, "bob", bob.known, accept_all, stagger=0.05))
    assert all(f"127.0.0.1:{port}" in str(failed.value) for port in ports) and "\n" not in str(failed.value)


@pytest.mark.net
def test_a_silent_first_address_does_not_hold_up_the_second(tmp_path: Path) -> None:
    """The first address accepts and says nothing (a wrong machine, a black hole): the second is
    dialled 50 ms later without waiting for the first to time out, and wins."""
    bob = Side.make(tmp_path, "bob")

    async def scenario() -> float:
        silent = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        _, listener, port = loopback_listener(tmp_path)
        async with listener:
            invite = listener.invite([("127.0.0.1", silent.sockets[0].getsockname()[1]), ("127.0.0.1", port)])
            start = time.monotonic()
            channel, _ = await join(invite, bob.me, "bob", bob.known, accept_all, stagger=0.05)
            took = time.monotonic() - start
            host_channel, _ = await listener.first()
            await channel.close()
            await host_channel.close()
        silent.close()
        return took

    assert run(scenario()) < 5.0  # far below the 30 s the silent address would take to time out
