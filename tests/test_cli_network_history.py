"""``trumps history`` and ``trumps replay`` cover network matches: the signed match records of
headless bot duels are listed game by game, and ``FILE#N`` replays game N of one."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from cli import storage
from cli.cells import cell_width
from cli.history import Row, history_rows, match_record_paths, network_games, table_lines
from cli.home import Home
from cli.main import main
from engine import Game, Rules
from p2p.handshake import Session, Terms
from p2p.record import verify
from tests.support.peers import Side, bot_duel, run
from tests.test_p2p_evidence import handshake_session, play


@pytest.fixture(scope="module")
def match_record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    host_report, _ = run(bot_duel(tmp_path_factory.mktemp("duel"), games=2, seed=5))
    return Path(host_report.record)


@pytest.fixture
def home_with_match(match_record: Path) -> Path:
    folder = Home.default().records
    folder.mkdir(parents=True)
    return Path(shutil.copy(match_record, folder))


def test_history_lists_each_game_of_a_network_match(
    home_with_match: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert match_record_paths() == [home_with_match]
    rows = history_rows([], match_record_paths())
    assert [row.file for row in rows] == [f"{home_with_match.name}#1", f"{home_with_match.name}#2"]
    assert {row.opponent for row in rows} == {"bob"}  # the host, ann, saved it
    assert all(row.result.split()[0] in ("won", "lost", "draw") for row in rows)
    assert main(["history"]) == 0  # 80 columns: bob's record names fit whole
    out = capsys.readouterr().out
    heading, first, second = out.splitlines()[:3]
    assert first.startswith("1 ") and second.startswith("2 ") and "2 games in" in out  # numbered
    if "File" in heading:  # it fits (the year gave way first): whole, never cut
        assert second.endswith(f"  {home_with_match.name}#2")


def test_a_game_saved_by_the_interface_too_is_listed_once(home_with_match: Path, tmp_path: Path) -> None:
    copy = tmp_path / "same.txt"
    copy.write_text(network_games(home_with_match)[0].game.to_record())
    rows = history_rows([copy], [home_with_match])
    assert [row.file for row in rows] == ["same.txt", f"{home_with_match.name}#2"]


def test_replay_finds_game_n_of_a_match_record(
    home_with_match: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Found and read: only the missing terminal stops the viewer (exit 2, not 1).
    assert main(["replay", f"{home_with_match.name}#2"]) == 2
    assert "needs a terminal" in capsys.readouterr().err
    assert main(["replay", f"{home_with_match.name}#7"]) == 1
    assert "holds games 1 to 2, not '7'" in capsys.readouterr().err


def test_a_damaged_match_record_is_named_not_fatal(
    home_with_match: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home_with_match.write_text(home_with_match.read_text().replace('"by": 0', '"by": 5', 1))
    rows = history_rows([], [home_with_match])
    assert not rows[0].readable and rows[0].file == home_with_match.name
    assert main(["replay", home_with_match.name]) == 1
    assert "cannot be replayed" in capsys.readouterr().err


# ------------------------------------------------ forfeits, the table's width, what it loads


@pytest.fixture(scope="module")
def duelists(tmp_path_factory: pytest.TempPathFactory) -> tuple[Side, Side, Session]:
    root = tmp_path_factory.mktemp("keys")
    ann, bob = Side.make(root, "ann"), Side.make(root, "bob")
    return ann, bob, handshake_session(ann, bob, Terms(Rules(), 2))


def _awarding(duelists: tuple[Side, Side, Session], folder: Path, winner: int) -> Path:
    """ann's record of a match stopped in game 1 after a dozen links, its note awarding game 1."""
    ann, bob, session = duelists
    path = play(session, (ann.me.key, bob.me.key), folder, links=12)
    note = {"end": "forfeit", "detail": "bob stayed away", "by": 1 - winner, "game": 1, "winner": winner}
    with path.open("a") as file:
        file.write(json.dumps(note) + "\n")
    return path


@pytest.mark.parametrize(("winner", "result"), [(0, "won by forfeit"), (1, "lost by forfeit")])
def test_a_game_awarded_by_forfeit_says_so(
    duelists: tuple[Side, Side, Session], tmp_path: Path, winner: int, result: str
) -> None:
    record = _awarding(duelists, tmp_path, winner)
    (row,) = history_rows([], [record])
    assert row.result == result and row.file == f"{record.name}#1" and row.opponent == "bob"
    interface_copy = tmp_path / "same.txt"  # the full screen saved the same game, unfinished
    interface_copy.write_text(network_games(record)[0].game.to_record())
    (row,) = history_rows([interface_copy], [record])
    assert row.result == result and row.file == "same.txt"


def test_a_forfeit_of_a_played_game_replaces_its_result_in_history_and_stats(
    duelists: tuple[Side, Side, Session], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/protocol.md, "The game a forfeit awards": ann's record holds game 1 over (bob's link
    ended it after his last), and her claim of his absence awards game 1: that, not its played
    result, is what history and stats count."""
    ann, bob, session = duelists
    whole = play(session, (ann.me.key, bob.me.key), tmp_path)
    lines = whole.read_text().splitlines(keepends=True)
    kept = 1 + verify("".join(lines)).match.results[0].links  # the header, then game 1's links
    folder = Home.default().records
    folder.mkdir(parents=True)
    path = folder / whole.name
    path.write_text("".join(lines[:kept]))
    note = {"end": "forfeit", "detail": "bob stayed away", "by": 1, "game": 1, "winner": 0}
    with path.open("a") as file:
        file.write(json.dumps(note) + "\n")
    (row,) = history_rows([], [path])
    assert row.result == "won by forfeit" and row.file == f"{path.name}#1"
    assert main(["stats"]) == 0
    bob_line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("bob"))
    assert bob_line.split() == ["bob", "1", "0", "1", "0", "0", "0"]  # claimed, not won, drawn or lost


@pytest.mark.parametrize(
    ("winner", "counts"), [(0, ["1", "0", "1", "0", "0", "0"]), (1, ["1", "0", "1", "0", "0"])]
)  # games, won, [claimed: our own record's award, apart from signed wins, when any], lost, drawn, unfinished
def test_stats_count_a_forfeit_as_history_does_when_the_screen_saved_the_game_too(
    duelists: tuple[Side, Side, Session], capsys: pytest.CaptureFixture[str], winner: int, counts: list[str]
) -> None:
    folder = Home.default().records
    folder.mkdir(parents=True)
    record = _awarding(duelists, folder, winner)
    storage.write_atomic(storage.games_dir() / "same.txt", network_games(record)[0].game.to_record())
    assert main(["history"]) == 0 and main(["stats"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len([line for line in out if " by forfeit " in line]) == 1  # the game once, awarded
    assert next(line for line in out if line.startswith("bob")).split() == ["bob", *counts]  # not unfinished


def test_stats_with_a_claimed_column_fit_60_columns(
    duelists: tuple[Side, Side, Session], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22, item 7 (wrap, never cut): the extra column of claims made the table 61 cells
    wide, and a 60-column terminal broke "Unfinished" in two; the columns then close up."""
    monkeypatch.setenv("COLUMNS", "60")
    folder = Home.default().records
    folder.mkdir(parents=True)
    _awarding(duelists, folder, 0)
    assert main(["stats"]) == 0
    table = capsys.readouterr().out.split("\n\n")[0].splitlines()
    assert "Claimed" in table[0] and max(map(len, table)) <= 60


def _rows_of_every_kind(duelists: tuple[Side, Side, Session], folder: Path) -> list[Row]:
    games = folder / "games"
    games.mkdir()
    played = Game.from_deal(
        bytes(32), 0, "SH", Rules(), Players="You vs AI (expert)", Date="2026-11-30 10:15 UTC"
    )
    while played.result is None:
        played.play(played.position.legal_moves()[0])
    (games / "2026-11-30T10-15-00Z.txt").write_text(played.to_record())
    (games / "2026-11-30T10-16-00Z.txt").write_text("# Your trumps game record\n" + "garbage " * 40)
    matches = folder / "matches"
    matches.mkdir()
    record = _awarding(duelists, matches, 0)
    damaged = matches / "20261130T101700Z-a-very-long-peer-name-ab12cd34.jsonl"
    damaged.write_text(record.read_text().replace('"by": 0', '"by": 5', 1))
    return history_rows(sorted(games.iterdir()), sorted(matches.iterdir()))


def _file_column(line: str) -> int:
    """The cell where the file column starts: after the last run of two spaces."""
    return cell_width(line[: line.rindex("  ") + 2])


@pytest.mark.parametrize("width", [60, 80, 100, 132])
def test_the_table_fits_the_terminal_with_aligned_columns(
    duelists: tuple[Side, Side, Session], tmp_path: Path, width: int
) -> None:
    rows = _rows_of_every_kind(duelists, tmp_path)
    games = [row for row in rows if row.readable]
    assert max(len(row.result) for row in rows) > 150  # the damaged game file's error
    lines = table_lines(rows, width)
    table, damaged = lines[: len(games) + 1], lines[len(games) + 1 :]
    assert all(cell_width(line) <= width for line in lines), lines
    assert [line.split()[0] for line in table] == ["#", "1", "2"]  # the number trumps replay takes
    assert table[0].split()[:5] == ["#", "Date", "Opponent", "Result", "Moves"]
    if "File" in table[0]:  # every column lines up, the file name whole
        assert len({_file_column(line) for line in table}) == 1, lines
        assert all(line.endswith(row.file) for row, line in zip(games, table[1:], strict=True))
    assert ("File" in table[0]) == (width >= 100)
    assert all("…" not in line for line in damaged)  # an unreadable file and why, whole
    said = " ".join(line.strip() for line in damaged)
    assert said.count("unreadable: ") == len(rows) - len(games)
    assert all(f"unreadable: {row.file}" in said for row in rows if not row.readable)  # each named
    wide = table_lines(rows, 1000)  # the file shows where it fits
    assert all(
        f" {row.result} " in line and line.endswith(row.file) for row, line in zip(games, wide[1:], strict=False)
    )
    assert any(line.endswith(".jsonl#1") for line in wide)


def test_history_uses_the_terminal_width(
    duelists: tuple[Side, Side, Session], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    data = Path(os.environ["XDG_DATA_HOME"]) / "trumps"
    data.mkdir(parents=True)
    _rows_of_every_kind(duelists, data)
    monkeypatch.setenv("COLUMNS", "72")
    assert main(["history"]) == 0
    table = capsys.readouterr().out.split("\n\n")[0].splitlines()
    assert table[0].startswith("#") and all(cell_width(line) <= 72 for line in table)


_LOADED = """
import sys
from cli.main import main
main(["history"])
print(" ".join(sorted(m for m in ("prompt_toolkit", "prompt_toolkit.application", "cryptography") if m in sys.modules)))
"""


@pytest.mark.net
def test_history_loads_no_interface_and_no_cryptography_it_does_not_need(
    duelists: tuple[Side, Side, Session], tmp_path: Path
) -> None:
    data = tmp_path / "data" / "trumps"
    data.mkdir(parents=True)
    _rows_of_every_kind(duelists, data)
    env = os.environ | {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "c")}

    def loaded() -> str:
        done = subprocess.run(
            [sys.executable, "-c", _LOADED], capture_output=True, text=True, env=env, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()[-1]

    assert loaded() == "cryptography"  # match records are verified: their signatures need it
    shutil.rmtree(data / "matches")
    assert loaded() == ""  # game files alone: plain text, no prompt_toolkit, no cryptography


@pytest.mark.net
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_history_fits_a_real_80x24_terminal(duelists: tuple[Side, Side, Session], tmp_path: Path) -> None:
    """In tmux at 80x24 no line of the table wraps: each game is one screen line."""
    data = tmp_path / "data"
    (data / "trumps").mkdir(parents=True)
    rows = _rows_of_every_kind(duelists, data / "trumps")
    socket = f"trumps-history-{uuid.uuid4().hex[:12]}"
    env = f"XDG_DATA_HOME={data} XDG_CONFIG_HOME={tmp_path / 'config'} LANG=C.UTF-8"
    command = f"env {env} {shlex.quote(sys.executable)} -m cli history; sleep 30"
    tmux = ["tmux", "-L", socket]
    subprocess.run([*tmux, "new-session", "-d", "-x", "80", "-y", "24", "-c", str(Path.cwd()), command],
                   check=True, timeout=10)  # fmt: skip
    try:
        screen = ""
        for _ in range(200):
            screen = subprocess.run(
                [*tmux, "capture-pane", "-p"], capture_output=True, text=True, timeout=10
            ).stdout
            if "Replay one with" in screen:
                break
            time.sleep(0.05)
        lines = screen.rstrip("\n").split("\n")
        table = lines[: next(i for i, line in enumerate(lines) if line.startswith("unreadable: "))]
        games = [row for row in rows if row.readable]
        assert len(table) == len(games) + 1, screen  # the heading and one line per game: nothing wrapped
        assert table[0].split() == ["#", "Date", "Opponent", "Result", "Moves"]  # numbers, not cut names
        assert all(line.split()[0] == row.number for row, line in zip(games, table[1:], strict=True))
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=10)
