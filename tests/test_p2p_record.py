"""Match records: verified from the file alone, every tampering named, prefixes verify as incomplete,
the reader fuzzed; and the ``trumps verify`` / ``peers`` / ``host`` / ``join`` commands as a user
runs them."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from cli.commands import verify as verify_command
from cli.home import Home
from cli.main import main
from p2p.duel import Duel
from p2p.errors import (
    MatchRecordError,
)
from p2p.handshake import Terms
from p2p.match import Match
from p2p.players import BotPlayer
from p2p.record import RecordWriter, verify
from tests.support.peers import SHORT_GAMES, RecordRow, Side, bot_duel, memory_duels, memory_pair, run
from tests.support.programs import program_env


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("rec")
    host_report, _ = run(bot_duel(root, games=2, bind=None, rules=SHORT_GAMES, seed=11))
    return host_report.record.read_text()


@pytest.fixture(scope="module")
def one_game(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A one-game bot match, played once for the tests that only read it: the folder of the two
    homes (``Side.make(root, "ann")`` is the host's again) and the host's record. Its game is of
    :data:`SHORT_GAMES`: the record holds every kind of line, and the tests that verify it over and
    over (the fuzzing) cost the same whatever the deal."""
    root = tmp_path_factory.mktemp("onegame")
    host_report, _ = run(bot_duel(root, games=1, bind=None, rules=SHORT_GAMES, seed=21))
    return root, host_report.record


@pytest.fixture(scope="module")
def record_text(one_game: tuple[Path, Path]) -> str:
    return one_game[1].read_text()


def _lines(text: str) -> list[RecordRow]:
    return [json.loads(line) for line in text.splitlines()]


def _text(rows: list[RecordRow]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


def _first(rows: list[RecordRow], kind: str) -> int:
    return next(
        i for i, row in enumerate(rows) if isinstance(row.get("link"), dict) and row["link"]["t"] == kind
    )


def test_a_complete_record_verifies(record: str) -> None:
    verified = verify(record)
    assert verified.complete and len(verified.match.results) == 2
    assert "complete: score" in verified.summary()


def test_every_prefix_verifies_as_incomplete(record: str) -> None:
    lines = record.splitlines(keepends=True)
    for cut in range(1, len(lines), max(1, len(lines) // 15)):
        verified = verify("".join(lines[:cut]))
        assert not verified.complete
        assert "INCOMPLETE" in verified.summary()
    half = len(lines) // 2  # cut inside a line: half of the record may fall on a line's end
    cut_mid_line = verify("".join(lines[:half]) + lines[half][: len(lines[half]) // 2])
    assert cut_mid_line.truncated and "cut off" in cut_mid_line.summary()


def _tampered(record: str, change: Callable[[list[RecordRow]], object]) -> str:
    rows = _lines(record)
    change(rows)
    return _text(rows)


def _set_link(rows: list[RecordRow], kind: str, key: str, value: object) -> None:
    rows[_first(rows, kind)]["link"][key] = value


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda rows: rows[0]["offer"].update(sixes=not rows[0]["offer"]["sixes"]),
            "line 1: the host's handshake signature",
        ),
        (lambda rows: rows[0]["accept"].update(key="00" * 32), "line 1: the joiner's handshake signature"),
        (lambda rows: rows[0].update(record="something else"), "line 1: not a trumps match record"),
        (lambda rows: _set_link(rows, "move", "move", "take"), "has a bad signature"),
        (lambda rows: _set_link(rows, "reveal", "secret", "00" * 32), "has a bad signature"),
        (lambda rows: _set_link(rows, "commit", "commitment", "zz"), "commit.commitment is not lowercase hex"),
        (lambda rows: rows.pop(_first(rows, "move")), "line 6: player . sent move 2 but player . is to move"),
        (lambda rows: rows[_first(rows, "move")].update(by=2), "'by' must be player 0 or 1"),
        (lambda rows: rows.insert(3, {"end": "quit", "by": 0}), "nothing may follow the end note"),
        (
            lambda rows: rows[_first(rows, "move")].update(by=1 - rows[_first(rows, "move")]["by"]),
            "is to move",
        ),
    ],
    ids=["rules", "joiner-key", "kind", "move", "reveal", "hex", "missing-link", "by", "end-note", "turn"],
)
def test_tampered_records_fail_with_the_line_and_reason(
    record: str, change: Callable[[list[RecordRow]], object], message: str
) -> None:
    with pytest.raises(MatchRecordError, match=message):
        verify(_tampered(record, change))


def test_garbage_lines_are_named(record: str) -> None:
    lines = record.splitlines(keepends=True)
    lines[4] = "{not json\n"
    with pytest.raises(MatchRecordError, match="line 5: not JSON"):
        verify("".join(lines))


# ------------------------------------------------------------------ commands


def test_verify_command(record: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(record)
    assert main(["verify", str(good)]) == 0
    assert "complete" in capsys.readouterr().out
    cut = tmp_path / "cut.jsonl"
    cut.write_text(record[: len(record) // 3])
    assert main(["verify", str(cut)]) == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"\xff\xfe binary")
    assert main(["verify", str(bad)]) == 2
    assert "not a match record" in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "missing")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.net
def test_host_and_join_commands_play_a_bot_match(tmp_path: Path) -> None:
    trumps = [sys.executable, "-m", "cli"]
    host = subprocess.Popen(
        [*trumps, "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "easy", "--games", "2", "--json",
         "--name", "ann", "--no-sixes", "--timeout", "10"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=program_env(tmp_path / "ann"),
    )  # fmt: skip
    try:
        assert host.stdout is not None
        invite_line = host.stdout.readline()
        assert "trumps join " in invite_line
        invite = invite_line.split("trumps join ", 1)[1].strip()
        joiner = subprocess.run(
            [*trumps, "join", invite, "--bot", "easy", "--json", "--name", "bob", "--timeout", "10"],
            capture_output=True, text=True, timeout=30, env=program_env(tmp_path / "bob"),
        )  # fmt: skip
        host_out, host_err = host.communicate(timeout=30)
    finally:
        host.kill()
    assert joiner.returncode == 0, joiner.stderr
    assert host.returncode == 0, host_err
    mine, theirs = json.loads(joiner.stdout.splitlines()[-1]), json.loads(host_out.splitlines()[-1])
    assert mine["transcript"] == theirs["transcript"] and mine["result"] == theirs["result"]
    assert len(mine["result"]) == 2 and sum(mine["score"]) == 2
    assert "proposes a match of 2 games, forced pick-up, the sixes stay where dealt, a draw after 1000 moves" in joiner.stderr
    for summary in (mine, theirs):
        assert verify(Path(summary["record"]).read_text()).complete
    peers = subprocess.run(
        [*trumps, "peers"], capture_output=True, text=True, timeout=30, env=program_env(tmp_path / "bob")
    )
    assert "ann" in peers.stdout
    forget = [*trumps, "peers", "forget", "ann"]
    assert subprocess.run(forget, capture_output=True, timeout=30, env=program_env(tmp_path / "bob")).returncode == 0
    assert subprocess.run(forget, capture_output=True, timeout=30, env=program_env(tmp_path / "bob")).returncode == 1


def test_join_with_a_bad_invite_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["join", "nonsense", "--bot", "easy"]) == 1
    assert "is not an invite" in capsys.readouterr().err


def test_verify_shows_whose_keys_and_whether_this_home_knows_them(
    one_game: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root, record = one_game
    ann, bob = Side.make(root, "ann"), Side.make(root, "bob")
    monkeypatch.setattr(Home, "default", classmethod(lambda cls: ann.home))
    assert main(["verify", str(record)]) == 0
    out = capsys.readouterr().out
    assert f"player 0 (ann): key {ann.me.fingerprint}" in out
    assert f"player 1 (bob): key {bob.me.fingerprint}" in out
    assert "player 0 (ann): your own key" in out
    assert "player 1 (bob): the key your known peers hold for bob" in out
    cat = Side.make(tmp_path / "elsewhere", "cat")  # a home that met another "bob"
    cat.known.check("bob", Side.make(tmp_path / "elsewhere", "bob").me.public)
    monkeypatch.setattr(Home, "default", classmethod(lambda cls: cat.home))
    assert main(["verify", str(record)]) == 0
    out = capsys.readouterr().out
    assert "player 0 (ann): not in your known peers" in out
    assert "player 1 (bob): your known peers hold ANOTHER key for bob" in out


def test_verify_warns_of_a_name_that_looks_like_a_known_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 19, flaw 5: a record of "b\u043eb" (a Cyrillic o) made ``trumps verify`` say "not in
    your known peers" on a home that knows bob under another key, where the handshake refuses
    that look-alike as someone who may be pretending to be bob. Verify now says so too, by the
    handshake's own check (:meth:`p2p.identity.Peers.look_alike`)."""
    from p2p.record import RecordWriter

    ann, eve = Side.make(tmp_path, "ann"), Side.make(tmp_path, "b\u043eb")
    session = run(memory_pair(ann, eve)).host_session
    terms = session.terms
    match = Match(session.session_id, session.keys, terms.rules, terms.games)
    writer = RecordWriter(tmp_path, session, match)
    writer.append(match)  # the header alone: an incomplete record, its keys all the same
    cat = Side.make(tmp_path / "elsewhere", "cat")
    cat.known.check("bob", Side.make(tmp_path / "elsewhere", "bob").me.public)
    cat.known.check("ann", ann.me.public)
    monkeypatch.setattr(Home, "default", classmethod(lambda cls: cat.home))
    assert main(["verify", str(writer.path)]) == 1
    out = capsys.readouterr().out
    assert "player 0 (ann): the key your known peers hold for ann" in out
    assert (
        "player 1 (b\u043eb): looks like bob of your known peers, but bob's key is ANOTHER one: "
        "this may be someone pretending to be bob"
    ) in out


# ------------------------------------------------------------------ the document's words, strictly


def _unfinished(record: str, note: RecordRow) -> str:
    """``record`` cut before its finals, with ``note`` as its end note."""
    rows = _lines(record)
    return _text([*rows[: _first(rows, "final")], note])


@pytest.mark.parametrize("saved_by", [True, 2, "0", 0.0, None, "missing"])
def test_saved_by_is_the_json_integer_0_or_1_or_the_record_fails(record: str, saved_by: object) -> None:
    """Issue 19, interop: a second implementation written from docs/protocol.md alone found that
    ``trumps verify`` took ``saved_by`` of ``true``, ``2``, ``"0"``, ``0.0``, ``null`` or none at
    all (falling back to the host's seat), though the document says only the JSON integers 0 and
    1 are seats."""
    rows = _lines(record)
    if saved_by == "missing":
        del rows[0]["saved_by"]
    else:
        rows[0]["saved_by"] = saved_by
    with pytest.raises(MatchRecordError, match="line 1: 'saved_by' must be player 0 or 1"):
        verify(_text(rows))


@pytest.mark.parametrize("by", [0.0, True, 2, "1", "missing"])
def test_an_end_notes_by_is_a_seat_or_null_or_the_record_fails(record: str, by: object) -> None:
    note: RecordRow = {"end": "quit", "detail": "this side left"}
    if by != "missing":
        note["by"] = by
    with pytest.raises(MatchRecordError, match="'by' must be player 0 or 1, or null"):
        verify(_unfinished(record, note))


@pytest.mark.parametrize("by", [0, 1, None])
def test_an_end_notes_by_of_a_seat_or_null_verifies(record: str, by: int | None) -> None:
    """The three values the document allows, checked once (not again with each wrong one above)."""
    note: RecordRow = {"end": "quit", "detail": "this side left", "by": by}
    assert verify(_unfinished(record, note)).end is not None


@pytest.mark.parametrize("end", ["won", "", "CHEAT", 3, None])
def test_an_end_reason_outside_the_documents_list_fails(record: str, end: object) -> None:
    with pytest.raises(MatchRecordError, match="is not one of the end reasons"):
        verify(_unfinished(record, {"end": end, "detail": "", "by": None}))


def test_an_end_note_after_a_complete_match_fails(record: str) -> None:
    """The note tells why an *unfinished* match stopped: after both finals it has nothing to tell,
    and a record with one is not what the document describes (nor what this program writes)."""
    with pytest.raises(MatchRecordError, match="a complete match has no end note"):
        verify(record + json.dumps({"end": "abandoned", "detail": "", "by": 1}) + "\n")


def test_the_writer_keeps_no_end_note_after_a_complete_match(record: str, tmp_path: Path) -> None:

    verified = verify(record)
    path = tmp_path / "again.jsonl"
    path.write_text(record)
    writer = RecordWriter.continuing(path, verified.session, verified.match)
    writer.save(verified.match, {"end": "abandoned", "detail": "the line dropped after the end", "by": 1})
    assert path.read_text() == record and verify(path.read_text()).complete


def test_null_evidence_is_no_evidence_kept(record: str) -> None:
    """The program writes ``"evidence": null`` for a violation it could not keep a message of (a
    frame that did not parse); that is no evidence, not evidence that proves nothing."""
    verified = verify(_unfinished(record, {"end": "cheat", "detail": "x", "by": 1, "evidence": None}))
    assert verified.evidence_error is None and verified.evidence_unproven is None
    assert "evidence" not in verified.summary()


@pytest.mark.parametrize("where", ["link", "header", "rematch"])
def test_bytes_in_uppercase_hex_fail(record: str, where: str) -> None:
    """Bytes are lowercase hex strings everywhere in a record: ``bytes.fromhex`` also took
    uppercase (and spaces)."""
    rows = _lines(record)
    if where == "link":
        rows[_first(rows, "commit")]["link"]["commitment"] = rows[_first(rows, "commit")]["link"]["commitment"].upper()
        message = "commit.commitment is not lowercase hex"
    elif where == "header":
        rows[0]["hello"]["eph"] = rows[0]["hello"]["eph"][:62] + " " + rows[0]["hello"]["eph"][63:]
        message = "hello.eph is not lowercase hex"
    else:
        rows[0]["rematch_of"] = {"root": "AB" * 32, "transcript": "00" * 32, "finals": ["00" * 64] * 2, "dealer": 0}
        message = "'rematch_of' is unreadable"
    with pytest.raises(MatchRecordError, match=message):
        verify(_text(rows))


@pytest.mark.parametrize("kind", ["a named pipe", "a device"])
def test_verify_reads_only_a_regular_file(tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``trumps verify`` given a named pipe waited for a writer for ever; given /dev/zero it read
    until memory ran out."""
    import threading

    target = tmp_path / "pipe" if kind == "a named pipe" else Path("/dev/zero")
    if kind == "a named pipe":
        os.mkfifo(target)
    status: list[int] = []
    thread = threading.Thread(target=lambda: status.append(main(["verify", str(target)])), daemon=True)
    thread.start()
    thread.join(10)
    assert status == [2] and "not a regular file" in capsys.readouterr().err


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


def _tampered_seats_or_nesting(record_text: str, how: str) -> str:
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
    text = _tampered_seats_or_nesting(record_text, how)
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


def test_the_record_holds_every_move_as_it_is_played(tmp_path: Path) -> None:
    """A crash at any moment loses nothing played: each link is on disk once applied."""
    seen: list[tuple[int, int]] = []
    duel: Duel

    class Watcher(BotPlayer):
        def advanced(self, match: Match) -> None:
            rows = path.read_text().count("\n") - 1 if (path := duel.files.path).exists() else 0
            seen.append((len(match.links), rows))

    async def scenario() -> None:
        nonlocal duel
        ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
        pair = await memory_pair(ann, bob, Terms(SHORT_GAMES, 1))
        host, duel = memory_duels(pair, (BotPlayer("easy"), Watcher("easy")))
        await asyncio.gather(host.run(), duel.run())

    run(scenario())
    assert seen and all(links == rows for links, rows in seen)


@pytest.mark.parametrize("tail", ["", "\0" * 40, '{"by": 0, "li'])
def test_a_torn_or_zeroed_tail_verifies_as_incomplete(record_text: str, tail: str) -> None:
    lines = record_text.splitlines(keepends=True)
    verified = verify("".join(lines[: len(lines) // 2]) + tail)
    assert not verified.complete and verified.truncated == bool(tail)
