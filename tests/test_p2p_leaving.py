"""A peer that ends the match on its own authority once it could know the deal loses the game.

A scripted joiner plays by hand against a bot host and walks away at chosen
points: the host's report and record must award the unfinished game to it.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from engine import Rules
from p2p.duel import Duel
from p2p.errors import ProtocolViolation
from p2p.fairdeal import Pledge
from p2p.handshake import Terms
from p2p.match import Match, position_hash
from p2p.messages import Abort, Commit, MoveMsg, Ping, Reveal, Signed
from p2p.players import BotPlayer
from p2p.record import verify
from tests.test_p2p_helpers import Side, connect_pair, run


class _Bogus(Ping):
    """Sealed and authenticated, but its plaintext fails the schema."""

    def to_wire(self) -> dict[str, object]:
        return {"t": "ping", "x": 1}


async def _joiner_leaves(
    root: Path, when: str, leaving: Ping | Abort
) -> tuple[str, int | None, dict[str, object]]:
    """Play seat 1 by hand and send ``leaving`` at ``when`` ("reveal": the host's reveal is in,
    ours is not; "moves": after two moves); the host's end, award and end note."""
    ann, bob = Side.make(root, "ann"), Side.make(root, "bob")
    pair = await connect_pair(ann, bob, Terms(Rules(), 1))
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


@pytest.mark.parametrize(
    ("when", "leaving", "end"),
    [
        ("reveal", Abort(reason="quit", detail="gotta go"), "abandoned"),  # saw the deal, never revealed
        ("moves", Abort(reason="bored", detail="bye"), "aborted"),  # any reason, not only "quit"
        ("moves", Abort(reason="forfeit", detail="you were away"), "aborted"),  # an unsigned claim
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
        pair = await connect_pair(ann, bob, Terms(Rules(), 1))
        await pair.join_channel.send(_Bogus())
        with pytest.raises(ProtocolViolation, match="malformed message in a sealed frame"):
            await pair.host_channel.recv(5)
        await pair.join_channel.close()
        await pair.host_channel.close()

    run(scenario())
