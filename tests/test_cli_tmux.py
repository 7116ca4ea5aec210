"""A whole game in a real terminal: tmux, Tab and Enter until it ends, then the saved record."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from engine import Game

pytestmark = [pytest.mark.net, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")]

REPO = Path(__file__).resolve().parent.parent
SEED = "1b1b1b1b"  # a short game against the easy AI, so the test stays quick


def test_tab_enter_plays_a_whole_game_in_tmux(tmp_path: Path) -> None:
    socket = f"trumps-test-{uuid.uuid4().hex[:12]}"

    def tmux(*args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", socket, *args], capture_output=True, text=True, check=True, timeout=10
        ).stdout

    command = shlex.join(
        [
            "env",
            f"XDG_DATA_HOME={tmp_path / 'data'}",
            f"XDG_CONFIG_HOME={tmp_path / 'config'}",
            sys.executable,
            "-m",
            "cli",
            "--level",
            "easy",
            "--seed",
            SEED,
        ]
    )
    tmux("new-session", "-d", "-s", "game", "-x", "80", "-y", "24", "-c", str(REPO), command + "; sleep 30")
    try:
        screen = ""
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            screen = tmux("capture-pane", "-p", "-t", "game")
            if "★" in screen:
                break
            if "Your trump suit?" in screen or "Your turn" in screen or "Enter takes" in screen:
                tmux("send-keys", "-t", "game", "Tab", "Enter")
            time.sleep(0.05)
        assert "★" in screen, screen
        assert "Score: You" in screen and "F1 Help" in screen
        tmux("send-keys", "-t", "game", "C-q")  # the game is over: no confirmation
        time.sleep(0.5)
        assert "F1 Help" not in tmux("capture-pane", "-p", "-t", "game")
        records = list((tmp_path / "data" / "trumps" / "games").glob("*.txt"))
        assert len(records) == 1
        game = Game.from_record(records[0].read_text())
        assert game.result is not None and game.headers["Seed"] == SEED
        assert "Window too small" not in screen
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=10)
