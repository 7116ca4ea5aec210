"""One TCP connection carrying messages: in clear for the handshake, sealed after it.

A sealed frame is an 8-byte big-endian counter followed by the ChaCha20-Poly1305
ciphertext of the message, under the sender's direction key, with the
counter as nonce and as associated data. The counter is sent in clear so
that a replayed, a reordered and a tampered frame each get their own error;
any change to it still fails authentication. :class:`Sealer` holds the keys and
counters and :class:`Codec` turns messages into the stream's bytes and back (a
:class:`~p2p.wire.FrameBuffer` and a sealer): neither does any I/O. :class:`Channel`
is the asyncio driver around them.

>>> ours, theirs = Sealer(bytes(32), bytes([1]) * 32), Sealer(bytes([1]) * 32, bytes(32))
>>> theirs.open(ours.seal(b"hello"))
b'hello'
>>> theirs.open(ours.seal(b"again"))
b'again'
"""

from __future__ import annotations

import asyncio
import contextlib

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from p2p.errors import (
    ConnectionClosed,
    MalformedFrame,
    PeerAborted,
    ProtocolViolation,
    ReorderedFrame,
    ReplayedFrame,
    TamperedFrame,
    WireError,
)
from p2p.messages import Abort, Message, parse
from p2p.text import N_, Text
from p2p.wire import FRAME_DEADLINE, FrameBuffer, decode, encode, fill, frame

_COUNTER_BYTES = 8
_TAG_BYTES = 16


class Sealer:
    """The sealing state of one session: a key and a counter per direction, counters from 0."""

    def __init__(self, send_key: bytes, recv_key: bytes) -> None:
        self._send, self._recv = ChaCha20Poly1305(send_key), ChaCha20Poly1305(recv_key)
        self._send_count = self._recv_count = 0

    def seal(self, plain: bytes) -> bytes:
        """The sealed payload of ``plain``: the next counter, then the ciphertext."""
        counter = self._send_count.to_bytes(_COUNTER_BYTES, "big")
        self._send_count += 1
        return counter + self._send.encrypt(_nonce(counter), plain, counter)

    def open(self, payload: bytes) -> bytes:
        """The plaintext of the peer's next sealed payload, or the error naming what went wrong."""
        if len(payload) < _COUNTER_BYTES + _TAG_BYTES:
            raise TamperedFrame(
                Text(
                    N_("a sealed frame was damaged in transit ({error})"),
                    error=Text(N_("a sealed frame of {size} bytes is too short"), size=len(payload)),
                )
            )
        counter = payload[:_COUNTER_BYTES]
        number = int.from_bytes(counter, "big")
        if number < self._recv_count:
            template = N_("frame {number} was received before (next due: {due})")
            raise ReplayedFrame(Text(template, number=number, due=self._recv_count))
        if number > self._recv_count:
            template = N_("frame {number} arrived while frame {due} was due")
            raise ReorderedFrame(Text(template, number=number, due=self._recv_count))
        try:
            plain = self._recv.decrypt(_nonce(counter), payload[_COUNTER_BYTES:], counter)
        except InvalidTag:
            template = N_("frame {number} failed authentication: it was altered in transit")
            raise TamperedFrame(Text(template, number=number)) from None
        self._recv_count += 1
        return plain


class Codec:
    """One side of a connection without its I/O: messages to the bytes to write
    (:meth:`frame_of`), the bytes read to messages (:meth:`receive_data`, :meth:`next_message`),
    in clear until :meth:`seal`, authenticated and encrypted after it."""

    def __init__(self) -> None:
        self.frames = FrameBuffer()
        """What was read of the stream and not yet taken as a message."""
        self._sealer: Sealer | None = None

    @property
    def sealed(self) -> bool:
        """Whether frames are sealed (the handshake got past the accept)."""
        return self._sealer is not None

    def seal(self, send_key: bytes, recv_key: bytes) -> None:
        """From now on every frame is encrypted and authenticated, counters from 0."""
        self._sealer = Sealer(send_key, recv_key)

    def frame_of(self, message: Message) -> bytes:
        """The bytes that carry ``message`` (sealed once :meth:`seal` was called)."""
        payload = encode(message.to_wire())
        if self._sealer is not None:
            payload = self._sealer.seal(payload)
        return frame(payload)

    def receive_data(self, data: bytes) -> None:
        """Take the next bytes read from the peer, however the stream cut them."""
        self.frames.receive_data(data)

    def next_message(self) -> Message | None:
        """The peer's next message, validated, or ``None`` while more bytes are needed; an
        :class:`Abort` from the peer raises :class:`PeerAborted`. Once sealed, bytes that do not
        open are the line's fault (:class:`TamperedFrame` and its siblings) and a message that
        opens but is malformed the peer's own (:class:`ProtocolViolation`)."""
        try:
            payload = self.frames.next_frame()
            if payload is None:
                return None
            if self._sealer is not None:
                payload = self._sealer.open(payload)
        except MalformedFrame as exc:
            if self._sealer is None:
                raise
            raise TamperedFrame(
                Text(N_("a sealed frame was damaged in transit ({error})"), error=exc)
            ) from None
        try:
            message = parse(decode(payload))
        except WireError as exc:
            if self._sealer is None:
                raise
            # it decrypted under the peer's key, so the peer itself sent it: not the line's fault
            raise ProtocolViolation(
                Text(N_("the peer sent a malformed message in a sealed frame ({error})"), error=exc)
            ) from None
        if isinstance(message, Abort):
            raise PeerAborted(message.reason, message.detail)
        return message


class Channel:
    """Messages over a stream pair; :meth:`seal` switches to authenticated encryption."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        deadline: float = FRAME_DEADLINE,
        codec: Codec | None = None,
    ) -> None:
        """``deadline``: seconds a frame's body may take once its header is in; ``codec``: the
        connection's state so far (a fresh one, in clear, unless its handshake ran elsewhere)."""
        self.reader = reader
        self.deadline = deadline
        self.writer = writer
        self.codec = codec if codec is not None else Codec()

    @property
    def peer_host(self) -> str:
        """The peer's IP address (``?`` when unknown)."""
        peer = self.writer.get_extra_info("peername")
        return str(peer[0]) if peer else "?"

    @property
    def peer_address(self) -> str:
        """The peer's address as ``host:port`` (``[v6]:port`` for IPv6)."""
        peer = self.writer.get_extra_info("peername")
        if not peer:
            return "?"
        host, port = peer[0], peer[1]
        return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"

    @property
    def sealed(self) -> bool:
        """Whether frames are sealed (the handshake got past the accept)."""
        return self.codec.sealed

    def seal(self, send_key: bytes, recv_key: bytes) -> None:
        """From now on every frame is encrypted and authenticated, counters from 0."""
        self.codec.seal(send_key, recv_key)

    async def send(self, message: Message) -> None:
        """Write ``message`` (sealed once :meth:`seal` was called)."""
        data = self.codec.frame_of(message)
        try:
            self.writer.write(data)
            await self.writer.drain()
        except (ConnectionError, OSError) as exc:
            raise ConnectionClosed(Text(N_("the connection dropped ({error})"), error=exc)) from None

    async def recv(self, timeout: float | None = None) -> Message:
        """The next message (:meth:`Codec.next_message`); waits up to ``timeout`` seconds for its
        frame to start (:func:`~p2p.wire.fill`)."""
        while (message := self.codec.next_message()) is None:
            await fill(self.reader, self.codec.frames, timeout, self.deadline)
        return message

    def abort(self) -> None:
        """Drop the connection at once (no goodbye): a reader waiting on it wakes with an error."""
        transport = self.writer.transport
        if transport is not None:
            transport.abort()

    def stop_reading(self) -> None:
        """Wake a reader waiting on this connection as if the peer had closed it; sending still works.

        What the peer sends from now on is left unread: the socket stops being read first, since
        asyncio's reader must not be fed after its end (that would fail the next send)."""
        transport = self.writer.transport
        if isinstance(transport, asyncio.ReadTransport) and transport.is_reading():
            transport.pause_reading()
        self.reader.feed_eof()

    async def close(self) -> None:
        """Close the connection, ignoring a peer that is already gone."""
        self.writer.close()
        with contextlib.suppress(ConnectionError, OSError, TimeoutError):
            async with asyncio.timeout(2):
                await self.writer.wait_closed()


def _nonce(counter: bytes) -> bytes:
    return bytes(12 - len(counter)) + counter
