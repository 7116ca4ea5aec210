"""When to send a keep-alive, when a quiet peer counts as silent, dead, stalling or away, and what
a forfeit claim awards: a sans-I/O machine fed the clock reading ``now`` with what happened (a
frame heard, a read that found nothing, a connection up or lost, our link owed or sent) and
answering what to do. The driver, :mod:`p2p.duel`, reads its one injected clock and carries the
answers out; tests feed plain numbers. docs/protocol.md, "Forfeits", has the rules, and
docs/protocol-rationale.md, "When one game is awarded to both sides", the argument.

>>> clock = Liveness(Patience(forfeit_after=10), now=0.0)
>>> clock.read_wait(0.0)  # the first read waits until the peer would count as silent
6.0
>>> clock.read_timed_out(6.0)
Silence(quiet=6.0, dead=False)
>>> clock.read_wait(6.0)  # then the silence shown is counted up each second
1.0
>>> clock.heard(6.5)  # a frame: the silence shown ends
True
>>> for moment in (2.0, 4.0, 6.0):  # our keep-alives
...     clock.pinged(moment)
>>> clock.owe(7.0)
>>> clock.claim_has_grounds(8.0)  # a peer's claim 1 s after our link became due: baseless
False
>>> clock.claim_has_grounds(100.0)  # owed for 93 s, more than the limit: we stalled
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


_SILENCE_STEP = 1.0
"""While the peer is shown silent, the next read waits this long, so the count goes up each second."""
_STALL_RECHECK = 0.05
"""A stall wait that is over while the peer is not heard looks again this soon (it may be heard)."""
_DOWN_RECHECK = 0.5
"""While the connection is down, a stall wait looks again this often (stalls are not timed then)."""


@dataclass(frozen=True)
class Silence:
    """A read that found nothing in time: for how long the peer has been quiet, and whether the
    connection is presumed dead (to be replaced)."""

    quiet: float
    dead: bool


class Liveness:
    """The timing state of one side of a duel."""

    def __init__(self, patience: Patience, now: float, live: bool = True) -> None:
        """``live``: whether the connection the duel starts on is usable already (a restored
        duel's must first be resumed)."""
        self.patience = patience
        self.live = live
        """Whether the current connection is up and resumed."""
        self.heard_at = now
        """When the peer was last heard (any frame, keep-alives included), or the connection went live."""
        self._pinged_at = now
        self._read: tuple[float, float] | None = None
        """When the pending read started and how long it may wait."""
        self._silence_shown = False
        self._owing_since: float | None = None
        self._spoke_at = now
        """When we last sent the peer a frame on a live connection (a link or a keep-alive)."""
        self._grounds_until = float("-inf")
        """When we last ended a time that gave the peer grounds for a claim: a link sent after
        owing it that long, or a frame after sending nothing that long (:meth:`claim_has_grounds`)."""
        self._stalls_from = now
        """Stalls are timed from here at the earliest: the duel's start, or the last resume that
        gave one side links of the other's never resent to it (a link due after them may be due
        to it only then)."""
        self._awaited: tuple[float, float] | None = None
        """Since when we wait for the peer's due link, and how long it may take, while we do."""
        self._stall_heard = False
        """Whether the peer was heard (a frame, a resumed connection) while it owed that link past
        the limit."""
        self._stall_unless_sent = False
        """The peer came back past the limit holding more links than we do: the awaited one may be
        on its way, so it stalls only if they do not come (its next frame is another, or the line
        drops first)."""
        self._stall_claimable = False
        """Whether the line went down while we had owed our link so long that the peer could claim
        our stall: its claim may have been lost with the line."""

    def absence_awards(self, now: float) -> bool:
        """Whether a claim for the peer's absence at ``now`` gives us the game: in either seat,
        except when the peer could have claimed our stall or silence first (its claim lost with
        the line, or still to be read: :meth:`claim_has_grounds`; docs/protocol.md, "Forfeits"):
        then the game is the peer's."""
        return not (self._stall_claimable or (self.live and self.claim_has_grounds(now)))

    # ------------------------------------------------------------ the connection

    def connected(self, now: float, resent: bool = True, ahead: bool = False) -> None:
        """A fresh connection is up and resumed: silences are timed from here on; stalls too when
        ``resent`` (the resume gave one side links of the other's never resent to it before), else
        they go on from when the link became due, whatever the line did meanwhile. ``ahead``: the
        peer holds more links than we do (they are resent to us next)."""
        if resent:
            self._stalls_from = now
        self.live = True
        self.heard_at = now
        self._stall_claimable = self._silence_shown = False
        self._spoke(now)  # a claim may have crossed the return of a line down that long
        if ahead:
            self._stall_unless_sent = self._overdue(now)
        else:
            self._hear_stall(now)

    def lost(self, now: float) -> None:
        """The connection went down at ``now``: had we owed our link long enough for the peer to
        claim our stall (timed as it times one: :meth:`stalled`), or sent nothing that long (this
        program was stopped), so that its claim may have been lost with the line? The margin
        (``claim_grace``, at most half the limit) covers the peer's clock starting a little before
        ours."""
        self._stall_claimable = self.claim_has_grounds(now)  # judged while the line was still up
        self.live = False
        self._stall_heard |= self._stall_unless_sent  # it came back for a moment, and sent nothing
        self._stall_unless_sent = False

    # ------------------------------------------------------------ keep-alives and silence

    def keepalive_wait(self, now: float) -> float:
        """Seconds until our next keep-alive is due (0: send it now)."""
        return max(0.0, self._pinged_at + self.patience.keepalive - now)

    def pinged(self, now: float) -> None:
        """We sent a keep-alive (on a live connection, or none went out)."""
        self._pinged_at = now
        self._spoke(now)

    def read_wait(self, now: float) -> float:
        """A read for the peer's next frame starts: how long it waits before the silence is judged
        (until the first threshold, then a second at a time while a silence is shown)."""
        patience = self.patience
        first = min(patience.silent_after, patience.dead_after, patience.forfeit_after)
        wait = min(_SILENCE_STEP, first) if self._silence_shown else first
        self._read = now, wait
        return wait

    def read_timed_out(self, now: float) -> Silence | None:
        """The read started last found nothing: the peer's silence, to be shown (or claimed, or
        the connection replaced when ``dead``). ``None`` when the wait overran its timeout by
        ``stall``: this program was stopped, and the frames waiting meanwhile are read first."""
        assert self._read is not None, "read_timed_out without read_wait"
        (asked, wait), self._read = self._read, None
        if now - asked > wait + self.patience.stall:
            return None
        quiet = self.away(now)
        self._silence_shown = True
        return Silence(quiet, quiet >= self.patience.dead_after)

    def heard(self, now: float) -> bool:
        """A frame from the peer arrived; whether it ends a silence that was shown."""
        shown, self._silence_shown = self._silence_shown, False
        self.heard_at = now
        self._read = None
        self._hear_stall(now)
        return shown

    def away(self, now: float) -> float:
        """Seconds the peer has been away: not heard on this connection, or unreachable since
        the last one was."""
        return now - self.heard_at

    def away_too_long(self, away: float) -> bool:
        """Whether a peer away (silent or unreachable) for ``away`` seconds is past the limit."""
        return away >= self.patience.forfeit_after

    # ------------------------------------------------------------ links owed: stalls and claims

    def owe(self, now: float) -> None:
        """Our own link is due (our player thinks)."""
        self._owing_since = now

    def sent(self, now: float) -> None:
        """We sent the link we owed (on a live connection, or it waits for the resume)."""
        if self._owed_for(now) >= self._grounds:
            self._grounds_until = now
        self._owing_since = None
        self._spoke(now)

    def awaiting(self, now: float, limit: float) -> None:
        """The peer's link is due to us from ``now``; it may take ``limit`` seconds."""
        self._awaited, self._stall_heard, self._stall_unless_sent = (now, limit), False, False

    def awaited(self) -> None:
        """The wait for the peer's link is over (it came, or the claim is settled)."""
        self._awaited, self._stall_heard, self._stall_unless_sent = None, False, False

    def stalled(self, now: float) -> bool:
        """Whether the peer stalls: it owes the awaited link past the limit, timed from when it
        became due (or the last resume that resent it links of ours), and it was heard meanwhile:
        over the connection up now, or at any frame or resumed connection since the limit passed
        (so that a peer coming back for a moment, again and again, does not escape it)."""
        heard = now - self.heard_at < self.patience.silent_after
        waiting = self._stall_unless_sent  # for the links the peer says it holds
        return self._stall_heard or (self.live and heard and not waiting and self._overdue(now))

    def stall_wait(self, now: float) -> float:
        """Seconds to wait for the awaited link before asking :meth:`stalled` again: until the
        peer could be found stalling (briefly, when that is now but it is not heard); while the
        connection is down, a little at a time."""
        if not self.live or self._awaited is None:
            return _DOWN_RECHECK
        since, limit = self._awaited
        return max(_STALL_RECHECK, max(since, self._stalls_from) + limit - now)

    def _overdue(self, now: float) -> bool:
        if self._awaited is None:
            return False
        since, limit = self._awaited
        return now - max(since, self._stalls_from) >= limit

    def _hear_stall(self, now: float) -> None:
        """The peer was heard at ``now``: a stall, if it owes the awaited link past the limit (a
        frame that is that link makes progress at once, which ends the wait first)."""
        self._stall_heard = self._stall_heard or self._overdue(now)
        self._stall_unless_sent = False

    def claim_has_grounds(self, now: float) -> bool:
        """Whether the peer's forfeit claim, heard at ``now``, may be honest: we have owed the due
        link for the limit less the margin (timed as the peer times a stall), or this side has sent
        nothing that long (this program was stopped: SIGSTOP, a suspended laptop), now or until
        less than ``claim_grace`` ago (the claim crossed our link or frame on the way). Otherwise
        the claim is baseless: its sender ends the match on its own authority (docs/protocol.md,
        "Forfeits", rule 3)."""
        if self._owed_for(now) >= self._grounds or (self.live and now - self._spoke_at >= self._quiet_grounds):
            return True
        return now - self._grounds_until <= self.patience.claim_grace

    @property
    def _grounds(self) -> float:
        """How long we may owe our link, or send nothing, before the peer has grounds for a claim:
        the limit less ``claim_grace`` (less half the limit, when that is smaller: a limit below
        20 s), the margin covering the peer's clock starting a little before ours."""
        patience = self.patience
        return patience.forfeit_after - min(patience.claim_grace, patience.forfeit_after / 2)

    @property
    def _quiet_grounds(self) -> float:
        """How long we may send nothing before the peer has grounds for a claim: as
        :attr:`_grounds`, but never less than our own keep-alive gap and the ``stall`` a busy
        program may take (a limit of a few seconds: bots, tests)."""
        patience = self.patience
        return max(self._grounds, patience.keepalive + patience.stall)

    def _owed_for(self, now: float) -> float:
        """How long we have owed the due link (stalls timed as :meth:`stalled` times them); 0 when
        we owe none."""
        if self._owing_since is None:
            return 0.0
        return now - max(self._owing_since, self._stalls_from)

    def _spoke(self, now: float) -> None:
        if not self.live:
            return
        if now - self._spoke_at >= self._quiet_grounds:
            self._grounds_until = now
        self._spoke_at = now
