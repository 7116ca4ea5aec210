"""``trumps analyze``: verdicts as text and JSON, bad records, Ctrl-C, progress only on a terminal."""

from __future__ import annotations

import argparse
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli import main as cli_main
from engine import Game, Position
from engine.ai.analysis import DOUBTFUL, ESTIMATED_MISTAKE, analyze
from tests.test_cli_coach import ESTIMATE_NODES, estimated_game

pytestmark = pytest.mark.usefixtures("no_fsync")  # saved at every move, never a power cut: see conftest

MOVES = ("QH,KD", "take", "9H", "QH,TC", "take", "KD", "take", "8H")  # QH,KD throws the win away


@pytest.fixture(autouse=True)
def homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path


@pytest.fixture
def record(tmp_path: Path) -> Path:
    game = Game(Position.from_notation("9HJHQHKD/TC/8H SH 0"), {"Players": "Ann vs Bob"})
    for move in MOVES:
        game.play(move)
    path = tmp_path / "lost.txt"
    path.write_text(game.to_record(), encoding="utf-8")
    return path


def test_the_verdicts_as_text(record: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["analyze", str(record), "--nodes", "20000"]) == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert len(lines) == len(MOVES) + 3 and err == ""  # no progress line when stderr is no terminal
    # cards as the screen writes them (Q♥ K♦, 10♣), never the notation's QH,KD
    assert lines[0].startswith("1. Ann: Q♥ K♦ — turned a win into a loss; better: ")
    assert lines[0].endswith("(proven)") and lines[1] == "2. Bob: take — forced"
    assert lines[2] == "3. Ann: 9♥ — lost already (proven)" and lines[-3] == "1 proven mistake"
    # and where the game was lost, proven
    assert re.fullmatch(
        r"Ann: The game was lost at move 1: Q♥ K♦ turned the win into a loss; .+ kept it \(proven\)\.", lines[-2]
    ), lines[-2]
    saved = record.with_name("lost.txt.analysis.json")
    assert lines[-1] == f"The analysis is saved as {saved}: 'trumps replay' shows it."


def test_the_saved_analysis_reads_back_for_the_replay(
    record: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.analysis_file import analysis_path, load_analysis

    assert cli_main.main(["analyze", str(record), "--json", "--nodes", "20000"]) == 0
    printed = json.loads(capsys.readouterr().out)
    game = Game.from_record(record.read_text(encoding="utf-8"))
    saved = load_analysis(analysis_path(str(record)), game)
    assert sorted(saved) == list(range(len(MOVES))) and saved[0].mistake and saved[1].kind == "forced"
    assert [str(saved[i].better) if saved[i].better else None for i in saved] == [
        m["better"] for m in printed["moves"]
    ]


def test_no_save_leaves_no_file_and_a_foreign_analysis_is_refused(
    record: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli import storage
    from cli.analysis_file import analysis_path, load_analysis

    assert cli_main.main(["analyze", str(record), "--no-save", "--nodes", "20000"]) == 0
    path = analysis_path(str(record))
    assert not path.exists() and "saved" not in capsys.readouterr().out
    game = Game.from_record(record.read_text(encoding="utf-8"))
    assert load_analysis(path, game) == {}
    path.write_text('{"moves": [{"number": 1, "move": "9H"}]}', encoding="utf-8")  # not QH,KD
    with pytest.raises(storage.StorageError, match="not an analysis of this game"):
        load_analysis(path, game)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(storage.StorageError, match="not an analysis of this game"):
        load_analysis(path, game)


def test_the_verdicts_as_json_for_one_player(record: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["analyze", str(record), "--json", "--player", "1", "--nodes", "20000"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["complete"] is True and [m["number"] for m in report["moves"]] == [2, 4, 6, 8]
    assert report["moves"][1] | {"better": None} == {
        "number": 4,
        "player": 1,
        "move": "QH,TC",
        "verdict": "kept",
        "proven": True,
        "before": "win",
        "after": "win",
        "better": None,
        "played_estimate": None,
        "best_estimate": None,
        "grade": None,
    }


def _with_nodes(game: Game, players: Any, nodes: int, **kwargs: Any) -> Iterator[Any]:
    return analyze(game, players, nodes=ESTIMATE_NODES, **kwargs)  # the game's grades at the test's budget


def test_estimated_mistakes_and_doubtful_moves_in_text_and_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import engine.ai.analysis

    game = estimated_game()
    game.headers["Players"] = "Ann vs Bob"
    path = tmp_path / "estimated.txt"
    path.write_text(game.to_record(), encoding="utf-8")
    verdicts = list(analyze(game, nodes=ESTIMATE_NODES))
    graded = {v.index: v.grade for v in verdicts if v.grade is not None}
    assert set(graded.values()) == {DOUBTFUL, ESTIMATED_MISTAKE}  # the game this test needs
    monkeypatch.setattr(engine.ai.analysis, "analyze", _with_nodes)
    assert cli_main.main(["analyze", str(path), "--no-save"]) == 0
    lines = capsys.readouterr().out.splitlines()
    labels = {DOUBTFUL: "doubtful (estimated): ", ESTIMATED_MISTAKE: "estimated mistake (not proven): "}
    for index, grade in graded.items():
        assert lines[index].split(" — ", 1)[1].startswith(labels[grade] + "after it ")
    assert not any(line.endswith("(proven)") for line in lines if "estimated" in line)
    proven = sum(v.mistake for v in verdicts)
    doubtful = sum(grade == DOUBTFUL for grade in graded.values())
    marks = next(line for line in reversed(lines) if "proven mistake" in line)  # then where it was lost
    assert marks.startswith(f"{proven} proven mistake") and marks.endswith(
        f", {doubtful} doubtful move{'s' * (doubtful > 1)} (estimated)"
    )
    assert cli_main.main(["analyze", str(path), "--no-save", "--json"]) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]
    assert [m["grade"] for m in moves] == [v.grade for v in verdicts]


def test_the_verdicts_speak_the_players_language(record: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main.main(["analyze", str(record), "--nodes", "20000", "--lang", "uk"]) == 0
    assert "виграш перетворено на програш" in capsys.readouterr().out


def test_a_missing_or_corrupt_record_is_refused_in_one_line(
    homes: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main.main(["analyze", str(homes / "nope.txt")]) == 1
    bad = homes / "bad.txt"
    bad.write_text("# Your trumps game record\nStart: 6S/7S/- SH 0\nResult: *\n\n1. 7S\n", encoding="utf-8")
    assert cli_main.main(["analyze", str(bad)]) == 1
    assert cli_main.main(["analyze", f"{bad}#2"]) == 1
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(lines) == 3 and all(line.startswith("trumps analyze: ") for line in lines)
    assert "line 5" in lines[1] and "Traceback" not in err


def _interrupted(*args: Any, **kwargs: Any) -> Iterator[Any]:
    yield next(analyze(*args, **kwargs))
    raise KeyboardInterrupt


def test_ctrl_c_stops_cleanly_with_one_line(
    record: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import engine.ai.analysis

    monkeypatch.setattr(engine.ai.analysis, "analyze", _interrupted)
    assert cli_main.main(["analyze", str(record), "--nodes", "20000"]) == 130
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 1 and err == "trumps analyze: interrupted after 1 of 8 moves\n"
    assert cli_main.main(["analyze", str(record), "--json", "--nodes", "20000"]) == 130
    report = json.loads(capsys.readouterr().out)
    assert report["complete"] is False and len(report["moves"]) == 1


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_progress_line_on_a_terminal_only(record: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert cli_main.main(["analyze", str(record), "--json", "--nodes", "20000"]) == 0
    shown = terminal.getvalue()
    assert "\ranalyzing: 0 of 8 moves done" in shown and "\ranalyzing: 8 of 8 moves done" in shown
    assert shown.endswith("\r\033[K")  # cleared before the answer


def test_the_same_game_analysed_twice_gets_the_same_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 23: the budget is nodes, not seconds, so a saved or shown verdict never depends on how
    # busy the machine was (at 0.5 s a position, 48 of a 166-move game's 166 verdicts differed).
    from cli.commands import analyze as command
    from cli.options import ANALYSIS_NODES

    parser = argparse.ArgumentParser()
    command.add_arguments(parser)
    assert parser.parse_args(["RECORD"]).nodes == ANALYSIS_NODES
    path = tmp_path / "estimated.txt"
    path.write_text(estimated_game().to_record(), encoding="utf-8")
    outputs = []
    for _ in range(2):
        assert cli_main.main(["analyze", str(path), "--json", "--nodes", str(ESTIMATE_NODES)]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1] and outputs[0]["complete"]
    assert any(move["verdict"] == "estimated" for move in outputs[0]["moves"])  # not only proofs
