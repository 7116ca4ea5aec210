"""A host under hostile connections stays responsive and bounded: bursts, slow senders, silent
and half-open sockets, garbage; and the frame decoder, message schema and record reader fuzzed."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import socket
import time
import tracemalloc
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cli.commands import verify as verify_command
from engine import Rules
from p2p.admission import FIRST_FLIGHT_TIMEOUT, MAX_ARRIVING, Admission
from p2p.channel import Channel
from p2p.connect import Listener, join, join_on, listening_socket
from p2p.crypto import sign
from p2p.errors import (
    LINE_ERRORS,
    ConnectionClosed,
    IncompatiblePeer,
    InviteRefused,
    MatchRecordError,
    P2PError,
    PeerAborted,
    PeerBusy,
    PeerTimeout,
    RulesDeclined,
    SlowFrame,
    WireError,
)
from p2p.handshake import Terms, session_id
from p2p.identity import Identity, KnownPeers
from p2p.invite import Invite, new_secret
from p2p.messages import Abort, Accept, Hello, Message, Offer, Ping, Resume, parse
from p2p.record import verify
from p2p.wire import FRAME_DEADLINE, decode, encode, frame
from tests.support.peers import Side, accept_all, bot_duel, run

RESUME = Resume(root=bytes(32), links=3, transcript=bytes(32), sig=bytes(64))


async def _open(port: int, data: bytes = b"") -> asyncio.StreamWriter:
    _, writer = await asyncio.open_connection("127.0.0.1", port)
    if data:
        writer.write(data)
    return writer


async def _open_from(source: str, port: int, data: bytes = b"") -> asyncio.StreamWriter:
    """A connection from another loopback address (127.0.0.0/8 is all this machine's)."""
    _, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    if data:
        writer.write(data)
    return writer


def _listener(
    root: Path,
    max_pending: int = 16,
    per_source: int = 4,
    arriving: int = MAX_ARRIVING,
    deadline: float = FRAME_DEADLINE,
    first_flight_timeout: float = FIRST_FLIGHT_TIMEOUT,
) -> tuple[Side, Listener, int]:
    ann = Side.make(root, "ann")
    sock = listening_socket("127.0.0.1", 0)
    admission = Admission(max_pending=max_pending, max_per_source=per_source, max_arriving=arriving)
    listener = Listener(
        sock,
        ann.me,
        "ann",
        Terms(Rules()),
        ann.known,
        admission=admission,
        deadline=deadline,
        first_flight_timeout=first_flight_timeout,
    )
    return ann, listener, sock.getsockname()[1]


def _errors(listener: Listener) -> list[P2PError]:
    return [error for _, error in listener.refusals]


@pytest.mark.net
def test_a_burst_of_hostile_connections_stays_bounded_and_the_friend_gets_in(tmp_path: Path) -> None:
    bob = Side.make(tmp_path, "bob")

    async def scenario() -> tuple[float, int, int]:
        _, listener, port = _listener(tmp_path, max_pending=8, arriving=32, first_flight_timeout=5, deadline=5)
        async with listener:
            most = 0
            kinds = [b"", b"\x00\x00\x00\x40" + b"x", b"\xff\xff\xff\xff", b"\x00\x00\x00\x03\xc1\xc1\xc1"]
            sources = [f"127.0.0.{2 + i % 30}" for i in range(120)]
            writers = [await _open_from(sources[i], port, kinds[i % len(kinds)]) for i in range(120)]
            for _ in range(20):
                await asyncio.sleep(0.01)
                most = max(most, listener.pending)
            start = time.monotonic()
            channel, session = await join(listener.invite([("127.0.0.1", port)]), bob.me, "bob", bob.known,
                                          accept_all)  # fmt: skip
            host_channel, host_session = await listener.first()
            took = time.monotonic() - start
            assert host_session.session_id == session.session_id
            for writer in writers:
                writer.transport.abort()
            await channel.close()
            await host_channel.close()
            return took, most, listener.refused_count

    took, most, refused = run(scenario())
    assert most <= 32  # first-flight slots: none of these ever got further
    assert took < 2.0
    assert refused >= 100  # every hostile connection was turned away, none crashed the host


@pytest.mark.net
def test_only_the_joiner_that_gets_the_match_is_remembered(tmp_path: Path) -> None:
    """Two joiners finish the handshake at once: the loser of the race is refused, and its
    self-chosen name is not bound to its key in the host's known peers."""
    cat, dan = Side.make(tmp_path, "cat"), Side.make(tmp_path, "dan")

    async def scenario() -> tuple[str, KnownPeers, list[P2PError], list[object]]:
        ann, listener, port = _listener(tmp_path)
        invite = listener.invite([("127.0.0.1", port)])
        async with listener:
            joins = [join(invite, side.me, side.name, side.known, accept_all) for side in (cat, dan)]
            results = await asyncio.gather(*joins, return_exceptions=True)
            host_channel, session = await listener.first()
            for result in results:
                if isinstance(result, tuple):
                    await result[0].close()
            await host_channel.close()
            while not listener.refusals:
                await asyncio.sleep(0.01)
        return session.hello.name, ann.known, _errors(listener), list(results)

    winner, known, refused, results = run(scenario())
    assert set(known.load()) == {winner}
    assert len(refused) == 1 and isinstance(refused[0], PeerBusy)
    (loser,) = [result for result in results if not isinstance(result, tuple)]
    assert isinstance(loser, PeerBusy) and "playing another match" in str(loser)  # the one answer: busy


@pytest.mark.net
def test_a_slow_sender_is_cut_off_per_frame_not_per_byte(tmp_path: Path) -> None:
    refused: list[P2PError] = []

    async def scenario() -> float:
        _, listener, port = _listener(tmp_path, deadline=0.4, first_flight_timeout=5)
        refused_now = listener.refusals
        async with listener:
            writer = await _open(port, (60).to_bytes(4, "big"))
            start = time.monotonic()
            with contextlib.suppress(ConnectionError):
                for _ in range(60):  # one byte every 50 ms: always "making progress"
                    await asyncio.sleep(0.05)
                    writer.write(b"\x90")
                    await writer.drain()
                    if refused_now:
                        break
            writer.transport.abort()
            refused.extend(error for _, error in refused_now)
            return time.monotonic() - start

    took = run(scenario())
    assert isinstance(refused[0], SlowFrame) and "within 0.4 s of its header" in str(refused[0])
    assert took < 1.5


@pytest.mark.net
def test_closing_the_listener_under_a_flood_leaves_no_handshake_behind(tmp_path: Path) -> None:
    """A flood still arriving when the host stops (the match over, Ctrl-C): every connection
    accepted so far, its handshake task started or not, ends with the listener, quietly. A task
    left pending is cancelled at the program's end at best, or destroyed pending with a message
    on the terminal; the event loop reports nothing either."""
    reported: list[dict[str, object]] = []

    async def scenario() -> list[asyncio.Task[object]]:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: reported.append(context))
        _, listener, port = _listener(tmp_path)
        socks = []
        async with listener:
            for n in range(60):
                sock = socket.socket()
                sock.setblocking(False)
                sock.connect_ex(("127.0.0.1", port))  # the kernel completes it: accepted at the next turns
                socks.append(sock)
                if n % 20 == 19:
                    await asyncio.sleep(0)
        await asyncio.sleep(0.05)  # what was queued meanwhile runs now
        left = [task for task in asyncio.all_tasks() if "Listener" in getattr(task.get_coro(), "__qualname__", "")]
        for sock in socks:
            sock.close()
        return left

    assert run(scenario()) == []
    assert reported == []


@pytest.mark.net
def test_silent_and_half_open_sockets_are_dropped(tmp_path: Path) -> None:
    refused: list[P2PError] = []

    async def scenario() -> None:
        _, listener, port = _listener(tmp_path, first_flight_timeout=0.3)
        async with listener:
            silent = await _open(port)  # connects, never speaks
            half = await _open(port, b"\x00\x00")  # half a header, then nothing (a vanished peer)
            hello = Hello(proto=3, program="x", name="eve", eph=bytes(range(32)))
            knockless = await _open(port, frame(encode(hello.to_wire())))  # the first flight's half
            await asyncio.sleep(0.6)
            assert not listener.pending
            for writer in (silent, half, knockless):
                writer.transport.abort()
            refused.extend(_errors(listener))

    run(scenario())
    assert [type(error) for error in refused] == [PeerTimeout] * 3


@pytest.mark.net
def test_memory_stays_bounded_under_repeated_garbage(tmp_path: Path) -> None:
    async def burst(port: int, count: int) -> None:
        sources = [f"127.0.1.{1 + i % 20}" for i in range(count)]
        writers = [await _open_from(source, port, b"\x00\x00\x3f\xff" + bytes(4000)) for source in sources]
        await asyncio.sleep(0.2)
        for writer in writers:
            writer.transport.abort()
        await asyncio.sleep(0.1)

    async def scenario() -> tuple[int, int, int]:
        _, listener, port = _listener(tmp_path, max_pending=8, deadline=0.1, first_flight_timeout=1)
        async with listener:
            await burst(port, 40)
            tracemalloc.start()
            first = tracemalloc.get_traced_memory()[0]
            for _ in range(4):
                await burst(port, 40)
            grown = tracemalloc.get_traced_memory()[0] - first
            tracemalloc.stop()
            return grown, listener.pending, listener.refused_count

    grown, pending, refused = run(scenario())
    assert pending == 0 and refused == 200
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
        # About 40 cuts whatever the game's length (the deal, hence the length, differs each run):
        # every cut replays the record from its start, so a fixed step made a long game quadratic.
        for cut in range(0, len(record_text), max(197, len(record_text) // 40)):
            with contextlib.suppress(MatchRecordError):
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
    with contextlib.suppress(MatchRecordError):
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
        ("saved_by 0.0", "line 1: 'saved_by' must be player 0 or 1"),
        ("evidence by 1.0", None),  # ignored: evidence of nobody proves nothing
    ],
)
def test_tampered_seats_and_nesting_fail_cleanly(record_text: str, how: str, fails: str | None) -> None:
    """0.0 and 1.0 are not seats, though they compare equal to 0 and 1; nesting past the stack is not JSON."""
    text = _tampered(record_text, how)
    if fails is not None:
        with pytest.raises(MatchRecordError, match=re.escape(fails)):
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
    assert verify_command.run(argparse.Namespace(record=str(record), other=None)) == 2
    err = capsys.readouterr().err
    assert "FAILED" in err and "an unforeseen damage" in err and "Traceback" not in err


# ------------------------------------------------- attacks on the handshake, over loopback


async def _mallory_proxy(port: int, mallory: Identity) -> asyncio.Server:
    """On the path between bob and ann: lets everything through but bob's accept, which it
    replaces with an accept of Mallory's key, validly signed over the session id it makes."""
    seen: dict[str, Message] = {}

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                header = await reader.readexactly(4)
                body = await reader.readexactly(int.from_bytes(header, "big"))
                with contextlib.suppress(WireError):
                    message = parse(decode(body))
                    seen[message.TAG] = message
                    if isinstance(message, Accept):
                        hello, offer = seen["hello"], seen["offer"]
                        assert isinstance(hello, Hello) and isinstance(offer, Offer)
                        unsigned = Accept(key=mallory.public, sig=bytes(64))
                        digest = session_id(hello, offer, unsigned)
                        body = encode(unsigned.with_sig(sign(mallory.key, "accept-sig", digest)).to_wire())
                writer.write(frame(body))
                await writer.drain()
        writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
        await asyncio.gather(relay(reader, up_writer), relay(up_reader, writer))

    return await asyncio.start_server(handle, "127.0.0.1", 0)


@pytest.mark.net
def test_mallory_on_the_path_cannot_take_the_joiners_seat(tmp_path: Path) -> None:
    """Flaw 1 against the real listener: the replaced accept fails key confirmation, nothing is
    bound to Mallory's key, and the real bob then gets the match (not "busy")."""
    bob = Side.make(tmp_path, "bob")
    mallory = Identity.from_key(Ed25519PrivateKey.generate())

    async def scenario() -> tuple[Side, list[P2PError], str, P2PError | None]:
        ann, listener, port = _listener(tmp_path)
        async with listener:
            proxy = await _mallory_proxy(port, mallory)
            on_path = listener.invite([("127.0.0.1", proxy.sockets[0].getsockname()[1])])
            failed: P2PError | None = None
            try:
                await join(on_path, bob.me, "bob", bob.known, accept_all)
            except P2PError as exc:
                failed = exc
            proxy.close()
            while not listener.refusals:
                await asyncio.sleep(0.01)
            channel, _ = await join(
                listener.invite([("127.0.0.1", port)]), bob.me, "bob", bob.known, accept_all
            )
            host_channel, session = await listener.first()
            await channel.close()
            await host_channel.close()
            return ann, _errors(listener), session.accept.key.hex(), failed

    ann, refused, key, failed = run(scenario())
    assert failed is not None  # bob's first try fails like a dropped line
    assert any("key confirmation failed" in str(error) for error in refused), refused
    assert key == bob.me.public.hex()
    assert ann.known.load()["bob"]["key"] == bob.me.public.hex()


@pytest.mark.net
def test_a_stranger_without_the_secret_gets_nothing_not_even_busy(tmp_path: Path) -> None:
    """Flaws 2 and 7: an old or guessed invite gets one answer naming nobody, before and during a match."""
    bob, eve = Side.make(tmp_path, "bob"), Side.make(tmp_path, "eve")

    async def scenario() -> tuple[list[str], KnownPeers]:
        ann, listener, port = _listener(tmp_path)
        async with listener:
            guessed = Invite((("127.0.0.1", port),), ann.me.fingerprint, new_secret())
            answers = []
            for name in ("bob", "eve"):
                with pytest.raises(InviteRefused) as refused:
                    await join(guessed, eve.me, name, eve.known, accept_all)
                answers.append(str(refused.value))
            channel, _ = await join(
                listener.invite([("127.0.0.1", port)]), bob.me, "bob", bob.known, accept_all
            )
            await listener.first()
            for name in ("bob", "eve"):  # while the match is on: the same answer
                with pytest.raises(InviteRefused) as refused:
                    await join(guessed, eve.me, name, eve.known, accept_all)
                answers.append(str(refused.value))
            await channel.close()
            return answers, ann.known

    answers, known = run(scenario())
    assert len(set(answers)) == 1 and "ann" not in answers[0] and "bob" not in answers[0]
    assert set(known.load()) == {"bob"}


@pytest.mark.net
def test_a_look_alike_name_meets_the_known_key(tmp_path: Path) -> None:
    """Flaw 2: after a match with bob, a stranger holding the invite as "b\\u043eb" (Cyrillic o)
    is refused as bob's changed identity, and nothing is bound to its key."""
    bob, eve = Side.make(tmp_path, "bob"), Side.make(tmp_path, "eve")

    async def scenario() -> PeerAborted:
        ann, listener, port = _listener(tmp_path)
        ann.known.check("bob", bob.me.public)
        async with listener:
            with pytest.raises(PeerAborted) as refused:
                await join(listener.invite([("127.0.0.1", port)]), eve.me, "b\u043eb", eve.known, accept_all)
            return refused.value

    refused = run(scenario())
    assert refused.reason == "identity" and "looks like bob" in str(refused)


@pytest.mark.net
def test_the_joiner_dials_every_address_and_keeps_the_one_that_answers(tmp_path: Path) -> None:
    """The invite's list: the first address is dead (nothing listens there), the second is the host."""
    bob = Side.make(tmp_path, "bob")
    dead = listening_socket("127.0.0.1", 0)
    dead_port = dead.getsockname()[1]
    dead.close()

    async def scenario() -> tuple[str, str]:
        _, listener, port = _listener(tmp_path)
        async with listener:
            invite = listener.invite([("127.0.0.1", dead_port), ("127.0.0.1", port)])
            channel, session = await join(invite, bob.me, "bob", bob.known, accept_all)
            host_channel, host_session = await listener.first()
            await channel.close()
            await host_channel.close()
            return session.code, host_session.code

    mine, theirs = run(scenario())
    assert mine == theirs


@pytest.mark.net
def test_when_every_address_fails_one_line_names_each(tmp_path: Path) -> None:
    bob = Side.make(tmp_path, "bob")
    ports = []
    for _ in range(2):
        dead = listening_socket("127.0.0.1", 0)
        ports.append(dead.getsockname()[1])
        dead.close()
    invite = Invite(tuple(("127.0.0.1", port) for port in ports), bob.me.fingerprint, new_secret())
    with pytest.raises(ConnectionClosed, match="no address of the invite answered") as failed:
        run(join(invite, bob.me, "bob", bob.known, accept_all, stagger=0.05))
    assert all(f"127.0.0.1:{port}" in str(failed.value) for port in ports) and "\n" not in str(failed.value)


@pytest.mark.net
def test_silent_connections_never_evict_a_joiner_reading_the_rules(tmp_path: Path) -> None:
    """Flaw 4: while bob reads the rules, 40 silent connections from 10 other addresses arrive; his
    handshake proved the invite secret, so it is never the one dropped to make room."""
    bob = Side.make(tmp_path, "bob")

    async def scenario() -> int:
        _, listener, port = _listener(tmp_path)
        async with listener:
            writers: list[asyncio.StreamWriter] = []

            async def slow_reader(terms: Terms, host_name: str) -> bool:
                for i in range(40):
                    writers.append(await _open_from(f"127.0.3.{1 + i % 10}", port))
                await asyncio.sleep(0.3)
                return True

            channel, _ = await join(
                listener.invite([("127.0.0.1", port)]), bob.me, "bob", bob.known, slow_reader
            )
            host_channel, session = await listener.first()
            assert session.hello.name == "bob"
            for writer in writers:
                writer.transport.abort()
            await channel.close()
            await host_channel.close()
            return listener.refused_count

    refused = run(scenario())
    assert refused >= 24  # beyond 16 pending, and 4 per address: the strangers made room for each other


@pytest.mark.net
def test_a_silent_first_address_does_not_hold_up_the_second(tmp_path: Path) -> None:
    """The first address accepts and says nothing (a wrong machine, a black hole): the second is
    dialled 50 ms later without waiting for the first to time out, and wins."""
    bob = Side.make(tmp_path, "bob")

    async def scenario() -> float:
        silent = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        _, listener, port = _listener(tmp_path)
        async with listener:
            invite = listener.invite([("127.0.0.1", silent.sockets[0].getsockname()[1]), ("127.0.0.1", port)])
            start = time.monotonic()
            channel, _ = await join(invite, bob.me, "bob", bob.known, accept_all, stagger=0.05)
            took = time.monotonic() - start
            host_channel, _ = await listener.first()
            await channel.close()
            await host_channel.close()
        silent.close()
        return took

    assert run(scenario()) < 5.0  # far below the 30 s the silent address would take to time out


def test_progress_lines_never_block_on_a_pipe_nobody_reads() -> None:
    """Flaw 8: a headless host's stderr may be a pipe nobody reads. Its lines go through a bounded
    queue written by a thread: once the pipe is full they are dropped, and the caller (the event
    loop) never waits. 5000 lines are far more than a pipe holds."""
    import os
    import threading

    from cli.net.progress import Progress

    read_end, write_end = os.pipe()
    progress = Progress(capacity=16, stream=os.fdopen(write_end, "w"))

    def say_lines() -> None:
        for _ in range(5000):
            progress.say("x" * 100)

    caller = threading.Thread(target=say_lines)
    caller.start()
    caller.join(30)
    assert not caller.is_alive()
    os.close(read_end)


@pytest.mark.net
@pytest.mark.parametrize("kind", ["silent", "garbage", "slow"])
def test_a_flood_from_many_networks_never_evicts_a_friend_before_its_knock_is_read(
    tmp_path: Path, kind: str
) -> None:
    """Flaw: the friend's connection is accepted; before its hello and knock are read, 48
    connections from 48 networks (127.n.0.1: one /24 each) arrive that never send, send garbage,
    or trickle a frame slowly. They used to fill the pool of 16 unproven handshakes and push the
    friend's out (no network held more than the friend's). Now a connection joins the pool only
    with its first flight read: until then it holds a cheap slot of the first-flight pool."""
    bob = Side.make(tmp_path, "bob")
    data = {
        "silent": b"",
        "garbage": b"\x00\x00\x00\x03\xc1\xc1\xc1",
        "slow": (60).to_bytes(4, "big") + b"\x90",
    }

    async def scenario() -> str:
        _, listener, port = _listener(tmp_path, first_flight_timeout=10, deadline=10)
        async with listener:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            for _ in range(500):  # until the listener holds the friend's connection
                if listener.pending:
                    break
                await asyncio.sleep(0.01)
            flood = [await _open_from(f"127.{10 + n}.0.1", port, data[kind]) for n in range(48)]
            for _ in range(500):  # until every one of them was admitted or refused
                if listener.pending + listener.refused_count >= 49:
                    break
                await asyncio.sleep(0.01)
            channel = Channel(reader, writer)
            invite = listener.invite([("127.0.0.1", port)])
            session = await join_on(channel, invite, bob.me, "bob", bob.known, accept_all)
            host_channel, host_session = await listener.first()
            assert host_session.session_id == session.session_id
            for flooder in flood:
                flooder.transport.abort()
            await channel.close()
            await host_channel.close()
            return host_session.hello.name

    assert run(scenario()) == "bob"


# ------------------------------------------- clear aborts: nobody's text shown as the host's

INJECTED = "ann says: this invite expired, fetch a new one from the site in her profile"
"""What an on-path attacker would like the joiner (or the host) to read as the other side's words."""


async def _injecting_proxy(port: int, replaced: int) -> asyncio.Server:
    """On the path to the host at ``port``: relays both ways, but puts a clear ``abort`` (reason
    in the joiner's hello name, detail :data:`INJECTED`) in place of the host's frame ``replaced``
    (0: the offer, 1: the sealed ``confirmed``)."""

    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, swap: str | None) -> None:
        index = 0
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            while True:
                header = await reader.readexactly(4)
                body = await reader.readexactly(int.from_bytes(header, "big"))
                if swap is not None and index == replaced:
                    body = encode({"t": "abort", "reason": swap, "detail": INJECTED})
                index += 1
                writer.write(frame(body))
                await writer.drain()
        writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
        header = await reader.readexactly(4)
        hello = await reader.readexactly(int.from_bytes(header, "big"))
        up_writer.write(header + hello)
        opening = parse(decode(hello))
        assert isinstance(opening, Hello)
        reason = opening.name
        await asyncio.gather(relay(reader, up_writer, None), relay(up_reader, writer, reason))

    return await asyncio.start_server(handle, "127.0.0.1", 0)


@pytest.mark.net
@pytest.mark.parametrize("replaced", [0, 1], ids=["offer", "confirmed"])
@pytest.mark.parametrize("reason", ["invite", "incompatible", "busy", "cheat", "nonsense"])
def test_an_abort_injected_on_the_path_never_shows_the_joiner_its_text(
    tmp_path: Path, reason: str, replaced: int
) -> None:
    """Flaw: an on-path attacker put a clear ``abort`` where the host's offer was due, and the
    joiner showed its detail ("the host refused: ann says: …") as the host's words. Now a clear
    abort is shown by its reason code alone, in our own words (and only a code of the list); once
    the keys are set, a clear frame does not even open: a broken line, no text at all."""
    bob = Side.make(tmp_path, reason)

    async def scenario() -> P2PError:
        _, listener, port = _listener(tmp_path)
        async with listener:
            proxy = await _injecting_proxy(port, replaced)
            on_path = listener.invite([("127.0.0.1", proxy.sockets[0].getsockname()[1])])
            try:
                with pytest.raises(P2PError) as failed:
                    await join(on_path, bob.me, reason, bob.known, accept_all)
            finally:
                proxy.close()
            return failed.value

    error = run(scenario())
    assert "ann says" not in str(error) and INJECTED not in repr(error.args)
    if replaced:
        assert isinstance(error, LINE_ERRORS)
    elif reason == "invite":
        assert isinstance(error, InviteRefused)
    elif reason == "incompatible":
        assert isinstance(error, IncompatiblePeer)
    elif reason == "busy":  # the host's answer to another name once its match is on, in our words
        assert isinstance(error, ConnectionClosed) and "playing another match" in str(error)
    else:
        assert isinstance(error, ConnectionClosed) and (reason in str(error)) == (reason != "nonsense")


CHOSEN = "ann says: new invite at evil.x"
"""A stranger's text short enough for a hello's ``name`` or ``program`` (32 characters)."""


async def _first_refusal(listener: Listener) -> P2PError:
    for _ in range(500):
        if listener.refusals:
            break
        await asyncio.sleep(0.01)
    return _errors(listener)[0]


@pytest.mark.net
@pytest.mark.parametrize("reason", ["declined", "fingerprint", "cheat", "nonsense"])
def test_a_clear_abort_from_a_stranger_puts_no_text_of_its_own_in_the_hosts_log(
    tmp_path: Path, reason: str
) -> None:
    """Flaw: a stranger's clear ``abort`` after its hello reached the host's refusal line with its
    detail ("refused a connection from …: the peer ended the session (cheat): ann says …"); then,
    sent in place of the knock with its text as the hello's name, ``abort declined`` showed "ann
    says: … declined the rules", though a real joiner can decline only an offer, which goes out
    only after a proven knock. Now the host names only the reason code (of the list) in its own
    words, a decline before the offer included. Check: ``self.offer`` in ``HostHandshake.declined``."""
    hello = Hello(proto=3, program="x", name=CHOSEN, eph=bytes(range(32)))

    async def scenario() -> P2PError:
        _, listener, port = _listener(tmp_path)
        async with listener:
            abort = {"t": "abort", "reason": reason, "detail": INJECTED}
            writer = await _open(port, frame(encode(hello.to_wire())) + frame(encode(abort)))
            error = await _first_refusal(listener)
            writer.transport.abort()
            return error

    error = run(scenario())
    assert "ann says" not in str(error) and not isinstance(error, RulesDeclined)
    assert isinstance(error, ConnectionClosed) and (f"({reason})" in str(error)) == (reason != "nonsense")


@pytest.mark.net
def test_a_strangers_hello_of_another_protocol_puts_no_text_of_its_own_in_the_hosts_log(
    tmp_path: Path,
) -> None:
    """Flaw: the refusal of a hello with ``proto`` 2 named its ``program`` ("the peer runs trumps
    ann says: … with protocol 2"), 32 characters of anyone's choosing on the host's refusal line
    (and in the abort sent back). Now only the protocol numbers are named. Check: ``incompatible``."""
    hello = Hello(proto=2, program=CHOSEN, name="eve", eph=bytes(range(32)))

    async def scenario() -> tuple[P2PError, Message]:
        _, listener, port = _listener(tmp_path)
        async with listener:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(frame(encode(hello.to_wire())))
            error = await _first_refusal(listener)
            size = int.from_bytes(await reader.readexactly(4), "big")
            answer = parse(decode(await reader.readexactly(size)))
            writer.transport.abort()
            return error, answer

    error, answer = run(scenario())
    assert isinstance(error, IncompatiblePeer) and "protocol 2" in str(error) and "ann says" not in str(error)
    assert isinstance(answer, Abort) and answer.reason == "incompatible" and "ann says" not in answer.detail


@pytest.mark.net
def test_an_offer_of_another_protocol_puts_no_text_of_its_own_before_the_joiner(tmp_path: Path) -> None:
    """Flaw: whoever answers at the invite's address (on the path, or holding it) sent an offer with
    ``proto`` 2 and a ``program`` of its choosing, and the joiner's error showed that text before
    the fingerprint or the signature was checked. Now only the protocol numbers are named."""
    bob, ann = Side.make(tmp_path, "bob"), Side.make(tmp_path, "ann")
    forged = Offer(
        proto=2, program=CHOSEN, name="ann", eph=bytes(32), key=bytes(32), pickup="forced", sixes=True,
        max_moves=1000, games=1, host_seat=0, hints=False, sig=bytes(64),
    )  # fmt: skip

    async def fake_host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            for _ in range(2):  # hello, knock
                await reader.readexactly(int.from_bytes(await reader.readexactly(4), "big"))
            writer.write(frame(encode(forged.to_wire())))
            await writer.drain()
            await reader.read()  # until the joiner hangs up
        writer.close()

    async def scenario() -> P2PError:
        server = await asyncio.start_server(fake_host, "127.0.0.1", 0)
        invite = ann.invite(server.sockets[0].getsockname()[1], new_secret())
        try:
            with pytest.raises(P2PError) as failed:
                await join(invite, bob.me, "bob", bob.known, accept_all)
        finally:
            server.close()
        return failed.value

    error = run(scenario())
    assert isinstance(error, IncompatiblePeer) and "protocol 2" in str(error) and "ann says" not in str(error)


@pytest.mark.net
def test_a_clear_abort_injected_mid_match_is_a_broken_line_not_the_peers_word(tmp_path: Path) -> None:
    """Someone on the path slips a clear ``abort cheat`` between the joiner's sealed frames mid-game:
    the host opens it as a sealed frame, which it is not, so it is a line error (the kind a match
    resumes from, with a way back: ``test_a_frame_that_fails_authentication_resumes``), never an
    abort: its reason and text are not read. Check: every frame after the accept goes through
    ``Sealer.open``."""
    injected = frame(encode({"t": "abort", "reason": "cheat", "detail": INJECTED}))
    host_report, _ = run(bot_duel(tmp_path, games=1, meddle=lambda i, f: [injected, f] if i == 3 else [f]))
    assert isinstance(host_report.error, LINE_ERRORS) and host_report.end == "corrupted"
    assert "ann says" not in str(host_report.error)
    assert "ann says" not in host_report.record.read_text()


@pytest.mark.net
def test_the_refusal_of_a_look_alike_names_the_known_player_not_the_strangers_text(tmp_path: Path) -> None:
    """Flaw: the host's line refusing a name that looks like a known one quoted the stranger's
    hello ("'B0b' looks like bob…"), text a stranger chose and the host's screen showed. The line
    names the known player it imitates (the host's own stored name) and holds no text of the
    stranger's."""
    bob, eve = Side.make(tmp_path, "bob"), Side.make(tmp_path, "eve")
    look_alike = "B0b"

    async def scenario() -> list[str]:
        ann, listener, port = _listener(tmp_path)
        ann.known.check("bob", bob.me.public)
        lines: list[str] = []
        listener.report_to(lambda text: lines.append(str(text)))
        async with listener:
            with pytest.raises(PeerAborted):
                await join(listener.invite([("127.0.0.1", port)]), eve.me, look_alike, eve.known, accept_all)
            for _ in range(200):  # the refusal is noted just after the abort goes out
                if lines:
                    break
                await asyncio.sleep(0.01)
        return lines

    [line] = run(scenario())
    assert "looks like bob" in line and "B0b" not in line, line
