"""The authenticated key exchange that opens every duel (protocol 3), as two sans-I/O state machines.

::

    joiner                                                    host
      | hello  {proto, program, name, eph}                      |
      | knock  {proof = MAC(secret, hello, commit), commit}     |
      | ------------------------------------------------------->|  proto; proof of the invite secret
      |   offer {proto, program, name, eph, key, rules, games,  |
      |          host_seat, sig = Sign(key_H, T1)}              |
      | <-------------------------------------------------------|
      | fingerprint(key) against the invite, sig, known peers;  |
      | accepts the rules                                       |
      | accept {key, sig = Sign(key_J, S)}                      |
      | ---- keys = HKDF(X25519(eph) ‖ secret, TH) ------------->|
      | confirm {nonce, mac = MAC(c_J, TH, nonce)}     (sealed) |  commit, mac: only now is anything
      | ------------------------------------------------------->|  bound (known peers, seat, resume)
      |   confirmed {mac = MAC(c_H, TH, nonce)}        (sealed) |
      | <-------------------------------------------------------|

``T1 = H(hello, offer without sig)``, the session id ``S = H(T1, sig_H, accept
without sig)`` (the match root: a record's reader recomputes it from the three
signed messages) and ``TH`` the hash of all four clear messages. Neither
machine does any I/O: each takes the peer's messages and returns the
:class:`Send`, :class:`Seal` and :class:`Remember` actions to carry out in order
(the joiner checks the host against the known peers it is handed, a pure
:class:`~p2p.identity.Peers`); a refusal raises its :class:`~p2p.errors.P2PError`
after setting :attr:`refusal` to the ``abort`` to send
(:meth:`~_Machine.refusal_actions`). A host bound to a match
(a :class:`~p2p.admission.Gate`) answers anyone but its joiner ``busy`` at the
first step that tells them apart. A joiner that found the host on the LAN knocks
with :data:`LAN_SECRET` (empty); a host made with ``lan=True`` takes that knock too
(:attr:`HostHandshake.lan_knock`), and its driver asks the host's person before
:meth:`HostHandshake.admit`. :mod:`p2p.reception` and :mod:`p2p.connect` drive
them over a :class:`~p2p.channel.Channel`. docs/protocol.md has the byte-exact contract and
the security argument.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from engine import Rules
from p2p.crypto import fingerprint, mac, mac_ok, sign, signature_ok, tagged_hash, verification_code
from p2p.errors import (
    BadHandshakeSignature,
    ConnectionClosed,
    FingerprintMismatch,
    HandshakeError,
    IdentityChanged,
    IncompatiblePeer,
    InviteRefused,
    P2PError,
    PeerAborted,
    RulesDeclined,
)
from p2p.identity import Identity, Peers
from p2p.messages import (
    FORFEIT_MS,
    PROTOCOL,
    Abort,
    Accept,
    Confirm,
    Confirmed,
    Hello,
    Knock,
    Message,
    Offer,
    expect,
)
from p2p.text import N_, Text
from p2p.wire import encode

if TYPE_CHECKING:
    from p2p.admission import Gate

HANDSHAKE_TIMEOUT = 30.0
"""Seconds each handshake message may take (the joiner's decision excepted)."""
DECISION_TIMEOUT = 600.0
"""Seconds the host waits for the joiner to accept or decline the rules."""
KEYS_INFO = b"your-trumps/v3/keys"
"""HKDF's ``info`` for the session keys."""
LAN_SECRET = b""
"""The secret a LAN joiner knocks with: it found the host by discovery and has no invite. Everyone
has it, so a host takes such a knock only while it asks its person (docs/protocol.md, "The LAN knock")."""


@functools.cache
def program_version() -> str:
    """This program's version, as the handshake announces it (read once: reading the package's
    metadata takes about a quarter of a millisecond, and a stranger's hello of another protocol
    version asks for it)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("your-trumps")[:32]
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class Terms:
    """What the host proposes: the rules, the number of games, the host's seat, and whether
    the AI's hint is allowed (each use then flagged on the move it led to)."""

    rules: Rules
    games: int = 1
    host_seat: int = 0
    hints: bool = False
    limit_ms: int = FORFEIT_MS
    """The host's forfeit limit (its ``--timeout``, milliseconds): the match's is the longer of
    this and the joiner's (:attr:`Session.forfeit_limit`)."""

    @classmethod
    def of(cls, offer: Offer) -> Terms:
        """The terms an offer proposes."""
        rules = Rules(offer.pickup, offer.sixes, offer.max_moves)
        return cls(rules, offer.games, offer.host_seat, offer.hints, offer.limit_ms)


@dataclass(frozen=True)
class Session:
    """What a completed handshake settled, from one side's point of view."""

    hello: Hello
    offer: Offer
    accept: Accept
    seat: int
    """This side's seat (player 0 or 1)."""
    code: str = ""
    """The verification code both screens show; it needs the invite secret, so a session read
    back from a record has none."""

    @property
    def terms(self) -> Terms:
        """The agreed rules, game count and seats."""
        return Terms.of(self.offer)

    @property
    def forfeit_limit(self) -> float:
        """Seconds a player may be away, or owe a link, before the game may be claimed from it:
        the longer of the two sides' limits (``offer.limit_ms``, ``accept.limit_ms``), so that
        both judge by one figure and neither is claimed sooner than it said it would claim."""
        return max(self.offer.limit_ms, self.accept.limit_ms) / 1000

    @property
    def session_id(self) -> bytes:
        """The hash of the three signed handshake messages: the root of the match transcript."""
        return session_id(self.hello, self.offer, self.accept)

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
    def peer_name(self) -> str:
        """The name the other side announced."""
        return self.names[1 - self.seat]


@dataclass(frozen=True)
class Send:
    """Send ``message`` (sealed if a :class:`Seal` came before it)."""

    message: Message


@dataclass(frozen=True)
class Seal:
    """From here on, seal what is sent with ``send_key`` and open what arrives with ``recv_key``."""

    send_key: bytes
    recv_key: bytes


@dataclass(frozen=True)
class Remember:
    """Remember the peer ``name`` with identity key ``key`` in the known peers (trust on first
    use): the handshake bound it. The machines only say so; their driver writes the file."""

    name: str
    key: bytes


Action = Send | Seal | Remember


def offer_digest(hello: Hello, offer: Offer) -> bytes:
    """``T1``: what the host signs."""
    return tagged_hash("offer", encode(hello.to_wire()), encode(offer.body()))


def session_id(hello: Hello, offer: Offer, accept: Accept) -> bytes:
    """``S``: what the joiner signs, and the root of the match."""
    return tagged_hash("session", offer_digest(hello, offer), offer.sig, encode(accept.body()))


def transcript(hello: Hello, knock: Knock, offer: Offer, accept: Accept) -> bytes:
    """``TH``: every clear handshake message, as sent; the salt of the keys, under both confirmations."""
    parts = (hello, knock, offer, accept)
    return tagged_hash("transcript", *(encode(message.to_wire()) for message in parts))


def knock_proof(secret: bytes, hello: Hello, commit: bytes) -> bytes:
    """The joiner's proof that it holds the invite secret, bound to its hello (its fresh key)."""
    return mac(secret, "knock", encode(hello.to_wire()), commit)


def code_digest(secret: bytes, hello: Hello, offer: Offer, nonce: bytes) -> bytes:
    """What the verification code is read from: the invite secret, ``T1`` and the joiner's nonce,
    which the joiner committed to before the host chose its offer (so neither side can grind it)."""
    return tagged_hash("code", secret, offer_digest(hello, offer), nonce)


@dataclass(frozen=True)
class SessionKeys:
    """The four keys of a session: one sealing key and one confirmation key per direction."""

    host_to_joiner: bytes
    joiner_to_host: bytes
    joiner_confirm: bytes
    host_confirm: bytes

    @classmethod
    def derive(cls, shared: bytes, secret: bytes, digest: bytes) -> SessionKeys:
        """HKDF-SHA256(ikm = X25519 result ‖ invite secret, salt = TH, info = :data:`KEYS_INFO`)."""
        okm = HKDF(hashes.SHA256(), 128, salt=digest, info=KEYS_INFO).derive(shared + secret)
        return cls(okm[:32], okm[32:64], okm[64:96], okm[96:])


def check_signatures(hello: Hello, offer: Offer, accept: Accept | None = None) -> None:
    """Raise :class:`BadHandshakeSignature` unless the host (and joiner) signed the handshake."""
    if not signature_ok(offer.key, "offer-sig", offer_digest(hello, offer), offer.sig):
        raise BadHandshakeSignature(Text(N_("the host's handshake signature does not verify")))
    if accept is not None and not signature_ok(
        accept.key, "accept-sig", session_id(hello, offer, accept), accept.sig
    ):
        raise BadHandshakeSignature(Text(N_("the joiner's handshake signature does not verify")))


def incompatible(proto: int) -> IncompatiblePeer | None:
    """The refusal of a peer speaking protocol ``proto``, naming both protocols and our version;
    ``None`` if it is ours. The peer's ``program`` is not named: nothing has authenticated it yet."""
    if proto == PROTOCOL:
        return None
    template = N_(
        "the peer speaks protocol {proto}; this is trumps {version} with protocol {ours}: "
        "both must run compatible versions"
    )
    return IncompatiblePeer(Text(template, proto=proto, version=program_version(), ours=PROTOCOL))


def _ephemeral() -> tuple[X25519PrivateKey, bytes]:
    key = X25519PrivateKey.generate()
    return key, key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def _exchange(secret: X25519PrivateKey, peer_eph: bytes) -> bytes:
    try:
        return secret.exchange(X25519PublicKey.from_public_bytes(peer_eph))
    except ValueError:
        raise HandshakeError(Text(N_("the peer's ephemeral key is degenerate"))) from None


ABORT_REASONS = frozenset(
    {"incompatible", "invite", "fingerprint", "identity", "declined", "confirm", "busy", "protocol"}
    | {"cheat", "forfeit", "quit", "lost", "pause"}
)
"""The reason codes of an ``abort`` (docs/protocol.md, "Abort reasons"): the only words of a clear
one that are ever shown."""
INCOMPATIBLE_HOST = N_(
    "it runs another protocol version than this trumps {version} (protocol {ours}): "
    "both must run compatible versions"
)
"""What a clear ``abort incompatible`` from the host is shown as (its own detail is not shown)."""


def clear_abort(abort: PeerAborted, template: str) -> ConnectionClosed:
    """A clear ``abort`` during the handshake, as a lost connection: nothing proves who sent it
    (anyone on the path could), so its detail is never shown, only its reason code if it is one
    of :data:`ABORT_REASONS` (``template`` has a ``{reason}`` field); a redial tries again."""
    if abort.reason not in ABORT_REASONS:
        return ConnectionClosed(Text(N_("the peer closed the connection")))
    return ConnectionClosed(Text(template, reason=abort.reason))


class _Machine:
    """What both sides share: the refusal to send when a step fails."""

    refusal: Abort | None = None
    """The ``abort`` to send (best effort) before the raised error ends the connection."""
    _unsent_seal: Seal | None = None
    """The sealing of a step refused after it made the keys: its refusal goes sealed."""

    def _refuse(self, reason: str, error: P2PError, detail: str | None = None) -> P2PError:
        self.refusal = Abort(reason=reason, detail=(str(error) if detail is None else detail)[:300])
        return error

    def refusal_actions(self) -> list[Action]:
        """How to send :attr:`refusal` (nothing if there is none): sealed first when the step it
        refused had made the session's keys, since the peer then reads only sealed frames."""
        if self.refusal is None:
            return []
        return [*([self._unsent_seal] if self._unsent_seal is not None else []), Send(self.refusal)]


INVITE_REFUSAL = N_("this connection did not prove the invite's secret: ask the host for a fresh invite")
"""The whole answer to a connection without the invite secret: the same for everyone, naming nobody."""
HOST_BUSY = N_("it is playing another match right now: try again later")
"""What a clear ``abort busy`` (a host's answer to another joiner's knock once its match is on)
is shown as: in our words, naming nobody, since nothing proves who sent it."""


class HostHandshake(_Machine):
    """The host's side: feed it the joiner's messages with :meth:`receive`; once :attr:`session`
    is set (the joiner confirmed the keys), :meth:`admit` lets it in."""

    def __init__(
        self,
        me: Identity,
        name: str,
        terms: Terms,
        secret: bytes,
        seen: set[bytes] | None = None,
        lan: bool = False,
        gate: Gate | None = None,
    ) -> None:
        """``secret``: the invite's; ``seen``: the ephemeral keys of hellos already proven under
        the invite secret (shared by a listener's handshakes), so that a recorded hello and knock
        cannot be replayed (LAN knocks are not kept: a replayed one cannot complete the keys, and
        anyone may knock afresh anyway); ``lan``: whether a knock with :data:`LAN_SECRET` is
        taken too (its joiner must then be approved by the host's person before :meth:`admit`);
        ``gate``: the match the host is bound to, if any (shared by a listener's handshakes and
        read at each step): once a joiner won it, anyone else gets ``busy`` at the first step
        that tells them apart (:class:`~p2p.admission.Gate`)."""
        self.me, self.name, self.terms, self.secret, self.lan = me, name, terms, secret, lan
        self.seen = seen if seen is not None else set()
        self.gate = gate
        self._eph_key, self._eph = _ephemeral()
        self.hello: Hello | None = None
        self.knock: Knock | None = None
        self.offer: Offer | None = None
        self.proven = False
        """Whether the joiner proved the invite secret (such a handshake is never evicted)."""
        self.lan_knock = False
        """Whether the joiner knocked with :data:`LAN_SECRET` (it needs the person's approval)."""
        self.session: Session | None = None
        self._accepted: Accept | None = None
        self._keys: SessionKeys | None = None
        self._transcript = b""
        self._nonce = b""
        self._psk = secret

    def receive(self, message: Message) -> list[Action]:
        """The actions after the joiner's next message; raises on a refusal (see :attr:`refusal`)."""
        if self.hello is None:
            return self._hello(message)
        if self.knock is None:
            return self._knock(message)
        if self._keys is None:
            return self._accept(message)
        if self.session is None:
            return self._confirm(message)
        raise self._refuse("protocol", HandshakeError(Text(N_("a message after the handshake was complete"))))

    def declined(self, abort: PeerAborted) -> P2PError:
        """What the joiner's ``abort`` means. A sealed one (after the accept) from a joiner that
        proved the invite secret is its own: the abort itself. A clear one may come from anyone on
        the path, and a sealed one after a LAN knock from anyone on the LAN (it proved nothing), so
        none of their text is shown: :class:`RulesDeclined` for a decline of an invite joiner's
        offer (before one, a real joiner has nothing to decline), else the reason code
        (:func:`clear_abort`)."""
        if self.proven and self._keys is not None:
            return abort
        if self.proven and abort.reason == "declined":  # a proven knock is answered by the offer
            assert self.hello is not None
            return RulesDeclined(Text(N_("{name} declined the rules"), name=self.hello.name))
        return clear_abort(
            abort, N_("the connection was ended ({reason}) before the joiner proved who it is")
        )

    def admit(self) -> list[Action]:
        """Let the confirmed joiner in: remember it (unless it is the joiner the gate is bound to
        already, coming back: call this before binding the gate to a new one), then the host's
        own confirmation."""
        assert self.session is not None and self._keys is not None
        confirm = mac(self._keys.host_confirm, "confirmed", self._transcript, self._nonce)
        back = self.gate is not None and self.gate.joiner is not None
        remember = [] if back else [Remember(self.session.hello.name, self.session.accept.key)]
        return [*remember, Send(Confirmed(mac=confirm))]

    def recheck(self) -> None:
        """Ask the gate again about the confirmed joiner, after a wait outside the machine (the
        host's person deciding about a LAN joiner): raise its refusal if someone else won meanwhile."""
        assert self.session is not None
        if self.gate is not None:
            self._gated(self.gate.accepted(self.session.hello.name, self.session.accept.key))

    def _gated(self, refusal: tuple[Abort, P2PError] | None) -> None:
        """Raise the gate's refusal, if it has one."""
        if refusal is not None:
            self.refusal, error = refusal
            raise error

    def _hello(self, message: Message) -> list[Action]:
        hello = expect(message, Hello, "handshake")
        if (error := incompatible(hello.proto)) is not None:
            raise self._refuse("incompatible", error)
        self.hello = hello
        return []

    def _knock(self, message: Message) -> list[Action]:
        assert self.hello is not None
        knock = expect(message, Knock, "handshake")
        knocked = (encode(self.hello.to_wire()), knock.commit)
        proof_ok = mac_ok(self.secret, "knock", knocked, knock.proof)
        lan_ok = self.lan and not proof_ok and mac_ok(LAN_SECRET, "knock", knocked, knock.proof)
        if not (proof_ok or lan_ok) or (proof_ok and self.hello.eph in self.seen):
            raise self._refuse("invite", InviteRefused(Text(INVITE_REFUSAL)))
        if proof_ok:  # a replayed LAN knock gets an offer it cannot use: nothing to remember
            self.seen.add(self.hello.eph)
        if self.gate is not None:  # the name tells another joiner apart before the rules are shown
            self._gated(self.gate.knocked(self.hello.name))
        self.knock, self.proven, self.lan_knock = knock, proof_ok, lan_ok
        self._psk = LAN_SECRET if lan_ok else self.secret  # what the keys and the code are made of
        rules = self.terms.rules
        unsigned = Offer(
            proto=PROTOCOL, program=program_version(), name=self.name, eph=self._eph, key=self.me.public,
            pickup=rules.pickup, sixes=rules.sixes, max_moves=rules.max_moves,
            games=self.terms.games, host_seat=self.terms.host_seat, hints=self.terms.hints,
            limit_ms=self.terms.limit_ms, sig=bytes(64),
        )  # fmt: skip
        self.offer = unsigned.with_sig(sign(self.me.key, "offer-sig", offer_digest(self.hello, unsigned)))
        return [Send(self.offer)]

    def _accept(self, message: Message) -> list[Action]:
        assert self.hello is not None and self.knock is not None and self.offer is not None
        accept = expect(message, Accept, "handshake")
        check_signatures(self.hello, self.offer, accept)
        self._accepted = accept
        self._transcript = transcript(self.hello, self.knock, self.offer, accept)
        shared = _exchange(self._eph_key, self.hello.eph)
        self._keys = SessionKeys.derive(shared, self._psk, self._transcript)
        seal = Seal(self._keys.host_to_joiner, self._keys.joiner_to_host)
        if self.gate is not None:  # the key tells apart a joiner of the same name: at once, sealed
            self._unsent_seal = seal
            self._gated(self.gate.accepted(self.hello.name, accept.key))
            self._unsent_seal = None
        return [seal]

    def unconfirmed(self) -> P2PError:
        """The refusal of a joiner whose confirmation does not verify (nor even open)."""
        error = HandshakeError(
            Text(N_("the joiner's key confirmation failed: someone on the line changed the handshake"))
        )
        return self._refuse("confirm", error)

    def _confirm(self, message: Message) -> list[Action]:
        assert self.hello is not None and self.knock is not None and self.offer is not None
        assert self._keys is not None and self._accepted is not None
        confirm = expect(message, Confirm, "handshake")
        committed = tagged_hash("code-nonce", confirm.nonce) == self.knock.commit
        if not committed or not mac_ok(
            self._keys.joiner_confirm, "confirm", (self._transcript, confirm.nonce), confirm.mac
        ):
            raise self.unconfirmed()
        self._nonce = confirm.nonce
        if self.gate is not None:  # another joiner may have won while this one confirmed
            self._gated(self.gate.accepted(self.hello.name, self._accepted.key))
        code = verification_code(code_digest(self._psk, self.hello, self.offer, confirm.nonce))
        self.session = Session(self.hello, self.offer, self._accepted, self.terms.host_seat, code)
        return []


class JoinerHandshake(_Machine):
    """The joiner's side: :meth:`start`, then :meth:`offered` with the host's offer (it returns
    the terms to decide on), :meth:`accept` or :meth:`decline`, and :meth:`confirmed`."""

    def __init__(
        self,
        me: Identity,
        name: str,
        host_fingerprint: str,
        secret: bytes,
        known: Peers,
        limit_ms: int = FORFEIT_MS,
    ) -> None:
        """``secret``: the invite's, or :data:`LAN_SECRET` for a host found on the LAN; ``known``:
        the known peers as read before the connection (the host's name and key are checked
        against them; the file is the driver's, told what to remember by :meth:`confirmed`);
        ``limit_ms``: this side's forfeit limit, stated in the accept."""
        self.me, self.host_fingerprint, self.secret, self.known = me, host_fingerprint, secret, known
        self.limit_ms = limit_ms
        self._eph_key, eph = _ephemeral()
        self._nonce = os.urandom(32)
        self.hello = Hello(proto=PROTOCOL, program=program_version(), name=name, eph=eph)
        commit = tagged_hash("code-nonce", self._nonce)
        self.knock = Knock(proof=knock_proof(secret, self.hello, commit), commit=commit)
        self.offer: Offer | None = None
        self._agreed: Session | None = None
        """The session as this side accepted it, before the host confirmed it."""
        self.session: Session | None = None
        """The session both sides hold, once the host confirmed the keys."""
        self._keys: SessionKeys | None = None
        self._transcript = b""

    @property
    def lan(self) -> bool:
        """Whether this is a LAN knock: the host's person decides after the keys are confirmed."""
        return self.secret == LAN_SECRET

    @property
    def code(self) -> str:
        """The verification code, once the rules are accepted (to compare while the host decides)."""
        return "" if self._agreed is None else self._agreed.code

    def start(self) -> list[Action]:
        """The opening messages."""
        return [Send(self.hello), Send(self.knock)]

    def aborted(self, abort: PeerAborted) -> P2PError:
        """What the host's ``abort`` means. A sealed one (after the accept) is the host's own: the
        abort itself, its detail shown. A clear one (before the offer) may come from anyone on the
        path, so none of its text is shown: the host's three clear refusals in our own words
        (another protocol version, no proof of the invite secret, a match with someone else
        on), any other reason code as :func:`clear_abort`. The last is a lost connection: a
        redial tries again (anyone on the path could send it)."""
        if self._keys is not None:
            return abort
        if abort.reason == "incompatible":
            other = Text(INCOMPATIBLE_HOST, version=program_version(), ours=PROTOCOL)
            return IncompatiblePeer(Text(N_("the host refused: {detail}"), detail=other))
        if abort.reason == "invite":
            return InviteRefused(Text(N_("the host refused: {detail}"), detail=Text(INVITE_REFUSAL)))
        if abort.reason == "busy":
            return ConnectionClosed(Text(N_("the host refused: {detail}"), detail=Text(HOST_BUSY)))
        return clear_abort(abort, N_("the connection was ended ({reason}) before the host proved who it is"))

    def offered(self, message: Message) -> Terms:
        """Check the host's offer; the terms to accept or decline."""
        offer = expect(message, Offer, "handshake")
        if (error := incompatible(offer.proto)) is not None:
            raise self._refuse("incompatible", error)
        if fingerprint(offer.key) != self.host_fingerprint:
            template = N_(
                "the host's key has fingerprint {theirs}, but the invite says "
                "{expected}: this is not the host who sent the invite"
            )
            mismatch = FingerprintMismatch(
                Text(template, theirs=fingerprint(offer.key), expected=self.host_fingerprint)
            )
            raise self._refuse("fingerprint", mismatch)
        check_signatures(self.hello, offer)
        try:  # remembered only once the host confirmed the keys
            self.known.check(offer.name, offer.key)
        except IdentityChanged as exc:
            raise self._refuse("identity", exc) from None
        self.offer = offer
        return Terms.of(offer)

    def decline(self) -> P2PError:
        """The rules are declined: the error to raise (and :attr:`refusal` to send)."""
        return self._refuse("declined", RulesDeclined(Text(N_("you declined the host's rules"))))

    def accept(self) -> list[Action]:
        """The rules are accepted: the accept in clear, then the key confirmation sealed."""
        assert self.offer is not None
        unsigned = Accept(key=self.me.public, limit_ms=self.limit_ms, sig=bytes(64))
        accept = unsigned.with_sig(
            sign(self.me.key, "accept-sig", session_id(self.hello, self.offer, unsigned))
        )
        self._transcript = transcript(self.hello, self.knock, self.offer, accept)
        self._keys = keys = SessionKeys.derive(
            _exchange(self._eph_key, self.offer.eph), self.secret, self._transcript
        )
        code = verification_code(code_digest(self.secret, self.hello, self.offer, self._nonce))
        self._agreed = Session(self.hello, self.offer, accept, 1 - self.offer.host_seat, code)
        confirm = mac(keys.joiner_confirm, "confirm", self._transcript, self._nonce)
        return [
            Send(accept),
            Seal(keys.joiner_to_host, keys.host_to_joiner),
            Send(Confirm(nonce=self._nonce, mac=confirm)),
        ]

    def confirmed(self, message: Message) -> list[Action]:
        """The host's confirmation: :attr:`session` is set, and the host is to be remembered."""
        assert self._agreed is not None and self._keys is not None and self.offer is not None
        confirmed = expect(message, Confirmed, "handshake")
        if not mac_ok(self._keys.host_confirm, "confirmed", (self._transcript, self._nonce), confirmed.mac):
            error = HandshakeError(Text(N_("the host's key confirmation failed")))
            raise self._refuse("confirm", error)
        self.session = self._agreed
        return [Remember(self.offer.name, self.offer.key)]
