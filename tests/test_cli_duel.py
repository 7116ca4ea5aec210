"""``trumps host`` and ``trumps join`` as a person starts them: stopping before the match, what
they say about the trumps, the names they go by and their exit status."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pty
import re
import signal
from pathlib import Path

import pytest

from cli.app.network_opponent import NetworkOpponent
from cli.app.opponent import Deal
from cli.main import build_parser
from engine import Game, Rules
from p2p.handshake import Terms
from p2p.invite import Invite
from p2p.messages import MoveMsg
from p2p.record import verify
from tests.screen_table import Notes
from tests.support.peers import Side, connect_pair, run
from tests.support.programs import PROGRAM_LIMIT, TRUMPS, host_program, join_program, outcome, program_env
from tests.test_p2p_screen import first_deals


async def _until(stream: asyncio.StreamReader, text: bytes) -> bytes:
    seen = b""
    while text not in seen:
        chunk = await asyncio.wait_for(stream.read(1024), PROGRAM_LIMIT)
        assert chunk, seen
        seen += chunk
    return seen


async def _on_a_terminal(
    home: Path, *argv: str, stderr_too: bool = False
) -> tuple[asyncio.subprocess.Process, int, asyncio.StreamReader]:
    """``trumps ARGV`` on a pseudo-terminal (its stdin and stdout; stderr too with ``stderr_too``),
    at ``home``: the process, the terminal's other end (to type into) and what is written there."""
    main, terminal = pty.openpty()
    process = await asyncio.create_subprocess_exec(
        *TRUMPS, *argv, stdin=terminal, stdout=terminal,
        stderr=terminal if stderr_too else asyncio.subprocess.PIPE, env=program_env(home),
    )  # fmt: skip
    os.close(terminal)
    reader = asyncio.StreamReader()
    loop = asyncio.get_running_loop()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(main, "rb"))
    return process, main, reader


async def _join_on_a_terminal(
    tmp_path: Path, invite: Invite | str
) -> tuple[asyncio.subprocess.Process, int, asyncio.StreamReader]:
    """``trumps join INVITE`` (or ``-``) as bob on a pseudo-terminal (see :func:`_on_a_terminal`)."""
    return await _on_a_terminal(tmp_path / "bob", "join", str(invite), "--name", "bob")


@pytest.mark.net
def test_ctrl_c_at_the_rules_question_ends_the_joiner_at_once_in_one_line(tmp_path: Path) -> None:
    """Defect 4: the joiner's question is on a terminal; Ctrl-C (SIGINT) ends it without Enter."""

    async def scenario() -> tuple[int, str]:
        host, invite = await host_program(tmp_path, "--timeout", "5")
        try:
            joiner, _terminal, reader = await _join_on_a_terminal(tmp_path, invite)
            await _until(reader, b"Accept these rules? [y/N]")
            joiner.send_signal(signal.SIGINT)
            _out, err = await asyncio.wait_for(joiner.communicate(), PROGRAM_LIMIT)  # no Enter is ever typed
            return joiner.returncode or 0, err.decode()
        finally:
            host.send_signal(signal.SIGINT)
            await asyncio.wait_for(host.communicate(), PROGRAM_LIMIT)

    status, err = asyncio.run(scenario())
    assert status == 130
    assert err.splitlines()[-1] == "trumps join: stopped before the match began", err
    assert "record" not in err


@pytest.mark.net
def test_ctrl_d_at_the_rules_question_declines_on_a_line_of_its_own(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, bytes, str]:
        host, invite = await host_program(tmp_path, "--timeout", "5")
        try:
            joiner, main, reader = await _join_on_a_terminal(tmp_path, invite)
            await _until(reader, b"Accept these rules? [y/N] ")
            os.write(main, b"\x04")  # Ctrl-D
            seen = await _until(reader, b"\n")
            _out, err = await asyncio.wait_for(joiner.communicate(), PROGRAM_LIMIT)
            return joiner.returncode or 0, seen, err.decode()
        finally:
            host.send_signal(signal.SIGINT)
            await asyncio.wait_for(host.communicate(), PROGRAM_LIMIT)

    status, seen, err = asyncio.run(scenario())
    assert status == 1 and err.splitlines()[-1] == "trumps join: you declined the host's rules", err
    assert seen.endswith(b"\r\n")  # the question's line ends before the reason is said


@pytest.mark.net
def test_a_host_stopped_before_anyone_joined_does_not_mention_a_record(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, str]:
        host, _invite = await host_program(tmp_path)
        host.send_signal(signal.SIGINT)
        _out, err = await asyncio.wait_for(host.communicate(), PROGRAM_LIMIT)
        return host.returncode or 0, err.decode()

    status, err = asyncio.run(scenario())
    assert status == 130
    assert err.splitlines()[-1] == "trumps host: stopped before the match began"
    assert "record" not in err
    # bound to 127.0.0.1: the invite works on this machine only, and the note says so
    assert "(That address works only on this machine: nobody elsewhere can join." in err
    assert "nearby" not in err and "forward TCP port" not in err
    assert not list((tmp_path / "ann" / "data").glob("trumps/matches/*.jsonl"))


@pytest.mark.parametrize(
    ("first", "note"),
    [("::1", "works only on this machine"), ("127.0.0.1", "works only on this machine"),
     ("192.168.1.20", "only works nearby"), ("fd12:3456::1", "only works nearby"),
     ("fe80::1%eth0", "only works nearby"), ("100.64.0.7", "only works nearby"),  # a carrier's NAT
     ("11.0.0.1", None), ("2a00:1450::1", None), ("ann.example", None)],
)  # fmt: skip
def test_how_a_friend_can_reach_the_invite_s_first_address(
    first: str, note: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cli.i18n import translated
    from cli.net import hosting
    from cli.net.progress import Progress
    from p2p.portmap import MapResult

    said: list[str] = []
    progress = Progress()
    monkeypatch.setattr(progress, "say", lambda text: said.append(translated(text)))
    hosting._say_reach(True, MapResult(), first, 47111, progress)
    if note is None:
        assert said == []
    else:
        assert note in said[0]
        nearby = note == "only works nearby"  # then the friend may be the one to host
        assert len(said) == 1 + nearby and nearby == ("your friend can host instead" in said[-1])
    count = len(said)
    hosting._say_reach(False, MapResult(), first, 47111, progress)  # --advertise: the host said where
    assert len(said) == count


@pytest.mark.net
def test_headless_sides_say_who_kept_the_suit_both_asked_for(tmp_path: Path) -> None:
    """Defect 3: ``--trump S`` on both sides; each stderr says who got spades and why."""

    async def scenario() -> list[tuple[int, dict[str, object], str]]:
        host, invite = await host_program(tmp_path, "--trump", "S")
        joiner = await join_program(tmp_path, invite, "--trump", "♤")
        return list(await asyncio.gather(outcome(host), outcome(joiner)))

    (host_status, _host_summary, host_err), (join_status, _joiner, join_err) = asyncio.run(scenario())
    assert host_status == join_status == 0, (host_err, join_err)
    # neither named a second choice, and nobody is told of one they did not make
    keeps = "You both asked for ♠: you keep it, not dealing; {} deals and gets ♥."
    gives = "You both asked for ♠: {} keeps it, not dealing; you deal and get ♥, the suit after it (you named no second choice)."
    if "You dealt;" in host_err:  # ann (player 0) dealt: bob keeps spades
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


@pytest.mark.net
def test_without_name_a_duel_goes_by_the_remembered_name(tmp_path: Path) -> None:
    """Defect 14: not the login name: the name given once (here remembered), or a clear refusal."""
    for who, name in (("ann", "Ann Lee"), ("bob", "Bob")):
        (tmp_path / who / "config" / "trumps").mkdir(parents=True)
        (tmp_path / who / "config" / "trumps" / "config.json").write_text(json.dumps({"name": name}))

    async def scenario() -> list[tuple[int, dict[str, object], str]]:
        host = await asyncio.create_subprocess_exec(
            *TRUMPS, "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "easy", "--json",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=program_env(tmp_path / "ann"),
        )  # fmt: skip
        assert host.stdout is not None
        line = (await asyncio.wait_for(host.stdout.readline(), PROGRAM_LIMIT)).decode()
        joiner = await asyncio.create_subprocess_exec(
            *TRUMPS, "join", line.split("trumps join ", 1)[1].strip(), "--bot", "easy", "--json",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=program_env(tmp_path / "bob"),
        )  # fmt: skip
        return list(await asyncio.gather(outcome(host), outcome(joiner)))

    (_, host, host_err), (_, joiner, _) = asyncio.run(scenario())
    assert host["players"] == joiner["players"] == ["Ann Lee", "Bob"], host_err

    async def nameless_bots() -> list[tuple[int, dict[str, object], str]]:
        """Neither --name nor a remembered one, and no terminal: a bot goes by its level."""
        host = await asyncio.create_subprocess_exec(
            *TRUMPS, "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "easy", "--json",
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=program_env(tmp_path / "carol"),
        )  # fmt: skip
        assert host.stdout is not None
        line = (await asyncio.wait_for(host.stdout.readline(), PROGRAM_LIMIT)).decode()
        joiner = await asyncio.create_subprocess_exec(
            *TRUMPS, "join", line.split("trumps join ", 1)[1].strip(), "--bot", "medium", "--json",
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=program_env(tmp_path / "dave"),
        )  # fmt: skip
        return list(await asyncio.gather(outcome(host), outcome(joiner)))

    (status, carol, carol_err), _dave = asyncio.run(nameless_bots())
    assert status == 0 and carol["players"] == ["AI (easy)", "AI (medium)"], carol_err


@pytest.mark.net
def test_a_refused_name_is_told_why_and_ctrl_d_at_the_question_ends_in_one_line(tmp_path: Path) -> None:
    async def scenario() -> tuple[int, str]:
        main, terminal = pty.openpty()
        host = await asyncio.create_subprocess_exec(
            *TRUMPS, "host", "--port", "0", "--bind", "127.0.0.1", "--no-announce", "--no-map",
            stdin=terminal, stdout=terminal, stderr=asyncio.subprocess.PIPE, env=program_env(tmp_path / "nameless"),
        )  # fmt: skip
        os.close(terminal)
        try:
            assert host.stderr is not None  # where input() writes its question
            seen = await _until(host.stderr, b"characters): ")
            os.write(main, b"x" * 30 + b"\n")
            while seen.count(b"characters): ") < 2:  # asked again, after the reason
                seen += await asyncio.wait_for(host.stderr.read(1024), PROGRAM_LIMIT)
            os.write(main, b"\x04")  # Ctrl-D
            rest = await asyncio.wait_for(host.stderr.read(), PROGRAM_LIMIT)
            await asyncio.wait_for(host.wait(), PROGRAM_LIMIT)
        finally:
            os.close(main)
        return host.returncode or 0, (seen + rest).decode()

    status, err = asyncio.run(scenario())
    assert status == 1 and "Traceback" not in err, err
    assert "characters): That name is too long: at most 20 characters.\n" in err
    assert err.endswith("characters): trumps host: no name given: type one, or give --name NAME\n"), err


@pytest.mark.net
def test_the_second_trump_choice_holds_in_the_interactive_duel(tmp_path: Path) -> None:
    """``--trump SD``: the screen asks nothing and plays spades; a clash then gives diamonds, not hearts."""

    async def scenario() -> tuple[Deal, Deal]:
        pair = await connect_pair(Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob"), Terms(Rules(), 1))
        return await first_deals(pair, ("S", "S"), ann_choice="SD")

    ann, _bob = run(scenario())
    assert ann.trumps == ("DS" if ann.dealer == 0 else "SH")


# ------------------------------------------------------------------ hints (defect 13)


def test_the_hint_flags_leave_protocol_3_messages_as_they_were() -> None:
    """``offer.hints`` and ``move.hint`` are left out when false: the same bytes as before them."""
    from dataclasses import replace

    from p2p.errors import SchemaError
    from p2p.messages import parse

    move = MoveMsg(game=1, n=1, move="6S", hash=bytes(32), sig=bytes(64))
    assert list(move.to_wire()) == ["t", "game", "n", "move", "hash", "sig"] and parse(move.to_wire()) == move
    hinted = replace(move, hint=True)
    assert list(hinted.to_wire()) == ["t", "game", "n", "move", "hash", "hint", "sig"]
    assert parse(hinted.to_wire()) == hinted and hinted.body() != move.body()  # signed
    with pytest.raises(SchemaError, match=r"move\.hint: must be true, or left out for false"):
        parse(move.to_wire() | {"hint": False})


@pytest.mark.net
def test_hints_are_the_host_s_rule_and_each_use_reaches_the_peer_and_the_records(tmp_path: Path) -> None:
    async def scenario(hints: bool) -> tuple[Notes, NetworkOpponent, NetworkOpponent]:
        root = tmp_path / str(hints)
        pair = await connect_pair(Side.make(root, "ann"), Side.make(root, "bob"), Terms(Rules(), 1, hints=hints))
        assert pair.join_session.terms.hints is hints
        ann = NetworkOpponent(pair.host_channel, pair.host_session, pair.host.me, pair.host.home)
        bob = NetworkOpponent(pair.join_channel, pair.join_session, pair.joiner.me, pair.joiner.home)
        bob_notes = Notes()
        ann.attach(Notes())
        bob.attach(bob_notes)
        deal, _ = await asyncio.gather(ann.deal(1, None, "S"), bob.deal(1, None, "D"))
        game = Game.from_deal(deal.seed, deal.dealer, deal.trumps, Rules())
        for _ply in range(2):
            mover, other = (ann, bob) if game.position.turn == ann.seat else (bob, ann)
            if mover is ann:
                ann.hinted()  # ann's screen gave her the AI's hint
            waiting = asyncio.ensure_future(other.move(game))  # asked before the move, as the app does
            await asyncio.sleep(0)
            move = game.position.legal_moves()[0]
            game.play(move)
            mover.played(game, move)
            assert await waiting == move
        ann.close()
        bob.close()
        await asyncio.gather(ann.finished(), bob.finished())
        return bob_notes, ann, bob

    notes, ann, bob = run(scenario(True))
    (told,) = [line for line in notes.chats if "hint" in line]
    assert told.startswith("ann asked the AI for a hint before playing ")
    for side in (ann, bob):
        text = side.duel.files.path.read_text()
        rows = [json.loads(line) for line in text.splitlines()]
        moves = [(row["by"], row["link"].get("hint")) for row in rows if row.get("link", {}).get("t") == "move"]
        assert sorted(moves, key=str) == sorted([(ann.seat, True), (bob.seat, None)], key=str)  # ann's use
        flags = {(seat, m.hint) for seat, m in verify(text).match.links if isinstance(m, MoveMsg)}
        assert flags == {(ann.seat, True), (bob.seat, False)}
    notes, ann, _bob = run(scenario(False))  # not allowed: nothing flagged, nothing said
    assert not [line for line in notes.chats if "hint" in line]
    assert '"hint"' not in ann.duel.files.path.read_text()


def test_the_rules_are_put_in_words_for_the_person_deciding() -> None:
    from cli import i18n
    from cli.net.words import describe

    assert describe(Terms(Rules(pickup="voluntary", sixes=False, max_moves=300), 3)) == (
        "a match of 3 games, voluntary pick-up, the sixes stay where dealt, a draw after 300 moves, no AI hints"
    )
    try:
        i18n.use("uk")
        words = describe(Terms(Rules(), 1, hints=True))
        pieces = [i18n._(text) for text in ("one game", "forced pick-up", "the trump sixes change hands")]
    finally:
        i18n.use("en")
    assert words.startswith(", ".join(pieces) + ", ") and "1000" in words and pieces[1] != "forced pick-up"
    assert "=" not in words  # not the notation's pickup=forced sixes=on


@pytest.mark.net
def test_the_joiner_is_asked_about_the_hints_rule(tmp_path: Path) -> None:
    async def scenario() -> list[tuple[int, dict[str, object], str]]:
        host, invite = await host_program(tmp_path, "--hints")
        joiner = await join_program(tmp_path, invite)
        return list(await asyncio.gather(outcome(host), outcome(joiner)))

    (_, host, host_err), (_, _joiner, join_err) = asyncio.run(scenario())
    assert "ann proposes one game, " in join_err and ", AI hints allowed, each use shown to the other player." in join_err
    assert "forced pick-up, the trump sixes change hands, a draw after 1000 moves, AI hints" in join_err
    assert "Hosting one game, " in host_err and "AI hints allowed" in host_err
    assert verify(Path(str(host["record"])).read_text()).complete


@pytest.mark.parametrize(
    ("limits", "raised"),
    [((1024, 4096), (4096, 4096)), ((1024, 1_048_576), (8192, 1_048_576)), ((9000, 9000), None)],
)
def test_the_host_raises_its_descriptor_limit_to_its_hard_limit_bounded(
    monkeypatch: pytest.MonkeyPatch, limits: tuple[int, int], raised: tuple[int, int] | None
) -> None:
    """Issue 19, flaw 3: a host started with 1,024 descriptors (a common default) had no margin;
    it now raises its soft limit at start, to its hard limit or 8,192, whichever is lower."""
    import resource

    from cli.net.hosting import more_descriptors

    asked: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "getrlimit", lambda which: limits)
    monkeypatch.setattr(resource, "setrlimit", lambda which, pair: asked.append(pair))
    more_descriptors()
    assert asked == ([] if raised is None else [raised])


@pytest.mark.net
def test_join_dash_reads_the_invite_from_stdin_and_keeps_its_secret_out_of_the_process_list(
    tmp_path: Path,
) -> None:
    """Issue 19, flaw 5: ``trumps join INVITE`` showed the invite's secret to every local user
    (``ps``, /proc/PID/cmdline) for the whole match. ``trumps join -`` reads it from standard
    input: the process list shows ``-``, and the match is played as with the line."""
    from p2p.crypto import base32

    Outcome = tuple[int, dict[str, object], str]

    async def scenario() -> tuple[Invite, list[bytes], Outcome, Outcome]:
        host, invite = await host_program(tmp_path, "--games", "6")
        joiner = await asyncio.create_subprocess_exec(
            # medium, not easy: its moves take long enough that the match is still on at the second look
            *TRUMPS, "join", "-", "--bot", "medium", "--json", "--name", "bob", stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=program_env(tmp_path / "bob"),
        )  # fmt: skip
        assert joiner.stdin is not None
        records = tmp_path / "bob" / "data" / "trumps" / "matches"
        seen = [Path(f"/proc/{joiner.pid}/cmdline").read_bytes()]
        joiner.stdin.write(f"trumps join {invite}\n".encode())  # as the host printed it, pasted
        await joiner.stdin.drain()
        joiner.stdin.close()
        async with asyncio.timeout(PROGRAM_LIMIT):  # the match is on
            while not any(path.read_text().count("\n") > 2 for path in records.glob("*.jsonl")):
                await asyncio.sleep(0.01)
        seen.append(Path(f"/proc/{joiner.pid}/cmdline").read_bytes())  # empty once it has ended
        return invite, seen, await outcome(host), await outcome(joiner)

    invite, seen, (host_status, host, host_err), (join_status, joiner, join_err) = run(scenario())
    assert host_status == join_status == 0 and host["transcript"] == joiner["transcript"], (host_err, join_err)
    for cmdline in seen:
        assert b"\0join\0-\0" in cmdline
        assert base32(invite.secret).encode() not in cmdline and invite.fingerprint.encode() not in cmdline


def test_join_dash_with_nothing_on_stdin_stops_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    from cli.net.joining import run_join

    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    parser = argparse.ArgumentParser()
    from cli.net.arguments import add_join_arguments

    add_join_arguments(parser)
    assert run_join(parser.parse_args(["-", "--bot", "easy", "--name", "bob"])) == 1
    assert "trumps join: '' is not an invite" in capsys.readouterr().err


@pytest.mark.net
def test_join_dash_on_a_terminal_asks_for_the_invite_then_for_the_rules(tmp_path: Path) -> None:
    async def scenario() -> int:
        host, invite = await host_program(tmp_path, "--timeout", "5")
        try:
            joiner, main, reader = await _join_on_a_terminal(tmp_path, "-")
            await _until(reader, b"Paste the invite: ")
            os.write(main, f"  trumps join {invite}\n".encode())
            await _until(reader, b"Accept these rules? [y/N]")
            joiner.send_signal(signal.SIGINT)
            await asyncio.wait_for(joiner.communicate(), PROGRAM_LIMIT)
            return joiner.returncode or 0
        finally:
            host.send_signal(signal.SIGINT)
            await asyncio.wait_for(host.communicate(), PROGRAM_LIMIT)

    assert asyncio.run(scenario()) == 130


@pytest.mark.net
def test_a_restarted_host_prints_its_invite_on_a_line_of_its_own_on_a_terminal(tmp_path: Path) -> None:
    """Issue 22, item 1: restarted over its unfinished match, ``trumps host`` printed the invite
    and the next line (through another writer) glued: ``…/y2xm…5idContinuing the unfinished
    match with Bob…``; a double-click copied a wrong secret."""
    from tests.test_p2p_restart import host_killed_mid_match

    async def scenario() -> bytes:
        joiner, _invite = await host_killed_mid_match(tmp_path)
        again, _terminal, reader = await _on_a_terminal(
            tmp_path / "ann", "host", "--port", "0", "--bind", "127.0.0.1", "--bot", "easy", "--name", "ann",
            "--games", "2", "--timeout", "30", stderr_too=True,
        )  # fmt: skip
        seen = await _until(reader, b"Continuing the unfinished match with bob")
        seen += await _until(reader, b"\n")
        await asyncio.wait_for(again.wait(), PROGRAM_LIMIT)
        await outcome(joiner)
        return seen

    lines = asyncio.run(scenario()).decode().splitlines()
    (line,) = [line for line in lines if "trumps join" in line]
    # on a terminal narrower than the invite the command to paste starts a line of its own
    assert re.fullmatch(r"(Send this to your friend:  )?trumps join \S+", line), lines
    assert lines[lines.index(line) - 1 if line.startswith("trumps") else 0].startswith("Send this to your friend:")
    assert any(line.startswith("Continuing the unfinished match with bob") for line in lines), lines
