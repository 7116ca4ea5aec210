"""``trumps host`` and ``trumps join`` as a person starts them: stopping before the match, what
they say about the trumps, the names they go by and their exit status."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pty
import signal
import subprocess
from pathlib import Path

import pytest

from cli.app.network_opponent import NetworkOpponent
from cli.app.opponent import Deal
from cli.main import build_parser
from engine import Rules
from p2p.handshake import Terms
from tests.screen_table import Notes
from tests.test_p2p_e2e import LIMIT, TRUMPS, _env, _host, _join, _outcome
from tests.test_p2p_helpers import Side, connect_pair, run


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


def _parse(*argv: str) -> argparse.Namespace:
    args, unknown = build_parser(argv[0]).parse_known_args(list(argv))
    assert not unknown
    return args


def test_host_and_join_take_the_match_options_as_play_does(capsys: pytest.CaptureFixture[str]) -> None:
    """Defect 14: one definition of ``--games`` (1-99) and one suit parser for every command."""
    assert _parse("host", "--trump", "♤").trump == _parse("join", "x", "--trump", "♤").trump == "S"
    assert _parse("host", "--trump", "h♦").trump == "HD" and _parse("play", "--trump", "♤").trump == "S"
    host = _parse("host", "--games", "99", "--pickup", "Voluntary")
    assert (host.games, host.pickup) == (99, "voluntary")
    for command in ("play", "host"):
        with pytest.raises(SystemExit):
            _parse(command, "--games", "100")
        assert "'100' is not a number of games from 1 to 99" in capsys.readouterr().err
    assert "games" not in vars(build_parser("join").parse_known_args(["join", "x"])[0])  # the host's rule


def test_without_name_a_duel_goes_by_the_remembered_name(tmp_path: Path) -> None:
    """Defect 14: not the login name: the name given once (here remembered), or a clear refusal."""
    for who, name in (("ann", "Ann Lee"), ("bob", "Bob")):
        (tmp_path / who / "config" / "trumps").mkdir(parents=True)
        (tmp_path / who / "config" / "trumps" / "config.json").write_text(json.dumps({"name": name}))

    async def scenario() -> list[tuple[int, dict[str, object], str]]:
        host = await asyncio.create_subprocess_exec(
            *TRUMPS, "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "easy", "--json",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=_env(tmp_path / "ann"),
        )  # fmt: skip
        assert host.stdout is not None
        line = (await asyncio.wait_for(host.stdout.readline(), LIMIT)).decode()
        joiner = await asyncio.create_subprocess_exec(
            *TRUMPS, "join", line.split("trumps join ", 1)[1].strip(), "--bot", "easy", "--json",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=_env(tmp_path / "bob"),
        )  # fmt: skip
        return list(await asyncio.gather(_outcome(host), _outcome(joiner)))

    (_, host, host_err), (_, joiner, _) = asyncio.run(scenario())
    assert host["players"] == joiner["players"] == ["Ann Lee", "Bob"], host_err
    nameless = subprocess.run(
        [*TRUMPS, "host", "--port", "0", "--bot", "easy"], capture_output=True, text=True, timeout=LIMIT,
        stdin=subprocess.DEVNULL, env=_env(tmp_path / "carol"),
    )  # fmt: skip
    assert nameless.returncode == 1
    assert "no name to go by: give --name NAME (no terminal to ask on)" in nameless.stderr


def test_the_second_trump_choice_holds_in_the_interactive_duel(tmp_path: Path) -> None:
    """``--trump SD``: the screen asks nothing and plays spades; a clash then gives diamonds, not hearts."""

    async def scenario() -> tuple[Deal, Deal]:
        pair = await connect_pair(Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob"), Terms(Rules(), 1))
        ann = NetworkOpponent(pair.host_channel, pair.host_session, pair.host.me, pair.host.home, choice="SD")
        bob = NetworkOpponent(pair.join_channel, pair.join_session, pair.joiner.me, pair.joiner.home)
        ann.attach(Notes())
        bob.attach(Notes())
        deals = await asyncio.gather(ann.deal(1, None, "S"), bob.deal(1, None, "S"))
        ann.close()
        bob.close()
        await asyncio.gather(ann.finished(), bob.finished())
        return deals

    ann, _bob = run(scenario())
    assert ann.trumps == ("DS" if ann.dealer == 0 else "SH")
