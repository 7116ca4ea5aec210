"""The duel's decisions, fed as events to :class:`~p2p.duel_machine.DuelMachine`: no sockets, no
event loop, no clock but the numbers given. The real-socket duel tests (tests/test_p2p_duel.py,
tests/test_p2p_resume.py, tests/test_exit_routes.py) check the driver carries these out."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from cli.app.duel_summary import award_words
from engine import Rules
from p2p.duel import Report
from p2p.duel_machine import PAUSE, Action, Advanced, DuelMachine, Keep, Record, Said, Show, Touch, minutes
from p2p.errors import ConnectionClosed, Forfeit, P2PError, PeerAborted, PeerTimeout, ProtocolViolation
from p2p.handshake import Send, Terms
from p2p.liveness import Patience
from p2p.match_end import Standing, late_return_end
from p2p.messages import Bye, Chat, Commit, Message, MoveMsg, Ping
from tests.support.handshakes import identity, session_pair

LIMIT = 10.0


def duel_pair(
    games: int = 1, peer_timeout: float | None = None, auto_claim: bool = True, restart_safe: bool = False
) -> tuple[DuelMachine, DuelMachine]:
    """The host's and the joiner's machines of one fresh match, at time 0."""
    ann, bob = identity(), identity()
    pair = session_pair(ann, bob, Terms(Rules(), games))
    patience = Patience(forfeit_after=LIMIT, auto_claim=auto_claim, dead_after=20.0)
    return (
        DuelMachine(pair.host, ann.key, patience, 0.0, peer_timeout=peer_timeout, restart_safe=restart_safe),
        DuelMachine(pair.joiner, bob.key, patience, 0.0, peer_timeout=peer_timeout, restart_safe=restart_safe),
    )


def sent(actions: Sequence[object]) -> list[Message]:
    return [action.message for action in actions if isinstance(action, Send)]


def shown(actions: Sequence[object]) -> list[str]:
    return [str(action.text) for action in actions if isinstance(action, Show)]


def make_link(machines: tuple[DuelMachine, DuelMachine], now: float) -> tuple[DuelMachine, list[Action]]:
    """The side whose link is due makes it (the first legal move, preferring hearts): that side
    and its actions."""
    due = machines[0].match.due()
    assert due is not None
    kind, seat = due
    mover = machines[seat]
    mover.owe(now)
    choice: object = None
    if kind is Commit:
        choice = "HD"
    elif kind is MoveMsg:
        assert mover.match.game is not None
        choice = mover.match.game.position.legal_moves()[0]
    return mover, list(mover.own_link(kind, now, choice))  # type: ignore[arg-type]


def play_link(machines: tuple[DuelMachine, DuelMachine], now: float) -> tuple[list[object], list[object]]:
    """:func:`make_link`, and the other side hears it: both sides' actions."""
    mover, own = make_link(machines, now)
    other = machines[1 - mover.seat]
    heard: list[object] = []
    for message in sent(own):
        heard += other.heard(message, now)
    return list(own), heard


def quiet_until(machine: DuelMachine, until: float, start: float = 0.0, pinging: bool = True) -> list[Action]:
    """Nothing heard from ``start`` to ``until``: every read the machine starts times out (our
    keep-alives going out meanwhile, when ``pinging``); the actions of the last one."""
    now, actions = start, list[Action]()
    while now < until:
        then = min(until, now + machine.read_wait(now))
        while pinging and now + machine.patience.keepalive <= then:
            now += machine.patience.keepalive
            machine.clock.pinged(now)
        now = then
        actions = machine.silent(now)
    return actions


def play_out(machines: tuple[DuelMachine, DuelMachine], links: int | None = None) -> float:
    """Play ``links`` links (all, by default), a tenth of a second apart; the time after."""
    now = 0.0
    while machines[0].match.due() is not None and (links is None or links > 0):
        now += 0.1
        play_link(machines, now)
        links = None if links is None else links - 1
    return now


# ------------------------------------------------------------ a whole match in memory


def test_two_machines_play_a_whole_match_and_agree_on_it() -> None:
    host, joiner = duel_pair(games=2)
    play_out((host, joiner))
    assert host.match.done and joiner.match.done
    assert host.match.transcript == joiner.match.transcript and host.match.score == joiner.match.score
    for machine in (host, joiner):
        machine.heard(Bye(), 100.0)
        assert machine.finished()
        assert machine.timing["moves_timed"] >= 1 and "deal_s" in machine.timing


def test_own_links_are_recorded_before_they_go_out_and_synced_at_checkpoints() -> None:
    host, joiner = duel_pair(restart_safe=True)
    own, heard = play_link((host, joiner), 0.1)  # the host's commitment
    assert [type(action) for action in own] == [Keep, Record, Send, Advanced]
    assert own[1] == Record(sync=True)  # restart-safe: on disk before it goes out
    assert [type(action) for action in heard if not isinstance(action, Touch)] == [Record, Advanced]
    plain, other = duel_pair()
    own, heard = play_link((plain, other), 0.1)
    assert Keep not in map(type, own)
    records = [action for action in heard if isinstance(action, Record)]
    assert records == [Record(sync=False)]  # no checkpoint yet: one write, no fsync
    moves = play_out((plain, other), links=3)  # the other commitment and both reveals: the deal
    assert moves and plain.match.revealed


def test_a_chat_line_goes_to_the_player_and_a_keepalive_to_nobody() -> None:
    host, _ = duel_pair()
    assert [action for action in host.heard(Chat(text="hi"), 1.0) if not isinstance(action, Touch)] == [Said("hi")]
    assert [action for action in host.heard(Ping(), 1.5)] == []  # touched less than a keep-alive ago


def test_a_message_out_of_place_is_the_peers_violation() -> None:
    host, _ = duel_pair()
    with pytest.raises(ProtocolViolation, match="bye before the match was complete"):
        host.heard(Bye(), 1.0)


# ------------------------------------------------------------ silence and absence


def test_a_silent_peer_is_shown_then_claimed_past_the_limit() -> None:
    host, _ = duel_pair()
    assert shown(quiet_until(host, 6.0)) == ["bob silent for 6 s"]
    with pytest.raises(Forfeit, match=r"silent for 10 s \(limit 10 s\)") as claimed:
        quiet_until(host, LIMIT, 6.0)
    assert claimed.value.award and claimed.value.cause == "absence"


def test_a_person_is_offered_the_claim_and_makes_it() -> None:
    host, _ = duel_pair(auto_claim=False)
    quiet_until(host, 6.0)
    assert host.claim(6.0) is None  # not past the limit: nothing to claim
    offer = shown(quiet_until(host, LIMIT, 6.0))
    assert offer[0].startswith("bob has been silent for 10 s: type /claim") and offer[1] == "bob silent for 10 s"
    claim = host.claim(LIMIT)
    assert claim is not None and claim.award and claim.cause == "absence"
    with pytest.raises(Forfeit):  # the reader raises the claim at its next turn
        host.line_lost(ConnectionClosed("reading stopped"), LIMIT)


def test_a_side_that_sent_nothing_itself_that_long_is_not_awarded_the_peers_silence() -> None:
    host, _ = duel_pair()
    with pytest.raises(Forfeit) as claimed:  # this program was stopped: the peer may have claimed first
        quiet_until(host, LIMIT, pinging=False)
    assert not claimed.value.award


def test_a_connection_silent_past_dead_after_is_replaced() -> None:
    patience = Patience(forfeit_after=60.0, dead_after=20.0)
    ann, bob = identity(), identity()
    host = DuelMachine(session_pair(ann, bob).host, ann.key, patience, 0.0)
    assert shown(quiet_until(host, 19.0)) == ["bob silent for 19 s"]
    with pytest.raises(ConnectionClosed, match="nothing from bob for 20 s: the connection is presumed dead"):
        quiet_until(host, 20.0, 19.0)


def test_a_read_that_overran_its_timeout_is_this_program_stopped_not_the_peer_silent() -> None:
    host, _ = duel_pair()
    host.read_wait(0.0)
    assert host.silent(60.0) == []  # read what waited on the socket first


def test_the_host_waits_for_its_joiner_and_the_joiner_redials() -> None:
    host, joiner = duel_pair()
    assert shown(host.line_lost(ConnectionClosed("cut"), 1.0)) == [
        "bob is gone (cut); waiting up to 0:10 for bob to come back"
    ]
    assert shown(joiner.line_lost(ConnectionClosed("cut"), 1.0)) == ["connection to ann lost (cut): reconnecting… 0:10 left"]
    assert shown(joiner.unreachable(5.0)) == ["connection to ann lost (cut): reconnecting… 0:05 left"]
    with pytest.raises(Forfeit, match="ann has been unreachable for 10 s"):
        joiner.unreachable(LIMIT)


def test_a_pause_is_waited_out_only_by_a_side_that_can_reconnect() -> None:
    host, _ = duel_pair()
    pause = PeerAborted(PAUSE, "the program was stopped")
    assert shown(host.line_lost(pause, 1.0)) == ["bob's program stopped; waiting up to 0:10 for it to come back"]
    lone, _ = duel_pair()
    with pytest.raises(ConnectionClosed, match="cannot wait for it"):
        lone.line_lost(pause, 1.0, can_reconnect=False)
    with pytest.raises(PeerTimeout):
        lone.line_lost(PeerTimeout("quiet"), 1.0, can_reconnect=False)
    with pytest.raises(PeerAborted):  # any other abort ends the match, reconnector or not
        lone.line_lost(PeerAborted("quit", "the player left"), 1.0)


def test_a_peer_back_without_the_match_is_claimed_as_lost() -> None:
    host, _ = duel_pair()
    host.line_lost(ConnectionClosed("cut"), 1.0)
    with pytest.raises(Forfeit) as claimed:
        host.back_without_match(PeerAborted("lost", "no match to resume"), 5.0)
    assert claimed.value.cause == "lost" and "came back after 5 s away without the match" in str(claimed.value)
    person, _ = duel_pair(auto_claim=False)
    person.line_lost(ConnectionClosed("cut"), 1.0)
    person.back_without_match(PeerAborted("lost", "no match to resume"), 5.0)
    claim = person.claim(5.0)
    assert claim is not None and claim.cause == "lost"


# ------------------------------------------------------------ stalls


def test_a_bot_claims_a_stall_and_a_person_is_offered_it() -> None:
    bot, _ = duel_pair(peer_timeout=3.0)
    bot.awaiting(0.0)
    assert bot.owed_wait(0.0) == 3.0
    bot.heard(Ping(), 3.0)
    assert bot.owed_wait(3.0) is None  # owed past its limit, and heard: a stall
    with pytest.raises(Forfeit, match="bob did not send its commit within 3 s") as claimed:
        bot.stalled(Commit, 3.0)
    assert claimed.value.award and claimed.value.cause == "stall"
    person, _ = duel_pair(auto_claim=False)
    person.awaiting(0.0)
    person.heard(Ping(), LIMIT)
    assert person.owed_wait(LIMIT) is None
    assert shown(person.stalled(Commit, LIMIT))[0].endswith("type /claim to claim the game by forfeit, or keep waiting")
    person.heard(Ping(), LIMIT + 1)  # keep-alives do not withdraw the offer
    assert person.claimable is not None
    assert shown(person.awaited()) == [""]  # the link came: the offer goes
    assert person.claimable is None


def test_a_stall_claim_is_not_awarded_when_we_had_owed_our_link_that_long_first() -> None:
    bot, _ = duel_pair(peer_timeout=3.0)
    bot.owe(0.0)  # our link: due for the whole limit (this program was stopped)
    bot.awaiting(LIMIT)
    with pytest.raises(Forfeit) as claimed:
        bot.stalled(Commit, LIMIT)
    assert not claimed.value.award


# ------------------------------------------------------------ resuming


def test_a_resume_resends_what_the_peer_lacks_and_the_line_goes_live() -> None:
    host, joiner = duel_pair()
    play_out((host, joiner), links=2)  # both commitments
    due = host.match.due()
    assert due is not None
    ahead, behind = (host, joiner) if due[1] == 0 else (joiner, host)
    lost_on_the_line = sent(ahead.own_link(due[0], 1.0))  # a reveal the line drops
    for machine in (host, joiner):
        machine.line_lost(ConnectionClosed("cut"), 2.0)
    exchanges = ahead.exchange(), behind.exchange()
    ahead.resume_heard(exchanges[0], exchanges[1].claim)
    behind.resume_heard(exchanges[1], exchanges[0].claim)
    resent = list(iter(exchanges[0].next_message, None))  # each side sends before it reads on
    assert resent == lost_on_the_line and exchanges[1].next_message() is None
    for message in resent:
        behind.heard(message, 3.0)
    for machine in (host, joiner):
        assert shown(machine.resumed(3.0)) == [f"reconnected to {machine.peer_name}: the match goes on"]
        assert machine.clock.live and machine.reconnects == 1 and machine.timing["resume_s_max"] == 1.0
    assert host.match.transcript == joiner.match.transcript


def test_a_peer_resuming_another_history_is_refused() -> None:
    host, joiner = duel_pair()
    other_host, _ = duel_pair()
    play_out((host, joiner), links=1)
    exchange = host.exchange()
    with pytest.raises(P2PError):
        host.resume_heard(exchange, other_host.exchange().claim)


# ------------------------------------------------------------ the end


def test_the_end_of_a_claim_and_of_leaving_after_the_deal() -> None:
    host, joiner = duel_pair()
    play_out((host, joiner), links=4)  # both commitments and reveals: the deal is known
    ending = host.ending(Forfeit("bob silent"), 5.0)
    assert (ending.end, ending.awarded) == ("forfeit", 0) and ending.tell is not None
    leaving = joiner.leaving()
    assert (leaving.end, leaving.awarded) == ("quit", 0)  # who leaves a deal it saw loses the game
    assert leaving.tell is not None and leaving.tell.reason == "quit"


def test_minutes_left() -> None:
    assert (minutes(0.4), minutes(61), minutes(600)) == ("0:00", "1:01", "10:00")


# ------------------------------------------------------------ a side lost with a game-ending link in flight


def lost_with_the_game_ending_link(games: int) -> tuple[DuelMachine, DuelMachine]:
    """A match played, link by link, until the link that ends game 1; its sender hears it as
    usual, the other side is killed before it reads it: the stayer's and the leaver's machines."""
    machines = duel_pair(games=games)
    now = 0.0
    while True:
        now += 0.1
        mover, own = make_link(machines, now)
        other = machines[1 - mover.seat]
        if mover.match.results:  # this link ended the game: the peer never reads it
            return mover, other
        for message in sent(own):
            other.heard(message, now)


@pytest.mark.parametrize("games", [2, 1], ids=["more-games-left", "the-last-game"])
def test_a_side_lost_before_reading_the_game_ending_link_loses_the_same_game_in_both_books(games: int) -> None:
    """The attack on the books (docs/protocol.md, "The game a forfeit awards"): the leaver's record
    ends inside game 1, the stayer's after it; the stayer claims the absence, the leaver comes
    back after the limit. Both notes must award the same game to the stayer."""
    stayer, leaver = lost_with_the_game_ending_link(games)
    assert len(stayer.match.results) == 1 and not leaver.match.results
    claimed = stayer.ending(Forfeit("bob unreachable for 10 s", award=True, cause="absence"), 20.0)
    conceded = late_return_end(200.0, LIMIT, False, Standing.of(leaver.match), leaver.seat)
    assert claimed.note is not None and conceded is not None
    both = [(note.get("game"), note.get("winner")) for note in (claimed.note, conceded)]
    assert both == [(1, stayer.seat), (1, stayer.seat)]


def test_a_forfeit_of_a_played_game_replaces_its_result_in_the_report() -> None:
    """The stayer's summary: game 1, over in its record, is the forfeit; nothing is added after."""
    stayer, _ = lost_with_the_game_ending_link(games=2)
    claimed = stayer.ending(Forfeit("bob unreachable for 10 s", award=True, cause="absence"), 20.0)
    report = Report(
        stayer.session, stayer.match, Path("r.jsonl"), claimed.end, None, claimed.awarded,
        awarded_game=claimed.awarded_game,
    )  # fmt: skip
    assert report.results == ["1-0 forfeit" if stayer.seat == 0 else "0-1 forfeit"]
    assert report.score[stayer.seat] == 1.0 and report.score[1 - stayer.seat] == 0.0
    words = award_words(report)
    assert words is not None and words.startswith("You won game 1 by forfeit, in place of its result: ")
