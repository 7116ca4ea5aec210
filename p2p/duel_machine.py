"""The decisions of one side of a duel, as a sans-I/O machine.

:class:`DuelMachine` is fed what happened, with the clock reading ``now``: a frame heard, a read
that found nothing in time, the line lost, a second of waiting for the peer to come back, a
resume claim heard, our player's choice, a claim asked for. It answers with the actions the
driver (:class:`~p2p.duel.Duel`) carries out over asyncio, in order:
:class:`~p2p.handshake.Send` a link (the handshake's action; while the line is down, links
wait for the resume), :class:`Record` the link just applied, :class:`Keep` a pledge on disk, :class:`Touch` the
record's heard time, :class:`Show` a status line, :class:`Said` a chat line to our player,
:class:`Advanced` (a link was applied). When the match cannot go on, a method raises the
:class:`~p2p.errors.P2PError` that stops it (a forfeit claim, the peer's violation, a dead line:
:data:`~p2p.errors.LINE_ERRORS` are resumed when the duel can reconnect), and :meth:`ending`
says how it ends: the end note, the seat awarded the game, what the peer is told
(:mod:`p2p.match_end`'s table, fed the clock's judgements now).

The timing rules are :class:`~p2p.liveness.Liveness`'s, what a message means
:class:`~p2p.lockstep.Lockstep`'s and the resume exchange
:class:`~p2p.resume.ResumeExchange`'s; this machine holds them together with the claims a
person may make (docs/protocol.md, "Forfeits"). No sockets, tasks, files or clocks here;
tests/test_p2p_duel_machine.py feeds it events.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine import Move
from p2p.errors import ConnectionClosed, Forfeit, P2PError, PeerAborted
from p2p.fairdeal import Pledge
from p2p.handshake import Send, Session
from p2p.liveness import Liveness, Patience
from p2p.lockstep import Lockstep
from p2p.match import Match, position_hash
from p2p.match_end import Ending, Standing, match_end, quit_ending
from p2p.messages import Commit, Final, Message, MoveMsg, Reveal, Signed
from p2p.resume import ResumeExchange
from p2p.text import N_, Text

PAUSE = "pause"
"""The reason of the ``abort`` a restart-safe side sends when its program stops but its match does
not (docs/protocol.md, "Restarts"); the driver's cancellation message for it too."""


@dataclass(frozen=True)
class Record:
    """Append the link just applied to the record; fsync it when ``sync`` (a checkpoint)."""

    sync: bool


@dataclass(frozen=True)
class Keep:
    """Put our pledge for ``game`` on disk before its commitment goes out (a restart can reveal it)."""

    game: int
    pledge: Pledge


@dataclass(frozen=True)
class Touch:
    """The peer was heard: put when on disk, for a restart to judge its absence by."""


@dataclass(frozen=True)
class Show:
    """The status line for our player (``""`` clears it)."""

    text: str


@dataclass(frozen=True)
class Said:
    """The peer's chat line, for our player."""

    text: str


@dataclass(frozen=True)
class Advanced:
    """A link was applied: our player sees the match, and a wait for the peer's link is over."""


Action = Send | Record | Keep | Touch | Show | Said | Advanced


@dataclass
class _Timing:
    """What the report's timing figures are made of."""

    started: float
    deal_s: float | None = None
    sent_at: float | None = None
    """When our last move went out, until the peer's answer times the round trip."""
    round_trips: list[float] = field(default_factory=list)
    resumes: list[float] = field(default_factory=list)

    def figures(self) -> dict[str, float]:
        figures = {} if self.deal_s is None else {"deal_s": self.deal_s}
        if ordered := sorted(self.round_trips):
            figures["move_ms_median"] = round(statistics.median(ordered) * 1e3, 3)
            figures["move_ms_p90"] = round(ordered[int(len(ordered) * 0.9)] * 1e3, 3)
            figures["moves_timed"] = len(ordered)
        if self.resumes:
            figures["resume_s_max"] = round(max(self.resumes), 3)
        return figures


class OwnLinks:
    """Our links of one match, signed: commitments to fresh pledges (each kept until its
    reveal), reveals, moves and the final."""

    def __init__(
        self,
        match: Match,
        key: Ed25519PrivateKey,
        seat: int,
        hints: bool,
        pledges: dict[int, Pledge] | None = None,
    ) -> None:
        """``hints``: whether the match's moves may say they followed a hint; ``pledges``: the
        ones kept before a restart."""
        self.match, self.key, self.seat, self.hints = match, key, seat, hints
        self._pledges = dict(pledges or {})

    def make(
        self, kind: type[Signed], choice: str | Move | None, hint: bool = False
    ) -> tuple[Signed, Pledge | None]:
        """Our due link of ``kind`` from our player's ``choice`` (a trump preference for a
        commitment, a move; ``hint``: the move is the hint our player was shown), and the fresh
        pledge a commitment is made to (to be on disk before the commitment goes out)."""
        match, number = self.match, self.match.number
        pledge = None
        if kind is Commit:
            assert isinstance(choice, str)
            pledge = self._pledges[number] = Pledge.fresh(choice)
            commitment = pledge.commitment(match.session_id, number, self.seat)
            link: Signed = Commit(game=number, commitment=commitment, sig=b"")
        elif kind is Reveal:
            kept = self._pledges.pop(number)
            link = Reveal(game=number, pref=kept.pref, secret=kept.secret, sig=b"")
        elif kind is MoveMsg:
            assert match.game is not None and isinstance(choice, Move)
            after = match.game.position.play(choice)
            link = MoveMsg(
                game=number, n=len(match.game.moves) + 1, move=str(choice), hash=position_hash(after),
                hint=hint and self.hints, sig=b"",
            )  # fmt: skip
        else:
            link = Final(transcript=match.transcript, sig=b"")
        return match.sign(self.key, link), pledge


class DuelMachine:
    """One side of a match in progress: its match, its clock, its claims."""

    def __init__(
        self,
        session: Session,
        key: Ed25519PrivateKey,
        patience: Patience,
        now: float,
        match: Match | None = None,
        peer_timeout: float | None = None,
        restart_safe: bool = False,
        pledges: dict[int, Pledge] | None = None,
        resuming: bool = False,
    ) -> None:
        """``match``: the match to play (by default a fresh one of the session's terms);
        ``peer_timeout``: how long the peer may owe a link on a live connection before the game
        is claimed (bots; a person is offered the claim after the limit instead); ``restart_safe``:
        pledges are kept and our links synced before they go out; ``pledges``: those kept before
        a restart; ``resuming``: the duel's first connection must be resumed (after a restart)."""
        terms = session.terms
        self.match = match or Match(session.session_id, session.keys, terms.rules, terms.games)
        self.session, self.key, self.patience = session, key, patience
        self.seat = session.seat
        self.peer_name = session.names[1 - self.seat]
        self.peer_timeout, self.restart_safe = peer_timeout, restart_safe
        self.lockstep = Lockstep(self.match, self.seat, self.peer_name)
        self.clock = Liveness(patience, now, not resuming)
        """Keep-alives, silences, stalls and absences, judged on the ``now`` fed; whether the
        connection is a resumed, usable one (``clock.live``)."""
        self.reconnects = 0
        self._links = OwnLinks(self.match, key, self.seat, terms.hints, pledges)
        self._resumed: ResumeExchange | None = None
        """The last resume exchange: it holds the peer's claim while the peer is ahead of us."""
        self._claim: Forfeit | None = None
        self._claimable: Text | None = None
        self._stalled: Text | None = None
        """Why the game may be claimed while the peer, though connected, owes its link past the limit."""
        self._unstalled_cause = "absence"
        """The cause (:attr:`Forfeit.cause`) of a claimable game that is not :attr:`_stalled`."""
        self._waiting = ""
        """The status line's template while the peer is away (its ``{left}`` counts down)."""
        self._cause: P2PError | None = None
        self._away_from = now
        self._timing = _Timing(now)
        self._checkpoint = (0, False)
        self._touched = float("-inf")

    @property
    def hosting(self) -> bool:
        """Whether this side is the host (it waits for the joiner to come back; the joiner redials)."""
        return self.seat == self.session.terms.host_seat

    @property
    def timing(self) -> dict[str, float]:
        """The report's timing figures: the deal's time, moves' round trips, the longest resume."""
        return self._timing.figures()

    # ------------------------------------------------------------ our links

    def owe(self, now: float) -> None:
        """Our link is due: our player thinks from ``now``."""
        self.clock.owe(now)

    def own_link(
        self, kind: type[Signed], now: float, choice: str | Move | None = None, hint: bool = False
    ) -> list[Action]:
        """Our due link of ``kind``, made from our player's ``choice`` (:meth:`OwnLinks.make`),
        applied: what to keep, record and send."""
        link, pledge = self._links.make(kind, choice, hint)
        kept: list[Action] = [Keep(self.match.number, pledge)] if pledge and self.restart_safe else []
        return [*kept, *self._applied_own(link, now)]

    def _applied_own(self, link: Signed, now: float) -> list[Action]:
        self.match.apply(link, self.seat)
        record = self._record(now, own=self.restart_safe)
        self._timing.sent_at = now
        self.clock.sent(now)
        return [record, Send(link), Advanced()]

    # ------------------------------------------------------------ the peer heard

    def read_wait(self, now: float) -> float:
        """A read for the peer's next frame starts: how long it may wait."""
        return self.clock.read_wait(now)

    def heard(self, message: Message, now: float) -> list[Action]:
        """A message from the peer (raises its violation)."""
        actions: list[Action] = []
        shown = self.clock.heard(now)
        if now - self._touched >= self.patience.keepalive:
            actions.append(Touch())
            self._touched = now
        self._claimable = self._stalled  # the peer is heard; a stall stays claimable
        if shown:
            actions.append(Show(""))
        heard = self.lockstep.hear(message)
        if isinstance(heard, str):
            actions.append(Said(heard))
        elif heard is not None:
            if isinstance(heard, MoveMsg) and self._timing.sent_at is not None:
                self._timing.round_trips.append(now - self._timing.sent_at)
                self._timing.sent_at = None
            actions.append(self._record(now))
            if self._resumed is not None:
                self._resumed.applied()
            actions.append(Advanced())
        return actions

    def silent(self, now: float) -> list[Action]:
        """The read started last found nothing: show the silence, offer or make the claim once it
        is past the limit, and raise :class:`~p2p.errors.ConnectionClosed` once the connection is
        presumed dead (half-open: it is to be replaced)."""
        silence = self.clock.read_timed_out(now)
        if silence is None:
            return []  # the timer fired before the frames waiting on the socket were read
        quiet = silence.quiet
        why = Text(N_("{name} has been silent for {seconds:.0f} s"), name=self.peer_name, seconds=quiet)
        offered = self._away_past_limit(quiet, why, now)
        if silence.dead:
            template = N_("nothing from {name} for {seconds:.0f} s: the connection is presumed dead")
            raise ConnectionClosed(Text(template, name=self.peer_name, seconds=quiet))
        return [
            *offered,
            Show(Text(N_("{name} silent for {seconds:.0f} s"), name=self.peer_name, seconds=quiet)),
        ]

    def finished(self) -> bool:
        """Whether nothing more is to be read: the match is complete and the peer said ``bye``."""
        return self.lockstep.finished

    # ------------------------------------------------------------ the peer owes its link

    @property
    def owed_limit(self) -> float:
        """How long the peer may owe its link before it stalls."""
        return self.patience.forfeit_after if self.peer_timeout is None else self.peer_timeout

    def awaiting(self, now: float) -> None:
        """The peer's link is due to us from ``now``."""
        self.clock.awaiting(now, self.owed_limit)

    def owed_wait(self, now: float) -> float | None:
        """How long to wait for the peer's due link before asking again; ``None``: it stalls."""
        return None if self.clock.stalled(now) else self.clock.stall_wait(now)

    def stalled(self, due: type[Signed], now: float) -> list[Action]:
        """The peer owes its link of kind ``due`` past the limit while connected: a bot's duel
        claims the game (raises :class:`~p2p.errors.Forfeit`), a person is offered the claim."""
        template = N_("{name} did not send its {tag} within {seconds:g} s")
        why = Text(template, name=self.peer_name, tag=due.TAG, seconds=self.owed_limit)
        if self.peer_timeout is not None:
            raise Forfeit(why, not self.clock.claim_has_grounds(now), "stall")  # not if we were stopped first
        self._stalled = why
        if self._claimable is None:
            self._claimable = why
        return [Show(Text(N_("{why}: type /claim to claim the game by forfeit, or keep waiting"), why=why))]

    def awaited(self) -> list[Action]:
        """The wait for the peer's link is over: a stall offered is withdrawn."""
        self.clock.awaited()
        if self._stalled is None:
            return []
        withdrawn, self._stalled = self._claimable is self._stalled, None
        if withdrawn:
            self._claimable = None
            return [Show("")]
        return []

    # ------------------------------------------------------------ claims

    @property
    def claimable(self) -> Text | None:
        """Why the game may be claimed now (the peer is away past the limit), or ``None``."""
        return self._claimable

    def claim(self, now: float) -> Forfeit | None:
        """Our player claims the game by forfeit: the claim that ends the match (the driver stops
        reading, and the reader raises it), or ``None`` when the peer is not away past the limit."""
        if self._claimable is None:
            return None
        stalled = self._claimable is self._stalled
        awards = (stalled and not self.clock.claim_has_grounds(now)) or self.clock.absence_awards(now)
        cause = "stall" if stalled else self._unstalled_cause
        why = Text(N_("{why}: the game was claimed by forfeit"), why=self._claimable)
        self._claim = Forfeit(why, awards, cause)
        return self._claim

    def _away_past_limit(self, away: float, why: Text, now: float) -> list[Action]:
        """Raise (or offer) the forfeit claim once the peer has been away past the limit."""
        if self._claim is not None:
            raise self._claim
        if not self.clock.away_too_long(away):
            return []
        if self.patience.auto_claim:
            template = N_("{why} (limit {limit:g} s): the game is claimed by forfeit")
            claimed = Text(template, why=why, limit=self.patience.forfeit_after)
            raise Forfeit(claimed, self.clock.absence_awards(now))
        if self._claimable is None:
            self._claimable, self._unstalled_cause = why, "absence"
        return [Show(Text(N_("{why}: type /claim to claim the game by forfeit, or keep waiting"), why=why))]

    # ------------------------------------------------------------ the line lost, and back

    def line_lost(self, cause: P2PError, now: float, can_reconnect: bool = True) -> list[Action]:
        """The connection broke (or the peer paused its program): what to show while we wait for
        it to come back, or the error that ends the match (a claim made meanwhile, a peer's
        ``abort``, a lost line when the duel cannot reconnect: ``can_reconnect``)."""
        if isinstance(cause, PeerAborted) and cause.reason != PAUSE:
            raise cause
        if self._claim is not None:
            raise self._claim
        if not can_reconnect:  # no way back: a pause ends it as a cut line would
            if isinstance(cause, PeerAborted):
                template = N_("{name}'s program stopped, and this side cannot wait for it")
                raise ConnectionClosed(Text(template, name=self.peer_name))
            raise cause
        self.clock.lost(now)  # a stall claim against us may be lost with the line
        if isinstance(cause, PeerAborted):  # a pause: the peer's program stopped, and comes back
            self._waiting = N_("{name}'s program stopped; waiting up to {left} for it to come back")
        elif self.hosting:  # the host redials nothing: it waits
            self._waiting = N_("{name} is gone ({cause}); waiting up to {left} for {name} to come back")
        else:
            self._waiting = N_("connection to {name} lost ({cause}): reconnecting… {left} left")
        self._cause, self._away_from = cause, now
        return [self._waiting_line(self.patience.forfeit_after)]

    def unreachable(self, now: float) -> list[Action]:
        """Another second without the peer back: the claim once it is away past the limit, or the
        time left."""
        away = self.clock.away(now)
        why = Text(N_("{name} has been unreachable for {seconds:.0f} s"), name=self.peer_name, seconds=away)
        offered = self._away_past_limit(away, why, now)
        if self._claimable is None:
            return [self._waiting_line(self.patience.forfeit_after - away)]
        return offered

    def back_without_match(self, refusal: PeerAborted, now: float) -> list[Action]:
        """The peer came back, but restarted without its saved match (its ``abort lost``): it has no
        match to resume. The game may be claimed now, awarded as for any absence
        (docs/protocol.md, "Forfeits", rule 1)."""
        template = N_(
            "{name} came back after {seconds:.0f} s away without the match ({detail}; its program was "
            "restarted and has no saved match)"
        )
        why = Text(template, name=self.peer_name, seconds=self.clock.away(now), detail=refusal.detail)
        if self.patience.auto_claim:
            claimed = Text(N_("{why}: the game is claimed by forfeit"), why=why)
            raise Forfeit(claimed, self.clock.absence_awards(now), "lost")
        self._claimable, self._unstalled_cause = why, "lost"
        return [Show(Text(N_("{why}: type /claim to claim the game by forfeit"), why=why))]

    def exchange(self) -> ResumeExchange:
        """A resume exchange for a fresh connection: send its claim first."""
        resent = 0 if self._resumed is None else self._resumed.resent
        return ResumeExchange(self.match, self.key, self.seat, resent)

    def resume_heard(self, exchange: ResumeExchange, claim: Message) -> None:
        """The peer's resume claim on that connection (raises a different history): the driver
        then sends what :meth:`ResumeExchange.next_message` gives, and says :meth:`resumed`."""
        exchange.hear(claim)
        self._resumed = exchange

    def resumed(self, now: float) -> list[Action]:
        """The peer has what it lacked: the connection is live, the match goes on."""
        exchange = self._resumed
        assert exchange is not None
        if self._cause is not None:
            self._timing.resumes.append(now - self._away_from)
        self.clock.connected(now, exchange.restarts_stalls, exchange.owed is not None)
        self._claimable = self._stalled
        self.reconnects += 1
        return [Show(Text(N_("reconnected to {name}: the match goes on"), name=self.peer_name))]

    def _waiting_line(self, left: float) -> Show:
        return Show(Text(self._waiting, name=self.peer_name, cause=self._cause, left=minutes(left)))

    # ------------------------------------------------------------ the end

    def ending(self, error: P2PError, now: float) -> Ending:
        """How the match ends when ``error`` stopped it."""
        clock = self.clock
        standing = Standing.of(self.match)
        return match_end(
            error,
            self.seat,
            standing,
            clock.claim_has_grounds(now),
            clock.away(now),
            self.patience.forfeit_after,
        )

    def leaving(self) -> Ending:
        """How the match ends when our player leaves it: a game whose deal we could know goes to
        the peer, in our record too."""
        return quit_ending(self.seat, Standing.of(self.match), self.clock.live)

    def _record(self, now: float, own: bool = False) -> Record:
        """A link was applied: record it, synced at a checkpoint (a deal known, a game over), and
        before our ``own`` link goes out in a restart-safe duel (a restart must not forget a link
        the peer holds)."""
        match = self.match
        checkpoint = (len(match.results), match.revealed)
        if match.revealed and self._timing.deal_s is None:
            self._timing.deal_s = round(now - self._timing.started, 4)
        sync = own or checkpoint != self._checkpoint
        self._checkpoint = checkpoint
        return Record(sync)


def minutes(seconds: float) -> str:
    """``seconds`` (rounded, at least 0) as ``m:ss``.

    >>> minutes(179.6), minutes(-3)
    ('3:00', '0:00')
    """
    left = max(0, round(seconds))
    return f"{left // 60}:{left % 60:02d}"
