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

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

DOMAIN = "your-trumps/v1/"


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
    digest = tagged_hash("fingerprint", public_key)[:20]
    return base64.b32encode(digest).decode().lower()


def verification_code(session_id: bytes) -> str:
    """The short code both screens show; equal codes mean nobody sits in the middle.

    >>> verification_code(bytes(32))
    '086 559'
    """
    number = int.from_bytes(tagged_hash("code", session_id)[:8], "big") % 1_000_000
    return f"{number // 1000:03d} {number % 1000:03d}"


def sign(key: Ed25519PrivateKey, tag: str, digest: bytes) -> bytes:
    """An Ed25519 signature over ``tagged_hash(tag, digest)``."""
    return key.sign(tagged_hash(tag, digest))


def signature_ok(public_key: bytes, tag: str, digest: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is the holder of ``public_key``'s :func:`sign` of ``digest``."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, tagged_hash(tag, digest))
    except (InvalidSignature, ValueError):
        return False
    return True
