"""An analysis's searches on worker processes (cli.search_pool): the same verdicts as one after
another, and Ctrl-C stops ``trumps analyze`` with one line, no worker writing to the terminal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli.search_pool import search_pool
from engine import Game, Position
from engine.ai.analysis import analyze
from tests.test_cli_analyze import MOVES

pytestmark = pytest.mark.net


def _game() -> Game:
    game = Game(Position.from_notation("9HJHQHKD/TC/8H SH 0"), {"Players": "Ann vs Bob"})
    for move in MOVES:
        game.play(move)
    return game


def test_two_workers_give_the_verdicts_of_one_search_after_another() -> None:
    game = _game()
    with search_pool(workers=2) as searches:
        pooled = list(analyze(game, nodes=3_000, map_searches=searches))
    assert pooled == list(analyze(game, nodes=3_000))


def test_ctrl_c_stops_an_analysis_on_workers_with_one_line(tmp_path: Path) -> None:
    game = Game.from_deal(bytes(32), 0, "SH", Players="Ann vs Bob")
    while game.result is None and len(game.moves) < 60:
        game.play(game.position.legal_moves()[0])
    path = tmp_path / "long.txt"
    path.write_text(game.to_record(), encoding="utf-8")
    env = os.environ | {"XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "LANGUAGE": "en"}
    command = [sys.executable, "-m", "cli", "analyze", str(path), "--no-save", "--nodes", "200000"]
    analysis = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True
    )
    time.sleep(3)  # the workers are up and searching
    os.killpg(analysis.pid, signal.SIGINT)  # as Ctrl-C does: to the program and its workers
    out, err = analysis.communicate(timeout=60)
    assert analysis.returncode == 130
    assert err.startswith("trumps analyze: interrupted after ") and err.count("\n") == 1, err
    assert "Traceback" not in out + err
