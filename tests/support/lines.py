"""Lines between two peers for the tests: in memory (no socket at all), and over loopback a proxy
that rewrites frames or a relay that cuts, stalls or flips a bit of one connection."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from p2p.channel import Channel

Meddler = Callable[[int, bytes], list[bytes]]
"""Given the index of a sealed joiner→host frame after the handshake (0 first) and the whole frame,
what to forward."""


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

    def __init__(self, peer: asyncio.StreamReader, meddle: Meddler | None = None) -> None:
        """``meddle``: what to feed the peer for each frame written (a channel writes one frame at a
        time), numbered from 0: a meddler on the line, in memory."""
        super().__init__()
        self.peer = peer
        self.meddle = meddle
        self.written = 0
        """How many frames were written."""
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
        if self.closed or self.unread:
            return
        for out in [data] if self.meddle is None else self.meddle(self.written, data):
            self.peer.feed_data(out)
        self.written += 1

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


def memory_streams(
    meddle: Meddler | None = None,
) -> tuple[tuple[asyncio.StreamReader, Any], tuple[asyncio.StreamReader, Any]]:
    """Both ends of a line joined by memory, each a stream reader and its writer (a
    :class:`MemoryWriter`, which stands in for an ``asyncio.StreamWriter``): no socket at all.
    ``meddle`` rewrites the frames the second end writes to the first (joiner to host)."""
    readers = asyncio.StreamReader(), asyncio.StreamReader()
    writers = MemoryWriter(readers[1]), MemoryWriter(readers[0], meddle)
    writers[0].reverse, writers[1].reverse = writers[1], writers[0]
    return (readers[0], writers[0]), (readers[1], writers[1])


def memory_line() -> tuple[Channel, Channel]:
    """Two channels joined by memory: no socket at all."""
    ours, theirs = memory_streams()
    return Channel(*ours), Channel(*theirs)

