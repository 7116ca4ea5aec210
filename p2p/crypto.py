"""The protocol's hashing and signing conventions, on `cryptography` primitives only.

Every hash is SHA-256 over a domain tag and fields, each prefixed by its
4-byte big-endian length, so no two different field lists hash alike and no
hash of one kind can pass for another:

>>> tagged_hash("demo", b"ab", b"c") == tagged_hash("demo", b"a", b"bc")
False
>>> len(fingerprint(bytes(32)))
32
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

DOMAIN = "your-trumps/v1/"
_SMALL_ORDER = frozenset(
    bytes.fromhex(point)
    for point in (
        "00" * 32,
        "01" + "00" * 31,
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "ec" + "ff" * 30 + "7f",
        "ed" + "ff" * 30 + "7f",
        "ee" + "ff" * 30 + "7f",
    )
)
"""Ed25519's points of small order, sign bit clear: libsodium's list (the last two are the
non-canonical encodings y = p and y = p + 1 of two of the others)."""


def tagged_hash(tag: str, *parts: bytes) -> bytes:
    """SHA-256 of the length-prefixed domain tag ``your-trumps/v1/<tag>`` and ``parts``."""
    digest = hashlib.sha256()
    for part in (f"{DOMAIN}{tag}".encode(), *parts):
        digest.update(len(part).to_bytes(4, "big"))
        digest.update(part)
    return digest.digest()


def fingerprint(public_key: bytes) -> str:
    """The identity key's fingerprint as the invite carries it: 160 bits, base32.

    >>> fingerprint(bytes(32))
    '7j33u3l6rypiweqlbeiso7l7oiwizoth'
    """
    return base32(tagged_hash("fingerprint", public_key)[:20])


def verification_code(digest: bytes) -> str:
    """The six digits both screens show, from ``digest`` (see :func:`p2p.handshake.code_digest`):
    its first 8 bytes as a big-endian number, mod 10⁶, as ``ddd ddd``.

    >>> verification_code(bytes(32))
    '000 000'
    >>> verification_code(bytes.fromhex("00000000000f423f") + bytes(24))
    '999 999'
    """
    number = int.from_bytes(digest[:8], "big") % 1_000_000
    return f"{number // 1000:03d} {number % 1000:03d}"


def mac(key: bytes, tag: str, *parts: bytes) -> bytes:
    """HMAC-SHA256 under ``key`` of ``tagged_hash(tag, *parts)``."""
    return hmac.new(key, tagged_hash(tag, *parts), hashlib.sha256).digest()


def mac_ok(key: bytes, tag: str, parts: tuple[bytes, ...], claimed: bytes) -> bool:
    """Whether ``claimed`` is :func:`mac` of ``parts`` (compared in constant time)."""
    return hmac.compare_digest(mac(key, tag, *parts), claimed)


def base32(data: bytes) -> str:
    """Lowercase RFC 4648 base32 without padding (``a-z2-7``), as fingerprints and invite secrets use.

    >>> base32(bytes(20))
    'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
    """
    return base64.b32encode(data).decode().rstrip("=").lower()


def sign(key: Ed25519PrivateKey, tag: str, digest: bytes) -> bytes:
    """An Ed25519 signature over ``tagged_hash(tag, digest)``."""
    return key.sign(tagged_hash(tag, digest))


def small_order(public_key: bytes) -> bool:
    """Whether ``public_key`` encodes a point of small order (either sign bit). Under such a key a
    signature verifies without any private key (under the neutral point one 64-byte value verifies
    every message), and OpenSSL's Ed25519 takes them, so :func:`signature_ok` refuses them.

    >>> small_order(bytes([1]) + bytes(31)), small_order(bytes(31) + b"\\x80"), small_order(bytes([9]) * 32)
    (True, True, False)
    """
    return len(public_key) == 32 and public_key[:31] + bytes([public_key[31] & 0x7F]) in _SMALL_ORDER


def signature_ok(public_key: bytes, tag: str, digest: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is the holder of ``public_key``'s :func:`sign` of ``digest`` (never
    under a key of :func:`small_order`, which no private key is needed to sign for)."""
    if small_order(public_key):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, tagged_hash(tag, digest))
    except (InvalidSignature, ValueError):
        return False
    return True
