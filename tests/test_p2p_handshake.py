"""The handshake machines, fed messages directly (no sockets): key confirmation before any binding,
the invite secret, versions, and the attacks of the security reviews (issue 11, flaws 1, 2 and 7):
replayed and reflected messages, a changed knock, a degenerate key, clear and sealed aborts."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from engine import Rules
from p2p.admission import Gate
from p2p.channel import Sealer
from p2p.crypto import sign, tagged_hash
from p2p.errors import (
    BadHandshakeSignature,
    ConnectionClosed,
    HandshakeError,
    IdentityChanged,
    IncompatiblePeer,
    InviteRefused,
    PeerAborted,
    PeerBusy,
    SchemaError,
    TamperedFrame,
)
from p2p.handshake import (
    HostHandshake,
    JoinerHandshake,
    Remember,
    Seal,
    Send,
    Session,
    SessionKeys,
    Terms,
    knock_proof,
    session_id,
)
from p2p.identity import Identity, KnownPeers, Peers
from p2p.invite import new_secret
from p2p.messages import (
    PROTOCOL,
    Abort,
    Accept,
    Confirm,
    Confirmed,
    Hello,
    Knock,
    Offer,
    Resume,
)
from p2p.wire import encode
from tests.support.handshakes import identity, sent

TERMS = Terms(Rules(), 3)



class Pair:
    """A host machine and a joiner machine, and the messages between them."""

    def __init__(self, tmp_path: Path, secret: bytes | None = None, name: str = "bob") -> None:
        self.secret = new_secret()
        self.ann, self.bob = identity(), identity()
        self.host_known = KnownPeers(tmp_path / "ann-peers.json")
        self.join_known = KnownPeers(tmp_path / f"{name}-peers.json")
        self.host = HostHandshake(self.ann, "ann", TERMS, self.secret)
        self.joiner = JoinerHandshake(
            self.bob, name, self.ann.fingerprint, self.secret if secret is None else secret, Peers()
        )

    def to_offer(self) -> Offer:
        """Hello and knock in; the host's offer out."""
        out = [message for opening in sent(self.joiner.start()) for message in sent(self.host.receive(opening))]
        assert len(out) == 1 and isinstance(out[0], Offer)
        return out[0]

    def complete(self) -> tuple[Session, Session]:
        offer = self.to_offer()
        self.joiner.offered(offer)
        for message in sent(self.joiner.accept()):
            self.host.receive(message)
        assert self.host.session is not None
        (confirmed,) = sent(self.host.admit())
        self.remembered = self.joiner.confirmed(confirmed)
        assert self.joiner.session is not None
        return self.host.session, self.joiner.session


def test_both_sides_settle_the_same_session_and_code(tmp_path: Path) -> None:
    pair = Pair(tmp_path)
    host, joiner = pair.complete()
    assert host.session_id == joiner.session_id and host.code == joiner.code and len(host.code) == 7
    assert (host.seat, joiner.seat) == (0, 1) and host.names == joiner.names == ("ann", "bob")
    assert pair.remembered == [Remember("ann", pair.ann.public)]  # remembered once confirmed


def test_mallory_replacing_the_accept_is_refused_before_anything_is_bound(tmp_path: Path) -> None:
    """Flaw 1: on the path, Mallory lets hello, knock and offer through and replaces bob's accept
    with her own key, signed over the session id it makes. She cannot confirm the keys (they need
    bob's ephemeral secret), and bob's confirmation no longer matches the transcript."""
    pair = Pair(tmp_path)
    offer = pair.to_offer()
    pair.joiner.offered(offer)
    bobs = sent(pair.joiner.accept())
    mallory = identity()
    unsigned = Accept(key=mallory.public, sig=bytes(64))
    forged = unsigned.with_sig(
        sign(mallory.key, "accept-sig", session_id(pair.joiner.hello, offer, unsigned))
    )
    pair.host.receive(forged)  # the signature is hers and valid: only the confirmation can tell
    with pytest.raises(HandshakeError, match="key confirmation failed"):
        pair.host.receive(bobs[1])  # bob's confirm, over the transcript with his own accept
    assert pair.host.session is None and pair.host.refusal is not None
    assert pair.host.refusal.reason == "confirm"
    assert pair.host_known.load() == {}


def test_a_confirmation_with_another_nonce_than_committed_is_refused(tmp_path: Path) -> None:
    """The nonce under the verification code was committed in the knock: it cannot be chosen later."""
    pair = Pair(tmp_path)
    pair.joiner.offered(pair.to_offer())
    accept, confirm = sent(pair.joiner.accept())
    pair.host.receive(accept)
    assert isinstance(confirm, Confirm)
    with pytest.raises(HandshakeError, match="key confirmation failed"):
        pair.host.receive(Confirm(nonce=bytes(32), mac=confirm.mac))


@pytest.mark.parametrize("name", ["bob", "x", "ann"])
def test_a_stranger_without_the_secret_learns_nothing_and_gets_one_answer(tmp_path: Path, name: str) -> None:
    """Flaws 2 and 7: without the invite secret there is no offer (no host name, key or rules), and
    the refusal is the same whatever name is claimed."""
    pair = Pair(tmp_path, secret=new_secret(), name=name)
    hello, knock = sent(pair.joiner.start())
    assert pair.host.receive(hello) == []
    with pytest.raises(InviteRefused):
        pair.host.receive(knock)
    assert pair.host.offer is None and not pair.host.proven
    assert pair.host.refusal == Abort(
        reason="invite",
        detail="this connection did not prove the invite's secret: ask the host for a fresh invite",
    )


def test_a_recorded_hello_and_knock_cannot_be_replayed(tmp_path: Path) -> None:
    pair = Pair(tmp_path)
    hello, knock = sent(pair.joiner.start())
    pair.host.receive(hello)
    pair.host.receive(knock)
    again = HostHandshake(pair.ann, "ann", TERMS, pair.secret, pair.host.seen)
    again.receive(hello)
    with pytest.raises(InviteRefused):
        again.receive(knock)


def test_a_knock_for_another_hello_is_refused(tmp_path: Path) -> None:
    pair = Pair(tmp_path)
    _, knock = sent(pair.joiner.start())
    other = JoinerHandshake(pair.bob, "bob", pair.ann.fingerprint, pair.secret, Peers())
    pair.host.receive(other.hello)
    with pytest.raises(InviteRefused):
        pair.host.receive(knock)


def test_a_version_2_joiner_is_told_both_versions(tmp_path: Path) -> None:
    pair = Pair(tmp_path)
    old = Hello(proto=2, program="0.0.9", name="bob", eph=pair.joiner.hello.eph)
    with pytest.raises(IncompatiblePeer, match=r"protocol 2; this is trumps .* with protocol 3"):
        pair.host.receive(old)
    assert pair.host.refusal is not None and pair.host.refusal.reason == "incompatible"
    assert "protocol 2" in pair.host.refusal.detail and f"protocol {PROTOCOL}" in pair.host.refusal.detail


def test_a_version_2_host_refusal_is_told_in_our_own_words(tmp_path: Path) -> None:
    """A protocol-2 host reads our hello (its fields are protocol 2's) and answers "incompatible" in
    clear: anyone on the path could have sent that, so its detail is not shown, only our version."""
    pair = Pair(tmp_path)
    hello, _ = sent(pair.joiner.start())
    assert isinstance(hello, Hello) and set(hello.to_wire()) == {"t", "proto", "program", "name", "eph"}
    detail = (
        "the peer runs trumps 0.1.0 with protocol 3; this is trumps 0.0.9 with protocol 2: "
        "both must run compatible versions"
    )
    error = pair.joiner.aborted(PeerAborted("incompatible", detail))
    assert isinstance(error, IncompatiblePeer) and "protocol 3)" in str(error) and detail not in str(error)
    assert "another protocol version" in str(error)


def test_the_joiner_binds_the_host_only_after_its_confirmation(tmp_path: Path) -> None:
    pair = Pair(tmp_path)
    pair.joiner.offered(pair.to_offer())
    for message in sent(pair.joiner.accept()):
        pair.host.receive(message)
    with pytest.raises(HandshakeError, match="host's key confirmation failed"):
        pair.joiner.confirmed(Confirmed(mac=bytes(32)))
    assert pair.joiner.session is None  # nothing to remember, nothing bound


def test_a_look_alike_of_a_known_name_is_that_name(tmp_path: Path) -> None:
    """Flaw 2: "b\u043eb" with a Cyrillic o is bob to the eye, so it meets bob's key."""
    known = KnownPeers(tmp_path / "peers.json")
    known.check("bob", identity().public)
    with pytest.raises(IdentityChanged, match="looks like bob"):
        known.check("b\u043eb", identity().public)
    assert set(known.load()) == {"bob"}


def test_the_documents_derivations_give_what_the_machines_send(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/protocol.md is the contract: every value of the handshake recomputed from the document
    alone (its field order, hash, MAC, HKDF and code formulas, with only hashlib, hmac, msgpack and
    cryptography's primitives) equals what the machines put on the wire."""
    import hashlib
    import hmac

    import msgpack  # type: ignore[import-untyped]  # msgpack ships no type hints
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
    from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    from p2p import handshake
    from p2p.channel import Sealer
    from p2p.wire import encode

    ephemerals = [X25519PrivateKey.generate(), X25519PrivateKey.generate()]  # the joiner's, the host's
    handed = iter(ephemerals)

    class Ephemeral:
        @staticmethod
        def generate() -> X25519PrivateKey:
            return next(handed)

    monkeypatch.setattr(handshake, "X25519PrivateKey", Ephemeral)
    pair = Pair(tmp_path)  # the joiner's machine is made first, then the host's
    hello, knock = sent(pair.joiner.start())
    (offer,) = [m for opening in (hello, knock) for m in sent(pair.host.receive(opening))]
    pair.joiner.offered(offer)
    actions = pair.joiner.accept()
    accept, confirm = sent(actions)
    (seal,) = [action for action in actions if isinstance(action, Seal)]
    pair.host.receive(accept)
    pair.host.receive(confirm)
    (confirmed,) = sent(pair.host.admit())
    assert isinstance(hello, Hello) and isinstance(knock, Knock)
    assert isinstance(offer, Offer) and isinstance(accept, Accept)
    assert isinstance(confirm, Confirm) and isinstance(confirmed, Confirmed)

    def enc(wire: Mapping[str, object]) -> bytes:
        packed: bytes = msgpack.packb(wire, use_bin_type=True)
        return packed

    def h(tag: str, *parts: bytes) -> bytes:
        digest = hashlib.sha256()
        for part in (("your-trumps/v1/" + tag).encode(), *parts):
            digest.update(len(part).to_bytes(4, "big") + part)
        return digest.digest()

    def mac(key: bytes, tag: str, *parts: bytes) -> bytes:
        return hmac.new(key, h(tag, *parts), hashlib.sha256).digest()

    secret = pair.secret
    hello_map = {"t": "hello", "proto": 3, "program": hello.program, "name": "bob", "eph": hello.eph}
    knock_map = {"t": "knock", "proof": knock.proof, "commit": knock.commit}
    offer_body = {
        "t": "offer", "proto": 3, "program": offer.program, "name": "ann", "eph": offer.eph, "key": pair.ann.public,
        "pickup": "forced", "sixes": True, "max_moves": 1000, "games": 3, "host_seat": 0,
    }  # fmt: skip
    accept_body = {"t": "accept", "key": pair.bob.public}
    for wire, message in ((hello_map, hello), (offer_body | {"sig": offer.sig}, offer)):
        assert enc(wire) == encode(message.to_wire())  # the field order the tables give
    assert knock_map["proof"] == mac(secret, "knock", enc(hello_map), h("code-nonce", confirm.nonce))
    t1 = h("offer", enc(hello_map), enc(offer_body))
    Ed25519PublicKey.from_public_bytes(pair.ann.public).verify(offer.sig, h("offer-sig", t1))
    s = h("session", t1, offer.sig, enc(accept_body))
    Ed25519PublicKey.from_public_bytes(pair.bob.public).verify(accept.sig, h("accept-sig", s))
    session = pair.host.session
    assert session is not None
    assert s == session.session_id
    th = h("transcript", enc(hello_map), enc(knock_map), enc(offer_body | {"sig": offer.sig}),
           enc(accept_body | {"sig": accept.sig}))  # fmt: skip
    shared = ephemerals[0].exchange(ephemerals[1].public_key())
    okm = HKDF(hashes.SHA256(), 128, salt=th, info=b"your-trumps/v3/keys").derive(shared + secret)
    k_hj, k_jh, c_j, c_h = okm[:32], okm[32:64], okm[64:96], okm[96:]
    assert (seal.send_key, seal.recv_key) == (k_jh, k_hj)  # the joiner seals with k_JH
    assert confirm.mac == mac(c_j, "confirm", th, confirm.nonce)
    assert confirmed.mac == mac(c_h, "confirmed", th, confirm.nonce)
    number = int.from_bytes(h("code", secret, t1, confirm.nonce)[:8], "big") % 1_000_000
    assert session.code == f"{number // 1000:03d} {number % 1000:03d}"
    counter = bytes(8)  # the confirm is the joiner's first sealed frame
    sealed = counter + ChaCha20Poly1305(k_jh).encrypt(bytes(4) + counter, encode(confirm.to_wire()), counter)
    assert Sealer(k_hj, k_jh).open(sealed) == encode(confirm.to_wire())  # as the host opens it


def test_no_machine_touches_the_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 20: the joiner's machine read and wrote the known-peers file itself. Now both machines
    run a whole handshake with every file closed to them; the joiner checks the host against the
    known peers it was handed and says whom to remember."""
    import builtins

    def no_file(*args: object, **kwargs: object) -> object:
        raise AssertionError("a handshake machine opened a file")

    pair = Pair(tmp_path)
    monkeypatch.setattr(builtins, "open", no_file)
    monkeypatch.setattr(os, "open", no_file)
    host, joiner = pair.complete()
    assert host.session_id == joiner.session_id
    assert pair.remembered == [Remember("ann", pair.ann.public)]


def test_the_joiner_refuses_a_host_whose_look_alike_it_knows(tmp_path: Path) -> None:
    """The known peers the joiner is handed decide as the file did: "\u0430nn" (a Cyrillic a)
    with another key than the known ann's is refused before the rules are shown."""
    pair = Pair(tmp_path)
    pair.joiner.known = Peers({"\u0430nn": identity().public})
    with pytest.raises(IdentityChanged, match="looks like \u0430nn"):
        pair.joiner.offered(pair.to_offer())
    assert pair.joiner.refusal is not None and pair.joiner.refusal.reason == "identity"


def _bound_pair(tmp_path: Path, name: str = "bob", key: Identity | None = None) -> tuple[Pair, Gate]:
    """A pair whose host is bound to a match with bob (his own key), the joiner called ``name``
    with identity ``key`` (bob's when ``None``)."""
    pair = Pair(tmp_path, name=name)
    gate = Gate("ann")
    gate.bind("bob", pair.bob.public)
    if key is not None:
        pair.joiner.me = key
    pair.host.gate = gate
    return pair, gate


@pytest.mark.parametrize("name", ["eve", "b\u043eb", "Bob"])
def test_a_third_person_with_the_invite_hears_busy_before_any_rules(tmp_path: Path, name: str) -> None:
    """Issue 19, flaw 3, and issue 22, item 3: once bob's match is on, a third person holding the
    invite got the offer, was asked "Accept these rules?", and only then heard that ann was busy
    (or, never accepting, held the host's descriptor for 600 s). Now the name in the first flight
    tells them apart: no offer, the ``busy`` in clear at once, which the joiner shows in its own
    words (nothing proves who sent a clear abort, so it names nobody, and a redial tries again)."""
    pair, _ = _bound_pair(tmp_path, name)
    hello, knock = sent(pair.joiner.start())
    pair.host.receive(hello)
    with pytest.raises(PeerBusy):
        pair.host.receive(knock)
    assert pair.host.offer is None and pair.host.refusal is not None
    assert pair.host.refusal_actions() == [Send(pair.host.refusal)]  # in clear: no keys yet
    assert pair.host.refusal.detail == "ann is playing another match right now: try again later"
    heard = pair.joiner.aborted(PeerAborted(pair.host.refusal.reason, pair.host.refusal.detail))
    assert isinstance(heard, ConnectionClosed)
    assert str(heard) == "the host refused: it is playing another match right now: try again later"


def test_the_friends_name_with_another_key_gets_the_sealed_busy_at_its_accept(tmp_path: Path) -> None:
    """Mallory holds the invite and calls herself bob: her name gets her the offer, but her accept
    names her own key, and the host answers it at once with a sealed ``busy`` (sealed under the
    keys her accept made, which she can open), without waiting for her confirmation."""
    mallory = identity()
    pair, _ = _bound_pair(tmp_path, key=mallory)
    pair.joiner.offered(pair.to_offer())
    actions = pair.joiner.accept()
    accept, _ = sent(actions)
    (joiner_seal,) = [action for action in actions if isinstance(action, Seal)]
    with pytest.raises(PeerBusy):
        pair.host.receive(accept)
    assert pair.host.refusal is not None and pair.host.refusal.reason == "busy"
    assert pair.host.refusal_actions() == [
        Seal(joiner_seal.recv_key, joiner_seal.send_key),
        Send(pair.host.refusal),
    ]


def test_the_bound_joiner_gets_back_in_and_is_not_remembered_again(tmp_path: Path) -> None:
    pair, _ = _bound_pair(tmp_path)
    host, joiner = pair.complete()
    assert host.session_id == joiner.session_id
    assert not any(isinstance(action, Remember) for action in pair.host.admit())


def test_once_the_match_is_over_even_its_joiner_gets_busy_at_its_accept(tmp_path: Path) -> None:
    pair, gate = _bound_pair(tmp_path)
    gate.over = True
    pair.joiner.offered(pair.to_offer())
    accept, _ = sent(pair.joiner.accept())
    with pytest.raises(PeerBusy, match="came back after the match was over"):
        pair.host.receive(accept)
    assert pair.host.refusal is not None
    assert pair.host.refusal.detail == "ann's match with you is over: ask for a new invite to play again"


def test_a_joiner_who_wins_meanwhile_makes_the_other_confirmation_busy(tmp_path: Path) -> None:
    """Two joiners past their accepts at once: the first to confirm wins; the other's confirmation,
    though valid, meets the gate bound meanwhile."""
    pair = Pair(tmp_path)
    gate = Gate("ann")
    pair.host.gate = gate
    pair.joiner.offered(pair.to_offer())
    accept, confirm = sent(pair.joiner.accept())
    pair.host.receive(accept)
    gate.bind("carol", identity().public)
    with pytest.raises(PeerBusy):
        pair.host.receive(confirm)
    assert pair.host.session is None


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


def test_an_offer_replayed_from_an_earlier_session_is_refused(tmp_path: Path) -> None:
    """Mallory recorded the host's offer to an earlier joiner and plays host to a new one: the
    fingerprint matches, but the offer's signature covers ``T1`` with the earlier joiner's hello
    (its fresh ``eph``). Check: :func:`check_signatures` on the offer in ``JoinerHandshake.offered``."""
    earlier = Pair(tmp_path)
    old_offer = earlier.to_offer()
    later = Pair(tmp_path)
    later.ann = earlier.ann
    joiner = JoinerHandshake(later.bob, "bob", earlier.ann.fingerprint, earlier.secret, Peers())
    joiner.start()
    with pytest.raises(BadHandshakeSignature):
        joiner.offered(old_offer)
    assert joiner.offer is None and later.join_known.load() == {}


def test_a_knock_recorded_at_another_host_run_gets_no_offer(tmp_path: Path) -> None:
    """A hello and knock recorded while the host ran before (another invite) are replayed to the
    host's new run, whose ``seen`` set is empty: the knock's MAC is under the old secret.
    Check: the proof in ``HostHandshake._knock`` (``mac_ok`` under this run's secret)."""
    pair = Pair(tmp_path)
    hello, knock = sent(pair.joiner.start())
    rerun = HostHandshake(pair.ann, "ann", TERMS, new_secret())
    rerun.receive(hello)
    with pytest.raises(InviteRefused):
        rerun.receive(knock)
    assert rerun.offer is None and rerun.refusal is not None and rerun.refusal.reason == "invite"


def test_the_hosts_own_offer_reflected_back_is_not_a_hello(tmp_path: Path) -> None:
    """Reflection in clear: the host's offer sent back as the first message of a connection (it
    carries every hello field and more) is refused unanswered. Check: ``expect(…, Hello)``."""
    offer = Pair(tmp_path).to_offer()
    host = HostHandshake(identity(), "ann", TERMS, new_secret())
    with pytest.raises(SchemaError):
        host.receive(offer)
    assert host.hello is None and host.refusal is None


def test_a_confirm_sealed_for_an_earlier_session_does_not_open(tmp_path: Path) -> None:
    """A recorded ``confirm`` of an earlier session of the same joiner, replayed as the first
    sealed frame of a new one: every session has fresh ephemeral keys, so fresh direction keys
    (nonces restart at 0 under a new key). Check: the X25519 shared secret in the key schedule."""
    secret = new_secret()
    keys = [SessionKeys.derive(identity().public, secret, bytes(32)) for _ in range(2)]
    earlier = Sealer(keys[0].joiner_to_host, keys[0].host_to_joiner)
    recorded = earlier.seal(encode(Confirm(nonce=bytes(32), mac=bytes(32)).to_wire()))
    with pytest.raises(TamperedFrame):
        Sealer(keys[1].host_to_joiner, keys[1].joiner_to_host).open(recorded)


def test_a_resume_claim_before_the_confirmation_is_refused_and_binds_nothing(tmp_path: Path) -> None:
    """A joiner (or anyone with the secret) skips the key confirmation and opens its sealed stream
    with a resume claim: the host has no session, so there is nothing to resume and no seat.
    Check: ``expect(…, Confirm)`` in ``HostHandshake._confirm``."""
    pair = Pair(tmp_path)
    pair.joiner.offered(pair.to_offer())
    accept = sent(pair.joiner.accept())[0]
    pair.host.receive(accept)
    with pytest.raises(SchemaError):
        pair.host.receive(Resume(root=bytes(32), links=0, transcript=bytes(32), sig=bytes(64)))
    assert pair.host.session is None and pair.host_known.load() == {}


def test_a_knock_changed_by_someone_holding_the_secret_fails_the_confirmation(tmp_path: Path) -> None:
    """Someone who has the invite (a leaked secret) relays bob's handshake but replaces the knock's
    commitment with one of their own, to steer the verification code. The host then holds another
    commitment than bob's nonce. Check: ``H("code-nonce", nonce) == knock.commit`` in ``_confirm``."""
    pair = Pair(tmp_path)
    hello, _ = sent(pair.joiner.start())
    commit = tagged_hash("code-nonce", bytes(32))
    out = sent(pair.host.receive(hello)) + sent(
        pair.host.receive(Knock(proof=knock_proof(pair.secret, pair.joiner.hello, commit), commit=commit))
    )
    pair.joiner.offered(out[0])
    accept, confirm = sent(pair.joiner.accept())
    pair.host.receive(accept)
    with pytest.raises(HandshakeError, match="key confirmation failed"):
        pair.host.receive(confirm)
    assert pair.host.session is None


def test_a_degenerate_ephemeral_key_is_refused_before_any_key_is_used(tmp_path: Path) -> None:
    """A joiner holding the secret sends a low-order X25519 point (all zeros) as its ``eph``, so that
    the shared secret is known to anyone: the host refuses the key exchange. Check: ``_exchange``
    turning the all-zero result (``ValueError``) into :class:`HandshakeError`."""
    pair = Pair(tmp_path)
    hello = Hello(proto=3, program="x", name="mallory", eph=bytes(32))
    commit = tagged_hash("code-nonce", bytes(32))
    pair.host.receive(hello)
    (offer,) = sent(pair.host.receive(Knock(proof=knock_proof(pair.secret, hello, commit), commit=commit)))
    assert isinstance(offer, Offer)
    unsigned = Accept(key=pair.bob.public, sig=bytes(64))
    accept = unsigned.with_sig(sign(pair.bob.key, "accept-sig", session_id(hello, offer, unsigned)))
    with pytest.raises(HandshakeError, match="degenerate"):
        pair.host.receive(accept)
    assert pair.host.session is None


def test_only_a_sealed_abort_is_shown_with_its_detail(tmp_path: Path) -> None:
    """Before the accept an ``abort`` travels in clear and may come from anyone on the path: the
    joiner shows its reason code only, in its own words. After it, the abort opened under the
    host's sealing key (derived from its signed ephemeral key): the host's own, shown whole.
    Check: ``self._keys`` in ``JoinerHandshake.aborted`` and ``HostHandshake.declined``."""
    pair = Pair(tmp_path)
    said = "ann did not let you in"
    before = pair.joiner.aborted(PeerAborted("declined", said))
    assert isinstance(before, ConnectionClosed) and said not in str(before) and "(declined)" in str(before)
    pair.joiner.offered(pair.to_offer())
    pair.host.receive(sent(pair.joiner.accept())[0])
    after = pair.joiner.aborted(PeerAborted("declined", said))
    assert isinstance(after, PeerAborted) and after.detail == said
    sealed = pair.host.declined(PeerAborted("confirm", "the host's key confirmation failed"))
    assert isinstance(sealed, PeerAborted) and sealed.detail == "the host's key confirmation failed"
