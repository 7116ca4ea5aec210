"""A cryptographer's attacks on the handshake, the signed chain and the records: each a hostile
peer speaking the protocol and deviating at one point (docs/protocol.md cites each where it argues
the claim the attack tests)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine import Rules
from p2p.admission import MAX_LAN_OFFERS
from p2p.channel import Channel
from p2p.connect import Listener, listening_socket, perform
from p2p.errors import P2PError
from p2p.handshake import LAN_SECRET, JoinerHandshake, Terms
from p2p.messages import Offer
from tests.test_p2p_helpers import Side, run

TERMS = Terms(Rules(), 2)


async def _never_asked(name: str, address: str, code: str) -> bool:
    raise AssertionError("the attacker never confirms, so the host's person is never asked")


async def _code_of_one_offer(port: int, source: str, mallory: Side, fingerprint: str) -> str | None:
    """Mallory knocks with the empty secret, reads the host's offer and works out the code the
    host's screen would show for this session, alone: the secret is public and the nonce its own.
    It sends nothing more and hangs up; ``None`` if the host gave it no offer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    channel = Channel(reader, writer)
    machine = JoinerHandshake(mallory.me, "bob", fingerprint, LAN_SECRET, mallory.known)
    try:
        await perform(channel, machine.start())
        offer = await channel.recv(5)
        if not isinstance(offer, Offer):
            return None
        machine.offered(offer)
        machine.accept()  # computed here, none of it sent
        return machine.code
    except P2PError:
        return None
    finally:
        channel.abort()


def test_a_lan_relay_cannot_grind_the_hosts_code_for_free(tmp_path: Path) -> None:
    """Flaw: docs/protocol.md ("The LAN knock") argued that a relay's every retry at matching the
    joiner's code costs one of the host's few questions. But the code of a session is known to its
    joiner as soon as the host's offer is in (the LAN secret is public, the nonce the joiner's own,
    ``T1`` the offer), and the host asks its person only after the joiner confirms. Mallory,
    relaying bob to a fake "ann", knows bob's code once bob confirms; then it knocks at the real
    ann again and again, reading each offer's code and hanging up, until one equals bob's: only
    that session is confirmed and put to ann's person, whose screen then shows bob's code. Nothing
    bounded the tries (each a fresh connection after the last: never more than one pending), so
    about 10⁶ handshakes, minutes of the host's time while bob waits up to 600 s, matched the
    codes. Now each offer to a LAN knock costs one of :data:`MAX_LAN_OFFERS` for the whole
    ``trumps host`` run (16 a source), so a relay matches the codes with probability at most
    64 in 10⁶. Check: ``Approvals.offered`` in ``Listener._flown``."""
    mallory = Side.make(tmp_path, "mallory")
    tries = MAX_LAN_OFFERS + 32

    async def scenario() -> list[str | None]:
        ann = Side.make(tmp_path, "ann")
        sock = listening_socket("127.0.0.1", 0)
        port = sock.getsockname()[1]
        async with Listener(sock, ann.me, "ann", TERMS, ann.known, approve=_never_asked):
            return [
                await _code_of_one_offer(port, f"127.0.3.{n % 8 + 1}", mallory, ann.me.fingerprint)
                for n in range(tries)
            ]

    codes = run(scenario())
    learnt = [code for code in codes if code is not None]
    assert len(learnt) == MAX_LAN_OFFERS  # before: every one of the tries, each a fresh code
