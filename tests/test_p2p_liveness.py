"""Stalls, silences, absences and forfeit claims: the machine on plain numbers, and the duel
driving it over the in-memory line on a fake clock (its readings are exactly what it reports)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from engine import Rules
from p2p.duel import Duel
from p2p.handshake import Terms
from p2p.liveness import Liveness, Patience, Silence
from p2p.messages import Ping
from p2p.players import BotPlayer
from tests.support.peers import Side, memory_pair, run

PATIENCE = Patience(silent_after=6, forfeit_after=180, claim_grace=10)


def test_a_stall_is_timed_on_one_live_connection_over_which_the_peer_is_heard() -> None:
    clock = Liveness(PATIENCE, now=0.0)
    clock.awaiting(0, limit=180)
    clock.heard(179)
    assert not clock.stalled(179)
    assert clock.stalled(180)
    assert not clock.stalled(185)  # silent 6 s: an absence, not a stall
    clock.lost(181)
    assert not clock.live and not clock.stalled(181)  # down: an absence


def test_a_reconnection_that_resent_our_link_restarts_the_stall_clock() -> None:
    """The peer got our link again with the resume: its thinking time counts from there."""
    clock = Liveness(PATIENCE, now=0.0)
    clock.awaiting(0, limit=180)
    clock.lost(50.0)
    assert clock.stall_wait(60) == 0.5  # down: look again soon
    clock.connected(100.0, resent=True)
    assert clock.live
    clock.heard(250)
    assert not clock.stalled(250)
    assert clock.stall_wait(250) == 30
    clock.heard(280)
    assert clock.stalled(280)


def test_a_stall_wait_that_is_over_while_the_peer_is_not_heard_looks_again_soon() -> None:
    clock = Liveness(PATIENCE, now=0.0)
    clock.awaiting(0, limit=180)
    assert not clock.stalled(200)  # quiet since 0: not heard
    assert clock.stall_wait(200) == 0.05


def test_a_restored_duel_starts_on_a_connection_still_to_be_resumed() -> None:
    clock = Liveness(PATIENCE, now=0.0, live=False)
    clock.awaiting(0, limit=180)
    assert not clock.stalled(500)
    clock.connected(510.0)
    assert clock.live and clock.away(515.0) == 5


def test_keepalives_go_out_every_keepalive_seconds_of_the_clock() -> None:
    clock = Liveness(Patience(keepalive=2), now=10.0)
    assert clock.keepalive_wait(10.0) == 2
    assert clock.keepalive_wait(11.5) == 0.5
    assert clock.keepalive_wait(13.0) == 0  # overdue (this program was stopped): at once
    clock.pinged(13.0)
    assert clock.keepalive_wait(13.0) == 2


def test_a_quiet_peer_is_shown_silent_then_its_connection_presumed_dead() -> None:
    patience = Patience(silent_after=6, dead_after=20, forfeit_after=180, stall=2)
    clock = Liveness(patience, now=0.0)
    assert clock.read_wait(0.0) == 6
    assert clock.read_timed_out(6.0) == Silence(quiet=6.0, dead=False)
    assert clock.read_wait(6.0) == 1  # shown silent: counted up each second
    assert clock.read_timed_out(7.0) == Silence(quiet=7.0, dead=False)
    clock.read_wait(19.0)
    assert clock.read_timed_out(20.0) == Silence(quiet=20.0, dead=True)
    assert clock.away_too_long(clock.away(180.0))


def test_a_frame_ends_the_silence_shown_and_restarts_the_count() -> None:
    clock = Liveness(Patience(silent_after=6, dead_after=20), now=0.0)
    clock.read_wait(0.0)
    clock.read_timed_out(6.0)
    assert clock.heard(6.5)  # the silence shown ends: the screen clears it
    assert not clock.heard(7.0)  # nothing was shown since
    assert clock.read_wait(7.0) == 6
    assert clock.read_timed_out(13.0) == Silence(quiet=6.0, dead=False)
    clock.connected(14.0)  # a fresh connection: nothing shown, nothing heard missing
    assert clock.read_wait(14.0) == 6


def test_a_wait_that_overran_its_timeout_reads_what_came_before_judging() -> None:
    """This program was stopped (SIGSTOP, a suspended laptop) during the wait: no silence yet."""
    clock = Liveness(Patience(silent_after=6, dead_after=20, stall=2), now=0.0)
    clock.read_wait(0.0)
    assert clock.read_timed_out(8.0) == Silence(quiet=8.0, dead=False)  # overran by 2: not more
    clock.read_wait(100.0)
    assert clock.read_timed_out(109.0) is None  # 1 s wait, 9 s gone: read again first
    clock.read_wait(109.0)
    assert clock.read_timed_out(110.0) == Silence(quiet=110.0, dead=True)


def test_either_seat_is_awarded_a_game_for_the_peers_absence_past_the_limit() -> None:
    """The seats are equal: the host's and the joiner's clocks award an absence alike."""
    clock = Liveness(PATIENCE, now=0)
    assert clock.absence_awards(1.0)
    assert clock.away_too_long(180)
    assert not clock.away_too_long(179.9)


def test_a_claim_is_baseless_unless_we_owed_our_link_or_sent_nothing_for_the_limit() -> None:
    """Attack (issue 19): right after each link the honest side sent, and whenever it owed one, a
    ``abort forfeit`` used to award nothing, so a loser escaped by claiming. Now a claim has grounds
    only when we owed our link, or sent nothing, for the limit less the margin (180 - 10 s here),
    or stopped doing so less than ``claim_grace`` ago (the claim crossed our link on the way)."""
    clock = Liveness(PATIENCE, now=0.0)
    for moment in (1.0, 2.0):  # we keep the line alive: nothing to claim
        clock.pinged(moment)
    assert not clock.claim_has_grounds(2.5)
    clock.owe(3.0)
    assert not clock.claim_has_grounds(4.0)  # owed for a second
    for moment in range(4, 173, 2):  # keep-alives go out while our player thinks
        clock.pinged(float(moment))
    assert not clock.claim_has_grounds(172.9)
    assert clock.claim_has_grounds(173.0)  # owed for 170 s: our player stalled
    clock.sent(180.0)
    clock.pinged(182.0)
    assert clock.claim_has_grounds(190.0)  # it crossed our late link on the way
    assert not clock.claim_has_grounds(190.1)
    clock.owe(191.0)
    clock.sent(192.0)  # a quick link: no grounds again
    assert not clock.claim_has_grounds(193.0)


def test_a_claim_has_grounds_after_this_program_was_stopped_past_the_limit() -> None:
    """SIGSTOP, a suspended laptop: no keep-alive went out for the limit, though we owed nothing."""
    clock = Liveness(PATIENCE, now=0.0)
    clock.pinged(2.0)
    assert clock.claim_has_grounds(180.0)  # still stopped, or just woken before the first ping
    clock.pinged(181.0)  # the first keep-alive after waking
    assert clock.claim_has_grounds(191.0)
    assert not clock.claim_has_grounds(191.1)


def test_time_down_is_not_silence_but_a_claim_may_cross_a_long_return() -> None:
    """While the line is down nothing is sent, and that is an absence each side judges on its own;
    only a return after the limit leaves ``claim_grace`` for a claim made just before it."""
    clock = Liveness(PATIENCE, now=0.0)
    clock.lost(1.0)
    clock.connected(30.0)
    assert not clock.claim_has_grounds(31.0)
    clock.lost(32.0)
    clock.connected(300.0)
    assert clock.claim_has_grounds(310.0)
    assert not clock.claim_has_grounds(310.1)


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
