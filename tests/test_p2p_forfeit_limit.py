"""One forfeit limit for both sides of a match: each states its own (``--timeout``) in the
handshake, ``offer.limit_ms`` and ``accept.limit_ms``, and both judge by the longer one. Two
programs started with different ``--timeout`` then never disagree over whether a game could be
claimed (docs/protocol.md, "Forfeits")."""

from __future__ import annotations

import argparse

import pytest

from engine import Rules
from p2p.errors import SchemaError
from p2p.handshake import HostHandshake, JoinerHandshake, Session, Terms
from p2p.identity import Peers
from p2p.invite import new_secret
from p2p.messages import FORFEIT_MS, Accept, Message, Offer, parse
from p2p.wire import decode, encode
from tests.support.handshakes import identity as _identity
from tests.support.handshakes import sent as _sent


def _sessions(host_ms: int, joiner_ms: int) -> tuple[Session, Session, Offer, Accept]:
    """A whole handshake in memory between a host stating ``host_ms`` and a joiner stating
    ``joiner_ms``, every message through the wire's bytes: both sides' sessions, the offer, the accept."""
    secret, ann = new_secret(), _identity()
    host = HostHandshake(ann, "ann", Terms(Rules(), 2, limit_ms=host_ms), secret)
    joiner = JoinerHandshake(_identity(), "bob", ann.fingerprint, secret, Peers(), joiner_ms)

    def through_wire(messages: list[Message]) -> list[Message]:
        return [parse(decode(encode(message.to_wire()))) for message in messages]

    (offer,) = through_wire([m for sent in _sent(joiner.start()) for m in _sent(host.receive(sent))])
    assert isinstance(offer, Offer)
    joiner.offered(offer)
    to_host = through_wire(_sent(joiner.accept()))
    for message in to_host:
        host.receive(message)
    joiner.confirmed(*through_wire(_sent(host.admit())))
    assert host.session is not None and joiner.session is not None
    accept = to_host[0]
    assert isinstance(accept, Accept)
    return host.session, joiner.session, offer, accept


@pytest.mark.parametrize(("host_ms", "joiner_ms"), [(3_000, 60_000), (600_000, 5_500), (FORFEIT_MS, 2_000)])
def test_both_sides_judge_by_the_longer_of_the_two_stated_limits(host_ms: int, joiner_ms: int) -> None:
    hosts, joiners, offer, accept = _sessions(host_ms, joiner_ms)
    assert (offer.limit_ms, accept.limit_ms) == (host_ms, joiner_ms)
    assert hosts.forfeit_limit == joiners.forfeit_limit == max(host_ms, joiner_ms) / 1000
    assert hosts.session_id == joiners.session_id  # both limits are under both signatures


def test_the_default_limits_send_what_protocol_3_sent_before_the_field() -> None:
    hosts, _, offer, accept = _sessions(FORFEIT_MS, FORFEIT_MS)
    assert "limit_ms" not in offer.to_wire() and "limit_ms" not in accept.to_wire()
    assert hosts.forfeit_limit == 180.0


@pytest.mark.parametrize(
    ("value", "why"),
    [(FORFEIT_MS, "left out for the default"), (0, "whole number"), (86_400_001, "whole number"),
     (True, "whole number"), (1.5, "whole number")],
)  # fmt: skip
def test_a_stated_limit_is_checked_and_the_default_has_one_spelling(value: object, why: str) -> None:
    _, _, _, accept = _sessions(FORFEIT_MS, 30_000)
    wire = accept.to_wire() | {"limit_ms": value}
    with pytest.raises(SchemaError, match=why):
        parse(wire)


def test_a_redial_takes_only_an_offer_with_the_same_host_limit() -> None:
    """A host restarted with another ``--timeout`` still offers its match's terms (the saved
    offer's); an offer with another limit is another match's, and a redial does not take it."""
    hosts, _, _, _ = _sessions(30_000, FORFEIT_MS)
    assert hosts.terms.limit_ms == 30_000
    assert Terms.of(hosts.offer) != Terms(hosts.terms.rules, hosts.terms.games, limit_ms=31_000)


@pytest.mark.parametrize(("timeout", "stated"), [(None, FORFEIT_MS), (2.5, 2_500), (0.0001, 1), (86400.0, 86_400_000)])
def test_the_command_states_its_timeout_in_milliseconds(timeout: float | None, stated: int) -> None:
    from cli.net.arguments import stated_limit_ms

    assert stated_limit_ms(argparse.Namespace(timeout=timeout)) == stated
