"""The one-ply greedy player: the baseline the search must beat.

It beats with its cheapest card, then plays the second card the opponent is
worst off facing (fewest of their cards beat it, and a pick-up there costs
them the most).
"""

from __future__ import annotations

from engine.cards import BEATERS
from engine.moves import Move
from engine.position import Position

COSTS = tuple(tuple(c % 9 + (9 if c // 9 == trump else 0) for c in range(36)) for trump in range(4))
"""``COSTS[trump][card]``: how dear a card is to part with for the holder of ``trump``:
own trumps dearest, then rank. The search orders its moves by it too."""


def pressure(position: Position, card: int) -> int:
    """How many of the opponent's cards (after ``card`` is laid) beat it; fewer is better."""
    opponent = 1 - position.turn
    return (position.hand_sets[opponent] & BEATERS[position.trumps[opponent]][card]).bit_count()


def greedy_move(position: Position, moves: list[Move]) -> Move:
    """The greedy choice among ``moves`` (the legal moves of ``position``)."""

    costs = COSTS[position.trumps[position.turn]]

    def score(move: Move) -> tuple[int, int, int]:
        cards = move.cards
        if not cards:
            return (99, 0, 0)  # take only when nothing else is allowed or sensible
        beat = costs[cards[0]] if position.pile else 0
        lead = cards[-1]
        return (beat, pressure(position, lead), costs[lead])

    return min(moves, key=score)
