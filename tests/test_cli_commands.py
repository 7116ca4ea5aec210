"""The ``trumps`` commands: dispatch, fast help, history, replay, and the files they keep."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli import config, storage
from cli import main as cli_main
from cli.app.replay import Replay
from cli.app.screen import GameScreen
from cli.history import history_rows
from engine import Game
from tests.test_cli_app import replay_screens

pytestmark = pytest.mark.usefixtures("no_fsync")  # saved at every move, never a power cut: see conftest


@pytest.fixture(autouse=True)
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path


def finished_game(players: str = "You vs AI (hard)") -> Game:
    game = Game.from_deal(bytes(32), 0, "SH", Players=players, Date="2026-11-30 10:02:11 UTC")
    while game.result is None:
        game.play(game.position.legal_moves()[0])
    return game


# -------------------------------------------------------------------- dispatch


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["play", "--help"], ["history", "--help"], ["replay", "--help"], ["--version"]):
        with pytest.raises(SystemExit) as exit:
            cli_main.main(argv)
        assert exit.value.code == 0
    out = capsys.readouterr().out
    assert "--four-color" in out and "play against the AI" in out and "trumps 0.1.0" in out


@pytest.mark.net
def test_help_imports_no_heavy_module() -> None:
    code = (
        "import sys; from cli.main import build_parser; build_parser(); "
        "print(sorted(m for m in ('prompt_toolkit', 'cryptography', 'engine', 'msgpack') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_bad_options_are_refused_clearly(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, words in (
        (["--games", "0"], "number of games"),
        (["--games", "²"], "number of games"),
        (["--games", "1" * 4400], "number of games"),
        (["--seed", "xyz"], "not hexadecimal"),
        (["--trump", "x"], "not a suit"),
        (["--pickup", "sometimes"], "invalid choice"),
    ):
        with pytest.raises(SystemExit) as exit:
            cli_main.main(argv)
        assert exit.value.code == 2 and words in capsys.readouterr().err
    assert cli_main.main(["--level", "godlike"]) == 2
    assert "unknown level 'godlike'" in capsys.readouterr().err


def test_resume_without_an_unfinished_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["play", "--resume"]) == 1
    assert "no unfinished game to resume" in capsys.readouterr().err


def started_screens(monkeypatch: pytest.MonkeyPatch) -> list[GameScreen]:
    """Make ``trumps play`` hand its screen over here instead of running it in a terminal."""
    from cli.app import application
    from cli.commands import play

    screens: list[GameScreen] = []

    async def no_terminal(screen: GameScreen) -> None:
        screens.append(screen)

    monkeypatch.setattr(application, "play", no_terminal)
    monkeypatch.setattr(play, "has_terminal", lambda command: True)
    return screens


def leave_unfinished_game() -> str:
    game = Game.from_deal(bytes(32), 0, "SH", Players="You vs AI (easy)")
    game.play(game.position.legal_moves()[0])
    storage.write_atomic(storage.games_dir() / "g.txt", game.to_record())
    storage.save_unfinished(storage.Unfinished("g.txt", "easy", 1, 0, (0, 0)))
    return "g.txt"


def test_new_game_options_start_a_new_game_without_the_question(monkeypatch: pytest.MonkeyPatch) -> None:
    screens = started_screens(monkeypatch)
    leave_unfinished_game()
    assert cli_main.main(["play"]) == 0
    assert screens[-1].offer is not None  # no options: the unfinished game is offered
    for options in (["--seed", "ab"], ["--level", "Medium"], ["--trump", "♤"], ["--games", "3"]):
        assert cli_main.main(["play", *options]) == 0
        screen = screens[-1]
        assert screen.offer is None and screen.resume is None, options
        assert "A new game, as your options ask" in screen.notice and "g.txt" in screen.notice
    assert screens[-3].flow.opponent.name == "AI (medium)" and screens[-2].trump == "S"


def test_a_second_window_leaves_the_unfinished_game_to_the_first(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    screens = started_screens(monkeypatch)
    leave_unfinished_game()
    first = storage.lock_unfinished()  # the first window
    assert first is not None
    assert cli_main.main(["play"]) == 0
    second = screens[-1]
    assert second.offer is None and not second.saver.keeps_unfinished
    assert "Another trumps window has your unfinished game" in second.notice
    assert cli_main.main(["play", "--resume"]) == 1
    assert "open in another trumps window" in capsys.readouterr().err
    assert storage.load_unfinished() is not None  # untouched: still the first window's
    first.release()
    assert cli_main.main(["play"]) == 0
    assert screens[-1].offer is not None and screens[-1].saver.keeps_unfinished


@pytest.mark.net
def test_the_lock_on_the_unfinished_game_dies_with_its_window(homes: Path) -> None:
    code = "from cli import storage; lock = storage.lock_unfinished(); print(lock is not None, flush=True); input()"
    window = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=os.environ
    )
    try:
        assert window.stdout is not None and window.stdout.readline() == "True\n"
        assert storage.lock_unfinished() is None
    finally:
        window.kill()
        window.wait(10)
    lock = storage.lock_unfinished()  # a crashed window leaves no stale lock
    assert lock is not None
    lock.release()


@pytest.mark.net
def test_play_needs_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cli", "--trump", "s"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2 and "needs a terminal" in result.stderr and "Traceback" not in result.stderr


# --------------------------------------------------------------------- storage


def test_dirs_follow_xdg(homes: Path) -> None:
    assert storage.data_dir() == homes / "data" / "trumps"
    assert config.config_dir() == homes / "config" / "trumps"


def test_atomic_write_leaves_no_temporary_files(homes: Path) -> None:
    path = storage.games_dir() / "a.txt"
    storage.write_atomic(path, "one\n")
    storage.write_atomic(path, "two\n")
    assert path.read_text() == "two\n" and os.listdir(path.parent) == ["a.txt"]


def test_a_failed_write_keeps_the_old_file(homes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = storage.games_dir() / "a.txt"
    storage.write_atomic(path, "old\n")

    def broken(src: object, dst: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        storage.write_atomic(path, "new\n")
    assert path.read_text() == "old\n" and os.listdir(path.parent) == ["a.txt"]


def test_config_remembers_and_survives_damage(homes: Path) -> None:
    config.save_config(trump="D")
    config.save_config(show_opponent="no")
    assert config.load_config() == {"trump": "D", "show_opponent": "no"}
    (config.config_dir() / "config.json").write_text("[broken")
    assert config.load_config() == {}


@pytest.mark.parametrize(
    "text",
    [
        "{",
        "[]",
        '{"record": 5}',
        '{"record": "../x.txt", "level": "hard", "games": 1, "played": 0, "halves": [0, 0], "me": 0}',
        '{"record": "g.txt", "level": "foo", "games": 1, "played": 0, "halves": [0, 0], "me": 0}',
        '{"record": "g.txt", "level": "hard", "games": 1, "played": 0, "halves": [0, 0], "me": 5}',
        '{"record": "g.txt", "level": "hard", "games": 0, "played": 0, "halves": [0, 0], "me": 0}',
        '{"record": "g.txt", "level": "hard", "games": 1000, "played": 0, "halves": [0, 0], "me": 0}',
        '{"record": "g.txt", "level": "hard", "games": 3, "played": 3, "halves": [2, 4], "me": 0}',
        '{"record": "g.txt", "level": "hard", "games": 3, "played": -1, "halves": [0, 0], "me": 0}',
        '{"record": "g.txt", "level": "hard", "games": 3, "played": 1, "halves": [-1, 3], "me": 0}',
        '{"record": "g.txt", "level": "hard", "games": 3, "played": 1, "halves": [0, "2"], "me": 0}',
        '{"record": "g.txt", "level": "hard", "games": 3, "played": 1, "halves": [0, 2, 0], "me": 0}',
        '{"record": "g.txt", "level": "hard", "games": 3, "played": 1, "halves": 2, "me": 0}',
    ],
)
def test_a_damaged_unfinished_note_raises_a_clear_error(text: str) -> None:
    storage.data_dir().mkdir(parents=True)
    (storage.data_dir() / "unfinished.json").write_text(text)
    with pytest.raises(storage.StorageError, match=r"unfinished\.json"):
        storage.load_unfinished()


def test_play_resume_with_a_damaged_note_says_so_and_forgets_it(capsys: pytest.CaptureFixture[str]) -> None:
    for level, me, games, words in (
        ("foo", 0, 1, "unknown level 'foo'"),
        ("easy", 5, 1, "'me' should be a whole number from 0 to 1, not 5"),
        ("easy", 0, "3", "'games' should be a whole number, not '3'"),
    ):
        storage.write_atomic(storage.games_dir() / "g.txt", finished_game().to_record())
        note = {"record": "g.txt", "level": level, "games": games, "played": 0, "halves": [0, 0], "me": me}
        storage.write_atomic(storage.data_dir() / "unfinished.json", json.dumps(note))
        assert cli_main.main(["play", "--resume"]) == 1
        err = capsys.readouterr().err
        assert err.startswith(
            "trumps play: your unfinished game cannot be resumed, because it could not be read ("
        )
        assert words in err and err.endswith("'trumps play' starts a new game.\n") and err.count("\n") == 1
        assert "must be a" not in err and "delete" not in err and "Traceback" not in err
        assert storage.load_unfinished() is None  # forgotten, as said: the next 'trumps play' starts afresh


def test_odd_digits_in_record_names_sort_without_error(
    homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["2026-11-30T10-02-11Z-².txt", "2026-11-30T10-02-11Z-2.txt", "2026-11-30T10-02-11Z.txt"]
    for name in names:
        storage.write_atomic(storage.games_dir() / name, finished_game().to_record())
    assert [p.name for p in storage.record_paths()] == [names[2], names[1], names[0]]
    assert cli_main.main(["history"]) == 0
    assert "Z-².txt" in capsys.readouterr().out


def test_record_names_never_collide(homes: Path) -> None:
    first = storage.new_record_path()
    storage.write_atomic(first, "x")
    assert storage.new_record_path() != first


# --------------------------------------------------------------------- history


def test_history_lists_date_opponent_result(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["history"]) == 0
    assert "No saved games yet" in capsys.readouterr().out
    won = finished_game()
    storage.write_atomic(storage.games_dir() / "1.txt", won.to_record())
    storage.write_atomic(storage.games_dir() / "2.txt", finished_game("AI (easy) vs You").to_record())
    open_game = Game.from_deal(bytes(32), 1, "DC", Players="You vs AI (easy)", Date="2026-11-30 11:00:00 UTC")
    storage.write_atomic(storage.games_dir() / "3.txt", open_game.to_record())
    storage.write_atomic(storage.games_dir() / "4.txt", "# Your trumps game record\nStart: nonsense\n")
    rows = history_rows(storage.record_paths())
    assert [r.file for r in rows] == ["1.txt", "2.txt", "3.txt", "4.txt"]
    assert rows[0].date == "2026-11-30 10:02" and rows[0].opponent == "AI (hard)"
    assert won.result is not None
    mine = "won" if won.result.winner == 0 else "lost" if won.result.winner == 1 else "draw"
    assert rows[0].result.startswith(mine) and rows[0].moves == str(len(won.moves))
    assert rows[1].opponent == "AI (easy)"
    assert rows[2].result == "abandoned"
    assert "4.txt is damaged: line 2: the start position is wrong" in rows[3].result and not rows[3].readable
    assert [r.number for r in rows] == ["1", "2", "3", ""]  # what trumps replay N takes
    storage.save_unfinished(storage.Unfinished("3.txt", "easy", 1, 0, (0, 0)))
    assert history_rows(storage.record_paths())[2].result == "unfinished, resumable"
    assert cli_main.main(["history"]) == 0
    out = capsys.readouterr().out
    assert "AI (hard)" in out and "3 games in" in out  # as stats counts them
    assert "1 unreadable file, listed above, is not counted." in out
    assert "4.txt is damaged: line 2: the start position is wrong" in " ".join(out.split())  # whole
    assert "Game 3 is unfinished: 'trumps play' continues it." in out


def test_unreadable_records_are_said_in_the_players_words(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22, items 8/9: the engine's reason stayed English under ``--lang uk`` ("line 1: not a
    game record: the first line must be …") and was worded unlike the unreadable file next to it
    ("X is not a saved game: it is not text"); now each is a sentence naming the file, translated
    (Italian here: Latin letters)."""
    from cli import i18n
    from cli.record_words import record_reason
    from engine import RecordError

    monkeypatch.setenv("COLUMNS", "200")
    storage.write_atomic(storage.games_dir() / "1.txt", "hello\n")
    (storage.games_dir() / "2.txt").write_bytes(b"\xff\xfe")
    bad_move = finished_game().to_record().replace("\n1. ", "\n2. ", 1)
    storage.write_atomic(storage.games_dir() / "3.txt", bad_move)
    try:
        assert cli_main.main(["--lang", "it", "history"]) == 0
        out = capsys.readouterr().out
        assert "1.txt non è una partita salvata: la prima riga non è '# Your trumps game record'" in out
        assert "2.txt non è una partita salvata: non è testo" in out
        assert str(storage.games_dir()) not in out  # each file by its name, the folder at the foot
        assert "3.txt è danneggiato: riga " in out
        assert "line" not in out and "not a" not in out
        assert cli_main.main(["--lang", "it", "replay", "1.txt"]) == 1
        said = capsys.readouterr().err
        assert "la prima riga non è" in said and "first line" not in said
        # each damage the engine names is matched by the table (a wording it does not know stays English)
        i18n.use("uk")
        records = ("", "# Your trumps game record\nStart: x\n", "# Your trumps game record\nx\n", bad_move)
        for text in (*records, "# Your trumps game record\nA: 1\nA: 2\n", finished_game().to_record() + "x\n"):
            with pytest.raises(RecordError) as raised:
                Game.from_record(text)
            assert record_reason(raised.value) != str(raised.value)
        start = "# Your trumps game record\nStart: 6S7S/8S/- SH 0\nResult: *\n\n1. "
        for move in ("2S", "7S,7S", "6S,7S,8S", "take", "8S"):  # why the move is wrong, too
            with pytest.raises(RecordError) as raised:
                Game.from_record(start + move + "\n")
            english = {"not", "hold", "beat", "must", "pile", "card", "twice", "write", "legal"}
            assert not english & set(re.findall("[a-z]+", record_reason(raised.value))), raised.value
    finally:
        i18n.use("en")


RECORD_DAMAGES = [
    ("pickup=forced", "pickup=never"),
    ("pickup=forced", "speed=fast"),
    ("sixes=on", "sixes=yes"),
    ("max_moves=1000", "max_moves=many"),
    ("max_moves=1000", "max_moves=0"),
    ("/- SH 1\n", "/- SH\n"),
    ("/- SH 1\n", " SH 1\n"),
    ("Start: 6S", "Start: 7S"),
    ("/- SH 1\n", "/- SH 3\n"),
    ("/- SH 1\n", "/- SHD 1\n"),
    ("/- SH 1\n", "/- SX 1\n"),
    ("/- SH 1\n", "/- SS 1\n"),
    ("Start: 6S", "Start: 6"),
    ("Start: 6S", "Start: 1S"),
    ("/- SH 1\n", "/7 SH 1\n"),
    ("Seed: 00", "Seed: zz"),
    ("Dealer: 0", "Dealer: x"),
    ("Dealer: 0", "Dealer: 2"),
    ("Trumps: SH", "Trumps: SS"),
]
"""Damage done to a record's ``Rules:`` header, its start position and its deal headers: each is
``(text, what replaces it)``, and each makes the engine refuse the record in its own words."""
NOTATION_WORDS = {"Seed", "Dealer", "Trumps", "Rules", "Start", "SH", "pickup", "sixes", "max_moves"}
"""Words a translated reason may keep: header names, rule options and the record's notation."""


@pytest.mark.parametrize(("old", "new"), RECORD_DAMAGES, ids=[new for _, new in RECORD_DAMAGES])
def test_every_damage_to_the_start_is_said_in_the_players_words(old: str, new: str) -> None:
    """Issue 22: under ``--lang uk`` a wrong ``Rules:`` header, start position or deal header was
    said in the engine's English (``line 7: start position: the turn must be 0 or 1, not '3'``);
    now no English word is left once the record's own values (quoted) are taken away."""
    from cli import i18n
    from cli.record_words import record_reason
    from engine import RecordError

    record = finished_game().to_record()
    assert old in record
    with pytest.raises(RecordError) as raised:
        Game.from_record(record.replace(old, new, 1))
    i18n.use("uk")
    try:
        reason = record_reason(raised.value)
    finally:
        i18n.use("en")
    unquoted = re.sub(r"'[^']*'|\b[6-9TJQKA][SHDC]\b|hand0/hand1/pile", "", reason)
    assert not set(re.findall(r"[A-Za-z_]{2,}", unquoted)) - NOTATION_WORDS, (str(raised.value), reason)


# ---------------------------------------------------------------------- replay


def test_replay_and_analyze_take_the_number_history_gives(
    homes: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22, item 8: at 60 columns the history cut file names (``…-12-01T18-17-56Z.txt``)
    and ``trumps replay FILE`` then failed; each game has a number that both commands take."""
    for name in ("2026-11-30T10-00-00Z.txt", "2026-11-30T11-00-00Z.txt"):
        storage.write_atomic(storage.games_dir() / name, finished_game().to_record())
    assert cli_main.main(["analyze", "2", "--nodes", "100"]) == 0  # which game, not how well
    assert (storage.games_dir() / "2026-11-30T11-00-00Z.txt.analysis.json").exists()  # game 2's record
    capsys.readouterr()
    assert cli_main.main(["replay", "1"]) == 2  # found and read: only the missing terminal stops it
    assert "needs a terminal" in capsys.readouterr().err
    assert cli_main.main(["replay", "3"]) == 1
    assert capsys.readouterr().err == "trumps replay: there is no game 3: trumps history numbers the games 1 to 2\n"
    monkeypatch.setenv("COLUMNS", "60")
    assert cli_main.main(["history"]) == 0
    out = capsys.readouterr().out
    assert all(len(line) <= 60 for line in out.split("\n\n")[0].splitlines())
    assert [line.split()[0] for line in out.splitlines()[:3]] == ["#", "1", "2"]


def test_history_footer_breaks_between_words(
    homes: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22, item 7 in the history: at 80 columns the terminal broke the footer itself,
    ``…trumps analyze NUMB`` / ``ER.``; every line the command prints fits the width."""
    storage.write_atomic(storage.games_dir() / "2026-11-30T10-00-00Z.txt", finished_game().to_record())
    for columns in (60, 80):
        monkeypatch.setenv("COLUMNS", str(columns))
        assert cli_main.main(["history"]) == 0
        lines = capsys.readouterr().out.splitlines()
        folder = str(storage.data_dir())  # a word longer than the line stands alone
        assert all(len(line) <= columns for line in lines if folder not in line), lines
        assert "trumps analyze NUMBER." in " ".join(lines)  # broken at spaces only


def test_errors_are_one_plain_sentence(homes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Item 9: ``'utf-8' codec can't decode byte 0xff…``; ``line 1: not JSON`` for FILE#3 of a game
    saved from the screen."""
    binary = storage.games_dir() / "2026-11-30T10-00-00Z.txt"
    storage.write_atomic(binary, "x")
    binary.write_bytes(b"# Your trumps\xff\xfe")
    assert cli_main.main(["replay", binary.name]) == 1
    assert capsys.readouterr().err == f"trumps replay: {binary} is not a saved game: it is not text\n"
    screen = storage.games_dir() / "2026-11-30T11-00-00Z.txt"
    storage.write_atomic(screen, finished_game().to_record())
    assert cli_main.main(["analyze", f"{screen.name}#3"]) == 1
    err = capsys.readouterr().err
    assert err == (
        f"trumps analyze: {screen.name} is a game saved from the screen, the only game in it: name it without #3\n"
    )


def test_replay_refuses_a_missing_or_corrupt_file(homes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["replay", str(homes / "nope.txt")]) == 1
    # one plain sentence, naming the file once: no "[Errno 2] No such file or directory: '…'"
    assert capsys.readouterr().err == f"trumps replay: there is no file {homes / 'nope.txt'}\n"
    bad = homes / "bad.txt"
    bad.write_text(finished_game().to_record().replace("1. ", "1. ZZ"))
    assert cli_main.main(["replay", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "line" in err and "Traceback" not in err


def test_replay_steps_through_a_game_with_the_arrow_keys() -> None:
    game = finished_game()
    keys = ("\x1b[C", "\x1b[C", "\x1b[D", "\x1b[F", "\x1b[H", "\x1b[6~", "\x1b[F")
    seen = replay_screens(Replay(game, "1.txt"), keys)
    steps = [found.group(1) if (found := re.search(r"Move (\d+) of", screen)) else "0" for screen in seen]
    total = len(game.moves)
    assert steps[1:7] == ["1", "2", "1", str(total), "0", str(min(10, total))]
    assert "The deal" in seen[0] and "You · trump ♠" in seen[0] and "AI (hard) · trump ♥" in seen[0]
    assert f"Move {total} of {total}" in seen[-1] and "Result:" in seen[-1]


def test_the_replay_title_fits_the_window_dropping_the_file_name_first() -> None:
    game = finished_game()
    result = Replay(game, "").result_words()
    assert "-" not in result and result.endswith(")")  # in words: "You won (out)", not "1-0 out"
    titles = [replay_screens(Replay(game, name), [])[0].splitlines()[0] for name in ("1.txt", "2026-12-01T13-55-53Z.txt")]
    short, long = titles
    assert short.startswith(" Replay │ You vs AI (hard) │ ") and short.endswith(f" │ {result} │ 1.txt")
    assert long.endswith(f" │ {result}") and "2026-12-01T13" not in long  # cut before: '…13-55-53Z.t'
    assert len(long) <= 80 and game.headers["Date"][:16] in long
    unfinished = Game.from_deal(bytes(32), 0, "SH", Players="You vs AI (hard)", Date="2026-11-30 10:02:11 UTC")
    seen = replay_screens(Replay(unfinished, "2.txt"), ["\x1b[F"])
    assert seen[0].splitlines()[0].endswith("│ unfinished │ 2.txt") and "Result: unfinished" in seen[1]


def test_the_replay_in_a_window_too_small_says_so_in_whole_words() -> None:
    (screen,) = replay_screens(Replay(finished_game(), "1.txt"), [], size=(40, 12))
    note = "Window too small for the replay: at least 60x20 please (q quits)."
    assert " ".join(screen.split()) == note and all(len(row) <= 40 for row in screen.splitlines())


@pytest.mark.net
@pytest.mark.parametrize("command", ["history", "stats", "--help"])
def test_a_reader_that_stops_reading_gets_no_traceback(homes: Path, command: str) -> None:
    for number in range(30):
        storage.write_atomic(storage.games_dir() / f"{number}.txt", finished_game().to_record())
    read, write = os.pipe()
    os.close(read)  # like 'trumps history | head -0': the pipe is closed before anything is written
    try:
        done = subprocess.run(
            [sys.executable, "-m", "cli", command], stdout=write, stderr=subprocess.PIPE, text=True, timeout=60
        )
    finally:
        os.close(write)
    assert done.stderr == "" and done.returncode in (0, 141), done.stderr


def test_the_version_matches_the_installed_package() -> None:
    from importlib.metadata import version

    import cli

    assert cli.__version__ == version("your-trumps")


def test_records_list_in_the_order_they_were_made(homes: Path) -> None:
    names = []
    for _ in range(12):
        path = storage.new_record_path()
        storage.write_atomic(path, "x")
        names.append(path.name)
    assert [p.name for p in storage.record_paths()] == names


def test_replay_finds_a_record_by_its_history_name(capsys: pytest.CaptureFixture[str]) -> None:
    storage.write_atomic(storage.games_dir() / "1.txt", finished_game().to_record())
    assert cli_main.main(["replay", "1.txt"]) == 2  # found and read; only the terminal is missing here
    assert "needs a terminal" in capsys.readouterr().err


def test_the_player_name_is_asked_once_and_remembered() -> None:
    answers = iter(["", "x" * 30, "  Ann  Lee "])
    asked: list[int] = []

    def ask() -> str:
        asked.append(1)
        return next(answers)

    told: list[str] = []
    assert config.player_name(ask, told.append) == "Ann Lee" and len(asked) == 3
    assert told == [  # each refusal says why before the question comes again
        "A name is needed to play a friend: type one, then Enter.",
        "That name is too long: at most 20 characters.",
    ]
    assert config.player_name(ask) == "Ann Lee" and len(asked) == 3  # remembered: not asked again
    assert config.load_config()["name"] == "Ann Lee"


def test_a_command_s_bad_option_gets_that_command_s_usage(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, usage in (
        (["play", "--bogus"], "trumps play"),
        (["--bogus"], "trumps play"),
        (["history", "-x"], "trumps history"),
    ):
        with pytest.raises(SystemExit) as exit:
            cli_main.main(argv)
        err = capsys.readouterr().err
        assert (
            exit.value.code == 2
            and err.startswith(f"usage: {usage} ")
            and f"{usage}: error: unrecognized" in err
        )


def test_play_options_read_levels_games_and_suits_as_host_does(monkeypatch: pytest.MonkeyPatch) -> None:
    from cli.options import trump_suits

    screens = started_screens(monkeypatch)
    assert (
        cli_main.main(["play", "--level", "Hard", "--games", "99", "--trump", "♤", "--pickup", "Voluntary"])
        == 0
    )
    screen = screens[-1]
    assert screen.flow.opponent.name == "AI (hard)" and screen.flow.match.games == 99 and screen.trump == "S"
    assert screen.flow.rules.pickup == "voluntary"
    for text in ("♠", "♤", "s", " S "):
        assert trump_suits(text, most=1) == "S" == trump_suits(text)
    assert trump_suits("♤♡") == "SH"
    for argv in (["--games", "100"], ["--trump", "SH"], ["--trump", "♤♤"]):
        with pytest.raises(SystemExit):
            cli_main.main(["play", *argv])


def test_replay_without_a_file_opens_the_last_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["replay"]) == 1
    assert "no saved game yet" in capsys.readouterr().err
    storage.write_atomic(storage.new_record_path(), finished_game().to_record())
    assert cli_main.main(["replay"]) == 2  # found and read; only the terminal is missing here
    assert "needs a terminal" in capsys.readouterr().err


def decisive_game(players: str) -> Game:
    """A game played out at random until someone won."""
    for seed in range(100):
        rng = random.Random(seed)
        game = Game.from_deal(bytes([seed]) * 32, 0, "SH", Players=players)
        while game.result is None:
            game.play(rng.choice(game.position.legal_moves()))
        if game.result.winner is not None:
            return game
    raise AssertionError("no decisive game")


def test_stats_count_each_opponent_and_level(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["stats"]) == 0
    assert "No saved games yet" in capsys.readouterr().out
    games = [
        decisive_game("You vs AI (hard)"),
        decisive_game("AI (hard) vs You"),
        finished_game("bob vs You"),  # a draw by repetition
        Game.from_deal(bytes(32), 1, "DC", Players="You vs AI (easy)"),  # unfinished
    ]
    for number, game in enumerate(games):
        storage.write_atomic(storage.games_dir() / f"{number}.txt", game.to_record())
    storage.write_atomic(storage.games_dir() / "9.txt", "# Your trumps game record\nStart: nonsense\n")
    hard_won = sum(1 for g, me in ((games[0], 0), (games[1], 1)) if g.result and g.result.winner == me)
    assert cli_main.main(["stats"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["Opponent", "Level", "Games", "Won", "Lost", "Drawn", "Unfinished"]  # no claims
    assert lines[1].split() == ["AI", "hard", "2", str(hard_won), str(2 - hard_won), "0", "0"]
    assert {tuple(line.split()) for line in lines[2:4]} == {
        ("AI", "easy", "1", "0", "0", "0", "1"),
        ("bob", "1", "0", "0", "1", "0"),
    }
    assert lines[4].split() == ["All", "4", str(hard_won), str(2 - hard_won), "1", "1"]


def test_the_theme_is_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    screens = started_screens(monkeypatch)
    assert cli_main.main(["play"]) == 0 and screens[-1].display.theme == "standard"
    assert (
        cli_main.main(["play", "--theme", "High-Contrast"]) == 0
        and screens[-1].display.theme == "high-contrast"
    )
    assert config.load_config()["theme"] == "high-contrast"
    assert cli_main.main(["play"]) == 0 and screens[-1].display.theme == "high-contrast"
