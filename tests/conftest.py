"""Shared fixtures: where the conformance vectors and the spec live."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TRUMPS_SHARED", REPO.parent / "shared"))


@pytest.fixture(scope="session")
def vectors_dir() -> Path:
    path = SHARED / "vectors"
    if not path.is_dir():
        pytest.fail(f"conformance vectors not found at {path}: set TRUMPS_SHARED to shared/")
    return path


@pytest.fixture(autouse=True)
def temporary_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real user's files: a remembered ``--lang``, saved games or keys
    there would change what the commands print. Nor does the tester's locale choose the language:
    the tests expect English unless they ask for another. Tests that need their own set it after this."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
