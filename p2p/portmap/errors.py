"""What can go wrong when asking the home router for a port, each with its own class."""

from __future__ import annotations

from p2p.errors import P2PError
from p2p.text import N_, Text


class PortMapError(P2PError):
    """The router did not open the port; the message says why, fit to show."""


class MalformedReply(PortMapError):
    """A datagram that is not a well-formed answer to our request (garbage, a stranger's, a stale one)."""


class MappingRefused(PortMapError):
    """The router answered and said no (its result code is :attr:`code`)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


class UnsupportedVersion(MappingRefused):
    """The router speaks another version of the protocol (a NAT-PMP-only router asked by PCP)."""


class NoAnswer(PortMapError):
    """Nothing answered in time, or the router's port is closed (no such service)."""


def wrong_size(protocol: str, size: int, expected: str) -> MalformedReply:
    """A datagram of the wrong length for ``protocol``'s answer."""
    template = N_("a {protocol} answer of {size} bytes (expected {expected})")
    return MalformedReply(Text(template, protocol=protocol, size=size, expected=expected))


def not_ours(protocol: str) -> MalformedReply:
    """A datagram that answers something we did not ask (another request, another client, a stale nonce)."""
    return MalformedReply(Text(N_("a {protocol} datagram that answers another request"), protocol=protocol))


def refused(protocol: str, reason: str, code: int) -> MappingRefused:
    """The router's refusal with result ``code`` (its name in the RFC: ``reason``)."""
    kind = UnsupportedVersion if reason == "unsupported version" else MappingRefused
    return kind(Text(N_("the router refused ({protocol}: {reason})"), protocol=protocol, reason=reason), code)
