"""The real ``trumps host`` against a joiner written from ``docs/protocol.md`` alone
(``tests/interop_peer.py``): the handshake, the verification code, a whole match and a record that
``trumps verify`` calls complete. If the document and the code part ways, this fails."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import interop_peer

TRUMPS = [sys.executable, "-m", "cli"]
LIMIT = 20.0


def _env(home: Path) -> dict[str, str]:
    return os.environ | {
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "LANGUAGE": "en",
        "LC_ALL": "C.UTF-8",
    }


@pytest.mark.parametrize("games", [1, 2])
def test_a_joiner_written_from_the_document_plays_a_whole_match_with_the_real_host(
    tmp_path: Path, games: int
) -> None:
    host = subprocess.Popen(
        [*TRUMPS, "host", "--port", "0", "--bind", "127.0.0.1", "--no-map", "--bot", "easy", "--json",
         "--name", "ann", "--games", str(games), "--timeout", str(LIMIT)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(tmp_path), text=True,
    )  # fmt: skip
    try:
        assert host.stdout is not None
        invite = interop_peer.Invite.parse(host.stdout.readline().split("trumps join ", 1)[1])
        session, winners = interop_peer.join(invite, "bob", timeout=LIMIT)
        out, err = host.communicate(timeout=LIMIT)
    finally:
        host.kill()
    assert host.returncode == 0, err
    assert session.host_name == "ann" and session.seat == 1 and session.games == games == len(winners)
    codes = re.findall(r"Verification code: (\d{3} \d{3})", err)
    assert codes == [session.code], err
    summary = json.loads(out.splitlines()[-1])
    assert len(summary["result"]) == games
    record = Path(summary["record"])
    assert record.name.endswith(f"-bob-{session.session_id[:4].hex()}.jsonl")
    verified = subprocess.run(
        [*TRUMPS, "verify", str(record)], capture_output=True, text=True, env=_env(tmp_path), timeout=LIMIT
    )
    assert verified.returncode == 0 and "complete" in verified.stdout.lower(), verified.stdout + verified.stderr


def test_a_knock_without_the_secret_gets_the_one_invite_refusal(tmp_path: Path) -> None:
    host = subprocess.Popen(
        [*TRUMPS, "host", "--port", "0", "--bind", "127.0.0.1", "--no-map", "--bot", "easy", "--json",
         "--name", "ann"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(tmp_path), text=True,
    )  # fmt: skip
    try:
        assert host.stdout is not None
        real = interop_peer.Invite.parse(host.stdout.readline().split("trumps join ", 1)[1])
        wrong = interop_peer.Invite(real.addresses, real.fingerprint, bytes(20))
        with pytest.raises(interop_peer.HostAborted) as refused:
            interop_peer.join(wrong, "mallory", timeout=LIMIT)
        assert refused.value.reason == "invite"
    finally:
        host.kill()
        host.communicate(timeout=LIMIT)
