"""One TCP connection carrying messages: in clear for the handshake, sealed after it.

A sealed frame is an 8-byte big-endian counter followed by the ChaCha20-Poly1305
ciphertext of the message, under the sender's direction key, with the
counter as nonce and as associated data. The counter is sent in clear so
that a replayed, a reordered and a tampered frame each get their own error;
any change to it still fails authentication. :class:`Sealer` holds the keys and
counters and does no I/O; :class:`Channel` is the asyncio driver around it.

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
from p2p.wire import FRAME_DEADLINE, decode, encode, frame, read_frame

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


class Channel:
    """Messages over a stream pair; :meth:`seal` switches to authenticated encryption."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, deadline: float = FRAME_DEADLINE
    ) -> None:
        """``deadline``: seconds a frame's body may take once its header is in."""
        self.reader = reader
        self.deadline = deadline
        self.writer = writer
        self._sealer: Sealer | None = None

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
        return self._sealer is not None

    def seal(self, send_key: bytes, recv_key: bytes) -> None:
        """From now on every frame is encrypted and authenticated, counters from 0."""
        self._sealer = Sealer(send_key, recv_key)

    async def send(self, message: Message) -> None:
        """Write ``message`` (sealed once :meth:`seal` was called)."""
        payload = encode(message.to_wire())
        if self._sealer is not None:
            payload = self._sealer.seal(payload)
        try:
            self.writer.write(frame(payload))
            await self.writer.drain()
        except (ConnectionError, OSError) as exc:
            raise ConnectionClosed(Text(N_("the connection dropped ({error})"), error=exc)) from None

    async def recv(self, timeout: float | None = None) -> Message:
        """The next message, validated; an :class:`Abort` from the peer raises :class:`PeerAborted`."""
        try:
            payload = await read_frame(self.reader, timeout, self.deadline)
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
