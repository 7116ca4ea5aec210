"""Frames on the TCP stream: a 4-byte big-endian length, then that many bytes.

A frame's payload is one msgpack object, decoded strictly: no ext types, no
trailing bytes, bounded sizes everywhere, so that hostile bytes cost us
little and end in a :class:`~p2p.errors.WireError`, never a crash.

>>> decode(encode({"t": "chat", "text": "hi"}))
{'t': 'chat', 'text': 'hi'}
>>> decode(b"\\x92\\x01")
Traceback (most recent call last):
...
p2p.errors.MalformedFrame: the frame is not valid msgpack (Unpack failed: incomplete input)
"""

from __future__ import annotations

import asyncio
import struct

import msgpack  # type: ignore[import-untyped]

from p2p.errors import ConnectionClosed, FrameTooLarge, MalformedFrame, PeerTimeout, SlowFrame
from p2p.text import N_, Text

MAX_FRAME = 16 * 1024
"""The largest payload accepted; the largest real message is a few hundred bytes."""
FRAME_DEADLINE = 30.0
"""Seconds a frame may take to arrive once its header has: slow senders are cut off."""
_HEADER = struct.Struct(">I")
_MAX_ITEMS = 64
_MAX_STRING = 1024


def encode(obj: object) -> bytes:
    """The canonical msgpack bytes of ``obj`` (bytes as bin, text as str)."""
    packed: bytes = msgpack.packb(obj, use_bin_type=True)
    return packed


def _no_ext(code: int, data: bytes) -> object:
    raise MalformedFrame(Text(N_("msgpack ext type {code} is not allowed"), code=code))


def decode(payload: bytes) -> object:
    """The single msgpack object in ``payload``; :class:`MalformedFrame` otherwise."""
    if len(payload) > MAX_FRAME:
        raise MalformedFrame(
            Text(N_("the payload is {size} bytes, more than {cap}"), size=len(payload), cap=MAX_FRAME)
        )
    unpacker = msgpack.Unpacker(
        raw=False,
        strict_map_key=True,
        use_list=True,
        ext_hook=_no_ext,
        timestamp=0,
        max_buffer_size=MAX_FRAME,
        max_str_len=_MAX_STRING,
        max_bin_len=_MAX_STRING,
        max_array_len=_MAX_ITEMS,
        max_map_len=_MAX_ITEMS,
        max_ext_len=0,
    )
    unpacker.feed(payload)
    try:
        obj = unpacker.unpack()
    except MalformedFrame:
        raise
    except msgpack.OutOfData:
        raise MalformedFrame(
            Text(N_("the frame is not valid msgpack ({error})"), error="Unpack failed: incomplete input")
        ) from None
    except (ValueError, TypeError, msgpack.UnpackException, RecursionError) as exc:
        raise MalformedFrame(
            Text(N_("the frame is not valid msgpack ({error})"), error=str(exc) or type(exc).__name__)
        ) from None
    if unpacker.tell() != len(payload):
        raise MalformedFrame(
            Text(N_("{count} stray bytes after the message"), count=len(payload) - unpacker.tell())
        )
    return obj


def frame(payload: bytes) -> bytes:
    """``payload`` with its length header, ready to write."""
    if len(payload) > MAX_FRAME:
        raise FrameTooLarge(
            Text(N_("refusing to send a {size}-byte frame (cap {cap})"), size=len(payload), cap=MAX_FRAME)
        )
    return _HEADER.pack(len(payload)) + payload


class FrameBuffer:
    """The framing of the stream without its I/O: bytes in with :meth:`receive_data`, whole frames'
    payloads out with :meth:`next_frame` (as h11 parses HTTP), so that it is tested by feeding bytes.

    >>> frames = FrameBuffer()
    >>> frames.receive_data(frame(b"abc") + frame(b"de")[:3])
    >>> frames.next_frame(), frames.next_frame(), frames.missing
    (b'abc', None, 1)
    >>> frames.receive_data(b"\\x02de")
    >>> frames.next_frame()
    b'de'
    """

    def __init__(self) -> None:
        self._data = bytearray()

    def receive_data(self, data: bytes) -> None:
        """Take the next bytes of the stream, however it cut them."""
        self._data += data

    @property
    def announced(self) -> int | None:
        """The size the header of the frame under way announces; ``None`` until all of it is in."""
        if len(self._data) < _HEADER.size:
            return None
        (size,) = _HEADER.unpack_from(self._data)
        return int(size)

    @property
    def missing(self) -> int:
        """How many more bytes :meth:`next_frame` needs before it can answer (a frame or an error):
        a reader that reads no more than this never takes a byte of the next frame."""
        size = self.announced
        if size is None:
            return _HEADER.size - len(self._data)
        if size > MAX_FRAME or size == 0:
            return 0
        return max(0, _HEADER.size + size - len(self._data))

    def next_frame(self) -> bytes | None:
        """The next frame's payload, or ``None`` while more bytes are needed.

        Raises :class:`FrameTooLarge` for a header announcing more than :data:`MAX_FRAME` (before
        its body is in) and :class:`MalformedFrame` for an empty frame; the stream cannot be read
        past either (the bad header stays, and is refused again).
        """
        size = self.announced
        if size is None:
            return None
        if size > MAX_FRAME:
            raise FrameTooLarge(
                Text(N_("the peer announced a {size}-byte frame (cap {cap})"), size=size, cap=MAX_FRAME)
            )
        if size == 0:
            raise MalformedFrame(Text(N_("an empty frame")))
        end = _HEADER.size + size
        if len(self._data) < end:
            return None
        payload = bytes(self._data[_HEADER.size : end])
        del self._data[:end]
        return payload


async def fill(
    reader: asyncio.StreamReader,
    frames: FrameBuffer,
    timeout: float | None = None,
    deadline: float = FRAME_DEADLINE,
) -> None:
    """Read from ``reader`` into ``frames`` until :meth:`FrameBuffer.next_frame` can answer, and
    not a byte further; waits up to ``timeout`` seconds for the frame's header to be in.

    Raises :class:`ConnectionClosed` at end of stream, :class:`PeerTimeout` when the header does
    not come and :class:`SlowFrame` when the body does not come within ``deadline`` seconds of it
    (per frame, however the bytes trickle in). A timeout loses nothing: what was read stays in
    ``frames``, what was not stays in ``reader``.
    """
    try:
        async with asyncio.timeout(timeout):  # unlike wait_for, never swallows a cancellation
            while frames.announced is None:
                frames.receive_data(await reader.readexactly(frames.missing))
        try:
            async with asyncio.timeout(deadline):
                while frames.missing:
                    frames.receive_data(await reader.readexactly(frames.missing))
        except TimeoutError:
            raise SlowFrame(
                f"a {frames.announced}-byte frame did not arrive within {deadline:g} s of its header"
            ) from None
    except asyncio.IncompleteReadError:
        raise ConnectionClosed(Text(N_("the peer closed the connection"))) from None
    except TimeoutError:  # before OSError, of which it is a subclass
        raise PeerTimeout(Text(N_("the peer did not send anything in time"))) from None
    except (ConnectionError, OSError) as exc:
        raise ConnectionClosed(Text(N_("the connection dropped ({error})"), error=exc)) from None


async def read_frame(
    reader: asyncio.StreamReader, timeout: float | None = None, deadline: float = FRAME_DEADLINE
) -> bytes:
    """The next frame's payload; waits up to ``timeout`` seconds for it to start.

    Raises :class:`FrameTooLarge` for an oversized header (before reading the
    body), :class:`MalformedFrame` for an empty frame, and what :func:`fill` raises.
    """
    frames = FrameBuffer()
    await fill(reader, frames, timeout, deadline)
    payload = frames.next_frame()
    assert payload is not None, "fill returns once the frame is whole, or the header refused"
    return payload
