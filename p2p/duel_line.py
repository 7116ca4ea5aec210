"""A duel's line to the peer: one sealed connection at a time, read, kept alive and, when it
breaks, replaced through a :class:`Reconnector` and resumed (docs/protocol.md, "Reconnect and
resume"). Part of the asyncio driver of a :class:`~p2p.duel_machine.DuelMachine`: every message
read, every read that finds nothing in time and every turn of the way back is fed to the
machine, and the actions it answers are carried out by the duel (:class:`~p2p.duel.Duel`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Protocol

from p2p.channel import Channel
from p2p.duel_machine import PAUSE, Action, DuelMachine
from p2p.errors import LINE_ERRORS, ConnectionClosed, P2PError, PeerAborted, PeerTimeout, SlowFrame
from p2p.handshake import HANDSHAKE_TIMEOUT, Session
from p2p.messages import Message, Ping
from p2p.text import Text


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


class DuelLine:
    """The connection a duel plays over, and the way back when it breaks."""

    def __init__(
        self,
        channel: Channel,
        machine: DuelMachine,
        carry_out: Callable[[list[Action]], Awaitable[None]],
        now: Callable[[], float],
        reconnector: Reconnector | None = None,
        back_from: Callable[[str], None] = lambda address: None,
    ) -> None:
        """``carry_out``: the duel's hands for the machine's actions; ``back_from``: told the
        address a peer came back from (the host's saved match remembers it)."""
        self.channel, self.machine, self.now, self.reconnector = channel, machine, now, reconnector
        self._carry_out, self._back_from = carry_out, back_from
        if reconnector is not None:
            reconnector.watch(self.interrupt)

    async def send(self, message: Message) -> None:
        """Send on the live connection; while reconnecting, links wait for the resume to resend them."""
        if not self.machine.clock.live:
            return
        try:
            await self.channel.send(message)
        except ConnectionClosed:
            if self.reconnector is None:
                raise
            self.interrupt()  # the reader notices and reconnects

    async def keep_alive(self) -> None:
        """Ping the peer whenever the machine's clock says a keep-alive is due, for ever."""
        clock = self.machine.clock
        while True:
            await asyncio.sleep(clock.keepalive_wait(self.now()))
            clock.pinged(self.now())
            with contextlib.suppress(P2PError):
                await self.send(Ping())

    def interrupt(self) -> None:
        """Drop the current connection: the reader then reconnects (or raises a claim)."""
        self.channel.abort()

    async def read(self) -> None:
        """Feed the machine the peer's messages as they arrive, until the match is done and the
        peer said ``bye``; a broken line (or the peer's ``pause``) is resumed when the machine
        says so. A restored duel first swaps resume claims on its fresh connection."""
        machine = self.machine
        if not machine.clock.live:
            try:
                await self._exchange(self.channel)
            except LINE_ERRORS as exc:
                await self._resume(exc)
        while not machine.finished():
            try:
                message = await self._next()
            except (*LINE_ERRORS, PeerAborted) as exc:
                await self._resume(exc)
                continue
            await self._carry_out(machine.heard(message, self.now()))

    async def _next(self) -> Message:
        """The next message; the machine judges each read that finds nothing in time."""
        while True:
            try:
                return await self.channel.recv(self.machine.read_wait(self.now()))
            except SlowFrame:
                raise
            except PeerTimeout:
                await self._carry_out(self.machine.silent(self.now()))

    async def _resume(self, cause: P2PError) -> None:
        """Get the peer back on a fresh connection and resume the match exactly where it stopped
        (or raise what ends the match instead: :meth:`DuelMachine.line_lost`)."""
        machine = self.machine
        shown = machine.line_lost(cause, self.now(), self.reconnector is not None)
        assert self.reconnector is not None
        self.interrupt()
        await self.channel.close()
        await self._carry_out(shown)
        attempt = asyncio.ensure_future(self.reconnector.reconnect())
        try:
            while True:
                done, _ = await asyncio.wait({attempt}, timeout=1.0)
                if attempt not in done:
                    await self._carry_out(machine.unreachable(self.now()))
                    continue
                channel, _session = attempt.result()
                try:
                    await self._exchange(channel)
                    return
                except LINE_ERRORS:
                    pass
                except PeerAborted as exc:
                    if exc.reason not in ("lost", PAUSE):
                        raise
                    if exc.reason == "lost":
                        await self._carry_out(machine.back_without_match(exc, self.now()))
                await channel.close()
                attempt = asyncio.ensure_future(self.reconnector.reconnect())
        finally:
            attempt.cancel()

    async def _exchange(self, channel: Channel) -> None:
        """Swap resume claims on a new connection, resend what the peer lacks, and go live."""
        exchange = self.machine.exchange()
        await channel.send(exchange.claim)
        claim = await channel.recv(HANDSHAKE_TIMEOUT)
        self.channel = channel  # from here on, an abort (a different history) goes to this connection
        self.machine.resume_heard(exchange, claim)
        while (message := exchange.next_message()) is not None:  # our links applied meanwhile too
            await channel.send(message)
        if self.machine.hosting:
            self._back_from(channel.peer_host)
        await self._carry_out(self.machine.resumed(self.now()))
