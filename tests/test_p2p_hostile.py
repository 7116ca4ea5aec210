"""A host under hostile connections stays responsive and bounded: bursts, slow senders, silent
and half-open sockets, garbage; and the frame decoder, message schema and record reader fuzzed."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cli.commands import verify as verify_command
from engine import Rules
from p2p.channel import Channel
from p2p.connect import Listener, join, listening_socket
from p2p.errors import P2PError, PeerTimeout, RecordError, SlowFrame, WireError
from p2p.handshake import Terms
from p2p.identity import KnownPeers
from p2p.invite import Invite
from p2p.messages import Ping, Resume, parse
from p2p.record import verify
from p2p.wire import decode, encode, frame
from tests.test_p2p_helpers import Side, accept_all, bot_duel, run

RESUME = Resume(root=bytes(32), links=3, transcript=bytes(32), sig=bytes(64))


async def _open(port: int, data: bytes = b"") -> asyncio.StreamWriter:
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    if data:
        writer.write(data)
    return writer


class Tally:
    """Counts refusals without keeping them (an exception keeps its frames, and their buffers)."""

    def __init__(self) -> None:
        self.refused = 0

    def append(self, error: P2PError) -> None:
        self.refused += 1


def _listener(root: Path, refused: list[P2PError] | Tally, **limits: float) -> tuple[Side, Listener, int]:
    ann = Side.make(root, "ann")
    sock = listening_socket("127.0.0.1", 0)
    listener = Listener(
        sock,
        ann.me,
        "ann",
        Terms(Rules()),
        ann.known,
        lambda a, e: refused.append(e),
        **limits,  # type: ignore[arg-type]
    )
    return ann, listener, sock.getsockname()[1]


def test_a_burst_of_hostile_connections_stays_bounded_and_the_friend_gets_in(tmp_path: Path) -> None:
    refused: list[P2PError] = []
    bob = Side.make(tmp_path, "bob")

    async def scenario() -> tuple[float, int]:
        ann, listener, port = _listener(tmp_path, refused, max_pending=8, hello_timeout=5, deadline=5)
        async with listener:
            most = 0
            kinds = [b"", b"\x00\x00\x00\x40" + b"x", b"\xff\xff\xff\xff", b"\x00\x00\x00\x03\xc1\xc1\xc1"]
            writers = [await _open(port, kinds[i % len(kinds)]) for i in range(120)]
            for _ in range(20):
                await asyncio.sleep(0.01)
                most = max(most, len(listener._pending))
            start = time.monotonic()
            channel, session = await join(Invite("127.0.0.1", port, ann.me.fingerprint), bob.me, "bob",
                                          bob.known, accept_all)  # fmt: skip
            host_channel, host_session = await listener.first()
            took = time.monotonic() - start
            assert host_session.session_id == session.session_id
            for writer in writers:
                writer.transport.abort()
            await channel.close()
            await host_channel.close()
            return took, most

    took, most = run(scenario())
    assert most <= 8
    assert took < 2.0
    assert len(refused) >= 100  # every hostile connection was turned away, none crashed the host


def test_only_the_joiner_that_gets_the_match_is_remembered(tmp_path: Path) -> None:
    """Two joiners finish the handshake at once: the loser of the race is refused, and its
    self-chosen name is not bound to its key in the host's known peers."""
    refused: list[P2PError] = []
    cat, dan = Side.make(tmp_path, "cat"), Side.make(tmp_path, "dan")

    async def scenario() -> tuple[str, KnownPeers]:
        ann, listener, port = _listener(tmp_path, refused)
        invite = Invite("127.0.0.1", port, ann.me.fingerprint)
        async with listener:
            joins = [join(invite, side.me, side.name, side.known, accept_all) for side in (cat, dan)]
            results = await asyncio.gather(*joins)
            host_channel, session = await listener.first()
            for channel, _ in results:
                await channel.close()
            await host_channel.close()
            while not refused:
                await asyncio.sleep(0.01)
        return session.hello.name, ann.known

    winner, known = run(scenario())
    assert set(known.load()) == {winner}
    assert len(refused) == 1 and "another joiner completed the handshake first" in str(refused[0])


def test_a_slow_sender_is_cut_off_per_frame_not_per_byte(tmp_path: Path) -> None:
    refused: list[P2PError] = []

    async def scenario() -> float:
        _, listener, port = _listener(tmp_path, refused, deadline=0.4, hello_timeout=5)
        async with listener:
            writer = await _open(port, (60).to_bytes(4, "big"))
            start = time.monotonic()
            with contextlib.suppress(ConnectionError):
                for _ in range(60):  # one byte every 50 ms: always "making progress"
                    await asyncio.sleep(0.05)
                    writer.write(b"\x90")
                    await writer.drain()
                    if refused:
                        break
            writer.transport.abort()
            return time.monotonic() - start

    took = run(scenario())
    assert isinstance(refused[0], SlowFrame) and "within 0.4 s of its header" in str(refused[0])
    assert took < 1.5


def test_silent_and_half_open_sockets_are_dropped(tmp_path: Path) -> None:
    refused: list[P2PError] = []

    async def scenario() -> None:
        _, listener, port = _listener(tmp_path, refused, hello_timeout=0.3)
        async with listener:
            silent = await _open(port)  # connects, never speaks
            half = await _open(port, b"\x00\x00")  # half a header, then nothing (a vanished peer)
            await asyncio.sleep(0.6)
            assert not listener._pending
            silent.transport.abort()
            half.transport.abort()

    run(scenario())
    assert [type(error) for error in refused] == [PeerTimeout, PeerTimeout]


def test_memory_stays_bounded_under_repeated_garbage(tmp_path: Path) -> None:
    refused = Tally()

    async def burst(port: int, count: int) -> None:
        writers = [await _open(port, b"\x00\x00\x3f\xff" + bytes(4000)) for _ in range(count)]
        await asyncio.sleep(0.2)
        for writer in writers:
            writer.transport.abort()
        await asyncio.sleep(0.1)

    async def scenario() -> tuple[int, int]:
        _, listener, port = _listener(tmp_path, refused, max_pending=8, deadline=0.1, hello_timeout=1)
        async with listener:
            await burst(port, 40)
            tracemalloc.start()
            first = tracemalloc.get_traced_memory()[0]
            for _ in range(4):
                await burst(port, 40)
            grown = tracemalloc.get_traced_memory()[0] - first
            tracemalloc.stop()
            return grown, len(listener._pending)

    grown, pending = run(scenario())
    assert pending == 0 and refused.refused == 200
    assert grown < 1_000_000  # 160 more connections with 4 KB each: nothing kept


# ------------------------------------------------------------------- fuzzing


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
@example(b"\x83\xa1t\xa6resume\xa4root\xc4\x00\xa5links\xff")  # negative count
@example(encode(RESUME.to_wire() | {"links": 2**40}))  # a count past the cap
@example(encode({"t": "ping", "x": 1}))  # a keep-alive with a stray field
@example(b"\x81\xa1t\xa4ping")  # the smallest valid message
def test_fuzz_new_messages_never_crash(payload: bytes) -> None:
    with contextlib.suppress(WireError):
        message = parse(decode(payload))
        assert parse(message.to_wire()) == message


def test_resume_and_ping_round_trip() -> None:
    for message in (RESUME, Ping()):
        assert parse(decode(encode(message.to_wire()))) == message


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


@pytest.fixture(scope="module")
def record_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    host_report, _ = run(bot_duel(tmp_path_factory.mktemp("fuzzrec"), games=1, seed=21))
    return host_report.record.read_text()


@settings(max_examples=60, deadline=None)
@given(data=st.data())
@example(data=None)  # the record cut at every few bytes, below
def test_fuzz_verify_says_what_fails_and_never_crashes(record_text: str, data: st.DataObject | None) -> None:
    if data is None:
        for cut in range(0, len(record_text), 197):
            with contextlib.suppress(RecordError):
                assert not verify(record_text[:cut]).complete
        return
    lines = record_text.splitlines(keepends=True)
    index = data.draw(st.integers(0, len(lines) - 1))
    row = json.loads(lines[index])
    target = row.get("link", row)
    key = data.draw(st.sampled_from(sorted(target)))
    target[key] = data.draw(
        st.none()
        | st.integers()
        | st.sampled_from([0.0, 1.0, True])
        | st.text(max_size=8)
        | st.lists(st.integers(), max_size=2)
    )
    lines[index] = json.dumps(row) + "\n"
    with contextlib.suppress(RecordError):
        verify("".join(lines))


def _tampered(record_text: str, how: str) -> str:
    lines = record_text.splitlines()
    header, first = json.loads(lines[0]), json.loads(lines[1])
    if how == "by 0.0":
        first["by"] = float(first["by"])
        return "\n".join([lines[0], json.dumps(first), *lines[2:]]) + "\n"
    if how == "deep nesting":
        return lines[0] + "\n" + "[" * 100_000 + "]" * 100_000 + "\n"
    if how == "rematch dealer 1.0":
        header["rematch_of"] = {"root": "00" * 32, "transcript": "00" * 32, "finals": ["00" * 64] * 2, "dealer": 1.0}
        return json.dumps(header) + "\n"
    if how == "saved_by 0.0":
        header["saved_by"] = 0.0
        return "\n".join([json.dumps(header), *lines[1:]]) + "\n"
    assert how == "evidence by 1.0"
    note = {"end": "cheat", "detail": "x", "by": 1, "evidence": {**first["link"], "by": 1.0}}
    return "\n".join([*lines[:5], json.dumps(note)]) + "\n"


@pytest.mark.parametrize(
    ("how", "fails"),
    [
        ("by 0.0", "line 2: 'by' must be player 0 or 1"),
        ("deep nesting", "line 2: not JSON"),
        ("rematch dealer 1.0", "dealer 0 or 1"),
        ("saved_by 0.0", None),  # ignored: the host's seat is used
        ("evidence by 1.0", None),  # ignored: evidence of nobody proves nothing
    ],
)
def test_tampered_seats_and_nesting_fail_cleanly(record_text: str, how: str, fails: str | None) -> None:
    """0.0 and 1.0 are not seats, though they compare equal to 0 and 1; nesting past the stack is not JSON."""
    text = _tampered(record_text, how)
    if fails is not None:
        with pytest.raises(RecordError, match=re.escape(fails)):
            verify(text)
        return
    verified = verify(text)
    assert type(verified.session.seat) is int and verified.evidence_error is None


def test_verify_command_reports_an_unforeseen_failure_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(text: str) -> None:
        raise TypeError("an unforeseen damage")

    monkeypatch.setattr("p2p.record.verify", broken)
    record = tmp_path / "match.jsonl"
    record.write_text("{}\n")
    assert verify_command.run(argparse.Namespace(record=str(record))) == 2
    err = capsys.readouterr().err
    assert "FAILED" in err and "an unforeseen damage" in err and "Traceback" not in err
