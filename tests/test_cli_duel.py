"""``trumps host`` and ``trumps join`` as a person starts them: stopping before the match, what
they say about the trumps, the names they go by and their exit status."""

from __future__ import annotations

import asyncio
import os
import pty
import signal
from pathlib import Path

from tests.test_p2p_e2e import LIMIT, TRUMPS, _env, _host, _join, _outcome


async def _until(stream: asyncio.StreamReader, text: bytes) -> bytes:
    seen = b""
    while text not in seen:
        chunk = await asyncio.wait_for(stream.read(1024), LIMIT)
        assert chunk, seen
        seen += chunk
    return seen


def test_ctrl_c_at_the_rules_question_ends_the_joiner_at_once_in_one_line(tmp_path: Path) -> None:
    """Defect 4: the joiner's question is on a terminal; Ctrl-C (SIGINT) ends it without Enter."""

    async def scenario() -> tuple[int, str]:
        host, invite = await _host(tmp_path, "--timeout", "5")
        main, terminal = pty.openpty()
        try:
            joiner = await asyncio.create_subprocess_exec(
                *TRUMPS, "join", str(invite), "--name", "bob", stdin=terminal, stdout=terminal,
                stderr=asyncio.subprocess.PIPE, env=_env(tmp_path / "bob"),
            )  # fmt: skip
            os.close(terminal)
            reader = asyncio.StreamReader()
            loop = asyncio.get_running_loop()
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(main, "rb"))
            await _until(reader, b"Accept these rules? [y/N]")
            joiner.send_signal(signal.SIGINT)
            _out, err = await asyncio.wait_for(joiner.communicate(), LIMIT)  # no Enter is ever typed
            return joiner.returncode or 0, err.decode()
        finally:
            host.send_signal(signal.SIGINT)
            await asyncio.wait_for(host.communicate(), LIMIT)

    status, err = asyncio.run(scenario())
    assert status == 130
    assert err.splitlines()[-1] == "trumps join: stopped before the match began", err
    assert "record" not in err


def test_a_host_stopped_before_anyone_joined_does_not_mention_a_record(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, str]:
        host, _invite = await _host(tmp_path)
        host.send_signal(signal.SIGINT)
        _out, err = await asyncio.wait_for(host.communicate(), LIMIT)
        return host.returncode or 0, err.decode()

    status, err = asyncio.run(scenario())
    assert status == 130
    assert err.splitlines()[-1] == "trumps host: stopped before the match began"
    assert "record" not in err
    assert not list((tmp_path / "ann" / "data").glob("trumps/matches/*.jsonl"))


def test_headless_sides_say_who_kept_the_suit_both_asked_for(tmp_path: Path) -> None:
    """Defect 3: ``--trump S`` on both sides; each stderr says who got spades and why."""

    async def scenario() -> list[tuple[int, dict[str, object], str]]:
        host, invite = await _host(tmp_path, "--trump", "S")
        joiner = await _join(tmp_path, invite, "--trump", "♤")
        return list(await asyncio.gather(_outcome(host), _outcome(joiner)))

    (host_status, _host_summary, host_err), (join_status, _joiner, join_err) = asyncio.run(scenario())
    assert host_status == join_status == 0, (host_err, join_err)
    keeps = "You both asked for ♠: you keep it, not dealing; {} deals and takes their second choice, ♥."
    gives = "You both asked for ♠: {} keeps it, not dealing; you deal and take your second choice, ♥."
    if "dealer 0" in host_err:  # ann (player 0) dealt: bob keeps spades
        assert gives.format("bob") in host_err.splitlines() and keeps.format("ann") in join_err.splitlines()
    else:
        assert keeps.format("bob") in host_err.splitlines() and gives.format("ann") in join_err.splitlines()
