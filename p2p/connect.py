"""Opening a duel: the asyncio driver of the handshakes, the host's listener and the joiner's dialing.

The state machines (:mod:`p2p.handshake`, :mod:`p2p.admission`) decide; this
module owns the sockets, tasks and timers. The host listens on one socket for
both IPv4 and IPv6 where the system allows (``::`` with dual stack). The
:class:`Listener` keeps listening during the match, for that joiner's return
after a drop; the joiner dials every address of the invite, staggered, and keeps
the first that answers with the host's offer (:func:`join`); its
:class:`Redial` dials again with backoff after a drop.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import errno
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from p2p.addresses import address_text, same_host
from p2p.admission import ACCEPT_BATCH, FIRST_FLIGHT_TIMEOUT, Admission, RefusalLog, source_of
from p2p.channel import Channel
from p2p.dialing import FAST_MAX, FIRST_DELAY, SLOW_MAX, STAGGER, DialPlan, Outcome
from p2p.errors import (
    BadHandshakeSignature,
    ConnectionClosed,
    FingerprintMismatch,
    IncompatiblePeer,
    InviteRefused,
    KnownPeersUnsaved,
    P2PError,
    PeerAborted,
    PeerBusy,
    PeerTimeout,
    WireError,
)
from p2p.handshake import DECISION_TIMEOUT, HANDSHAKE_TIMEOUT, JoinerHandshake, Session, Terms
from p2p.identity import Identity, KnownPeers
from p2p.invite import Address, Invite, new_secret
from p2p.messages import FORFEIT_MS
from p2p.reception import Approve, Reception, no_delay, perform, send_refusal
from p2p.saved import SavedMatch
from p2p.text import N_, Text
from p2p.wire import FRAME_DEADLINE

Refused = Callable[[Text], None]
"""Where the listener reports refused connections (already rate-limited: see :class:`RefusalLog`)."""


def listening_socket(bind: str | None, port: int) -> socket.socket:
    """A listening TCP socket: ``bind`` (any address when ``None``), IPv4 and IPv6 together if possible."""
    if bind is None:
        if socket.has_dualstack_ipv6():
            return socket.create_server(("::", port), family=socket.AF_INET6, dualstack_ipv6=True)
        return socket.create_server(("0.0.0.0", port))
    infos = socket.getaddrinfo(bind, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, address = infos[0]
    return socket.create_server(address[:2] if family == socket.AF_INET else address, family=family)


class Listener:
    """The host's side of a whole duel: the first joiner to prove the invite secret and confirm
    the keys plays; after that only that same joiner (same name and identity key) gets in again,
    to resume after a drop, and everyone else gets the same ``busy`` at once.

    Every connection runs its handshake in its own task, served by a :class:`~p2p.reception.Reception`
    (bounded pools of first flights, proven and pending handshakes with a cap per source and a
    reserved slot for the playing peer's source; the match's gate; each frame within
    ``deadline`` seconds of its header), so that garbage, slow, silent or half-open connections
    cost little and never stop the host from serving its player. Refusals go to ``refused`` at
    most once a second (the rest counted), never to the terminal directly; so does a connection
    the system had no descriptor left for (it waits in the queue of connections a second).
    """

    def __init__(
        self,
        sock: socket.socket,
        me: Identity,
        name: str,
        terms: Terms,
        known: KnownPeers,
        refused: Refused | None = None,
        secret: bytes | None = None,
        admission: Admission | None = None,
        deadline: float = FRAME_DEADLINE,
        first_flight_timeout: float = FIRST_FLIGHT_TIMEOUT,
        approve: Approve | None = None,
    ) -> None:
        """``secret``: the invite's (a fresh one when ``None``: see :meth:`invite`); ``deadline``:
        seconds each frame's body may take after its header; ``first_flight_timeout``: seconds a new
        connection may take to send its hello and knock; ``approve``: the host's person, asked about
        each LAN joiner (one knocking with :data:`~p2p.handshake.LAN_SECRET`) until a match is
        on; ``None`` (a bot, a host that does not announce): LAN knocks get the stranger's refusal."""
        self.sock, self.me = sock, me
        self.secret = secret if secret is not None else new_secret()
        self.reception = Reception(
            me, name, terms, known, self.secret, Admission() if admission is None else admission,
            deadline, first_flight_timeout, approve,
        )  # fmt: skip
        self.refused: Refused = refused or (lambda text: None)
        self.log = RefusalLog()
        self.refusals: collections.deque[tuple[str, P2PError]] = collections.deque(maxlen=64)
        """The latest refused connections (address, why), newest last."""
        self.refused_count = 0
        self._summary: asyncio.TimerHandle | None = None
        self._first: asyncio.Future[tuple[Channel, Session]] = asyncio.get_running_loop().create_future()
        self._returned: asyncio.Queue[tuple[Channel, Session]] = asyncio.Queue(maxsize=1)
        self._interrupt: Callable[[], None] = lambda: None
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        """The handshakes running, one task a connection."""
        self._closed = False
        self._handler: Callable[[asyncio.AbstractEventLoop, dict[str, Any]], object] | None = None

    def invite(self, addresses: list[Address]) -> Invite:
        """The invite for this listener: ``addresses``, the host's fingerprint, the secret."""
        return Invite(tuple(addresses), self.me.fingerprint, self.secret)

    def continue_match(self, saved: SavedMatch, session: Session) -> None:
        """Wait for the joiner of the unfinished match ``session`` kept in ``saved`` (a restarted
        host), and let only it in: knocks proving its invite's secret, by the LAN knock if it
        came so (nobody is asked then), its last address keeping its reserved slot. Call it
        before entering the listener, so that no early knock meets another secret."""
        assert saved.invite is not None, "a host's saved match keeps its invite"
        self.secret = self.reception.secret = saved.invite.secret
        self.reception.bind(session, saved.lan)
        if saved.joiner is not None:
            self.reception.admission.reserved = source_of(saved.joiner)

    def take_invites_only(self) -> None:
        """From now on LAN knocks get the stranger's refusal (the host is not announced after all)."""
        self.reception.approve = None

    @property
    def playing(self) -> Session | None:
        """The session of the match in progress, once a joiner won it."""
        return self.reception.playing

    @property
    def joined_by_lan(self) -> bool:
        """Whether the playing joiner came by the LAN knock (and so comes back by it)."""
        return self.reception.gate.lan

    @property
    def pending(self) -> int:
        """Handshakes in progress."""
        return len(self.reception.admission)

    async def __aenter__(self) -> Listener:
        loop = asyncio.get_running_loop()
        self._handler = loop.get_exception_handler()
        loop.set_exception_handler(self._out_of_descriptors)
        self._server = await asyncio.start_server(self._accepted, sock=self.sock, backlog=ACCEPT_BATCH)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._closed = True
        if self._server is not None:
            self._server.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._summary is not None:
            self._summary.cancel()
        self.reception.close()
        while not self._returned.empty():
            channel, _ = self._returned.get_nowait()
            channel.abort()
        asyncio.get_running_loop().set_exception_handler(self._handler)

    async def first(self) -> tuple[Channel, Session]:
        """The joiner who confirmed the handshake first; from then on only it is let in again."""
        return await self._first

    async def reconnect(self) -> tuple[Channel, Session]:
        """The same joiner, back on a fresh handshaken connection (a :class:`~p2p.duel_line.Reconnector`)."""
        return await self._returned.get()

    def watch(self, interrupt: Callable[[], None]) -> None:
        """``interrupt`` is called when the joiner connects again while we thought it still there
        (a match's duel watching: its joiner's returns are taken)."""
        self._interrupt, self.reception.gate.over = interrupt, False

    def match_over(self) -> None:
        """The match has ended: the joiner coming back gets a sealed ``busy`` saying so (a return
        nobody takes would wait for ever); one already waiting is dropped."""
        self.reception.gate.over = True
        while not self._returned.empty():
            channel, _ = self._returned.get_nowait()
            channel.abort()

    def report_to(self, refused: Refused) -> None:
        """From now on refusals go to ``refused`` (the screen's status slot, say)."""
        self.refused = refused

    def _refusal(self, address: str, error: P2PError) -> None:
        self.refusals.append((address, error.with_traceback(None)))  # keeps no frames, no buffers
        self.refused_count += 1
        line = self.log.note(time.monotonic(), address, error)
        if line is not None:
            self.refused(line)
        elif self._summary is None:  # those held back are counted in a line a little later
            self._summary = asyncio.get_running_loop().call_later(self.log.interval, self._held)

    def _held(self) -> None:
        self._summary = None
        line = self.log.held(time.monotonic())
        if line is not None:
            self.refused(line)

    def _out_of_descriptors(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's report that accepting on our socket failed for want of a descriptor
        (or memory): asyncio pauses accepting for a second and tries again, so it is a refused
        connection like any other, in the rate-limited report. Anything else goes where it went."""
        error, where = context.get("exception"), context.get("socket")
        if (
            isinstance(error, OSError)
            and error.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM)
            and where is not None
            and where.fileno() == self.sock.fileno()
        ):
            why = N_("this machine has no file descriptor left ({error}): new connections wait a second")
            self._refusal("?", P2PError(Text(why, error=error.strerror or error)))
        elif self._handler is not None:
            self._handler(loop, context)
        else:
            loop.default_exception_handler(context)

    def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A new connection: its handshake in a task of our own, which closing the listener ends
        (a task asyncio's server made would outlive it: pending at the program's end, destroyed
        with a message on the terminal). One accepted after closing is dropped at once."""
        if self._closed:
            writer.transport.abort()
            return
        task = asyncio.get_running_loop().create_task(self._handle(reader, writer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # Cancelled when the listener closes (or at the program's end), it ends quietly, and its
        # connection with it: a joiner mid-handshake hears the line close and redials at once,
        # instead of waiting for an answer nobody will send (up to 10 minutes after a LAN accept).
        try:
            admitted = await self.reception.serve(reader, writer, self._refusal)
        except asyncio.CancelledError:
            writer.transport.abort()
            return
        except KnownPeersUnsaved as exc:  # a new joiner cannot be remembered: no match can begin
            if not self._first.done():
                self._first.set_exception(exc)
            return
        if admitted is None:
            return
        channel, session, returning = admitted
        if not returning:
            self._first.set_result((channel, session))
            return
        if self._returned.full():  # an older return nobody picked up: the newest wins
            stale, _ = self._returned.get_nowait()
            stale.abort()
        self._returned.put_nowait((channel, session))
        self._interrupt()


async def host(
    sock: socket.socket, me: Identity, name: str, terms: Terms, known: KnownPeers, secret: bytes
) -> tuple[Channel, Session]:
    """Wait on ``sock`` for a joiner who completes the handshake, then stop listening."""
    async with Listener(sock, me, name, terms, known, secret=secret) as listener:
        return await listener.first()


FIRST_CONNECT_TIMEOUT = 10.0
"""Seconds the first connection to one address may take: four SYNs at Linux's pace (0, 1, 3 and
7 s), enough for a lossy line; a black hole (a LAN address seen from elsewhere) costs no more."""
REDIAL_CONNECT_TIMEOUT = 4.0
"""Seconds one redial's connection may take (three SYNs) before that address counts as silent this
time: its next attempt follows by its own schedule (:class:`~p2p.dialing.DialPlan`)."""


class _Unreached(Exception):
    """An address that did not connect: how (for the plan), and the error to show."""

    def __init__(self, outcome: Outcome, error: P2PError) -> None:
        super().__init__(str(error))
        self.outcome, self.error = outcome, error


async def _connect(address: Address, timeout: float = FIRST_CONNECT_TIMEOUT) -> Channel:
    host, port = address
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
    except TimeoutError:
        text = Text(N_("no answer from {host} port {port}"), host=host, port=port)
        raise _Unreached(Outcome.SILENT, PeerTimeout(text)) from None
    except OSError as exc:
        template = N_(
            "cannot connect to {host} port {port} ({error}): "
            "is the host still waiting, and can this machine reach that address and port?"
        )
        error = ConnectionClosed(Text(template, host=host, port=port, error=exc.strerror or exc))
        refused = isinstance(exc, ConnectionRefusedError)
        raise _Unreached(Outcome.REFUSED if refused else Outcome.UNREACHABLE, error) from None
    no_delay(writer)
    return Channel(reader, writer)


async def _offered(
    address: Address, invite: Invite, me: Identity, name: str, known: KnownPeers, timeout: float, limit_ms: int
) -> tuple[Channel, JoinerHandshake]:
    """Connect to ``address`` and run the joiner's handshake up to the host's checked offer."""
    peers = known.peers()  # before connecting: a damaged file must not leave a connection open
    channel = await _connect(address, timeout)
    machine = JoinerHandshake(me, name, invite.fingerprint, invite.secret, peers, limit_ms)
    await _to_offer(channel, machine)
    return channel, machine


async def _to_offer(channel: Channel, machine: JoinerHandshake) -> None:
    """The joiner's opening on ``channel``, until the host's offer is in and checked."""
    try:
        await perform(channel, machine.start())
        machine.offered(await channel.recv(HANDSHAKE_TIMEOUT))
    except PeerAborted as exc:
        await channel.close()
        if machine.lan and exc.reason == "invite" and machine.offer is None:
            template = N_(
                "the host takes no joiner from your network's list of games now (a bot's game, a "
                "match already on, or you were turned away before): ask the host for its invite line"
            )
            raise InviteRefused(Text(template)) from None
        raise machine.aborted(exc) from None
    except BaseException:
        await send_refusal(channel, machine)
        await channel.close()
        raise


async def _dial(
    plan: DialPlan,
    attempt: Callable[[Address], Awaitable[tuple[Channel, JoinerHandshake]]],
    errors: list[tuple[Address, P2PError]],
    fatal: Callable[[P2PError], bool] = lambda error: False,
) -> tuple[Address, Channel, JoinerHandshake]:
    """Dial the addresses as ``plan`` says, until one brings the host's offer (the others are then
    stopped and closed); each failure goes to ``plan`` and ``errors``. Raises the first ``fatal``
    error, or :class:`_Exhausted` when a round of ``once`` is over."""
    loop = asyncio.get_running_loop()
    attempts: dict[asyncio.Task[tuple[Channel, JoinerHandshake]], Address] = {}
    try:
        while True:
            for address in plan.due(loop.time()):
                attempts[asyncio.ensure_future(attempt(address))] = address
            if not attempts and plan.exhausted:
                raise _Exhausted
            wake = plan.wake_at()
            timeout = None if wake is None else max(0.0, wake - loop.time())
            if not attempts:  # every line waits its delay
                await asyncio.sleep(timeout or 0.0)
                continue
            done, _ = await asyncio.wait(attempts, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                address = attempts.pop(task)
                error = task.exception()
                if error is None:
                    plan.succeeded(address)
                    return address, *task.result()
                if isinstance(error, _Unreached):
                    outcome, error = error.outcome, error.error
                elif isinstance(error, P2PError):
                    outcome = Outcome.SPOKE
                else:
                    raise error
                if fatal(error):
                    raise error
                errors.append((address, error))
                plan.failed(address, loop.time(), outcome, str(error))
    finally:
        for task in attempts:
            task.cancel()
        for task in attempts:
            with contextlib.suppress(BaseException):
                channel, _ = await task
                await channel.close()


class _Exhausted(Exception):
    """Every address of a single round failed (the errors say how)."""


async def _first_offer(
    invite: Invite, me: Identity, name: str, known: KnownPeers, stagger: float, limit_ms: int
) -> tuple[Channel, JoinerHandshake]:
    """Dial every address of ``invite`` once, each ``stagger`` seconds after the previous one (at
    once when the previous one failed), and keep the first that brings the host's offer (RFC 8305)."""
    plan = DialPlan(invite.addresses, once=True, stagger=stagger)
    plan.start(asyncio.get_running_loop().time())
    errors: list[tuple[Address, P2PError]] = []
    try:
        _, channel, machine = await _dial(
            plan, lambda address: _offered(address, invite, me, name, known, FIRST_CONNECT_TIMEOUT, limit_ms), errors
        )
    except _Exhausted:
        raise _all_failed(errors) from None
    return channel, machine


def _all_failed(errors: list[tuple[Address, P2PError]]) -> P2PError:
    """One error for every address having failed: the error itself for a single address; a host's
    answer if any address reached one; else one line naming each address's failure."""
    if len(errors) == 1:
        return errors[0][1]
    for _, error in errors:
        if not isinstance(error, ConnectionClosed | PeerTimeout):
            return error
    line = "; ".join(f"{address_text(host, port)}: {error}" for (host, port), error in errors)
    return ConnectionClosed(Text(N_("no address of the invite answered ({failures})"), failures=line))


async def join(
    invite: Invite,
    me: Identity,
    name: str,
    known: KnownPeers,
    decide: Callable[[Terms, str], Awaitable[bool]],
    stagger: float = STAGGER,
    asked: Callable[[str], None] = lambda code: None,
    limit_ms: int = FORFEIT_MS,
) -> tuple[Channel, Session]:
    """Reach the host of ``invite`` (every address, staggered) and run the joiner's handshake;
    ``decide(terms, host_name)`` accepts or declines the rules; for a LAN invite (no secret),
    ``asked(code)`` is called while the host's person decides, to compare the code; ``limit_ms``:
    our forfeit limit, stated in the accept."""
    channel, machine = await _first_offer(invite, me, name, known, stagger, limit_ms)
    return channel, await _accepted(channel, machine, known, decide, asked)


async def join_on(
    channel: Channel,
    invite: Invite,
    me: Identity,
    name: str,
    known: KnownPeers,
    decide: Callable[[Terms, str], Awaitable[bool]],
) -> Session:
    """The joiner's whole handshake on a connection that is already open (any transport)."""
    machine = JoinerHandshake(me, name, invite.fingerprint, invite.secret, known.peers())
    await _to_offer(channel, machine)
    return await _accepted(channel, machine, known, decide)


async def _accepted(
    channel: Channel,
    machine: JoinerHandshake,
    known: KnownPeers,
    decide: Callable[[Terms, str], Awaitable[bool]],
    asked: Callable[[str], None] = lambda code: None,
) -> Session:
    """After the offer: the decision, the accept and confirm, the host's confirmation (after its
    person's decision, for a LAN knock), the host remembered in ``known``."""
    assert machine.offer is not None
    try:
        if not await decide(Terms.of(machine.offer), machine.offer.name):
            raise machine.decline()
        await perform(channel, machine.accept())
        if machine.lan:
            asked(machine.code)
        timeout = DECISION_TIMEOUT if machine.lan else HANDSHAKE_TIMEOUT
        await perform(channel, machine.confirmed(await channel.recv(timeout)), known)
        assert machine.session is not None
        return machine.session
    except PeerAborted as exc:
        await channel.close()
        if exc.reason == "busy":
            raise PeerBusy(exc.detail) from None
        raise machine.aborted(exc) from None
    except BaseException:
        await send_refusal(channel, machine)
        await channel.close()
        raise


_UNPROVEN = (
    PeerAborted, FingerprintMismatch, BadHandshakeSignature, IncompatiblePeer, InviteRefused,
)  # fmt: skip
"""Refusals a redial meets before the host's signature is checked (a clear ``abort``, an offer
under another key): anyone on the path could forge them, so they cannot end the match. A sealed
``busy`` (:class:`PeerBusy`) is the host's own word, given the playing joiner only once its match
is over: it ends the redial."""


_TRANSIENT = (ConnectionClosed, PeerTimeout, WireError, *_UNPROVEN)
"""What a redial meets and tries again after (anything else, a sealed ``busy`` first, ends it)."""


@dataclass
class Redial:
    """The joiner's way back to the host after a drop (a :class:`~p2p.duel_line.Reconnector`).

    Every address of the invite is dialed on its own schedule (:class:`~p2p.dialing.DialPlan`),
    each connection given :data:`REDIAL_CONNECT_TIMEOUT` seconds, and those that led to the host
    before are dialed first and at least every ``fast_max`` seconds: a host restarted after
    ``kill -9`` is found again about a second after it listens, whatever its other addresses
    (a LAN address seen from the internet is a black hole) do. The others wait doubling from
    ``first_delay`` up to ``max_delay`` seconds. Only the same host (the invite's fingerprint)
    offering the same terms is accepted. Why it cannot get back is :attr:`trouble` (and said
    to ``report`` each time it changes).
    """

    invite: Invite
    me: Identity
    name: str
    known: KnownPeers
    session: Session
    first_delay: float = FIRST_DELAY
    max_delay: float = SLOW_MAX
    fast_max: float = FAST_MAX
    report: Refused | None = None
    """Where :attr:`trouble` is said when it changes (the screen's status slot, stderr); ``None``: nowhere."""
    via: str | None = None
    """The host's address the first connection reached (its channel's ``peer_host``), if any: the
    invite's addresses naming it are dialed as ones that led to the host."""

    def __post_init__(self) -> None:
        self._plan = DialPlan(
            self.invite.addresses,
            [address for address in self.invite.addresses if same_host(address[0], self.via)],
            first_delay=self.first_delay,
            fast_max=self.fast_max,
            slow_max=self.max_delay,
        )
        self._said: str | None = None

    @property
    def trouble(self) -> Text | None:
        """Why the host cannot be reached now (what the best address met last), or ``None``."""
        return self._plan.trouble(self.session.offer.name)

    async def reconnect(self) -> tuple[Channel, Session]:
        """Attempts until one completes the handshake; transient failures are retried."""
        loop = asyncio.get_running_loop()
        self._plan.start(loop.time())
        while True:
            errors: list[tuple[Address, P2PError]] = []
            try:
                address, channel, machine = await _dial(
                    self._plan, self._offered, errors, lambda error: not isinstance(error, _TRANSIENT)
                )
            finally:
                if errors:
                    self._say_trouble()
            try:
                return channel, await _accepted(channel, machine, self.known, self._same_terms)
            except _TRANSIENT as exc:  # a new round, that address again after its short wait
                now = loop.time()
                self._plan.start(now)
                self._plan.failed(address, now, Outcome.SPOKE, str(exc))
                self._say_trouble()

    async def _offered(self, address: Address) -> tuple[Channel, JoinerHandshake]:
        limit_ms = self.session.accept.limit_ms  # the match's limits stand: the same accept as before
        return await _offered(address, self.invite, self.me, self.name, self.known, REDIAL_CONNECT_TIMEOUT, limit_ms)

    def _say_trouble(self) -> None:
        trouble = self.trouble
        if trouble is not None and trouble != self._said and self.report is not None:
            self.report(
                Text(N_("cannot reach {name} yet: {trouble}"), name=self.session.offer.name, trouble=trouble)
            )
        self._said = trouble

    async def _same_terms(self, terms: Terms, host_name: str) -> bool:
        return terms == self.session.terms and host_name == self.session.offer.name

    def watch(self, interrupt: Callable[[], None]) -> None:
        """The joiner learns of a broken line by reading it: nothing to watch."""

    def report_to(self, refused: Refused) -> None:
        """From now on :attr:`trouble` is said to ``refused`` (the screen's status slot)."""
        self.report = refused

    def match_over(self) -> None:
        """A joiner takes no returns: nothing to refuse."""
