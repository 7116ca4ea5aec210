"""Opening a duel: the host's listener and the joiner's connection, each ending in a handshaken session.

The host listens on one socket for both IPv4 and IPv6 where the system
allows (``::`` with dual stack), so that one port number serves every
friend. Connections that fail the handshake are refused and reported, and
the host keeps listening; the first one that succeeds gets the game. The
:class:`Listener` keeps listening during the match, for that joiner's return
after a drop; the joiner's :class:`Redial` dials again with backoff.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import random
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from p2p.channel import Channel
from p2p.errors import (
    BadHandshakeSignature,
    ConnectionClosed,
    FingerprintMismatch,
    IncompatiblePeer,
    P2PError,
    PeerAborted,
    PeerBusy,
    PeerTimeout,
    WireError,
)
from p2p.handshake import HANDSHAKE_TIMEOUT, Session, Terms, host_handshake, join_handshake
from p2p.identity import Identity, KnownPeers
from p2p.invite import Invite
from p2p.text import N_, Text
from p2p.wire import FRAME_DEADLINE

Refused = Callable[[str, P2PError], None]


def listening_socket(bind: str | None, port: int) -> socket.socket:
    """A listening TCP socket: ``bind`` (any address when ``None``), IPv4 and IPv6 together if possible."""
    if bind is None:
        if socket.has_dualstack_ipv6():
            return socket.create_server(("::", port), family=socket.AF_INET6, dualstack_ipv6=True)
        return socket.create_server(("0.0.0.0", port))
    infos = socket.getaddrinfo(bind, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, address = infos[0]
    return socket.create_server(address[:2] if family == socket.AF_INET else address, family=family)


MAX_PENDING = 16
"""Connections at most in the middle of a handshake at once; beyond, the oldest is dropped."""


class Listener:
    """The host's side of a whole duel: the first joiner to complete the handshake plays;
    after that only that same joiner (same name and identity key) may connect again, to
    resume after a drop, and anyone else is told the host is busy.

    Every connection runs its handshake in its own task, at most :data:`MAX_PENDING`
    at once (the oldest is dropped to make room), each frame within ``deadline``
    seconds of its header, so that garbage, slow, silent or half-open connections
    cost little and never stop the host from serving its player.
    """

    def __init__(
        self,
        sock: socket.socket,
        me: Identity,
        name: str,
        terms: Terms,
        known: KnownPeers,
        refused: Refused,
        max_pending: int = MAX_PENDING,
        deadline: float = FRAME_DEADLINE,
        hello_timeout: float = HANDSHAKE_TIMEOUT,
    ) -> None:
        """``deadline``: seconds each frame's body may take after its header; ``hello_timeout``:
        seconds a new connection may stay silent before its hello."""
        self.sock, self.me, self.name, self.terms, self.known = sock, me, name, terms, known
        self.refused = refused
        self.max_pending = max_pending
        self.deadline = deadline
        self.hello_timeout = hello_timeout
        self.playing: Session | None = None
        """The session of the match in progress, once a joiner won it."""
        self._first: asyncio.Future[tuple[Channel, Session]] = asyncio.get_running_loop().create_future()
        self._returned: asyncio.Queue[tuple[Channel, Session]] = asyncio.Queue(maxsize=1)
        self._pending: collections.deque[Channel] = collections.deque()
        self._interrupt: Callable[[], None] = lambda: None
        self._server: asyncio.Server | None = None

    async def __aenter__(self) -> Listener:
        self._server = await asyncio.start_server(self._handle, sock=self.sock)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
        for channel in list(self._pending):
            channel.writer.close()
        while not self._returned.empty():
            channel, _ = self._returned.get_nowait()
            channel.writer.close()

    async def first(self) -> tuple[Channel, Session]:
        """The joiner who completed the handshake first; from then on only it is let in again."""
        channel, session = await self._first
        self.playing = session
        return channel, session

    async def reconnect(self) -> tuple[Channel, Session]:
        """The same joiner, back on a fresh handshaken connection (a :class:`~p2p.duel.Reconnector`)."""
        return await self._returned.get()

    def watch(self, interrupt: Callable[[], None]) -> None:
        """``interrupt`` is called when the joiner connects again while we thought it still there."""
        self._interrupt = interrupt

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        channel = Channel(reader, writer, self.deadline)
        if self._first.done() and self.playing is None:  # between the winner and first()
            await channel.close()
            return
        if len(self._pending) >= self.max_pending:
            oldest = self._pending.popleft()
            oldest.writer.transport.abort()
        self._pending.append(channel)
        try:
            session = await host_handshake(
                channel, self.me, self.name, self.terms, self.known, self.playing, self.hello_timeout
            )
        except P2PError as exc:  # a decline too: it is unauthenticated, anyone could send it
            self.refused(channel.peer_address, exc)
            await channel.close()
            return
        finally:
            with contextlib.suppress(ValueError):
                self._pending.remove(channel)
        if self.playing is not None:
            self._came_back(channel, session)
        elif not self._first.done():
            self.known.check(session.hello.name, session.accept.key)  # checked in the handshake
            self._first.set_result((channel, session))
        else:  # another joiner was faster
            self.refused(
                channel.peer_address, PeerBusy(Text(N_("another joiner completed the handshake first")))
            )
            await channel.close()

    def _came_back(self, channel: Channel, session: Session) -> None:
        if self._returned.full():  # an older return nobody picked up: the newest wins
            stale, _ = self._returned.get_nowait()
            stale.writer.transport.abort()
        self._returned.put_nowait((channel, session))
        self._interrupt()


async def host(
    sock: socket.socket, me: Identity, name: str, terms: Terms, known: KnownPeers, refused: Refused
) -> tuple[Channel, Session]:
    """Wait on ``sock`` for a joiner who completes the handshake, then stop listening."""
    async with Listener(sock, me, name, terms, known, refused) as listener:
        return await listener.first()


async def join(
    invite: Invite,
    me: Identity,
    name: str,
    known: KnownPeers,
    decide: Callable[[Terms, str], Awaitable[bool]],
) -> tuple[Channel, Session]:
    """Connect to the host of ``invite`` and run the joiner's handshake."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(invite.host, invite.port), HANDSHAKE_TIMEOUT
        )
    except TimeoutError:
        raise PeerTimeout(
            Text(N_("no answer from {host} port {port}"), host=invite.host, port=invite.port)
        ) from None
    except OSError as exc:
        template = N_(
            "cannot connect to {host} port {port} ({error}): "
            "is the host still waiting, and can this machine reach that address and port?"
        )
        raise ConnectionClosed(
            Text(template, host=invite.host, port=invite.port, error=exc.strerror or exc)
        ) from None
    channel = Channel(reader, writer)
    try:
        session = await join_handshake(channel, me, name, invite.fingerprint, known, decide)
    except PeerAborted as exc:
        await channel.close()
        if exc.reason == "busy":
            raise PeerBusy(exc.detail) from None
        raise
    except BaseException:
        with contextlib.suppress(P2PError):
            await channel.close()
        raise
    return channel, session


_UNPROVEN = (PeerAborted, PeerBusy, FingerprintMismatch, BadHandshakeSignature, IncompatiblePeer)
"""Refusals a redial meets before the host's signature is checked (a clear ``abort``, an offer
under another key): anyone on the path could forge them, so they cannot end the match."""


@dataclass
class Redial:
    """The joiner's way back to the host after a drop: redial with backoff (a :class:`~p2p.duel.Reconnector`).

    Only the same host (the invite's fingerprint) offering the same terms is accepted;
    the wait between attempts doubles from ``first_delay`` up to ``max_delay`` seconds.
    """

    invite: Invite
    me: Identity
    name: str
    known: KnownPeers
    session: Session
    first_delay: float = 0.25
    max_delay: float = 15.0

    async def reconnect(self) -> tuple[Channel, Session]:
        """Attempts until one completes the handshake; transient failures are retried."""
        delay = self.first_delay
        while True:
            try:
                return await join(self.invite, self.me, self.name, self.known, self._same_terms)
            except (ConnectionClosed, PeerTimeout, WireError, *_UNPROVEN):
                pass
            await asyncio.sleep(delay * random.uniform(0.8, 1.2))  # jitter, not secrecy
            delay = min(delay * 2, self.max_delay)

    async def _same_terms(self, terms: Terms, host_name: str) -> bool:
        return terms == self.session.terms and host_name == self.session.offer.name

    def watch(self, interrupt: Callable[[], None]) -> None:
        """The joiner learns of a broken line by reading it: nothing to watch."""

