"""An independent peer for the network duel, written from ``docs/protocol.md`` alone.

Nothing here reads or imports ``p2p``: the frames, the encoding, both sides of the handshake, the key
schedule, the sealed channel, the chain of signed links, the fair deal, resuming and the finals are
all built from the document (and ``docs/rules.md`` / ``docs/notation.md``, through ``engine``, for
the rules, the positions and the deal). It exists to prove the document is a contract another
implementation can be written against (issue 11, "The document is the contract");
``tests/test_p2p_interop.py`` plays it as a joiner against the real ``trumps host`` and as a host
against the real ``trumps join``; ``tests/test_exit_routes.py`` has it leave the real program by
every way out of a dealt game ("Exit routes"), in either seat.

It is a test helper, not a second client: blocking sockets, a loopback peer, one match, the first
legal move, and every check that fails raises :class:`InteropError` with what went wrong.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import os
import select
import socket
import struct
import time
from dataclasses import dataclass, field
from typing import Any, NoReturn

import msgpack  # type: ignore[import-untyped]  # msgpack ships no type hints
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.hashes import SHA256
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from engine import Game, Rules, deal

PROTOCOL = 3
MAX_FRAME = 16 * 1024
DEFAULT_TIMEOUT = 15.0
"""Seconds a blocking read or connect may take."""
FORFEIT_MS = 180_000
"""The forfeit limit a side states by leaving ``offer.limit_ms`` / ``accept.limit_ms`` out."""
STALL_PING = 0.5
"""Seconds between the keep-alives of a side that stalls (well inside any side's dead limit)."""

# "Messages" (handshake) and "Sealed messages": every field, in wire order after ``t``.
FIELDS: dict[str, tuple[str, ...]] = {
    "hello": ("proto", "program", "name", "eph"),
    "knock": ("proof", "commit"),
    "offer": (
        "proto",
        "program",
        "name",
        "eph",
        "key",
        "pickup",
        "sixes",
        "max_moves",
        "games",
        "host_seat",
        "limit_ms",
        "sig",
    ),
    "accept": ("key", "limit_ms", "sig"),
    "confirm": ("nonce", "mac"),
    "confirmed": ("mac",),
    "abort": ("reason", "detail"),
    "commit": ("game", "commitment", "sig"),
    "reveal": ("game", "pref", "secret", "sig"),
    "move": ("game", "n", "move", "hash", "sig"),
    "final": ("transcript", "sig"),
    "chat": ("text",),
    "rematch": ("want",),
    "ping": (),
    "bye": (),
    "resume": ("root", "links", "transcript", "sig"),
}
"""Each message's fields in their wire order."""
OPTIONAL = {"limit_ms"}
"""Fields left out for their default ("Optional flags"; this peer sends no hints and takes none)."""


class InteropError(Exception):
    """The peer did something the document says it must not (or the document is wrong)."""


class PeerAborted(InteropError):
    """The peer sent ``abort``: its ``reason`` and ``detail``."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"the peer aborted ({reason}): {detail}")
        self.reason = reason


class Left(Exception):
    """This side left the match the way its :class:`Deviation` said (what a test plays): ``how``,
    the reason of the ``abort`` it sent."""

    def __init__(self, how: str) -> None:
        super().__init__(f"this side left the match ({how})")
        self.how = how


# ------------------------------------------------------------ "Byte conventions"


def tagged_hash(tag: str, *parts: bytes) -> bytes:
    """``H(tag, f1, f2, …)``: SHA-256 over ``len(x) ‖ x``, lengths 4 bytes big-endian."""
    digest = hashlib.sha256()
    for part in (("your-trumps/v1/" + tag).encode(), *parts):
        digest.update(struct.pack(">I", len(part)) + part)
    return digest.digest()


def mac(key: bytes, tag: str, *parts: bytes) -> bytes:
    """``MAC(k, tag, f…)``: HMAC-SHA256 over ``H(tag, f…)``."""
    return hmac.new(key, tagged_hash(tag, *parts), hashlib.sha256).digest()


def sign(key: Ed25519PrivateKey, tag: str, data: bytes) -> bytes:
    """``Sign(k, tag, d)``: pure Ed25519 over the 32 bytes ``H(tag, d)``."""
    return key.sign(tagged_hash(tag, data))


def signed_by(public: bytes, signature: bytes, tag: str, data: bytes) -> bool:
    """Whether ``signature`` is ``Sign(public, tag, data)``."""
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(signature, tagged_hash(tag, data))
    except Exception:  # InvalidSignature, or a key that is not a point
        return False
    return True


def raw(public: Ed25519PublicKey | X25519PublicKey) -> bytes:
    """A public key's raw 32 bytes."""
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw)


def fingerprint(key: bytes) -> str:
    """base32 (lowercase, no padding) of the first 20 bytes of ``H("fingerprint", key)``."""
    return base64.b32encode(tagged_hash("fingerprint", key)[:20]).decode().lower()


def enc(message: dict[str, Any]) -> bytes:
    """The canonical msgpack of a wire map: ``t`` first, then the table's order."""
    kind = message["t"]
    ordered = {"t": kind} | {name: message[name] for name in FIELDS[kind] if name in message}
    return bytes(msgpack.packb(ordered, use_bin_type=True))


def body(message: dict[str, Any]) -> dict[str, Any]:
    """A message without its ``sig``."""
    return {name: value for name, value in message.items() if name != "sig"}


def decode(payload: bytes) -> dict[str, Any]:
    """One msgpack map of a known type with exactly its fields ("encoding" and "schema" layers)."""
    try:
        message = msgpack.unpackb(
            payload, raw=False, strict_map_key=True, max_str_len=1024, max_bin_len=1024,
            max_array_len=64, max_map_len=64, ext_hook=_no_ext,
        )  # fmt: skip
    except Exception as exc:
        raise InteropError(f"malformed frame from the peer: {exc}") from exc
    if not isinstance(message, dict) or message.get("t") not in FIELDS:
        raise InteropError(f"not a message of the protocol: {message!r}")
    fields = {"t", *FIELDS[message["t"]]}
    if not fields - OPTIONAL <= set(message) <= fields:
        raise InteropError(f"{message['t']} with the fields {sorted(message)}")
    return message


def _no_ext(code: int, data: bytes) -> Any:
    raise ValueError("ext types are not allowed")


# ------------------------------------------------------------ "Invite"


@dataclass(frozen=True)
class Invite:
    """``ADDRESSES/FINGERPRINT/SECRET`` as the host prints it."""

    addresses: tuple[tuple[str, int], ...]
    fingerprint: str
    secret: bytes

    @classmethod
    def parse(cls, text: str) -> Invite:
        """Read an invite (a leading ``trumps join`` and letter case ignored)."""
        text = text.strip()
        if text.lower().startswith("trumps join"):
            text = text[len("trumps join") :].strip()
        addresses, fp, secret = text.lower().split("/")
        pairs = []
        for item in addresses.split(","):
            host, _, port = item.rpartition(":")
            pairs.append((host.strip("[]"), int(port)))
        padded = secret.upper() + "=" * (-len(secret) % 8)
        return cls(tuple(pairs), fp, base64.b32decode(padded))


# ------------------------------------------------------------ frames and "Sealed frames"


class Line:
    """One TCP connection: length-prefixed frames, clear or sealed (ChaCha20-Poly1305)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.send_key: bytes | None = None
        self.open_key: bytes | None = None
        self.sent = 0
        self.received = 0

    def send(self, message: dict[str, Any]) -> None:
        """Send one message, sealed once the keys are set."""
        payload = enc(message)
        if self.send_key is not None:
            counter = struct.pack(">Q", self.sent)
            payload = counter + ChaCha20Poly1305(self.send_key).encrypt(b"\0" * 4 + counter, payload, counter)
            self.sent += 1
        self.sock.sendall(struct.pack(">I", len(payload)) + payload)

    def receive(self) -> dict[str, Any]:
        """The next message (opened when sealed); an ``abort`` raises :class:`PeerAborted`."""
        (size,) = struct.unpack(">I", self._exactly(4))
        if not 0 < size <= MAX_FRAME:
            raise InteropError(f"a frame of {size} bytes")
        payload = self._exactly(size)
        if self.open_key is not None:
            counter = payload[:8]
            if struct.unpack(">Q", counter)[0] != self.received:
                raise InteropError(f"sealed frame {counter.hex()} where {self.received} was due")
            nonce = b"\0" * 4 + counter
            payload = ChaCha20Poly1305(self.open_key).decrypt(nonce, payload[8:], counter)
            self.received += 1
        message = decode(payload)
        if enc(message) != payload:  # "Byte conventions": enc is canonical, what is sent is enc
            raise InteropError(f"{message['t']} not in the canonical encoding: {payload.hex()}")
        if message["t"] == "abort":
            raise PeerAborted(message["reason"], message["detail"])
        return message

    def _exactly(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(count - len(data))
            if not chunk:
                raise InteropError("the peer closed the connection")
            data += chunk
        return data


# ------------------------------------------------------------ "Handshake"


@dataclass
class Session:
    """What the handshake fixed."""

    line: Line
    session_id: bytes
    code: str
    peer_key: bytes
    peer_name: str
    rules: Rules
    games: int
    seat: int
    messages: dict[str, dict[str, Any]]
    """The clear messages as sent (the record's header holds ``hello``, ``offer`` and ``accept``)."""


def handshake(
    sock: socket.socket,
    invite: Invite,
    identity: Ed25519PrivateKey,
    name: str,
    proto: int = PROTOCOL,
    limit_ms: int = FORFEIT_MS,
) -> Session:
    """Hello + knock, check the offer, accept (stating our forfeit limit ``limit_ms``), confirm,
    check confirmed: the joiner's side."""
    line = Line(sock)
    eph = X25519PrivateKey.generate()
    hello = {
        "t": "hello",
        "proto": proto,
        "program": "interop-peer",
        "name": name,
        "eph": raw(eph.public_key()),
    }
    nonce = os.urandom(32)
    commit = tagged_hash("code-nonce", nonce)
    knock = {"t": "knock", "proof": mac(invite.secret, "knock", enc(hello), commit), "commit": commit}
    line.send(hello)
    line.send(knock)
    offer = line.receive()
    if offer["t"] != "offer" or offer["proto"] != PROTOCOL:
        raise InteropError(f"expected an offer of protocol {PROTOCOL}, got {offer!r}")
    if fingerprint(offer["key"]) != invite.fingerprint:
        raise InteropError("the offer's key is not the invite's")
    t1 = tagged_hash("offer", enc(hello), enc(body(offer)))
    if not signed_by(offer["key"], offer["sig"], "offer-sig", t1):
        raise InteropError("the offer's signature does not verify over T1")
    accept: dict[str, Any] = {"t": "accept", "key": raw(identity.public_key())} | _stated(limit_ms)
    session_id = tagged_hash("session", t1, offer["sig"], enc(accept))
    accept["sig"] = sign(identity, "accept-sig", session_id)
    line.send(accept)
    transcript = tagged_hash("transcript", enc(hello), enc(knock), enc(offer), enc(accept))
    shared = eph.exchange(X25519PublicKey.from_public_bytes(offer["eph"]))
    okm = HKDF(SHA256(), 128, transcript, b"your-trumps/v3/keys").derive(shared + invite.secret)
    line.open_key, line.send_key = okm[0:32], okm[32:64]  # k_HJ opens, k_JH seals
    line.send({"t": "confirm", "nonce": nonce, "mac": mac(okm[64:96], "confirm", transcript, nonce)})
    confirmed = line.receive()
    if confirmed["t"] != "confirmed":
        raise InteropError(f"expected confirmed, got {confirmed!r}")
    if not hmac.compare_digest(confirmed["mac"], mac(okm[96:128], "confirmed", transcript, nonce)):
        raise InteropError("the host's confirmation MAC is wrong")
    rules = Rules(pickup=offer["pickup"], sixes=offer["sixes"], max_moves=offer["max_moves"])
    return Session(
        line, session_id, verification_code(invite.secret, t1, nonce), offer["key"], offer["name"],
        rules, offer["games"], 1 - offer["host_seat"], {"hello": hello, "knock": knock, "offer": offer, "accept": accept},
    )  # fmt: skip


def _stated(limit_ms: int) -> dict[str, int]:
    """The ``limit_ms`` field as sent: left out for the default (180 000 ms)."""
    return {} if limit_ms == FORFEIT_MS else {"limit_ms": limit_ms}


def stated_limit(message: dict[str, Any]) -> int:
    """The forfeit limit an offer or accept states (milliseconds)."""
    return int(message.get("limit_ms", FORFEIT_MS))


def verification_code(secret: bytes, t1: bytes, nonce: bytes) -> str:
    """The first 8 bytes of ``H("code", secret, T1, nonce)``, big-endian, mod 10⁶: ``086 559``."""
    number = int.from_bytes(tagged_hash("code", secret, t1, nonce)[:8], "big") % 10**6
    return f"{number:06d}"[:3] + " " + f"{number:06d}"[3:]


def serve(
    sock: socket.socket,
    secret: bytes,
    identity: Ed25519PrivateKey,
    name: str,
    rules: Rules,
    games: int,
    limit_ms: int = FORFEIT_MS,
) -> Session:
    """Check hello + knock, offer (stating our forfeit limit ``limit_ms``), check accept and
    confirm, send confirmed: the host's side (player 0)."""
    line = Line(sock)
    hello, knock = line.receive(), line.receive()
    if hello["t"] != "hello" or hello["proto"] != PROTOCOL or knock["t"] != "knock":
        raise InteropError(f"expected a protocol-{PROTOCOL} hello and a knock, got {hello!r}, {knock!r}")
    if not hmac.compare_digest(knock["proof"], mac(secret, "knock", enc(hello), knock["commit"])):
        raise InteropError("the knock does not prove the invite secret")
    eph = X25519PrivateKey.generate()
    offer: dict[str, Any] = {
        "t": "offer", "proto": PROTOCOL, "program": "interop-peer", "name": name, "eph": raw(eph.public_key()),
        "key": raw(identity.public_key()), "pickup": rules.pickup, "sixes": rules.sixes,
        "max_moves": rules.max_moves, "games": games, "host_seat": 0, **_stated(limit_ms),
    }  # fmt: skip
    t1 = tagged_hash("offer", enc(hello), enc(offer))
    offer["sig"] = sign(identity, "offer-sig", t1)
    line.send(offer)
    accept = line.receive()
    if accept["t"] != "accept":
        raise InteropError(f"expected an accept, got {accept!r}")
    session_id = tagged_hash("session", t1, offer["sig"], enc(body(accept)))
    if not signed_by(accept["key"], accept["sig"], "accept-sig", session_id):
        raise InteropError("the accept's signature does not verify over S")
    transcript = tagged_hash("transcript", enc(hello), enc(knock), enc(offer), enc(accept))
    shared = eph.exchange(X25519PublicKey.from_public_bytes(hello["eph"]))
    okm = HKDF(SHA256(), 128, transcript, b"your-trumps/v3/keys").derive(shared + secret)
    line.send_key, line.open_key = okm[0:32], okm[32:64]  # k_HJ seals, k_JH opens
    confirm = line.receive()
    nonce = confirm["nonce"] if confirm["t"] == "confirm" else b""
    if tagged_hash("code-nonce", nonce) != knock["commit"]:
        raise InteropError(f"the confirm does not open the knock's commitment: {confirm!r}")
    if not hmac.compare_digest(confirm["mac"], mac(okm[64:96], "confirm", transcript, nonce)):
        raise InteropError("the joiner's confirmation MAC is wrong")
    line.send({"t": "confirmed", "mac": mac(okm[96:128], "confirmed", transcript, nonce)})
    return Session(
        line, session_id, verification_code(secret, t1, nonce), accept["key"], hello["name"], rules, games, 0,
        {"hello": hello, "knock": knock, "offer": offer, "accept": accept},
    )  # fmt: skip


def invite_line(addresses: list[tuple[str, int]], identity: Ed25519PrivateKey, secret: bytes) -> str:
    """``ADDRESSES/FINGERPRINT/SECRET`` for our own key and secret."""
    where = ",".join(f"{host}:{port}" for host, port in addresses)
    code = base64.b32encode(secret).decode().lower().rstrip("=")
    return f"{where}/{fingerprint(raw(identity.public_key()))}/{code}"


# ------------------------------------------------------------ "The match" and "The fair deal"


def g4(number: int) -> bytes:
    """A game number or link count inside a hash: 4 bytes big-endian."""
    return struct.pack(">I", number)


@dataclass(frozen=True)
class Deviation:
    """Where this side departs from a plain match (counting its own moves from 1, over the match)."""

    cut_before_move: int | None = None
    """Close the line instead of sending this move, then redial and resume ("Reconnect and resume")."""
    cut_after_move: int | None = None
    """Send this move, lose the host's next link on the line, then redial and resume: the host resends it."""
    chatter_before_move: int | None = None
    """Send a ``ping`` and a ``chat`` line before this move (neither is part of the transcript)."""
    bad_hash_at_move: int | None = None
    """Send this move with a wrong position hash (a provable violation)."""
    abort_before_move: tuple[str, int] | None = None
    """``(reason, move)``: send a sealed ``abort`` of this reason instead of this move, and leave
    ("Leaving after the deal"): ``quit``, another reason, or a baseless ``forfeit`` claim."""
    stall_before_move: int | None = None
    """Keep sending keep-alives instead of this move, never sending it, until the peer's ``abort``
    (its stall claim) comes ("Keep-alives, silence, stalls and forfeits")."""
    lost_before_move: int | None = None
    """Cut the line instead of this move and come back as a program restarted without its saved
    match: the peer's resume claim is answered by ``abort lost`` ("Reconnect and resume", 6)."""


@dataclass
class Match:
    """The chain of signed links, played by this side with the first legal move."""

    session: Session
    identity: Ed25519PrivateKey
    invite: Invite | None
    """How to redial after a cut (a joiner's; ``None`` for a host, which waits instead)."""
    name: str
    deviation: Deviation = Deviation()
    preference: str = "HS"
    results: list[int | None] = field(default_factory=list)
    reconnects: int = 0
    listening: tuple[socket.socket, bytes] | None = None
    """A host's listener and invite secret, to take its joiner back after a cut (``None``: a joiner)."""

    def __post_init__(self) -> None:
        self.root = self.session.session_id  # a first match: root = S
        self.transcripts = [self.root]  # T_0, T_1, …: the transcript after each count of links
        self.senders: list[int] = []  # who sent each link
        self.sent: dict[int, dict[str, Any]] = {}  # our own links by index, to resend after a cut
        self.claimed: tuple[int, bytes] | None = None  # the peer's claim beyond our links, checked later
        self.my_moves = 0
        me = self.session.seat
        self.keys = {me: raw(self.identity.public_key()), 1 - me: self.session.peer_key}

    @property
    def transcript(self) -> bytes:
        """The transcript after every link so far."""
        return self.transcripts[-1]

    def play(self) -> list[int | None]:
        """Every game, then the finals and the byes; each game's winner (``None``: a draw)."""
        dealer: int | None = None
        for number in range(1, self.session.games + 1):
            game, dealer = self._deal(number, dealer)
            self._moves(number, game)
            assert game.result is not None
            self.results.append(game.result.winner)
            winner = game.result.winner
            dealer = 1 - dealer if winner is None else 1 - winner  # "the loser deals; after a draw the other"
        self._finals()
        return self.results

    # -- links

    def _append(self, link: dict[str, Any], seat: int) -> bytes:
        self.transcripts.append(tagged_hash("link", self.transcript, enc(body(link))))
        self.senders.append(seat)
        return self.transcript

    def _send_link(self, link: dict[str, Any], cut: bool = False) -> None:
        link["sig"] = sign(self.identity, "link-sig", self._append(link, self.session.seat))
        self.sent[len(self.senders)] = link
        if cut:  # the link is lost on the line: it goes out again after the resume
            self._resume()
        else:
            self.session.line.send(link)

    def _receive_link(self, kind: str, number: int) -> dict[str, Any]:
        link = self._next()
        if self.claimed is not None and self.claimed[0] == len(self.senders):
            raise InteropError("the peer claimed more links than it resent")
        if link["t"] != kind or link["game"] != number:
            raise InteropError(f"expected the peer's {kind} of game {number}, got {link!r}")
        before = self.transcript
        transcript = self._append(link, 1 - self.session.seat)
        if not signed_by(self.keys[1 - self.session.seat], link["sig"], "link-sig", transcript):
            raise InteropError(f"the peer's {kind} does not verify over the transcript after {before.hex()}")
        if self.claimed is not None and self.claimed[0] == len(self.senders):
            if self.claimed[1] != transcript:  # "a side holding fewer links … checks the claim" now
                raise InteropError("the peer's resent links do not lead to the transcript it claimed")
            self.claimed = None
        return link

    def _next(self) -> dict[str, Any]:
        while True:
            message = self.session.line.receive()
            if message["t"] not in ("ping", "chat"):  # not part of the transcript
                return message

    # -- "Reconnect and resume"

    def _reconnect(self) -> Session:
        """The line closed, then a fresh connection and handshake with the same peer: a joiner
        redials, a host takes its joiner back on its listener."""
        timeout = self.session.line.sock.gettimeout() or DEFAULT_TIMEOUT
        self.session.line.sock.close()
        self.reconnects += 1
        if self.invite is not None:
            limit_ms = stated_limit(self.session.messages["accept"])
            sock = connect(self.invite, timeout)
            fresh = handshake(sock, self.invite, self.identity, self.name, limit_ms=limit_ms)
        else:
            assert self.listening is not None, "a host takes its joiner back on its listener"
            listener, secret = self.listening
            limit_ms = stated_limit(self.session.messages["offer"])  # the same terms, for the same match
            rules, games = self.session.rules, self.session.games
            fresh = accepted(listener, secret, self.identity, self.name, rules, games, limit_ms)
        if fresh.peer_key != self.session.peer_key:
            raise InteropError("another peer key after the cut")
        self.session.line = fresh.line
        return fresh

    def _resume(self) -> None:
        """A fresh connection and handshake, both resume claims, then resend what the peer lacks."""
        fresh = self._reconnect()
        links = len(self.senders)
        claim = tagged_hash("resume", self.root, g4(links), self.transcript)
        fresh.line.send(
            {"t": "resume", "root": self.root, "links": links, "transcript": self.transcript,
             "sig": sign(self.identity, "resume-sig", claim)}
        )  # fmt: skip
        theirs = self._next()
        if theirs["t"] != "resume" or theirs["root"] != self.root:
            raise InteropError(f"expected the peer's resume claim of this match, got {theirs!r}")
        held = theirs["links"]
        signed = tagged_hash("resume", self.root, g4(held), theirs["transcript"])
        if not signed_by(self.session.peer_key, theirs["sig"], "resume-sig", signed):
            raise InteropError("the peer's resume claim does not verify")
        if held > links:  # the peer resends what we lack, checked like fresh links
            self.claimed = (held, theirs["transcript"])
            return
        lost_by_peer = set(self.senders[held:]) - {self.session.seat}  # it cannot lose links it sent
        if theirs["transcript"] != self.transcripts[held] or lost_by_peer:
            raise InteropError("the peer claims another history")
        for index in range(held + 1, links + 1):
            fresh.line.send(self.sent[index])

    # -- the deal

    def _deal(self, number: int, dealer: int | None) -> tuple[Game, int]:
        me, opener = self.session.seat, (number - 1) % 2
        secret = os.urandom(32)
        commitment = self._commitment(number, me, self.preference, secret)
        commitments: dict[int, bytes] = {}
        for seat in (opener, 1 - opener):
            if seat == me:
                self._send_link({"t": "commit", "game": number, "commitment": commitment})
                commitments[me] = commitment
            else:
                commitments[seat] = self._receive_link("commit", number)["commitment"]
        secrets, prefs = {me: secret}, {me: self.preference}
        for seat in (opener, 1 - opener):
            if seat == me:
                self._send_link({"t": "reveal", "game": number, "pref": self.preference, "secret": secret})
                continue
            reveal = self._receive_link("reveal", number)
            if self._commitment(number, seat, reveal["pref"], reveal["secret"]) != commitments[seat]:
                raise InteropError(f"the peer's reveal of game {number} does not open its commitment")
            secrets[seat], prefs[seat] = reveal["secret"], reveal["pref"]
        if dealer is None:  # the coin is the first dealer's seat
            dealer = tagged_hash("coin", self.root, secrets[0], secrets[1])[0] & 1
        suits = {seat: prefs[seat][0] for seat in (0, 1)}
        if suits[0] == suits[1]:  # the elder keeps it, the dealer gets its second choice
            suits[dealer] = prefs[dealer][1]
        seed = tagged_hash("seed", self.root, g4(number), secrets[0], secrets[1])
        return Game(deal(seed, dealer, suits[0] + suits[1], self.session.rules)), dealer

    def _commitment(self, number: int, seat: int, pref: str, secret: bytes) -> bytes:
        return tagged_hash("commit", self.root, g4(number), bytes([seat]), pref.encode(), secret)

    # -- moves

    def _moves(self, number: int, game: Game) -> None:
        count = 0
        while game.result is None:
            count += 1
            if game.position.turn == self.session.seat:
                self._my_move(number, count, game)
                continue
            link = self._receive_link("move", number)
            if link["n"] != count:
                raise InteropError(f"the peer's move numbered {link['n']}, {count} was due")
            after = game.play(link["move"])
            if str(game.moves[-1]) != link["move"] or link["hash"] != _position_hash(after):
                raise InteropError(f"the peer's move {link['move']} is not canonical or its hash is wrong")

    def _my_move(self, number: int, count: int, game: Game) -> None:
        self.my_moves += 1
        deviation = self.deviation
        if self.my_moves == deviation.chatter_before_move:
            self.session.line.send({"t": "ping"})
            self.session.line.send({"t": "chat", "text": "good luck — удачи"})
        if deviation.abort_before_move is not None and self.my_moves == deviation.abort_before_move[1]:
            self._leave(deviation.abort_before_move[0])
        if self.my_moves == deviation.stall_before_move:
            self._stall()
        if self.my_moves == deviation.lost_before_move:
            self._come_back_without_the_match()
        move = game.position.legal_moves()[0]
        digest = _position_hash(game.play(move))
        if self.my_moves == self.deviation.bad_hash_at_move:
            digest = bytes(32)
        link = {"t": "move", "game": number, "n": count, "move": str(move), "hash": digest}
        self._send_link(link, cut=self.my_moves == self.deviation.cut_before_move)
        if self.my_moves == self.deviation.cut_after_move:
            self._next()  # the peer's answer, lost on the line
            self._resume()

    # -- ways out ("Exit routes")

    def _leave(self, reason: str) -> NoReturn:
        """Send a sealed ``abort`` and go, once the peer has closed the line: closing ours first
        with its keep-alives unread would reset the connection, the abort perhaps with it."""
        line = self.session.line
        line.send({"t": "abort", "reason": reason, "detail": f"the interop peer leaves ({reason})"})
        line.sock.shutdown(socket.SHUT_WR)
        with contextlib.suppress(OSError):  # a reset, or the read timeout: the peer had its chance
            while line.sock.recv(4096):
                pass
        raise Left(reason)

    def _stall(self) -> NoReturn:
        """Keep the line alive and never send the move due: the peer's ``abort`` ends it
        (:class:`PeerAborted`)."""
        line = self.session.line
        deadline = time.monotonic() + (line.sock.gettimeout() or DEFAULT_TIMEOUT)
        while time.monotonic() < deadline:
            line.send({"t": "ping"})
            if select.select([line.sock], [], [], STALL_PING)[0]:
                line.receive()  # a keep-alive or a chat line, or the abort it raises
        raise InteropError("the peer never ended this side's stall")

    def _come_back_without_the_match(self) -> NoReturn:
        """Cut the line and come back as a program restarted without its saved match (the same
        player, key and name): the peer's resume claim reaches a side that has no match."""
        self._reconnect()
        claim = self._next()
        if claim["t"] != "resume" or claim["root"] != self.root:
            raise InteropError(f"expected the peer's resume claim of this match, got {claim!r}")
        self._leave("lost")

    # -- the end

    def _finals(self) -> None:
        end = tagged_hash("final", self.root, self.transcript)
        for seat in (0, 1):
            if seat == self.session.seat:
                mine = {
                    "t": "final",
                    "transcript": self.transcript,
                    "sig": sign(self.identity, "final-sig", end),
                }
                self.session.line.send(mine)
                continue
            final = self._next()
            if final["t"] != "final" or final["transcript"] != self.transcript:
                raise InteropError(f"expected the peer's final over T_end, got {final!r}")
            if not signed_by(self.keys[seat], final["sig"], "final-sig", end):
                raise InteropError("the peer's final does not verify")
        self.session.line.send({"t": "bye"})
        bye = self._next()
        if bye["t"] != "bye":
            raise InteropError(f"expected the peer's bye, got {bye!r}")


def _position_hash(position: Any) -> bytes:
    return tagged_hash("position", position.notation().encode())


def connect(invite: Invite, timeout: float) -> socket.socket:
    """A TCP connection to the invite's first address."""
    host, port = invite.addresses[0]
    sock = socket.create_connection((host, port), timeout=timeout)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def accepted(
    listener: socket.socket,
    secret: bytes,
    identity: Ed25519PrivateKey,
    name: str,
    rules: Rules,
    games: int,
    limit_ms: int = FORFEIT_MS,
) -> Session:
    """The next joiner on ``listener``, its handshake done (:func:`serve`)."""
    sock, _ = listener.accept()
    sock.settimeout(listener.gettimeout())
    try:
        return serve(sock, secret, identity, name, rules, games, limit_ms)
    except BaseException:
        sock.close()
        raise


def host(
    listener: socket.socket,
    secret: bytes,
    identity: Ed25519PrivateKey,
    rules: Rules,
    games: int,
    deviation: Deviation = Deviation(),
    limit_ms: int = FORFEIT_MS,
) -> Match:
    """Accept one joiner on ``listener`` and play the whole match as player 0 (departing from it as
    ``deviation`` says; stating the forfeit limit ``limit_ms``)."""
    session = accepted(listener, secret, identity, "ann", rules, games, limit_ms)
    match = Match(session, identity, None, "ann", deviation, listening=(listener, secret))
    try:
        match.play()
    finally:
        match.session.line.sock.close()
    return match


def join(
    invite: Invite,
    name: str = "bob",
    timeout: float = DEFAULT_TIMEOUT,
    deviation: Deviation = Deviation(),
    limit_ms: int = FORFEIT_MS,
) -> Match:
    """Join the invite's first address and play the whole match (departing from it as ``deviation``
    says; stating the forfeit limit ``limit_ms``)."""
    identity = Ed25519PrivateKey.generate()
    session = handshake(connect(invite, timeout), invite, identity, name, limit_ms=limit_ms)
    match = Match(session, identity, invite, name, deviation)
    try:
        match.play()
    finally:
        match.session.line.sock.close()
    return match
