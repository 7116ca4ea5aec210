"""Frames and message validation: hostile bytes end in a specific error, never a crash. The framing
is tested by feeding a :class:`~p2p.wire.FrameBuffer` bytes, cut anywhere; ``read_frame`` only moves
them from a stream; a sealed frame opens only in its own direction."""

from __future__ import annotations

import asyncio
import contextlib
import itertools

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from p2p.channel import Channel, Codec, Sealer
from p2p.errors import (
    ConnectionClosed,
    FrameTooLarge,
    MalformedFrame,
    P2PError,
    PeerTimeout,
    SchemaError,
    TamperedFrame,
    WireError,
)
from p2p.handshake import SessionKeys
from p2p.invite import new_secret
from p2p.messages import (
    Chat,
    Commit,
    Confirmed,
    Message,
    MoveMsg,
    Offer,
    Ping,
    parse,
)
from p2p.wire import MAX_FRAME, FrameBuffer, decode, encode, frame, read_frame

COMMIT = Commit(game=1, commitment=bytes(32), sig=bytes(64))
MOVE = MoveMsg(game=2, n=7, move="KS,6H", hash=bytes(32), sig=bytes(64))


async def _read_all(data: bytes, count: int) -> list[bytes]:
    reader = asyncio.StreamReader()
    reader.feed_data(data)
    reader.feed_eof()
    return [await read_frame(reader, timeout=1) for _ in range(count)]


@pytest.mark.parametrize("message", [COMMIT, MOVE, Chat(text="hi ♠")])
def test_messages_round_trip(message: Message) -> None:
    assert parse(decode(encode(message.to_wire()))) == message


@pytest.mark.parametrize(
    ("payload", "error"),
    [
        (b"\xc1", "not valid msgpack"),
        (b"\xd4\x01\x00", "ext"),
        (b"\x01\x02", "stray bytes"),
        (b"\x81\x91\x01\x02", "map key"),
        (b"\xdd\xff\xff\xff\xff", "max_array_len"),
        (b"\xdb\xff\xff\xff\xff", "incomplete input"),
        (b"\x91" * 5000, "msgpack"),
    ],
)
def test_hostile_payloads_are_refused(payload: bytes, error: str) -> None:
    with pytest.raises(MalformedFrame, match=error):
        decode(payload)


@pytest.mark.parametrize(
    ("obj", "error"),
    [
        ([1, 2], "must be a map"),
        ({"t": "nope"}, "unknown message type"),
        (COMMIT.to_wire() | {"x": 1}, "unexpected field"),
        (COMMIT.to_wire() | {"game": True}, "commit.game: must be a whole number"),
        (COMMIT.to_wire() | {"game": 100}, "commit.game"),
        (COMMIT.to_wire() | {"commitment": b"short"}, "commit.commitment: must be 32 bytes"),
        (MOVE.to_wire() | {"move": "XX"}, "move.move"),
        (MOVE.to_wire() | {"move": 5}, "move.move: must be text"),
        ({"t": "reveal", "game": 1, "pref": "SS", "secret": bytes(32), "sig": bytes(64)}, "reveal.pref"),
        ({"t": "chat", "text": "x" * 201}, "chat.text"),
        ({"t": "hello", "proto": 1, "program": "x", "name": " ", "eph": bytes(32)}, "hello.name"),
    ],
)
def test_schema_violations_name_the_field(obj: object, error: str) -> None:
    with pytest.raises(SchemaError, match=error):
        parse(obj)


def _frames_of(chunks: list[bytes]) -> list[bytes]:
    """Every whole frame a buffer fed ``chunks`` gives, taken after each chunk."""
    frames, out = FrameBuffer(), []
    for chunk in chunks:
        frames.receive_data(chunk)
        while (payload := frames.next_frame()) is not None:
            out.append(payload)
    return out


PAYLOADS = [b"a", b"abc", bytes(range(256)) * 3, b"\x00" * MAX_FRAME]


def test_frames_cut_at_every_offset_come_out_whole_and_in_order() -> None:
    data = b"".join(frame(payload) for payload in PAYLOADS[:3])
    for cut in range(len(data) + 1):
        assert _frames_of([data[:cut], data[cut:]]) == PAYLOADS[:3]


def test_many_frames_in_one_chunk_and_one_byte_at_a_time() -> None:
    data = b"".join(frame(payload) for payload in PAYLOADS)
    assert _frames_of([data]) == PAYLOADS
    assert _frames_of([data[i : i + 1] for i in range(len(data))]) == PAYLOADS


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=300), max_size=6), st.lists(st.integers(0, 2000), max_size=8))
def test_fuzz_any_cutting_of_the_stream_gives_the_same_frames(payloads: list[bytes], cuts: list[int]) -> None:
    data = b"".join(frame(payload) for payload in payloads)
    bounds = [0, *sorted(cut % (len(data) + 1) for cut in cuts), len(data)]
    assert _frames_of([data[start:end] for start, end in itertools.pairwise(bounds)]) == payloads


def test_missing_counts_to_the_next_answer_and_never_past_it() -> None:
    frames = FrameBuffer()
    assert (frames.missing, frames.announced) == (4, None)
    frames.receive_data(frame(b"abc")[:2])
    assert (frames.missing, frames.announced) == (2, None)
    frames.receive_data(frame(b"abc")[2:5])
    assert (frames.missing, frames.announced, frames.next_frame()) == (2, 3, None)
    frames.receive_data(b"bc")
    assert (frames.missing, frames.next_frame(), frames.missing) == (0, b"abc", 4)


@pytest.mark.parametrize("size", [MAX_FRAME + 1, 2**32 - 1])
def test_an_oversized_header_is_refused_before_its_body_and_again_after(size: int) -> None:
    frames = FrameBuffer()
    frames.receive_data(frame(b"ok") + size.to_bytes(4, "big"))
    assert frames.next_frame() == b"ok"
    assert frames.missing == 0  # nothing more is worth reading
    for _ in range(2):  # the stream cannot be read past a bad header
        with pytest.raises(FrameTooLarge, match=f"announced a {size}-byte frame"):
            frames.next_frame()


def test_an_empty_frame_is_malformed_and_a_cut_header_is_only_incomplete() -> None:
    frames = FrameBuffer()
    frames.receive_data(bytes(3))
    assert frames.next_frame() is None
    frames.receive_data(bytes(1))
    with pytest.raises(MalformedFrame, match="empty frame"):
        frames.next_frame()
    with pytest.raises(FrameTooLarge):
        frame(bytes(MAX_FRAME + 1))
    assert _frames_of([frame(bytes(MAX_FRAME))]) == [bytes(MAX_FRAME)]  # the cap itself is fine


def test_read_frame_reads_what_the_buffer_says_and_truncation_is_a_closed_connection() -> None:
    data = frame(b"abc") + frame(b"de")
    assert asyncio.run(_read_all(data, 2)) == [b"abc", b"de"]
    with pytest.raises(ConnectionClosed):
        asyncio.run(_read_all(data[:5], 1))
    with pytest.raises(MalformedFrame, match="empty frame"):
        asyncio.run(_read_all(bytes(4), 1))
    with pytest.raises(FrameTooLarge):
        asyncio.run(_read_all((MAX_FRAME + 1).to_bytes(4, "big") + bytes(100), 1))


def test_a_timed_out_read_loses_no_byte_of_the_next_frame() -> None:
    """The duel reads with a timeout again and again: a header half in when one runs out is read
    whole by the next read."""

    async def scenario() -> bytes:
        reader = asyncio.StreamReader()
        reader.feed_data(frame(b"abc")[:2])
        with pytest.raises(PeerTimeout):
            await read_frame(reader, timeout=0)
        reader.feed_data(frame(b"abc")[2:])
        return await read_frame(reader, timeout=1)

    assert asyncio.run(scenario()) == b"abc"


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_decoder_and_schema_never_crash(payload: bytes) -> None:
    with contextlib.suppress(WireError):
        parse(decode(payload))


_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.binary(max_size=40)
    | st.text(max_size=40),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from([COMMIT, MOVE, Chat(text="x")]), st.text(max_size=12), _values)
def test_fuzz_mutated_messages_never_crash(base: Message, key: str, value: object) -> None:
    wire = base.to_wire() | {key: value}
    try:
        message = parse(decode(encode(wire)))
    except WireError:
        return
    assert parse(message.to_wire()) == message


def test_offer_fields_are_all_checked() -> None:
    offer = Offer(
        proto=1, program="0.1.0", name="ann", eph=bytes(32), key=bytes(32), pickup="forced",
        sixes=True, max_moves=1000, games=3, host_seat=0, sig=bytes(64),
    )  # fmt: skip
    assert parse(offer.to_wire()) == offer
    with pytest.raises(SchemaError, match=r"offer\.pickup"):
        parse(offer.to_wire() | {"pickup": "sometimes"})


def _sealed_messages(payloads: list[bytes]) -> None:
    codec = Codec()
    codec.seal(bytes(32), bytes(range(32)))
    codec.receive_data(b"".join(frame(payload) for payload in payloads))
    while codec.next_message() is not None:
        pass


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=80), min_size=1, max_size=3))
def test_fuzz_sealed_frames_are_refused_not_crashed_on(payloads: list[bytes]) -> None:
    with pytest.raises(WireError):
        _sealed_messages(payloads)


@pytest.mark.net
def test_frames_arriving_after_stop_reading_never_break_sending() -> None:
    """A person claims a forfeit (``stop_reading``) while the peer's keep-alives still arrive: what
    arrives then is left unread, and our ``abort`` still goes out (asyncio's reader would otherwise
    fail with "feed_data after feed_eof" inside the next ``drain``)."""
    from p2p.channel import Channel
    from p2p.messages import Ping

    async def scenario() -> bytes:
        peer_side: asyncio.Future[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = (
            asyncio.get_running_loop().create_future()
        )
        server = await asyncio.start_server(
            lambda r, w: peer_side.set_result((r, w)), "127.0.0.1", 0
        )
        port = server.sockets[0].getsockname()[1]
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        peer_reader, peer_writer = await peer_side
        channel = Channel(reader, writer)
        channel.stop_reading()
        peer_writer.write(frame(encode(Ping().to_wire())) * 50)  # keep-alives still on their way
        await peer_writer.drain()
        await asyncio.sleep(0.05)
        await channel.send(Chat(text="claimed"))
        received = await asyncio.wait_for(peer_reader.read(4096), 2)
        await channel.close()
        peer_writer.close()
        server.close()
        return received

    assert asyncio.run(scenario())


def test_a_sealed_frame_reflected_to_its_sender_does_not_open() -> None:
    """Reflection sealed: the host's ``confirmed`` (sealed under ``k_HJ``, counter 0) sent back to
    the host where the joiner's ``confirm`` is due (counter 0 too). Check: one key per direction —
    ``SessionKeys.derive`` gives ``k_HJ`` and ``k_JH`` from different parts of the HKDF output."""
    keys = SessionKeys.derive(bytes(range(32)), new_secret(), bytes(32))
    host = Sealer(keys.host_to_joiner, keys.joiner_to_host)
    own = host.seal(encode(Confirmed(mac=bytes(32)).to_wire()))
    with pytest.raises(TamperedFrame):
        host.open(own)


async def _stream(chunks: list[bytes]) -> int:
    reader = asyncio.StreamReader()
    for chunk in chunks:
        reader.feed_data(chunk)
    reader.feed_eof()
    channel = Channel(reader, None, deadline=0.05)  # type: ignore[arg-type]  # never written to
    count = 0
    with contextlib.suppress(P2PError):
        while True:
            await channel.recv(0.05)
            count += 1
    return count


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(max_size=40) | st.sampled_from([frame(encode(Ping().to_wire())), b"\xff" * 4]),
                max_size=8))  # fmt: skip
@example([frame(encode(Ping().to_wire()))[:3], frame(encode(Ping().to_wire()))[3:]])  # a header split in two
@example([bytes(4)])  # an empty frame
def test_fuzz_a_stream_of_chunks_ends_in_a_p2p_error_only(chunks: list[bytes]) -> None:
    asyncio.run(_stream(chunks))
