"""What the handshake refuses, and that no text of a stranger's choosing is ever shown. Decided over
the memory line (the machines, or the host's reception served in memory): the wrong host, changed
keys and look-alike names, declined rules, other protocols, a stranger's clear abort, an abort
slipped in on the path (in place of the host's offer or confirmation) or mid-match. End to end over
loopback (the kernel's connections, the real listener): garbage, Mallory's proxy, a stranger
without the secret, the look-alike's refusal line."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine import Rules
from p2p.channel import Channel
from p2p.connect import Listener, join, join_on, listening_socket
from p2p.crypto import sign
from p2p.errors import (
    LINE_ERRORS,
    ConnectionClosed,
    FingerprintMismatch,
    IdentityChanged,
    IncompatiblePeer,
    InviteRefused,
    P2PError,
    PeerAborted,
    RulesDeclined,
    WireError,
)
from p2p.handshake import Terms, session_id
from p2p.identity import Identity, KnownPeers
from p2p.invite import Invite, new_secret
from p2p.messages import (
    Abort,
    Accept,
    Commit,
    Hello,
    Message,
    Offer,
    parse,
)
from p2p.wire import FrameBuffer, decode, encode, frame
from tests.support.handshakes import identity, session_pair
from tests.support.hosts import loopback_listener, refusal_errors
from tests.support.lines import memory_streams
from tests.support.peers import Side, accept_all, bot_duel, memory_connection, reception_of, run


def test_wrong_fingerprint_is_refused_by_the_joiner() -> None:
    with pytest.raises(FingerprintMismatch, match="not the host who sent the invite"):
        session_pair(identity(), identity(), invited="a" * 32)


def test_a_changed_joiner_key_is_refused_loudly_by_the_host(tmp_path: Path) -> None:
    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
    session_pair(ann.me, bob.me, known=(ann.known, bob.known))
    impostor = Side.make(tmp_path / "elsewhere", "bob")
    refused: list[P2PError] = []
    secret = new_secret()

    async def second() -> PeerAborted:
        serving, channel = memory_connection(reception_of(ann, secret), lambda _, error: refused.append(error))
        with pytest.raises(PeerAborted) as aborted:  # the host's refusal comes sealed
            await join_on(channel, ann.invite(0, secret, "memory"), impostor.me, "bob", impostor.known, accept_all)
        assert await serving is None
        return aborted.value

    assert run(second()).reason == "identity"
    assert any(isinstance(e, IdentityChanged) and "CHANGED" in str(e) for e in refused)


def test_a_changed_host_key_is_refused_loudly_by_the_joiner(tmp_path: Path) -> None:
    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
    session_pair(ann.me, bob.me, known=(ann.known, bob.known))
    new_ann = Side.make(tmp_path / "elsewhere", "ann")  # a valid invite, but a new key for "ann"
    with pytest.raises(IdentityChanged, match="trumps peers forget ann"):
        session_pair(new_ann.me, bob.me, known=(new_ann.known, bob.known))


def test_declined_rules_end_the_joiner_and_the_host_keeps_waiting(tmp_path: Path) -> None:
    """A decline is unauthenticated (anyone reaching the port could send one): the host reports it
    and keeps receiving, and the next joiner still gets the match."""
    ann, bob, cat = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob"), Side.make(tmp_path, "cat")
    seen: list[Terms] = []
    refused: list[P2PError] = []
    secret = new_secret()

    async def decline(terms: Terms, name: str) -> bool:
        seen.append(terms)
        return False

    async def scenario() -> str:
        reception = reception_of(ann, secret, Terms(games=3, rules=Rules(sixes=False)))
        invite = ann.invite(0, secret, "memory")
        serving, channel = memory_connection(reception, lambda _, error: refused.append(error))
        with pytest.raises(RulesDeclined):
            await join_on(channel, invite, bob.me, "bob", bob.known, decline)
        assert await serving is None
        serving, channel = memory_connection(reception, lambda _, error: refused.append(error))
        await join_on(channel, invite, cat.me, "cat", cat.known, accept_all)
        let_in = await serving
        assert let_in is not None
        return let_in[1].hello.name

    assert run(scenario()) == "cat"
    assert seen[0].games == 3 and not seen[0].rules.sixes
    assert len(refused) == 1 and isinstance(refused[0], RulesDeclined) and "bob declined" in str(refused[0])


def test_an_incompatible_peer_gets_a_clear_refusal(tmp_path: Path) -> None:
    ann = Side.make(tmp_path, "ann")
    refused: list[P2PError] = []

    async def scenario() -> None:
        serving, channel = memory_connection(reception_of(ann, new_secret()), lambda _, error: refused.append(error))
        await channel.send(Hello(proto=99, program="9.9", name="future", eph=bytes(32)))
        with pytest.raises(PeerAborted, match="protocol 99") as aborted:
            await channel.recv(5)
        assert aborted.value.reason == "incompatible"
        await channel.close()
        assert await serving is None

    run(scenario())
    assert isinstance(refused[0], IncompatiblePeer)


@pytest.mark.net
def test_garbage_connections_are_refused_and_the_host_keeps_listening(tmp_path: Path) -> None:
    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
    refused: list[tuple[str, P2PError]] = []

    async def scenario() -> None:
        sock = listening_socket("127.0.0.1", 0)
        port = sock.getsockname()[1]
        async with Listener(sock, ann.me, "ann", Terms(Rules()), ann.known) as listener:
            await _garbage_then_join(listener, port)
            refused.extend(listener.refusals)

    async def _garbage_then_join(listener: Listener, port: int) -> None:
        for garbage in (b"\x00\x00\x00\x03\xc1\xc1\xc1", b"\xff\xff\xff\xff", b"\x00\x00\x00\x02\x91\x01"):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(garbage)
            await writer.drain()
            await reader.read()  # the host hangs up
            writer.close()
        impostor = Channel(*await asyncio.open_connection("127.0.0.1", port))
        await impostor.send(Commit(game=1, commitment=bytes(32), sig=bytes(64)))  # not a hello
        await impostor.reader.read()
        invite = listener.invite([("127.0.0.1", port)])
        channel, session = await join(invite, bob.me, "bob", bob.known, accept_all)
        host_channel, host_session = await listener.first()
        assert host_session.session_id == session.session_id
        await channel.close()
        await host_channel.close()

    run(scenario())
    kinds = [type(error).__name__ for _, error in refused]
    assert kinds == ["MalformedFrame", "FrameTooLarge", "SchemaError", "SchemaError"]
    assert "expected a 'hello' message, got 'commit'" in str(refused[-1][1])


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
        ann, listener, port = loopback_listener(tmp_path)
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
            return ann, refusal_errors(listener), session.accept.key.hex(), failed

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
        ann, listener, port = loopback_listener(tmp_path)
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


def test_a_look_alike_name_meets_the_known_key(tmp_path: Path) -> None:
    """Flaw 2: after a match with bob, a stranger holding the invite as "b\\u043eb" (Cyrillic o)
    is refused as bob's changed identity, and nothing is bound to its key."""
    ann, bob, eve = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob"), Side.make(tmp_path, "eve")
    secret = new_secret()

    async def scenario() -> PeerAborted:
        ann.known.check("bob", bob.me.public)
        serving, channel = memory_connection(reception_of(ann, secret), lambda address, error: None)
        with pytest.raises(PeerAborted) as refused:
            await join_on(channel, ann.invite(0, secret, "memory"), eve.me, "b\u043eb", eve.known, accept_all)
        assert await serving is None and ann.known.load().keys() == {"bob"}  # nothing bound to eve's key
        return refused.value

    refused = run(scenario())
    assert refused.reason == "identity" and "looks like bob" in str(refused)


INJECTED = "ann says: this invite expired, fetch a new one from the site in her profile"
"""What an on-path attacker would like the joiner (or the host) to read as the other side's words."""


@pytest.mark.parametrize("replaced", [0, 1], ids=["offer", "confirmed"])
@pytest.mark.parametrize("reason", ["invite", "incompatible", "busy", "cheat", "nonsense"])
def test_an_abort_injected_on_the_path_never_shows_the_joiner_its_text(
    tmp_path: Path, reason: str, replaced: int
) -> None:
    """Flaw: an on-path attacker put a clear ``abort`` where the host's offer was due, and the
    joiner showed its detail ("the host refused: ann says: …") as the host's words. Now a clear
    abort is shown by its reason code alone, in our own words (and only a code of the list); once
    the keys are set, a clear frame does not even open: a broken line, no text at all."""
    bob, ann, secret = Side.make(tmp_path, reason), Side.make(tmp_path, "ann"), new_secret()
    injected = frame(encode({"t": "abort", "reason": reason, "detail": INJECTED}))

    def on_the_path(index: int, sent: bytes) -> list[bytes]:  # the host's frames, 0 the offer
        return [injected] if index == replaced else [sent]

    async def scenario() -> P2PError:
        join_end, host_end = memory_streams(on_the_path)
        serving = asyncio.ensure_future(reception_of(ann, secret).serve(*host_end, lambda address, error: None))
        try:
            with pytest.raises(P2PError) as failed:
                await join_on(Channel(*join_end), ann.invite(0, secret, "memory"), bob.me, reason, bob.known, accept_all)
        finally:
            serving.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await serving
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


async def _stranger_refused(ann: Side, sent: bytes) -> tuple[P2PError, bytes]:
    """A stranger writes ``sent`` at ann's reception over the memory line: why the host refused
    it, and the bytes it answered before closing the connection."""
    refusals: list[P2PError] = []
    reception = reception_of(ann, new_secret())
    host_end, (reader, writer) = memory_streams()
    serving = asyncio.ensure_future(reception.serve(*host_end, lambda address, error: refusals.append(error)))
    writer.write(sent)
    assert await asyncio.wait_for(serving, 5) is None  # refused: the host closed its end
    answered = await reader.read()  # all it wrote, up to that close
    writer.close()
    return refusals[0], answered


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
    abort = {"t": "abort", "reason": reason, "detail": INJECTED}
    sent = frame(encode(hello.to_wire())) + frame(encode(abort))
    error, _ = run(_stranger_refused(Side.make(tmp_path, "ann"), sent))
    assert "ann says" not in str(error) and not isinstance(error, RulesDeclined)
    assert isinstance(error, ConnectionClosed) and (f"({reason})" in str(error)) == (reason != "nonsense")


def test_a_strangers_hello_of_another_protocol_puts_no_text_of_its_own_in_the_hosts_log(
    tmp_path: Path,
) -> None:
    """Flaw: the refusal of a hello with ``proto`` 2 named its ``program`` ("the peer runs trumps
    ann says: … with protocol 2"), 32 characters of anyone's choosing on the host's refusal line
    (and in the abort sent back). Now only the protocol numbers are named. Check: ``incompatible``."""
    hello = Hello(proto=2, program=CHOSEN, name="eve", eph=bytes(range(32)))
    error, answered = run(_stranger_refused(Side.make(tmp_path, "ann"), frame(encode(hello.to_wire()))))
    frames = FrameBuffer()
    frames.receive_data(answered)
    payload = frames.next_frame()
    assert payload is not None
    answer = parse(decode(payload))
    assert isinstance(error, IncompatiblePeer) and "protocol 2" in str(error) and "ann says" not in str(error)
    assert isinstance(answer, Abort) and answer.reason == "incompatible" and "ann says" not in answer.detail


def test_an_offer_of_another_protocol_puts_no_text_of_its_own_before_the_joiner(tmp_path: Path) -> None:
    """Flaw: whoever answers at the invite's address (on the path, or holding it) sent an offer with
    ``proto`` 2 and a ``program`` of its choosing, and the joiner's error showed that text before
    the fingerprint or the signature was checked. Now only the protocol numbers are named."""
    bob, ann = Side.make(tmp_path, "bob"), Side.make(tmp_path, "ann")
    forged = Offer(
        proto=2, program=CHOSEN, name="ann", eph=bytes(32), key=bytes(32), pickup="forced", sixes=True,
        max_moves=1000, games=1, host_seat=0, hints=False, sig=bytes(64),
    )  # fmt: skip

    async def scenario() -> P2PError:
        host_end, join_end = memory_streams()
        fake_host = Channel(*host_end)

        async def answering() -> None:
            await fake_host.recv(5)  # the hello
            await fake_host.recv(5)  # the knock
            await fake_host.send(forged)

        answer = asyncio.ensure_future(answering())
        try:
            with pytest.raises(P2PError) as failed:
                await join_on(Channel(*join_end), ann.invite(0, new_secret(), "memory"), bob.me, "bob", bob.known, accept_all)
        finally:
            await answer
        return failed.value

    error = run(scenario())
    assert isinstance(error, IncompatiblePeer) and "protocol 2" in str(error) and "ann says" not in str(error)


def test_a_clear_abort_injected_mid_match_is_a_broken_line_not_the_peers_word(tmp_path: Path) -> None:
    """Someone on the path slips a clear ``abort cheat`` between the joiner's sealed frames mid-game:
    the host opens it as a sealed frame, which it is not, so it is a line error (the kind a match
    resumes from, with a way back: ``test_a_frame_that_fails_authentication_resumes``), never an
    abort: its reason and text are not read. Check: every frame after the accept goes through
    ``Sealer.open``."""
    injected = frame(encode({"t": "abort", "reason": "cheat", "detail": INJECTED}))
    host_report, _ = run(bot_duel(tmp_path, games=1, bind=None, meddle=lambda i, f: [injected, f] if i == 3 else [f]))
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
        ann, listener, port = loopback_listener(tmp_path)
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
