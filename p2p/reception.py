"""The host's reception: each connection's handshake, from its arrival to its joiner let in or refused.

The pure decisions are :mod:`p2p.admission`'s (whom the pools keep, whom the
gate of a match lets in, which LAN knocks the person is asked about) and the
handshake machine's (:mod:`p2p.handshake`); :class:`Reception` carries them
out over asyncio for one :class:`~p2p.connect.Listener`: a connection's channel,
its timeouts, the eviction of the connections the pools drop, the person's
question. :func:`perform` and :func:`send_refusal` carry out a machine's actions
for either side.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable, Hashable

from p2p.admission import FIRST_FLIGHT_TIMEOUT, Admission, Approvals, Gate, host_of, source_of
from p2p.channel import Channel
from p2p.errors import (
    IdentityChanged,
    InviteRefused,
    KnownPeersUnsaved,
    P2PError,
    PeerAborted,
    PeerBusy,
    PeerTimeout,
    TamperedFrame,
)
from p2p.handshake import (
    DECISION_TIMEOUT,
    HANDSHAKE_TIMEOUT,
    Action,
    HostHandshake,
    JoinerHandshake,
    Seal,
    Send,
    Session,
    Terms,
)
from p2p.identity import Identity, KnownPeers
from p2p.messages import Abort
from p2p.text import N_, Text

Approve = Callable[[str, str, str], Awaitable[bool]]
"""Asks the host's person whether a LAN joiner may play: ``(name, address, code)`` to yes or no."""
RefusalNote = Callable[[str, P2PError], None]
"""Told of each refused connection: its address and why."""


async def perform(channel: Channel, actions: list[Action], known: KnownPeers | None = None) -> None:
    """Carry out a handshake machine's actions on ``channel``, in order (a :class:`Remember` in
    ``known``, which a machine that binds its peer needs: :class:`~p2p.handshake.Remember`)."""
    for action in actions:
        if isinstance(action, Seal):
            channel.seal(action.send_key, action.recv_key)
        elif isinstance(action, Send):
            await channel.send(action.message)
        else:  # a Remember
            assert known is not None, "a handshake that binds its peer needs the known peers"
            known.remember(action.name, action.key)


async def send_refusal(channel: Channel, machine: HostHandshake | JoinerHandshake) -> None:
    """Send the machine's refusal, if it has one (best effort: a failure must not hide the reason)."""
    with contextlib.suppress(P2PError, TimeoutError):
        async with asyncio.timeout(2):
            await perform(channel, machine.refusal_actions())


async def host_handshake(
    channel: Channel,
    machine: HostHandshake,
    first_flight_timeout: float = FIRST_FLIGHT_TIMEOUT,
    flown: Callable[[], None] = lambda: None,
    decision_timeout: float = DECISION_TIMEOUT,
) -> Session:
    """Drive the host's machine on ``channel`` until the joiner confirmed the keys (admission
    and the host's ``confirmed`` are the caller's): the hello and knock within
    ``first_flight_timeout`` seconds together, then ``flown()`` (it raises to refuse the
    connection) before the offer goes out, then the accept within ``decision_timeout`` (the
    joiner's person reads the rules) and the confirm."""
    try:
        async with asyncio.timeout(first_flight_timeout):
            await perform(channel, machine.receive(await channel.recv()))  # the hello: no answer
            offer = machine.receive(await channel.recv())
    except TimeoutError:
        if machine.hello is None:
            raise PeerTimeout(Text(N_("the peer did not send its hello in time"))) from None
        raise PeerTimeout(Text(N_("the peer sent its hello but not its knock in time"))) from None
    except PeerAborted as exc:
        raise machine.declined(exc) from None
    flown()
    await perform(channel, offer)
    while machine.session is None:
        timeout = HANDSHAKE_TIMEOUT if channel.sealed else decision_timeout
        try:
            message = await channel.recv(timeout)
        except PeerAborted as exc:
            raise machine.declined(exc) from None
        except TamperedFrame:
            if not channel.sealed:
                raise
            raise machine.unconfirmed() from None  # its confirm is not sealed under our keys
        await perform(channel, machine.receive(message))
    return machine.session


def no_delay(writer: asyncio.StreamWriter) -> None:
    """Send small frames at once (no Nagle): asyncio leaves it on for sockets accepted from a
    listening socket made with ``proto=0``, and a link sent right after the host's ``confirmed``
    would otherwise wait for the joiner's delayed acknowledgement (~40 ms)."""
    sock = writer.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class Reception:
    """What the handshakes of one listener share, and the serving of each connection: admitted by
    :class:`~p2p.admission.Admission` (its connections dropped when a pool makes room), let in
    by the match's :class:`~p2p.admission.Gate` (once a joiner won, only it), a LAN joiner by the
    host's person (``approve``, one question at a time, bounded by
    :class:`~p2p.admission.Approvals`), each frame within ``deadline`` seconds of its header."""

    def __init__(
        self,
        me: Identity,
        name: str,
        terms: Terms,
        known: KnownPeers,
        secret: bytes,
        admission: Admission,
        deadline: float,
        first_flight_timeout: float,
        approve: Approve | None,
    ) -> None:
        self.me, self.name, self.terms, self.known, self.secret = me, name, terms, known, secret
        self.admission, self.deadline, self.first_flight_timeout = admission, deadline, first_flight_timeout
        self.approve = approve
        """The host's person, asked about each LAN joiner until a match is on (``None``: LAN
        knocks get the stranger's refusal, but a continued LAN match's own joiner's)."""
        self.gate = Gate(name)
        self.approvals = Approvals()
        self.playing: Session | None = None
        """The session of the match in progress, once a joiner won it (the gate's binding)."""
        self._seen: set[bytes] = set()
        self._channels: dict[Hashable, Channel] = {}
        self._question: asyncio.Future[bool] | None = None

    def bind(self, session: Session, lan: bool) -> None:
        """The match of ``session`` is on (its joiner came by the LAN knock if ``lan``)."""
        self.playing = session
        self.gate.bind(session.hello.name, session.accept.key, lan)

    def close(self) -> None:
        """Drop every connection still in its handshake, and withdraw the person's question."""
        for channel in list(self._channels.values()):
            channel.abort()
        if self._question is not None:
            self._question.cancel()

    async def serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, refused: RefusalNote
    ) -> tuple[Channel, Session, bool] | None:
        """One connection's handshake: its channel, session and whether it is the playing joiner
        coming back, once let in; ``None`` once refused (and told to ``refused``). Raises
        :class:`~p2p.errors.KnownPeersUnsaved` when a new joiner cannot be remembered: no match can
        begin."""
        no_delay(writer)
        channel = Channel(reader, writer, self.deadline)
        key, address, source = id(channel), channel.peer_address, source_of(channel.peer_host)
        self._evict(self.admission.arrive(key, source))
        self._channels[key] = channel
        returning = self.gate.joiner is not None
        lan = self.gate.lan if returning else self.approve is not None and self.approvals.welcome(source)
        machine = HostHandshake(self.me, self.name, self.terms, self.secret, self._seen, lan, self.gate)
        session: Session | None = None
        try:
            session = await host_handshake(
                channel, machine, self.first_flight_timeout, lambda: self._flown(key, machine, source),
                HANDSHAKE_TIMEOUT if returning else DECISION_TIMEOUT,  # a joiner coming back decides at once
            )  # fmt: skip
            returning = self.gate.joiner is not None  # someone may have won meanwhile: the gate said who
            self._check_known(session, machine)
            if machine.lan_knock and not returning:
                self.admission.keep(key)  # the one joiner being asked about is not evicted
                await self._approved(channel, session, machine, source)
                machine.recheck()  # someone else may have won while the person decided
            actions = machine.admit()  # before binding: a new joiner is remembered, a returning one was
            if not returning:
                self.bind(session, machine.lan_knock)  # before any await: a second joiner is busy
            await perform(channel, actions, self.known)
        except P2PError as exc:  # a decline too: it is unauthenticated, anyone could send it
            if session is not None and self.playing is session:
                self.playing, self.gate.joiner = None, None  # its line broke before it was let in
            if isinstance(exc, KnownPeersUnsaved):
                channel.abort()
                raise
            await send_refusal(channel, machine)
            refused(address, exc)
            await channel.close()
            return None
        finally:
            self.admission.leave(key)
            self._channels.pop(key, None)
        self.admission.reserved = source
        return channel, session, returning

    def _evict(self, keys: list[Hashable]) -> None:
        for key in keys:
            if (evicted := self._channels.pop(key, None)) is not None:
                evicted.abort()

    def _flown(self, key: Hashable, machine: HostHandshake, source: str) -> None:
        """The connection's hello and knock were read and its knock taken: from the first-flight
        slots into its stage (or refused if it is a LAN knock whose source has its share, or if
        the offers to LAN knocks are used up while no match is on)."""
        lan_offer = machine.lan_knock and self.gate.joiner is None  # its joiner learns its code
        if lan_offer and not self.approvals.may_offer(source):
            raise PeerBusy(Text(N_("too many LAN knocks: from now on only invites get in")))
        drop = self.admission.flown(key, machine.proven)
        if drop is None:
            raise PeerBusy(Text(N_("too many connections from this address at once")))
        if lan_offer:
            self.approvals.offered(source)
        self._evict(drop)

    def _check_known(self, session: Session, machine: HostHandshake) -> None:
        """A known name (or a look-alike) with another key is refused; remembered only once it
        gets the match (it may still lose the race)."""
        try:
            self.known.check(session.hello.name, session.accept.key, remember=False)
        except IdentityChanged as exc:
            machine.refusal = Abort(reason="identity", detail=str(exc)[:300])
            raise

    async def _approved(
        self, channel: Channel, session: Session, machine: HostHandshake, source: str
    ) -> None:
        """Ask the host's person about a confirmed LAN joiner on ``channel`` (one question at a
        time, bounded by :class:`~p2p.admission.Approvals`); raise unless the answer is yes within
        the decision time and while the joiner still waits (it sends nothing meanwhile: anything
        it sends, or its line closing, withdraws the question)."""
        assert self.approve is not None
        if not self.approvals.open(source):
            detail = f"{self.name} is answering another request to join: try again in a moment"
            machine.refusal = Abort(reason="busy", detail=detail)
            raise PeerBusy(Text(N_("another request to join was being answered")))
        address = host_of(channel.peer_host)
        question = asyncio.ensure_future(self.approve(session.hello.name, address, session.code))
        self._question = question  # closing the listener cancels it: that is a no
        gone = asyncio.ensure_future(channel.recv(DECISION_TIMEOUT))
        accepted = False
        try:
            await asyncio.wait(
                {question, gone}, timeout=DECISION_TIMEOUT, return_when=asyncio.FIRST_COMPLETED
            )
            accepted = question.done() and not question.cancelled() and question.exception() is None
            accepted = accepted and question.result() and not gone.done()
        finally:
            for task in (question, gone):
                task.cancel()
            if gone.done() and not gone.cancelled():
                gone.exception()  # retrieved: the joiner's leaving is the refusal's reason enough
            self._question = None
            self.approvals.answer(source, accepted)
        if not accepted:
            machine.refusal = Abort(reason="declined", detail=f"{self.name} did not let you in")
            raise InviteRefused(Text(N_("{name} was not let in"), name=session.hello.name))
