"""A bot match across two network namespaces joined by a veth pair, with an impaired line that is
cut once mid-match (benchmarks/netem.py); skipped with the reason where namespaces are unavailable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.net

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "netem.py"


def _namespaces() -> set[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10).stdout
    return {line.split()[0] for line in listed.splitlines() if line.startswith("trumps-")}


def test_a_match_across_namespaces_survives_delay_jitter_and_a_cut() -> None:
    from benchmarks.netem import skip_reason

    reason = skip_reason()
    if reason is not None:
        pytest.skip(f"network namespaces unavailable: {reason}")
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--delay", "20", "--jitter", "5", "--games", "3", "--cuts", "1",
         "--cut-span", "1", "--patience", "20", "--limit", "60", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        out, err = process.communicate(timeout=90)
    finally:
        process.kill()
    assert process.returncode == 0, out + err
    report = json.loads(out.splitlines()[-1])
    assert report["end"] == "complete" and report["records_verify_complete"] and report["same_transcript"]
    assert report["reconnects"] == [1, 1]
    assert report["setup_until_first_deal_s"] > 0.04  # the delay really is on the line
    assert not {name for name in _namespaces() if name.startswith(f"trumps-{process.pid}-")}  # cleaned up
