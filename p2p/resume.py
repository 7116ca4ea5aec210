"""The resume exchange on a fresh connection, as a sans-I/O machine (docs/protocol.md, "Reconnect and resume").

Each side first sends its signed claim (:attr:`ResumeExchange.claim`: links held, transcript
hash) and then hears the peer's (:meth:`ResumeExchange.hear`), which is judged against our
match: a different history or a peer that lost links it sent is a
:class:`~p2p.errors.HistoryMismatch`, the claim kept as evidence. The side ahead then resends
what the other lacks (:meth:`ResumeExchange.next_message`), and a ``bye`` if its match is
complete. A peer ahead of us owes its claim until its resent links catch us up
(:meth:`ResumeExchange.applied`). No sockets and no clock here: the driver (:mod:`p2p.duel`)
moves the messages.
"""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from p2p.errors import ProtocolViolation
from p2p.match import Match
from p2p.messages import Bye, Message, Resume
from p2p.text import N_, Text


class ResumeExchange:
    """One side's resume exchange over one fresh connection."""

    def __init__(self, match: Match, key: Ed25519PrivateKey, seat: int, resent: int = 0) -> None:
        """``match``: ours, as it stands (links applied later are resent too); ``key``: ours;
        ``resent``: the :attr:`resent` of the duel's previous exchange, if any."""
        self.match = match
        self.peer = 1 - seat
        self.claim = match.resume_claim(key)
        """What we send first."""
        self.owed: Resume | None = None
        """The peer's claim while it holds more links than we do: checked once we catch up."""
        self._sent: int | None = None
        """How many of our links the peer holds or was sent; ``None`` until its claim is heard."""
        self._bye_sent = False
        self.resent = resent
        """The most links the peer held once this exchange or an earlier one of the duel resent
        it what it lacked."""
        self.restarts_stalls = False
        """Whether the peer lacked links of ours that were never resent to it before: a link due
        after them may be due to it only now, so the stall clocks start again. (A peer that says
        it lost them once more, connection after connection, restarts nothing.)"""

    def hear(self, claim: Message) -> None:
        """The peer's claim (its first message), judged against our history as far as we hold it.

        Any other first message is the peer's :class:`~p2p.errors.ProtocolViolation`: it came
        sealed under the peer's key, so it is the peer's act, not damage on the line (which would
        let a peer that saw a bad deal leave without losing the game)."""
        if not isinstance(claim, Resume):
            template = N_("player {seat} sent a {tag!r} message where its resume message was due")
            raise ProtocolViolation(Text(template, seat=self.peer, tag=claim.TAG))
        self.owed = None if self.match.check_resume(claim, self.peer) else claim
        self._sent = min(claim.links, len(self.match.links))
        held = len(self.match.links)
        if self._sent < held:
            self.restarts_stalls, self.resent = held > self.resent, max(held, self.resent)

    def next_message(self) -> Message | None:
        """The next message the peer lacks: our links it does not hold, in order, then ``bye`` if
        the match is complete; ``None`` once it has everything (the connection goes live)."""
        if self._sent is None:
            raise RuntimeError("nothing can be resent before the peer's resume claim is heard")
        links = self.match.links
        if self._sent < len(links):
            self._sent += 1
            return links[self._sent - 1][1]
        if self.match.done and not self._bye_sent:
            self._bye_sent = True
            return Bye()
        return None

    def applied(self) -> None:
        """A link of the peer's was applied to our match: judge its owed claim once we hold as many
        links as it claimed."""
        if self.owed is not None and self.match.check_resume(self.owed, self.peer):
            self.owed = None
