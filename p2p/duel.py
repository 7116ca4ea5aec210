"""Playing a match over a sealed channel: the lockstep loop, checkpoints and the record.

:class:`Duel` drives one :class:`~p2p.match.Match` between this side's
:class:`~p2p.players.Player` and the peer. A reader task applies the peer's
links the moment they arrive (so a move out of turn is caught at once, even
while our player thinks); the main loop produces our links when
:meth:`Match.due` says they are ours. The record is saved whenever a deal is
known or a game ends, and whatever way the match ends.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from p2p.channel import Channel
from p2p.errors import (
    CheatError,
    ConnectionClosed,
    P2PError,
    PeerAborted,
    PeerTimeout,
    ProtocolViolation,
    WireError,
)
from p2p.fairdeal import Pledge
from p2p.handshake import Session
from p2p.identity import Identity
from p2p.match import Match, position_hash, rematch_of
from p2p.messages import Abort, Chat, Commit, Final, MoveMsg, Reveal, Signed
from p2p.players import Player
from p2p.record import RecordWriter

T = TypeVar("T")


@dataclass
class Report:
    """How a match went, for the command line and tests."""

    session: Session
    match: Match
    record: Path
    end: str
    """``complete``, ``cheat`` (the peer broke the protocol; evidence kept),
    ``abandoned`` (the peer left or fell silent), ``aborted`` (the peer stopped and said why),
    ``corrupted`` (frames were altered, replayed or reordered in transit), ``quit`` (we stopped)."""
    error: P2PError | None = None

    def as_json(self) -> dict[str, object]:
        """The ``--json`` summary line."""
        match = self.match
        return {
            "result": [result.text for result in match.results],
            "score": list(match.score),
            "seat": self.session.seat,
            "players": list(self.session.names),
            "transcript": match.transcript.hex(),
            "record": str(self.record),
            "code": self.session.code,
            "end": self.end,
            "error": str(self.error) if self.error else None,
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
    ) -> None:
        """``previous``: the complete match this one is a rematch of, on the same connection."""
        terms = session.terms
        self.channel = channel
        self.session = session
        self.me = me
        self.player = player
        self.peer_timeout = peer_timeout
        self.seat = session.seat
        if previous is None:
            self.match = Match(session.session_id, session.keys, terms.rules, terms.games)
            self.writer = RecordWriter(records, session, self.match)
        else:
            root, dealer = rematch_of(previous)
            self.match = Match(root, session.keys, terms.rules, terms.games, dealer)
            self.writer = RecordWriter(records, session, self.match, previous)
        self._pledges: dict[int, Pledge] = {}
        self._progress = asyncio.Event()

    async def say(self, text: str) -> None:
        """Send a chat line to the peer."""
        await self.channel.send(Chat(text=text[:200]))

    async def run(self) -> Report:
        """Play the match to its end (or until it breaks) and save the record.

        After a complete match the channel stays open (a rematch may follow) and
        closing it is the caller's; after a failed one it is closed here.
        """
        end, note = "complete", None
        error: P2PError | None = None
        reader = asyncio.create_task(self._read())
        try:
            await self._loop(reader)
        except CheatError as exc:
            end, error = "cheat", exc
            note = {"end": end, "detail": str(exc), "by": 1 - self.seat, "evidence": exc.evidence}
            with contextlib.suppress(P2PError):
                await self.channel.send(Abort(reason="cheat", detail=str(exc)[:300]))
        except PeerAborted as exc:
            end, error = ("abandoned" if exc.reason == "quit" else "aborted"), exc
            note = {"end": end, "detail": self._when(exc), "by": 1 - self.seat}
        except WireError as exc:
            end, error = "corrupted", exc
            note = {"end": end, "detail": f"the connection was corrupted in transit: {exc}", "by": None}
        except (ConnectionClosed, PeerTimeout) as exc:
            end, error = "abandoned", exc
            note = {"end": end, "detail": self._when(exc), "by": 1 - self.seat}
        except Exception as exc:  # a local failure: keep what was played, then let it surface
            self.writer.save(
                self.match, {"end": "error", "detail": f"this side failed: {exc!r}", "by": self.seat}
            )
            await self.channel.close()
            raise
        except (asyncio.CancelledError, KeyboardInterrupt):
            with contextlib.suppress(P2PError, TimeoutError, OSError):
                await asyncio.wait_for(self.channel.send(Abort(reason="quit", detail="the player left")), 1)
            self.writer.save(self.match, {"end": "quit", "detail": "this side left", "by": self.seat})
            raise
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError, P2PError):
                await reader
        self.writer.save(self.match, note)
        if error is not None:
            await self.channel.close()  # nothing more can happen on this connection
        return Report(self.session, self.match, self.writer.path, end, error)

    def _when(self, error: P2PError) -> str:
        """The error, with whether the peer knew the deal when it happened (see docs/protocol.md)."""
        if self.match.revealed:
            return f"{error} (after the deal of game {self.match.number} was revealed)"
        return f"{error} (before the deal of game {self.match.number})"

    async def _loop(self, reader: asyncio.Task[None]) -> None:
        match, checkpoint = self.match, self._checkpoint()
        while (due := match.due()) is not None:
            kind, seat = due
            if seat == self.seat:
                link = await self._race(self._my_link(kind), reader)
                match.apply(link, self.seat)
                await self.channel.send(link)
                self.player.advanced(match)
            else:
                await self._peer_link(due, reader)
            if self._checkpoint() != checkpoint:
                checkpoint = self._checkpoint()
                self.writer.save(match)

    async def _peer_link(self, due: tuple[type[Signed], int], reader: asyncio.Task[None]) -> None:
        """Wait until the reader has applied the peer's due link."""
        self._progress.clear()
        try:
            await self._race(asyncio.wait_for(self._progress.wait(), self.peer_timeout), reader)
        except (ConnectionClosed, PeerTimeout):
            if self.match.due() == due:  # the link did not come before the failure
                raise

    def _checkpoint(self) -> tuple[int, bool]:
        return len(self.match.results), self.match.revealed

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
            raise ConnectionClosed("the peer stopped sending")
        try:
            return task.result()
        except TimeoutError:
            raise PeerTimeout(f"the peer sent nothing for {self.peer_timeout} s") from None

    async def _read(self) -> None:
        """Apply the peer's links as they arrive, until the match is done (or by raising)."""
        while not self.match.done:
            message = await self.channel.recv()
            if isinstance(message, Chat):
                self.player.heard(message.text)
                continue
            if not isinstance(message, Signed):
                raise ProtocolViolation(f"a {message.TAG!r} message in the middle of a match")
            self.match.apply(message, 1 - self.seat)
            self._progress.set()
            self.player.advanced(self.match)

    async def _my_link(self, kind: type[Signed]) -> Signed:
        match, key, number = self.match, self.me.key, self.match.number
        if kind is Commit:
            pledge = self._pledges[number] = Pledge.fresh(await self.player.preference(number))
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
                game=number, n=len(match.game.moves) + 1, move=str(move), hash=position_hash(after), sig=b""
            )
            return match.sign(key, unsigned)
        return match.sign(key, Final(transcript=match.transcript, sig=b""))
