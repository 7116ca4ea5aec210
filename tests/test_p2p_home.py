"""The identity key survives crashes and two first runs at once."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cli.home import Home
from p2p.files import write_atomically
from p2p.identity import load_identity


def test_two_first_runs_at_once_end_with_one_identity(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second run saw no key, then the first made one: the second must not overwrite it."""
    home = Home(tmp_path / "config", tmp_path / "data")
    first = load_identity(home.identity_file)
    real_exists = Path.exists
    monkeypatch.setattr(Path, "exists", lambda path: path != home.identity_file and real_exists(path))
    second = load_identity(home.identity_file)
    assert second.public == first.public
    assert home.identity_file.read_bytes() == first.key.private_bytes_raw()
    assert [p.name for p in home.config.iterdir()] == ["identity.key"]  # no temporary file left


def test_an_exclusive_write_never_replaces_and_every_write_syncs_the_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[bool] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(os.path.isdir(f"/proc/self/fd/{fd}") if os.path.exists("/proc/self/fd") else True)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    path = tmp_path / "key"
    write_atomically(path, b"one", exclusive=True)
    with pytest.raises(FileExistsError):
        write_atomically(path, b"two", exclusive=True)
    assert path.read_bytes() == b"one" and [p.name for p in tmp_path.iterdir()] == ["key"]
    write_atomically(path, b"three")
    assert path.read_bytes() == b"three"
    assert synced.count(True) == 2  # the directory, after the link and after the replace
