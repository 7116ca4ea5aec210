"""The wheel as ``pip install .`` builds it: the search compiled by mypyc where the machine can
(hatch_build.py), finding exactly what the pure source finds; pure where it cannot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support.differential import findings

pytestmark = pytest.mark.net  # pip and the compiler run as processes

ROOT = Path(__file__).resolve().parent.parent
POSITIONS = 2000


def build_wheel(out: Path, **environment: str) -> tuple[Path, str]:
    """The project's wheel built into ``out`` (as ``pip install .`` builds it), and pip's output."""
    run = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--verbose", "--wheel-dir", str(out), str(ROOT)],
        capture_output=True, text=True, timeout=900, env={**os.environ, **environment},
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    (wheel,) = out.glob("*.whl")
    return wheel, run.stdout + run.stderr


def unpacked(wheel: Path) -> Path:
    """The wheel's files, as they would lie under site-packages."""
    site = wheel.parent / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def run_from(site: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """``python -m tests.support.differential ARGUMENTS`` with the engine imported from ``site``."""
    return subprocess.run(
        [sys.executable, "-m", "tests.support.differential", *arguments],
        capture_output=True, text=True, timeout=600, cwd=site,
        env={**os.environ, "PYTHONPATH": os.pathsep.join((str(site), str(ROOT)))},
    )  # fmt: skip


def test_the_compiled_search_finds_what_the_source_finds(tmp_path: Path) -> None:
    """2000 positions (half small endgames, half from random games): the same proofs, searches, node
    counts and greedy moves, compiled and pure."""
    wheel, output = build_wheel(tmp_path)
    if wheel.name.endswith("-none-any.whl"):
        why = [line.strip() for line in output.splitlines() if "stays pure Python" in line]
        pytest.skip(f"this machine builds the pure wheel: {why}")
    site = unpacked(wheel)
    compiled = sorted(
        ".".join((*path.relative_to(site).parts[:-1], path.name.split(".")[0]))
        for path in (site / "engine").rglob("*.so")
    )
    assert {"engine.ai.proof", "engine.ai.search"} <= set(compiled)
    run = run_from(site, str(POSITIONS), *compiled)
    assert run.returncode == 0, run.stderr[-3000:]
    theirs, ours = json.loads(run.stdout), json.loads(json.dumps(findings(POSITIONS)))
    assert len(theirs) == len(ours) == POSITIONS
    differing = [(mine, compiled_one) for mine, compiled_one in zip(ours, theirs, strict=True) if mine != compiled_one]
    assert not differing, differing[:3]
    assert all(found[3] for found in theirs)  # every result came through pickle whole


def test_a_machine_without_a_compiler_gets_the_pure_wheel(tmp_path: Path) -> None:
    """The compiler fails (here: CC is ``false``): the wheel is pure Python, says why, and plays."""
    wheel, output = build_wheel(tmp_path, CC="false")
    assert wheel.name.endswith("-py3-none-any.whl")
    assert "the search stays pure Python (slower, the same moves)" in output
    site = unpacked(wheel)
    assert not list(site.rglob("*.so"))
    run = run_from(site, "20")
    assert run.returncode == 0, run.stderr[-3000:]
    assert json.loads(run.stdout) == json.loads(json.dumps(findings(20)))
