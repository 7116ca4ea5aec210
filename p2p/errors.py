"""Everything that can go wrong in a network duel, each with its own class.

The classes sort failures by who is to blame, because that decides what the
session does: a :class:`WireError` is garbage on the line (drop the peer), a
:class:`HandshakeError` means we never learnt who the peer is, a
:class:`CheatError` is a signed, provable violation (end the match and keep
the evidence), and :class:`MatchRecordError` is a bad match record on disk.
Every one is a ``ValueError`` with a message fit to show the user.
"""

from __future__ import annotations

from p2p.text import N_, Text


class P2PError(ValueError):
    """Base class of every network-duel error."""


# -------------------------------------------------------------- the wire


class WireError(P2PError):
    """Bytes from the network that are not a valid frame or message."""


class FrameTooLarge(WireError):
    """A frame header announces more bytes than the size cap allows."""


class MalformedFrame(WireError):
    """A frame's payload is not strict, ext-free msgpack of one object."""


class SchemaError(WireError):
    """A decoded message does not match the schema of its type."""


class TamperedFrame(WireError):
    """A sealed frame failed authentication: a bit was changed on the way."""


class ReplayedFrame(WireError):
    """A sealed frame arrived a second time (its counter was already used)."""


class ReorderedFrame(WireError):
    """A sealed frame arrived ahead of one that was due (frames were reordered or dropped)."""


class InviteError(P2PError):
    """Text that is not an invite."""


class ConnectionClosed(P2PError):
    """The peer closed the connection (or it dropped)."""


class PeerTimeout(P2PError):
    """The peer did not answer in time."""


class SlowFrame(PeerTimeout):
    """A frame whose body did not follow its header in time: the stream cannot be trusted after it."""


class PeerBusy(P2PError):
    """The host is already playing a match with someone else."""


class KnownPeersUnsaved(P2PError):
    """The known-peers file cannot be written (a full disk, a read-only folder): nobody can be
    bound to a match, so the side that meets it stops (docs/interface.md, "Files")."""


# ------------------------------------------------------------- handshake


class HandshakeError(P2PError):
    """The peers could not agree on who they are or what they play."""


class IncompatiblePeer(HandshakeError):
    """The peer speaks another protocol version."""


class FingerprintMismatch(HandshakeError):
    """The host's identity key is not the one the invite names."""


class IdentityChanged(HandshakeError):
    """A remembered peer came back with a different identity key."""


class BadHandshakeSignature(HandshakeError):
    """A handshake signature does not verify: the peer is not who it claims."""


class InviteRefused(HandshakeError):
    """A connection that did not prove the invite's secret (a stranger, or an old invite)."""


class RulesDeclined(HandshakeError):
    """The joiner declined the host's rules."""


class PeerAborted(P2PError):
    """The peer ended the session and said why."""

    def __init__(self, reason: str, detail: str) -> None:
        template = N_("the peer ended the session ({reason}): {detail}")
        super().__init__(Text(template, reason=reason, detail=detail) if detail else reason)
        self.reason = reason
        self.detail = detail


# ----------------------------------------------------------- the match


class CheatError(P2PError):
    """A violation of the match protocol by the sender of a link: a cheat or a desync.

    ``evidence`` is the offending message as received, kept in the record.
    """

    evidence: dict[str, object] | None = None


class ProtocolViolation(CheatError):
    """A message of the wrong kind for the state of the match."""


class OutOfTurn(CheatError):
    """A move from the player who is not to move."""


class BadSignature(CheatError):
    """A signed link whose signature does not verify."""


class CopiedCommitment(CheatError):
    """A commitment equal to the other player's: an attempt to copy it."""


class RevealMismatch(CheatError):
    """A reveal that does not open its commitment."""


class IllegalMove(CheatError):
    """A signed move that the rules forbid."""


class PositionHashMismatch(CheatError):
    """A move whose claimed resulting position differs from ours: a desync."""


class HistoryMismatch(CheatError):
    """A peer came back after a dropped connection with another history of the match than ours.

    ``evidence`` is its signed ``resume`` message: its own statement of that history.
    """


class MatchLost(P2PError):
    """The peer wants to resume a match this program does not have (it was restarted meanwhile)."""


class Forfeit(P2PError):
    """The peer stayed away (silent, unreachable or stalling) past the limit: we claim the game.

    ``award``: whether the claim gives us the game: not when we may have been claimed against
    first (docs/protocol.md, "Forfeits", rules 1 and 3). ``cause``: how the peer failed us,
    ``absence`` (silent or unreachable), ``stall`` (connected, owing its link) or ``lost`` (back
    without the match), so that the player is told in those words.
    """

    def __init__(self, message: str, award: bool = True, cause: str = "absence") -> None:
        super().__init__(message)
        self.award, self.cause = award, cause


class MatchRecordError(P2PError):
    """A match record that cannot be read or does not verify."""


LINE_ERRORS = (ConnectionClosed, PeerTimeout, FrameTooLarge, TamperedFrame, ReplayedFrame, ReorderedFrame)
"""Failures of the line, not of the peer: nothing authenticated says the peer did wrong, so a fresh
connection may cure them (the match resumes; docs/protocol.md, "Reconnect and resume")."""
