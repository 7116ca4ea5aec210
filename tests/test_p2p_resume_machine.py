"""The resume exchange as a pure machine: claims judged, missing links replayed, another history
refused with evidence; matches built link by link in memory (no sockets, no clock). And the duel
that drives it reads time only from the clock it is given."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from engine import Rules
from p2p.duel import Duel, Report
from p2p.errors import BadSignature, HistoryMismatch
from p2p.fairdeal import Pledge
from p2p.match import Match, position_hash, sign_resume
from p2p.messages import Bye, Commit, Final, Message, MoveMsg, Reveal, Signed, to_json
from p2p.players import BotPlayer
from p2p.resume import ResumeExchange
from tests.support.peers import Side, memory_pair, run

ROOT = bytes(range(32))
KEYS = (Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate())
PUBLIC = tuple(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw) for key in KEYS)


def fresh() -> Match:
    return Match(ROOT, (PUBLIC[0], PUBLIC[1]), Rules(max_moves=6), 1)


def next_link(match: Match, pref: str = "SH") -> tuple[int, Signed]:
    """The link due next in ``match``, signed by the seat it is due from (a fixed pledge per seat)."""
    due = match.due()
    assert due is not None
    kind, seat = due
    pledge = Pledge(pref, bytes([seat]) * 32)
    key, number = KEYS[seat], match.number
    if kind is Commit:
        commitment = pledge.commitment(match.session_id, number, seat)
        return seat, match.sign(key, Commit(game=number, commitment=commitment, sig=b""))
    if kind is Reveal:
        return seat, match.sign(key, Reveal(game=number, pref=pledge.pref, secret=pledge.secret, sig=b""))
    if kind is MoveMsg:
        assert match.game is not None
        move = match.game.position.legal_moves()[0]
        after = match.game.position.play(move)
        unsigned = MoveMsg(
            game=number, n=len(match.game.moves) + 1, move=str(move), hash=position_hash(after), sig=b""
        )
        return seat, match.sign(key, unsigned)
    return seat, match.sign(key, Final(transcript=match.transcript, sig=b""))


def play(links: int, *matches: Match) -> None:
    """Advance every one of ``matches`` (which agree) by the same ``links`` links."""
    for _ in range(links):
        seat, link = next_link(matches[0])
        for match in matches:
            match.apply(link, seat)


def replayed(exchange: ResumeExchange) -> list[Message]:
    sent: list[Message] = []
    while (message := exchange.next_message()) is not None:
        sent.append(message)
    return sent


def test_sides_holding_the_same_links_resend_nothing() -> None:
    ann, bob = fresh(), fresh()
    play(5, ann, bob)
    exchange = ResumeExchange(ann, KEYS[0], 0)
    exchange.hear(bob.resume_claim(KEYS[1]))
    assert exchange.owed is None
    assert replayed(exchange) == []


def test_the_side_ahead_resends_what_the_peer_lacks() -> None:
    ann, bob = fresh(), fresh()
    play(1, ann, bob)
    play(1, bob)  # bob's commitment never reached ann
    exchange = ResumeExchange(bob, KEYS[1], 1)
    exchange.hear(ann.resume_claim(KEYS[0]))
    assert replayed(exchange) == [bob.links[1][1]]


def test_our_links_applied_while_resending_are_resent_too() -> None:
    """The driver reads nothing from the peer during the exchange, but our player may move."""
    ann, bob = fresh(), fresh()
    play(2, ann, bob)  # both commitments
    exchange = ResumeExchange(ann, KEYS[0], 0)
    exchange.hear(bob.resume_claim(KEYS[1]))
    play(1, ann)  # ann's reveal (she opens), made meanwhile
    assert ann.links[-1][0] == 0
    assert replayed(exchange) == [ann.links[2][1]]


def test_a_complete_match_ends_its_replay_with_a_bye() -> None:
    ann, bob = fresh(), fresh()
    while ann.due() != (Final, 1):  # the game, and the first final
        play(1, ann, bob)
    play(1, bob)  # the second final, bob's, never reached ann
    assert bob.done and not ann.done and bob.links[-1][0] == 1
    exchange = ResumeExchange(bob, KEYS[1], 1)
    exchange.hear(ann.resume_claim(KEYS[0]))
    assert replayed(exchange) == [bob.links[-1][1], Bye()]
    ann.apply(bob.links[-1][1], 1)
    exchange = ResumeExchange(ann, KEYS[0], 0)
    exchange.hear(bob.resume_claim(KEYS[1]))
    assert replayed(exchange) == [Bye()]
    assert exchange.next_message() is None


def test_a_peer_ahead_owes_its_claim_until_its_resent_links_catch_us_up() -> None:
    ann, bob = fresh(), fresh()
    play(1, ann, bob)
    play(1, bob)  # bob's commitment never reached ann
    exchange = ResumeExchange(ann, KEYS[0], 0)
    exchange.hear(bob.resume_claim(KEYS[1]))
    assert exchange.owed == bob.resume_claim(KEYS[1])
    assert replayed(exchange) == []
    ann.apply(bob.links[1][1], 1)
    exchange.applied()
    assert exchange.owed is None


def test_a_peer_ahead_with_another_history_is_caught_once_we_catch_up() -> None:
    ann, bob = fresh(), fresh()
    play(1, ann, bob)
    play(1, bob)
    forged = sign_resume(KEYS[1], ROOT, 2, bytes(32))
    exchange = ResumeExchange(ann, KEYS[0], 0)
    exchange.hear(forged)
    ann.apply(bob.links[1][1], 1)
    with pytest.raises(HistoryMismatch) as refused:
        exchange.applied()
    assert refused.value.evidence == {"by": 1, **to_json(forged)}


def test_a_peer_back_with_another_signed_history_is_refused_with_its_claim_as_evidence() -> None:
    ann, bob = fresh(), fresh()
    play(1, ann, bob)
    seat, commit = next_link(ann, "SH")
    ann.apply(commit, seat)
    seat, other = next_link(bob, "DC")  # bob signed a different commitment for the same point
    bob.apply(other, seat)
    claim = bob.resume_claim(KEYS[1])
    with pytest.raises(HistoryMismatch) as refused:
        ResumeExchange(ann, KEYS[0], 0).hear(claim)
    assert refused.value.evidence == {"by": 1, **to_json(claim)}


def test_a_peer_claiming_fewer_links_than_it_sent_is_refused() -> None:
    ann, bob = fresh(), fresh()
    play(2, ann, bob)  # the second commitment is bob's
    assert ann.links[1][0] == 1
    earlier = fresh()
    play(1, earlier)
    with pytest.raises(HistoryMismatch, match="fewer than it sent"):
        ResumeExchange(ann, KEYS[0], 0).hear(earlier.resume_claim(KEYS[1]))


def test_a_claim_for_another_match_or_badly_signed_is_refused() -> None:
    ann = fresh()
    play(2, ann)
    exchange = ResumeExchange(ann, KEYS[0], 0)
    with pytest.raises(HistoryMismatch, match="another match"):
        exchange.hear(sign_resume(KEYS[1], bytes(32), 0, bytes(32)))
    with pytest.raises(BadSignature):
        exchange.hear(sign_resume(KEYS[0], ROOT, 2, ann.transcript))  # signed with ann's key, not bob's


def test_nothing_is_resent_before_the_peers_claim_is_heard() -> None:
    ann = fresh()
    play(1, ann)
    with pytest.raises(RuntimeError):
        ResumeExchange(ann, KEYS[0], 0).next_message()


def test_our_claim_is_our_signed_holding() -> None:
    ann, bob = fresh(), fresh()
    play(3, ann, bob)
    claim = ResumeExchange(ann, KEYS[0], 0).claim
    assert (claim.root, claim.links, claim.transcript) == (ROOT, 3, ann.transcript)
    assert bob.check_resume(claim, 0)


def test_a_duel_reads_time_only_from_its_injected_clock(tmp_path: Path) -> None:
    """On a clock that never moves, every figure timed by the duel is zero (on the real one the
    deal and each move's round trip take a measurable time)."""

    async def scenario() -> tuple[Report, Report]:
        ann, bob = Side.make(tmp_path, "ann"), Side.make(tmp_path, "bob")
        pair = await memory_pair(ann, bob)
        duels = [
            Duel(
                channel,
                session,
                side.me,
                BotPlayer("easy", seed=seat),
                side.home.records,
                10,
                now=lambda: 0.0,
            )
            for seat, (channel, session, side) in enumerate(
                [(pair.host_channel, pair.host_session, ann), (pair.join_channel, pair.join_session, bob)]
            )
        ]
        try:
            reports = await asyncio.gather(*(duel.run() for duel in duels))
        finally:
            await pair.host_channel.close()
            await pair.join_channel.close()
        return reports[0], reports[1]

    for report in run(scenario()):
        assert report.end == "complete"
        assert report.timing["deal_s"] == 0
        assert report.timing["moves_timed"] > 0 and report.timing["move_ms_median"] == 0
