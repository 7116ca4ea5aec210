"""Keys and signatures: small-order keys sign nothing, a signature and a link have one meaning
whatever their encoding (the table "Claims and their tests" of docs/protocol-rationale.md names
each with the claim it tests)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from engine import Rules
from p2p.crypto import mac, tagged_hash
from p2p.errors import BadHandshakeSignature, BadSignature
from p2p.handshake import (
    HostHandshake,
    Send,
    SessionKeys,
    Terms,
    knock_proof,
    transcript,
)
from p2p.invite import new_secret
from p2p.match import Match
from p2p.messages import PROTOCOL, Accept, Commit, Confirm, Hello, Knock, Offer, parse, to_json
from p2p.wire import decode, encode
from tests.support.peers import Side

TERMS = Terms(Rules(), 2)


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


