"""Forfeits, stalls and awards against a peer that deviates at one point: a wrong first message
after the deal, comebacks that would restart the stall clock, links resent past the limit, an
absence that the other side could claim as a stall; each the claim of docs/protocol.md it tried
to break (the table "Claims and their tests" of docs/protocol-rationale.md names each)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from engine import Rules
from p2p.books import compare_books
from p2p.channel import Channel
from p2p.duel import Duel, Report
from p2p.errors import Forfeit, P2PError
from p2p.fairdeal import Pledge
from p2p.handshake import Session, Terms
from p2p.liveness import Liveness, Patience
from p2p.match import Match, position_hash, sign_resume
from p2p.messages import (
    Abort,
    Commit,
    Message,
    MoveMsg,
    Ping,
    Reveal,
    Signed,
)
from p2p.players import BotPlayer
from p2p.record import verify
from tests.support.clock import run_in_virtual_time
from tests.support.peers import LIMIT, Side, Stubborn, Unwatched, memory_duels, memory_pair, run


class Comeback(Unwatched):
    """The host's way back to its joiner (a :class:`~p2p.duel_line.Reconnector`): each fresh connection
    the hostile joiner opens over memory, with a full handshake."""

    def __init__(self) -> None:
        self.returns: asyncio.Queue[tuple[Channel, Session]] = asyncio.Queue()

    async def reconnect(self) -> tuple[Channel, Session]:
        return await self.returns.get()


class Joiner:
    """Seat 1 played by hand against a bot host: honest links, until the test deviates."""

    def __init__(self, ann: Side, bob: Side, channel: Channel, session: Session, back: Comeback) -> None:
        self.ann, self.bob, self.channel, self.back = ann, bob, channel, back
        terms = session.terms
        self.match = Match(session.session_id, session.keys, terms.rules, terms.games)
        self.pledge, self.rng = Pledge.fresh("SH"), random.Random(1)

    async def until(self, stop: Callable[[Match], bool]) -> None:
        """Play honestly until ``stop(match)`` holds where our own link is due."""
        match, key = self.match, self.bob.me.key
        while True:
            due = match.due()
            assert due is not None
            kind, seat = due
            if seat == 0:
                message = await self.channel.recv(10)
                if isinstance(message, Signed):
                    match.apply(message, 0)
                continue
            if stop(match):
                return
            link: Signed
            if kind is Commit:
                commitment = self.pledge.commitment(match.session_id, 1, 1)
                link = match.sign(key, Commit(game=1, commitment=commitment, sig=b""))
            elif kind is Reveal:
                link = match.sign(
                    key, Reveal(game=1, pref=self.pledge.pref, secret=self.pledge.secret, sig=b"")
                )
            else:
                assert match.game is not None
                move = self.rng.choice(match.game.position.legal_moves())
                after = match.game.position.play(move)
                n = len(match.game.moves) + 1
                link = match.sign(
                    key, MoveMsg(game=1, n=n, move=str(move), hash=position_hash(after), sig=b"")
                )
            match.apply(link, 1)
            await self.channel.send(link)

    async def comes_back(self, first: Message | None = None) -> None:
        """Cut the line and come back on a fresh connection, sending ``first`` there (our honest
        resume claim when ``None``) and reading the host's claim."""
        await self.channel.close()
        pair = await memory_pair(self.ann, self.bob, Terms(Rules(), 1))
        await self.back.returns.put((pair.host_channel, pair.host_session))
        self.channel = pair.join_channel
        await self.channel.send(first or self.match.resume_claim(self.bob.me.key))


async def against_a_bot_host(
    root: Path, attack: Callable[[Joiner, asyncio.Task[Report]], Awaitable[None]], patience: Patience
) -> Report:
    """The host's report of a match whose joiner mounts ``attack`` (the host's clock is its event
    loop's, so that the match may be played in virtual time)."""
    ann, bob = Side.make(root, "ann"), Side.make(root, "bob")
    pair = await memory_pair(ann, bob, Terms(Rules(), 1))
    back = Comeback()
    host = Duel(
        pair.host_channel, pair.host_session, ann.me, BotPlayer("easy", seed=1), ann.home.records,
        patience.forfeit_after, reconnector=back, patience=patience, now=asyncio.get_running_loop().time,
    )  # fmt: skip
    hosting = asyncio.create_task(host.run())
    joiner = Joiner(ann, bob, pair.join_channel, pair.join_session, back)
    try:
        await attack(joiner, hosting)
        return await asyncio.wait_for(hosting, 5)
    finally:
        await joiner.channel.close()
        await host.channel.close()


def test_a_peer_that_saw_the_deal_cannot_escape_the_award_with_a_wrong_first_message(tmp_path: Path) -> None:
    """Attack: the joiner sees the host's reveal (the deal is known to it, its own reveal still due),
    cuts the line, comes back and sends a keep-alive where its resume claim is due. That sealed,
    authenticated message was taken for damage on the line (``corrupted``, nobody blamed, no award),
    so walking away from a bad deal paid. It is the joiner's own protocol violation: a cheat, and
    the game is the host's (docs/protocol.md, "Leaving after the deal")."""

    async def attack(joiner: Joiner, hosting: asyncio.Task[Report]) -> None:
        await joiner.until(lambda match: match.deal_known_to(1))
        await joiner.comes_back(Ping())
        try:
            await joiner.channel.recv(5)  # the host's claim; then its abort
            await joiner.channel.recv(5)
        except P2PError:
            pass

    report = run(against_a_bot_host(tmp_path, attack, Patience()))
    assert (report.end, report.awarded) == ("cheat", 0)
    assert "where its resume message was due" in str(report.error)


@pytest.mark.parametrize(
    ("lost_the_hosts_move", "stays", "away"),
    [(False, 0.3, 0.0), (True, 0.3, 0.0), (False, 0.0, 0.6)],
    ids=["honest claim", "claims it lost the host's move", "back for a moment"],
)
def test_coming_back_again_and_again_does_not_restart_the_stall_clock(
    tmp_path: Path, lost_the_hosts_move: bool, stays: float, away: float
) -> None:
    """Attack: the joiner owes its move and never sends it; before the host's limit passes it cuts
    the line and comes back with its resume claim, again and again: honest, or saying each time
    that it lost the host's last move (which the host then resends), or back only for a moment
    and away for most of the limit. Each fresh connection restarted the host's stall clock and
    its count of the joiner's absence, so the game was never claimable: a peer held it hostage
    for ever. A stall is timed from when the link became due, whatever the line did, restarts
    only when the peer is resent links it was never resent before, and counts as soon as the
    peer is heard past the limit (docs/protocol.md, "Forfeits", rule 2)."""
    patience = Patience(keepalive=0.05, silent_after=1.0, dead_after=5, forfeit_after=1.0)

    def stalling(match: Match) -> bool:  # our move is due, after one of the host's
        return match.game is not None and match.links[-1][0] == 0

    async def attack(joiner: Joiner, hosting: asyncio.Task[Report]) -> None:
        await joiner.until(stalling)
        match, key = joiner.match, joiner.bob.me.key
        held = len(match.links) - lost_the_hosts_move
        claim = sign_resume(key, match.session_id, held, match.transcript_at(held))
        for _ in range(20):  # 20 comebacks: six to twelve times the limit
            await joiner.comes_back(claim)
            await asyncio.sleep(stays)
            if away:
                await joiner.channel.close()
                await asyncio.sleep(away)  # away for less than the limit
            if hosting.done():
                return
        raise AssertionError("the host never claimed the game")

    # In virtual time: the limit and the absences to the hundredth of a second, without waiting them out.
    ended, report = run_in_virtual_time(against_a_bot_host(tmp_path, attack, patience), horizon=LIMIT, step=0.01)
    assert (report.end, report.awarded) == ("forfeit", 0)
    assert patience.forfeit_after <= ended < 3 * patience.forfeit_after, ended  # claimed at the limit
    assert "bob did not send its move" in str(report.error)


def test_a_stall_is_timed_from_the_due_link_until_the_peer_is_resent_new_links() -> None:
    """The machine behind the attack above: a stall is timed from when the link became due,
    whatever the line did meanwhile, starts again only when a resume resent the peer links it was
    never resent before, and counts once the peer is heard past the limit, even for a moment."""
    clock = Liveness(Patience(silent_after=6, forfeit_after=180), now=0.0)
    clock.awaiting(0, limit=180)
    clock.lost(100.0)
    clock.connected(150.0, resent=False)  # the peer held our link all along
    clock.heard(179.0)
    assert not clock.stalled(179.0)
    assert clock.stalled(180.0)
    clock.lost(181.0)
    clock.connected(240.0, resent=True)  # it lacked our link: due to it from here
    clock.heard(419.0)
    assert not clock.stalled(419.0)
    clock.lost(419.5)
    assert not clock.stalled(430.0)  # down, and not heard past the limit
    clock.connected(430.0, resent=False)  # back for a moment…
    clock.lost(430.1)
    assert clock.stalled(431.0)  # …past the limit: it stalls, though it is gone again
    clock.awaited()
    assert not clock.stalled(431.0)


def test_a_peer_back_past_the_limit_with_more_links_stalls_only_if_they_do_not_come() -> None:
    """The awaited link may be among the links a peer ahead of us resends on its return: no stall
    before they come; one if it sends another frame first, or leaves without them."""
    for then in ("a keep-alive", "the line drops"):
        clock = Liveness(Patience(silent_after=6, forfeit_after=180), now=0.0)
        clock.awaiting(0, limit=180)
        clock.lost(10.0)
        clock.connected(200.0, resent=False, ahead=True)
        assert not clock.stalled(200.0)  # its link may be on its way
        if then == "a keep-alive":
            clock.heard(200.1)
        else:
            clock.lost(200.1)
        assert clock.stalled(200.2)




def test_the_host_is_not_awarded_the_absence_of_a_joiner_that_could_claim_its_stall() -> None:
    """Flaw (a double award): the host's player thinks past the limit while connected; the joiner
    claims the stall (awarding itself the game) and sends ``abort forfeit``, but the line drops with
    that frame (a cut, or someone on the path who drops it and resets the connection). The host
    never reads the claim, sees the joiner away past the limit and, by rule 1, was awarded the same
    game. Now a line lost while we had owed our link long enough for a stall claim makes the host's
    later absence claim award nothing (``Liveness.lost``; ``DuelMachine.line_lost`` calls it)."""
    patience = Patience(silent_after=6, forfeit_after=180, claim_grace=10)
    clock = Liveness(patience, now=0.0)
    for moment in range(0, 190, 2):  # keep-alives: the host's program runs, its player thinks
        clock.pinged(float(moment))
    clock.owe(5.0)
    clock.lost(190.0)  # owed 185 s on a live connection: the joiner may have claimed
    assert not clock.absence_awards(380.0)
    clock.connected(200.0)  # it came back: it had not claimed
    clock.pinged(202.0)
    assert clock.absence_awards(220.0)
    clock.lost(260.0)  # owed only 60 s on this connection: no stall claim was possible
    assert clock.absence_awards(440.0)


def test_a_short_limit_keeps_a_margin_of_at_most_half_of_it() -> None:
    """With a limit shorter than twice ``claim_grace`` (bots, tests: 4 s), owing our link for a
    moment when the line drops does not cost the host the absence award; owing most of the limit does."""
    patience = Patience(silent_after=1, forfeit_after=4, claim_grace=10)
    clock = Liveness(patience, now=0.0)
    for moment in range(0, 11, 2):
        clock.pinged(float(moment))
    clock.owe(10.0)
    clock.lost(10.5)  # a bot thinking for half a second
    assert clock.absence_awards(14.5)
    clock.connected(20.0)
    clock.pinged(20.0)
    clock.owe(20.0)
    clock.lost(23.0)  # owed 3 s of a 4 s limit: the joiner's stall claim may be on its way
    assert not clock.absence_awards(27.0)


def test_a_stalling_peer_forfeits_the_game_and_both_books_say_so(tmp_path: Path) -> None:
    """The staller's line stays alive (keep-alives) but its move does not come: claimed after the
    limit; told of the forfeit, the staller's own record awards the game to the claimant too.
    Played in virtual time: the limit to the hundredth of a second, without waiting it out."""
    limit_s = 1.0

    async def scenario() -> tuple[Report, Report]:
        pair = await memory_pair(Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob"))
        limit = Patience(keepalive=0.2, silent_after=0.5, dead_after=1.5, forfeit_after=limit_s)
        host, joiner = memory_duels(pair, (BotPlayer("easy"), Stubborn(3)), limit, peer_timeout=1.0)
        stalled = asyncio.create_task(joiner.run())
        report = await host.run()
        told = await asyncio.wait_for(stalled, 5)  # told of the forfeit, it stops
        await joiner.channel.close()
        return report, told

    ended, (report, told) = run_in_virtual_time(scenario(), horizon=LIMIT, step=0.01)
    assert limit_s <= ended < 2 * limit_s, ended  # claimed once the limit passed, not waited out
    assert report.end == "forfeit" and isinstance(report.error, Forfeit)
    assert "did not send its move within 1 s" in str(report.error)
    assert report.awarded == report.session.seat and report.results == ["1-0 forfeit"]
    assert (told.end, told.awarded) == ("forfeit", 0), told.error  # its books agree: it lost
    books = compare_books(verify(report.record.read_text()), verify(told.record.read_text()))
    assert not books.disputed
    assert "both records award game 1 to player 0" in [str(line) for line in books.lines]
    verified = verify(report.record.read_text())
    assert not verified.complete
    assert verified.end is not None and verified.end["end"] == "forfeit" and verified.end["winner"] == 0
    assert "awards game 1 to player 0 (its own account" in verified.summary()


def test_a_program_that_was_stopped_reads_what_came_before_judging_the_peer(tmp_path: Path) -> None:
    """Stopped (SIGSTOP, a suspended laptop) past every limit, a side wakes with its read timer
    and the peer's frames due together: it reads the frames first instead of claiming the game."""
    patience = Patience(keepalive=0.1, silent_after=0.2, dead_after=5, forfeit_after=0.4, stall=0.2)

    async def scenario() -> Report:
        pair = await memory_pair(Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob"))
        duel, _ = memory_duels(pair, (BotPlayer("easy"), BotPlayer("easy")), patience, peer_timeout=None)
        hosting = asyncio.create_task(duel.run())
        await asyncio.sleep(0.05)
        await pair.join_channel.send(Abort(reason="quit", detail="changed my mind"))
        time.sleep(0.8)  # the whole program stops, past the forfeit limit
        report = await hosting
        await pair.join_channel.close()
        return report

    report = run(scenario())
    assert report.end == "abandoned" and report.awarded is None, report.error
