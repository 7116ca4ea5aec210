"""A saved unfinished match tampered with (its record path swapped, a file that is no record) and
two programs racing over one: refused in one line, never continued under someone else's chain,
never waited on for ever (no sockets: the records come from in-memory handshakes)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from engine import Rules
from p2p.handshake import Session, Terms
from p2p.invite import Invite, new_secret
from p2p.match import Match
from p2p.record import RecordWriter
from p2p.saved import SavedMatch, SavedMatchError, hosted_file, load_saved, restore
from tests.support.peers import Side, memory_pair, run


def _record(folder: Path, session: Session) -> Path:
    """An unfinished record of ``session`` (its header alone), as its side writes it."""
    terms = session.terms
    match = Match(session.session_id, session.keys, terms.rules, terms.games)
    writer = RecordWriter(folder, session, match)
    writer.append(match)
    return writer.path


class Homes:
    """Ann hosting bob, the records each side keeps, and ann's saved state pointing at hers."""

    def __init__(self, root: Path) -> None:
        self.ann, self.bob = Side.make(root, "ann"), Side.make(root, "bob")
        pair = run(memory_pair(self.ann, self.bob, Terms(Rules(), 2)))
        self.secret = new_secret()
        self.invite = Invite((("127.0.0.1", 47111),), self.ann.me.fingerprint, self.secret)
        self.ann_record = _record(root / "ann-records", pair.host_session)
        self.bob_record = _record(root / "bob-records", pair.join_session)
        self.state = hosted_file(root / "ann-unfinished")
        SavedMatch(self.state, self.ann_record, self.invite).write()


def test_the_saved_match_continues_as_saved(tmp_path: Path) -> None:
    homes = Homes(tmp_path)
    assert restore(load_saved(homes.state), homes.ann.me).session.seat == 0


def test_a_state_pointing_at_the_peers_record_is_refused(tmp_path: Path) -> None:
    """Attack (a swapped record path): ann's hosted.json made to name bob's record of the same
    match (copied over, say). It verified, so ann's program went on as player 1 of it, with bob's
    name and a key that is not hers. The record must be one its own side saved."""
    homes = Homes(tmp_path)
    SavedMatch(homes.state, homes.bob_record, homes.invite).write()
    with pytest.raises(SavedMatchError, match="saved by another player"):
        restore(load_saved(homes.state), homes.ann.me)


def test_a_state_pointing_at_a_match_with_another_host_is_refused(tmp_path: Path) -> None:
    """Bob's saved match of ann's invite made to name his record of a match with carol: his
    program would redial ann to resume carol's match."""
    homes = Homes(tmp_path)
    carol = Side.make(tmp_path, "carol")
    with_carol = run(memory_pair(carol, homes.bob, Terms(Rules(), 2))).join_session
    state = tmp_path / "bob-unfinished" / "joined.json"
    SavedMatch(state, _record(tmp_path / "bob-records", with_carol)).write()
    with pytest.raises(SavedMatchError, match="a match with another host"):
        restore(load_saved(state), homes.bob.me, homes.invite)
    SavedMatch(state, homes.bob_record).write()
    assert restore(load_saved(state), homes.bob.me, homes.invite).session.seat == 1


def _restored_within(state: Path, homes: Homes, seconds: float = 10.0) -> BaseException | None:
    """What restoring ``state`` raised, in a thread given ``seconds`` (a hang fails the test)."""
    raised: list[BaseException | None] = []

    def attempt() -> None:
        try:
            restore(load_saved(state), homes.ann.me)
            raised.append(None)
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(seconds)
    assert raised, "restoring the saved match never returned"
    return raised[0]


@pytest.mark.parametrize("kind", ["a named pipe", "a device", "a folder"])
def test_a_record_path_naming_a_file_that_is_no_record_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    """Attack: the record path swapped for a named pipe kept ``trumps host`` waiting for a writer for
    ever; /dev/zero would have been read until memory ran out. Only a regular file is read, and
    only up to the largest record a match can make."""
    homes = Homes(tmp_path)
    target = {"a named pipe": tmp_path / "pipe", "a device": Path("/dev/zero"), "a folder": tmp_path}[kind]
    if kind == "a named pipe":
        os.mkfifo(target)
    SavedMatch(homes.state, target, homes.invite).write()
    error = _restored_within(homes.state, homes)
    assert isinstance(error, SavedMatchError) and "not a regular file" in str(error)


def test_a_record_larger_than_any_match_makes_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import p2p.saved

    homes = Homes(tmp_path)
    monkeypatch.setattr(p2p.saved, "MOST_RECORD_BYTES", 100)  # as imported there
    with pytest.raises(SavedMatchError, match="larger than any match record"):
        restore(load_saved(homes.state), homes.ann.me)


def test_a_second_program_cannot_hold_a_saved_match_another_one_holds(tmp_path: Path) -> None:
    """Attack: two ``trumps host`` (on two addresses, one port) continued one saved match at once,
    appending to one record and answering one joiner. Now each holds its state file while it
    runs; the second is told so. (Both holders live in this one process here; the lock is the
    system's, per open file, as between two programs.)"""
    homes = Homes(tmp_path)
    first, second = load_saved(homes.state), load_saved(homes.state)
    assert first.hold() and not second.hold()
    first.release()
    assert second.hold()


def test_a_finished_match_leaves_no_lock_file_and_a_waiting_program_takes_a_fresh_one(tmp_path: Path) -> None:
    """Every joined invite once left a ``joined-….json.lock`` in the unfinished folder for ever.
    The last holder removes it, while still holding it, once no match is kept; a program that
    opened the old file in the meantime finds it gone and locks a new one."""
    homes = Homes(tmp_path)
    lock = homes.state.with_name(homes.state.name + ".lock")
    paused, ended = load_saved(homes.state), load_saved(homes.state)
    assert paused.hold()
    paused.release()  # a paused match is still kept: its lock file stays
    assert lock.exists() and ended.hold()
    late = lock.open("ab")  # another program opened the lock file before the holder let it go
    ended.discard()
    ended.release()
    assert not lock.exists()
    fresh = SavedMatch(homes.state)  # a new match of another program
    assert fresh.hold() and lock.exists()  # a new file: the one ``late`` holds is not it
    assert not os.path.samestat(os.fstat(late.fileno()), lock.stat())
    late.close()
    fresh.release()
