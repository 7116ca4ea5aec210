"""Frames and message validation: hostile bytes end in a specific error, never a crash."""

from __future__ import annotations

import asyncio
import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2p.errors import ConnectionClosed, FrameTooLarge, MalformedFrame, SchemaError, WireError
from p2p.messages import Chat, Commit, Message, MoveMsg, Offer, parse
from p2p.wire import MAX_FRAME, decode, encode, frame, read_frame

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


def test_oversized_frame_header_is_refused_before_reading() -> None:
    with pytest.raises(FrameTooLarge):
        asyncio.run(_read_all((MAX_FRAME + 1).to_bytes(4, "big") + bytes(100), 1))
    with pytest.raises(FrameTooLarge):
        frame(bytes(MAX_FRAME + 1))


def test_frames_read_back_and_truncation_is_a_closed_connection() -> None:
    data = frame(b"abc") + frame(b"de")
    assert asyncio.run(_read_all(data, 2)) == [b"abc", b"de"]
    with pytest.raises(ConnectionClosed):
        asyncio.run(_read_all(data[:5], 1))
    with pytest.raises(MalformedFrame, match="empty frame"):
        asyncio.run(_read_all(bytes(4), 1))


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


async def _sealed_recv(frames: list[bytes]) -> None:
    from p2p.channel import Channel

    reader = asyncio.StreamReader()
    for payload in frames:
        reader.feed_data(frame(payload))
    reader.feed_eof()
    channel = Channel(reader, None)  # type: ignore[arg-type]  # never written to
    channel.seal(bytes(32), bytes(range(32)))
    for _ in frames:
        await channel.recv(1)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=80), min_size=1, max_size=3))
def test_fuzz_sealed_frames_are_refused_not_crashed_on(payloads: list[bytes]) -> None:
    with pytest.raises(WireError):
        asyncio.run(_sealed_recv(payloads))


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
