"""The real ``trumps host`` and ``trumps join`` against a peer written from ``docs/protocol.md``
alone (``tests/interop_peer.py``): the handshake, the verification code, whole matches, a resume
after a cut, the refusals and a provable cheat, each ending in the record ``trumps verify`` should
say. If the document and the code part ways, these fail."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import msgpack  # type: ignore[import-untyped]  # msgpack ships no type hints
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine import Rules
from tests import interop_peer
from tests.interop_peer import Deviation, Invite, PeerAborted

pytestmark = pytest.mark.net

TRUMPS = [sys.executable, "-m", "cli"]
LIMIT = 20.0


def _env(home: Path) -> dict[str, str]:
    return os.environ | {
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "LANGUAGE": "en",
        "LC_ALL": "C.UTF-8",
    }


@contextlib.contextmanager
def _host(home: Path, *options: str) -> Iterator[tuple[subprocess.Popen[str], Invite]]:
    """``trumps host --bot easy`` on loopback, and the invite it printed; killed on the way out."""
    host = subprocess.Popen(
        [*TRUMPS, "host", "--port", "0", "--bind", "127.0.0.1", "--no-map", "--bot", "easy", "--json",
         "--name", "ann", "--timeout", str(LIMIT), *options],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(home), text=True,
    )  # fmt: skip
    try:
        assert host.stdout is not None
        yield host, Invite.parse(host.stdout.readline().split("trumps join ", 1)[1])
    finally:
        host.kill()
        host.communicate(timeout=LIMIT)


def _verify(home: Path, record: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TRUMPS, "verify", str(record)], capture_output=True, text=True, env=_env(home), timeout=LIMIT
    )


def _summary(host: subprocess.Popen[str]) -> tuple[dict[str, object], str]:
    """The host's ``--json`` line and its stderr, once it has ended."""
    out, err = host.communicate(timeout=LIMIT)
    return json.loads(out.splitlines()[-1]), err


@pytest.mark.parametrize(
    ("games", "deviation"), [(1, Deviation()), (2, Deviation(chatter_before_move=3))], ids=["1", "2-chatty"]
)
def test_a_joiner_written_from_the_document_plays_a_whole_match_with_the_real_host(
    tmp_path: Path, games: int, deviation: Deviation
) -> None:
    with _host(tmp_path, "--games", str(games)) as (host, invite):
        match = interop_peer.join(invite, "bob", timeout=LIMIT, deviation=deviation)
        summary, err = _summary(host)
    session = match.session
    assert host.returncode == 0, err
    assert session.peer_name == "ann" and session.seat == 1 and session.games == games == len(match.results)
    assert re.findall(r"Verification code: (\d{3} \d{3})", err) == [session.code], err
    assert isinstance(summary["result"], list) and len(summary["result"]) == games
    assert summary["transcript"] == match.transcript.hex()
    record = Path(str(summary["record"]))
    assert record.name.endswith(f"-bob-{session.session_id[:4].hex()}.jsonl")
    header = json.loads(record.read_text().splitlines()[0])
    for kind in ("hello", "offer", "accept"):  # "Records": lowercase hex, the wire maps
        message = session.messages[kind]
        assert header[kind] == {k: v.hex() if isinstance(v, bytes) else v for k, v in message.items()}
    verified = _verify(tmp_path, record)
    assert verified.returncode == 0 and "complete" in verified.stdout.lower(), verified.stdout


@pytest.mark.parametrize(
    "cut", [Deviation(cut_before_move=2), Deviation(cut_after_move=2)], ids=["host-behind", "host-ahead"]
)
def test_the_independent_joiner_resumes_after_a_cut_and_the_side_ahead_resends(
    tmp_path: Path, cut: Deviation
) -> None:
    with _host(tmp_path) as (host, invite):
        match = interop_peer.join(invite, "bob", timeout=LIMIT, deviation=cut)
        summary, err = _summary(host)
    assert host.returncode == 0 and match.reconnects == summary["reconnects"] == 1, err
    assert summary["transcript"] == match.transcript.hex()
    verified = _verify(tmp_path, Path(str(summary["record"])))
    assert verified.returncode == 0, verified.stdout


def test_a_move_with_a_wrong_hash_is_a_cheat_the_hosts_record_proves(tmp_path: Path) -> None:
    with _host(tmp_path) as (host, invite):
        with pytest.raises(PeerAborted) as aborted:
            interop_peer.join(invite, "bob", timeout=LIMIT, deviation=Deviation(bad_hash_at_move=2))
        summary, err = _summary(host)
    assert aborted.value.reason == "cheat" and summary["end"] == "cheat", err
    record = Path(str(summary["record"]))
    note = json.loads(record.read_text().splitlines()[-1])
    assert note["end"] == "cheat" and note["by"] == 1 and note["game"] == 1 and note["winner"] == 0
    assert note["evidence"]["by"] == 1 and note["evidence"]["t"] == "move"
    assert note["evidence"]["hash"] == bytes(32).hex()
    verified = _verify(tmp_path, record)
    assert verified.returncode == 1 and "the kept evidence proves: " in verified.stdout, verified.stdout


def test_a_knock_without_the_secret_gets_the_one_invite_refusal(tmp_path: Path) -> None:
    with _host(tmp_path) as (_host_process, real):
        wrong = Invite(real.addresses, real.fingerprint, bytes(20))
        with pytest.raises(PeerAborted) as refused:
            interop_peer.join(wrong, "mallory", timeout=LIMIT)
    assert refused.value.reason == "invite"


def test_a_hello_of_another_protocol_is_told_incompatible_with_both_versions(tmp_path: Path) -> None:
    with _host(tmp_path) as (_host_process, invite):
        sock = interop_peer.connect(invite, LIMIT)
        with sock, pytest.raises(PeerAborted) as refused:
            interop_peer.handshake(sock, invite, Ed25519PrivateKey.generate(), "bob", proto=2)
    assert refused.value.reason == "incompatible"
    assert "protocol 3" in str(refused.value) and "protocol 2" in str(refused.value)


def test_a_second_joiner_with_the_secret_is_told_busy_after_confirming_and_the_match_goes_on(
    tmp_path: Path,
) -> None:
    with _host(tmp_path) as (host, invite):
        identity = Ed25519PrivateKey.generate()
        first = interop_peer.handshake(interop_peer.connect(invite, LIMIT), invite, identity, "bob")
        sock = interop_peer.connect(invite, LIMIT)
        with sock, pytest.raises(PeerAborted) as refused:
            interop_peer.handshake(sock, invite, Ed25519PrivateKey.generate(), "carol")
        match = interop_peer.Match(first, identity, invite, "bob")
        with first.line.sock:
            match.play()
        summary, err = _summary(host)
    assert refused.value.reason == "busy"
    assert "ann is playing another match right now: try again later" in str(refused.value)
    assert host.returncode == 0 and summary["transcript"] == match.transcript.hex(), err


@pytest.mark.parametrize(
    "first",
    [{"t": "hello", "proto": 3, "program": "x", "name": "bob"}, {"t": "knock", "proof": b"", "commit": b""}],
    ids=["hello-missing-eph", "knock-first"],
)
def test_a_malformed_or_missing_hello_gets_no_answer_the_connection_is_closed(
    tmp_path: Path, first: dict[str, object]
) -> None:
    with _host(tmp_path) as (_host_process, invite), interop_peer.connect(invite, LIMIT) as sock:
        payload = msgpack.packb(first, use_bin_type=True)
        sock.sendall(len(payload).to_bytes(4, "big") + payload)
        assert sock.recv(1) == b""


def test_a_replayed_hello_and_knock_get_the_invite_refusal_not_an_offer(tmp_path: Path) -> None:
    with _host(tmp_path) as (_host_process, invite):
        identity = Ed25519PrivateKey.generate()
        first = interop_peer.handshake(interop_peer.connect(invite, LIMIT), invite, identity, "bob")
        with first.line.sock, interop_peer.connect(invite, LIMIT) as sock:
            replay = interop_peer.Line(sock)
            replay.send(first.messages["hello"])
            replay.send(first.messages["knock"])
            with pytest.raises(PeerAborted) as refused:
                replay.receive()
    assert refused.value.reason == "invite"


@pytest.mark.parametrize("games", [1, 2])
def test_the_real_joiner_plays_a_whole_match_with_a_host_written_from_the_document(
    tmp_path: Path, games: int
) -> None:
    identity, secret = Ed25519PrivateKey.generate(), os.urandom(20)
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(LIMIT)
        invite = interop_peer.invite_line([("127.0.0.1", listener.getsockname()[1])], identity, secret)
        joiner = subprocess.Popen(
            [*TRUMPS, "join", invite, "--bot", "easy", "--json", "--name", "bob", "--timeout", str(LIMIT)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(tmp_path), text=True,
        )  # fmt: skip
        try:
            match = interop_peer.host(listener, secret, identity, Rules(pickup="voluntary"), games)
            summary, err = _summary(joiner)
        finally:
            joiner.kill()
            joiner.communicate(timeout=LIMIT)
    assert joiner.returncode == 0 and match.session.peer_name == "bob", err
    assert re.findall(r"Verification code: (\d{3} \d{3})", err) == [match.session.code], err
    assert summary["transcript"] == match.transcript.hex()
    assert isinstance(summary["result"], list) and len(summary["result"]) == games
    verified = _verify(tmp_path, Path(str(summary["record"])))
    assert verified.returncode == 0 and "complete" in verified.stdout.lower(), verified.stdout
