"""The static evaluation the search uses at its horizon, and its weights.

A position is scored from the side to move's point of view in hundredths of a
card, from a few features of both hands (see :class:`Weights`). The weights
were tuned by self-play with ``benchmarks/ai.py tune`` (docs/ai.md has the run).

>>> from engine import Position
>>> p = Position.from_notation("6SASKH/6D7D/- SH 0")
>>> evaluator(p.trumps)(p.hand_sets[0], p.hand_sets[1], 0, 0) > 0  # a card more, but none can be beaten
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from engine.cards import suit_mask

SUIT_MASKS = tuple(suit_mask(s) for s in range(4))


class Weights(NamedTuple):
    """What each feature is worth, in hundredths of a card (mover minus opponent)."""

    cards: int = 18
    """Each card fewer in hand."""
    unbeatable: int = 68
    """Each card the opponent could not beat if it were laid before them."""
    trumps: int = 20
    """Each card of one's own trump suit (it beats any other suit)."""
    weapons: int = 8
    """Each card of the opponent's trump suit: they beat it only with a higher one, or take 5."""
    beat_tempo: int = 90
    """Being on the move with a card that beats the top (two cards go)."""
    lead_tempo: int = 10
    """Being on the move on an empty pile (one card goes)."""


DEFAULT_WEIGHTS = Weights()

Evaluator = Callable[[int, int, int, int], int]


def unbeatable(mine: int, theirs: int, their_trump: int) -> int:
    """How many cards of ``mine`` the holder of ``theirs`` cannot beat on their turn."""
    trump_mask = SUIT_MASKS[their_trump]
    their_trumps = theirs & trump_mask
    if their_trumps:
        # Their trumps beat every other suit, so only higher cards of that suit survive.
        return ((mine & trump_mask) >> their_trumps.bit_length()).bit_count()
    total = 0
    for mask in SUIT_MASKS:
        total += ((mine & mask) >> (theirs & mask).bit_length()).bit_count()
    return total


def evaluator(trumps: tuple[int, int], weights: Weights = DEFAULT_WEIGHTS) -> Evaluator:
    """The evaluation ``f(mover_hand, other_hand, pile_code, turn)`` for a pair of trumps.

    It is only asked about positions where the mover has a choice (a lead, or a
    card that beats the top): forced pick-ups are searched, not judged.
    """
    w_cards, w_unbeatable, w_trumps, w_weapons, w_beat, w_lead = weights
    trump_masks = (SUIT_MASKS[trumps[0]], SUIT_MASKS[trumps[1]])

    def evaluate(me: int, opp: int, pile: int, turn: int) -> int:
        mine, theirs = trumps[turn], trumps[1 - turn]
        return (
            w_cards * (opp.bit_count() - me.bit_count())
            + w_unbeatable * (unbeatable(me, opp, theirs) - unbeatable(opp, me, mine))
            + w_trumps * ((me & trump_masks[turn]).bit_count() - (opp & trump_masks[1 - turn]).bit_count())
            + w_weapons * ((me & trump_masks[1 - turn]).bit_count() - (opp & trump_masks[turn]).bit_count())
            + (w_beat if pile else w_lead)
        )

    return evaluate
