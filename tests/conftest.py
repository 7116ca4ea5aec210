"""Shared fixtures: where the conformance vectors live, and a private home for every test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
VECTORS = REPO / "tests" / "vectors" / "shared"
"""The repository's byte-identical copy of the conformance vectors (see tests/vectors/README.md)."""


@pytest.fixture(autouse=True)
def temporary_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test reads or writes the real user's files: a remembered ``--lang``, saved games or keys
    there would change what the commands print. Nor does the tester's locale choose the language:
    the tests expect English unless they ask for another (and get it back after one that asked).
    Tests that need their own set it after this."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    yield
    # A command run with --lang switches the process's language: the next test speaks English again.
    from cli import i18n

    i18n.use("en")
