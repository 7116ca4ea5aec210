"""Shared helpers of the p2p tests: two homes, a loopback duel, a meddling proxy (no tests here)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from cli.home import Home
from engine import Rules
from p2p.channel import Channel
from p2p.connect import host, join, join_on, listening_socket
from p2p.duel import Duel, Report
from p2p.handshake import HostHandshake, Session, Terms
from p2p.identity import Identity, KnownPeers, load_identity
from p2p.invite import Invite, new_secret
from p2p.players import BotPlayer, Player
from p2p.reception import host_handshake, perform
from p2p.text import Text

LIMIT = 20.0
"""Seconds any one network test may take before it fails."""
T = TypeVar("T")


class Unwatched:
    """The rest of a test's :class:`~p2p.duel.Reconnector` (its ``reconnect`` is the test's own):
    nothing to watch, no refusals to report, no returns to refuse once the match is over."""

    def watch(self, interrupt: Callable[[], None]) -> None:
        """Nothing tells this way back of a newer connection."""

    def report_to(self, refused: Callable[[Text], None]) -> None:
        """It refuses no connections."""

    def match_over(self) -> None:
        """It takes no returns."""


def run(coro: Awaitable[T]) -> T:
    """Run ``coro`` under the test time limit."""

    async def bounded() -> T:
        return await asyncio.wait_for(coro, LIMIT)

    return asyncio.run(bounded())


def ipv6_available() -> bool:
    """Whether ::1 can be listened on here."""
    if not socket.has_ipv6:
        return False
    try:
        with socket.create_server(("::1", 0), family=socket.AF_INET6):
            return True
    except OSError:
        return False


@dataclass
class Side:
    """One peer: its home, identity and name."""

    home: Home
    me: Identity
    name: str

    @classmethod
    def make(cls, root: Path, name: str) -> Side:
        home = Home(root / name / "config", root / name / "data")
        return cls(home, load_identity(home.identity_file), name)

    def invite(self, port: int, secret: bytes, host: str = "127.0.0.1") -> Invite:
        """This side's invite (as host) to ``host``:``port``."""
        return Invite(((host, port),), self.me.fingerprint, secret)

    @property
    def known(self) -> KnownPeers:
        return KnownPeers(self.home.peers_file)


async def accept_all(terms: Terms, host_name: str) -> bool:
    return True


Meddler = Callable[[int, bytes], list[bytes]]

RecordRow = dict[str, Any]
"""A match record's line as ``json.loads`` gives it: untyped, so that a test may tamper with any field."""
"""Given the index of a sealed joiner→host frame (0 first) and the whole frame, what to forward."""


async def meddling_proxy(target_port: int, meddle: Meddler) -> tuple[asyncio.Server, int]:
    """A loopback TCP proxy to ``target_port`` that lets ``meddle`` rewrite sealed joiner→host frames."""

    async def pump_frames(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        index = -4  # hello, knock, accept travel in clear; the first sealed one is the confirm
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                header = await reader.readexactly(4)
                whole = header + await reader.readexactly(int.from_bytes(header, "big"))
                out = [whole] if index < 0 else meddle(index, whole)
                index += 1
                for data in out:
                    writer.write(data)
                await writer.drain()
        writer.close()

    async def pump(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", target_port)
        await asyncio.gather(pump_frames(reader, up_writer), pump(up_reader, writer))

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


@dataclass
class Pair:
    """Both ends of a handshaken connection."""

    host: Side
    joiner: Side
    host_channel: Channel
    host_session: Session
    join_channel: Channel
    join_session: Session

    async def play(
        self, host_player: Player, join_player: Player, timeout: float = 10
    ) -> tuple[Report, Report]:
        """Both sides' duels run to their end; the connection is closed afterwards."""
        host, joiner = self.host, self.joiner
        host_duel = Duel(
            self.host_channel, self.host_session, host.me, host_player, host.home.records, timeout
        )
        join_duel = Duel(
            self.join_channel, self.join_session, joiner.me, join_player, joiner.home.records, timeout
        )
        try:
            reports = await asyncio.gather(host_duel.run(), join_duel.run())
        finally:
            await self.host_channel.close()
            await self.join_channel.close()
        return reports[0], reports[1]


async def connect_pair(
    host_side: Side,
    join_side: Side,
    terms: Terms | None = None,
    bind: str = "127.0.0.1",
    meddle: Meddler | None = None,
    fingerprint: str | None = None,
) -> Pair:
    """Host on ``bind`` port 0, join it (through a meddling proxy if given)."""
    sock = listening_socket(bind, 0)
    port = sock.getsockname()[1]
    terms = terms or Terms(Rules(), 1)
    secret = new_secret()
    hosting = asyncio.create_task(host(sock, host_side.me, host_side.name, terms, host_side.known, secret))
    proxy = None
    if meddle is not None:
        proxy, port = await meddling_proxy(port, meddle)
    invite = Invite(((bind, port),), fingerprint or host_side.me.fingerprint, secret)
    try:
        join_channel, join_session = await join(
            invite, join_side.me, join_side.name, join_side.known, accept_all
        )
    except BaseException:
        hosting.cancel()
        raise
    host_channel, host_session = await hosting
    if proxy is not None:
        proxy.close()
    return Pair(host_side, join_side, host_channel, host_session, join_channel, join_session)


async def bot_duel(
    root: Path, games: int = 1, bind: str | None = "127.0.0.1", levels: tuple[str, str] = ("easy", "easy"),
    rules: Rules | None = None, seed: int = 0, meddle: Meddler | None = None,
) -> tuple[Report, Report]:  # fmt: skip
    """A whole bot match over loopback (over memory, no socket, when ``bind`` is ``None``);
    the host's report, then the joiner's."""
    ann, bob = Side.make(root, "ann"), Side.make(root, "bob")
    terms = Terms(rules or Rules(), games)
    if bind is None:
        pair = await memory_pair(ann, bob, terms)
    else:
        pair = await connect_pair(ann, bob, terms, bind, meddle)
    return await pair.play(BotPlayer(levels[0], seed=seed), BotPlayer(levels[1], seed=seed + 1))


@dataclass
class Fault:
    """What a :class:`FaultyLine` does to one connection once ``after`` bytes have crossed it.

    ``cut``: abort both ends; ``stall``: forward nothing more, close nothing (a half-open
    line); ``flip``: flip one bit of the joiner→host byte at offset ``after``.
    """

    action: str
    after: int


class FaultyLine:
    """A loopback TCP relay to ``target_port`` that breaks connection *i* as ``faults[i]`` says."""

    def __init__(self, target_port: int, faults: dict[int, Fault]) -> None:
        self.target_port = target_port
        self.faults = faults
        self.connections = 0
        self.sent: list[bytearray] = []
        """What each connection's joiner sent on, byte for byte (what someone on the path records)."""
        self._writers: list[asyncio.StreamWriter] = []
        self.server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    def close(self) -> None:
        if self.server is not None:
            self.server.close()
        for writer in self._writers:
            writer.transport.abort()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        fault = self.faults.get(self.connections)
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return
        self._writers += [writer, up_writer]
        sent = bytearray()
        self.sent.append(sent)
        crossed = [0]
        broken = asyncio.Event()

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter, upstream: bool) -> None:
            with contextlib.suppress(ConnectionError, OSError):
                while data := await source.read(4096):
                    if fault is not None and fault.action == "flip":
                        if upstream and crossed[0] <= fault.after < crossed[0] + len(data):
                            offset = fault.after - crossed[0]
                            data = data[:offset] + bytes([data[offset] ^ 0x20]) + data[offset + 1 :]
                        crossed[0] += len(data) if upstream else 0
                    elif fault is not None and crossed[0] + len(data) > fault.after:
                        if fault.action in ("cut", "stall"):
                            broken.set()
                            if fault.action == "cut":
                                writer.transport.abort()
                                up_writer.transport.abort()
                            return
                    else:
                        crossed[0] += len(data)
                    if upstream:
                        sent.extend(data)
                    sink.write(data)
                    await sink.drain()
            if not broken.is_set():
                sink.close()

        await asyncio.gather(pump(reader, up_writer, True), pump(up_reader, writer, False))


class MemoryWriter(asyncio.ReadTransport):
    """The writing end of an in-memory line: what is written is fed to the peer's reader at once.
    It is also its own transport (``abort``; reading paused as a socket's is), as a ``Channel``
    expects of a stream writer."""

    def __init__(self, peer: asyncio.StreamReader) -> None:
        super().__init__()
        self.peer = peer
        self.transport = self
        self.closed = False
        self.reverse: MemoryWriter | None = None
        """The other direction's writer: it feeds this end's reader."""
        self.unread = False
        """Whether the peer's reader stopped reading (what is written then is dropped)."""

    def is_reading(self) -> bool:
        return self.reverse is not None and not self.reverse.unread

    def pause_reading(self) -> None:
        if self.reverse is not None:
            self.reverse.unread = True

    def write(self, data: bytes) -> None:
        if not self.closed and not self.unread:
            self.peer.feed_data(data)

    async def drain(self) -> None:
        await asyncio.sleep(0)  # let the reader run, as a socket would

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.peer.feed_eof()

    abort = close

    async def wait_closed(self) -> None:
        pass

    def get_extra_info(self, name: str, default: object = None) -> object:
        return ("memory", 0) if name == "peername" else default


def memory_streams() -> tuple[tuple[asyncio.StreamReader, Any], tuple[asyncio.StreamReader, Any]]:
    """Both ends of a line joined by memory, each a stream reader and its writer (a
    :class:`MemoryWriter`, which stands in for an ``asyncio.StreamWriter``): no socket at all."""
    readers = asyncio.StreamReader(), asyncio.StreamReader()
    writers = MemoryWriter(readers[1]), MemoryWriter(readers[0])
    writers[0].reverse, writers[1].reverse = writers[1], writers[0]
    return (readers[0], writers[0]), (readers[1], writers[1])


def memory_line() -> tuple[Channel, Channel]:
    """Two channels joined by memory: no socket at all."""
    ours, theirs = memory_streams()
    return Channel(*ours), Channel(*theirs)


async def memory_pair(host_side: Side, join_side: Side, terms: Terms | None = None) -> Pair:
    """Both ends of a handshake run over :func:`memory_line` by the real drivers."""
    host_channel, join_channel = memory_line()
    secret = new_secret()
    machine = HostHandshake(host_side.me, host_side.name, terms or Terms(Rules(), 1), secret)
    invite = host_side.invite(0, secret, "memory")

    async def hosting() -> Session:
        session = await host_handshake(host_channel, machine)
        await perform(host_channel, machine.admit(), host_side.known)
        return session

    host_task = asyncio.ensure_future(hosting())
    join_session = await join_on(
        join_channel, invite, join_side.me, join_side.name, join_side.known, accept_all
    )
    return Pair(host_side, join_side, host_channel, await host_task, join_channel, join_session)
