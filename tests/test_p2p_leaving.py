"""A peer that ends the match on its own authority once it could know the deal loses the game.

A scripted joiner plays by hand against a bot host, over the in-memory line, and
walks away at chosen points: the host's report and record must award the
unfinished game to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
from pathlib import Path

import pytest

from engine import Game, Move, Rules
from p2p.channel import Channel
from p2p.duel import Duel, Report
from p2p.errors import (
    ProtocolViolation,
)
from p2p.fairdeal import Pledge
from p2p.handshake import Session, Terms
from p2p.liveness import Patience
from p2p.match import Match, position_hash
from p2p.messages import (
    Abort,
    Bye,
    Commit,
    Message,
    MoveMsg,
    Ping,
    Rematch,
    Resume,
    Reveal,
    Signed,
    expect,
)
from p2p.players import BotPlayer
from p2p.record import verify
from p2p.text import Text
from tests.support.clock import run_in_virtual_time
from tests.support.peers import LIMIT, Side, Stubborn, Unwatched, memory_duels, memory_pair, run


class _Bogus(Ping):
    """Sealed and authenticated, but its plaintext fails the schema."""

    def to_wire(self) -> dict[str, object]:
        return {"t": "ping", "x": 1}


async def _joiner_leaves(
    root: Path, when: str, leaving: Message
) -> tuple[str, int | None, dict[str, object]]:
    """Play seat 1 by hand and send ``leaving`` at ``when`` ("reveal": the host's reveal is in,
    ours is not; "moves": after two moves); the host's end, award and end note."""
    ann, bob = Side.make(root, "ann"), Side.make(root, "bob")
    pair = await memory_pair(ann, bob, Terms(Rules(), 1))
    host = Duel(pair.host_channel, pair.host_session, ann.me, BotPlayer("easy", seed=1), ann.home.records, 10)
    hosting = asyncio.create_task(host.run())
    channel, session = pair.join_channel, pair.join_session
    match = Match(session.session_id, session.keys, session.terms.rules, session.terms.games)
    pledge, moves, rng = Pledge.fresh("SH"), 0, random.Random(1)
    while True:
        due = match.due()
        assert due is not None
        kind, seat = due
        if seat == 0:
            message = await channel.recv(10)
            if isinstance(message, Signed):
                match.apply(message, 0)
            continue
        if (kind is Reveal and when == "reveal") or (kind is MoveMsg and when == "moves" and moves >= 2):
            assert match.deal_known_to(1)
            await channel.send(leaving)
            break
        link: Signed
        if kind is Commit:
            link = match.sign(
                bob.me.key, Commit(game=1, commitment=pledge.commitment(match.session_id, 1, 1), sig=b"")
            )
        elif kind is Reveal:
            link = match.sign(bob.me.key, Reveal(game=1, pref=pledge.pref, secret=pledge.secret, sig=b""))
        else:
            assert match.game is not None
            move = rng.choice(match.game.position.legal_moves())
            after = match.game.position.play(move)
            n = len(match.game.moves) + 1
            link = match.sign(
                bob.me.key, MoveMsg(game=1, n=n, move=str(move), hash=position_hash(after), sig=b"")
            )
            moves += 1
        match.apply(link, 1)
        await channel.send(link)
    report = await hosting
    await channel.close()
    text = report.record.read_text()
    verify(text)  # the record still checks up to the end note
    return report.end, report.awarded, json.loads(text.splitlines()[-1])


def test_a_baseless_forfeit_claim_is_leaving_and_loses_the_game(tmp_path: Path) -> None:
    """Attack (issue 19): the host has just sent its move when the joiner, who has seen the deal,
    claims that the host was away. The host owed nothing for long and kept the line alive, so the
    claim has no grounds: its sender abandoned, and the host is awarded the game (it used to end
    ``aborted``, 0-0: a free exit for a loser; docs/protocol.md, "Forfeits", rule 3)."""
    got_end, awarded, note = run(_joiner_leaves(tmp_path, "moves", Abort(reason="forfeit", detail="away")))
    assert (got_end, awarded) == ("abandoned", 0)
    assert note["end"] == "abandoned" and note["winner"] == 0 and note["by"] == 1


def test_a_pause_is_not_leaving_it_awards_nothing_even_after_the_deal(tmp_path: Path) -> None:
    """``abort pause`` (the peer's program got SIGTERM or SIGHUP and keeps the match on disk) is
    waited out as a broken line; a duel that cannot wait (no way back) ends it as one: abandoned,
    nothing awarded, although the pauser knew the deal (docs/protocol.md, "Restarts")."""
    pause = Abort(reason="pause", detail="the program was stopped")
    got_end, awarded, note = run(_joiner_leaves(tmp_path, "moves", pause))
    assert (got_end, awarded) == ("abandoned", None)
    assert note["end"] == "abandoned" and "winner" not in note
    assert "bob's program stopped" in str(note["detail"])


@pytest.mark.parametrize(
    ("when", "leaving", "end"),
    [
        ("reveal", Abort(reason="quit", detail="gotta go"), "abandoned"),  # saw the deal, never revealed
        ("moves", Abort(reason="bored", detail="bye"), "aborted"),  # any reason, not only "quit"
        ("moves", _Bogus(), "cheat"),  # a malformed message under the peer's own key
    ],
)
def test_a_peer_that_could_know_the_deal_loses_the_game_whatever_it_says(
    tmp_path: Path, when: str, leaving: Ping | Abort, end: str
) -> None:
    got_end, awarded, note = run(_joiner_leaves(tmp_path, when, leaving))
    assert (got_end, awarded) == (end, 0)
    assert note["end"] == end and note["winner"] == 0 and note["game"] == 1 and note["by"] == 1


def test_a_malformed_sealed_message_is_the_peers_violation_not_the_lines(tmp_path: Path) -> None:
    async def scenario() -> None:
        ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
        pair = await memory_pair(ann, bob, Terms(Rules(), 1))
        await pair.join_channel.send(_Bogus())
        with pytest.raises(ProtocolViolation, match="malformed message in a sealed frame"):
            await pair.host_channel.recv(5)
        await pair.join_channel.close()
        await pair.host_channel.close()

    run(scenario())


class _Staller(BotPlayer):
    """Keeps the line alive (the duel's keep-alives) but never moves."""

    async def choose(self, game: Game) -> Move:
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")


def test_a_connected_peer_that_never_moves_can_be_claimed_against(tmp_path: Path) -> None:
    """A person's side offers the claim once the peer owes its link past the limit; keep-alives do not
    withdraw the offer; the claim awards the game, and the staller's side does not count it as won."""

    async def scenario() -> tuple[Report, Report, Text | None]:
        ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
        pair = await memory_pair(ann, bob, Terms(Rules(), 1))
        patience = Patience(
            keepalive=0.1, silent_after=0.5, dead_after=5, forfeit_after=0.6, auto_claim=False
        )
        victim, staller = memory_duels(pair, (BotPlayer("easy"), _Staller("easy")), patience, None)
        hosting, joining = asyncio.create_task(victim.run()), asyncio.create_task(staller.run())
        while victim.claimable is None:
            await asyncio.sleep(0.05)
        due = victim.match.due()
        assert due is not None and due[1] == 1 and due[0] is MoveMsg  # the staller owes a move
        await asyncio.sleep(0.5)  # several keep-alives later the offer stands
        offered = victim.claimable
        assert victim.claim()
        return await hosting, await asyncio.wait_for(joining, 5), offered

    # In virtual time: the limit and the keep-alives to the hundredth of a second, without waiting them out.
    _, (mine, theirs, offered) = run_in_virtual_time(scenario(), horizon=LIMIT, step=0.01)
    assert offered is not None and str(offered) == "bob did not send its move within 0.6 s"
    assert (mine.end, mine.awarded) == ("forfeit", 0)
    assert (theirs.end, theirs.awarded) == ("forfeit", 0)  # it stalled: its own books say it lost


class _BackWithoutTheMatch(Unwatched):
    """The way back to a peer whose program came back without the match: a fresh handshake over
    memory, on which the peer answers our resume claim with ``abort lost`` (deviating there only)."""

    def __init__(self, ann: Side, bob: Side, we_host: bool) -> None:
        self.ann, self.bob, self.we_host = ann, bob, we_host
        self.answered: list[asyncio.Task[None]] = []

    async def reconnect(self) -> tuple[Channel, Session]:
        pair = await memory_pair(self.ann, self.bob, Terms(Rules(), 1))
        if self.we_host:
            ours, session, theirs = pair.host_channel, pair.host_session, pair.join_channel
        else:
            ours, session, theirs = pair.join_channel, pair.join_session, pair.host_channel

        async def answer() -> None:
            expect(await theirs.recv(5), Resume, "resume")
            await theirs.send(Abort(reason="lost", detail="this program has no match to resume"))

        self.answered.append(asyncio.create_task(answer()))
        return ours, session


class _Thinker(BotPlayer):
    """Thinks about its trump preference for ever (a person who walked away from the screen)."""

    async def preference(self, game_number: int) -> str:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")


@pytest.mark.parametrize(
    ("we_host", "thinks", "end", "awarded"),
    [
        (True, False, "forfeit", 0),
        (False, False, "forfeit", 1),  # the seats are equal: the joiner is awarded the host's absence
        (True, True, "forfeit", 1),  # the host owed its link 175 s of 180: the joiner may have claimed it
    ],
)
def test_a_peer_back_without_the_match_is_an_absence_awarded_unless_we_stalled_first(
    tmp_path: Path, we_host: bool, thinks: bool, end: str, awarded: int | None
) -> None:
    """The line drops and the peer's program answers the resume with ``abort lost``: a bot claims at
    once, and as for any absence it is awarded the game in either seat, but not after a line lost
    while it owed its own link long enough for a stall claim (docs/protocol.md, "Forfeits", rule
    1): then the peer may have claimed it, and its books say the game is the peer's. A side could
    otherwise send ``lost`` after claiming the other's stall (its ``abort forfeit`` lost with the
    line): two records awarding the same game."""
    fake = [0.0]

    async def scenario() -> Report:
        ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
        pair = await memory_pair(ann, bob, Terms(Rules(), 1))
        back = _BackWithoutTheMatch(ann, bob, we_host)
        me, channel, session, theirs = (
            (ann, pair.host_channel, pair.host_session, pair.join_channel)
            if we_host
            else (bob, pair.join_channel, pair.join_session, pair.host_channel)
        )
        player = _Thinker("easy") if thinks else BotPlayer("easy")
        duel = Duel(
            channel, session, me.me, player, me.home.records, 10, reconnector=back,
            patience=Patience(keepalive=0.005), now=lambda: fake[0],
        )  # fmt: skip
        playing = asyncio.create_task(duel.run())
        await asyncio.sleep(0)
        if thinks:
            assert duel.match.due() == (Commit, duel.seat)  # owed from 0 s on
        while duel.match.due() == (Commit, duel.seat) and not thinks:  # bounded by run()'s limit
            await asyncio.sleep(0.01)  # a bot commits at once: it owes nothing when the line drops
        for moment in range(10, 176, 10):  # 175 s go by, our keep-alives going out meanwhile
            fake[0] = float(moment)
            await asyncio.sleep(0.02)
        await theirs.close()  # the line drops before the peer's first link
        report = await playing
        await asyncio.gather(*back.answered)
        return report

    _, report = run_in_virtual_time(scenario(), horizon=LIMIT, step=0.005)  # the keep-alives' pace, not waited
    assert (report.end, report.awarded) == (end, awarded)
    assert re.search(r"came back after 1[67]\d s away without the match", str(report.error))
    note = json.loads(report.record.read_text().splitlines()[-1])
    assert note["end"] == end and note.get("winner") == awarded


@pytest.mark.parametrize(
    "deviation",
    [
        Bye(),  # "I hold the whole match": a lie before the end
        Rematch(want=True),
        Resume(root=bytes(32), links=1, transcript=bytes(32), sig=bytes(64)),  # a claim on a live line
    ],
    ids=["bye", "rematch", "resume"],
)
def test_a_message_out_of_place_mid_match_is_the_peers_violation(tmp_path: Path, deviation: Message) -> None:
    """A joiner holding the deal sends, sealed and mid-game, a message that has no place there: a
    ``bye`` (which would let it leave with the host waiting in vain), a ``rematch`` or a ``resume``
    claim outside a reconnection. The host ends the match as a cheat and keeps the game. Checks:
    ``Lockstep.hear`` (a ``bye`` before the end; anything but a link), ``Match.apply`` (a claim
    is not the link due)."""
    end, awarded, note = run(_joiner_leaves(tmp_path, "moves", deviation))
    assert (end, awarded) == ("cheat", 0)
    assert note["end"] == "cheat" and note["winner"] == 0 and note["by"] == 1


def test_leaving_after_the_reveal_is_abandonment_and_loses_the_game(tmp_path: Path) -> None:
    async def scenario() -> Report:
        pair = await memory_pair(Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob"))
        host, joiner = memory_duels(pair, (BotPlayer("easy"), Stubborn(2)))
        hosting, playing = asyncio.create_task(host.run()), asyncio.create_task(joiner.run())
        while not host.match.revealed:
            await asyncio.sleep(0.01)
        await joiner.channel.send(Abort(reason="quit", detail="bored"))
        report = await hosting
        playing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await playing
        return report

    report = run(scenario())
    assert report.end == "abandoned" and report.awarded == 0 and report.score == (1, 0)
    note = verify(report.record.read_text()).end
    assert (
        note is not None and note["winner"] == 0 and "after the deal of game 1 was revealed" in note["detail"]
    )
