"""Stalls, absences and forfeit claims judged on a fake clock (no sockets, no sleeping)."""

from __future__ import annotations

from p2p.liveness import Liveness, Patience

PATIENCE = Patience(silent_after=6, forfeit_after=180, claim_grace=10)


def test_a_stall_is_timed_on_one_live_connection_over_which_the_peer_is_heard() -> None:
    clock = Liveness(PATIENCE, host=False, now=0.0)
    assert not clock.stalled(due_since=0, heard_at=179, live=True, now=179, limit=180)
    assert clock.stalled(due_since=0, heard_at=179, live=True, now=180, limit=180)
    assert not clock.stalled(due_since=0, heard_at=170, live=True, now=180, limit=180)  # silent: an absence
    assert not clock.stalled(due_since=0, heard_at=179, live=False, now=180, limit=180)  # down: an absence


def test_a_reconnection_restarts_the_stall_clock() -> None:
    """The peer got our link again with the resume: its thinking time counts from there."""
    clock = Liveness(PATIENCE, host=True, now=0.0)
    clock.connected(100.0)
    assert not clock.stalled(due_since=0, heard_at=250, live=True, now=250, limit=180)
    assert clock.stall_wait(due_since=0, now=250, limit=180) == 30
    assert clock.stalled(due_since=0, heard_at=280, live=True, now=280, limit=180)


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
