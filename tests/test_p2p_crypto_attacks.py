"""A cryptographer's attacks on the handshake, the signed chain and the records: each a hostile
peer speaking the protocol and deviating at one point (the table "Claims and their tests" of
docs/protocol-rationale.md names each with the claim it tests)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from engine import Rules
from p2p.admission import MAX_LAN_OFFERS, Approvals
from p2p.channel import Channel
from p2p.connect import Listener, listening_socket
from p2p.crypto import mac, tagged_hash
from p2p.errors import BadHandshakeSignature, BadSignature, P2PError, RevealMismatch
from p2p.fairdeal import Pledge
from p2p.handshake import (
    LAN_SECRET,
    HostHandshake,
    JoinerHandshake,
    Send,
    SessionKeys,
    Terms,
    knock_proof,
    transcript,
)
from p2p.invite import new_secret
from p2p.match import Match, rematch_root
from p2p.messages import PROTOCOL, Accept, Commit, Confirm, Hello, Knock, Offer, Reveal, parse, to_json
from p2p.reception import perform
from p2p.wire import decode, encode
from tests.support.handshakes import sent
from tests.support.peers import Side, run
from tests.test_p2p_handshake import Pair

TERMS = Terms(Rules(), 2)


async def _never_asked(name: str, address: str, code: str) -> bool:
    raise AssertionError("the attacker never confirms, so the host's person is never asked")


async def _code_of_one_offer(port: int, source: str, mallory: Side, fingerprint: str) -> str | None:
    """Mallory knocks with the empty secret, reads the host's offer and works out the code the
    host's screen would show for this session, alone: the secret is public and the nonce its own.
    It sends nothing more and hangs up; ``None`` if the host gave it no offer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    channel = Channel(reader, writer)
    machine = JoinerHandshake(mallory.me, "bob", fingerprint, LAN_SECRET, mallory.known.peers())
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


@pytest.mark.net
def test_a_lan_relay_cannot_grind_the_hosts_code_for_free(tmp_path: Path) -> None:
    """Flaw: docs/protocol.md ("The LAN knock", now docs/protocol-rationale.md) argued that a relay's every retry at matching the
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


NEUTRAL = bytes([1]) + bytes(31)
"""The neutral point of Ed25519 as a public key: ``[S]B = R + [k]A`` holds for ``R`` the neutral
point and ``S = 0`` whatever ``k``, so :data:`UNIVERSAL` verifies under it for every message."""
UNIVERSAL = NEUTRAL + bytes(32)
SMALL_ORDER = [
    bytes.fromhex(h[:-2]) + bytes([int(h[-2:], 16) | sign])
    for h in (
        "00" * 32,
        NEUTRAL.hex(),
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "ec" + "ff" * 30 + "7f",
        "ed" + "ff" * 30 + "7f",
        "ee" + "ff" * 30 + "7f",
    )
    for sign in (0, 0x80)
]
"""The 8 points of small order in all 14 of their encodings (the sign bit set or not), the last
two rows non-canonical (y = p and p + 1): under each, :data:`UNIVERSAL` verifies for one message
in at most 8."""


def test_a_joiner_with_a_small_order_key_signs_nothing(tmp_path: Path) -> None:
    """Flaw: Ed25519 as OpenSSL (under ``cryptography``) checks it accepts a public key of small
    order, and under the neutral point the same 64 bytes verify every message. Eve, with no
    private key at all, joined with that key and the one "signature" for her accept: the host
    confirmed her and would bind "eve" to a key anyone can sign for, so anyone with the secret
    could come back as eve, resume her match and sign her links, and none of her signatures
    proved anything (docs/protocol.md: "both identities proven", "undeniable statement"). Now a
    key of small order, in any encoding, verifies no signature. Check: ``small_order`` in
    ``p2p.crypto.signature_ok``."""
    secret = new_secret()
    ann = Side.make(tmp_path, "ann")
    host = HostHandshake(ann.me, "ann", TERMS, secret)
    eph = X25519PrivateKey.generate()
    hello = Hello(
        proto=PROTOCOL,
        program="eve",
        name="eve",
        eph=eph.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw),
    )
    nonce = os.urandom(32)
    commit = tagged_hash("code-nonce", nonce)
    knock = Knock(proof=knock_proof(secret, hello, commit), commit=commit)
    assert host.receive(hello) == []
    (offer,) = [action.message for action in host.receive(knock) if isinstance(action, Send)]
    assert isinstance(offer, Offer)
    accept = Accept(key=NEUTRAL, sig=UNIVERSAL)
    digest = transcript(hello, knock, offer, accept)
    keys = SessionKeys.derive(eph.exchange(X25519PublicKey.from_public_bytes(offer.eph)), secret, digest)
    confirm = Confirm(nonce=nonce, mac=mac(keys.joiner_confirm, "confirm", digest, nonce))
    with pytest.raises(BadHandshakeSignature):  # before: sealed, then confirmed by the next line
        host.receive(accept)
        host.receive(confirm)
    assert host.session is None


@pytest.mark.parametrize("weak", SMALL_ORDER, ids=[key.hex()[:4] + key.hex()[-2:] for key in SMALL_ORDER])
def test_no_small_order_key_lets_a_player_sign_links_without_a_private_key(weak: bytes) -> None:
    """Player 0's key is a point of small order; with no private key it grinds its commitment
    until :data:`UNIVERSAL` verifies over the link (one try in at most 8: checked with the
    library itself), which the match took as player 0's signed commit. Now it is a bad signature."""
    bob = Ed25519PrivateKey.generate().public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    match = Match(bytes(32), (weak, bob), Rules(), 1)
    forged = None
    for attempt in range(256):
        unsigned = Commit(game=1, commitment=tagged_hash("grind", bytes([attempt])), sig=UNIVERSAL)
        digest = tagged_hash("link", match.transcript, encode(unsigned.body()))
        with contextlib.suppress(InvalidSignature):
            Ed25519PublicKey.from_public_bytes(weak).verify(UNIVERSAL, tagged_hash("link-sig", digest))
            forged = unsigned
            break
    assert forged is not None  # the library takes the forgery: only the protocol can refuse it
    with pytest.raises(BadSignature):
        match.apply(forged, 0)
    assert not match.links


def test_a_signature_has_one_encoding_only() -> None:
    """The claim (docs/protocol.md, "Byte conventions"): a signature's ``S`` plus the group order
    ``L`` is the same equation mod ``L``, a second encoding of the same signature; it is refused,
    so no link, final or claim has two wire forms that both verify (a record's "copy of a link
    already held" is a copy byte for byte)."""
    ann = Ed25519PrivateKey.generate()
    keys = (ann.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw), NEUTRAL)
    match = Match(bytes(32), keys, Rules(), 1)
    signed = match.sign(ann, Commit(game=1, commitment=bytes(32), sig=b""))
    order = 2**252 + 27742317777372353535851937790883648493
    s = int.from_bytes(signed.sig[32:], "little") + order
    malleated = signed.with_sig(signed.sig[:32] + s.to_bytes(32, "little"))
    with pytest.raises(BadSignature):
        Match(bytes(32), keys, Rules(), 1).apply(malleated, 0)
    Match(bytes(32), keys, Rules(), 1).apply(signed.with_sig(bytes(signed.sig)), 0)  # the original does


def test_a_first_flight_recorded_before_a_host_restart_gets_an_offer_and_no_further(tmp_path: Path) -> None:
    """A restarted host continuing its saved match proves the same invite secret (the invite is
    in its saved state) but keeps no ephemeral keys of the knocks of its run before the restart:
    a whole handshake of the joiner's, recorded then, replayed to the new run, gets an offer
    again (and, proven, a handshake slot until the accept's deadline; docs/protocol-rationale.md, "Why a
    stranger gets nothing"). It goes no further: the new offer has a fresh ``eph``, so the
    recorded accept signed another ``S``, and nothing is bound."""
    pair = Pair(tmp_path)
    flight = sent(pair.joiner.start())
    for message in flight:
        pair.host.receive(message)
    assert pair.host.offer is not None
    pair.joiner.offered(pair.host.offer)
    accept, confirm = sent(pair.joiner.accept())
    restarted = HostHandshake(pair.ann, "ann", TERMS, pair.secret)  # same invite, no knocks kept
    assert restarted.receive(flight[0]) == []
    assert sent(restarted.receive(flight[1])) and restarted.proven  # the offer, again
    with pytest.raises(BadHandshakeSignature):
        restarted.receive(accept)
    assert restarted.session is None and restarted.offer is not None
    assert restarted.offer.eph != pair.host.offer.eph and isinstance(confirm, Confirm)


def _str8(text: str) -> bytes:
    return b"\xd9" + bytes([len(text)]) + text.encode()


def test_another_encoding_of_a_link_is_the_same_link_on_both_sides() -> None:
    """Encoding ambiguity (docs/protocol.md, "Byte conventions"): msgpack has many encodings of one
    map. A peer sends its signed commit with the keys in another order, every string as str8, the
    game number as a uint32 and the bytes as bin16 and bin32: the receiver takes the message it
    parsed and hashes it encoded again canonically, never the bytes that came, so its chain is
    the sender's (had it hashed the bytes, the two chains would have split here)."""
    ann = Ed25519PrivateKey.generate()
    keys = (ann.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw), bytes([9]) * 32)
    sender, receiver = Match(bytes(32), keys, Rules(), 1), Match(bytes(32), keys, Rules(), 1)
    signed = sender.sign(ann, Commit(game=1, commitment=tagged_hash("pledge"), sig=b""))
    sender.apply(signed, 0)
    payload = (
        b"\x84"
        + _str8("sig")
        + b"\xc6\x00\x00\x00\x40"
        + signed.sig
        + _str8("commitment")
        + b"\xc5\x00\x20"
        + signed.commitment
        + _str8("game")
        + b"\xce\x00\x00\x00\x01"
        + _str8("t")
        + _str8("commit")
    )
    assert payload != encode(signed.to_wire())
    heard = parse(decode(payload))
    assert isinstance(heard, Commit)
    receiver.apply(heard, 0)
    assert receiver.transcript == sender.transcript and to_json(heard) == to_json(signed)


def test_the_joiner_of_the_last_lan_offer_is_still_asked() -> None:
    """The bound on offers (above) must not take the question from the joiner that got the last
    offer: its offer is counted already when it confirms and its question opens."""
    approvals = Approvals(max_offers_per_source=1, max_offers=2)
    assert approvals.welcome("10.0.0.5") and approvals.may_offer("10.0.0.5")
    approvals.offered("10.0.0.5")
    assert not approvals.welcome("10.0.0.5")  # no more offers from there: the stranger's refusal
    assert approvals.open("10.0.0.5")  # but the joiner holding the offer is asked
    approvals.answer("10.0.0.5", accepted=False)
    approvals.offered("10.0.0.6")
    assert not approvals.welcome("10.0.0.7") and approvals.open("10.0.0.6")


def test_a_commitment_and_reveal_of_the_match_before_do_not_open_in_the_rematch() -> None:
    """The claim (docs/protocol-rationale.md, "Why neither player can bias the deal"): bob replays, signed
    afresh over the rematch's chain, the commitment and the reveal he made for game 1 of the match
    before (whose secret he has seen dealt): the commitment binds that match's root, so in the
    rematch it opens to nothing (a reveal mismatch), and no old secret can be carried over."""
    ann, bob = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    keys = tuple(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw) for key in (ann, bob))
    assert len(keys) == 2
    pledges = (Pledge("SH", os.urandom(32)), Pledge("DC", os.urandom(32)))

    def set_up(match: Match, commitments: tuple[bytes, bytes]) -> None:
        for seat, key in enumerate((ann, bob)):
            match.apply(match.sign(key, Commit(game=1, commitment=commitments[seat], sig=b"")), seat)
        for seat, key in enumerate((ann, bob)):
            unsigned = Reveal(game=1, pref=pledges[seat].pref, secret=pledges[seat].secret, sig=b"")
            match.apply(match.sign(key, unsigned), seat)

    before = Match(bytes(32), (keys[0], keys[1]), Rules(), 1)
    old = tuple(pledge.commitment(before.session_id, 1, seat) for seat, pledge in enumerate(pledges))
    set_up(before, (old[0], old[1]))
    assert before.revealed
    root = rematch_root(before.session_id, before.transcript, 1)
    rematch = Match(root, (keys[0], keys[1]), Rules(), 1, dealer=1)
    fresh = pledges[0].commitment(root, 1, 0)  # ann's pledge made for the rematch
    with pytest.raises(RevealMismatch) as refused:
        set_up(rematch, (fresh, old[1]))
    assert "player 1" in str(refused.value) and not rematch.revealed
