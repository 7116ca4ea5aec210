"""Playing a match over a sealed channel: the lockstep loop, keep-alives, resuming, the record.

:class:`Duel` drives one :class:`~p2p.match.Match` between this side's
:class:`~p2p.players.Player` and the peer. A reader task applies the peer's
links the moment they arrive (so a move out of turn is caught at once, even
while our player thinks; what each message means is :class:`~p2p.lockstep.Lockstep`'s); the main loop produces our links when
:meth:`Match.due` says they are ours. Every link is appended to the record as
it is applied, and the record is fsynced whenever a deal is known, a game ends,
and whatever way the match ends.

With a :class:`Reconnector`, a dropped or corrupted connection does not end the
match: the reader gets a fresh handshaken connection to the same peer, both
sides exchange signed ``resume`` claims (links held, transcript hash), the side
ahead resends what the other lacks, and play goes on exactly where it stopped (the
exchange's decisions are :class:`~p2p.resume.ResumeExchange`'s).
A peer that stalls, or (for the host) stays silent or away, past the limit loses
the game by forfeit once it is claimed; the timing decisions are
:class:`~p2p.liveness.Liveness`'s (docs/protocol.md, "Forfeits"), on the clock the duel is
given (``now``). After a
complete match, :meth:`Duel.rematch` agrees on another one on the same connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import statistics
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from p2p.channel import Channel
from p2p.errors import (
    LINE_ERRORS,
    ConnectionClosed,
    Forfeit,
    P2PError,
    PeerAborted,
    PeerTimeout,
    ProtocolViolation,
    SlowFrame,
)
from p2p.fairdeal import Pledge
from p2p.handshake import HANDSHAKE_TIMEOUT, Session
from p2p.identity import Identity
from p2p.liveness import Liveness, Patience
from p2p.lockstep import Lockstep
from p2p.match import Match, position_hash, rematch_of
from p2p.match_end import COMPLETE, Ending, Standing, failure_note, match_end, quit_ending
from p2p.messages import (
    Abort,
    Bye,
    Chat,
    Commit,
    Final,
    Message,
    MoveMsg,
    Ping,
    Rematch,
    Reveal,
    Signed,
)
from p2p.players import Player
from p2p.record import RecordWriter
from p2p.resume import ResumeExchange
from p2p.saved import SavedMatch
from p2p.text import N_, Text

T = TypeVar("T")

PAUSE = "pause"
"""The cancellation message (``task.cancel(PAUSE)``) that pauses a restart-safe duel instead of
quitting it: the peer is told (``abort pause``) and waits; the saved match is kept to continue."""


def rematch_answer(message: Message) -> bool | str | None:
    """What a message read after a complete match says about a rematch: the peer's ``want``, a
    chat line (``str``), or ``None`` for a keep-alive or a late ``bye``; anything else is a
    :class:`~p2p.errors.ProtocolViolation`."""
    if isinstance(message, Rematch):
        return message.want
    if isinstance(message, Chat):
        return message.text
    if isinstance(message, Ping | Bye):
        return None
    raise ProtocolViolation(Text(N_("a {tag!r} message instead of a rematch answer"), tag=message.TAG))


class Reconnector(Protocol):
    """A way back to the same peer after the connection broke: redialing, or waiting for it."""

    async def reconnect(self) -> tuple[Channel, Session]:
        """A fresh handshaken connection to the same peer (fresh keys); raises on a fatal refusal."""

    def watch(self, interrupt: Callable[[], None]) -> None:
        """Call ``interrupt`` whenever a newer connection from the peer is waiting."""

    def report_to(self, refused: Callable[[Text], None]) -> None:
        """Where connections refused meanwhile are reported (rate-limited lines)."""

    def match_over(self) -> None:
        """The match has ended: a peer coming back now is told so, not kept waiting (until a
        rematch's duel watches again)."""


@dataclass
class Report:
    """How a match went, for the command line and tests."""

    session: Session
    match: Match
    record: Path
    end: str
    """``complete``, ``cheat`` (the peer broke the protocol; evidence kept), ``forfeit`` (the peer
    stayed away past the limit and we claimed the game), ``abandoned`` (the peer left),
    ``aborted`` (the peer stopped and said why, or a reconnection was refused), ``corrupted``
    (frames were altered, replayed or reordered in transit), ``quit`` (we stopped)."""
    error: P2PError | None = None
    awarded: int | None = None
    """The seat awarded the unfinished game (forfeit, or abandonment after the reveal)."""
    reconnects: int = 0
    timing: dict[str, float] = field(default_factory=dict)

    @property
    def results(self) -> list[str]:
        """Each game's result, player 0 first, a forfeited game last (``1-0 forfeit``)."""
        texts = [result.text for result in self.match.results]
        if self.awarded is not None:
            texts.append("1-0 forfeit" if self.awarded == 0 else "0-1 forfeit")
        return texts

    @property
    def score(self) -> tuple[float, float]:
        """Points of player 0 and 1, a forfeited game counting as won by the one awarded it."""
        points = list(self.match.score)
        if self.awarded is not None:
            points[self.awarded] += 1
        return points[0], points[1]

    def as_json(self) -> dict[str, object]:
        """The ``--json`` summary line."""
        match = self.match
        return {
            "result": self.results,
            "score": list(self.score),
            "seat": self.session.seat,
            "players": list(self.session.names),
            "transcript": match.transcript.hex(),
            "record": str(self.record),
            "code": self.session.code,
            "end": self.end,
            "error": str(self.error) if self.error else None,
            "reconnects": self.reconnects,
            "timing": self.timing,
        }


class Duel:
    """One side of a match in progress."""

    def __init__(
        self,
        channel: Channel,
        session: Session,
        me: Identity,
        player: Player,
        records: Path,
        peer_timeout: float | None = None,
        previous: Match | None = None,
        reconnector: Reconnector | None = None,
        patience: Patience | None = None,
        status: Callable[[str], None] | None = None,
        saved: SavedMatch | None = None,
        restored: Match | None = None,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        """``previous``: the complete match this one is a rematch of, on the same connection.

        ``saved``: where what a restart needs is kept (docs/protocol.md, "Restarts"): the match is
        then restart-safe, and ``restored`` is its unfinished match read back after a restart
        (``session`` is then the record's, ``channel`` a fresh connection to the same peer).

        ``peer_timeout``: how long the peer may owe a link on a live connection before the
        game is claimed (bots); ``reconnector``: how to get the peer back (no resuming without one);
        ``status``: shows "peer silent", "reconnecting" lines; ``now``: the clock every timing
        decision reads (when the peer was last heard included).
        """
        terms = session.terms
        self.records = records
        self.channel = channel
        self.session = session
        self.me = me
        self.player = player
        self.peer_timeout = peer_timeout
        self.now = now
        self.reconnector = reconnector
        self.patience = patience or Patience()
        self.status = status or (lambda text: None)
        self.seat = session.seat
        self.peer_name = session.names[1 - self.seat]
        self.saved = saved
        self._pledges: dict[int, Pledge] = {}
        if restored is not None:
            assert saved is not None and saved.record is not None
            self.match = restored
            self.writer = RecordWriter.continuing(saved.record, session, restored)
            self._pledges = dict(saved.pledges)
        elif previous is None:
            self.match = Match(session.session_id, session.keys, terms.rules, terms.games)
            self.writer = RecordWriter(records, session, self.match)
        else:
            root, dealer = rematch_of(previous, session.session_id)
            self.match = Match(root, session.keys, terms.rules, terms.games, dealer)
            self.writer = RecordWriter(records, session, self.match, previous)
        self.lockstep = Lockstep(self.match, self.seat, self.peer_name)
        """What the peer's messages mean during the match."""
        if saved is not None and restored is None:
            saved.record = self.writer.path
            saved.write()
        self._progress = asyncio.Event()
        self._resumed: ResumeExchange | None = None
        """The last resume exchange: it holds the peer's claim while the peer is ahead of us."""
        self._claim: Forfeit | None = None
        self._claimable: Text | None = None
        self._unstalled_cause = "absence"
        """The cause (:attr:`Forfeit.cause`) of a claimable game that is not :attr:`_stalled`."""
        self.clock = Liveness(self.patience, self.now(), restored is None)
        """Keep-alives, silences, stalls, absences and forfeit claims, judged on :attr:`now`; whether
        :attr:`channel` is a resumed, usable connection (``clock.live``)."""
        self._stalled: Text | None = None
        """Why the game may be claimed while the peer, though connected, owes its link past the limit."""
        self._reconnects = 0
        self._sent_at: float | None = None
        """When our last move went out, until the peer's answer times the round trip."""
        self._round_trips: list[float] = []
        self._resumes: list[float] = []
        self._started = self.now()
        self._timing: dict[str, float] = {}
        self._checkpoint = (0, False)
        self._touched = float("-inf")
        if reconnector is not None:
            reconnector.watch(self._interrupt)

    async def rematch(self, want: bool = True) -> Duel | None:
        """After a complete match, on the same connection: say whether we want another match and
        hear the peer's answer (its chat lines go to the player meanwhile). The duel of the new
        match, rooted at this one's end, when both want it; ``None`` otherwise."""
        if not self.match.done:
            raise ProtocolViolation(Text(N_("a rematch is only possible after a complete match")))
        await self.channel.send(Rematch(want=want))
        if not want:
            return None
        while True:
            answer = rematch_answer(await self.channel.recv(self.patience.forfeit_after))
            if isinstance(answer, str):
                self.player.heard(answer)
            elif answer is not None:
                return self._next_match() if answer else None

    def _next_match(self) -> Duel:
        return Duel(
            self.channel, self.session, self.me, self.player, self.records, self.peer_timeout, self.match,
            self.reconnector, self.patience, self.status,
            None if self.saved is None else self.saved.for_rematch(), now=self.now,
        )  # fmt: skip

    async def say(self, text: str) -> None:
        """Send a chat line to the peer, as the schema takes it (:meth:`Chat.of`; nothing if
        that leaves nothing)."""
        if not self.clock.live:
            raise ConnectionClosed(Text(N_("not connected to {name} right now"), name=self.peer_name))
        if (line := Chat.of(text)).text:
            await self.channel.send(line)

    @property
    def claimable(self) -> Text | None:
        """Why the game may be claimed now (the peer is away past the limit), or ``None``.

        It changes only just before a :attr:`status` line, so a status callback may read it.
        """
        return self._claimable

    def claim(self) -> bool:
        """Claim the game by forfeit, if the peer has been away past the limit; whether it was."""
        if self._claimable is None:
            return False
        now = self.now()
        stalled = self._claimable is self._stalled
        awards = (stalled and not self.clock.claim_has_grounds(now)) or self.clock.absence_awards(now)
        cause = "stall" if stalled else self._unstalled_cause
        why = Text(N_("{why}: the game was claimed by forfeit"), why=self._claimable)
        self._claim = Forfeit(why, awards, cause)
        self.channel.stop_reading()  # wakes the reader, whose claim ends the match; the peer is still told
        return True

    async def run(self) -> Report:
        """Play the match to its end (or until it breaks) and save the record.

        After a complete match the channel stays open (a rematch may follow) and
        closing it is the caller's; after a failed one it is closed here.
        """
        ending, error = COMPLETE, None
        reader = asyncio.create_task(self._read())
        keepalive = asyncio.create_task(self._keepalive())
        try:
            await self._loop(reader)
            await self._farewell(reader)
        except P2PError as exc:
            error, ending = exc, self._ending(exc)
            if ending.tell is not None:
                await self._tell(ending.tell)
        except Exception as exc:  # a local failure: keep what was played, then let it surface
            with contextlib.suppress(OSError):  # the record itself may be what failed
                self.writer.save(self.match, failure_note(self.seat, exc))
            await self.channel.close()
            raise
        except (asyncio.CancelledError, KeyboardInterrupt) as exc:
            if self.match.done:  # only the farewell was left: the match is complete all the same
                self.writer.save(self.match)
                self.writer.close()
                self._ended()
                raise
            if self.saved is not None and exc.args[:1] == (PAUSE,):
                await self._pause()
                raise
            leaving = quit_ending(self.seat, Standing.of(self.match), self.clock.live)
            if leaving.tell is not None:
                await self._tell(leaving.tell)
            self.writer.save(self.match, leaving.note)
            self._ended()
            raise
        finally:
            keepalive.cancel()
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):  # its error, if any, was raised
                await reader
        self.writer.save(self.match, ending.note)
        self.writer.close()
        self._ended()
        if error is not None:
            await self.channel.close()  # nothing more can happen on this connection
        self._timing_figures()
        return Report(
            self.session, self.match, self.writer.path, ending.end, error, ending.awarded, self._reconnects,
            self._timing,
        )  # fmt: skip

    def _ended(self) -> None:
        """The match is over (its end is in the record): nothing is left to continue."""
        if self.saved is not None:
            self.saved.discard()
        if self.reconnector is not None:
            self.reconnector.match_over()

    async def _pause(self) -> None:
        """This program stops but the match does not: the record is synced with no end note, the
        saved match kept, and the peer told to wait (docs/protocol.md, "Restarts")."""
        self.writer.save(self.match)
        self.writer.close()
        if self.clock.live:
            detail = "the program was stopped; it continues the match when started again"
            await self._tell(Abort(reason=PAUSE, detail=detail))
        await self.channel.close()

    def _ending(self, error: P2PError) -> Ending:
        """How the match ends when ``error`` stopped it (:func:`~p2p.match_end.match_end`, fed the
        clock's judgements now)."""
        now = self.now()
        return match_end(
            error, self.seat, Standing.of(self.match), self.clock.claim_has_grounds(now), self.clock.away(now),
            self.patience.forfeit_after,
        )  # fmt: skip

    async def _tell(self, abort: Abort) -> None:
        """Tell the peer why we stop (the match ends, or pauses), if the line takes it within a second."""
        with contextlib.suppress(P2PError, TimeoutError, OSError):
            await asyncio.wait_for(self.channel.send(abort), 1)

    def quit_report(self) -> Report:
        """How the match ended when our player left it: a game whose deal we could know goes to
        the peer, as our record says too."""
        awarded = quit_ending(self.seat, Standing.of(self.match), False).awarded
        return Report(self.session, self.match, self.writer.path, "quit", awarded=awarded)

    def _timing_figures(self) -> None:
        if self._round_trips:
            ordered = sorted(self._round_trips)
            self._timing["move_ms_median"] = round(statistics.median(ordered) * 1e3, 3)
            self._timing["move_ms_p90"] = round(ordered[int(len(ordered) * 0.9)] * 1e3, 3)
            self._timing["moves_timed"] = len(ordered)
        if self._resumes:
            self._timing["resume_s_max"] = round(max(self._resumes), 3)

    # ------------------------------------------------------------ the match

    async def _loop(self, reader: asyncio.Task[None]) -> None:
        match = self.match
        while (due := match.due()) is not None:
            kind, seat = due
            if seat == self.seat:
                self.clock.owe(self.now())
                link = await self._race(self._my_link(kind), reader)
                match.apply(link, self.seat)
                self._recorded(own=self.saved is not None)
                self._sent_at = self.now()
                self.clock.sent(self._sent_at)
                await self._send(link)
                self.player.advanced(match)
            else:
                await self._peer_link(due, reader)

    async def _farewell(self, reader: asyncio.Task[None]) -> None:
        """Our match is complete: say ``bye`` and wait a little for the peer's, resuming if the line
        drops meanwhile, so that our last link reaches the peer (our own record is complete anyway)."""
        await self._send(Bye())
        with contextlib.suppress(P2PError, TimeoutError):
            async with asyncio.timeout(self.patience.linger):
                await asyncio.shield(reader)

    def _recorded(self, own: bool = False) -> None:
        """A link was applied: append it to the record, fsync at a checkpoint, and before sending
        our ``own`` link in a restart-safe duel (a restart must not forget a link the peer holds)."""
        match = self.match
        checkpoint = (len(match.results), match.revealed)
        if match.revealed and "deal_s" not in self._timing:
            self._timing["deal_s"] = round(self.now() - self._started, 4)
        self.writer.append(match, sync=own or checkpoint != self._checkpoint)
        self._checkpoint = checkpoint

    async def _peer_link(self, due: tuple[type[Signed], int], reader: asyncio.Task[None]) -> None:
        """Wait until the reader has applied the peer's due link."""
        self._progress.clear()
        try:
            if self.peer_timeout is None:  # a person: past the limit the game is offered, not claimed
                await self._race(self._await_owed(due), reader)
            elif not await self._race(self._owed_within(self.peer_timeout), reader):
                template = N_("{name} did not send its {tag} within {seconds:g} s")
                why = Text(template, name=self.peer_name, tag=due[0].TAG, seconds=self.peer_timeout)
                awards = not self.clock.claim_has_grounds(self.now())  # not if we were stopped first
                raise Forfeit(why, awards, "stall")
        except (ConnectionClosed, PeerTimeout):
            if self.match.due() == due:  # the link did not come before the failure
                raise

    async def _await_owed(self, due: tuple[type[Signed], int]) -> None:
        """Wait for the peer's due link; once it is owed past the forfeit limit, offer the claim.

        Keep-alives do not withdraw this offer (the peer is there but does not play); the link does.
        """
        limit = self.patience.forfeit_after
        if await self._owed_within(limit):
            return
        template = N_("{name} did not send its {tag} within {seconds:g} s")
        self._stalled = Text(template, name=self.peer_name, tag=due[0].TAG, seconds=limit)
        try:
            if self._claimable is None:
                self._claimable = self._stalled
            self.status(
                Text(
                    N_("{why}: type /claim to claim the game by forfeit, or keep waiting"), why=self._stalled
                )
            )
            await self._progress.wait()
        finally:
            if self._claimable is self._stalled:
                self._claimable = None
                self.status("")
            self._stalled = None

    async def _owed_within(self, limit: float) -> bool:
        """Wait for the peer's due link: ``True`` when it came, ``False`` once the peer has owed it
        for ``limit`` seconds and was heard meanwhile (a stall: :meth:`Liveness.stalled`). While
        the line is down or silent the wait goes on: an absence is judged by the reader."""
        clock = self.clock
        clock.awaiting(self.now(), limit)
        try:
            while True:
                now = self.now()
                if clock.stalled(now):
                    return False
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._progress.wait(), clock.stall_wait(now))
                    return True
        finally:
            clock.awaited()

    async def _race(self, work: Awaitable[T], reader: asyncio.Task[None]) -> T:
        """``work``'s result, unless the reader fails first (its error is raised then)."""
        task = asyncio.ensure_future(work)
        try:
            await asyncio.wait({task, reader}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not task.done():
                task.cancel()
        if not task.done() or task.cancelled():
            reader.result()
            raise ConnectionClosed(Text(N_("the peer stopped sending")))
        return task.result()

    async def _my_link(self, kind: type[Signed]) -> Signed:
        match, key, number = self.match, self.me.key, self.match.number
        if kind is Commit:
            pledge = self._pledges[number] = Pledge.fresh(await self.player.preference(number))
            if self.saved is not None:  # on disk before the commitment goes out: a restart can reveal
                self.saved.keep(number, pledge)
            commitment = pledge.commitment(match.session_id, number, self.seat)
            return match.sign(key, Commit(game=number, commitment=commitment, sig=b""))
        if kind is Reveal:
            pledge = self._pledges.pop(number)
            return match.sign(key, Reveal(game=number, pref=pledge.pref, secret=pledge.secret, sig=b""))
        if kind is MoveMsg:
            assert match.game is not None
            move = await self.player.choose(match.game)
            after = match.game.position.play(move)
            unsigned = MoveMsg(
                game=number, n=len(match.game.moves) + 1, move=str(move), hash=position_hash(after),
                hint=self.player.followed_hint() and self.session.terms.hints, sig=b"",
            )  # fmt: skip
            return match.sign(key, unsigned)
        return match.sign(key, Final(transcript=match.transcript, sig=b""))

    # ----------------------------------------------------------- the line

    async def _send(self, message: Message) -> None:
        """Send on the live connection; while reconnecting, links wait for the resume to resend them."""
        if not self.clock.live:
            return
        try:
            await self.channel.send(message)
        except ConnectionClosed:
            if self.reconnector is None:
                raise
            self._interrupt()  # the reader notices and reconnects

    async def _keepalive(self) -> None:
        while True:
            await asyncio.sleep(self.clock.keepalive_wait(self.now()))
            self.clock.pinged(self.now())
            with contextlib.suppress(P2PError):
                await self._send(Ping())

    def _interrupt(self) -> None:
        """Drop the current connection: the reader then reconnects (or raises a claim)."""
        self.channel.abort()

    async def _read(self) -> None:
        """Apply the peer's links as they arrive, until the match is done and the peer said ``bye``.

        A restored duel first swaps resume claims on its fresh connection; a peer's ``pause`` is
        waited out like a broken line."""
        if not self.clock.live:
            try:
                await self._exchange(self.channel)
            except LINE_ERRORS as exc:
                await self._resume(exc)
        while not self.lockstep.finished:
            try:
                message = await self._next()
            except (*LINE_ERRORS, PeerAborted) as exc:
                if isinstance(exc, PeerAborted) and exc.reason != PAUSE:
                    raise
                if self._claim is not None:
                    raise self._claim from None
                if self.reconnector is None:  # no way back: a pause ends it as a cut line would
                    if isinstance(exc, PeerAborted):
                        template = N_("{name}'s program stopped, and this side cannot wait for it")
                        raise ConnectionClosed(Text(template, name=self.peer_name)) from None
                    raise
                await self._resume(exc)
                continue
            self._heard(message)

    def _heard(self, message: Message) -> None:
        heard = self.lockstep.hear(message)
        if isinstance(heard, str):
            self.player.heard(heard)
        elif heard is not None:
            self._applied(heard)

    def _applied(self, link: Signed) -> None:
        """The peer's link was applied: time it, record it, judge a claim it owed, wake the loop."""
        if isinstance(link, MoveMsg) and self._sent_at is not None:
            self._round_trips.append(self.now() - self._sent_at)
            self._sent_at = None
        self._recorded()
        if self._resumed is not None:
            self._resumed.applied()
        self._progress.set()
        self.player.advanced(self.match)

    async def _next(self) -> Message:
        """The next message; shows a silent peer, and gives up on a connection silent too long."""
        clock = self.clock
        while True:
            try:
                message = await self.channel.recv(clock.read_wait(self.now()))
            except SlowFrame:
                raise
            except PeerTimeout:
                silence = clock.read_timed_out(self.now())
                if silence is None:
                    continue  # the timer fired before the frames waiting on the socket were read
                quiet = silence.quiet
                self._check_forfeit(
                    quiet,
                    Text(
                        N_("{name} has been silent for {seconds:.0f} s"), name=self.peer_name, seconds=quiet
                    ),
                )
                if silence.dead:
                    template = N_("nothing from {name} for {seconds:.0f} s: the connection is presumed dead")
                    raise ConnectionClosed(Text(template, name=self.peer_name, seconds=quiet)) from None
                self.status(Text(N_("{name} silent for {seconds:.0f} s"), name=self.peer_name, seconds=quiet))
                continue
            shown = clock.heard(now := self.now())
            if now - self._touched >= self.patience.keepalive:
                self.writer.touch()  # on disk: when the peer was last heard, for a restart to judge
                self._touched = now
            self._claimable = self._stalled  # the peer is heard; a stall stays claimable
            if shown:
                self.status("")
            return message

    def _check_forfeit(self, away: float, why: Text) -> None:
        """Raise (or offer) the forfeit claim once the peer has been away past the limit."""
        if self._claim is not None:
            raise self._claim
        if not self.clock.away_too_long(away):
            return
        if self.patience.auto_claim:
            template = N_("{why} (limit {limit:g} s): the game is claimed by forfeit")
            raise Forfeit(
                Text(template, why=why, limit=self.patience.forfeit_after), self.clock.absence_awards(self.now())
            )
        if self._claimable is None:
            self._claimable, self._unstalled_cause = why, "absence"
        self.status(Text(N_("{why}: type /claim to claim the game by forfeit, or keep waiting"), why=why))

    async def _resume(self, cause: P2PError) -> None:
        """Get the peer back on a fresh connection and resume the match exactly where it stopped."""
        assert self.reconnector is not None
        self.clock.lost(self.now())  # a stall claim against us may be lost with the line
        self._interrupt()
        await self.channel.close()
        paused = isinstance(cause, PeerAborted)  # a pause: the peer's program stopped, and comes back
        if paused:
            waiting = N_("{name}'s program stopped; waiting up to {left} for it to come back")
        elif self.seat == self.session.terms.host_seat:  # the host redials nothing: it waits
            waiting = N_("{name} is gone ({cause}); waiting up to {left} for {name} to come back")
        else:
            waiting = N_("connection to {name} lost ({cause}): reconnecting… {left} left")
        self.status(Text(waiting, name=self.peer_name, cause=cause, left=_minutes(self.patience.forfeit_after)))
        started = self.now()
        attempt = asyncio.ensure_future(self.reconnector.reconnect())
        try:
            while True:
                done, _ = await asyncio.wait({attempt}, timeout=1.0)
                if attempt in done:
                    channel, _session = attempt.result()
                    try:
                        await self._exchange(channel)
                        self._resumes.append(self.now() - started)
                        return
                    except LINE_ERRORS:
                        pass
                    except PeerAborted as exc:
                        if exc.reason not in ("lost", PAUSE):
                            raise
                        if exc.reason == "lost":
                            self._lost(exc, self.clock.away(self.now()))
                    await channel.close()
                    attempt = asyncio.ensure_future(self.reconnector.reconnect())
                    continue
                away = self.clock.away(self.now())
                self._check_forfeit(
                    away,
                    Text(
                        N_("{name} has been unreachable for {seconds:.0f} s"),
                        name=self.peer_name,
                        seconds=away,
                    ),
                )
                if self._claimable is None:
                    time_left = _minutes(self.patience.forfeit_after - away)
                    self.status(Text(waiting, name=self.peer_name, cause=cause, left=time_left))
        finally:
            attempt.cancel()

    def _lost(self, refusal: PeerAborted, away: float) -> None:
        """The peer came back after ``away`` seconds, but restarted without its saved match: it has
        no match to resume. The game may be claimed now, awarded as for any absence
        (docs/protocol.md, "Forfeits", rule 1)."""
        template = N_(
            "{name} came back after {seconds:.0f} s away without the match ({detail}; its program was "
            "restarted and has no saved match)"
        )
        why = Text(template, name=self.peer_name, seconds=away, detail=refusal.detail)
        if self.patience.auto_claim:
            raise Forfeit(
                Text(N_("{why}: the game is claimed by forfeit"), why=why), self.clock.absence_awards(self.now()), "lost"
            )
        self._claimable, self._unstalled_cause = why, "lost"
        self.status(Text(N_("{why}: type /claim to claim the game by forfeit"), why=why))

    async def _exchange(self, channel: Channel) -> None:
        """Swap resume claims on a new connection, resend what the peer lacks, and go live."""
        resent = 0 if self._resumed is None else self._resumed.resent
        exchange = ResumeExchange(self.match, self.me.key, self.seat, resent)
        await channel.send(exchange.claim)
        claim = await channel.recv(HANDSHAKE_TIMEOUT)
        self.channel = channel  # from here on, an abort (a different history) goes to this connection
        exchange.hear(claim)
        self._resumed = exchange
        while (message := exchange.next_message()) is not None:  # our links applied meanwhile too
            await channel.send(message)
        if self.saved is not None and self.seat == self.session.terms.host_seat:
            self.saved.joiner_back_from(channel.peer_host)
        self.clock.connected(self.now(), exchange.restarts_stalls, exchange.owed is not None)
        self._claimable = self._stalled
        self._reconnects += 1
        self.status(Text(N_("reconnected to {name}: the match goes on"), name=self.peer_name))


def _minutes(seconds: float) -> str:
    """``seconds`` (rounded, at least 0) as ``m:ss``."""
    left = max(0, round(seconds))
    return f"{left // 60}:{left % 60:02d}"
