"""The invite a host hands out: where to connect, whose key to expect, and the one-time secret.

``ADDRESS[,ADDRESS…]/FINGERPRINT/SECRET``, an address being ``HOST:PORT`` or
``[IPv6]:PORT``; fingerprint and secret are 32 lowercase base32 characters
(``a-z2-7``, 160 bits each):

>>> secret = bytes(range(20))
>>> invite = Invite.parse("192.0.2.7:4711,[::1]:4711/7j33u3l6rypiweqlbeiso7l7oiwizoth/" + base32(secret))
>>> invite.addresses
(('192.0.2.7', 4711), ('::1', 4711))
>>> invite.secret == secret
True
>>> str(invite)
'192.0.2.7:4711,[::1]:4711/7j33u3l6rypiweqlbeiso7l7oiwizoth/aaaqeayeaudaocajbifqydiob4ibceqt'
>>> Invite.parse("example.org:80/7j33u3l6rypiweqlbeiso7l7oiwizoth")
Traceback (most recent call last):
...
p2p.errors.InviteError: 'example.org:80/7j33u3l6rypiweqlbeiso7l7oiwizoth' is not an invite: expected ADDRESS:PORT/FINGERPRINT/SECRET (addresses separated by commas), like 192.0.2.7:47111/7j33u3l6rypiweqlbeiso7l7oiwizoth/aaaqeayeaudaocajbifqydiob4ibceqt
"""

from __future__ import annotations

import base64
import os
import re
from dataclasses import dataclass

from p2p.addresses import address_text
from p2p.crypto import base32
from p2p.errors import InviteError
from p2p.text import N_, Text

SECRET_BYTES = 20
"""The invite secret's size: 160 bits, 32 base32 characters."""
MAX_ADDRESSES = 16
_ADDRESS = re.compile(r"(?:\[(?P<v6>[0-9a-f:.]+(?:%[\w.-]+)?)\]|(?P<host>[\w.-]+)):(?P<port>[0-9]{1,5})")
_KEY = "[a-z2-7]{32}"
_EXAMPLE = "192.0.2.7:47111/7j33u3l6rypiweqlbeiso7l7oiwizoth/aaaqeayeaudaocajbifqydiob4ibceqt"

Address = tuple[str, int]


def new_secret() -> bytes:
    """A fresh invite secret from the operating system."""
    return os.urandom(SECRET_BYTES)


@dataclass(frozen=True)
class Invite:
    """The host's addresses (names, IPv4 or IPv6, tried in this order), its key's fingerprint, and
    the secret without which the host answers nothing."""

    addresses: tuple[Address, ...]
    fingerprint: str
    secret: bytes

    def __str__(self) -> str:
        where = ",".join(address_text(host, port) for host, port in self.addresses)
        return f"{where}/{self.fingerprint}/{base32(self.secret)}"

    @classmethod
    def parse(cls, text: str) -> Invite:
        """Read an invite (surrounding spaces and a leading ``trumps join`` are ignored; letter case
        does not matter)."""
        cleaned = text.strip().removeprefix("trumps join").strip()
        cleaned = cleaned.lower() if cleaned.isascii() else cleaned
        parts = cleaned.split("/")
        addresses = [_ADDRESS.fullmatch(a) for a in parts[0].split(",")] if len(parts) == 3 else []
        if (
            not addresses
            or len(addresses) > MAX_ADDRESSES
            or not all(m is not None and 0 < int(m["port"]) < 65536 and _dialable(m["host"]) for m in addresses)
            or not all(re.fullmatch(_KEY, key) for key in parts[1:])
        ):
            template = N_(
                "{text!r} is not an invite: expected ADDRESS:PORT/FINGERPRINT/SECRET "
                "(addresses separated by commas), like {example}"
            )
            raise InviteError(Text(template, text=text[:200], example=_EXAMPLE))
        found = tuple((m["v6"] or m["host"], int(m["port"])) for m in addresses if m is not None)
        secret = base64.b32decode(parts[2].upper())
        return cls(found, parts[1], secret)


def _dialable(host: str | None) -> bool:
    """Whether a host name (``None`` for an IPv6 address) can be looked up: every label of 1-63
    characters once IDNA-encoded (the system's resolver refuses others, with a ``UnicodeError``)."""
    try:
        return host is None or bool(host.encode("idna"))
    except UnicodeError:
        return False
