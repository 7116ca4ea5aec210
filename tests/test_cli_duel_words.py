"""How a duel went, in the reader's words (issue 22, item 12): each game, why the match ended
early, the series' score; and the host told what is for the host (item 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.app.duel_summary import award_words, ending_words, game_words, host_words, score_words
from engine import Outcome, Reason, Rules
from p2p.duel import Report
from p2p.errors import ConnectionClosed, Forfeit, InviteRefused, P2PError, PeerAborted
from p2p.handshake import INVITE_REFUSAL, Session, Terms
from p2p.match import Match
from p2p.text import N_, Text
from tests.support.peers import Side
from tests.test_p2p_evidence import handshake_session


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Session:
    root = tmp_path_factory.mktemp("keys")
    ann, bob = Side.make(root, "ann"), Side.make(root, "Bob")
    return handshake_session(ann, bob, Terms(Rules(), 2))


def _report(session: Session, end: str, error: P2PError | None = None, awarded: int | None = None) -> Report:
    match = Match(session.session_id, (b"", b""), Rules(), 2)
    game = None if awarded is None else match.number
    return Report(session, match, Path("r.jsonl"), end, error, awarded, awarded_game=game)


def test_each_game_is_told_to_its_reader() -> None:
    """Both sides once read ``game 1: 0-1 out (dealer 0, trumps DH)``, where 0-1 meant bob won."""
    out = Outcome(1, Reason.OUT)
    assert game_words(1, out, me=1, peer="Ann", out_first=1) == "You won game 1: you were out of cards first."
    assert game_words(1, out, me=0, peer="Bob", out_first=1) == "Bob won game 1: Bob was out of cards first."
    drawn = game_words(2, Outcome(None, Reason.LAST_CARD), me=0, peer="Bob", out_first=0)
    assert drawn == "Game 2 was a draw: you went out, but Bob's last card beat the top card."
    assert score_words(3, 1, "Bob") == "you 1½, Bob ½"


def test_why_a_match_ended_early_is_one_sentence_for_its_reader(session: Session) -> None:
    """Once ``the match ended early (abandoned): the peer ended the session (quit): the player left``."""
    peer = session.peer_name
    assert ending_words(_report(session, "complete")) is None
    assert ending_words(_report(session, "abandoned", PeerAborted("quit", "the player left"))) == f"{peer} left the match."
    assert ending_words(_report(session, "quit")) == "You left the match."
    closed = _report(session, "abandoned", ConnectionClosed("the connection dropped"))
    assert ending_words(closed) == f"The connection to {peer} was lost and did not come back: the match ended."
    away = _report(session, "aborted", PeerAborted("forfeit", "you were away"))
    assert ending_words(away) == f"{peer} says you were away too long, and ended the match."
    won = _report(session, "forfeit", Forfeit("away"), awarded=session.seat)
    assert award_words(won) == f"You won game 1 by forfeit: {peer} stayed away too long."
    left = _report(session, "abandoned", PeerAborted("quit", "the player left"), awarded=session.seat)
    assert award_words(left) == f"You won game 1 by forfeit: {peer} left after the deal."


@pytest.mark.parametrize(
    ("cause", "why"),
    [("absence", "{peer} stayed away too long"), ("stall", "{peer} did not make its move in time"),
     ("lost", "{peer} came back without the match")],
)  # fmt: skip
def test_a_claimed_game_says_how_the_peer_failed(session: Session, cause: str, why: str) -> None:
    """A bot's summary once said "bob stayed away too long" of a peer that was connected all along
    and never moved, and of one that came back without the match."""
    said = why.format(peer=session.peer_name)
    won = _report(session, "forfeit", Forfeit("claimed", cause=cause), awarded=session.seat)
    assert award_words(won) == f"You won game 1 by forfeit: {said}."
    assert ending_words(won) == f"{said}: the match ended."


def test_the_host_is_not_told_the_joiners_advice() -> None:
    """Item 7: the host read "…did not prove the invite's secret: ask the host for a fresh invite"."""
    refusal = Text(
        N_("refused a connection from {address}: {error}"),
        address="127.0.0.1:49410",
        error=InviteRefused(Text(INVITE_REFUSAL)),
    )
    assert host_words(refusal) == (
        "refused a connection from 127.0.0.1:49410: it did not prove the invite's secret (someone without "
        "your invite, or with an old one)"
    )
    assert "ask the host" in str(refusal)  # the joiner's words stay the joiner's
