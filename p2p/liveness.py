"""When a quiet peer counts as silent, stalling or away, and what a forfeit claim awards: pure
decisions on a clock reading ``now`` that the caller passes in (the driver, :mod:`p2p.duel`,
reads the real clock; tests use a fake one). docs/protocol.md, "Forfeits", has the argument
why the same game is never awarded to both sides.

>>> clock = Liveness(Patience(forfeit_after=10), host=False, now=0.0)
>>> clock.owe(5.0)
>>> clock.crossed_claim(100.0)  # a peer's claim while we owe our link awards nothing
True
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Patience:
    """How a side treats a quiet peer (seconds)."""

    keepalive: float = 2.0
    """A keep-alive goes out this often, so that a quiet line is told from a dead one."""
    silent_after: float = 6.0
    """Nothing heard this long: the peer is shown as silent."""
    dead_after: float = 20.0
    """Nothing heard this long on a connection: it is presumed dead (half-open) and replaced."""
    forfeit_after: float = 180.0
    """Silent or unreachable this long: the waiting player may claim the game by forfeit."""
    auto_claim: bool = True
    """Claim at once when the limit passes (bots); otherwise the player decides (:meth:`Duel.claim`)."""
    linger: float = 15.0
    """After a complete match, how long to wait for the peer's ``bye`` (resuming meanwhile if needed)."""
    stall: float = 2.0
    """A wait that overran its timeout by this much means this program was stopped (a suspended
    laptop, SIGSTOP), not that the peer was silent: what the peer sent meanwhile is read first."""
    claim_grace: float = 10.0
    """A peer's forfeit claim that arrives this soon after we sent the link we owed crossed it on
    the way: it counts as honest (nothing is awarded to us for it)."""


class Liveness:
    """The timing state of one side of a duel."""

    def __init__(self, patience: Patience, host: bool, now: float) -> None:
        """``host``: whether this side hosts (only the host is awarded a game for the peer's absence)."""
        self.patience = patience
        self.host = host
        self.live_since = now
        self.heard_at = now
        """When the peer was last heard (any frame, keep-alives included), or the connection went live."""
        self._owing_since: float | None = None
        self._sent_at = float("-inf")
        self._stall_claimable = False
        """Whether the line went down while we had owed our link so long that the peer could claim
        our stall: its claim may have been lost with the line."""

    @property
    def absence_awards(self) -> bool:
        """Whether a claim for the peer's absence gives us the game: only the host's, and not after
        a line lost while the peer could claim our stall (docs/protocol.md, "Forfeits")."""
        return self.host and not self._stall_claimable

    def connected(self, now: float) -> None:
        """A fresh connection is up: stalls and silences are timed from here on."""
        self.live_since = self.heard_at = now
        self._stall_claimable = False

    def lost(self, now: float) -> None:
        """The connection went down at ``now``: had we owed our link on it long enough for the
        peer to claim our stall? The margin (``claim_grace``, at most half the limit) covers the
        peer's clock starting a little before ours."""
        owing, patience = self._owing_since, self.patience
        margin = min(patience.claim_grace, patience.forfeit_after / 2)
        self._stall_claimable = (
            owing is not None and now - max(owing, self.live_since) >= patience.forfeit_after - margin
        )

    def heard(self, now: float) -> None:
        """A frame from the peer arrived."""
        self.heard_at = now

    def owe(self, now: float) -> None:
        """Our own link is due (our player thinks)."""
        self._owing_since = now

    def sent(self, now: float) -> None:
        """We sent the link we owed."""
        self._owing_since, self._sent_at = None, now

    def stalled(self, due_since: float, live: bool, now: float, limit: float) -> bool:
        """Whether the peer, owing its link since ``due_since``, stalls past ``limit``: on one
        connection that is up (``live``) and over which we keep hearing it."""
        heard = now - self.heard_at < self.patience.silent_after
        return live and heard and now - max(due_since, self.live_since) >= limit

    def stall_wait(self, due_since: float, now: float, limit: float) -> float:
        """Seconds until the peer could be found stalling (0 if it may be now)."""
        return max(0.0, max(due_since, self.live_since) + limit - now)

    def away_too_long(self, away: float) -> bool:
        """Whether a peer away (silent or unreachable) for ``away`` seconds is past the limit."""
        return away >= self.patience.forfeit_after

    def crossed_claim(self, now: float) -> bool:
        """Whether the peer's forfeit claim may be honest: we owe the due link, or sent it so
        lately that the claim crossed it. Then it awards nothing to us."""
        return self._owing_since is not None or now - self._sent_at <= self.patience.claim_grace
