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
