"""``trumps host`` / ``trumps join --bot`` as separate processes: a cut line resumes by itself, and a
peer killed mid-match leaves both sides a record that verifies, up to where it stopped (its restart
is tests/test_p2p_restart.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import signal
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from p2p.invite import Invite
from p2p.record import verify
from tests.support.lines import Fault, FaultyLine
from tests.support.programs import PROGRAM_LIMIT, TRUMPS, host_program, join_program, outcome, program_env

pytestmark = pytest.mark.net

def test_headless_bots_resume_after_the_line_is_cut(tmp_path: Path) -> None:
    async def scenario() -> list[tuple[int, dict[str, object], str]]:
        host, invite = await host_program(tmp_path, "--games", "3", "--timeout", "20")
        line = FaultyLine(invite.addresses[0][1], {0: Fault("cut", 2500), 1: Fault("cut", 9000)})
        port = await line.start()
        try:
            joiner = await join_program(
                tmp_path, replace(invite, addresses=(("127.0.0.1", port),)), "--timeout", "20"
            )
            return list(await asyncio.gather(outcome(host), outcome(joiner)))
        finally:
            line.close()

    (host_status, host, host_err), (join_status, joiner, join_err) = asyncio.run(scenario())
    assert host_status == join_status == 0, (host_err, join_err)
    assert host["transcript"] == joiner["transcript"] and host["result"] == joiner["result"]
    assert isinstance(host["result"], list) and len(host["result"]) == 3
    assert host["reconnects"] == joiner["reconnects"] == 2
    assert "reconnecting" in join_err and "restored 2 times" in join_err
    for summary in (host, joiner):
        assert verify(Path(str(summary["record"])).read_text()).complete


async def _kill_mid_match(root: Path, invite: Invite, *options: str) -> int:
    """Start a joiner (with ``options``), kill it (SIGKILL) well into the match; the lines its
    record had then."""
    records = root / "bob" / "data" / "trumps" / "matches"
    joiner = await join_program(root, invite, *options)
    seen = 0
    while seen < 40:  # a deal or two and many moves
        await asyncio.sleep(0.02)
        seen = max((path.read_text().count("\n") for path in records.glob("*.jsonl")), default=0)
    joiner.send_signal(signal.SIGKILL)
    await joiner.wait()
    return seen


def test_a_peer_killed_mid_match_leaves_both_records_verifiable(tmp_path: Path) -> None:
    records = tmp_path / "bob" / "data" / "trumps" / "matches"

    async def scenario() -> tuple[tuple[int, dict[str, object], str], int]:
        host, invite = await host_program(tmp_path, "--games", "99", "--timeout", "1.5")
        seen = await _kill_mid_match(tmp_path, invite, "--timeout", "1.5")  # the match's: the longer
        return await outcome(host), seen

    (status, host, err), seen = asyncio.run(scenario())
    assert status == 0 and host["end"] == "forfeit", err  # won by forfeit: a result, status 0
    assert "the connection was lost" in str(host["error"]) or "unreachable" in str(host["error"])
    host_record = verify(Path(str(host["record"])).read_text())
    assert not host_record.complete and host_record.end is not None
    assert host_record.end["end"] == "forfeit" and host_record.end["winner"] == 0
    (killed,) = records.glob("*.jsonl")
    crashed = verify(killed.read_text())  # the killed side's own record: every link it applied
    assert not crashed.complete and crashed.end is None
    assert len(crashed.match.links) >= seen - 1
    # Its own links are written before they are sent: a kill in between leaves it one link ahead.
    assert len(crashed.match.links) <= len(host_record.match.links) + 1
    shared = min(len(crashed.match.links), len(host_record.match.links))
    assert crashed.match.transcript_at(shared) == host_record.match.transcript_at(shared)


def test_a_restarted_peer_without_its_saved_match_cannot_resume_and_the_game_is_claimed_at_once(
    tmp_path: Path,
) -> None:
    async def scenario() -> tuple[tuple[int, dict[str, object], str], tuple[int, dict[str, object], str]]:
        host, invite = await host_program(tmp_path, "--games", "99", "--timeout", "30")
        await _kill_mid_match(tmp_path, invite)
        shutil.rmtree(tmp_path / "bob" / "data" / "trumps" / "unfinished")  # what a restart needs, gone
        again = await join_program(tmp_path, invite)  # the same player, a fresh program: no match to resume
        return await outcome(host), await outcome(again)

    (status, host, err), (again_status, _again, again_err) = asyncio.run(scenario())
    assert status == 0 and host["end"] == "forfeit", err  # the game awarded to the host: a result
    assert "bob came back after" in str(host["error"]) and "without the match" in str(host["error"])
    assert again_status == 1 and "ann wants to resume an earlier match" in again_err


def test_a_host_stopped_by_sigterm_pauses_and_a_joiner_it_never_returns_to_is_awarded_the_game(
    tmp_path: Path,
) -> None:
    records = tmp_path / "ann" / "data" / "trumps" / "matches"

    async def scenario() -> tuple[tuple[int, dict[str, object], str], tuple[int, dict[str, object], str]]:
        host, invite = await host_program(tmp_path, "--games", "99", "--timeout", "2")
        joiner = await join_program(tmp_path, invite, "--timeout", "2")
        while max((p.read_text().count('"t": "move"') for p in records.glob("*.jsonl")), default=0) < 5:
            await asyncio.sleep(0.02)
        host.send_signal(signal.SIGTERM)  # a closed terminal, a stopped service
        return await outcome(host), await outcome(joiner)

    (host_status, paused, host_err), (status, joiner, err) = asyncio.run(scenario())
    assert host_status == 1 and paused["end"] == "paused", host_err
    assert "ann's program stopped; waiting up to 0:02" in err
    assert status == 0 and joiner["end"] == "forfeit", err  # the host stayed away: the stayer's game
    stayer = verify(Path(str(joiner["record"])).read_text()).end
    assert stayer is not None and stayer["end"] == "forfeit" and stayer["winner"] == 1
    (saved,) = records.glob("*.jsonl")
    assert verify(saved.read_text()).end is None  # paused, not ended: `trumps host` continues it
    assert (tmp_path / "ann" / "data" / "trumps" / "unfinished" / "hosted.json").exists()


def test_a_host_whose_stderr_nobody_reads_outlives_1000_garbage_connections(tmp_path: Path) -> None:
    """Flaw 8: the host's stderr is a pipe nobody reads until the end (``subprocess.Popen``, not
    asyncio's, which reads its pipes eagerly); 1000 garbage connections used to fill it with
    refusal lines and stop the host (protocol 2 hung here). Now refusals are counted, at most a
    line a second goes out, and that through a queue that never blocks: the friend still plays."""
    command = [
        *TRUMPS,
        "host",
        "--port",
        "0",
        "--bind",
        "127.0.0.1",
        "--bot",
        "easy",
        "--json",
        "--name",
        "ann",
    ]
    host = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=program_env(tmp_path / "ann")
    )
    stdout = host.stdout
    assert stdout is not None

    async def scenario() -> tuple[int, dict[str, object], str]:
        line = (await asyncio.wait_for(asyncio.to_thread(stdout.readline), PROGRAM_LIMIT)).decode()
        invite = Invite.parse(line.split("trumps join ", 1)[1])
        for i in range(1000):
            with contextlib.suppress(OSError):
                _, writer = await asyncio.wait_for(
                    asyncio.open_connection(
                        "127.0.0.1", invite.addresses[0][1], local_addr=(f"127.0.4.{1 + i % 200}", 0)
                    ),
                    PROGRAM_LIMIT,
                )
                writer.write(b"\xff\xff\xff\xff")  # a frame header far past the cap
                writer.close()
        return await outcome(await join_program(tmp_path, invite))

    try:
        join_status, joiner, join_err = asyncio.run(asyncio.wait_for(scenario(), 2 * PROGRAM_LIMIT))
        out, err = host.communicate(timeout=PROGRAM_LIMIT)
    finally:
        host.kill()
    assert join_status == 0 and host.returncode == 0, join_err[-500:]
    assert 0 < err.decode().count("refused a connection") < 50
    assert (
        joiner["result"]
        and verify(Path(str(json.loads(out.decode().splitlines()[-1])["record"])).read_text()).complete
    )
