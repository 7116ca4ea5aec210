"""Playing a match over a sealed channel: the asyncio driver of a :class:`~p2p.duel_machine.DuelMachine`.

:class:`Duel` plays one :class:`~p2p.match.Match` between this side's
:class:`~p2p.players.Player` and the peer. A reader task feeds the machine the peer's messages
the moment they arrive (so a move out of turn is caught at once, even while our player thinks)
and every read that finds nothing in time; the main loop asks our player for our links when
:meth:`Match.due` says they are ours; a keep-alive task pings. What each event means, what to
send, record, show and claim, and how the match ends, is the machine's; this module owns the
connection, the tasks, the timers and the files (the record, fsynced whenever a deal is known,
a game ends, and whatever way the match ends; the saved match of a restart-safe duel).

With a :class:`Reconnector`, a dropped or corrupted connection does not end the match: the
reader gets a fresh handshaken connection to the same peer, both sides exchange signed
``resume`` claims, the side ahead resends what the other lacks, and play goes on exactly where
it stopped (docs/protocol.md, "Reconnect and resume"). After a complete match,
:meth:`Duel.rematch` agrees on another one on the same connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from engine import Move
from engine.match_rules import score_halves
from p2p.channel import Channel
from p2p.duel_files import DuelFiles
from p2p.duel_line import DuelLine, Reconnector
from p2p.duel_machine import PAUSE, Action, DuelMachine, Keep, Record, Said, Show, Touch
from p2p.errors import ConnectionClosed, P2PError, PeerTimeout, ProtocolViolation
from p2p.handshake import Send, Session
from p2p.identity import Identity
from p2p.liveness import Patience
from p2p.match import Match
from p2p.match_end import COMPLETE, Standing, failure_note, quit_ending
from p2p.messages import (
    Abort,
    Bye,
    Chat,
    Commit,
    Message,
    MoveMsg,
    Ping,
    Rematch,
    Signed,
)
from p2p.players import Player
from p2p.saved import SavedMatch
from p2p.text import N_, Text

T = TypeVar("T")


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
    """The seat awarded a game (forfeit, or abandonment after the reveal)."""
    reconnects: int = 0
    timing: dict[str, float] = field(default_factory=dict)
    awarded_game: int | None = None
    """The number of the game awarded: the unfinished one, or a played one that a forfeit of a
    side away since before its end awards in place of its result (docs/protocol.md, "The game a
    forfeit awards")."""

    @property
    def replaces_played(self) -> bool:
        """Whether the awarded game is one played already: the forfeit replaces its result."""
        return self.awarded_game is not None and self.awarded_game <= len(self.match.results)

    @property
    def results(self) -> list[str]:
        """Each game's result, player 0 first, a forfeited game as ``1-0 forfeit``: last, or in
        place of the played result it replaces."""
        texts = [result.text for result in self.match.results]
        if self.awarded is not None and self.awarded_game is not None:
            place = self.awarded_game - 1
            texts[place : place + 1] = ["1-0 forfeit" if self.awarded == 0 else "0-1 forfeit"]
        return texts

    @property
    def score(self) -> tuple[float, float]:
        """Points of player 0 and 1, a forfeited game counting as won by the one awarded it."""
        points = [0.0, 0.0]
        for result in self.match.results:
            if result.number != self.awarded_game:
                for seat, halves in enumerate(score_halves(result.outcome.winner)):
                    points[seat] += halves / 2
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
    """One side of a match in progress: the asyncio driver of a :class:`DuelMachine`."""

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
        self.records, self.session, self.me, self.player = records, session, me, player
        self.now = now
        self.patience = patience or Patience()
        self.status = status or (lambda text: None)
        self.seat = session.seat
        self.files, self.match = DuelFiles.open(records, session, saved, previous, restored)
        pledges = None if restored is None or saved is None else saved.pledges
        self.machine = DuelMachine(
            session, me.key, self.patience, now(), self.match, peer_timeout, saved is not None, pledges,
            restored is not None,
        )  # fmt: skip
        """The duel's decisions; this class carries them out."""
        self.line = DuelLine(
            channel, self.machine, self._carry_out, now, reconnector, self.files.joiner_back_from
        )
        """The connection, and the way back to the peer."""
        self._progress = asyncio.Event()

    @property
    def channel(self) -> Channel:
        """The connection the duel plays over now."""
        return self.line.channel

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
            self.channel, self.session, self.me, self.player, self.records, self.machine.peer_timeout,
            self.match, self.line.reconnector, self.patience, self.status,
            self.files.for_rematch(), now=self.now,
        )  # fmt: skip

    async def say(self, text: str) -> None:
        """Send a chat line to the peer, as the schema takes it (:meth:`Chat.of`; nothing if
        that leaves nothing)."""
        if not self.machine.clock.live:
            template = N_("not connected to {name} right now")
            raise ConnectionClosed(Text(template, name=self.machine.peer_name))
        if (line := Chat.of(text)).text:
            await self.channel.send(line)

    @property
    def claimable(self) -> Text | None:
        """Why the game may be claimed now (the peer is away past the limit), or ``None``.

        It changes only just before a :attr:`status` line, so a status callback may read it.
        """
        return self.machine.claimable

    def claim(self) -> bool:
        """Claim the game by forfeit, if the peer has been away past the limit; whether it was."""
        if self.machine.claim(self.now()) is None:
            return False
        self.channel.stop_reading()  # wakes the reader, whose claim ends the match; the peer is still told
        return True

    async def run(self) -> Report:
        """Play the match to its end (or until it breaks) and save the record.

        After a complete match the channel stays open (a rematch may follow) and
        closing it is the caller's; after a failed one it is closed here.
        """
        ending, error = COMPLETE, None
        self.files.begin()
        reader = asyncio.create_task(self.line.read())
        keepalive = asyncio.create_task(self.line.keep_alive())
        try:
            await self._loop(reader)
            await self._farewell(reader)
        except P2PError as exc:
            error, ending = exc, self.machine.ending(exc, self.now())
            if ending.tell is not None:
                await self._tell(ending.tell)
        except Exception as exc:  # a local failure: keep what was played, then let it surface
            self.files.failed(self.match, failure_note(self.seat, exc))
            await self.channel.close()
            raise
        except (asyncio.CancelledError, KeyboardInterrupt) as exc:
            await self._stopped(exc.args[:1] == (PAUSE,))
            raise
        finally:
            keepalive.cancel()
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):  # its error, if any, was raised
                await reader
        self._ended(ending.note)
        if error is not None:
            await self.channel.close()  # nothing more can happen on this connection
        return Report(
            self.session, self.match, self.files.path, ending.end, error, ending.awarded,
            self.machine.reconnects, self.machine.timing, ending.awarded_game,
        )  # fmt: skip

    async def _stopped(self, pausing: bool) -> None:
        """This side was stopped (cancelled): a complete match is saved as complete, a restart-safe
        one ``pausing`` is paused (the peer told to wait, the saved match kept), any other left."""
        if self.match.done:  # only the farewell was left: the match is complete all the same
            self._ended()
        elif self.files.saved is not None and pausing:
            self.files.paused(self.match)
            if self.machine.clock.live:
                detail = "the program was stopped; it continues the match when started again"
                await self._tell(Abort(reason=PAUSE, detail=detail))
            await self.channel.close()
        else:
            leaving = self.machine.leaving()
            if leaving.tell is not None:
                await self._tell(leaving.tell)
            self._ended(leaving.note)

    def _ended(self, note: dict[str, object] | None = None) -> None:
        """The match is over: its record ends with ``note``, and nothing is left to continue."""
        self.files.ended(self.match, note)
        if self.line.reconnector is not None:
            self.line.reconnector.match_over()

    async def _tell(self, abort: Abort) -> None:
        """Tell the peer why we stop (the match ends, or pauses), if the line takes it within a second."""
        with contextlib.suppress(P2PError, TimeoutError, OSError):
            await asyncio.wait_for(self.channel.send(abort), 1)

    def quit_report(self) -> Report:
        """How the match ended when our player left it: a game whose deal we could know goes to
        the peer, as our record says too."""
        ending = quit_ending(self.seat, Standing.of(self.match), False)
        return Report(
            self.session, self.match, self.files.path, "quit", awarded=ending.awarded, awarded_game=ending.awarded_game
        )

    async def _carry_out(self, actions: list[Action]) -> None:
        for action in actions:
            if isinstance(action, Send):
                await self.line.send(action.message)
            elif isinstance(action, Record | Keep | Touch):
                self.files.carry_out(action, self.match)
            elif isinstance(action, Show):
                self.status(action.text)
            elif isinstance(action, Said):
                self.player.heard(action.text)
            else:
                self._progress.set()
                self.player.advanced(self.match)

    # ------------------------------------------------------------ the match

    async def _loop(self, reader: asyncio.Task[None]) -> None:
        machine = self.machine
        while (due := self.match.due()) is not None:
            kind, seat = due
            if seat == self.seat:
                machine.owe(self.now())
                choice = await self._race(self._choice(kind), reader)
                hint = kind is MoveMsg and self.player.followed_hint()
                await self._carry_out(machine.own_link(kind, self.now(), choice, hint))
            else:
                await self._peer_link(due, reader)

    async def _choice(self, kind: type[Signed]) -> str | Move | None:
        """What our player chooses for our link of ``kind``: a trump preference, a move, or nothing."""
        if kind is Commit:
            return await self.player.preference(self.match.number)
        if kind is MoveMsg:
            assert self.match.game is not None
            return await self.player.choose(self.match.game)
        return None

    async def _farewell(self, reader: asyncio.Task[None]) -> None:
        """Our match is complete: say ``bye`` and wait a little for the peer's, resuming if the line
        drops meanwhile, so that our last link reaches the peer (our own record is complete anyway)."""
        await self.line.send(Bye())
        with contextlib.suppress(P2PError, TimeoutError):
            async with asyncio.timeout(self.patience.linger):
                await asyncio.shield(reader)

    async def _peer_link(self, due: tuple[type[Signed], int], reader: asyncio.Task[None]) -> None:
        """Wait until the reader has applied the peer's due link."""
        self._progress.clear()
        try:
            await self._race(self._await_owed(due[0]), reader)
        except (ConnectionClosed, PeerTimeout):
            if self.match.due() == due:  # the link did not come before the failure
                raise

    async def _await_owed(self, kind: type[Signed]) -> None:
        """Wait for the peer's due link; once it is owed past the limit, the machine claims the
        game (bots) or offers the claim until the link comes (keep-alives do not withdraw it)."""
        machine = self.machine
        machine.awaiting(self.now())
        try:
            while (wait := machine.owed_wait(self.now())) is not None:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(wait):  # no task of its own, unlike wait_for
                        await self._progress.wait()
                    return
            await self._carry_out(machine.stalled(kind, self.now()))
            await self._progress.wait()
        finally:
            await self._carry_out(machine.awaited())

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
