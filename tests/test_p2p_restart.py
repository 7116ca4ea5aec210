"""Restart-safe matches, as separate processes: a side killed (``kill -9``) or stopped (SIGTERM)
mid-match and started again with the same command line continues exactly where the chain
stopped, while the other side waits; both records then verify, complete, with one transcript."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import re
import shlex
import shutil
import signal
import subprocess
import threading
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cli.net.arguments import add_join_arguments
from cli.net.joining import run_join
from p2p.admission import source_of
from p2p.duel import Report
from p2p.errors import P2PError
from p2p.fairdeal import Pledge
from p2p.handshake import LAN_SECRET
from p2p.identity import Identity
from p2p.invite import Invite
from p2p.record import verify
from p2p.saved import SavedMatch, SavedMatchError, joined_file, load_saved, restore
from tests.support.programs import PROGRAM_LIMIT, TRUMPS, host_program, join_program, outcome, program_env

if TYPE_CHECKING:
    from cli.home import Home
    from p2p.channel import Channel
    from p2p.duel_line import Reconnector
    from p2p.handshake import Session
    from p2p.record import Verified
    from tests.support.peers import Side

Outcome = tuple[int, dict[str, object], str]
SAVED_LIMIT = 10.0
"""The forfeit limit of the matches saved here in memory: a restart within it redials (and gives
up after it), one later closes the match as lost ("Coming back after the limit")."""


def _records(root: Path, name: str) -> Path:
    return root / name / "data" / "trumps" / "matches"


def _unfinished(root: Path, name: str) -> Path:
    return root / name / "data" / "trumps" / "unfinished"


def _identity(home: Path) -> Identity:
    """The identity kept in the home whose XDG folders are ``home``/config and ``home``/data (as
    :func:`program_env` and :func:`_homes` lay them out)."""
    from p2p.identity import load_identity

    return load_identity(home / "config" / "trumps" / "identity.key")


def _home_side(home: Path, name: str) -> Side:
    """The player of the home whose XDG folders are under ``home``, as ``trumps`` finds it there."""
    from cli.home import Home
    from tests.support.peers import Side

    return Side(Home(home / "config" / "trumps", home / "data" / "trumps"), _identity(home), name)


async def _moves_reach(root: Path, name: str, count: int) -> None:
    """Wait (bounded) until ``name``'s record holds ``count`` moves: well into the match."""
    for _ in range(int(PROGRAM_LIMIT / 0.02)):
        records = _records(root, name).glob("*.jsonl")
        if max((path.read_text().count('"t": "move"') for path in records), default=0) >= count:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"{name} never reached {count} moves")


def _same_complete_match(first: Outcome, second: Outcome) -> None:
    (status_a, a, err_a), (status_b, b, err_b) = first, second
    assert status_a == status_b == 0, (err_a, err_b)
    assert a["end"] == b["end"] == "complete"
    assert a["transcript"] == b["transcript"] and a["result"] == b["result"]
    for summary in (a, b):
        verified = verify(Path(str(summary["record"])).read_text())
        assert verified.complete and verified.match.transcript.hex() == a["transcript"]


@pytest.mark.net
def test_a_joiner_killed_mid_game_and_started_again_completes_the_match(tmp_path: Path) -> None:
    async def scenario() -> tuple[Outcome, Outcome]:
        host, invite = await host_program(tmp_path, "--games", "2", "--timeout", "30")
        joiner = await join_program(tmp_path, invite, "--timeout", "30")
        await _moves_reach(tmp_path, "bob", 6)
        joiner.send_signal(signal.SIGKILL)
        await joiner.wait()
        assert list(_unfinished(tmp_path, "bob").glob("joined-*.json"))  # what the restart needs
        again = await join_program(tmp_path, invite, "--timeout", "30")  # the same line
        return await outcome(host), await outcome(again)

    host, again = asyncio.run(scenario())
    _same_complete_match(host, again)
    assert "Continuing the unfinished match with ann" in again[2]
    assert "against ann again: the match goes on" in again[2]  # no code: the saved session has none
    assert "Verification code" not in again[2].split("Continuing")[1]
    assert host[1]["reconnects"] == 1
    assert not list(_unfinished(tmp_path, "bob").glob("*.json"))  # the match ended: nothing kept
    assert len(list(_records(tmp_path, "bob").glob("*.jsonl"))) == 1  # one record, continued


async def host_killed_mid_match(root: Path) -> tuple[asyncio.subprocess.Process, Invite]:
    """ann hosting a match of 2 games killed (``kill -9``) six moves in; bob's bot still running,
    and the invite."""
    host, invite = await host_program(root, "--games", "2", "--timeout", "30")
    joiner = await join_program(root, invite, "--timeout", "30")
    await _moves_reach(root, "ann", 6)
    host.send_signal(signal.SIGKILL)
    await host.wait()
    return joiner, invite


@pytest.mark.net
def test_a_host_killed_mid_game_and_started_again_continues_under_the_same_invite(tmp_path: Path) -> None:
    async def scenario() -> tuple[Outcome, Outcome, Invite, Invite]:
        joiner, invite = await host_killed_mid_match(tmp_path)
        (state,) = _unfinished(tmp_path, "ann").glob("hosted.json")
        assert state.stat().st_mode & 0o077 == 0  # the invite secret is the host's alone
        again, second_invite = await host_program(tmp_path, "--games", "2", "--timeout", "30")
        return await outcome(again), await outcome(joiner), invite, second_invite

    again, joiner, invite, second_invite = asyncio.run(scenario())
    assert second_invite == invite  # the joiner redials what it has
    _same_complete_match(again, joiner)
    assert "Continuing the unfinished match with bob" in again[2]
    assert joiner[1]["reconnects"] == 1
    assert not list(_unfinished(tmp_path, "ann").glob("*.json"))
    assert len(list(_records(tmp_path, "ann").glob("*.jsonl"))) == 1  # one record, continued


@pytest.mark.net
def test_sigterm_pauses_the_match_and_the_same_command_continues_it(tmp_path: Path) -> None:
    async def scenario() -> tuple[Outcome, Outcome, Outcome]:
        host, invite = await host_program(tmp_path, "--games", "2", "--timeout", "30")
        joiner = await join_program(tmp_path, invite, "--timeout", "30")
        await _moves_reach(tmp_path, "bob", 6)
        joiner.send_signal(signal.SIGTERM)  # a closed terminal, a stopped service
        paused = await outcome(joiner)
        again = await join_program(tmp_path, invite, "--timeout", "30")
        return paused, await outcome(host), await outcome(again)

    (paused_status, paused, paused_err), host, again = asyncio.run(scenario())
    assert paused_status == 1 and paused["end"] == "paused", paused_err
    assert "run the same command again" in paused_err
    assert "bob's program stopped; waiting up to 0:30" in host[2]
    _same_complete_match(host, again)
    (record,) = _records(tmp_path, "bob").glob("*.jsonl")
    assert '"end"' not in record.read_text()  # a pause is no end: neither quit nor forfeit


@pytest.mark.net
@pytest.mark.parametrize("content", ["{not json", '{"saved": "something else"}', ""])
def test_a_corrupt_saved_match_is_refused_clearly_and_left_in_place(tmp_path: Path, content: str) -> None:
    invite = Invite.parse("127.0.0.1:9/" + "a" * 32 + "/" + "b" * 32)
    state = joined_file(tmp_path / "bob" / "data" / "trumps" / "unfinished", invite)
    state.parent.mkdir(parents=True)
    state.write_text(content)

    async def scenario() -> Outcome:
        joiner = await asyncio.create_subprocess_exec(
            *TRUMPS, "join", str(invite), "--bot", "easy", "--json", "--name", "bob",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=program_env(tmp_path / "bob"),
        )  # fmt: skip
        out, err = await asyncio.wait_for(joiner.communicate(), PROGRAM_LIMIT)
        return joiner.returncode or 0, json.loads(out.decode().splitlines()[-1]), err.decode()

    status, summary, err = asyncio.run(scenario())
    assert status == 1 and summary["end"] == "refused"
    assert "cannot be continued" in err and "the file is left as it is" in err and "Traceback" not in err
    assert state.read_text() == content


_STATE = {"saved": "your-trumps unfinished match", "format": 1, "record": "r.jsonl", "invite": None}


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"format": 2}, "not an unfinished match of this version"),
        ({"record": 7, "pledges": {}}, "the record or the pledges are missing"),
        ({"pledges": {"1": {"pref": "S", "secret": "zz"}}}, "an unreadable invite or pledge"),
        ({"pledges": {"1": {"pref": "S", "secret": "00" * 31}}}, "an unreadable invite or pledge"),
        ({"pledges": {"x": {"pref": "S", "secret": "00" * 32}}}, "an unreadable invite or pledge"),
        ({"pledges": {}, "invite": "nowhere"}, "an unreadable invite or pledge"),
        ({"pledges": {}, "invite": "127.0.0.1:9/" + "a" * 31 + "/"}, "an unreadable invite or pledge"),
        ({"pledges": {}, "lan": "yes"}, "its \"lan\" field is 'yes', neither true nor false"),
        ({"pledges": {}, "lan": 1}, "its \"lan\" field is 1, neither true nor false"),
        ({"pledges": {}, "lan": "x" * 10_000}, "its \"lan\" field is 'x{39}, neither true nor false"),
        ({"pledges": {}, "joiner": "bob's laptop"}, "its \"joiner\" field is \"bob's laptop\", not an address"),
        ({"pledges": {}, "joiner": 7}, "its \"joiner\" field is 7, not an address"),
        ({"pledges": [1]}, "the record or the pledges are missing"),
    ],
)
def test_every_field_of_a_saved_match_is_checked(
    tmp_path: Path, changes: dict[str, object], why: str
) -> None:
    path = tmp_path / "joined.json"
    path.write_text(json.dumps(_STATE | changes))
    with pytest.raises(SavedMatchError, match=why):
        load_saved(path)


def test_an_unknown_joiner_address_is_not_saved_where_it_would_spoil_the_file(tmp_path: Path) -> None:
    saved = SavedMatch(tmp_path / "hosted.json", record=tmp_path / "match.jsonl")
    assert not saved.joiner_at("?")  # a channel's peer_host when the socket knows no peer
    assert saved.joiner_at("127.0.0.2") and not saved.joiner_at("127.0.0.2")
    saved.joiner_back_from("?")
    assert not saved.path.exists() and saved.joiner == "127.0.0.2"  # nothing new: nothing written
    saved.joiner_back_from("::1")
    assert load_saved(saved.path).joiner == "::1"


def test_a_saved_match_whose_record_is_gone_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "joined.json"
    path.write_text(json.dumps(_STATE | {"record": str(tmp_path / "gone.jsonl"), "pledges": {}}))
    with pytest.raises(SavedMatchError, match=r"gone\.jsonl"):
        restore(load_saved(path), Identity.from_key(Ed25519PrivateKey.generate()))
    assert path.exists()


@pytest.mark.net
def test_a_pledge_that_does_not_open_the_recorded_commitment_is_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        host, invite = await host_program(tmp_path, "--games", "1", "--timeout", "5")
        joiner = await join_program(tmp_path, invite, "--timeout", "5")
        await _moves_reach(tmp_path, "bob", 2)
        joiner.send_signal(signal.SIGKILL)
        await joiner.wait()
        host.send_signal(signal.SIGKILL)
        await host.wait()

    asyncio.run(scenario())
    (path,) = _unfinished(tmp_path, "bob").glob("joined-*.json")
    saved = load_saved(path)
    bob = _identity(tmp_path / "bob")
    assert restore(saved, bob).match.links  # as saved, it continues
    forged = SavedMatch(path, saved.record, None, {1: Pledge.fresh("S")})
    forged.write()
    with pytest.raises(SavedMatchError, match="does not open the record's commitment"):
        restore(load_saved(path), bob)


@pytest.mark.net
def test_a_restarted_joiner_whose_host_never_returns_gives_up_at_the_limit_and_keeps_the_match(
    tmp_path: Path,
) -> None:
    async def scenario() -> Outcome:
        host, invite = await host_program(tmp_path, "--games", "1", "--timeout", "5")
        joiner = await join_program(tmp_path, invite, "--timeout", "5")
        await _moves_reach(tmp_path, "bob", 2)
        for process in (joiner, host):
            process.send_signal(signal.SIGKILL)
            await process.wait()
        return await outcome(await join_program(tmp_path, invite, "--timeout", "1"))  # the match keeps its 5 s

    status, summary, err = asyncio.run(scenario())
    assert status == 1 and summary["end"] == "refused"
    assert "ann could not be reached within 5 s (127.0.0.1:" in err and "refuses connections" in err
    assert "the match stays saved for another try" in err and "did not come back" not in err
    (path,) = _unfinished(tmp_path, "bob").glob("joined-*.json")
    assert restore(load_saved(path), _identity(tmp_path / "bob")).match.links  # still there to continue


@pytest.mark.net
def test_both_programs_killed_and_started_again_complete_the_match(tmp_path: Path) -> None:
    """A power cut of the machine both play on: each side restarts from its own disk."""

    async def scenario() -> tuple[Outcome, Outcome]:
        host, invite = await host_program(tmp_path, "--games", "2", "--timeout", "30")
        joiner = await join_program(tmp_path, invite, "--timeout", "30")
        await _moves_reach(tmp_path, "bob", 6)
        for process in (host, joiner):
            process.send_signal(signal.SIGKILL)
            await process.wait()
        joiner = await join_program(tmp_path, invite, "--timeout", "30")  # first: it redials until the host is up
        host, _ = await host_program(tmp_path, "--games", "2", "--timeout", "30")
        return await outcome(host), await outcome(joiner)

    _same_complete_match(*asyncio.run(scenario()))


async def _paused(ann: Side, bob: Side, state: Path) -> None:
    """Leave in ``state`` the unfinished match of the joiner ``bob`` paused mid-game against ``ann``."""
    from engine import Rules
    from p2p.duel import Duel
    from p2p.duel_machine import PAUSE
    from p2p.handshake import Terms
    from p2p.players import BotPlayer
    from tests.support.peers import connect_pair

    # the match's limit: what a restart waits for the host, and how long ago it may have paused
    pair = await connect_pair(ann, bob, Terms(Rules(), 1, limit_ms=round(SAVED_LIMIT * 1000)))
    host = Duel(pair.host_channel, pair.host_session, pair.host.me, BotPlayer("easy"), pair.host.home.records, 5)
    joiner = Duel(pair.join_channel, pair.join_session, pair.joiner.me, BotPlayer("easy"),
                  pair.joiner.home.records, 5, saved=SavedMatch(state))  # fmt: skip
    hosting, joining = asyncio.create_task(host.run()), asyncio.create_task(joiner.run())
    for _ in range(int(PROGRAM_LIMIT / 0.01)):
        if joiner.match.game is not None and len(joiner.match.game.moves) >= 2:
            break
        await asyncio.sleep(0.01)
    joining.cancel(PAUSE)
    hosting.cancel()
    await asyncio.gather(joining, hosting, return_exceptions=True)
    await pair.host_channel.close()


def _interactive_join(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, typed: io.StringIO, *options: str
) -> tuple[int, Path]:
    """An interactive ``trumps join`` over a saved unfinished match, ``typed`` to its question;
    its status and the saved state."""
    from tests.support.peers import Side

    for variable, folder in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data")):
        monkeypatch.setenv(variable, str(tmp_path / folder))
    ann = Side.make(tmp_path / "peers", "ann")
    invite = Invite.parse(f"127.0.0.1:9/{ann.me.fingerprint}/" + "b" * 32)  # nobody listens there
    state = joined_file(tmp_path / "data" / "trumps" / "unfinished", invite)
    asyncio.run(_paused(ann, _home_side(tmp_path, "bob"), state))
    monkeypatch.setattr("sys.stdin", typed)
    parser = argparse.ArgumentParser()
    add_join_arguments(parser)

    async def never(*_: object) -> Report:
        raise AssertionError("no match may start over a saved one")

    return run_join(parser.parse_args([str(invite), "--name", "bob", *options]), never), state


@pytest.mark.net
@pytest.mark.parametrize("answer", ["n\n", ""])
def test_an_interactive_join_asks_before_continuing_and_no_keeps_the_match_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], answer: str
) -> None:
    status, state = _interactive_join(tmp_path, monkeypatch, io.StringIO(answer))
    out, err = capsys.readouterr()
    assert status == 1
    game = restore(load_saved(state), _identity(tmp_path)).match.game  # left as it was
    assert game is not None
    assert f"Continue your unfinished match against ann (game 1, move {len(game.moves) + 1})? [Y/n]" in out
    assert f"The unfinished match stays saved in {state}; delete that file to drop it." in err
    assert "the unfinished match was not continued" in err


@pytest.mark.net
def test_an_interactive_join_answered_yes_redials_to_continue_the_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, state = _interactive_join(tmp_path, monkeypatch, io.StringIO("\n"), "--timeout", "1")  # Enter: yes
    err = capsys.readouterr().err
    assert status == 1
    game = restore(load_saved(state), _identity(tmp_path)).match.game  # still there to continue
    assert game is not None
    assert f"Continuing the unfinished match with ann (game 1, after move {len(game.moves)})" in err
    assert f"ann could not be reached within {SAVED_LIMIT:g} s (127.0.0.1:" in err and "refuses connections" in err
    assert "the match stays saved for another try" in err and "did not come back" not in err


class _CtrlC(io.StringIO):
    # typeshed's own StringIO.readline (str) clashes with _io._IOBase.readline (bytes) and carries
    # the same ignore: no override of it can satisfy both.
    def readline(self, size: int = -1, /) -> str:  # type: ignore[override]
        raise KeyboardInterrupt


@pytest.mark.net
def test_ctrl_c_at_the_question_stops_and_keeps_the_match_saved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, state = _interactive_join(tmp_path, monkeypatch, _CtrlC())
    out, err = capsys.readouterr()
    # the match began long ago: Ctrl-C says it stays saved, with the status Ctrl-C has (130)
    assert status == 130 and f"trumps join: stopped; the unfinished match stays saved in {state}" in err
    assert "before the match began" not in err and "Traceback" not in err
    assert out.endswith("[Y/n] \n")  # the question's line ends before anything else is said
    assert restore(load_saved(state), _identity(tmp_path)).match.links


def test_an_interactive_join_over_an_unreadable_saved_match_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for variable, folder in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data")):
        monkeypatch.setenv(variable, str(tmp_path / folder))
    invite = Invite.parse("127.0.0.1:9/" + "a" * 32 + "/" + "b" * 32)
    state = joined_file(tmp_path / "data" / "trumps" / "unfinished", invite)
    SavedMatch(state, tmp_path / "r.jsonl").write()  # its record is gone
    parser = argparse.ArgumentParser()
    add_join_arguments(parser)

    async def never(*_: object) -> Report:
        raise AssertionError("no match may start over a saved one")

    assert run_join(parser.parse_args([str(invite), "--name", "bob"]), never) == 1
    assert "cannot be continued" in capsys.readouterr().err
    assert state.exists()


def _lan_saved(root: Path, port: int, when: float) -> Path:
    """A LAN-joined unfinished match of "bob" against an "ann" at ``port`` (paused mid-game),
    saved under ``root``'s data folder as ``trumps join`` from the LAN list keeps it, modified at
    ``when``."""
    import os

    from tests.support.peers import Side

    ann = Side.make(root / f"peers-{port}", "ann")
    lan = Invite((("127.0.0.1", port),), ann.me.fingerprint, LAN_SECRET)
    state = joined_file(root / "data" / "trumps" / "unfinished", lan)
    bob = _home_side(root, "bob")
    asyncio.run(_paused(ann, bob, state))
    bob.known.forget("ann")  # each "ann" here has a key of her own: the next one is met anew
    saved = load_saved(state)
    saved.invite = lan
    saved.write()
    os.utime(state, (when, when))
    return state


def _lan_join(
    monkeypatch: pytest.MonkeyPatch, root: Path, typed: io.StringIO, *options: str
) -> tuple[int, list[str]]:
    """An interactive ``trumps join`` without an invite, ``typed`` to its questions; its status and
    the LAN lists it browsed (none is found)."""
    from cli.net import joining
    from p2p.discovery import DiscoveryError
    from p2p.text import Text

    browsed: list[str] = []

    def nothing_announced(args: argparse.Namespace, progress: object) -> Invite:
        browsed.append("browsed")
        raise DiscoveryError(Text("no game announces itself on your network"))

    _homes(monkeypatch, root)
    monkeypatch.setattr(joining, "_choose_host", nothing_announced)
    monkeypatch.setattr("sys.stdin", typed)
    parser = argparse.ArgumentParser()
    add_join_arguments(parser)

    async def never(*_: object) -> Report:
        raise AssertionError("no new match may start here")

    return run_join(parser.parse_args(["--name", "bob", *options]), never), browsed


def test_a_join_without_invite_over_a_broken_lan_match_says_so_and_browses_the_lan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lan = Invite((("127.0.0.1", 9),), "a" * 32, LAN_SECRET)
    state = joined_file(tmp_path / "data" / "trumps" / "unfinished", lan)
    state.parent.mkdir(parents=True)
    SavedMatch(state, tmp_path / "gone.jsonl", lan).write()  # its record is gone
    status, browsed = _lan_join(monkeypatch, tmp_path, io.StringIO(""))
    lines = capsys.readouterr().err.splitlines()
    assert status == 1 and browsed == ["browsed"]  # on to the LAN list, not stuck on the file
    assert lines[0].startswith(f"the unfinished match in {state} cannot be continued: its record ")
    assert lines[0].endswith("(the file is left as it is)")
    assert lines[1:] == ["trumps join: no game announces itself on your network"]
    assert state.exists()


@pytest.mark.net
def test_a_join_without_invite_answered_no_keeps_the_lan_match_and_browses_the_lan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = _lan_saved(tmp_path, 9, 1_000_000)
    status, browsed = _lan_join(monkeypatch, tmp_path, io.StringIO("n\n"))
    out, err = capsys.readouterr()
    assert status == 1 and browsed == ["browsed"]
    assert "Continue your unfinished match against ann (game 1, move " in out
    assert err.splitlines() == [
        f"The unfinished match stays saved in {state}; delete that file to drop it.",
        "trumps join: no game announces itself on your network",
    ]
    assert restore(load_saved(state), _identity(tmp_path)).match.links  # left as it was


@pytest.mark.net
@pytest.mark.parametrize("broken", [False, True])
def test_a_host_found_again_on_the_lan_is_joined_anew_beside_the_match_kept_with_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], broken: bool
) -> None:
    """The saved match with ann declined (or unreadable), bob picks ann from the LAN list: she
    announces a new game, so she waits for no saved one; the new match is not refused over the
    old one nor asked about again, and gets a file of its own (the old one is kept)."""
    from cli.net import joining
    from p2p.errors import ConnectionClosed
    from p2p.text import Text

    state = _lan_saved(tmp_path, 9, 1_000_000)
    if broken:
        SavedMatch(state, tmp_path / "gone.jsonl", load_saved(state).invite).write()
    kept = state.read_text()
    dialed: list[Invite] = []

    async def refused(invite: Invite, *_: object, **__: object) -> None:
        dialed.append(invite)
        raise ConnectionClosed(Text("nobody answers"))

    lan = load_saved(state).invite
    _homes(monkeypatch, tmp_path)
    monkeypatch.setattr(joining, "_choose_host", lambda args, progress: lan)  # ann, found again on the LAN
    monkeypatch.setattr("p2p.connect.join", refused)
    monkeypatch.setattr("sys.stdin", io.StringIO("n\n"))
    parser = argparse.ArgumentParser()
    add_join_arguments(parser)
    assert run_join(parser.parse_args(["--name", "bob"]), _pausing) == 1
    out, err = capsys.readouterr()
    assert out.count("Continue your unfinished match") == (0 if broken else 1)
    assert dialed == [lan] and "trumps join: nobody answers" in err
    assert "the unfinished match was not continued" not in err
    assert ("cannot be continued" in err) is broken
    assert state.read_text() == kept


def test_a_new_match_with_a_lan_host_gets_a_file_beside_the_one_kept_with_it(tmp_path: Path) -> None:
    lan = Invite((("127.0.0.1", 9),), "a" * 32, LAN_SECRET)
    first = joined_file(tmp_path, lan)
    first.write_text("kept")
    second = joined_file(tmp_path, lan)
    second.write_text("kept too")
    assert len({first, second, joined_file(tmp_path, lan)}) == 3
    assert {first, second} <= set(tmp_path.glob("joined-*.json"))  # where lan_joined looks
    invite = Invite.parse("127.0.0.1:9/" + "a" * 32 + "/" + "b" * 32)
    line = joined_file(tmp_path, invite)
    line.write_text("kept")
    assert joined_file(tmp_path, invite) == line  # the same join line finds its match again


@pytest.mark.net
def test_a_join_without_invite_lets_the_person_choose_among_saved_lan_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two LAN matches saved: both are listed, the newest first, with their hosts' ports (two hosts
    may share one machine), and the older one chosen is the one continued (its host, on port 19,
    is redialed)."""
    newer = _lan_saved(tmp_path, 9, 2_000_000)
    older = _lan_saved(tmp_path, 19, 1_000_000)
    status, browsed = _lan_join(monkeypatch, tmp_path, io.StringIO("2\n"), "--timeout", "1")
    out, err = capsys.readouterr()
    assert status == 1 and browsed == []
    listed = err.splitlines()[:3]
    assert listed[0] == "Unfinished matches you joined on your network:"
    assert re.fullmatch(r"  1\. against ann at 127\.0\.0\.1 port 9 \(game 1, move \d+\)", listed[1])
    assert re.fullmatch(r"  2\. against ann at 127\.0\.0\.1 port 19 \(game 1, move \d+\)", listed[2])
    assert "Continue which one? [1-2; Enter: 1; n: none, look for games on your network]" in out
    assert "Connecting to 127.0.0.1 port 19…" in err and "port 9…" not in err
    assert f"ann could not be reached within {SAVED_LIMIT:g} s (127.0.0.1:" in err and "refuses connections" in err
    assert "the match stays saved for another try" in err and "did not come back" not in err
    assert newer.exists() and older.exists()


@pytest.mark.net
@pytest.mark.parametrize("typed", ["n\n", "3\n", ""])
def test_choosing_none_of_the_saved_lan_matches_keeps_them_and_browses_the_lan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], typed: str
) -> None:
    for port, when in ((9, 2_000_000), (19, 1_000_000)):
        _lan_saved(tmp_path, port, when)
    status, browsed = _lan_join(monkeypatch, tmp_path, io.StringIO(typed))
    err = capsys.readouterr().err.splitlines()
    folder = tmp_path / "data" / "trumps" / "unfinished"
    assert status == 1 and browsed == ["browsed"]
    assert err[3:] == [
        f"The unfinished matches stay saved in {folder}; delete a file there to drop its match.",
        "trumps join: no game announces itself on your network",
    ]
    assert len(list(folder.glob("joined-*.json"))) == 2


def test_a_lan_entry_with_more_addresses_than_an_invite_holds_is_saved_with_the_first_ones(
    tmp_path: Path,
) -> None:
    from p2p.invite import MAX_ADDRESSES

    addresses = tuple((f"192.168.1.{n}", 4711) for n in range(1, MAX_ADDRESSES + 2))
    path = tmp_path / "joined.json"
    SavedMatch(path, tmp_path / "r.jsonl", Invite(addresses, "a" * 32, LAN_SECRET)).write()
    back = load_saved(path).invite
    assert back == Invite(addresses[:MAX_ADDRESSES], "a" * 32, LAN_SECRET)


@pytest.mark.net
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_closing_the_terminal_of_an_interactive_join_pauses_and_the_same_line_continues_it(
    tmp_path: Path,
) -> None:
    """Issue 12, item 4, in a real terminal: bob plays on the full screen in tmux; the terminal is
    closed (SIGHUP) mid-game; ann's bot waits; the same join line, answered Enter, finishes it."""
    socket = f"trumps-test-{uuid.uuid4().hex[:12]}"

    def tmux(*args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", socket, *args], capture_output=True, text=True, check=True, timeout=10
        ).stdout

    async def play(invite: Invite, until: Callable[[], bool]) -> None:
        env = [f"{key}={value}" for key, value in program_env(tmp_path / "bob").items() if key.startswith("XDG_")]
        command = shlex.join(["env", *env, *TRUMPS, "join", str(invite), "--name", "bob", "--yes"])
        tmux("new-session", "-d", "-s", "game", "-x", "100", "-y", "30", command + "; sleep 30")
        for _ in range(int(PROGRAM_LIMIT / 0.05)):
            if until():
                return
            screen = tmux("capture-pane", "-p", "-t", "game")
            if "Continue your unfinished match" in screen:
                tmux("send-keys", "-t", "game", "Enter")
            elif any(cue in screen for cue in ("Your trump suit?", "Your turn", "Enter takes")):
                tmux("send-keys", "-t", "game", "Tab", "Enter")
            await asyncio.sleep(0.05)
        raise AssertionError(tmux("capture-pane", "-p", "-t", "game"))

    def moves() -> int:
        return max((p.read_text().count('"t": "move"') for p in _records(tmp_path, "bob").glob("*.jsonl")), default=0)

    async def scenario() -> tuple[Outcome, str]:
        host, invite = await host_program(tmp_path, "--games", "1", "--timeout", "60")
        await play(invite, lambda: moves() >= 4)
        tmux("kill-session", "-t", "game")  # the terminal is closed: SIGHUP
        assert host.stderr is not None
        said = ""
        while "program stopped" not in said:
            try:
                line = (await asyncio.wait_for(host.stderr.readline(), PROGRAM_LIMIT)).decode()
            except TimeoutError:
                raise AssertionError(f"the host never said the program stopped; it said: {said}") from None
            assert line, f"the host ended instead of waiting: {said}"
            said += line
        assert list(_unfinished(tmp_path, "bob").glob("joined-*.json"))
        await play(invite, lambda: host.returncode is not None)
        return await outcome(host), said

    try:
        (status, summary, _), said = asyncio.run(scenario())
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=10)
    assert status == 0 and summary["end"] == "complete"
    assert "bob's program stopped; waiting up to" in said
    (record,) = _records(tmp_path, "bob").glob("*.jsonl")  # one record, continued
    verified = verify(record.read_text())
    assert verified.complete and verified.match.transcript.hex() == summary["transcript"]
    assert not list(_unfinished(tmp_path, "bob").glob("*.json"))
    # what bob's history shows: the one game, once (the screen went on in its record of it)
    history = subprocess.run([*TRUMPS, "history"], capture_output=True, text=True, env=program_env(tmp_path / "bob"),
                             timeout=PROGRAM_LIMIT, check=True).stdout  # fmt: skip
    (row,) = [line for line in history.splitlines() if " ann " in line]
    assert row.split()[4] in ("won", "lost", "draw") and "abandoned" not in history, history
    assert re.match(r"1 \d{4}-\d\d-\d\d \d\d:\d\d ann ", row), history  # when it began, and whom against


# ------------------------------------------- a match joined from the LAN list, without an invite


def _homes(monkeypatch: pytest.MonkeyPatch, root: Path) -> None:
    for variable, folder in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state")):
        monkeypatch.setenv(variable, str(root / folder))


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _pausing(
    channel: Channel, session: Session, me: Identity, home: Home, reconnector: Reconnector,
    saved: SavedMatch | None, restored: Verified | None,
) -> Report:  # fmt: skip
    """A bot's play (a ``Play``) whose program is stopped (``PAUSE``: SIGTERM) in game 1's third move."""
    from p2p.duel import Duel
    from p2p.duel_machine import PAUSE
    from p2p.liveness import Patience
    from p2p.players import BotPlayer

    duel = Duel(channel, session, me, BotPlayer("easy"), home.records, 30, None, reconnector,
                Patience(forfeit_after=30), None, saved)  # fmt: skip
    playing = asyncio.ensure_future(duel.run())
    for _ in range(int(PROGRAM_LIMIT / 0.01)):
        if duel.match.game is not None and len(duel.match.game.moves) >= 2:
            break
        await asyncio.sleep(0.01)
    playing.cancel(PAUSE)
    await playing
    raise AssertionError("a paused duel ends in CancelledError")


class _Peer(threading.Thread):
    """The other side, a bot in a thread (and event loop) of its own, waiting up to 30 s for the
    restarted side to come back; ``report`` once the match ended."""

    def __init__(self, play: Callable[[], Awaitable[Report]]) -> None:
        super().__init__(daemon=True)
        self.play = play
        self.report: Report | None = None

    def run(self) -> None:
        self.report = asyncio.run(asyncio.wait_for(self.play(), 3 * PROGRAM_LIMIT))

    def finished(self) -> Report:
        self.join(3 * PROGRAM_LIMIT)
        assert self.report is not None, "the peer did not finish"
        return self.report


async def _bot(channel: Channel, session: Session, side: Side, back: Reconnector) -> Report:
    from p2p.duel import Duel
    from p2p.liveness import Patience
    from p2p.players import BotPlayer

    duel = Duel(channel, session, side.me, BotPlayer("easy"), side.home.records, 30, None, back,
                Patience(forfeit_after=30))  # fmt: skip
    try:
        return await duel.run()
    finally:
        await duel.channel.close()


@pytest.mark.net
def test_a_lan_joined_match_is_continued_by_running_trumps_join_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Bob found ann in the LAN list (the empty secret, no invite line) and his program was stopped
    mid-game; ann's host, which no longer announces the game, waits. ``trumps join`` again finds the
    saved match with where ann listens, continues it without browsing, and the match completes."""
    from cli.net import joining
    from engine import Rules
    from p2p.connect import Listener, listening_socket
    from p2p.handshake import Terms
    from tests.support.peers import Side

    ann = Side.make(tmp_path, "ann")
    port = _free_port()
    lan = Invite((("127.0.0.1", port),), ann.me.fingerprint, LAN_SECRET)

    async def hosting() -> Report:
        async def person(name: str, address: str, code: str) -> bool:
            return True

        sock = listening_socket("127.0.0.1", port)
        async with Listener(sock, ann.me, "ann", Terms(Rules(), 1), ann.known, approve=person) as listener:
            channel, session = await listener.first()
            return await _bot(channel, session, ann, listener)

    host = _Peer(hosting)
    host.start()
    _homes(monkeypatch, tmp_path / "bob")
    monkeypatch.setattr(joining, "_choose_host", lambda args, progress: lan)  # bob picks ann from the list
    parser = argparse.ArgumentParser()
    add_join_arguments(parser)
    assert run_join(parser.parse_args(["--name", "bob", "--yes", "--timeout", "30"]), _pausing) == 1
    assert "paused; run the same command again to continue the match" in capsys.readouterr().err
    (state,) = (tmp_path / "bob" / "data" / "trumps" / "unfinished").glob("joined-*.json")
    assert load_saved(state).invite == lan  # where ann listens, kept for the restart

    def no_browsing(args: argparse.Namespace, progress: object) -> Invite:
        raise AssertionError("ann no longer announces the game: the saved entry is redialed")

    monkeypatch.setattr(joining, "_choose_host", no_browsing)
    again = parser.parse_args(["--name", "bob", "--bot", "easy", "--json", "--timeout", "30"])
    assert run_join(again) == 0  # the same command (a bot answers the question with yes)
    out, err = capsys.readouterr()
    assert "Continuing the unfinished match with ann" in err
    summary, ann_report = json.loads(out.splitlines()[-1]), host.finished()
    assert summary["end"] == ann_report.end == "complete"
    assert summary["transcript"] == ann_report.match.transcript.hex()
    assert not state.exists()


@pytest.mark.net
def test_a_host_restarted_over_a_lan_joined_match_takes_its_joiner_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ann let bob in from the LAN list; her program is stopped mid-game. ``trumps host`` again
    takes bob's LAN knock back (he has no invite secret), and only his: the match completes."""
    from cli.home import Home
    from cli.net import hosting
    from cli.net.arguments import add_host_arguments
    from cli.net.hosting import run_host
    from p2p.connect import Redial, join
    from p2p.identity import load_identity
    from p2p.saved import hosted_file
    from tests.support.peers import Side, accept_all

    class Unannounced:  # the LAN announcement, left out of a test (nothing is multicast)
        def __init__(self, *args: object) -> None:
            pass

        async def __aenter__(self) -> Unannounced:
            return self

        async def __aexit__(self, *exc: object) -> None:
            return None

    async def person(name: str, address: str, code: str) -> bool:
        return name == "bob"

    _homes(monkeypatch, tmp_path / "ann")
    monkeypatch.setattr("p2p.discovery.Announcement", Unannounced)
    monkeypatch.setattr("p2p.addresses.is_loopback", lambda bind: False)  # it would take no LAN knock
    monkeypatch.setattr(hosting, "_asker", lambda progress: person)
    port = _free_port()
    lan = Invite((("127.0.0.1", port),), load_identity(Home.default().identity_file).fingerprint, LAN_SECRET)
    bob = Side.make(tmp_path, "bob")

    async def joining() -> Report:
        for _ in range(int(PROGRAM_LIMIT / 0.05)):  # until ann's program listens
            try:
                channel, session = await join(lan, bob.me, "bob", bob.known, accept_all)
                break
            except (OSError, P2PError):
                await asyncio.sleep(0.05)
        return await _bot(channel, session, bob, Redial(lan, bob.me, "bob", bob.known, session, 0.05, 0.2))

    joiner = _Peer(joining)
    joiner.start()
    parser = argparse.ArgumentParser()
    add_host_arguments(parser)
    options = ["--port", str(port), "--bind", "127.0.0.1", "--no-map", "--name", "ann", "--timeout", "30"]
    assert run_host(parser.parse_args(options), _pausing) == 1
    assert "paused; run the same command again" in capsys.readouterr().err
    state = hosted_file(Home.default().unfinished)
    assert load_saved(state).lan  # bob came by the LAN knock: he will come back by it
    assert load_saved(state).joiner == "127.0.0.1"  # and from there
    monkeypatch.undo()  # as the host is started again: on loopback, with no one asked
    _homes(monkeypatch, tmp_path / "ann")
    reserved: list[object] = []
    from cli.net.continuing import back as waiting

    async def back(way: Any, *args: Any) -> Any:  # bob's source keeps its slot: no flood pushes him out
        reserved.append(way.listener.reception.admission.reserved)  # way: the listener, minding the router
        return await waiting(way, *args)

    monkeypatch.setattr(hosting, "back", back)
    assert run_host(parser.parse_args([*options, "--bot", "easy", "--json"])) == 0
    assert reserved == [source_of("127.0.0.1")]
    out, err = capsys.readouterr()
    assert "Continuing the unfinished match with bob" in err
    summary, bob_report = json.loads(out.splitlines()[-1]), joiner.finished()
    assert summary["end"] == bob_report.end == "complete" and bob_report.reconnects == 1
    assert summary["transcript"] == bob_report.match.transcript.hex()
    assert not state.exists()


@pytest.mark.net
def test_two_hosts_over_one_saved_match_never_both_continue_it(tmp_path: Path) -> None:
    """Attack (issue 19): ann's host killed mid-match, then ``trumps host`` started twice over its
    saved match, on two addresses of one port (127.0.0.1 and 127.0.0.2, which do not collide):
    both continued it under the same invite, appending to one record. Now the second is told that
    another program plays that match, and stops; the first continues it with bob to the end.

    Bob is paused (SIGSTOP) while the two start: with him back at once, easy bots could finish
    the match, and the first let go of it, before the second even looked (a slow start under load
    made the second host a new match and wait for a joiner)."""

    async def scenario() -> tuple[Outcome, Outcome, Outcome]:
        host, invite = await host_program(tmp_path, "--games", "2", "--timeout", "30")
        joiner = await join_program(tmp_path, invite, "--timeout", "30")
        await _moves_reach(tmp_path, "ann", 6)
        host.send_signal(signal.SIGKILL)
        await host.wait()
        joiner.send_signal(signal.SIGSTOP)
        try:
            first, _ = await host_program(tmp_path, "--games", "2", "--timeout", "30")  # continuing, on 127.0.0.1
            second = await asyncio.create_subprocess_exec(
                *TRUMPS, "host", "--port", "0", "--bind", "127.0.0.2", "--bot", "easy", "--json", "--name", "ann",
                "--no-map", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                env=program_env(tmp_path / "ann"),
            )  # fmt: skip
            refused = await outcome(second)
        finally:
            joiner.send_signal(signal.SIGCONT)
        return refused, await outcome(first), await outcome(joiner)

    (status, summary, err), first, joiner = asyncio.run(scenario())
    assert status == 1 and summary["end"] == "refused"
    assert "another trumps program is playing the match kept in" in err and "Continuing" not in err
    _same_complete_match(first, joiner)
    assert "Continuing the unfinished match with bob" in first[2]
    assert len(list(_records(tmp_path, "ann").glob("*.jsonl"))) == 1


@pytest.mark.net
@pytest.mark.parametrize("leaver", ["ann", "bob"])
def test_a_side_killed_and_back_after_the_limit_loses_the_game_in_both_books(
    tmp_path: Path, leaver: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Exit route "kill -9, never back" in either seat (docs/protocol.md, "Exit routes"): the
    stayer claims the game after its limit (the host used to get nothing when it was the one
    gone); the leaver, started again with the same line after its own limit, closes its saved
    match as lost by forfeit ("Coming back after the limit") and is not offered it again: both
    books agree, and ``trumps verify A B`` says so."""
    from cli.main import main as cli_main

    async def scenario() -> tuple[Outcome, tuple[int, str, str]]:
        # medium bots: a move takes longer than the 20 ms poll, so the kill lands in game 1, a few
        # moves after the 4th (easy bots could finish a game between two polls, and a kill at the
        # very end of a game is the boundary case this test does not cover)
        host, invite = await host_program(tmp_path, "--games", "2", "--timeout", "3", "--bot", "medium")
        joiner = await join_program(tmp_path, invite, "--timeout", "3", "--bot", "medium")
        await _moves_reach(tmp_path, leaver, 4)
        gone, stayer = (host, joiner) if leaver == "ann" else (joiner, host)
        gone.send_signal(signal.SIGKILL)
        await gone.wait()
        stayed = await outcome(stayer)
        await asyncio.sleep(3.5)  # the leaver's own limit passes too
        if leaver == "ann":  # it closes the old match before it shows a new invite
            again, _ = await host_program(tmp_path, "--games", "2", "--timeout", "3")
            again.send_signal(signal.SIGTERM)  # the new match it then hosts is not this test's
        else:  # it closes the old match, then finds nobody at the invite's address
            again = await join_program(tmp_path, invite, "--timeout", "3")
        return stayed, await _outcome_or_stopped(again)

    (status, stayed, err), (_, _, told) = asyncio.run(scenario())
    winner = 1 if leaver == "ann" else 0
    assert status == 0 and stayed["end"] == "forfeit", err
    assert not list(_unfinished(tmp_path, leaver).glob("*.json"))  # never offered again
    (mine,) = _records(tmp_path, leaver).glob("*.jsonl")
    note = verify(mine.read_text()).end
    assert note is not None and (note["end"], note["by"], note["winner"]) == ("forfeit", 1 - winner, winner)
    game = note["game"]  # bots may finish game 1 before the kill lands: game 2 is then the one
    assert f"may have claimed game {game} by forfeit, so it counts as lost" in told
    capsys.readouterr()
    assert cli_main(["verify", str(stayed["record"]), str(mine)]) == 1  # both INCOMPLETE
    assert f"both records award game {game} to player {winner}" in capsys.readouterr().out  # not disputed


async def _outcome_or_stopped(process: asyncio.subprocess.Process) -> tuple[int, str, str]:
    """The exit status, standard output and error of a program stopped while it waited."""
    out, err = await asyncio.wait_for(process.communicate(), PROGRAM_LIMIT)
    return process.returncode or 0, out.decode(), err.decode()


@pytest.mark.net
@pytest.mark.parametrize("leaver", ["ann", "bob"])
def test_a_side_stopped_past_the_limit_reads_the_claim_and_its_books_say_it_lost(tmp_path: Path, leaver: str) -> None:
    """Exit route "SIGSTOP, a suspended laptop" in either seat: the stayer hears nothing past its
    limit and claims; the stopped side, continued, reads the claim and finds it grounded (it sent
    nothing all that time: docs/protocol.md, "Forfeits", rule 3), or, when the closed line lost
    it, knows it could have been claimed against (rule 1): either way it records the game lost."""

    async def scenario() -> tuple[Outcome, Outcome]:
        host, invite = await host_program(tmp_path, "--games", "2", "--timeout", "2")
        joiner = await join_program(tmp_path, invite, "--timeout", "2")
        await _moves_reach(tmp_path, leaver, 4)
        stopped, stayer = (host, joiner) if leaver == "ann" else (joiner, host)
        stopped.send_signal(signal.SIGSTOP)
        try:
            stayed = await outcome(stayer)
            await asyncio.sleep(2.5)  # stopped for more than its own keep-alive gap and stall
        finally:
            stopped.send_signal(signal.SIGCONT)
        return stayed, await outcome(stopped)

    (status, stayed, err), (lost_status, lost, lost_err) = asyncio.run(scenario())
    winner = 1 if leaver == "ann" else 0
    assert status == 0 and stayed["end"] == "forfeit", err
    assert lost_status == 1 and lost["end"] == "forfeit", lost_err
    mine = verify(Path(str(lost["record"])).read_text()).end
    assert mine is not None and (mine["by"], mine["winner"]) == (1 - winner, winner)
