"""The host's reception of connections, fed in-memory lines (no sockets): hostile joiners holding
the invite secret, bounded in number and in time once a match is on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from engine import Rules
from p2p.admission import MAX_PER_SOURCE
from p2p.channel import Channel
from p2p.errors import ConnectionClosed, P2PError, PeerTimeout
from p2p.handshake import JoinerHandshake, Session, Terms
from p2p.identity import Peers
from p2p.invite import new_secret
from p2p.messages import Offer
from p2p.reception import Reception, perform
from tests.support.clock import run_in_virtual_time
from tests.support.handshakes import identity
from tests.support.peers import Serving, Side, memory_connection, memory_pair, reception_of, run

TERMS = Terms(Rules(), 1)


async def _bound(ann: Side, bob: Side, reception: Reception) -> Session:
    """Bob's match with ann is on: the reception is bound to it, as the listener binds its winner."""
    pair = await memory_pair(ann, bob, TERMS)
    reception.bind(pair.host_session, lan=False)
    return pair.host_session


async def _proven_flight(
    reception: Reception, secret: bytes, refusals: list[P2PError], served: list[Serving]
) -> Channel:
    """A connection that proves the secret under bob's name and never accepts (it gets the offer):
    what a holder of the invite (the opponent, say) opens to exhaust the host."""
    serving, channel = memory_connection(reception, lambda address, error: refusals.append(error))
    served.append(serving)
    machine = JoinerHandshake(identity(), "bob", reception.me.fingerprint, secret, Peers())
    await perform(channel, machine.start())
    return channel


async def _ended(served: list[Serving]) -> None:
    for task in served:
        task.cancel()
    await asyncio.gather(*served, return_exceptions=True)


def test_proven_flights_that_never_accept_are_dropped_beyond_their_share(tmp_path: Path) -> None:
    """Issue 19, flaw 3: each proven first flight that never sent its accept was kept (never
    evicted) for up to 600 s, so the holder of the invite could open them until the host ran out of
    descriptors. Now a source's newest replaces its oldest: twenty from one source leave its
    share open, the rest closed at once with no answer."""
    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
    secret, refusals = new_secret(), list[P2PError]()

    async def scenario() -> tuple[int, int]:
        reception, served = reception_of(ann, secret, TERMS), list[Serving]()
        await _bound(ann, bob, reception)
        channels = [await _proven_flight(reception, secret, refusals, served) for _ in range(20)]
        still_open = 0
        for channel in channels:
            assert isinstance(await channel.recv(1), Offer)  # bob's name gets one
            try:
                await channel.recv(0.01)
            except PeerTimeout:  # still waiting for its accept
                still_open += 1
            except ConnectionClosed:  # dropped for a newer one
                pass
        held = len(reception.admission)
        await _ended(served)
        return still_open, held

    still_open, held = run(scenario())
    assert still_open == held == MAX_PER_SOURCE


@pytest.mark.parametrize(("bound", "limit"), [(True, 30.0), (False, 600.0)])
def test_once_the_match_is_on_a_proven_flight_may_take_30_s_to_accept_not_600(
    tmp_path: Path, bound: bool, limit: float
) -> None:
    """Before a match the joiner's person reads the rules (600 s); once one is on, only its joiner
    gets in, and its redial decides at once: a proven first flight that never accepts is closed
    after 30 s instead of holding a descriptor for ten minutes."""
    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
    secret, refusals = new_secret(), list[P2PError]()

    async def scenario() -> float:
        reception = reception_of(ann, secret, TERMS)
        if bound:
            await _bound(ann, bob, reception)
        start, served = asyncio.get_running_loop().time(), list[Serving]()
        await _proven_flight(reception, secret, refusals, served)
        while not refusals:
            await asyncio.sleep(1)
        await _ended(served)
        return asyncio.get_running_loop().time() - start

    _, waited = run_in_virtual_time(scenario(), horizon=2 * limit)
    assert isinstance(refusals[0], PeerTimeout) and limit <= waited < limit + 1.5
