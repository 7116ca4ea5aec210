"""Hostile local files and arguments: every file the commands read (config, the unfinished-game
note and records, analyses, the identity key, known peers, saved network matches, match records)
truncated, binary, of the wrong JSON types, huge, nested too deep, not UTF-8 or a directory, gives
one clear line and loses nothing; every command's bad argument gives argparse's one-line error."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli import config, storage
from cli.analysis_file import analysis_path, load_analysis
from cli.app import resume
from cli.app.saving import Saver
from cli.app.score import MatchScore
from cli.history import history_rows, load_game, match_record_paths
from cli.home import Home
from cli.main import main
from cli.printable import printable
from engine import Game, RecordError
from p2p import errors as p2p_errors
from p2p.errors import P2PError
from p2p.identity import KnownPeers, load_identity
from p2p.saved import SavedMatch, SavedMatchError, lan_joined, load_saved, restore

FEW = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
HOSTILE = {
    "empty": b"",
    "truncated": b'{"lang": "uk", "games": 3, "na',
    "binary": random.Random(1).randbytes(3000),
    "not UTF-8": b'{"lang": "\xff\xfe", "record": "\xc0"}',
    "a list": b"[1, 2, 3]",
    "a string": b'"uk"',
    "null": b"null",
    "wrong types": b'{"lang": 5, "games": "3", "halves": {}, "record": 7, "level": [], "moves": 3, "bob": 1}',
    "a huge number": b'{"games": ' + b"9" * 5000 + b"}",
    "infinite numbers": b'{"games": 1e999, "moves": [{"number": 1e999}], "bob": {"key": NaN}}',
    "arrays nested deep": b"[" * 100_000 + b"]" * 100_000,
    "objects nested deep": b'{"a": ' * 100_000 + b"1" + b"}" * 100_000,
    "huge": b'{"x": "' + b"a" * (8 << 20) + b'"}',
}
"""Damaged contents: each file that is read must survive every one of them."""
KINDS = [*HOSTILE, "a directory"]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def plant(path: Path, kind: str) -> bytes | None:
    """Put the damage ``kind`` at ``path``; the bytes written (``None`` for a directory)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "a directory":
        path.mkdir()
        (path / "inside").write_text("kept")
        return None
    path.write_bytes(HOSTILE[kind])
    return HOSTILE[kind]


def still_there(path: Path, content: bytes | None) -> bool:
    """Whether the damaged file is left as it was, for the user to look at."""
    if content is None:
        return path.is_dir() and (path / "inside").read_text() == "kept"
    return path.read_bytes() == content


def run_main(args: list[str]) -> tuple[int, str, str]:
    """``trumps ARGS`` in this process: the exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            status = main(args)
        except SystemExit as exit:
            status = int(exit.code or 0)
    return status, out.getvalue(), err.getvalue()


def one_line(text: str) -> bool:
    """A message of one line, no traceback."""
    return len(text.strip().splitlines()) == 1 and "Traceback" not in text


def a_record(moves: int = 3) -> Game:
    game = Game.from_deal(bytes(32), 0, "SH", Players="You vs AI (hard)", Date="2026-11-30 10:00:00 UTC")
    for _ in range(moves):
        game.play(game.position.legal_moves()[0])
    return game


def saved_record(name: str = "2026-11-30T10-00-00Z.txt") -> Path:
    path = storage.games_dir() / name
    storage.write_atomic(path, a_record().to_record())
    return path


# ------------------------------------------------------------------ config


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_config_counts_as_none_and_is_only_read(kind: str) -> None:
    path = config.config_dir() / "config.json"
    content = plant(path, kind)
    assert all(isinstance(value, str) for value in config.load_config().values())
    status, out, err = run_main(["history"])  # every command reads the config (the language)
    assert status == 0 and "No saved games yet" in out and err == ""
    assert still_there(path, content)


def test_the_language_is_spoken_even_where_it_cannot_be_remembered() -> None:
    path = config.config_dir() / "config.json"
    content = plant(path, "a directory")
    status, out, _ = run_main(["--lang", "it", "history"])
    assert status == 0 and "Ancora nessuna partita" in out and still_there(path, content)


# -------------------------------------------------- failed saves lose nothing


def _save_config() -> None:
    config.save_config(trump="H")


def _save_record() -> None:
    saver = Saver(keeps_unfinished=True)
    saver.path = storage.games_dir() / "2026-11-30T10-00-00Z.txt"
    saver.save(a_record(5), MatchScore(3), 0, "hard")


def _save_known_peer() -> None:
    KnownPeers(Home.default().peers_file).check("carol", bytes(range(32)))


def _save_saved_match() -> None:
    SavedMatch(Home.default().unfinished / "hosted.json", Path("match.jsonl")).write()


SAVES: dict[str, tuple[Callable[[], None], Callable[[], Path]]] = {
    "config": (_save_config, lambda: config.config_dir() / "config.json"),
    "game record": (_save_record, lambda: storage.games_dir() / "2026-11-30T10-00-00Z.txt"),
    "unfinished note": (_save_record, lambda: storage.data_dir() / "unfinished.json"),
    "known peers": (_save_known_peer, lambda: Home.default().peers_file),
    "saved match": (_save_saved_match, lambda: Home.default().unfinished / "hosted.json"),
}


@pytest.mark.parametrize("where", ["fsync", "chmod", "replace"])
@pytest.mark.parametrize("saved", sorted(SAVES))
def test_a_save_that_fails_keeps_the_old_file_whole(
    saved: str, where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    save, path_of = SAVES[saved]
    save()
    path = path_of()
    old = path.read_bytes()
    if saved == "game record":  # what would be written differs from what is there
        storage.write_atomic(path, a_record(1).to_record())
        old = path.read_bytes()

    def disk_full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, where, disk_full)
    with pytest.raises((OSError, P2PError)):
        save()
    monkeypatch.undo()
    assert path.read_bytes() == old
    assert sorted(p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")) == []


# ------------------------------------------------- the unfinished-game note


@pytest.mark.parametrize("elsewhere", ["/etc/passwd", "../../config/trumps/identity.key", "..", ".hidden", "a\\b"])
def test_an_unfinished_note_naming_a_record_elsewhere_is_refused(elsewhere: str) -> None:
    """Attack (issue 19, tampered unfinished games): the note's record swapped for a path outside
    the games folder, which resuming would read and then append moves to. Held: the note names a
    file of the folder or nothing."""
    note = storage.data_dir() / "unfinished.json"
    note.parent.mkdir(parents=True, exist_ok=True)
    fields = {"record": elsewhere, "level": "easy", "games": 1, "played": 0, "halves": [0, 0], "me": 0}
    note.write_text(json.dumps(fields))
    with pytest.raises(storage.StorageError, match="names no game record"):
        storage.load_unfinished()


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_unfinished_note_is_one_line_and_the_record_stays(kind: str) -> None:
    record = saved_record()
    kept = record.read_bytes()
    note = storage.data_dir() / "unfinished.json"
    plant(note, kind)
    status, out, err = run_main(["history"])
    assert status == 0 and record.name in out and err == ""
    status, _, err = run_main(["play", "--resume"])  # the note is forgotten, as documented
    assert status == 1 and one_line(err) and "cannot be resumed" in err
    if kind != "a directory":  # which cannot be forgotten: it is reported each time
        plant(note, kind)
    game, problem = resume.load_unfinished()
    assert game is None and one_line(problem)
    assert record.read_bytes() == kept


@pytest.mark.parametrize("kind", KINDS)
def test_a_note_naming_a_damaged_record_leaves_the_record_in_place(kind: str) -> None:
    path = storage.games_dir() / "2026-11-30T10-00-00Z.txt"
    content = plant(path, kind)
    storage.save_unfinished(storage.Unfinished(path.name, "hard", 3, 0, (0, 0)))
    game, problem = resume.load_unfinished()
    assert game is None and one_line(problem)
    assert still_there(path, content)


@FEW
@given(json_values)
def test_any_json_in_the_note_is_a_game_to_resume_or_one_line(value: object) -> None:
    saved_record()
    (storage.data_dir() / "unfinished.json").write_text(json.dumps(value))
    game, problem = resume.load_unfinished()
    assert game is not None or problem == "" or one_line(problem)


# ------------------------------------------------------------ game records


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_game_record_is_named_by_history_replay_analyze_and_stats(kind: str) -> None:
    good = saved_record("2026-11-30T09-00-00Z.txt")
    path = storage.games_dir() / "2026-11-30T10-00-00Z.txt"
    content = plant(path, kind)
    status, out, err = run_main(["history"])
    assert status == 0 and good.name in out and "unreadable" in out and path.name in out and err == ""
    assert out.count(path.name) == 1  # named once: the reason names it already
    for command in ("replay", "analyze"):
        status, _, err = run_main([command, path.name])
        assert status == 1 and one_line(err) and path.name in err and "codec" not in err and "Errno" not in err
    status, out, err = run_main(["stats"])
    assert status == 0 and err == "" and "1 unreadable file is left out" in out
    assert still_there(path, content)


@pytest.mark.net
def test_a_fifo_among_the_records_is_passed_over_not_waited_on() -> None:
    """Flaw: a named pipe in the games or records folder made `trumps history` wait for a writer
    for ever (it opened every name that looked like a record). Only regular files are read: the
    pipe is listed as unreadable."""
    good = saved_record()
    pipe = storage.games_dir() / "2026-11-30T11-00-00Z.txt"
    os.mkfifo(pipe)
    with pytest.raises(storage.StorageError) as refused:
        storage.read_text(pipe)
    assert str(refused.value) == f"cannot read {pipe}: not a regular file"
    records = Home.default().records
    records.mkdir(parents=True, exist_ok=True)
    os.mkfifo(records / "20261130T110000Z-ann-00000000.jsonl")
    done = subprocess.run(
        [sys.executable, "-m", "cli", "history"],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and good.name in done.stdout and done.stderr == ""
    assert done.stdout.count("\nunreadable: ") == 2, done.stdout


@FEW
@given(st.booleans(), st.binary(max_size=400) | st.text(max_size=400).map(str.encode))
def test_any_bytes_as_a_record_read_as_a_game_or_say_why(titled: bool, data: bytes) -> None:
    path = storage.games_dir() / "x.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"# Your trumps game record\n" * titled + data)
    try:
        load_game(str(path))
    except (storage.StorageError, RecordError) as exc:
        assert one_line(str(exc))
    [row] = history_rows([path])
    assert row.file == "x.txt"


# ---------------------------------------------------------------- analyses


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_analysis_is_a_storage_error(kind: str) -> None:
    record = saved_record()
    path = analysis_path(str(record))
    content = plant(path, kind)
    with pytest.raises(storage.StorageError) as info:
        load_analysis(path, a_record())
    assert one_line(str(info.value)) and still_there(path, content)


@FEW
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(
                ["number", "move", "verdict", "before", "after", "better", "played_estimate", "best_estimate"]
            ),
            json_values,
        ),
        max_size=3,
    )
    | json_values
)
def test_any_json_as_an_analysis_is_verdicts_or_a_storage_error(moves: object) -> None:
    record = saved_record()
    path = analysis_path(str(record))
    path.write_text(json.dumps({"record": record.name, "complete": True, "moves": moves}))
    try:
        load_analysis(path, a_record())
    except storage.StorageError as exc:
        assert one_line(str(exc))


# --------------------------------------------------- identity and known peers


@pytest.mark.parametrize("kind", ["empty", "binary", "31 bytes", "readable by others", "a directory"])
def test_a_damaged_identity_key_is_one_line_and_never_replaced(kind: str) -> None:
    path = Home.default().identity_file
    if kind == "31 bytes":
        path.parent.mkdir(parents=True)
        path.write_bytes(bytes(31))
        content: bytes | None = bytes(31)
    else:
        content = plant(path, "binary" if kind == "readable by others" else kind)
    os.chmod(path, 0o644 if kind == "readable by others" else 0o700 if kind == "a directory" else 0o600)
    with pytest.raises(P2PError):
        load_identity(path)
    status, out, err = run_main(["peers"])
    assert status == 1 and out == "" and one_line(err)
    assert still_there(path, content)


def test_an_identity_that_cannot_be_made_is_one_line() -> None:
    home = Home.default()
    home.config.parent.mkdir(parents=True)
    home.config.write_text("a file where the config folder should be")
    with pytest.raises(P2PError):
        load_identity(home.identity_file)
    status, _, err = run_main(["peers"])
    assert status == 1 and one_line(err) and home.config.read_text().startswith("a file")


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_known_peers_file_is_one_line_and_left_as_it_is(kind: str) -> None:
    path = Home.default().peers_file
    content = plant(path, kind)
    load_identity(Home.default().identity_file)
    for args in (["peers"], ["peers", "forget", "bob"]):
        status, _, err = run_main(args)
        assert status == 1 and one_line(err), (args, err)
    with pytest.raises(P2PError):
        KnownPeers(path).check("bob", bytes(32))
    assert still_there(path, content)


@FEW
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=3) | json_values)
def test_any_json_as_known_peers_is_peers_or_a_p2p_error(value: object) -> None:
    path = Home.default().peers_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    peers = KnownPeers(path)
    for use in (peers.load, lambda: peers.check("bob", bytes(32), remember=False), lambda: peers.forget("x")):
        try:
            use()
        except P2PError as exc:
            assert one_line(printable(exc))  # as the commands show it


def test_a_known_peer_named_with_control_characters_is_shown_harmless() -> None:
    path = Home.default().peers_file
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"bob\x1b[2J\nroot": {"key": "not hex"}}))
    status, _, err = run_main(["peers"])
    assert status == 1 and one_line(err) and "\x1b" not in err and "bob␛[2J␊root" in err


# ----------------------------------------------- saved network matches


@pytest.fixture
def unfinished_folder() -> Iterator[Path]:
    folder = Home.default().unfinished
    folder.mkdir(parents=True)
    yield folder


@pytest.mark.parametrize("kind", KINDS)
def test_a_damaged_saved_match_is_one_error_and_left_in_place(kind: str, unfinished_folder: Path) -> None:
    path = unfinished_folder / "joined-0123456789abcdef.json"
    content = plant(path, kind)
    with pytest.raises(SavedMatchError) as info:
        load_saved(path)
    assert one_line(str(info.value)) and "left as it is" in str(info.value)
    assert lan_joined(unfinished_folder) == []
    assert still_there(path, content)


saved_states = st.fixed_dictionaries(
    {"saved": st.just("your-trumps unfinished match"), "format": st.just(1)},
    optional={
        "record": json_values,
        "pledges": st.dictionaries(st.text(max_size=3), json_values, max_size=2) | json_values,
        "invite": json_values | st.just("127.0.0.1:1/aaaa/"),
        "lan": json_values,
        "joiner": json_values | st.just("::1"),
    },
)


@FEW
@given(saved_states | json_values)
def test_any_json_as_a_saved_match_is_a_state_or_a_saved_match_error(value: object) -> None:
    path = Home.default().unfinished / "hosted.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))
    try:
        restore(load_saved(path), load_identity(Home.default().identity_file))  # its record is read too
    except SavedMatchError as exc:
        assert one_line(str(exc))


@pytest.mark.parametrize("record", ["", "a\x00b", "\ud800", "/", "missing.jsonl", "x" * 5000])
def test_a_saved_match_naming_an_impossible_record_is_one_error(record: str, unfinished_folder: Path) -> None:
    path = unfinished_folder / "hosted.json"
    path.write_text(
        json.dumps({"saved": "your-trumps unfinished match", "format": 1, "record": record, "pledges": {}})
    )
    content = path.read_bytes()
    with pytest.raises(SavedMatchError) as info:
        restore(load_saved(path), load_identity(Home.default().identity_file))
    assert one_line(str(info.value)) and path.read_bytes() == content


# ------------------------------------------------------ network match records


@pytest.mark.parametrize("kind", [*KINDS, "a header only", "a wrong row"])
def test_a_damaged_match_record_is_an_unreadable_row(kind: str) -> None:
    path = Home.default().records / "20261130T101500Z-bob-1a2b3c4d.jsonl"
    if kind == "a header only":
        path.parent.mkdir(parents=True)
        path.write_text('{"record": "your-trumps match", "format": 1}\n')
    elif kind == "a wrong row":
        path.parent.mkdir(parents=True)
        path.write_text('{"record": "your-trumps match", "format": 1, "session": [[[]]]}\n[]\n')
    else:
        plant(path, kind)
    [row] = history_rows([], match_record_paths())
    assert not row.readable and one_line(row.result)
    with pytest.raises((storage.StorageError, p2p_errors.MatchRecordError)):
        load_game(path.name + "#1")
    status, _, err = run_main(["stats"])
    assert status == 0 and err == ""


# ----------------------------------------------------- command-line arguments


BAD_ARGUMENTS = [
    (["play", "--games", "0"], "--games"),
    (["play", "--games", "\u0661"], "--games"),
    (["play", "--seed", "zz"], "--seed"),
    (["play", "--seed", ""], "--seed"),
    (["play", "--trump", "SH"], "--trump"),
    (["play", "--pickup", "never"], "--pickup"),
    (["play", "--theme", "x"], "--theme"),
    (["play", "--bogus"], "unrecognized"),
    (["replay", "a", "b"], "unrecognized"),
    (["analyze"], "required"),
    (["analyze", "RECORD", "--player", "2"], "--player"),
    (["analyze", "RECORD", "--nodes", "x"], "--nodes"),
    (["analyze", "RECORD", "--nodes", "0"], "--nodes"),
    (["analyze", "RECORD", "--nodes", "-5"], "--nodes"),
    (["analyze", "RECORD", "--nodes", "1e400"], "--nodes"),
    (["analyze", "RECORD", "--nodes", "99999999999"], "--nodes"),
    (["analyze", "RECORD", "--seconds", "0.5"], "unrecognized"),
    (["history", "x"], "unrecognized"),
    (["stats", "--json"], "unrecognized"),
    (["verify"], "required"),
    (["peers", "remove"], "invalid choice"),
    (["host", "--port", "65536"], "--port"),
    (["host", "--timeout", "-1"], "--timeout"),
    (["host", "--trump", "HH"], "--trump"),
    (["join", "--timeout", "inf"], "--timeout"),
    (["nonsense"], "invalid choice"),
    (["--lang", "xx"], "unknown language"),
]


@pytest.mark.net
@pytest.mark.parametrize(("args", "fragment"), BAD_ARGUMENTS, ids=[" ".join(a) for a, _ in BAD_ARGUMENTS])
def test_a_bad_argument_is_one_argparse_line_and_touches_no_real_home(
    args: list[str], fragment: str, tmp_path: Path
) -> None:
    record = tmp_path / "record.txt"
    record.write_text(a_record().to_record())
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith(("XDG_", "LC_", "LANG"))
    }
    environment |= {
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "LANG": "C.UTF-8",
    }
    line = [str(record) if word == "RECORD" else word for word in args]
    done = subprocess.run(
        [sys.executable, "-m", "cli", *line],
        capture_output=True,
        text=True,
        env=environment,
        stdin=subprocess.DEVNULL,
        timeout=20,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert "Traceback" not in done.stderr and last.startswith("trumps") and fragment in last
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.txt"]  # nothing written anywhere


# ------------------------------------------------------- unreadable permissions


@pytest.fixture
def lock_out(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], None]:
    """Make a path unreadable as a folder without permissions makes it for a user who is not
    root (these tests run as root, whom permissions do not stop): ``stat``, ``open`` and
    ``scandir`` of it, and of anything under it, fail with EACCES."""
    locked: list[Path] = []
    stat, open_, scandir = os.stat, Path.open, os.scandir

    def check(path: object) -> None:
        if isinstance(path, str | Path) and any(Path(path) == p or p in Path(path).parents for p in locked):
            raise PermissionError(13, "Permission denied", str(path))

    def guarded_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        check(path)
        return stat(path, *args, **kwargs)

    def guarded_open(self: Path, *args: Any, **kwargs: Any) -> Any:
        check(self)
        return open_(self, *args, **kwargs)

    def guarded_scandir(path: Any = ".") -> Any:
        check(path)
        return scandir(path)

    monkeypatch.setattr(os, "stat", guarded_stat)
    monkeypatch.setattr(Path, "open", guarded_open)
    monkeypatch.setattr(os, "scandir", guarded_scandir)
    return locked.append


UNREADABLE: dict[str, tuple[Callable[[], Path], list[str], int]] = {
    "config": (lambda: config.config_dir(), ["history"], 0),
    "unfinished note": (lambda: storage.data_dir() / "unfinished.json", ["play", "--resume"], 1),
    "game record": (
        lambda: storage.games_dir() / "2026-11-30T10-00-00Z.txt",
        ["replay", "2026-11-30T10-00-00Z.txt"],
        1,
    ),
    "identity": (lambda: Home.default().identity_file, ["peers"], 1),
    "known peers": (lambda: Home.default().peers_file, ["peers"], 1),
    "match records": (lambda: Home.default().records, ["stats"], 0),
    "config folder": (lambda: Home.default().config, ["peers"], 1),
}
"""What cannot be read, the command that reads it, and the status it ends with."""


@pytest.mark.parametrize("what", sorted(UNREADABLE))
def test_an_unreadable_file_is_one_line(what: str, lock_out: Callable[[Path], None]) -> None:
    saved_record()
    storage.save_unfinished(storage.Unfinished("2026-11-30T10-00-00Z.txt", "hard", 3, 0, (0, 0)))
    load_identity(Home.default().identity_file)
    Home.default().records.mkdir(parents=True)
    path_of, args, expected = UNREADABLE[what]
    lock_out(path_of())
    status, _, err = run_main(args)
    assert status == expected and (err == "" or one_line(err)), err


def test_an_analysis_that_cannot_be_read_is_none(lock_out: Callable[[Path], None]) -> None:
    record = saved_record()
    path = analysis_path(str(record))
    path.write_text("{}")
    lock_out(record.parent)
    try:
        assert load_analysis(path, a_record()) == {}  # not found: no analysis is shown
    except storage.StorageError as exc:  # or found and not read: replay says so
        assert one_line(str(exc))


def test_a_name_that_cannot_be_remembered_is_still_taken() -> None:
    path = config.config_dir() / "config.json"
    content = plant(path, "a directory")
    assert config.player_name(ask=lambda: "  Ann ", refused=print) == "Ann"
    assert still_there(path, content)


@pytest.mark.parametrize("record", ["a\x00b.txt", "\ud800.txt", "", " ", "x" * 5000])
def test_a_note_naming_an_impossible_record_is_one_line(record: str) -> None:
    saved_record()
    note = storage.data_dir() / "unfinished.json"
    note.write_text(
        json.dumps({"record": record, "level": "hard", "games": 1, "played": 0, "halves": [0, 0], "me": 0})
    )
    game, problem = resume.load_unfinished()
    assert game is None and one_line(problem)
