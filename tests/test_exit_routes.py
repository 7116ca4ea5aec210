"""docs/protocol.md, "Exit routes: what each way out costs, in either seat", played against the real
program: the peer written from the document alone (``tests/interop_peer.py``) leaves a dealt game
by each route that ends the match while connected — quit, another abort reason, a baseless claim, a
signed violation, stalling with keep-alives going, a restart without the saved match — as the
joiner of the real ``trumps host --bot`` and as the host of the real ``trumps join --bot``. Each
time the real program, the stayer, wins the game: its ``--json`` summary, its record's end note and
``trumps verify`` (INCOMPLETE: the signed prefix checks) say so. The routes that end in an absence
(kill -9, SIGSTOP, SIGTERM never back) are tests/test_p2p_restart.py's and tests/test_p2p_e2e.py's."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine import Rules
from tests import interop_peer
from tests.interop_peer import Deviation, Invite, Left, PeerAborted

pytestmark = pytest.mark.net

TRUMPS = [sys.executable, "-m", "cli"]
LIMIT = 20.0
"""Seconds any wait may take, and the real program's forfeit limit where nobody stalls."""
STALL_LIMIT = 2.0
"""The real program's forfeit limit when the interop peer stalls: the claim comes after it."""
SEATS = pytest.mark.parametrize("real", [0, 1], ids=["real-host", "real-joiner"])
"""The real program's seat: the host (the interop peer joins it) or the joiner (the peer hosts it)."""


@dataclass(frozen=True)
class Stayer:
    """How the real program ended the match the interop peer left."""

    home: Path
    status: int
    summary: dict[str, object]
    err: str

    @property
    def record(self) -> Path:
        return Path(str(self.summary["record"]))

    @property
    def note(self) -> dict[str, object]:
        """The record's end note, its last line."""
        note: dict[str, object] = json.loads(self.record.read_text().splitlines()[-1])
        return note

    def verify(self) -> tuple[int, str]:
        """``trumps verify`` of the record: its exit status and what it printed."""
        verifier = _trumps(self.home, "verify", str(self.record))
        out, _ = verifier.communicate(timeout=LIMIT)
        return verifier.returncode, out


def _trumps(home: Path, *arguments: str) -> subprocess.Popen[str]:
    """The real program, a bot of its own data and configuration under ``home``."""
    env = os.environ | {
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
        "LANGUAGE": "en",
        "LC_ALL": "C.UTF-8",
    }
    return subprocess.Popen(
        [*TRUMPS, *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    )


def _leave(
    home: Path, real: int, deviation: Deviation, limit: float = LIMIT, peer_limit: float | None = None
) -> tuple[Exception, Stayer]:
    """Play one game against the real program in seat ``real`` (forfeit limit ``limit``; the
    interop peer states ``peer_limit``, by default the same), the interop peer departing as
    ``deviation`` says: how the peer's side ended (:class:`Left`, or the real program's
    ``abort``) and how the real program's did."""
    bot = ("--bot", "easy", "--json", "--timeout", str(limit))
    stated = round((limit if peer_limit is None else peer_limit) * 1000)
    with contextlib.ExitStack() as stack:
        if real == 0:
            process = _trumps(
                home, "host", "--port", "0", "--bind", "127.0.0.1", "--no-map", "--name", "ann", *bot
            )
            stack.callback(_stop, process)
            assert process.stdout is not None
            invite = Invite.parse(process.stdout.readline().split("trumps join ", 1)[1])
            play = functools.partial(interop_peer.join, invite, "bob", LIMIT, deviation, stated)
        else:
            identity, secret = Ed25519PrivateKey.generate(), os.urandom(20)
            listener = stack.enter_context(socket.create_server(("127.0.0.1", 0)))
            listener.settimeout(LIMIT)
            line = interop_peer.invite_line([("127.0.0.1", listener.getsockname()[1])], identity, secret)
            process = _trumps(home, "join", line, "--name", "bob", *bot)
            stack.callback(_stop, process)
            voluntary = Rules(pickup="voluntary")  # not the default: the real joiner plays what is offered
            play = functools.partial(
                interop_peer.host, listener, secret, identity, voluntary, 1, deviation, stated
            )
        with pytest.raises((Left, PeerAborted)) as ended:
            play()
        out, err = process.communicate(timeout=LIMIT)
    assert out, err
    return ended.value, Stayer(home, process.returncode, json.loads(out.splitlines()[-1]), err)


def _stop(process: subprocess.Popen[str]) -> None:
    process.kill()
    process.communicate(timeout=LIMIT)


def _assert_the_stayer_won(stayer: Stayer, real: int, end: str) -> None:
    """The real program ended ``end``, holding the interop peer responsible, the game its own; its
    record verifies as far as it goes (INCOMPLETE, status 1)."""
    summary, note = stayer.summary, stayer.note
    assert stayer.status == 0, stayer.err  # a game awarded to this side is a result
    assert summary["seat"] == real and summary["end"] == end, stayer.err
    assert summary["result"] == ["1-0 forfeit" if real == 0 else "0-1 forfeit"], summary
    assert (note["end"], note["by"], note["game"], note["winner"]) == (end, 1 - real, 1, real), note
    status, out = stayer.verify()
    assert status == 1 and "INCOMPLETE" in out, out


@SEATS
@pytest.mark.parametrize(
    ("reason", "end"),
    [("quit", "abandoned"), ("bored", "aborted"), ("lost", "aborted"), ("forfeit", "abandoned")],
    ids=["quit", "another-reason", "lost-while-connected", "baseless-claim"],
)
def test_an_abort_after_the_deal_gives_the_stayer_the_game_at_once(
    tmp_path: Path, real: int, reason: str, end: str
) -> None:
    """Quit is ``abandoned``, any other reason ``aborted``; a ``forfeit`` claim while the real
    program owed nothing (it had just moved, well within its limit) is baseless: ``abandoned``."""
    left, stayer = _leave(tmp_path, real, Deviation(abort_before_move=(reason, 2)))
    assert isinstance(left, Left) and left.how == reason
    _assert_the_stayer_won(stayer, real, end)


@SEATS
def test_a_signed_violation_is_a_cheat_and_gives_the_stayer_the_game(tmp_path: Path, real: int) -> None:
    cheated, stayer = _leave(tmp_path, real, Deviation(bad_hash_at_move=2))
    assert isinstance(cheated, PeerAborted) and cheated.reason == "cheat"
    _assert_the_stayer_won(stayer, real, "cheat")
    evidence = stayer.note["evidence"]
    assert isinstance(evidence, dict) and evidence["by"] == 1 - real and evidence["hash"] == bytes(32).hex()


@SEATS
def test_a_peer_connected_but_never_moving_is_claimed_against_past_the_limit(
    tmp_path: Path, real: int
) -> None:
    claimed, stayer = _leave(tmp_path, real, Deviation(stall_before_move=2), STALL_LIMIT)
    assert isinstance(claimed, PeerAborted) and claimed.reason == "forfeit"  # the staller reads the claim
    _assert_the_stayer_won(stayer, real, "forfeit")
    assert "did not send its move within" in str(stayer.summary["error"])  # a stall, not a dead line


@SEATS
def test_two_sides_stating_different_limits_both_judge_by_the_longer(tmp_path: Path, real: int) -> None:
    """The real program says ``--timeout 2``, the peer states 4 s in its offer or accept: the
    stall is claimed only after 4 s, so that the staller's own clock agrees it was claimable."""
    claimed, stayer = _leave(tmp_path, real, Deviation(stall_before_move=2), STALL_LIMIT, 2 * STALL_LIMIT)
    assert isinstance(claimed, PeerAborted) and claimed.reason == "forfeit"
    _assert_the_stayer_won(stayer, real, "forfeit")
    assert f"did not send its move within {2 * STALL_LIMIT:g} s" in str(stayer.summary["error"])


@SEATS
def test_a_peer_back_without_the_saved_match_is_claimed_against_at_once(tmp_path: Path, real: int) -> None:
    left, stayer = _leave(tmp_path, real, Deviation(lost_before_move=2))
    assert isinstance(left, Left) and left.how == "lost"
    _assert_the_stayer_won(stayer, real, "forfeit")
    error = str(stayer.summary["error"])
    assert "came back after" in error and "without the match" in error, error
