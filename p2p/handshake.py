"""The authenticated key exchange that opens every duel, and what it settles.

::

    joiner                                             host
      | hello  {proto, program, name, eph_J}             |
      | ------------------------------------------------>|
      |   offer {proto, program, name, eph_H, key_H,     |
      |          rules, games, host_seat, sig_H(T1)}     |
      | <------------------------------------------------|
      | checks fingerprint(key_H) against the invite,    |
      | sig_H, versions, known peers; accepts the rules  |
      | accept {key_J, sig_J(S)}                         |
      | ------------------------------------------------>|
      |           both: keys = HKDF(X25519(eph), S)       |
      |========== sealed frames from here on ============|

``T1 = H(hello, offer without sig)`` and the session id ``S = H(T1, sig_H,
accept without sig)``: each side signs everything seen so far, so the long-term
keys vouch for the ephemeral ones and for the agreed match.
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from engine import Rules
from p2p.channel import Channel
from p2p.crypto import fingerprint, sign, signature_ok, tagged_hash, verification_code
from p2p.errors import (
    BadHandshakeSignature,
    FingerprintMismatch,
    HandshakeError,
    IdentityChanged,
    IncompatiblePeer,
    P2PError,
    PeerAborted,
    PeerBusy,
    RulesDeclined,
)
from p2p.identity import Identity, KnownPeers
from p2p.messages import PROTOCOL, Abort, Accept, Hello, Offer, expect
from p2p.text import N_, Text
from p2p.wire import encode

E = TypeVar("E", bound=P2PError)

HANDSHAKE_TIMEOUT = 30.0
"""Seconds each handshake message may take (the joiner's decision excepted)."""
DECISION_TIMEOUT = 600.0
"""Seconds the host waits for the joiner to accept or decline the rules."""


def program_version() -> str:
    """This program's version, as the handshake announces it."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("your-trumps")[:32]
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class Terms:
    """What the host proposes: the rules, the number of games, the host's seat."""

    rules: Rules
    games: int = 1
    host_seat: int = 0

    @classmethod
    def of(cls, offer: Offer) -> Terms:
        """The terms an offer proposes."""
        return cls(Rules(offer.pickup, offer.sixes, offer.max_moves), offer.games, offer.host_seat)


@dataclass(frozen=True)
class Session:
    """What a completed handshake settled, from one side's point of view."""

    hello: Hello
    offer: Offer
    accept: Accept
    seat: int
    """This side's seat (player 0 or 1)."""

    @property
    def terms(self) -> Terms:
        """The agreed rules, game count and seats."""
        return Terms.of(self.offer)

    @property
    def session_id(self) -> bytes:
        """The hash of the whole handshake: the root of the match transcript."""
        return _session_id(self.hello, self.offer, self.accept)

    @property
    def keys(self) -> tuple[bytes, bytes]:
        """The identity keys of player 0 and player 1."""
        host, joiner = self.offer.key, self.accept.key
        return (host, joiner) if self.offer.host_seat == 0 else (joiner, host)

    @property
    def names(self) -> tuple[str, str]:
        """The names of player 0 and player 1."""
        host, joiner = self.offer.name, self.hello.name
        return (host, joiner) if self.offer.host_seat == 0 else (joiner, host)

    @property
    def code(self) -> str:
        """The short verification code both screens show."""
        return verification_code(self.session_id)


def _offer_digest(hello: Hello, offer: Offer) -> bytes:
    return tagged_hash("offer", encode(hello.to_wire()), encode(offer.body()))


def _session_id(hello: Hello, offer: Offer, accept: Accept) -> bytes:
    return tagged_hash("session", _offer_digest(hello, offer), offer.sig, encode(accept.body()))


def check_signatures(hello: Hello, offer: Offer, accept: Accept | None = None) -> None:
    """Raise :class:`BadHandshakeSignature` unless the host (and joiner) signed the handshake."""
    if not signature_ok(offer.key, "offer-sig", _offer_digest(hello, offer), offer.sig):
        raise BadHandshakeSignature(Text(N_("the host's handshake signature does not verify")))
    if accept is not None and not signature_ok(
        accept.key, "accept-sig", _session_id(hello, offer, accept), accept.sig
    ):
        raise BadHandshakeSignature(Text(N_("the joiner's handshake signature does not verify")))


def _ephemeral() -> tuple[X25519PrivateKey, bytes]:
    key = X25519PrivateKey.generate()
    return key, key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def _derive(secret: X25519PrivateKey, peer_eph: bytes, session_id: bytes) -> tuple[bytes, bytes]:
    """(host→joiner key, joiner→host key)."""
    try:
        shared = secret.exchange(X25519PublicKey.from_public_bytes(peer_eph))
    except ValueError:
        raise HandshakeError(Text(N_("the peer's ephemeral key is degenerate"))) from None
    okm = HKDF(hashes.SHA256(), 64, salt=session_id, info=b"your-trumps/v1/keys").derive(shared)
    return okm[:32], okm[32:]


async def _refuse(channel: Channel, reason: str, error: E) -> E:
    """Tell the peer why we stop (best effort), then hand back ``error`` to raise."""
    with contextlib.suppress(P2PError):  # a failed refusal must not hide the reason
        await channel.send(Abort(reason=reason, detail=str(error)[:300]))
    return error


def _check_protocol(proto: int, program: str) -> IncompatiblePeer | None:
    if proto == PROTOCOL:
        return None
    template = N_(
        "the peer runs trumps {program} with protocol {proto}; this is trumps "
        "{version} with protocol {ours}: both must run compatible versions"
    )
    return IncompatiblePeer(
        Text(template, program=program, proto=proto, version=program_version(), ours=PROTOCOL)
    )


def _busy(me: str) -> PeerBusy:
    """Who the host plays is not told to whoever knocks."""
    return PeerBusy(Text(N_("{me} is playing another match right now: try again later"), me=me))


async def host_handshake(
    channel: Channel,
    me: Identity,
    name: str,
    terms: Terms,
    known: KnownPeers,
    playing: Session | None = None,
    timeout: float = HANDSHAKE_TIMEOUT,
) -> Session:
    """Run the host's side on a fresh connection; the channel is sealed on return.

    ``playing``: the session of a match in progress, whose joiner alone may connect
    (to resume it); anyone else is told that the host is busy. ``timeout``: seconds
    the joiner's hello may take to start.
    """
    hello = expect(await channel.recv(timeout), Hello, "handshake")
    if (error := _check_protocol(hello.proto, hello.program)) is not None:
        raise await _refuse(channel, "incompatible", error)
    if playing is not None and hello.name != playing.hello.name:
        raise await _refuse(channel, "busy", _busy(name))
    secret, eph = _ephemeral()
    rules = terms.rules
    unsigned = Offer(
        proto=PROTOCOL, program=program_version(), name=name, eph=eph, key=me.public,
        pickup=rules.pickup, sixes=rules.sixes, max_moves=rules.max_moves,
        games=terms.games, host_seat=terms.host_seat, sig=bytes(64),
    )  # fmt: skip
    offer = unsigned.with_sig(sign(me.key, "offer-sig", _offer_digest(hello, unsigned)))
    await channel.send(offer)
    try:
        accept = expect(await channel.recv(DECISION_TIMEOUT), Accept, "handshake")
    except PeerAborted as exc:
        if exc.reason == "declined":
            raise RulesDeclined(Text(N_("{name} declined the rules"), name=hello.name)) from None
        raise
    check_signatures(hello, offer, accept)
    session = Session(hello, offer, accept, terms.host_seat)
    to_joiner, to_host = _derive(secret, hello.eph, session.session_id)
    channel.seal(to_joiner, to_host)
    if playing is not None and accept.key != playing.accept.key:
        raise await _refuse(channel, "busy", _busy(name))
    try:  # remembered only once it gets the match (the listener's part): it may lose the race
        known.check(hello.name, accept.key, remember=False)
    except IdentityChanged as exc:
        raise await _refuse(channel, "identity", exc) from None
    return session


async def join_handshake(
    channel: Channel,
    me: Identity,
    name: str,
    host_fingerprint: str,
    known: KnownPeers,
    decide: Callable[[Terms, str], Awaitable[bool]],
) -> Session:
    """Run the joiner's side; ``decide(terms, host_name)`` accepts or declines the rules."""
    secret, eph = _ephemeral()
    hello = Hello(proto=PROTOCOL, program=program_version(), name=name, eph=eph)
    await channel.send(hello)
    offer = expect(await channel.recv(HANDSHAKE_TIMEOUT), Offer, "handshake")
    if (error := _check_protocol(offer.proto, offer.program)) is not None:
        raise await _refuse(channel, "incompatible", error)
    if fingerprint(offer.key) != host_fingerprint:
        raise await _refuse(
            channel,
            "fingerprint",
            FingerprintMismatch(
                Text(
                    N_(
                        "the host's key has fingerprint {theirs}, but the invite says "
                        "{expected}: this is not the host who sent the invite"
                    ),
                    theirs=fingerprint(offer.key),
                    expected=host_fingerprint,
                )
            ),
        )
    check_signatures(hello, offer)
    try:
        known.check(offer.name, offer.key)
    except IdentityChanged as exc:
        raise await _refuse(channel, "identity", exc) from None
    if not await decide(Terms.of(offer), offer.name):
        raise await _refuse(channel, "declined", RulesDeclined(Text(N_("you declined the host's rules"))))
    unsigned = Accept(key=me.public, sig=bytes(64))
    accept = Accept(key=me.public, sig=sign(me.key, "accept-sig", _session_id(hello, offer, unsigned)))
    await channel.send(accept)
    session = Session(hello, offer, accept, 1 - offer.host_seat)
    to_joiner, to_host = _derive(secret, offer.eph, session.session_id)
    channel.seal(to_host, to_joiner)
    return session
