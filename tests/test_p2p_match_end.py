"""docs/protocol.md, "Exit routes: what each way out costs, in either seat", as the end-of-match
table decides it (p2p/match_end.py), fed plain values: for each route the stayer's record and the
leaver's, in both seats. The same routes played against the real program are
tests/test_exit_routes.py's."""

from __future__ import annotations

import pytest

from p2p.errors import (
    CheatError,
    ConnectionClosed,
    Forfeit,
    MatchLost,
    PeerAborted,
    PeerBusy,
    TamperedFrame,
)
from p2p.match_end import COMPLETE, Standing, failure_note, late_return_end, match_end, quit_ending
from p2p.messages import Abort

LIMIT = 180.0
DEALT = Standing(game=2, unfinished=True, deal_known=(True, True), forfeits=(2, 2))
"""Game 2 of the match dealt: both sides could know the deal."""
UNDEALT = Standing(game=2, unfinished=True, deal_known=(False, False), forfeits=(2, 2))
"""Game 2 set up, no reveal in yet."""
PLAYED = Standing(game=3, unfinished=False, deal_known=(True, True), forfeits=(None, None))
"""Every game played: only a final signature is missing."""
BEFORE = "(before the deal of game 2)"
AFTER = "(after the deal of game 2 was revealed)"
SEATS = pytest.mark.parametrize("stayer", [0, 1], ids=["stayer-seat-0", "stayer-seat-1"])
"""The stayer's seat; the leaver holds the other."""


def items(note: dict[str, object] | None) -> list[tuple[str, object]]:
    """The note's keys and values in order: the order in which the record writes them."""
    assert note is not None
    return list(note.items())


@SEATS
def test_a_quit_after_the_deal_is_abandoned_and_won_by_the_stayer_and_lost_by_the_leaver(stayer: int) -> None:
    leaver = 1 - stayer
    kept = match_end(PeerAborted("quit", "the player left"), stayer, DEALT)
    assert (kept.end, kept.awarded, kept.tell) == ("abandoned", stayer, None)
    detail = f"the peer ended the session (quit): the player left {AFTER}"
    assert items(kept.note) == [
        ("end", "abandoned"),
        ("detail", detail),
        ("by", leaver),
        ("game", 2),
        ("winner", stayer),
    ]
    left = quit_ending(leaver, DEALT, live=True)
    assert (left.end, left.awarded, left.tell) == (
        "quit",
        stayer,
        Abort(reason="quit", detail="the player left"),
    )
    assert items(left.note) == [
        ("end", "quit"),
        ("detail", "this side left"),
        ("by", leaver),
        ("game", 2),
        ("winner", stayer),
    ]


@SEATS
def test_a_quit_on_a_line_that_is_down_tells_nobody(stayer: int) -> None:
    assert quit_ending(1 - stayer, DEALT, live=False).tell is None


@SEATS
def test_an_abort_with_another_reason_after_the_deal_is_aborted_and_won_by_the_stayer(stayer: int) -> None:
    kept = match_end(PeerAborted("bored", "enough"), stayer, DEALT)
    detail = f"the peer ended the session (bored): enough {AFTER}"
    assert (kept.end, kept.awarded, kept.tell) == ("aborted", stayer, None)
    assert items(kept.note) == [
        ("end", "aborted"),
        ("detail", detail),
        ("by", 1 - stayer),
        ("game", 2),
        ("winner", stayer),
    ]


@SEATS
def test_a_baseless_claim_is_abandoned_and_won_by_the_stayer_while_the_claimant_keeps_its_claim(
    stayer: int,
) -> None:
    leaver = 1 - stayer
    kept = match_end(PeerAborted("forfeit", "silent"), stayer, DEALT, claim_grounded=False)
    detail = f"the peer ended the session (forfeit): silent {AFTER}"
    assert (kept.end, kept.awarded) == ("abandoned", stayer)
    assert items(kept.note) == [
        ("end", "abandoned"),
        ("detail", detail),
        ("by", leaver),
        ("game", 2),
        ("winner", stayer),
    ]
    claimed = match_end(Forfeit("silent for 200 s", award=True), leaver, DEALT)  # the claimant's own record
    assert (claimed.end, claimed.awarded) == ("forfeit", leaver)
    assert items(claimed.note) == [
        ("end", "forfeit"), ("detail", f"silent for 200 s {AFTER}"), ("by", stayer), ("game", 2), ("winner", leaver),
    ]  # fmt: skip
    assert claimed.tell == Abort(reason="forfeit", detail="silent for 200 s")


@SEATS
def test_a_signed_violation_is_a_cheat_won_by_the_stayer_with_the_evidence_kept(stayer: int) -> None:
    violation = CheatError("an illegal move")
    violation.evidence = {"by": 1 - stayer, "t": "move"}
    kept = match_end(violation, stayer, DEALT)
    assert (kept.end, kept.awarded) == ("cheat", stayer)
    assert items(kept.note) == [
        ("end", "cheat"), ("detail", "an illegal move"), ("by", 1 - stayer), ("evidence", violation.evidence),
        ("game", 2), ("winner", stayer),
    ]  # fmt: skip
    assert kept.tell == Abort(reason="cheat", detail="an illegal move")


@SEATS
def test_a_stall_or_a_stopped_program_is_claimed_by_the_stayer_and_lost_by_the_leaver_who_reads_the_claim(
    stayer: int,
) -> None:
    leaver = 1 - stayer
    for cause in ("stall", "absence"):
        kept = match_end(Forfeit("no move within 180 s", award=True, cause=cause), stayer, DEALT)
        assert (kept.end, kept.awarded) == ("forfeit", stayer)
        assert items(kept.note) == [
            ("end", "forfeit"), ("detail", f"no move within 180 s {AFTER}"), ("by", leaver), ("game", 2),
            ("winner", stayer),
        ]  # fmt: skip
    left = match_end(PeerAborted("forfeit", "no move within 180 s"), leaver, DEALT, claim_grounded=True)
    assert (left.end, left.awarded, left.tell) == ("forfeit", stayer, None)
    detail = f"the peer ended the session (forfeit): no move within 180 s {AFTER}"
    assert items(left.note) == [
        ("end", "forfeit"),
        ("detail", detail),
        ("by", leaver),
        ("game", 2),
        ("winner", stayer),
    ]


@SEATS
def test_a_leaver_never_back_or_back_after_the_limit_counts_the_game_lost_on_its_own_clock(
    stayer: int,
) -> None:
    """kill -9, a crash, a cut line, SIGTERM: started again past the limit; back after the limit,
    the stayer still there: its own clock, or the host's sealed ``busy``."""
    leaver = 1 - stayer
    restarted = late_return_end(200.0, LIMIT, False, DEALT, leaver)
    assert items(restarted) == [
        ("end", "forfeit"),
        ("detail", "this side was away for 200 s, past its 180 s limit: the peer may have claimed the game"),
        ("by", leaver), ("game", 2), ("winner", stayer),
    ]  # fmt: skip
    told = match_end(PeerBusy("the match is over"), leaver, DEALT, away=200.0, limit=LIMIT)
    assert (told.end, told.awarded, told.tell) == ("forfeit", stayer, None)
    assert items(told.note) == [
        ("end", "forfeit"),
        ("detail", "this side was away for 200 s, past its 180 s limit: the host says the match is over"),
        ("by", leaver), ("game", 2), ("winner", stayer),
    ]  # fmt: skip


@SEATS
def test_a_busy_host_before_the_limit_left_on_its_own_authority(stayer: int) -> None:
    """The host (``stayer``) answers its joiner's return within the limit that the match is over."""
    joiner = 1 - stayer
    told = match_end(PeerBusy("the match is over"), joiner, DEALT, away=5.0, limit=LIMIT)
    assert (told.end, told.awarded) == ("abandoned", joiner)
    detail = "the host ended the match when this side came back after 5 s, within its 180 s limit"
    assert items(told.note) == [
        ("end", "abandoned"),
        ("detail", detail),
        ("by", stayer),
        ("game", 2),
        ("winner", joiner),
    ]
    assert late_return_end(5.0, LIMIT, False, DEALT, joiner) is None  # no word from the host: it goes on


@SEATS
def test_a_restart_without_the_saved_match_is_claimed_at_once_and_the_new_match_says_so(stayer: int) -> None:
    leaver = 1 - stayer
    kept = match_end(Forfeit("back without the match", award=True, cause="lost"), stayer, DEALT)
    assert (kept.end, kept.awarded) == ("forfeit", stayer)
    fresh = Standing(game=1, unfinished=True, deal_known=(False, False), forfeits=(1, 1))
    new = match_end(MatchLost("an earlier match"), leaver, fresh)
    assert (new.end, new.awarded) == ("aborted", None)
    assert items(new.note) == [
        ("end", "aborted"),
        ("detail", "an earlier match (before the deal of game 1)"),
        ("by", None),
    ]
    assert new.tell == Abort(reason="lost", detail="this program has no match to resume")


@SEATS
def test_before_the_deal_the_routes_that_end_the_match_at_once_award_nothing(stayer: int) -> None:
    leaver = 1 - stayer
    violation = CheatError("an out-of-turn commit")
    for error in (
        PeerAborted("quit", "x"),
        PeerAborted("bored", "x"),
        PeerAborted("forfeit", "x"),
        violation,
    ):
        kept = match_end(error, stayer, UNDEALT)
        assert kept.awarded is None and kept.note is not None and "winner" not in kept.note
        assert str(kept.note["detail"]).endswith(BEFORE) or error is violation
    left = quit_ending(leaver, UNDEALT, live=True)
    assert items(left.note) == [("end", "quit"), ("detail", "this side left"), ("by", leaver)]


@SEATS
def test_the_second_revealer_knows_the_deal_before_sending_its_reveal(stayer: int) -> None:
    leaver = 1 - stayer
    seen = Standing(game=2, unfinished=True, deal_known=(leaver == 0, leaver == 1), forfeits=(2, 2))
    assert match_end(PeerAborted("quit", "x"), stayer, seen).awarded == stayer
    assert quit_ending(stayer, seen, live=True).awarded is None  # the stayer had not seen it


@SEATS
def test_after_every_game_is_played_nothing_is_awarded_and_a_claim_is_abandoned(stayer: int) -> None:
    leaver = 1 - stayer
    claimed = match_end(Forfeit("no final within 180 s"), stayer, PLAYED)
    assert (claimed.end, claimed.awarded) == ("abandoned", None)
    detail = "no final within 180 s (after the deal of game 3 was revealed)"
    assert items(claimed.note) == [("end", "abandoned"), ("detail", detail), ("by", leaver)]
    assert claimed.tell == Abort(reason="forfeit", detail="no final within 180 s")
    assert match_end(PeerAborted("quit", "x"), stayer, PLAYED).awarded is None
    assert quit_ending(leaver, PLAYED, live=True).awarded is None


@SEATS
def test_a_claim_lost_with_the_line_gives_the_claimant_s_record_the_game_to_the_peer(stayer: int) -> None:
    """docs/protocol.md, "Forfeits", rule 1: the claimant had owed its link that long first."""
    claimed = match_end(Forfeit("unreachable for 200 s", award=False), stayer, DEALT)
    assert (claimed.end, claimed.awarded) == ("forfeit", 1 - stayer)
    detail = f"unreachable for 200 s {AFTER}; but this side had owed its link or sent nothing that long first"
    assert items(claimed.note) == [
        ("end", "forfeit"),
        ("detail", detail),
        ("by", stayer),
        ("game", 2),
        ("winner", 1 - stayer),
    ]


@SEATS
def test_a_vanished_peer_or_a_corrupted_line_with_no_way_back_awards_nothing(stayer: int) -> None:
    gone = match_end(ConnectionClosed("the peer stopped sending"), stayer, DEALT)
    assert (gone.end, gone.awarded, gone.tell) == ("abandoned", None, None)
    assert items(gone.note) == [
        ("end", "abandoned"),
        ("detail", f"the peer stopped sending {AFTER}"),
        ("by", 1 - stayer),
    ]
    corrupted = match_end(TamperedFrame("a frame failed authentication"), stayer, DEALT)
    assert (corrupted.end, corrupted.awarded) == ("corrupted", None)
    detail = "the connection was corrupted in transit: a frame failed authentication"
    assert items(corrupted.note) == [("end", "corrupted"), ("detail", detail), ("by", None)]


@SEATS
def test_a_complete_match_has_no_note_and_a_local_failure_blames_this_side(stayer: int) -> None:
    assert (COMPLETE.end, COMPLETE.note, COMPLETE.awarded) == ("complete", None, None)
    note = failure_note(stayer, OSError("disk full"))
    assert items(note) == [
        ("end", "error"),
        ("detail", "this side failed: OSError('disk full')"),
        ("by", stayer),
    ]
