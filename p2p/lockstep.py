"""What the peer's messages mean while a match is played, as a sans-I/O machine.

:class:`Lockstep` is fed each message read from the peer during a match and says what it was:
a chat line for the player, the peer's link (applied to the :class:`~p2p.match.Match`, which
checks turn, signature and legality), or nothing to act on (a keep-alive, the peer's ``bye``
after a complete match). Anything else is the peer's violation, raised with a specific error.
The driver (:mod:`p2p.duel`) reads the messages, records the links and wakes its loop.
"""

from __future__ import annotations

from p2p.errors import MatchLost, ProtocolViolation
from p2p.match import Match
from p2p.messages import Bye, Chat, Message, Ping, Resume, Signed
from p2p.text import N_, Text


class Lockstep:
    """One side's reading of the peer during one match."""

    def __init__(self, match: Match, seat: int, peer_name: str) -> None:
        self.match = match
        self.peer = 1 - seat
        self.peer_name = peer_name
        self.peer_done = False
        """Whether the peer said ``bye`` (its match is complete too)."""

    @property
    def finished(self) -> bool:
        """Whether the match is complete and the peer said ``bye``: nothing more is to be read."""
        return self.match.done and self.peer_done

    def hear(self, message: Message) -> str | Signed | None:
        """What the peer's ``message`` was: a chat line, its link (now applied to the match), or
        ``None`` (a keep-alive, or its ``bye``)."""
        if isinstance(message, Chat):
            return message.text
        if isinstance(message, Ping):
            return None
        if isinstance(message, Bye):
            if not self.match.done:
                raise ProtocolViolation(
                    Text(N_("{name} said bye before the match was complete"), name=self.peer_name)
                )
            self.peer_done = True
            return None
        if isinstance(message, Resume) and not self.match.links:  # a restarted peer's old match
            raise MatchLost(
                f"{self.peer_name} wants to resume an earlier match that this program no longer has "
                "(it was restarted): that match cannot go on"
            )
        if not isinstance(message, Signed):
            raise ProtocolViolation(Text(N_("a {tag!r} message in the middle of a match"), tag=message.TAG))
        self.match.apply(message, self.peer)
        return message
