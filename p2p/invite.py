"""The invite a host hands out: where to connect and whose key to expect.

>>> invite = Invite.parse("[::1]:4711/7j33u3l6rypiweqlbeiso7l7oiwizoth")
>>> invite.host, invite.port
('::1', 4711)
>>> str(invite)
'[::1]:4711/7j33u3l6rypiweqlbeiso7l7oiwizoth'
>>> Invite.parse("example.org:80")
Traceback (most recent call last):
...
p2p.errors.InviteError: 'example.org:80' is not an invite: expected HOST:PORT/FINGERPRINT, like 192.0.2.7:4711/7j33u3l6rypiweqlbeiso7l7oiwizoth
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from p2p.errors import InviteError
from p2p.text import N_, Text

_INVITE = re.compile(
    r"(?:\[(?P<v6>[0-9A-Fa-f:.%\w]+)\]|(?P<host>[\w.-]+)):(?P<port>\d{1,5})/(?P<fp>[a-z2-7]{32})"
)
_EXAMPLE = "192.0.2.7:4711/7j33u3l6rypiweqlbeiso7l7oiwizoth"


@dataclass(frozen=True)
class Invite:
    """Host address (name, IPv4 or IPv6), port and the host key's fingerprint."""

    host: str
    port: int
    fingerprint: str

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}/{self.fingerprint}"

    @classmethod
    def parse(cls, text: str) -> Invite:
        """Read an invite (surrounding spaces and a leading ``trumps join`` are ignored)."""
        cleaned = text.strip().removeprefix("trumps join").strip()
        match = _INVITE.fullmatch(cleaned.lower() if cleaned.isascii() else cleaned)
        if match is None or not 0 < int(match["port"]) < 65536:
            template = N_("{text!r} is not an invite: expected HOST:PORT/FINGERPRINT, like {example}")
            raise InviteError(Text(template, text=text, example=_EXAMPLE))
        return cls(match["v6"] or match["host"], int(match["port"]), match["fp"])
