"""What the program's files survive and how a damaged or unwritable one is said: atomic writes
sync the directory after the rename, an identity key readable by others is refused, the known
peers and the records folder fail in one line, a hostile analysis file is refused."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine import Rules
from p2p.connect import join_on
from p2p.errors import (
    ConnectionClosed,
    P2PError,
)
from p2p.files import write_atomically
from p2p.identity import KnownPeers, load_identity
from p2p.invite import new_secret
from p2p.match import Match
from p2p.record import RecordWriter
from p2p.saved import SavedMatch
from tests.support.peers import Side, accept_all, memory_connection, memory_pair, reception_of, run


@dataclass(frozen=True)
class _Sync:
    """One ``os.fsync``: of a directory (with the names in it then) or of a file (its inode)."""

    directory: bool
    inode: int
    names: frozenset[str]


@pytest.fixture
def syncs(monkeypatch: pytest.MonkeyPatch) -> list[_Sync]:
    """Every ``os.fsync`` from here on, in order (each still done)."""
    done: list[_Sync] = []
    fsync = os.fsync

    def recording(fd: int) -> None:
        info = os.fstat(fd)
        directory = stat.S_ISDIR(info.st_mode)
        done.append(_Sync(directory, info.st_ino, frozenset(os.listdir(fd)) if directory else frozenset()))
        fsync(fd)

    monkeypatch.setattr(os, "fsync", recording)
    return done


def _atomic(path: Path) -> Path:
    write_atomically(path, b"new")
    return path


def _exclusive(path: Path) -> Path:
    write_atomically(path, b"new", exclusive=True)
    return path


def _identity_key(path: Path) -> Path:
    load_identity(path)
    return path


def _known_peers(path: Path) -> Path:
    KnownPeers(path).check("bob", bytes(32))
    return path


def _saved_match(path: Path) -> Path:
    SavedMatch(path).write()
    return path


def _record_header(path: Path) -> Path:
    ann, bob = Side.make(path.parent / "sides", "ann"), Side.make(path.parent / "sides", "bob")
    session = run(memory_pair(ann, bob)).host_session
    match = Match(session.session_id, session.keys, Rules(), 1)
    writer = RecordWriter(path.parent, session, match)
    writer.append(match)
    writer.close()
    return writer.path


WRITERS: dict[str, Callable[[Path], Path]] = {
    "atomic write": _atomic,
    "exclusive write": _exclusive,
    "identity key": _identity_key,
    "known peers": _known_peers,
    "saved match": _saved_match,
    "record header": _record_header,
}


@pytest.mark.parametrize("kind", WRITERS)
def test_an_atomic_write_syncs_the_file_then_the_directory_holding_its_new_name(
    tmp_path: Path, syncs: list[_Sync], kind: str
) -> None:
    """docs/protocol.md: "Every atomic write (key, known peers, record header) also fsyncs the
    directory, so that the new name survives a power cut"; the saved state and the record header
    are "written to a temporary file, fsynced, renamed, the directory fsynced"."""
    path = WRITERS[kind](tmp_path / "home" / "file")
    directory = path.parent
    file_sync = syncs.index(_Sync(False, path.stat().st_ino, frozenset()))  # the content first
    after = syncs[file_sync + 1 :]
    assert _Sync(True, directory.stat().st_ino, frozenset(os.listdir(directory))) in after
    assert [name for name in os.listdir(directory) if name.endswith(".tmp")] == []


@pytest.mark.parametrize(
    "analysis",
    [
        "[" * 100_000 + "]" * 100_000,  # nested deeper than the parser's stack
        '{"moves": [{"number": 1e999, "move": "9H"}]}',  # JSON's 1e999 is an infinite float
    ],
)
def test_a_hostile_analysis_file_is_refused_in_a_line(tmp_path: Path, analysis: str) -> None:
    """Attack: an analysis file beside a record (one received with the record, say) nests too deep
    or numbers a move 1e999. Reading it raised ``RecursionError`` or ``OverflowError``: a traceback
    where ``trumps replay`` shows the record. Now it is "not an analysis of this game", like any
    other damage, and the file is left as it is."""
    from cli import storage
    from cli.analysis_file import load_analysis
    from engine import Game, Position

    game = Game(Position.from_notation("9HJHQHKD/TC/8H SH 0"))
    game.play("QH,KD")
    path = tmp_path / "game.txt.analysis.json"
    path.write_text(analysis, encoding="utf-8")
    with pytest.raises(storage.StorageError, match="is not an analysis of this game"):
        load_analysis(path, game)
    assert path.read_text(encoding="utf-8") == analysis


DAMAGED_PEERS: dict[str, Callable[[str, bytes], object]] = {
    "key not hex": lambda name, key: {name: {"key": "not hex"}},
    "no first_seen": lambda name, key: {name: {"key": key.hex()}},
    "nested too deep": lambda name, key: [[]],
}


@pytest.mark.parametrize("whose", ["host", "joiner"])
@pytest.mark.parametrize("damage", DAMAGED_PEERS)
def test_a_damaged_known_peers_file_refuses_in_a_line_and_hangs_nobody(
    tmp_path: Path, whose: str, damage: str
) -> None:
    """Attack (a damaged file): the known-peers file names the peer with a key that is not hex,
    lacks its ``first_seen`` (harmless), or nests too deep to parse. ``KnownPeers`` raised ``ValueError``,
    ``KeyError`` or ``RecursionError``, which no handshake expects: on the joiner a traceback, on
    the host a handshake task dying unseen with its connection left open, the joiner waiting in
    vain for the confirmation. Now a damaged file is refused as a :class:`~p2p.errors.P2PError` naming
    it: the host's reception refuses that connection (one line in its report), the joiner says it in one line;
    a missing ``first_seen`` is the first meeting's date unknown, and the match goes on."""
    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
    damaged, peer = (ann, bob) if whose == "host" else (bob, ann)
    text = json.dumps(DAMAGED_PEERS[damage](peer.name, peer.me.public))
    damaged.home.peers_file.parent.mkdir(parents=True, exist_ok=True)
    damaged.home.peers_file.write_text(text.replace("[[]]", "[" * 100_000 + "]" * 100_000))

    async def scenario() -> list[tuple[str, P2PError]]:
        refusals: list[tuple[str, P2PError]] = []
        secret = new_secret()
        serving, channel = memory_connection(
            reception_of(ann, secret), lambda address, error: refusals.append((address, error))
        )
        invite = ann.invite(0, secret, "memory")
        joining = asyncio.wait_for(join_on(channel, invite, bob.me, "bob", bob.known, accept_all), 5)
        if damage == "no first_seen":  # nothing wrong with the key: both get the match
            await joining
            assert await asyncio.wait_for(serving, 5) is not None
            return []
        with pytest.raises(P2PError) as refused:
            await joining
        if whose == "joiner":
            assert f"the known-peers file {bob.home.peers_file}" in str(refused.value)
        await channel.close()  # a joiner refusing its own file sent nothing: the line is closed here
        assert await asyncio.wait_for(serving, 5) is None  # the host's handshake ended: nobody hangs
        return refusals

    refusals = run(scenario())
    if whose == "host" and damage != "no first_seen":
        assert [str(error).split(" is ")[0] for _, error in refusals] == [
            f"the known-peers file {ann.home.peers_file}"
        ]


@pytest.mark.parametrize("whose", ["host", "joiner"])
def test_a_known_peers_file_that_cannot_be_saved_is_said_in_a_line(
    tmp_path: Path, whose: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk (or a read-only configuration folder) when a side remembers its peer, after the
    key confirmation: the ``OSError`` came out of ``join`` as a traceback, and on the host out of
    the handshake task, after the joiner's ``confirmed`` had gone out: nobody was told, and the
    host waited for its first joiner for ever. Now it is a :class:`~p2p.errors.P2PError` naming
    the file, which ends that side with one line; the host remembers before it confirms, so its
    joiner sees the connection close instead of a match that cannot begin (its reception raises it,
    and the listener with it)."""
    import p2p.identity
    from p2p.files import write_atomically as writes

    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
    full = (ann if whose == "host" else bob).home.peers_file

    def write(path: Path, data: bytes, mode: int = 0o644, exclusive: bool = False) -> None:
        if path == full:
            raise OSError(28, "No space left on device")
        writes(path, data, mode, exclusive)

    monkeypatch.setattr(p2p.identity, "write_atomically", write)

    async def scenario() -> P2PError:
        secret = new_secret()
        serving, channel = memory_connection(reception_of(ann, secret), lambda address, error: None)
        invite = ann.invite(0, secret, "memory")
        joining = asyncio.ensure_future(join_on(channel, invite, bob.me, "bob", bob.known, accept_all))
        with pytest.raises(P2PError) as failed:
            await asyncio.wait_for(serving if whose == "host" else joining, 5)
        if whose == "host":
            with pytest.raises(ConnectionClosed):
                await joining
        else:
            await asyncio.wait_for(serving, 5)
        return failed.value

    error = run(scenario())
    assert str(error) == f"cannot save the known-peers file {full}: [Errno 28] No space left on device"


def test_forgetting_the_peer_whose_key_is_damaged_mends_the_file(tmp_path: Path) -> None:
    """The way out the refusal names: ``trumps peers forget NAME`` removes the damaged entry."""
    from p2p.identity import KnownPeers

    path = tmp_path / "known_peers.json"
    path.write_text(json.dumps({"bob": {"key": "not hex"}, "cy": {"key": "00" * 32}}))
    known = KnownPeers(path)
    with pytest.raises(P2PError, match="the key of 'bob' is not 64 hex digits"):
        known.load()
    assert known.forget("bob")
    assert list(known.load()) == ["cy"]


@pytest.mark.net
def test_a_records_folder_that_cannot_be_written_stops_the_duel_in_one_line(tmp_path: Path) -> None:
    """A local failure, not an attack: the joiner's records folder cannot be made (a file of that
    name is in the way; a full disk is the same). The first link to record raised the
    ``OSError``, saving the error note raised it again, and ``trumps join`` ended in a traceback.
    Now it says so in one line."""
    from tests.support.programs import PROGRAM_LIMIT, host_program, join_program

    blocked = tmp_path / "bob" / "data" / "trumps" / "matches"
    blocked.parent.mkdir(parents=True)
    blocked.write_text("in the way")

    async def scenario() -> tuple[int | None, str]:
        host, invite = await host_program(tmp_path)
        try:
            joiner = await join_program(tmp_path, invite)
            _, err = await asyncio.wait_for(joiner.communicate(), PROGRAM_LIMIT)
            return joiner.returncode, err.decode()
        finally:
            host.kill()
            await host.wait()

    status, err = asyncio.run(scenario())
    assert status == 1 and "Traceback" not in err, err
    assert (
        err.splitlines()[-1]
        == f"trumps join: stopped on a local file error: [Errno 17] File exists: '{blocked}'"
    )


def test_an_identity_key_readable_by_others_is_refused(tmp_path: Path) -> None:
    """A key file that others may read is not used (they could be anyone's player).
    Check: the mode test in ``load_identity``."""
    path = tmp_path / "identity.key"
    load_identity(path)
    path.chmod(0o640)
    with pytest.raises(P2PError, match="readable by others"):
        load_identity(path)


def test_a_joiner_with_a_damaged_known_peers_file_opens_no_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The joiner read its known peers only once connected: a damaged file then raised with the
    connection open and never closed, and the host waited out its first-flight deadline for it.
    Now the file is read before dialing."""
    import p2p.connect

    ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
    bob.home.peers_file.parent.mkdir(parents=True, exist_ok=True)
    bob.home.peers_file.write_text(json.dumps(DAMAGED_PEERS["key not hex"]("ann", ann.me.public)))
    dialed: list[object] = []

    async def connect(address: object, timeout: float) -> object:
        dialed.append(address)
        raise AssertionError("dialed with a known-peers file it cannot read")

    monkeypatch.setattr(p2p.connect, "_connect", connect)
    invite = ann.invite(0, new_secret(), "127.0.0.1")
    with pytest.raises(P2PError, match="known-peers file"):
        run(p2p.connect._offered(invite.addresses[0], invite, bob.me, "bob", bob.known, 1.0, 180_000))
    assert dialed == []
