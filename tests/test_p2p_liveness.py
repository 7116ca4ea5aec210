"""Stalls, silences, absences and forfeit claims: the machine on plain numbers, and the duel
driving it over the in-memory line on a fake clock (its readings are exactly what it reports)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from engine import Rules
from p2p.duel import Duel
from p2p.handshake import Terms
from p2p.liveness import Liveness, Patience
from p2p.messages import Ping
from p2p.players import BotPlayer
from tests.test_p2p_helpers import Side, memory_pair, run

PATIENCE = Patience(silent_after=6, forfeit_after=180, claim_grace=10)


def test_a_stall_is_timed_on_one_live_connection_over_which_the_peer_is_heard() -> None:
    clock = Liveness(PATIENCE, host=False, now=0.0)
    clock.heard(179)
    assert not clock.stalled(due_since=0, live=True, now=179, limit=180)
    assert clock.stalled(due_since=0, live=True, now=180, limit=180)
    assert not clock.stalled(due_since=0, live=False, now=180, limit=180)  # down: an absence
    assert not clock.stalled(due_since=0, live=True, now=185, limit=180)  # silent 6 s: an absence


def test_a_reconnection_restarts_the_stall_clock() -> None:
    """The peer got our link again with the resume: its thinking time counts from there."""
    clock = Liveness(PATIENCE, host=True, now=0.0)
    clock.connected(100.0)
    clock.heard(250)
    assert not clock.stalled(due_since=0, live=True, now=250, limit=180)
    assert clock.stall_wait(due_since=0, now=250, limit=180) == 30
    clock.heard(280)
    assert clock.stalled(due_since=0, live=True, now=280, limit=180)


def test_only_the_host_is_awarded_a_game_for_the_peers_absence() -> None:
    assert Liveness(PATIENCE, host=True, now=0).absence_awards
    assert not Liveness(PATIENCE, host=False, now=0).absence_awards
    assert Liveness(PATIENCE, host=False, now=0).away_too_long(180)
    assert not Liveness(PATIENCE, host=False, now=0).away_too_long(179.9)


def test_a_claim_that_crossed_our_link_or_came_while_we_owe_it_awards_nothing() -> None:
    clock = Liveness(PATIENCE, host=True, now=0.0)
    assert not clock.crossed_claim(50.0)  # we owed nothing, sent nothing: a baseless claim
    clock.owe(60.0)
    assert clock.crossed_claim(61.0)
    clock.sent(70.0)
    assert clock.crossed_claim(80.0)  # within the grace: it crossed our link on the way
    assert not clock.crossed_claim(80.1)


async def _until(condition: Callable[[], bool]) -> None:
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the duel never got there")


def test_silence_is_judged_on_the_duels_own_clock(tmp_path: Path) -> None:
    """The joiner's duel reads a fake clock that jumps: what it shows and why it gives up are
    exactly that clock's readings, heard frames included (none from the real clock)."""
    fake = [1000.0]
    statuses: list[str] = []

    async def scenario() -> str:
        ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
        pair = await memory_pair(ann, bob, Terms(Rules(), 1))
        patience = Patience(keepalive=60, silent_after=0.05, dead_after=30, forfeit_after=100)
        duel = Duel(
            pair.join_channel, pair.join_session, bob.me, BotPlayer("easy"), bob.home.records, None,
            patience=patience, status=lambda text: statuses.append(str(text)), now=lambda: fake[0],
        )  # fmt: skip
        playing = asyncio.create_task(duel.run())
        fake[0] = 1007.0
        await _until(lambda: "ann silent for 7 s" in statuses)
        fake[0] = 1010.0
        await pair.host_channel.send(Ping())  # heard at 1010: the silence shown ends
        await _until(lambda: statuses[-1] == "")
        fake[0] = 1041.0  # 31 s after the ping: past the dead limit
        report = await playing
        await pair.host_channel.close()
        return str(report.error)

    error = run(scenario())
    assert error == "nothing from ann for 31 s: the connection is presumed dead"
    assert [line for i, line in enumerate(statuses) if line not in statuses[:i]] == ["ann silent for 7 s", ""]
