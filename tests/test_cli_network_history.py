"""``trumps history`` and ``trumps replay`` cover network matches: the signed match records of
headless bot duels are listed game by game, and ``FILE#N`` replays game N of one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cli.history import history_rows, match_record_paths, network_games
from cli.home import Home
from cli.main import main
from tests.test_p2p_helpers import bot_duel, run


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
    assert main(["history"]) == 0
    out = capsys.readouterr().out
    assert f"{home_with_match.name}#2" in out and "2 games in" in out


def test_a_game_saved_by_the_interface_too_is_listed_once(home_with_match: Path, tmp_path: Path) -> None:
    _, game, _ = network_games(home_with_match)[0]
    copy = tmp_path / "same.txt"
    copy.write_text(game.to_record())
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
    assert rows[0].result.startswith("unreadable:") and rows[0].file == home_with_match.name
    assert main(["replay", home_with_match.name]) == 1
    assert "cannot be replayed" in capsys.readouterr().err
