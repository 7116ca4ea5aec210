"""The fair deal: commitments bind (the match before's do not open in the rematch), the seed needs
both secrets, nobody can steer the deal."""

from __future__ import annotations

import os
from collections import Counter

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Rules, deal
from engine.match_rules import next_dealer
from p2p.errors import RevealMismatch
from p2p.fairdeal import Pledge, coin, game_seed, preference, resolve_trumps
from p2p.match import Match, rematch_root
from p2p.messages import Commit, Reveal

SESSION = bytes(range(32))
OTHER = bytes([7]) * 32
NO_SIXES = Rules(sixes=False)  # the sixes exchange moves two cards on purpose


def test_commitment_binds_every_field() -> None:
    pledge = Pledge("SH", bytes(32))
    base = pledge.commitment(SESSION, 1, 0)
    variants = {
        Pledge("SD", bytes(32)).commitment(SESSION, 1, 0),
        Pledge("HS", bytes(32)).commitment(SESSION, 1, 0),
        Pledge("SH", bytes(31) + b"\x01").commitment(SESSION, 1, 0),
        pledge.commitment(SESSION, 2, 0),
        pledge.commitment(SESSION, 1, 1),
        pledge.commitment(bytes(32), 1, 0),
    }
    assert base not in variants and len(variants) == 6


def test_own_seed_cannot_steer_the_deal() -> None:
    """With the other secret fixed, each own secret gives another deal, with no card favoured."""
    trials = 400
    held_by_zero: Counter[int] = Counter()
    deals = set()
    for i in range(trials):
        mine = i.to_bytes(32, "big")
        position = deal(game_seed(SESSION, 1, (mine, OTHER)), dealer=1, trumps="SH", rules=NO_SIXES)
        deals.add(position.hand_sets)
        for card in range(36):
            held_by_zero[card] += position.hand_sets[0] >> card & 1
    assert len(deals) == trials
    # each card lands in player 0's hand about half the time (binomial sd = 10): no steering by search either
    assert all(140 < held_by_zero[card] < 260 for card in range(36)), held_by_zero


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=32, max_size=32), st.integers(0, 255))
def test_one_flipped_bit_of_own_secret_changes_the_seed_unpredictably(mine: bytes, bit: int) -> None:
    flipped = bytearray(mine)
    flipped[bit // 8] ^= 1 << bit % 8
    a = game_seed(SESSION, 1, (mine, OTHER))
    b = game_seed(SESSION, 1, (bytes(flipped), OTHER))
    differing = bin(int.from_bytes(a, "big") ^ int.from_bytes(b, "big")).count("1")
    assert 64 < differing < 192  # about half of the 256 bits change


def test_seed_depends_on_both_secrets_game_and_session() -> None:
    seeds = {
        game_seed(SESSION, 1, (bytes(32), OTHER)),
        game_seed(SESSION, 1, (OTHER, bytes(32))),
        game_seed(SESSION, 2, (bytes(32), OTHER)),
        game_seed(bytes(32), 1, (bytes(32), OTHER)),
    }
    assert len(seeds) == 4


def test_coin_is_fair_over_many_secrets() -> None:
    flips = sum(coin(SESSION, (os.urandom(32), OTHER)) for _ in range(400))
    assert 140 < flips < 260


@pytest.mark.parametrize(
    ("prefs", "dealer", "trumps"),
    [(("SH", "DC"), 0, "SD"), (("SH", "SD"), 0, "HS"), (("SH", "SD"), 1, "SD"), (("CD", "CH"), 1, "CH")],
)
def test_trumps_first_choices_and_the_elder_wins_a_tie(
    prefs: tuple[str, str], dealer: int, trumps: str
) -> None:
    assert resolve_trumps(prefs, dealer) == trumps


def test_loser_deals_and_a_draw_passes_the_deal() -> None:
    assert [next_dealer(0, 0), next_dealer(0, 1), next_dealer(0, None), next_dealer(1, None)] == [1, 0, 1, 0]


def test_preferences_from_the_trump_option() -> None:
    assert preference("S") == "SH" and preference("c") == "CS" and preference("♥♠") == "HS"
    random_pref = preference(None)
    assert len(random_pref) == 2 and random_pref[0] != random_pref[1]
    for bad in ("SS", "X", "SHD"):
        with pytest.raises(ValueError):
            preference(bad)


def test_a_commitment_and_reveal_of_the_match_before_do_not_open_in_the_rematch() -> None:
    """The claim (docs/protocol-rationale.md, "Why neither player can bias the deal"): bob replays, signed
    afresh over the rematch's chain, the commitment and the reveal he made for game 1 of the match
    before (whose secret he has seen dealt): the commitment binds that match's root, so in the
    rematch it opens to nothing (a reveal mismatch), and no old secret can be carried over."""
    ann, bob = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    keys = tuple(key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw) for key in (ann, bob))
    assert len(keys) == 2
    pledges = (Pledge("SH", os.urandom(32)), Pledge("DC", os.urandom(32)))

    def set_up(match: Match, commitments: tuple[bytes, bytes]) -> None:
        for seat, key in enumerate((ann, bob)):
            match.apply(match.sign(key, Commit(game=1, commitment=commitments[seat], sig=b"")), seat)
        for seat, key in enumerate((ann, bob)):
            unsigned = Reveal(game=1, pref=pledges[seat].pref, secret=pledges[seat].secret, sig=b"")
            match.apply(match.sign(key, unsigned), seat)

    before = Match(bytes(32), (keys[0], keys[1]), Rules(), 1)
    old = tuple(pledge.commitment(before.session_id, 1, seat) for seat, pledge in enumerate(pledges))
    set_up(before, (old[0], old[1]))
    assert before.revealed
    root = rematch_root(before.session_id, before.transcript, 1)
    rematch = Match(root, (keys[0], keys[1]), Rules(), 1, dealer=1)
    fresh = pledges[0].commitment(root, 1, 0)  # ann's pledge made for the rematch
    with pytest.raises(RevealMismatch) as refused:
        set_up(rematch, (fresh, old[1]))
    assert "player 1" in str(refused.value) and not rematch.revealed
