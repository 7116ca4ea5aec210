"""What the peer's messages mean during a match, judged by the pure machine (no sockets)."""

from __future__ import annotations

import pytest

from p2p.errors import MatchLost, ProtocolViolation
from p2p.lockstep import Lockstep
from p2p.match import sign_resume
from p2p.messages import Bye, Chat, Final, Ping, Rematch
from tests.test_p2p_resume_machine import KEYS, ROOT, fresh, next_link, play


def test_chat_lines_go_to_the_player_and_keepalives_mean_nothing() -> None:
    lockstep = Lockstep(fresh(), 0, "bob")
    assert lockstep.hear(Chat(text="hi")) == "hi"
    assert lockstep.hear(Ping()) is None
    assert lockstep.match.links == []


def test_the_peers_link_is_applied_only_when_it_is_due_from_the_peer() -> None:
    match = fresh()
    opener, link = next_link(match)
    with pytest.raises(ProtocolViolation, match="while player"):
        Lockstep(match, opener, "bob").hear(link)  # the opener's own link, coming from its peer
    assert Lockstep(match, 1 - opener, "bob").hear(link) == link
    assert match.links == [(opener, link)]


def test_bye_ends_the_reading_only_after_a_complete_match() -> None:
    match = fresh()
    lockstep = Lockstep(match, 0, "bob")
    with pytest.raises(ProtocolViolation, match="before the match was complete"):
        lockstep.hear(Bye())
    while match.due() != (Final, 1):
        play(1, match)
    _, final = next_link(match)
    assert lockstep.hear(final) == final and not lockstep.finished
    assert lockstep.hear(Bye()) is None and lockstep.finished


def test_a_resume_claim_for_a_match_this_side_never_played_is_a_lost_match() -> None:
    with pytest.raises(MatchLost, match="no longer has"):
        Lockstep(fresh(), 0, "bob").hear(sign_resume(KEYS[1], ROOT, 3, bytes(32)))


def test_any_other_message_in_the_middle_of_a_match_is_a_violation() -> None:
    with pytest.raises(ProtocolViolation, match="'rematch' message in the middle of a match"):
        Lockstep(fresh(), 0, "bob").hear(Rematch(want=True))
